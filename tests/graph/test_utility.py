"""Utility figures against networkx."""

import networkx as nx
import numpy as np
import pytest

from privcheck.graph.arrays import graph_arrays
from privcheck.graph.utility import average_clustering, average_path_length, sample_sources


@pytest.mark.parametrize("seed", range(3))
def test_clustering_matches_networkx(seed):
    g = nx.powerlaw_cluster_graph(60, 3, 0.5, seed=seed)
    g.add_node("isolated")
    assert average_clustering(graph_arrays(g).adjacency) == pytest.approx(nx.average_clustering(g))


def test_path_length_matches_bfs_from_same_sources():
    g = nx.connected_watts_strogatz_graph(80, 4, 0.2, seed=1)
    g.add_edge("x", "y")  # a second component: unreachable pairs are left out
    ga = graph_arrays(g)
    sources = sample_sources(ga.n, 10, seed=3)
    lengths = [
        d
        for s in sources
        for t, d in nx.single_source_shortest_path_length(g, ga.nodes[s]).items()
        if d > 0
    ]
    assert average_path_length(ga.adjacency, sources) == pytest.approx(np.mean(lengths))
    assert (sample_sources(ga.n, 10, seed=3) == sources).all()
