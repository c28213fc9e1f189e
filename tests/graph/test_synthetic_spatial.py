"""Synthetic spatial graphs: k-degree anonymous, simple, degree gap exact, positions follow the
density; oracles are degree counts (collections.Counter), brute-force distances and scipy tests."""

from __future__ import annotations

import json
from collections import Counter

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from privcheck.errors import PolicyError
from privcheck.graph.synthetic_spatial import (
    correct_multigraph,
    k_anonymous_target,
    nearness_multigraph,
    sample_positions,
    synthetic_spatial_graph,
)


def random_graphs():
    for seed in range(5):
        yield nx.gnm_random_graph(80, 240, seed=seed)
        yield nx.powerlaw_cluster_graph(80, 3, 0.3, seed=seed)
        yield nx.barabasi_albert_graph(60, 4, seed=seed)


def degree_counts(g: nx.Graph) -> Counter[int]:
    return Counter(d for _, d in g.degree())


@pytest.mark.parametrize("k", [2, 3, 5, 8])
@pytest.mark.parametrize("density", ["uniform", "gaussian-mixture"])
def test_output_is_simple_and_k_degree_anonymous(k, density):
    for i, g in enumerate(random_graphs()):
        out = synthetic_spatial_graph(g, k, density=density, seed=i, utility=False, attack=False)
        h, rep = out.graph, out.report
        assert set(h) == set(g)
        assert nx.number_of_selfloops(h) == 0  # nx.Graph holds no multi-edges by construction
        # target: k-anonymous (every degree value shared by ≥ k nodes), even sum, graphical
        assert min(Counter(out.target.tolist()).values()) >= k
        assert nx.is_graphical(out.target.tolist())
        got = np.array([h.degree(u) for u in g])
        gap = int(np.abs(got - out.target).sum())
        assert rep.l1_degree_gap == gap
        assert rep.degree_sequence_matched == (gap == 0)
        if gap == 0:
            assert min(degree_counts(h).values()) >= k
        assert rep.check.passed == (min(degree_counts(h).values()) >= k)
        d = np.array([g.degree(u) for u in g])
        assert rep.target_l1_change == int(np.abs(out.target - d).sum())
        assert rep.n_edges_after == h.number_of_edges() == got.sum() // 2
        shared = {frozenset(e) for e in g.edges()} & {frozenset(e) for e in h.edges()}
        assert rep.shared_edges == len(shared)
        assert rep.rewired + rep.dropped == rep.multi_edges_created + rep.self_loops_created


def test_hidden_k_anonymous_graphical_sequence_is_met_exactly():
    rng = np.random.default_rng(5)
    met = 0
    for trial in range(20):
        # a hidden graphical sequence with every value shared by ≥ 4 nodes
        values = rng.choice(np.arange(1, 12), size=6, replace=False)
        seq = np.repeat(values, rng.integers(4, 9, size=6))
        if seq.sum() % 2:
            seq = np.append(seq, [1, 1, 1, 1, 1])  # five 1s: joins or forms a group ≥ 4
            if seq.sum() % 2:
                continue
        if not nx.is_graphical(seq.tolist()):
            continue
        g = nx.havel_hakimi_graph(seq.tolist())
        out = synthetic_spatial_graph(g, 4, seed=trial, utility=False, attack=False)
        # already 4-anonymous: the median DP leaves it as is
        np.testing.assert_array_equal(out.target, [g.degree(u) for u in g])
        got = np.array([out.graph.degree(u) for u in g])
        assert out.report.l1_degree_gap == int(np.abs(got - out.target).sum())
        met += out.report.degree_sequence_matched
    assert met >= 15  # the correction step meets almost every sequence exactly


def test_target_parity_fix_keeps_groups():
    # degrees 3,3,3 | 1,1,1 → sum 12 even; 3,3,3 | 2,2,2 → 15 odd: a whole group moves by one
    t = k_anonymous_target(np.array([3, 3, 3, 2, 2, 2]), 3)
    assert t.sum() % 2 == 0 and min(Counter(t.tolist()).values()) >= 3
    assert nx.is_graphical(t.tolist())


