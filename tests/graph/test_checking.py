"""Graph models in the policy and `privcheck check --graph`: reports like tables."""

from __future__ import annotations

import json
from collections import Counter

import networkx as nx
import pandas as pd
import pytest

from privcheck.errors import PolicyError
from privcheck.graph.checking import check_graph

POLICY = {
    "attributes": {},
    "models": [{"model": "k-degree", "k": 2}, {"model": "k-neighbourhood", "k": 2}],
}


def edge_csv(graph: nx.Graph, path):
    pd.DataFrame(list(graph.edges()), columns=["source", "target"]).to_csv(path, index=False)
    return path


def test_karate_report_matches_brute_force():
    g = nx.karate_club_graph()
    report = check_graph(g, POLICY)
    counts = Counter(d for _, d in g.degree())
    assert report.models[0].value == min(counts.values())
    assert report.models[0].violating_records == sum(c for c in counts.values() if c < 2)
    assert report.n_records == 34 and report.n_edges == 78 and not report.passed


def test_cli_graph_check_json(cli, tmp_path):
    g = nx.barabasi_albert_graph(60, 2, seed=4)
    path = edge_csv(g, tmp_path / "edges.csv")
    pol = tmp_path / "p.json"
    pol.write_text(json.dumps({"attributes": {}, "models": [{"model": "k-degree", "k": 1 + 1}]}))
    res = cli("check", "--graph", path, "-p", pol, "-f", "json")
    report = json.loads(res.stdout)
    counts = Counter(d for _, d in g.degree())
    assert report["kind"] == "graph-check"
    assert report["models"][0]["value"] == min(counts.values())
    assert res.returncode == (0 if min(counts.values()) >= 2 else 1)
    named = {n for v in report["models"][0]["violators"] for n in v["records"]}
    expected = {str(n) for n, d in g.degree() if counts[d] < 2}
    assert named == expected


def test_k_above_node_count_is_a_failed_check_not_bad_input():
    report = check_graph(
        nx.path_graph(4), {"attributes": {}, "models": [{"model": "k-degree", "k": 10}]}
    )
    assert not report.passed and report.models[0].value == 2


def test_table_model_in_graph_policy_is_refused():
    with pytest.raises(PolicyError, match="applies to tables"):
        check_graph(
            nx.path_graph(4), {"attributes": {}, "models": [{"model": "k-anonymity", "k": 2}]}
        )


def test_graph_model_on_a_table_is_refused(cli, tmp_path):
    pol = tmp_path / "p.json"
    pol.write_text(json.dumps(POLICY))
    table = tmp_path / "t.csv"
    table.write_text("a\nx\ny\n")
    res = cli("check", table, "-p", pol)
    assert res.returncode == 2 and "applies to graphs" in res.stderr


def test_graph_and_table_together_is_a_usage_error(cli, tmp_path):
    res = cli("check", tmp_path / "t.csv", "--graph", tmp_path / "e.csv", "-p", tmp_path / "p")
    assert res.returncode == 2


def test_cli_graph_anonymize_writes_a_passing_supergraph(cli, tmp_path):
    g = nx.barabasi_albert_graph(200, 2, seed=7)
    edges = edge_csv(g, tmp_path / "edges.csv")
    pol = tmp_path / "p.json"
    pol.write_text(json.dumps({"attributes": {}, "models": [{"model": "k-degree", "k": 4}]}))
    out, rep = tmp_path / "anon.csv", tmp_path / "report.json"
    res = cli("anonymize", "--graph", edges, "-p", pol, "-o", out, "--report", rep)
    assert res.returncode == 0, res.stderr
    released = pd.read_csv(out, dtype=str)
    h = nx.from_pandas_edgelist(released, "source", "target")
    assert {frozenset(map(str, e)) for e in g.edges()} <= {frozenset(e) for e in h.edges()}
    assert min(Counter(d for _, d in h.degree()).values()) >= 4
    report = json.loads(rep.read_text())
    assert report["check"]["passed"] and report["anonymization"]["edges_removed"] == 0
    assert cli("check", "--graph", out, "-p", pol).returncode == 0


def test_graph_anonymize_refuses_k_neighbourhood(tmp_path):
    from privcheck.graph.policy_anonymize import anonymize_graph_file

    edges = edge_csv(nx.path_graph(6), tmp_path / "e.csv")
    with pytest.raises(PolicyError, match="k-degree anonymity only"):
        anonymize_graph_file(edges, POLICY, tmp_path / "o.csv")
