"""Reading and writing graphs: edge lists (CSV, Parquet), GraphML, networkx graphs.

The checks need a simple undirected graph. Real edge lists are rarely that clean, and each flaw
changes the answer silently if it is glossed over: a self-loop adds 2 to a degree, a duplicated
or reversed row double-counts an edge, an empty cell invents a node called "nan". So every flaw is
an error naming the rows, unless the caller asks for `normalise=True`, which drops self-loops and
repeated edges and says how many it dropped (`LoadReport`). Missing endpoints are always an
error: there is no right guess for them.

Conventions:
- an edge list has two node columns (default `source`, `target`); other columns become edge
  attributes; CSV node ids are read as strings, so "007" and "7" stay different nodes;
- node labels (what an adversary may know about each node, used by the k-neighbourhood check)
  come from a separate table with a node column and a label column, stored as the node
  attribute "label"; nodes listed there but in no edge are added as isolated nodes;
- directed input (GraphML digraphs, or `directed=True` for edge lists) is read as undirected:
  u→v and v→u become one edge, and the report counts the merged pairs;
- `write_graph` writes the same format back (same node column names) through a temporary file
  and `os.replace`, so a crash never leaves a half-written release behind.
"""

from __future__ import annotations

import os
from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import networkx as nx
import numpy as np
import pandas as pd
from pydantic import BaseModel

from privcheck.errors import DataError, PolicyError, listing
from privcheck.io import require_regular_file
from privcheck.messages import shown_columns

LABEL_ATTR = "label"
Kind = Literal["csv", "parquet", "graphml"]
_SUFFIXES: dict[str, Kind] = {
    ".csv": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".graphml": "graphml",
    ".xml": "graphml",
}


@dataclass(frozen=True)
class EdgeListFormat:
    """How a graph was stored, so it can be written back the same way."""

    kind: Kind
    source: str = "source"
    target: str = "target"
    attributes: tuple[str, ...] = field(default=())


class LoadReport(BaseModel):
    """What reading found and what normalisation changed."""

    format: str
    n_nodes: int
    n_edges: int
    rows: int | None = None
    directed_input: bool = False
    reciprocal_edges_merged: int = 0
    self_loops_dropped: int = 0
    duplicate_edges_dropped: int = 0
    isolated_nodes_from_labels: int = 0


@dataclass(frozen=True)
class LoadedGraph:
    """A simple undirected graph, the format it came in, and the load report."""

    graph: nx.Graph
    format: EdgeListFormat
    report: LoadReport


def read_graph(
    data: str | os.PathLike[str] | pd.DataFrame | nx.Graph,
    *,
    source: str = "source",
    target: str = "target",
    labels: str | os.PathLike[str] | pd.DataFrame | None = None,
    label_node: str = "node",
    label_column: str = "label",
    directed: bool = False,
    normalise: bool = False,
    kind: Kind | None = None,
) -> LoadedGraph:
    """Load a graph from an edge-list file or table, a GraphML file, or a networkx graph.

    data: path (.csv, .parquet, .graphml — or say `kind`), an edge DataFrame, or an nx graph.
    source / target: the two node columns of an edge list.
    labels: optional node-label table (path or DataFrame) with columns `label_node` and
      `label_column`; every node must get a label.
    directed: the edge list is directed; reversed rows are merged and counted, not errors.
    normalise: drop self-loops and repeated edges (counted in the report) instead of raising.
    """
    if isinstance(data, nx.Graph):
        graph, report = _from_networkx(data, normalise, "networkx")
        fmt = EdgeListFormat("graphml")
    elif isinstance(data, pd.DataFrame):
        graph, report, fmt = _from_table(data, source, target, directed, normalise, "dataframe")
    else:
        path = Path(data)
        kind = kind or _kind_of(path)
        if not path.exists():
            raise DataError(f"graph file {str(path)!r} does not exist")
        require_regular_file(path, "graph file")  # a FIFO or device would hang the reader
        if kind == "graphml":
            try:
                raw = nx.read_graphml(path)
            except Exception as exc:  # networkx raises several parser error types
                from privcheck.io import reader_problem

                problem = reader_problem(exc)
                raise DataError(f"cannot read GraphML file {str(path)!r}: {problem}") from None
            graph, report = _from_networkx(raw, normalise, "graphml")
            fmt = EdgeListFormat("graphml")
        else:
            table = _read_table(path, kind, (source, target))
            graph, report, fmt = _from_table(table, source, target, directed, normalise, kind)
    if labels is not None:
        added = _attach_labels(graph, labels, label_node, label_column)
        report = report.model_copy(
            update={"isolated_nodes_from_labels": added, "n_nodes": graph.number_of_nodes()}
        )
    return LoadedGraph(graph=graph, format=fmt, report=report)


