"""k-neighbourhood check against brute-force all-pairs isomorphism of the neighbourhoods."""

import itertools
import warnings

import networkx as nx
import numpy as np
import pytest

from privcheck.errors import DataError
from privcheck.graph import kneighbourhood as kn
from privcheck.graph.kneighbourhood import (
    _invariants_decide,
    check_k_neighbourhood,
    neighbourhood_classes,
)


def brute_same(g, label=None):
    """same[i, j]: the subgraphs induced by the neighbours of node i and node j are isomorphic."""
    nodes = list(g)
    subs = [g.subgraph(g[u]) for u in nodes]
    match = None if label is None else nx.isomorphism.categorical_node_match(label, None)
    n = len(nodes)
    same = np.eye(n, dtype=bool)
    for i, j in itertools.combinations(range(n), 2):
        same[i, j] = same[j, i] = nx.is_isomorphic(subs[i], subs[j], node_match=match)
    return same


def random_graphs():
    for seed in range(4):
        yield nx.erdos_renyi_graph(30, 0.2, seed=seed)  # dense enough for non-trivial buckets
        yield nx.erdos_renyi_graph(40, 0.08, seed=seed)
        yield nx.barabasi_albert_graph(40, 3, seed=seed)
        yield nx.powerlaw_cluster_graph(40, 3, 0.6, seed=seed)


@pytest.mark.parametrize("labelled", [False, True])
def test_classes_and_achieved_k_match_brute_force(labelled, monkeypatch):
    refined = []
    original = kn._refine_bucket
    monkeypatch.setattr(kn, "_refine_bucket", lambda *a: refined.append(len(a[2])) or original(*a))
    for i, g in enumerate(random_graphs()):
        label = None
        if labelled:
            rng = np.random.default_rng(i)
            nx.set_node_attributes(g, {u: int(rng.integers(2)) for u in g}, "label")
            label = "label"
        same = brute_same(g, label)
        classes = neighbourhood_classes(g, label)
        assert (same == (classes[:, None] == classes[None, :])).all()
        counts = same.sum(axis=1)  # nodes (itself included) sharing each node's neighbourhood
        for k in (2, 3, 4):
            result = check_k_neighbourhood(g, k, label=label)
            assert result.value == counts.min()
            assert result.passed == (counts.min() >= k)
            assert result.violating_records == int((counts < k).sum())
            violators = {u for v in result.violators for u in v.records}
            assert violators == {u for u, c in zip(g, counts, strict=True) if c < k}
    assert sum(refined) > 20  # the WL + isomorphism stage was exercised, not only invariants


def test_regular_neighbourhoods_that_wl_cannot_tell_apart():
    """K3,3 and the triangular prism: same size, edges, degrees and WL hash, not isomorphic."""
    g = nx.Graph()
    for centre, h in (
        ("a", nx.complete_bipartite_graph(3, 3)),
        ("b", nx.circular_ladder_graph(3)),
        ("c", nx.complete_bipartite_graph(3, 3)),
    ):
        h = nx.relabel_nodes(h, {u: f"{centre}{u}" for u in h})
        g.add_edges_from(h.edges())
        g.add_edges_from((centre, u) for u in h)
    na, nb = g.subgraph(g["a"]), g.subgraph(g["b"])
    assert not nx.is_isomorphic(na, nb)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert nx.weisfeiler_lehman_graph_hash(na) == nx.weisfeiler_lehman_graph_hash(nb)
    classes = dict(zip(g, neighbourhood_classes(g), strict=True))
    assert classes["a"] == classes["c"] != classes["b"]
    same = brute_same(g)
    cls = np.array(list(classes.values()))
    assert (same == (cls[:, None] == cls[None, :])).all()


def test_invariant_shortcut_rules_on_graph_atlas():
    """Wherever the shortcut says the invariants decide, equal invariants imply isomorphism."""
    atlas = nx.graph_atlas_g()  # every graph with up to 7 nodes
    seen: dict[tuple, nx.Graph] = {}
    decided_any = 0
    for h in atlas[1:]:
        deg = sorted(d for _, d in h.degree())
        n, m = h.number_of_nodes(), h.number_of_edges()
        decides = _invariants_decide(
            np.array([n]), np.array([m]), np.array([deg[-1]]), np.array([deg[0]]), labelled=False
        )[0]
        if not decides:
            continue
        decided_any += 1
        key = (n, m, tuple(deg))
        assert key not in seen, f"non-isomorphic graphs share decided invariants {key}"
        seen[key] = h
    assert decided_any > 60  # the rules fire on a good share of the atlas


def test_karate_and_isolated_nodes():
    g = nx.karate_club_graph()
    g.add_nodes_from(["a", "b"])  # two isolated nodes: empty neighbourhoods, one class
    classes = neighbourhood_classes(g)
    nodes = list(g)
    assert classes[nodes.index("a")] == classes[nodes.index("b")]
    same = brute_same(g)
    assert (same == (classes[:, None] == classes[None, :])).all()
    result = check_k_neighbourhood(g, 2)
    assert result.model == "k-neighbourhood" and not result.passed
    hub = next(v for v in result.violators if 33 in v.records)
    assert hub.values == {
        "neighbourhood_nodes": 17,
        "neighbourhood_edges": g.subgraph(g[33]).size(),
    }


def test_label_errors():
    g = nx.path_graph(4)
    nx.set_node_attributes(g, {0: "a", 1: "b", 2: "a"}, "label")
    with pytest.raises(DataError, match="no 'label' attribute"):
        check_k_neighbourhood(g, 2, label="label")
    g.nodes[3]["label"] = ["x"]
    with pytest.raises(DataError, match="hashable"):
        check_k_neighbourhood(g, 2, label="label")
