"""Reading and writing graphs: clear errors for non-simple input, reported normalisation,
round trips in the input's format, atomic writes."""

import networkx as nx
import pandas as pd
import pytest

from privcheck.errors import DataError, PolicyError
from privcheck.graph.io import EdgeListFormat, read_graph, write_graph


def write_csv(tmp_path, text, name="edges.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_csv_reads_ids_as_strings_and_extra_columns_as_attributes(tmp_path):
    path = write_csv(tmp_path, "source,target,weight\n007,7,1.5\n7,8,\n")
    loaded = read_graph(path)
    g = loaded.graph
    assert set(g) == {"007", "7", "8"}
    assert g.edges["007", "7"] == {"weight": 1.5}
    assert g.edges["7", "8"] == {}  # empty cell: no attribute, not NaN
    assert loaded.format == EdgeListFormat("csv", "source", "target", ("weight",))
    assert loaded.report.rows == 2 and loaded.report.n_edges == 2


def test_self_loop_is_an_error_naming_the_row(tmp_path):
    path = write_csv(tmp_path, "source,target\na,b\nc,c\n")
    with pytest.raises(DataError, match=r"1 self-loop\(s\) \(rows \[1\]\).*normalise=True"):
        read_graph(path)


def test_duplicate_and_reversed_rows_are_errors(tmp_path):
    path = write_csv(tmp_path, "source,target\na,b\nb,c\na,b\nc,b\n")
    with pytest.raises(DataError, match=r"2 repeated edge\(s\).*rows \[2, 3\]"):
        read_graph(path)


@pytest.mark.parametrize("cell", ["", "  "])
def test_missing_endpoint_is_an_error(tmp_path, cell):
    path = write_csv(tmp_path, f"source,target\na,b\nb,{cell}\n")
    with pytest.raises(DataError, match=r"1 edge\(s\) have a missing 'target' node \(rows \[1\]"):
        read_graph(path)
    with pytest.raises(DataError, match="missing 'target'"):
        read_graph(path, normalise=True)  # no guessing, even when normalising


def test_missing_column_and_unhashable_ids():
    with pytest.raises(DataError, match=r"no column 'target' \(columns: \['source', 'dst'\]\)"):
        read_graph(pd.DataFrame({"source": [1], "dst": [2]}))
    frame = pd.DataFrame({"source": [1, [2, 3]], "target": [2, 4]})
    with pytest.raises(DataError, match=r"not hashable.*rows \[1\]"):
        read_graph(frame)


def test_normalise_drops_and_counts(tmp_path):
    path = write_csv(tmp_path, "source,target\na,b\nb,a\na,a\nb,c\nb,c\n")
    loaded = read_graph(path, normalise=True)
    assert sorted(map(sorted, loaded.graph.edges())) == [["a", "b"], ["b", "c"]]
    rep = loaded.report
    assert rep.self_loops_dropped == 1 and rep.duplicate_edges_dropped == 2
    assert rep.rows == 5 and rep.n_edges == 2


def test_directed_edge_list_merges_reciprocal_rows(tmp_path):
    path = write_csv(tmp_path, "source,target\na,b\nb,a\nb,c\n")
    loaded = read_graph(path, directed=True)
    assert loaded.graph.number_of_edges() == 2
    assert loaded.report.directed_input and loaded.report.reciprocal_edges_merged == 1
    same_direction = write_csv(tmp_path, "source,target\na,b\na,b\n", "dup.csv")
    with pytest.raises(DataError, match="repeated edge"):
        read_graph(same_direction, directed=True)


def test_labels_file(tmp_path):
    edges = write_csv(tmp_path, "u,v\n1,2\n2,3\n")
    labels = write_csv(tmp_path, "node,label\n1,x\n2,y\n3,x\n4,z\n", "labels.csv")
    loaded = read_graph(edges, source="u", target="v", labels=labels)
    g = loaded.graph
    assert g.nodes["4"]["label"] == "z" and g.degree("4") == 0
    assert loaded.report.isolated_nodes_from_labels == 1 and loaded.report.n_nodes == 4
    partial = write_csv(tmp_path, "node,label\n1,x\n", "partial.csv")
    with pytest.raises(DataError, match=r"2 node\(s\) of the graph have no row"):
        read_graph(edges, source="u", target="v", labels=partial)
    repeated = write_csv(tmp_path, "node,label\n1,x\n1,y\n2,x\n3,x\n", "rep.csv")
    with pytest.raises(DataError, match="list each node once"):
        read_graph(edges, source="u", target="v", labels=repeated)


def test_graphml_directed_multigraph_and_loops(tmp_path):
    d = nx.MultiDiGraph()
    d.add_edges_from([("a", "b"), ("b", "a"), ("a", "b"), ("c", "c"), ("b", "c")])
    path = tmp_path / "g.graphml"
    nx.write_graphml(d, path)
    with pytest.raises(DataError, match=r"1 self-loop\(s\).*1 parallel edge\(s\)"):
        read_graph(path)
    loaded = read_graph(path, normalise=True)
    rep = loaded.report
    assert rep.directed_input and rep.reciprocal_edges_merged == 1
    assert rep.duplicate_edges_dropped == 1 and rep.self_loops_dropped == 1
    assert sorted(map(sorted, loaded.graph.edges())) == [["a", "b"], ["b", "c"]]
    assert loaded.format.kind == "graphml"


def test_networkx_input_is_copied():
    g = nx.karate_club_graph()
    loaded = read_graph(g)
    assert loaded.graph is not g and nx.utils.graphs_equal(loaded.graph, g)


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".graphml"])
def test_round_trip_same_format(tmp_path, suffix):
    frame = pd.DataFrame(
        {"from": ["a", "b", "c"], "to": ["b", "c", "a"], "w": [1.0, 2.0, 3.0], "n": [1, 2, 3]}
    )
    g0 = read_graph(frame, source="from", target="to").graph
    src = tmp_path / f"in{suffix}"
    fmt = EdgeListFormat(suffix.lstrip(".") if suffix != ".graphml" else "graphml", "from", "to")
    write_graph(g0, src, format=fmt if suffix != ".graphml" else None)
    loaded = read_graph(src, source="from", target="to")
    g = loaded.graph
    g.add_edge("a", "d")  # e.g. an edge an anonymizer added: no attributes
    out = write_graph(g, tmp_path / f"out{suffix}", format=loaded.format)
    again = read_graph(out, source="from", target="to").graph
    assert {frozenset(e) for e in again.edges()} == {frozenset(e) for e in g.edges()}
    assert again.edges["a", "b"]["w"] == 1.0 and "w" not in again.edges["a", "d"]
    # types survive the gap the added edge leaves: ints stay ints, floats stay floats
    assert type(again.edges["a", "b"]["n"]) is int and type(again.edges["a", "b"]["w"]) is float
    if suffix == ".csv":
        assert out.read_text().splitlines()[0] == "from,to,n,w"  # input column order
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([f"in{suffix}", f"out{suffix}"])


def test_write_is_atomic_on_failure(tmp_path):
    target = tmp_path / "release.graphml"
    target.write_text("previous release")
    bad = nx.Graph()
    bad.add_edge("a", "b", data=object())  # GraphML cannot store this attribute type
    with pytest.raises(Exception):  # noqa: B017 - whatever the writer raises, the old file stays
        write_graph(bad, target)
    assert target.read_text() == "previous release"
    assert [p.name for p in tmp_path.iterdir()] == ["release.graphml"]


def test_unknown_suffix():
    with pytest.raises(PolicyError, match="suffix"):
        write_graph(nx.path_graph(2), "edges.txt")
