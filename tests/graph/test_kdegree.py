"""k-degree check against a plain Python count of nodes per degree."""

from collections import Counter

import networkx as nx
import pytest

from privcheck.errors import DataError, PolicyError
from privcheck.graph.kdegree import achieved_k_degree, check_k_degree, degree_array


def random_graphs():
    for seed in range(5):
        yield nx.erdos_renyi_graph(35, 0.12, seed=seed)
        yield nx.barabasi_albert_graph(40, 2, seed=seed)


@pytest.mark.parametrize("k", [2, 3, 5])
def test_matches_plain_count(k):
    for g in random_graphs():
        per_degree = Counter(d for _, d in g.degree())
        result = check_k_degree(g, k)
        assert result.value == min(per_degree.values())
        assert result.value == achieved_k_degree(degree_array(g))
        bad = {d: c for d, c in per_degree.items() if c < k}
        assert result.passed == (not bad)
        assert result.violating_classes == len(bad)
        assert result.violating_records == sum(bad.values())
        assert result.n_classes == len(per_degree)
        listed = {v.values["degree"]: v for v in result.violators}
        assert set(listed) == set(bad)
        for d, v in listed.items():
            assert v.size == bad[d]
            assert sorted(v.records) == sorted(u for u in g if g.degree(u) == d)
        sizes = [v.size for v in result.violators]
        assert sizes == sorted(sizes)


def test_karate_report_shape():
    g = nx.karate_club_graph()
    result = check_k_degree(g, 2)
    # karate: degrees 1, 9, 10, 12, 16, 17 occur once each
    assert result.value == 1
    assert sorted(v.values["degree"] for v in result.violators if v.size == 1) == [
        1,
        9,
        10,
        12,
        16,
        17,
    ]
    dumped = result.model_dump()
    assert dumped["model"] == "k-degree" and dumped["params"] == {"k": 2}
    assert {"passed", "value", "violating_classes", "violating_records", "violators"} <= set(dumped)


def test_violator_cap():
    g = nx.star_graph(5)  # centre degree 5 once, leaves degree 1 five times
    g.add_edges_from([(10 + i, 20 + i) for i in range(3)])  # three more degree-1 pairs
    result = check_k_degree(g, 12, max_violators=1)
    assert result.violating_classes == 2
    assert len(result.violators) == 1 and result.violators[0].size == 1


def test_bad_k_and_graph_types():
    g = nx.path_graph(4)
    with pytest.raises(PolicyError, match="between 2 and the number of nodes"):
        check_k_degree(g, 1)
    # a graph too small for k is a failed check, not bad input
    too_small = check_k_degree(g, 5)
    assert not too_small.passed and too_small.value == 2
    with pytest.raises(DataError, match="simple undirected"):
        check_k_degree(nx.DiGraph(g), 2)
    looped = nx.path_graph(4)
    looped.add_edge(1, 1)
    with pytest.raises(DataError, match="self-loop"):
        check_k_degree(looped, 2)