def write_graph(
    graph: nx.Graph, path: str | os.PathLike[str], *, format: EdgeListFormat | None = None
) -> Path:
    """Write `graph` atomically as an edge list (CSV/Parquet) or GraphML.

    `format` (e.g. `LoadedGraph.format`) keeps the input's node column names and attribute
    column order; without it the kind follows the file suffix and the columns are
    `source,target` plus every edge attribute found. Edges without a value for an attribute
    column (e.g. edges an anonymizer added) get an empty cell. Isolated nodes cannot appear in
    an edge list; keep them in the node-label file.
    """
    path = Path(path)
    fmt = format or EdgeListFormat(_kind_of(path))
    if fmt.kind == "graphml":
        return _atomic(path, lambda tmp: nx.write_graphml(graph, tmp))
    cols = list(fmt.attributes)
    rows = list(graph.edges(data=True))
    for key in sorted({k for _, _, attrs in rows for k in attrs} - set(cols)):
        cols.append(key)
    table = pd.DataFrame(
        {
            fmt.source: [u for u, _, _ in rows],
            fmt.target: [v for _, v, _ in rows],
            **{c: _attribute_column([attrs.get(c) for _, _, attrs in rows]) for c in cols},
        }
    )
    if fmt.kind == "csv":
        return _atomic(path, lambda tmp: table.to_csv(tmp, index=False))
    return _atomic(path, lambda tmp: table.to_parquet(tmp, index=False))


def _attribute_column(values: list[Any]) -> pd.Series:
    """An edge-attribute column; integer and boolean ones stay so despite gaps (nullable)."""
    present = [x for x in values if x is not None]
    if present and all(isinstance(x, bool | np.bool_) for x in present):
        return pd.Series(values, dtype="boolean")
    if present and all(
        isinstance(x, int | np.integer) and not isinstance(x, bool) for x in present
    ):
        return pd.Series(values, dtype="Int64")
    return pd.Series(values, dtype=object).infer_objects()


def _atomic(path: Path, write: Any) -> Path:
    """Run `write(tmp)` on a temporary file beside `path`, then move it into place."""
    from privcheck.io import write_atomic

    return write_atomic(path, lambda tmp: write(str(tmp)))


def _kind_of(path: Path) -> Kind:
    kind = _SUFFIXES.get(path.suffix.lower())
    if kind is None:
        raise PolicyError(
            f"cannot tell the graph format of {str(path)!r} from its suffix; use .csv, .parquet "
            "or .graphml, or pass kind='csv'|'parquet'|'graphml'"
        )
    return kind


def _read_table(path: Path, kind: Kind, node_cols: tuple[str, str]) -> pd.DataFrame:
    try:
        if kind == "csv":
            from privcheck.io import csv_header

            csv_header(path, ",")  # a repeated column name is an error, not 'source.1'
            # nullable dtypes: an integer attribute column with gaps stays integral
            return pd.read_csv(
                path, dtype={c: str for c in node_cols}, dtype_backend="numpy_nullable"
            )
        return pd.read_parquet(path)
    except (ValueError, OSError) as exc:
        from privcheck.io import reader_problem

        problem = reader_problem(exc)
        raise DataError(f"cannot read {kind} edge list {str(path)!r}: {problem}") from None


