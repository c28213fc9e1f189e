"""Seed-and-propagate: scores against a direct transcription of the paper's scoring; attack
success on a perturbed copy with known mapping, before and after k-degree anonymization."""

import networkx as nx
import numpy as np
import pytest

from privcheck.errors import DataError, PolicyError
from privcheck.graph.anonymize import k_degree_anonymize
from privcheck.graph.arrays import graph_arrays
from privcheck.graph.deanonymize import (
    _best_matches,
    reidentification_risk,
    seed_and_propagate,
)


def paper_scores(aux, rel, mapping, lnode):
    """Narayanan & Shmatikov's matchScores, node by node (image nodes are not candidates)."""
    scores = dict.fromkeys(rel, 0.0)
    image = set(mapping.values())
    for lnbr in aux[lnode]:
        if lnbr not in mapping:
            continue
        for rnode in rel[mapping[lnbr]]:
            if rnode in image:
                continue
            scores[rnode] += 1 / rel.degree(rnode) ** 0.5
    return scores


def eccentricity(values):
    values = np.array(values)
    top2 = np.sort(values)[-2:]
    std = values.std()
    return 0.0 if std == 0 else (top2[1] - top2[0]) / std


def test_scores_and_eccentricity_match_the_paper():
    aux = nx.barabasi_albert_graph(60, 3, seed=1)
    rel = nx.relabel_nodes(nx.barabasi_albert_graph(60, 3, seed=2), lambda u: f"r{u}")
    rng = np.random.default_rng(0)
    left, right = rng.permutation(60)[:15], rng.permutation(60)[:15]
    mapping = {int(u): f"r{v}" for u, v in zip(left, right, strict=True)}
    a, b = graph_arrays(aux), graph_arrays(rel)
    ib = {u: i for i, u in enumerate(b.nodes)}
    fwd = np.full(a.n, -1)
    taken = np.zeros(b.n, bool)
    for u, v in mapping.items():
        fwd[a.nodes.index(u)] = ib[v]
        taken[ib[v]] = True
    todo = np.flatnonzero(fwd < 0)
    best, ecc = _best_matches(
        a.adjacency, b.adjacency, fwd, todo, taken, 1 / np.sqrt(np.maximum(b.degrees, 1))
    )
    compared = 0
    for row, i in enumerate(todo.tolist()):
        scores = paper_scores(aux, rel, mapping, a.nodes[i])
        expected = eccentricity(list(scores.values()))
        assert ecc[row] == pytest.approx(expected)
        if expected > 0:
            compared += 1
            top = max(scores.values())
            assert scores[b.nodes[best[row]]] == pytest.approx(top)
    assert compared > 10


def perturbed_setup(g, drop, seed):
    """Auxiliary graph = g minus a share of its edges; released = g under a secret relabelling."""
    rng = np.random.default_rng(seed)
    edges = list(g.edges())
    aux = nx.Graph()
    aux.add_nodes_from(g)
    aux.add_edges_from(e for e, r in zip(edges, rng.random(len(edges)), strict=True) if r >= drop)
    secret = dict(zip(g, (f"p{int(i)}" for i in rng.permutation(len(g))), strict=True))
    seeds = {u: secret[u] for u in sorted(g, key=g.degree, reverse=True)[:15]}
    return aux, secret, seeds


def test_attack_reidentifies_most_nodes_and_fewer_after_anonymization():
    g = nx.barabasi_albert_graph(600, 4, seed=3)
    aux, secret, seeds = perturbed_setup(g, drop=0.05, seed=1)
    before = reidentification_risk(aux, nx.relabel_nodes(g, secret), seeds, secret)
    assert before.n_seeds == 15 and before.n_targets == 585
    assert before.reidentified_share > 0.9
    assert before.precision > 0.95
    anonymized = k_degree_anonymize(g, 10, utility=False).graph
    after = reidentification_risk(aux, nx.relabel_nodes(anonymized, secret), seeds, secret)
    assert after.correct < before.correct
    # without seeds there is nothing to propagate from
    none = reidentification_risk(aux, nx.relabel_nodes(g, secret), {}, secret)
    assert none.mapped == 0 and none.reidentified_share == 0.0


def test_mapping_is_one_to_one_and_keeps_seeds():
    g = nx.powerlaw_cluster_graph(300, 3, 0.4, seed=5)
    aux, secret, seeds = perturbed_setup(g, drop=0.1, seed=2)
    mapping, rounds = seed_and_propagate(aux, nx.relabel_nodes(g, secret), seeds, theta=0.2)
    assert rounds >= 2
    assert all(mapping[u] == v for u, v in seeds.items())
    assert len(set(mapping.values())) == len(mapping)


def test_bad_seeds_and_theta():
    g = nx.path_graph(5)
    with pytest.raises(DataError, match="not in the released graph"):
        seed_and_propagate(g, g, {0: 99})
    with pytest.raises(DataError, match="two auxiliary nodes"):
        seed_and_propagate(g, g, {0: 1, 2: 1})
    with pytest.raises(PolicyError, match="theta"):
        seed_and_propagate(g, g, {0: 0}, theta=-1)
