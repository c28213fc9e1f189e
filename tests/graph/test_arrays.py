"""Array views of graphs against networkx."""

import networkx as nx
import numpy as np
import pytest

from privcheck.errors import DataError, PolicyError
from privcheck.graph.arrays import edge_triangle_counts, graph_arrays, validate_k


def test_arrays_and_common_neighbour_counts():
    g = nx.relabel_nodes(nx.powerlaw_cluster_graph(50, 3, 0.5, seed=2), lambda u: f"n{u}")
    ga = graph_arrays(g)
    assert ga.nodes == list(g) and ga.n == 50
    assert (ga.degrees == [g.degree(u) for u in g]).all()
    assert {frozenset((ga.nodes[a], ga.nodes[b])) for a, b in ga.edges.tolist()} == {
        frozenset(e) for e in g.edges()
    }
    support = edge_triangle_counts(ga.adjacency).todok()
    for u, v in g.edges():
        i, j = ga.nodes.index(u), ga.nodes.index(v)
        common = len(list(nx.common_neighbors(g, u, v)))
        assert support.get((i, j), 0) == support.get((j, i), 0) == common


def test_validate_k():
    assert validate_k(np.int64(3), 10) == 3
    with pytest.raises(PolicyError, match="integer"):
        validate_k(2.0, 10)
    with pytest.raises(PolicyError, match="integer"):
        validate_k(True, 10)
    with pytest.raises(DataError, match="at least 2"):
        validate_k(2, 1)


def test_multigraph_rejected():
    with pytest.raises(DataError, match="MultiGraph"):
        graph_arrays(nx.MultiGraph([(1, 2), (1, 2)]))