def test_nearness_step_meets_degrees_and_joins_nearest():
    rng = np.random.default_rng(0)
    pos = rng.random((30, 2))
    target = rng.integers(1, 6, size=30)
    target[0] += target.sum() % 2
    multi = nearness_multigraph(pos, target)
    deg = np.zeros(30, np.int64)
    for (u, v), c in multi.items():
        deg[u] += c
        deg[v] += c  # a loop counts twice
    np.testing.assert_array_equal(deg, target)
    # the first node processed (largest target, lowest index) joins its nearest nodes
    first = int(np.lexsort((np.arange(30), -target))[0])
    dist = np.linalg.norm(pos - pos[first], axis=1)
    dist[first] = np.inf
    nearest = set(np.argsort(dist, kind="stable")[: target[first]].tolist())
    partners = {v if u == first else u for (u, v) in multi if first in (u, v)}
    assert nearest <= partners


def test_correction_rewires_loops_and_multi_edges_keeping_degrees():
    pos = np.random.default_rng(1).random((8, 2))
    multi = Counter(
        {(0, 1): 3, (2, 2): 1, (2, 3): 1, (4, 5): 1, (5, 6): 1, (6, 7): 1, (3, 4): 1, (1, 7): 1}
    )
    deg = np.zeros(8, np.int64)
    for (u, v), c in multi.items():
        deg[u] += c
        deg[v] += c
    edges, rewired, dropped = correct_multigraph(multi, pos)
    assert rewired + dropped == 3  # two surplus copies of (0, 1) and one loop
    assert all(u < v for u, v in edges.tolist()) and len({tuple(e) for e in edges.tolist()}) == len(
        edges
    )
    got = np.bincount(edges.ravel(), minlength=8)
    assert int(np.abs(got - deg).sum()) == 2 * dropped


def test_uniform_positions_fit_the_density():
    pos = sample_positions(4000, "uniform", np.random.default_rng(3))
    for axis in (0, 1):
        assert stats.kstest(pos[:, axis], "uniform").pvalue > 0.01
    cells = np.floor(pos * 5).astype(int)
    counts = np.bincount(cells[:, 0] * 5 + cells[:, 1], minlength=25)
    assert stats.chisquare(counts).pvalue > 0.01


def test_gaussian_positions_fit_the_density():
    spread = 0.1
    pos = sample_positions(
        4000, "gaussian-mixture", np.random.default_rng(4), components=1, spread=spread
    )
    # squared distance to the centre over spread² is χ² with 2 degrees of freedom
    centre = pos.mean(axis=0)
    r2 = ((pos - centre) ** 2).sum(axis=1) / spread**2
    assert stats.kstest(r2, "chi2", args=(2,)).pvalue > 0.01
    # the uniform density is rejected for the same points
    assert stats.kstest(pos[:, 0], "uniform").pvalue < 1e-6


def test_same_seed_same_graph_and_attack_runs():
    g = nx.powerlaw_cluster_graph(150, 3, 0.3, seed=2)
    a = synthetic_spatial_graph(g, 5, seed=9)
    b = synthetic_spatial_graph(g, 5, seed=9)
    assert {frozenset(e) for e in a.graph.edges()} == {frozenset(e) for e in b.graph.edges()}
    np.testing.assert_array_equal(a.positions, b.positions)
    for axis in (0, 1):  # the anonymizer's own positions follow the uniform density
        assert stats.kstest(a.positions[:, axis], "uniform").pvalue > 0.001
    r = a.report.reidentification
    assert r is not None and r.n_seeds == 10 and r.n_targets == 140
    assert 0.0 <= r.reidentified_share <= 1.0
    u = a.report.utility
    assert u is not None and u.path_sources == 64


