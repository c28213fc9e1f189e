"""k-degree anonymization: every output passes the check; reported figures are recomputed here."""

import networkx as nx
import numpy as np
import pytest
from scipy.stats import wasserstein_distance

from privcheck.errors import PolicyError
from privcheck.graph.anonymize import k_degree_anonymize
from privcheck.graph.degree_dp import anonymize_degree_sequence
from privcheck.graph.kdegree import check_k_degree


def random_graphs():
    for seed in range(4):
        yield nx.erdos_renyi_graph(40, 0.1, seed=seed)
        yield nx.barabasi_albert_graph(40, 2, seed=seed)
        yield nx.powerlaw_cluster_graph(40, 2, 0.5, seed=seed)


def degrees(g, nodes):
    return np.array([g.degree(u) for u in nodes])


@pytest.mark.parametrize("k", [2, 3, 5, 8])
def test_additions_only_gives_k_anonymous_supergraph(k):
    for g in random_graphs():
        out = k_degree_anonymize(g, k, utility=False)
        h = out.graph
        assert check_k_degree(h, k).passed
        assert set(h) == set(g)
        assert all(h.has_edge(u, v) for u, v in g.edges())  # supergraph
        new = {frozenset(e) for e in h.edges()} - {frozenset(e) for e in g.edges()}
        assert new == {frozenset(e) for e in out.added}
        rep = out.report
        assert rep.edges_added == len(new) and rep.edges_removed == 0
        change = np.abs(degrees(h, g) - degrees(g, g)).sum()
        assert rep.l1_degree_change == change == 2 * len(new)
        optimum = anonymize_degree_sequence(degrees(g, g), k).cost
        assert rep.optimal_l1_degree_change == optimum <= change
        if rep.probes == 0:  # the optimal sequence itself was realised
            assert change == optimum
        assert rep.check.passed and rep.check.value >= k


@pytest.mark.parametrize("k", [2, 3, 5, 8])
def test_additions_and_deletions_give_k_anonymous_graph(k):
    for g in random_graphs():
        out = k_degree_anonymize(g, k, deletions=True, utility=False)
        h = out.graph
        assert check_k_degree(h, k).passed
        old = {frozenset(e) for e in g.edges()}
        now = {frozenset(e) for e in h.edges()}
        assert now - old == {frozenset(e) for e in out.added}
        assert old - now == {frozenset(e) for e in out.removed}
        rep = out.report
        assert rep.edges_added == len(now - old) and rep.edges_removed == len(old - now)
        assert rep.l1_degree_change == np.abs(degrees(h, g) - degrees(g, g)).sum()
        optimum = anonymize_degree_sequence(degrees(g, g), k, allow_decrease=True).cost
        assert rep.optimal_l1_degree_change == optimum <= rep.l1_degree_change


def test_karate_end_to_end_with_utility():
    g = nx.karate_club_graph()
    assert not check_k_degree(g, 3).passed
    out = k_degree_anonymize(g, 3, seed=4, path_sources=34)
    rep = out.report
    assert rep.check.passed and rep.mode == "additions"
    h = out.graph
    # node and edge attributes of the input survive
    assert h.nodes[0]["club"] == g.nodes[0]["club"]
    assert h.edges[0, 1]["weight"] == g.edges[0, 1]["weight"]
    u = rep.utility
    assert u.clustering_before == pytest.approx(nx.average_clustering(g))
    assert u.clustering_after == pytest.approx(nx.average_clustering(h))
    # all 34 nodes are sources: the sampled mean is the exact average path length
    assert u.path_length_before == pytest.approx(nx.average_shortest_path_length(g))
    assert u.path_length_after == pytest.approx(nx.average_shortest_path_length(h))
    assert u.degree_emd == pytest.approx(wasserstein_distance(degrees(g, g), degrees(h, g)))
    dumped = rep.model_dump()
    assert dumped["check"]["model"] == "k-degree"


def test_same_seed_same_output():
    g = nx.barabasi_albert_graph(200, 2, seed=9)
    a = k_degree_anonymize(g, 10, seed=1, utility=False)
    b = k_degree_anonymize(g, 10, seed=1, utility=False)
    assert a.added == b.added


def test_k_equal_n_makes_degrees_equal():
    g = nx.star_graph(4)
    out = k_degree_anonymize(g, 5, utility=False)
    assert len({d for _, d in out.graph.degree()}) == 1


def test_bad_parameters():
    g = nx.path_graph(5)
    with pytest.raises(PolicyError, match="between 2 and the number of nodes"):
        k_degree_anonymize(g, 6)
    with pytest.raises(PolicyError, match="probe_size"):
        k_degree_anonymize(g, 2, probe_size=0)