def _from_table(
    table: pd.DataFrame,
    source: str,
    target: str,
    directed: bool,
    normalise: bool,
    kind: str,
) -> tuple[nx.Graph, LoadReport, EdgeListFormat]:
    """Validate an edge table and build the graph (see the module docstring for the rules)."""
    missing_cols = [c for c in (source, target) if c not in table.columns]
    if missing_cols:
        raise DataError(
            f"edge list has no column {missing_cols[0]!r} (columns: "
            f"{shown_columns(table.columns, as_list=True)}); "
            "name the node columns with source=... and target=..."
        )
    if source == target:
        raise PolicyError("source and target must be two different columns")
    ends = table[[source, target]]
    for col in (source, target):
        _check_cells(ends[col], col)
    codes, uniques = pd.factorize(pd.concat([ends[source], ends[target]], ignore_index=True))
    m = len(table)
    u, v = codes[:m], codes[m:]
    row_ids = np.arange(m)

    loops = u == v
    lo, hi = np.minimum(u, v), np.maximum(u, v)
    key = pd.Series(lo.astype(np.int64) * len(uniques) + hi)
    repeated = key.duplicated().to_numpy() & ~loops
    same_dir = pd.Series(u.astype(np.int64) * len(uniques) + v).duplicated().to_numpy() & ~loops
    reciprocal = repeated & ~same_dir if directed else np.zeros(m, bool)
    duplicates = repeated & ~reciprocal

    if not normalise and (loops.any() or duplicates.any()):
        problems = []
        if loops.any():
            problems.append(
                f"{int(loops.sum())} self-loop(s) (rows [{listing(row_ids[loops], 5)}])"
            )
        if duplicates.any():
            problems.append(
                f"{int(duplicates.sum())} repeated edge(s), counting reversed rows as the same "
                f"undirected edge (rows [{listing(row_ids[duplicates], 5)}])"
            )
        raise DataError(
            "edge list is not a simple graph: "
            + "; ".join(problems)
            + " (rows count from 0 after the header). Fix the file, or read it with "
            "normalise=True to drop them (the report counts what was dropped)"
            + (
                ", or directed=True if reversed rows are reciprocal edges"
                if duplicates.any() and not directed
                else ""
            )
        )
    keep = ~(loops | repeated)
    attrs = [c for c in table.columns if c not in (source, target)]
    ids = uniques.tolist() if hasattr(uniques, "tolist") else list(uniques)
    graph = nx.Graph()
    graph.add_nodes_from(ids)
    if attrs:
        records = table.loc[keep, attrs].to_dict("records")
        graph.add_edges_from(
            (ids[a], ids[b], {k: x for k, x in rec.items() if not _is_missing(x)})
            for a, b, rec in zip(u[keep].tolist(), v[keep].tolist(), records, strict=True)
        )
    else:
        graph.add_edges_from(
            (ids[a], ids[b]) for a, b in zip(u[keep].tolist(), v[keep].tolist(), strict=True)
        )
    report = LoadReport(
        format=kind,
        n_nodes=graph.number_of_nodes(),
        n_edges=graph.number_of_edges(),
        rows=m,
        directed_input=directed,
        reciprocal_edges_merged=int(reciprocal.sum()),
        self_loops_dropped=int(loops.sum()),
        duplicate_edges_dropped=int(duplicates.sum()),
    )
    kind_out: Kind = "parquet" if kind == "parquet" else "csv"  # a DataFrame writes as CSV
    return graph, report, EdgeListFormat(kind_out, source, target, tuple(attrs))


def _check_cells(col: pd.Series, name: str) -> None:
    """Missing (NA or blank) and unhashable node ids are errors naming the rows."""
    blank = col.isna().to_numpy()
    if col.dtype == object or pd.api.types.is_string_dtype(col.dtype):
        text = col.map(lambda x: isinstance(x, str) and not x.strip(), na_action="ignore")
        blank = blank | text.fillna(False).to_numpy(dtype=bool)
    if blank.any():
        rows = np.flatnonzero(blank)
        raise DataError(
            f"{rows.size} edge(s) have a missing {name!r} node (rows [{listing(rows, 5)}], "
            "counting from 0 after the header); every edge needs both endpoints — drop or fill "
            "those rows (isolated nodes belong in the node-label table)"
        )
    if col.dtype == object:
        bad = ~col.map(lambda x: isinstance(x, Hashable)).to_numpy(dtype=bool)
        if bad.any():
            rows = np.flatnonzero(bad)
            raise DataError(
                f"column {name!r} holds node ids that are not hashable values (e.g. lists) in "
                f"rows [{listing(rows, 5)}]; node ids must be strings or numbers"
            )