def test_bad_parameters():
    g = nx.karate_club_graph()
    with pytest.raises(PolicyError, match="density"):
        synthetic_spatial_graph(g, 3, density="blob")
    with pytest.raises(PolicyError, match="k must be"):
        synthetic_spatial_graph(g, 1)
    with pytest.raises(PolicyError, match="spread"):
        synthetic_spatial_graph(g, 3, spread=0)
    with pytest.raises(PolicyError, match="attack_seeds"):
        synthetic_spatial_graph(g, 3, attack_seeds=-1)


def test_cli_synthetic_spatial_contract(cli, tmp_path):
    g = nx.gnm_random_graph(200, 700, seed=3)
    edges = tmp_path / "edges.csv"
    pd.DataFrame(list(g.edges()), columns=["source", "target"]).to_csv(edges, index=False)
    pol = tmp_path / "p.json"
    pol.write_text(json.dumps({"attributes": {}, "models": [{"model": "k-degree", "k": 5}]}))
    out, rep = tmp_path / "synth.csv", tmp_path / "report.json"
    res = cli(
        "anonymize",
        "--graph",
        edges,
        "--policy",
        pol,
        "--algorithm",
        "synthetic-spatial",
        "-o",
        out,
        "--report",
        rep,
        "--seed",
        "1",
    )
    assert res.returncode == 0, res.stderr
    released = pd.read_csv(out)
    assert list(released.columns) == ["source", "target"]
    pairs = [frozenset(p) for p in released.itertuples(index=False)]
    assert all(len(p) == 2 for p in pairs)  # no self-loops
    assert len(set(pairs)) == len(pairs)  # no multi-edges
    counts = Counter(released["source"].tolist() + released["target"].tolist())
    assert min(Counter(counts.values()).values()) >= 5
    report = json.loads(rep.read_text())
    a = report["anonymization"]
    assert a["algorithm"] == "synthetic-spatial" and report["check"]["passed"]
    assert a["degree_sequence_matched"] == (a["l1_degree_gap"] == 0)
    assert "reidentified_share" in a["reidentification"]
    # bad input: one line, exit 2, nothing written
    bad = tmp_path / "bad.csv"
    res = cli(
        "anonymize",
        "--graph",
        edges,
        "-p",
        pol,
        "-a",
        "synthetic-spatial",
        "-o",
        bad,
        "--param",
        "density=blob",
    )
    assert res.returncode == 2 and "density" in res.stderr and not bad.exists()
    assert "Traceback" not in res.stderr


def test_missed_degree_sequence_reports_gap_and_exits_1(tmp_path, monkeypatch):
    """Force the correction to drop an edge: the gap is exact, the check fails, exit 1."""
    from typer.testing import CliRunner

    import privcheck.graph.synthetic_spatial as spatial
    from privcheck.cli import app

    real = spatial.correct_multigraph

    def lossy(multi, pos, **kw):
        edges, rewired, dropped = real(multi, pos, **kw)
        return edges[1:], rewired, dropped + 1

    monkeypatch.setattr(spatial, "correct_multigraph", lossy)
    g = nx.cycle_graph(12)  # k = n: every target degree is 2
    out = synthetic_spatial_graph(g, 12, seed=0, attack=False, utility=False)
    got = np.array([out.graph.degree(u) for u in g])
    assert out.report.l1_degree_gap == int(np.abs(got - out.target).sum()) == 2
    assert not out.report.degree_sequence_matched and not out.report.check.passed

    edges = tmp_path / "edges.csv"
    pd.DataFrame(list(g.edges()), columns=["source", "target"]).to_csv(edges, index=False)
    pol = tmp_path / "p.json"
    pol.write_text(json.dumps({"attributes": {}, "models": [{"model": "k-degree", "k": 12}]}))
    target = tmp_path / "o.csv"
    res = CliRunner().invoke(
        app,
        [
            *("anonymize", "--graph", str(edges), "-p", str(pol), "-a", "synthetic-spatial"),
            *("-o", str(target), "--seed", "0", "--param", "attack=false"),
        ],
    )
    assert res.exit_code == 1, res.output
    assert "L1 gap 2" in res.output and "FAILED" in res.output and target.exists()
