"""Edge realisation: the targets are met exactly, with valid, new (or existing) edges only."""

import networkx as nx
import numpy as np

from privcheck.graph.arrays import graph_arrays
from privcheck.graph.realise import add_edges_greedy, remove_then_add


def realisable_residual(g, ga, rng, n_add, n_remove=0):
    """Degree change of a random edit of g (so some realisation exists)."""
    h = g.copy()
    h.remove_edges_from([tuple(e) for e in rng.permutation(list(g.edges()))[:n_remove]])
    non_edges = list(nx.non_edges(g))
    h.add_edges_from(non_edges[i] for i in rng.permutation(len(non_edges))[:n_add])
    return np.array([h.degree(u) for u in ga.nodes]) - ga.degrees


def test_additions_meet_residuals_with_new_edges():
    rng = np.random.default_rng(0)
    hits = 0
    for seed in range(20):
        g = nx.erdos_renyi_graph(30, 0.1, seed=seed)
        ga = graph_arrays(g)
        residual = realisable_residual(g, ga, rng, n_add=int(rng.integers(1, 12)))
        edits = add_edges_greedy(ga.adjacency, residual)
        if edits.shortfall:
            continue
        hits += 1
        added = {tuple(e) for e in edits.added.tolist()}
        assert len(added) == len(edits.added)  # no edge twice
        assert all(u != v and not g.has_edge(ga.nodes[u], ga.nodes[v]) for u, v in added)
        gained = np.bincount(edits.added.ravel(), minlength=ga.n)
        assert (gained == residual).all()
    assert hits >= 15


def test_shortfall_when_stuck():
    g = nx.complete_graph(4)
    g.add_node(4)
    ga = graph_arrays(g)
    # node 0 needs 2 more edges but only node 4 is not yet its neighbour: one end of 0 and,
    # after 0–4, one end of 4 find no partner
    assert add_edges_greedy(ga.adjacency, np.array([2, 0, 0, 0, 2])).shortfall == 2
    # odd residual sum cannot be met by edges
    assert add_edges_greedy(ga.adjacency, np.array([1, 0, 0, 0, 0])).shortfall == 1


def test_remove_then_add_meets_signed_residuals():
    rng = np.random.default_rng(1)
    hits = 0
    for seed in range(20):
        g = nx.barabasi_albert_graph(30, 3, seed=seed)
        ga = graph_arrays(g)
        residual = realisable_residual(
            g, ga, rng, n_add=int(rng.integers(0, 8)), n_remove=int(rng.integers(1, 8))
        )
        edits = remove_then_add(ga.adjacency, residual)
        if edits.shortfall:
            continue
        hits += 1
        h = g.copy()
        removed = [(ga.nodes[u], ga.nodes[v]) for u, v in edits.removed.tolist()]
        assert all(g.has_edge(u, v) for u, v in removed)
        h.remove_edges_from(removed)
        added = [(ga.nodes[u], ga.nodes[v]) for u, v in edits.added.tolist()]
        assert not any(h.has_edge(u, v) for u, v in added)
        assert not set(map(frozenset, added)) & set(map(frozenset, removed))
        h.add_edges_from(added)
        after = np.array([h.degree(u) for u in ga.nodes])
        assert (after - ga.degrees == residual).all()
    assert hits >= 15