def _is_missing(x: Any) -> bool:
    try:
        return bool(pd.isna(x))
    except (TypeError, ValueError):  # arrays and other containers are values, not missing
        return False


def _from_networkx(graph: nx.Graph, normalise: bool, kind: str) -> tuple[nx.Graph, LoadReport]:
    """Copy any networkx graph into a simple undirected nx.Graph, reporting what changed."""
    directed = graph.is_directed()
    loops = [u for u, v in graph.edges() if u == v]
    ends = [(u, v) for u, v in graph.edges() if u != v]
    pairs = set(ends) if directed else {frozenset(e) for e in ends}
    parallel = len(ends) - len(pairs)  # only multigraphs repeat a pair
    reciprocal = len(pairs) - len({frozenset(p) for p in pairs}) if directed else 0
    if not normalise and (loops or parallel):
        problems = []
        if loops:
            problems.append(f"{len(loops)} self-loop(s) (at nodes {listing(loops, 5, fmt=repr)})")
        if parallel:
            problems.append(f"{parallel} parallel edge(s)")
        raise DataError(
            f"{kind} graph is not a simple graph: {'; '.join(problems)}. Fix it, or read it "
            "with normalise=True to drop them (the report counts what was dropped)"
        )
    simple = nx.Graph()
    simple.graph.update(graph.graph)
    simple.add_nodes_from(graph.nodes(data=True))
    simple.add_edges_from((u, v, d) for u, v, d in graph.edges(data=True) if u != v)
    report = LoadReport(
        format=kind,
        n_nodes=simple.number_of_nodes(),
        n_edges=simple.number_of_edges(),
        directed_input=directed,
        reciprocal_edges_merged=reciprocal,
        self_loops_dropped=len(loops),
        duplicate_edges_dropped=parallel,
    )
    return simple, report


def _attach_labels(
    graph: nx.Graph,
    labels: str | os.PathLike[str] | pd.DataFrame,
    node_col: str,
    label_col: str,
) -> int:
    """Set node attribute "label" from a node-label table; returns isolated nodes added."""
    if isinstance(labels, pd.DataFrame):
        table = labels
    else:
        path = Path(labels)
        if not path.exists():
            raise DataError(f"node-label file {str(path)!r} does not exist")
        require_regular_file(path, "node-label file")
        table = _read_table(path, _kind_of(path), (node_col,))
    for col in (node_col, label_col):
        if col not in table.columns:
            raise DataError(
                f"node-label table has no column {col!r} (columns: "
                f"{shown_columns(table.columns, as_list=True)}); "
                "name them with label_node=... and label_column=..."
            )
    _check_cells(table[node_col], node_col)
    no_label = table[label_col].isna().to_numpy()
    if no_label.any():
        raise DataError(
            f"{int(no_label.sum())} node(s) have no {label_col!r} value (rows "
            f"{listing(np.flatnonzero(no_label), 5)}); give every node a label"
        )
    dup = table[node_col].duplicated(keep=False).to_numpy()
    if dup.any():
        raise DataError(
            f"node-label table lists {int(dup.sum())} row(s) for repeated nodes: "
            f"{listing(table[node_col][dup].drop_duplicates(), 3, fmt=repr)}; list each node once"
        )
    nodes = table[node_col].tolist()
    values = table[label_col].tolist()
    unlabelled = set(graph) - set(nodes)
    if unlabelled:
        shown = listing(sorted(map(str, unlabelled)), 5, fmt=repr)
        raise DataError(
            f"{len(unlabelled)} node(s) of the graph have no row in the node-label table: "
            f"{shown}; label every node (ids must match exactly, CSV ids are strings)"
        )
    before = graph.number_of_nodes()
    graph.add_nodes_from(nodes)
    nx.set_node_attributes(graph, dict(zip(nodes, values, strict=True)), LABEL_ATTR)
    return graph.number_of_nodes() - before
