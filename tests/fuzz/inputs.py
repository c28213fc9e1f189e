"""Valid inputs and the mutations the fuzz tests draw from them.

Every mutation starts from a valid case (a small table its policy can be anonymized under) so a
mutated run gets deep into the command before it meets what was changed. The strategies return
plain values — bytes, texts, lists of arguments — each with a short note of what was done, so
that Hypothesis prints a failing case in a form a person can replay.
"""

from __future__ import annotations

import copy
import csv
import functools
import io
import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import yaml
from hypothesis import strategies as st

# --------------------------------------------------------------------------- the valid case

HEADER = ["zip", "age", "sex", "salary", "disease"]
_ZIPS = ["02139", "02138", "02141", "02142", "10001", "10002", "10013", "10014"]
_DISEASES = ["flu", "cold", "hiv", "asthma", "gastritis", "flu", "cold", "ulcer"]
ROWS = [
    [
        _ZIPS[i % 8],
        str(20 + (i * 7) % 45),
        "MF"[i % 2],
        f"{30000 + i * 1234.5:.1f}",
        _DISEASES[i % 8],
    ]
    for i in range(24)
]

#: the policy the table passes once anonymized (k = 2, distinct 2-diversity, 25 % suppression)
POLICY = {
    "attributes": {
        "zip": {"role": "quasi_identifier", "hierarchy": {"type": "masking", "levels": 5}},
        "age": {
            "role": "quasi_identifier",
            "hierarchy": {"type": "intervals", "widths": [5, 10, 20]},
        },
        "sex": {"role": "quasi_identifier"},
        "disease": {"role": "sensitive"},
        "salary": {"role": "insensitive"},
    },
    "models": [
        {"model": "k-anonymity", "k": 2},
        {"model": "l-diversity", "variant": "distinct", "l": 2, "attribute": "disease"},
    ],
    "suppression_limit": 0.25,
}

#: model entries a mutation may add (every registered table model, valid parameters)
EXTRA_MODELS = [
    {"model": "l-diversity", "variant": "entropy", "l": 1.5, "attribute": "disease"},
    {"model": "l-diversity", "variant": "recursive", "l": 2, "c": 3, "attribute": "disease"},
    {"model": "t-closeness", "t": 0.9, "attribute": "disease"},
    {"model": "t-closeness", "t": 0.9, "attribute": "disease", "distance": "ordered"},
    {"model": "alpha-k-anonymity", "alpha": 0.9, "k": 2, "attribute": "disease"},
    {"model": "beta-likeness", "beta": 5.0, "attribute": "disease"},
    {"model": "delta-disclosure", "delta": 3.0, "attribute": "disease"},
    {"model": "average-risk", "threshold": 0.9},
    {"model": "record-risk", "threshold": 0.9, "max_share": 0.5},
    {"model": "population-uniqueness", "threshold": 0.9},
    {"model": "k-map", "k": 2},
    {"model": "delta-presence", "delta_max": 0.9},
    {"model": "differential-privacy", "epsilon": 2.0, "delta": 1e-5},
]


def csv_text(header: list[str], rows: list[list[str]], delimiter: str = ",") -> str:
    """The table as CSV text (minimal quoting; any character, NUL included, kept)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\n")
    try:
        writer.writerow(header)
        writer.writerows(rows)
    except csv.Error:  # (a character the writer refuses: joined by hand instead)
        return "".join(delimiter.join(r) + "\n" for r in [header, *rows])
    return buffer.getvalue()


BASE_CSV = csv_text(HEADER, ROWS).encode()


def base_frame():
    """The valid table as typed columns (what a Parquet file holds)."""
    import pandas as pd

    frame = pd.DataFrame(ROWS, columns=HEADER)
    frame["age"] = frame["age"].astype("int64")
    frame["salary"] = frame["salary"].astype("float64")
    return frame


def dump_policy(policy: dict, fmt: str = "yaml") -> bytes:
    if fmt == "json":
        return json.dumps(policy, allow_nan=True, default=str).encode()
    try:
        return yaml.safe_dump(policy, allow_unicode=True, sort_keys=False).encode()
    except yaml.YAMLError:
        return json.dumps(policy, allow_nan=True, default=str).encode()


# --------------------------------------------------------------------------- hostile values

#: cells that stress number parsing: float limits, signed zeros, non-finite spellings, integers
#: beyond 64 bits, YAML/locale spellings of numbers
NUMERIC_CELLS = [
    "1e308", "-1e308", "1.7976931348623157e308", "-1.7976931348623157e308", "1e309", "-1e309",
    "2.2250738585072014e-308", "5e-324", "-0", "-0.0", "0", "0.0", "nan", "NaN", "NAN", "-nan",
    "inf", "-inf", "Inf", "Infinity", "-Infinity", "+inf", "1" * 25, "-" + "9" * 25,
    "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "-9223372036854775809", "18446744073709551615", "18446744073709551616", "0x1F", "1_000",
    "1e5", "00042", "3.0", " 42 ", "4,2", "1.5e-5", "12345678901234567890.5",
]  # fmt: skip
#: cells that stress text handling: markup, math text, formula prefixes, wildcards, controls
TEXT_CELLS = [
    "", " ", "*", "**", "$", "$$", "$x_$", "\\$", "$\\frac{1}{2}$", "<b>bold</b>",
    "<script>alert(1)</script>", "&amp;", "=1+1", "@SUM(A1)", "+1", "'", '"', '""', "a\nb",
    "a\r\nb", "\t", "\x00", "a\x00b", "é", "日本", "\u202e", "\ufeff", "🙂", "NA", "N/A",
    "null", "None", "<missing>", "[20, 29]", "[20-29]", "1:20", "true", "yes", "%s%n", "{0}",
    "../../etc/passwd", "\\", "x" * 3000,
]  # fmt: skip
CELLS = NUMERIC_CELLS + TEXT_CELLS

#: column names a header may carry
HEADER_NAMES = [
    "", " ", " zip ", "zip", "age", "Unnamed: 0", "0", "$x_$", "<b>h</b>", "a,b", "a\nb",
    "a\x00b", "日本", "*", "-", "#", "None", "nan", "x" * 300,
]  # fmt: skip

#: numbers (as typed on a command line) at and beyond every option's limits
NUMBER_TEXTS = [
    "0", "-1", "1", "2", "-0", "0.5", "1.5", "1e3", "1e308", "1e309", "-1e308", "nan", "NaN",
    "inf", "-inf", "9223372036854775807", "9223372036854775808", "18446744073709551616",
    "1" * 25, "-" + "1" * 25, "4294967295", "4294967296", "0x10", "010", "", " ", "abc",
]  # fmt: skip


def numbers() -> st.SearchStrategy[str]:
    return st.sampled_from(NUMBER_TEXTS)


# --------------------------------------------------------------------------- CSV data


@dataclass
class DataFile:
    """A data file's name and bytes, the ``--encoding`` to pass (or None) and what was done."""

    name: str
    content: bytes
    encoding: str | None = None
    notes: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        head = self.content[:160]
        return (
            f"DataFile({self.name!r}, {len(self.content)} bytes {head!r}…, "
            f"encoding={self.encoding!r}, notes={self.notes})"
        )

    def _repr_pretty_(self, printer, cycle) -> None:  # (how Hypothesis prints a case)
        printer.text(repr(self))

    def write(self, folder: Path) -> Path:
        path = folder / self.name
        path.write_bytes(self.content)
        return path

    def options(self) -> list[str]:
        return [] if self.encoding is None else ["--encoding", self.encoding]


def _cell_mutations(draw, header: list[str], rows: list[list[str]], notes: list[str]) -> None:
    """Replace a few cells, or a whole column, by hostile values."""
    if not rows:
        return
    if draw(st.integers(0, 4)) == 0:  # a numeric column scaled to the float limits
        col = draw(st.sampled_from([1, 3]))  # (age, salary)
        exponent = draw(st.sampled_from([150, 290, 300, 303, 304, 305, 307, -300, -320]))
        for row in rows:
            if col < len(row):
                try:
                    row[col] = f"{float(row[col]) * 10.0**exponent:.17g}"
                except (ValueError, OverflowError):
                    continue
        notes.append(f"column {col} × 1e{exponent}")
        return
    if draw(st.booleans()):  # a whole column
        col = draw(st.integers(0, len(header) - 1))
        pool = draw(st.sampled_from([NUMERIC_CELLS, TEXT_CELLS, CELLS]))
        values = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4))
        for i, row in enumerate(rows):
            if col < len(row):
                row[col] = values[i % len(values)]
        notes.append(f"column {col} ← {values}")
        return
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(rows) - 1))
        if not rows[i]:
            continue
        j = draw(st.integers(0, len(rows[i]) - 1))
        rows[i][j] = draw(st.sampled_from(CELLS))
        notes.append(f"cell {i},{j} ← {rows[i][j][:20]!r}")


def _header_mutations(draw, header: list[str], notes: list[str]) -> None:
    action = draw(st.sampled_from(["rename", "duplicate", "blank", "extra", "drop"]))
    j = draw(st.integers(0, len(header) - 1))
    if action == "rename":
        header[j] = draw(st.sampled_from(HEADER_NAMES))
    elif action == "duplicate":
        header[j] = header[(j + 1) % len(header)]
    elif action == "blank":
        header[j] = draw(st.sampled_from(["", " ", "\t"]))
    elif action == "extra":
        header.append(draw(st.sampled_from(HEADER_NAMES)))
    else:
        del header[j]
    notes.append(f"header {action} {j}: {header}")


def _row_mutations(draw, header: list[str], rows: list[list[str]], notes: list[str]):
    action = draw(
        st.sampled_from(
            ["ragged+", "ragged-", "no rows", "one row", "many rows", "empty row", "huge field"]
        )
    )
    if action == "ragged+" and rows:
        rows[draw(st.integers(0, len(rows) - 1))].append("extra")
    elif action == "ragged-" and rows:
        row = rows[draw(st.integers(0, len(rows) - 1))]
        if row:
            row.pop()
    elif action == "no rows":
        rows.clear()
    elif action == "one row":
        del rows[1:]
    elif action == "many rows":
        rows.extend([list(r) for r in rows] * draw(st.sampled_from([5, 40])))
    elif action == "empty row" and rows:
        rows.insert(draw(st.integers(0, len(rows))), [])
    elif action == "huge field" and rows:
        rows[0][draw(st.integers(0, len(rows[0]) - 1))] = "x" * draw(
            st.sampled_from([70_000, 1_100_000])
        )
    notes.append(f"rows {action}")
    return rows


ENCODINGS = ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-32", "latin-1", "cp1252"]
ENCODING_OPTIONS = ["utf-8", "latin-1", "cp1252", "utf-16", "utf-8-sig", "ascii", "bogus-enc", ""]


@st.composite
def csv_files(draw, *, name: str = "d.csv", base_rows=ROWS, base_header=HEADER) -> DataFile:
    """The valid table with a few mutations of its cells, header, rows and bytes."""
    header = list(base_header)
    rows = [list(r) for r in base_rows]
    notes: list[str] = []
    kinds = draw(
        st.lists(
            st.sampled_from(["cells", "cells", "header", "rows", "format", "bytes"]),
            min_size=1,
            max_size=3,
        )
    )
    delimiter, encoding, newline, encoding_option = ",", "utf-8", "\n", None
    for kind in kinds:
        if kind == "cells":
            _cell_mutations(draw, header, rows, notes)
        elif kind == "header":
            _header_mutations(draw, header, notes)
        elif kind == "rows":
            rows = _row_mutations(draw, header, rows, notes)
        elif kind == "format":
            delimiter = draw(st.sampled_from([",", ";", "\t", "|", " "]))
            encoding = draw(st.sampled_from(ENCODINGS))
            newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
            if draw(st.booleans()):
                encoding_option = draw(st.sampled_from(ENCODING_OPTIONS))
            notes.append(
                f"format {delimiter!r} {encoding} {newline!r} --encoding {encoding_option}"
            )
    text = csv_text(header, rows, delimiter).replace("\n", newline)
    content = text.encode(encoding, errors="replace")
    if "bytes" in kinds and content:
        action = draw(st.sampled_from(["nul", "truncate", "flip", "garbage", "empty"]))
        at = draw(st.integers(0, len(content)))
        if action == "nul":
            content = content[:at] + b"\x00" + content[at:]
        elif action == "truncate":
            content = content[:at]
        elif action == "flip":
            content = content[:at] + bytes([draw(st.integers(0x80, 0xFF))]) + content[at + 1 :]
        elif action == "garbage":
            content = content + b"\xff\xfe\x00\x81"
        else:
            content = b""
        notes.append(f"bytes {action} at {at}")
    suffix = draw(st.sampled_from([".csv", ".csv", ".csv", ".tsv", ".txt", ".CSV"]))
    return DataFile(Path(name).stem + suffix, content, encoding_option, notes)


# --------------------------------------------------------------------------- Parquet data

_BIG_UINT = [0, 1, 2**63 - 1, 2**63, 2**64 - 1]


def _arrow_column(kind: str, n: int) -> pa.Array:
    """A column of ``n`` values of an Arrow type a reader must handle or refuse in one line."""
    import datetime
    import decimal

    if kind == "list":
        return pa.array([[i, i + 1] for i in range(n)], pa.list_(pa.int64()))
    if kind == "large_list":
        return pa.array([[str(i)] for i in range(n)], pa.large_list(pa.string()))
    if kind == "fixed_list":
        return pa.array([[i, i] for i in range(n)], pa.list_(pa.int32(), 2))
    if kind == "struct":
        return pa.array([{"a": i, "b": str(i)} for i in range(n)])
    if kind == "map":
        return pa.array([[("k", i)] for i in range(n)], pa.map_(pa.string(), pa.int64()))
    if kind == "uint64":
        return pa.array([_BIG_UINT[i % 5] for i in range(n)], pa.uint64())
    if kind == "int64 extremes":
        return pa.array([[-(2**63), 2**63 - 1, 0, -1][i % 4] for i in range(n)], pa.int64())
    if kind == "decimal":
        return pa.array([decimal.Decimal(f"{i}.{i:02d}") for i in range(n)], pa.decimal128(38, 2))
    if kind == "decimal huge":
        big = decimal.Decimal("9" * 37)
        return pa.array([big if i % 2 else -big for i in range(n)], pa.decimal128(38, 0))
    if kind == "dictionary":
        return pa.array([f"v{i % 3}" for i in range(n)]).dictionary_encode()
    if kind == "null":
        return pa.nulls(n)
    if kind == "duration":
        return pa.array([i * 10**9 for i in range(n)], pa.duration("ns"))
    if kind == "time":
        return pa.array([datetime.time(i % 24, i % 60) for i in range(n)], pa.time64("us"))
    if kind == "date":
        return pa.array([datetime.date(2000 + i % 30, 1 + i % 12, 1) for i in range(n)])
    if kind == "timestamp":
        return pa.array([i * 10**9 for i in range(n)], pa.timestamp("ns", tz="UTC"))
    if kind == "binary":
        return pa.array([bytes([i % 256, 0, 255]) for i in range(n)], pa.binary())
    if kind == "large_string":
        return pa.array([f"s{i % 4}" for i in range(n)], pa.large_string())
    if kind == "bool":
        return pa.array([i % 2 == 0 for i in range(n)])
    if kind == "float extremes":
        values = [1e308, -1e308, math.nan, math.inf, -math.inf, -0.0, 5e-324]
        return pa.array([values[i % len(values)] for i in range(n)], pa.float64())
    if kind == "float32":
        return pa.array([i / 3 for i in range(n)], pa.float32())
    if kind == "all null strings":
        return pa.array([None] * n, pa.string())
    raise ValueError(kind)


ARROW_KINDS = [
    "list", "large_list", "fixed_list", "struct", "map", "uint64", "int64 extremes", "decimal",
    "decimal huge", "dictionary", "null", "duration", "time", "date", "timestamp", "binary",
    "large_string", "bool", "float extremes", "float32", "all null strings",
]  # fmt: skip


@st.composite
def parquet_files(draw, *, name: str = "d.parquet", frame=None) -> DataFile:
    """The valid table as Parquet, one column replaced by another Arrow type, or the table cut
    down (no rows, one column)."""
    table = pa.Table.from_pandas(base_frame() if frame is None else frame, preserve_index=False)
    action = draw(st.sampled_from(["type", "type", "type", "no rows", "one column", "extra"]))
    notes = [action]
    if action in ("type", "extra"):
        kind = draw(st.sampled_from(ARROW_KINDS))
        column = _arrow_column(kind, table.num_rows)
        if action == "type":
            j = draw(st.integers(0, table.num_columns - 1))
            table = table.set_column(j, table.column_names[j], column)
            notes.append(f"{table.column_names[j]} as {kind}")
        else:
            table = table.append_column("extra", column)
            notes.append(f"extra column of {kind}")
    elif action == "no rows":
        table = table.slice(0, 0)
    else:
        j = draw(st.integers(0, table.num_columns - 1))
        table = table.select([j])
        notes.append(table.column_names[0])
    if draw(st.booleans()):  # (else the pandas metadata of the valid table stays, as a tool
        # that rewrote a column and kept the file's metadata leaves it)
        table = table.replace_schema_metadata(None)
        notes.append("no pandas metadata")
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return DataFile(name, buffer.getvalue(), None, notes)


def data_files(*, name: str = "d.csv") -> st.SearchStrategy[DataFile]:
    """CSV (more often) or Parquet data, mutated."""
    stem = Path(name).stem
    return st.one_of(
        csv_files(name=f"{stem}.csv"),
        csv_files(name=f"{stem}.csv"),
        parquet_files(name=f"{stem}.parquet"),
    )


# --------------------------------------------------------------------------- policies

HOSTILE_SCALARS = [
    True, False, None, 0, -1, 1, 2, 3, 2**63 - 1, 2**63, -(2**63) - 1, 10**30, 0.5, -0.5, -0.0,
    1e308, math.inf, -math.inf, math.nan, "", "*", "x", "true", "yes", "5", "010", ".inf",
    "1e999", "\u0000", "é" * 3, "a" * 300, "../../etc/passwd", "/dev/zero", "$x_$",
    "<b>x</b>", "zip", "age", "disease", "quasi_identifier", "sensitive", "masking",
    "intervals", "table", "dates", "k-anonymity", "remove", "star", "wildcard", "own_class",
]  # fmt: skip
HOSTILE = st.recursive(
    st.sampled_from(HOSTILE_SCALARS),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(["k", "l", "t", "x", "", "model", "role"]), inner),
    ),
    max_leaves=6,
)
#: keys a mutation adds where they may or may not belong
POLICY_KEYS = [
    "k", "l", "t", "c", "role", "hierarchy", "top_coding", "bottom_coding", "order", "review",
    "type", "levels", "widths", "origin", "top", "rows", "path", "sep", "char", "format",
    "attribute", "variant", "distance", "population", "individual", "missing", "utility",
    "synthetic_risk", "suppressed_records", "suppressed_cells", "metric", "extra", "Role",
    "exposure_threshold", "pseudonymize_individual",
]  # fmt: skip


def _paths(node, prefix=()):
    """Every (path, value) inside a nested dict/list."""
    yield prefix, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _paths(value, (*prefix, i))


def _get(node, path):
    for step in path:
        node = node[step]
    return node


def _set(node, path, value):
    if not path:
        return value
    _get(node, path[:-1])[path[-1]] = value
    return node


@st.composite
def policy_structures(draw, base: dict = POLICY) -> tuple[dict, list[str]]:
    """``base`` with 1–3 fields replaced by hostile values, keys added or dropped, a model
    added, an attribute aliased to another (YAML anchors) or nested deep."""
    policy = copy.deepcopy(base)
    notes: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        spots = [p for p, _ in _paths(policy)]
        path = draw(st.sampled_from(spots))
        action = draw(
            st.sampled_from(
                ["replace", "replace", "replace", "add_key", "drop", "model", "alias", "deep"]
            )
        )
        parent = path[:-1]
        if action == "replace" or (not path and action in ("add_key", "drop")):
            policy = _set(policy, path, draw(HOSTILE))
        elif action == "add_key":
            target = _get(policy, parent)
            if isinstance(target, dict):
                target[draw(st.sampled_from(POLICY_KEYS))] = draw(HOSTILE)
        elif action == "drop":
            target = _get(policy, parent)
            if isinstance(target, dict | list) and path[-1] in (
                target if isinstance(target, dict) else range(len(target))
            ):
                del target[path[-1]]
        elif action == "model" and isinstance(policy, dict):
            models = policy.setdefault("models", [])
            if isinstance(models, list):
                models.append(copy.deepcopy(draw(st.sampled_from(EXTRA_MODELS))))
        elif action == "alias" and isinstance(policy, dict):
            attrs = policy.get("attributes")
            if isinstance(attrs, dict) and len(attrs) >= 2:
                names = list(attrs)
                a, b = draw(st.sampled_from(names)), draw(st.sampled_from(names))
                attrs[b] = attrs[a]  # the same object twice: safe_dump writes &id / *id
        elif action == "deep":
            depth = draw(st.sampled_from([10, 63, 64, 65, 300]))
            value: object = 1
            for _ in range(depth):
                value = [value]
            policy = _set(policy, path, value)
        notes.append(f"{action} {'.'.join(map(str, path))}")
    return policy, notes


#: a value that expands to 9^10 values through YAML aliases, in 500 bytes
ALIAS_BOMB = 'a: &a ["x","x","x","x","x","x","x","x","x"]\n' + "".join(
    f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True)
)

_INT_VALUE = re.compile(rb"(:\s+)(\d+)(\s*(?:\n|,|\}))")
_BOOL_VALUE = re.compile(rb"(:\s+)(true|false)\b")


@dataclass
class PolicyFile:
    name: str
    content: bytes
    notes: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        head = self.content[:300]
        return f"PolicyFile({self.name!r}, {len(self.content)} bytes {head!r}…, {self.notes})"

    def _repr_pretty_(self, printer, cycle) -> None:  # (how Hypothesis prints a case)
        printer.text(repr(self))

    def write(self, folder: Path) -> Path:
        path = folder / self.name
        path.write_bytes(self.content)
        return path


@st.composite
def policy_files(draw, base: dict = POLICY, name: str = "policy") -> PolicyFile:
    """A policy mutated in its structure (``policy_structures``) or its text: leading zeros,
    YAML 1.1 booleans, duplicate keys, an alias bomb, sizes at the limits, other encodings."""
    fmt = draw(st.sampled_from(["yaml", "yaml", "json"]))
    suffix = {"yaml": draw(st.sampled_from([".yaml", ".yml"])), "json": ".json"}[fmt]
    policy, notes = copy.deepcopy(base), []
    if draw(st.booleans()):
        policy, notes = draw(policy_structures(base))
    content = dump_policy(policy, fmt)
    text_action = draw(
        st.sampled_from(
            [
                "none", "none", "leading zero", "yaml 1.1 boolean", "duplicate key",
                "alias bomb", "size", "values", "levels", "models", "encoding", "nul",
                "json specials", "truncate", "tabs",
            ]
        )
    )  # fmt: skip
    if text_action == "leading zero":
        found = list(_INT_VALUE.finditer(content))
        if found:
            m = draw(st.sampled_from(found))
            zero = draw(st.sampled_from([b"0", b"00", b"0o", b"0x", b"+", b"-"]))
            content = content[: m.start(2)] + zero + content[m.start(2) :]
    elif text_action == "yaml 1.1 boolean":
        found = list(_BOOL_VALUE.finditer(content))
        word = draw(st.sampled_from([b"yes", b"no", b"on", b"off", b"y", b"n", b"True", b"NO"]))
        if found:
            m = draw(st.sampled_from(found))
            content = content[: m.start(2)] + word + content[m.end(2) :]
        elif fmt == "yaml":
            content += b"pseudonymize_individual: " + word + b"\n"
    elif text_action == "duplicate key":
        lines = content.split(b"\n")
        keyed = [i for i, line in enumerate(lines) if re.match(rb"\s*[\w\"-]+\s*:", line)]
        if keyed:
            i = draw(st.sampled_from(keyed))
            lines.insert(i + 1, lines[i])
            content = b"\n".join(lines)
    elif text_action == "alias bomb" and fmt == "yaml":
        content = ALIAS_BOMB.encode() + content
    elif text_action == "size":  # at the byte limit (1 MiB), one byte under or over it
        limit = 1_048_576 + draw(st.sampled_from([-1, 0, 1, 1000]))
        pad = max(0, limit - len(content) - 2)
        content = content + (b"\n#" + b"x" * max(0, pad - 1) if fmt == "yaml" else b" " * pad)
    elif text_action == "values":  # at the value limit (100,000 values)
        n = draw(st.sampled_from([99_990, 100_001]))
        values = ",".join(["1"] * n).encode()
        content = content + b"\nextra_values: [" + values + b"]\n" if fmt == "yaml" else content
    elif text_action == "levels":  # hierarchy levels at the limit (64)
        n = draw(st.sampled_from([63, 64, 65]))
        mutated = copy.deepcopy(base)
        mutated["attributes"]["age"]["hierarchy"] = {
            "type": "intervals",
            "widths": [2**i for i in range(n)],
        }
        content = dump_policy(mutated, fmt)
    elif text_action == "models":  # model entries at the limit (1,000)
        n = draw(st.sampled_from([999, 1000, 1001]))
        mutated = copy.deepcopy(base)
        mutated["models"] = [{"model": "k-anonymity", "k": 2}] * n
        content = dump_policy(mutated, "json")
    elif text_action == "encoding":
        encoding = draw(st.sampled_from(["utf-16", "utf-8-sig", "latin-1", "utf-32"]))
        content = content.decode().replace("zip", "zïp").encode(encoding)
    elif text_action == "nul":
        at = draw(st.integers(0, len(content)))
        content = content[:at] + b"\x00" + content[at:]
    elif text_action == "json specials" and fmt == "json":
        special = draw(st.sampled_from([b"NaN", b"Infinity", b"-Infinity", b"1e999", b"-0"]))
        content = content.replace(b'"k": 2', b'"k": ' + special, 1)
        content = content.replace(b'"suppression_limit": 0.25', b'"suppression_limit": ' + special)
    elif text_action == "truncate":
        content = content[: draw(st.integers(0, len(content)))]
    elif text_action == "tabs" and fmt == "yaml":
        content = content.replace(b"  ", b"\t", 1)
    if text_action != "none":
        notes.append(text_action)
    return PolicyFile(name + suffix, content, notes)


def policy_with(**changes) -> dict:
    """The valid policy with top-level keys replaced."""
    policy = copy.deepcopy(POLICY)
    policy.update(changes)
    return policy


def mkfifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


# --------------------------------------------------------------------------- paths

#: what a path given to a command may turn out to be
PATH_KINDS = ["missing", "folder", "fifo", "devnull", "dangling link", "empty", "in missing folder"]


def special_path(folder: Path, kind: str, name: str) -> Path:
    """A path of ``kind`` in ``folder`` (created as that kind): what a command must refuse in one
    line without opening it (a FIFO would block a reader, ``/dev/null`` must stay a device)."""
    path = folder / name
    if kind == "missing":
        return path
    if kind == "folder":
        path.mkdir()
        (path / "inside.csv").write_bytes(BASE_CSV)
        return path
    if kind == "fifo":
        return mkfifo(path)
    if kind == "devnull":
        return Path("/dev/null")
    if kind == "dangling link":
        path.symlink_to(folder / "no-such-target")
        return path
    if kind == "empty":
        path.write_bytes(b"")
        return path
    if kind == "in missing folder":
        return folder / "no-such-folder" / name
    raise ValueError(kind)


#: what an input may turn out to be for an ordinary user (as root both read as usual): the file
#: unreadable (mode 000), or moved into a folder the user cannot enter
LOCK_KINDS = ["unreadable", "in locked folder"]


def locked_input(folder: Path, path: Path, kind: str) -> Path:
    """The input at ``path`` made ``kind`` (``LOCK_KINDS``); returns where it now is."""
    if kind == "unreadable":
        path.chmod(0)
        return path
    locked = folder / "locked"
    locked.mkdir(exist_ok=True)
    moved = path.rename(locked / path.name)
    locked.chmod(0)
    return moved


# --------------------------------------------------------------------------- other policies

#: numeric quasi-identifiers, for the masking methods and the record-linkage attacks
NUMERIC_POLICY = {
    "attributes": {
        "age": {"role": "quasi_identifier"},
        "salary": {"role": "quasi_identifier"},
        "disease": {"role": "sensitive"},
        "zip": {"role": "insensitive"},
    },
    "models": [{"model": "k-anonymity", "k": 3}],
    "suppression_limit": 0.25,
}
#: k-anonymity alone, which local suppression enforces
K_ONLY_POLICY = {**POLICY, "models": [{"model": "k-anonymity", "k": 2}]}
#: (ε, δ)-differential privacy, which safepub enforces (its δ loose enough for 24 records)
DP_POLICY = {**POLICY, "models": [{"model": "differential-privacy", "epsilon": 2.0, "delta": 0.2}]}

#: the algorithms, the policy each enforces, and the parameters it takes
ALGORITHMS: dict[str, tuple[dict, list[str]]] = {
    "auto": (POLICY, ["steps", "tradeoff", "relaxed", "importance", "polish", "node"]),
    "mingen": (POLICY, ["tagging", "tradeoff"]),
    "datafly": (POLICY, []),
    "incognito": (POLICY, ["tradeoff"]),
    "mondrian": (POLICY, ["relaxed"]),
    "local-suppression": (K_ONLY_POLICY, ["importance", "node", "generalize_first", "polish"]),
    "safepub": (DP_POLICY, ["steps", "search_fraction", "final_fraction", "score"]),
    "mdav": (NUMERIC_POLICY, ["k", "groups", "aggregate"]),
    "mdav-partitioned": (NUMERIC_POLICY, ["k", "groups", "aggregate", "block_size"]),
    "optimal-univariate": (NUMERIC_POLICY, ["k", "aggregate"]),
    "fuzzy-microaggregation": (NUMERIC_POLICY, ["k", "n_clusters", "m1", "m2", "max_iter", "tol"]),
    "noise": (NUMERIC_POLICY, ["a", "kind"]),
    "rank-swapping": (NUMERIC_POLICY, ["p"]),
    "rank-swapping-buckets": (NUMERIC_POLICY, ["p"]),
}
#: masking methods: they may write a release that fails the policy (exit 1)
MASKING = {
    "mdav", "mdav-partitioned", "optimal-univariate", "fuzzy-microaggregation", "noise",
    "rank-swapping", "rank-swapping-buckets",
}  # fmt: skip
#: parameters a method cannot run without
REQUIRED_PARAMS = {"noise": ["a=0.1"], "rank-swapping": ["p=10"], "rank-swapping-buckets": ["p=10"]}

#: parameter values as typed after ``--param key=``
PARAM_VALUES = [
    "0", "-1", "1", "2", "3", "0.5", "1e400", "1e308", ".inf", "-.inf", ".nan", "nan", "true",
    "maybe", "[", "{a: 1, a: 2}", "[" * 100 + "]" * 100, "&a [*a]", "!!python/object:os.system",
    "*", "9" * 50, "010", "1_000", "", "[[age], [salary]]", "[age, age]", "{age: 1}", "median",
    "x" * 300, "$x_$", "[zip, 5]", "{zip: 1, age: 0}", "{zip: -1}", "{zip: 99}", "{zip: true}",
]  # fmt: skip


def param_values() -> st.SearchStrategy[str]:
    return st.sampled_from(PARAM_VALUES)


# --------------------------------------------------------------------------- side files


@functools.cache
def base_report(algorithm: str = "mingen") -> str:
    """The anonymization report (JSON text) of the valid case: what ``apply`` re-applies and
    ``anonymize --previous`` reads."""
    import tempfile

    from privcheck.io import read_table
    from privcheck.pipeline.anonymize import anonymize

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "d.csv"
        data.write_bytes(BASE_CSV)
        _, result = anonymize(read_table(data), POLICY, algorithm, seed=1)
    return result.to_json()


def base_transformation() -> dict:
    """The transformation JSON of the valid case's report."""
    report = json.loads(base_report())
    return {
        "kind": "transformation",
        "node": report["node"],
        "suppression_limit": report["parameters"]["suppression_limit"],
        "suppressed_records": report["parameters"].get("suppressed_records", "remove"),
        "algorithm": report["algorithm"],
    }


#: the fields of a transformation or report that a run reads
SIDE_FIELDS = [
    ("kind",), ("node",), ("node", "zip"), ("node", "age"), ("node", "sex"), ("algorithm",),
    ("suppression_limit",), ("suppressed_records",), ("parameters",),
    ("parameters", "suppression_limit"), ("parameters", "suppressed_records"),
]  # fmt: skip
SIDE_VALUES = [
    *HOSTILE_SCALARS, 0.99, 1.0, 0.0, 0.1, 0.25, 0.26, 5, 63, 64, 65, 2**62, "anonymization",
    "transformation", "safepub", "mingen", {}, [], {"zip": 0}, {"zip": -1, "age": 0},
    {"nope": 1}, {"zip": 0, "age": 0, "sex": 0, "salary": 0},
]  # fmt: skip


@dataclass
class SideFile:
    """A JSON (or not) side file: its name, bytes and what was done."""

    name: str
    content: bytes
    notes: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"SideFile({self.name!r}, {self.content[:400]!r}…, {self.notes})"

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(repr(self))

    def write(self, folder: Path) -> Path:
        path = folder / self.name
        path.write_bytes(self.content)
        return path


@st.composite
def side_files(draw, base: dict, name: str) -> SideFile:
    """``base`` (a transformation or a report) with its fields replaced, added or dropped, or
    its text made hostile (not JSON, NaN, a repeated key, deep nesting, the size limit)."""
    doc = copy.deepcopy(base)
    notes: list[str] = []
    for _ in range(draw(st.integers(0, 3))):
        path = draw(st.sampled_from(SIDE_FIELDS))
        action = draw(st.sampled_from(["set", "set", "set", "drop", "unknown key"]))
        parent = doc
        for step in path[:-1]:
            parent = parent.setdefault(step, {}) if isinstance(parent, dict) else parent
        if not isinstance(parent, dict):
            continue
        if action == "set":
            parent[path[-1]] = copy.deepcopy(draw(st.sampled_from(SIDE_VALUES)))
        elif action == "drop":
            parent.pop(path[-1], None)
        else:
            parent[draw(st.sampled_from(["extra", "node2", "Kind", ""]))] = 1
        notes.append(f"{action} {'.'.join(path)}")
    content = json.dumps(doc, allow_nan=True).encode()
    text = draw(
        st.sampled_from(
            ["none", "none", "none", "yaml", "not json", "nan", "duplicate", "deep", "size",
             "empty", "list", "binary", "utf-16"]
        )
    )  # fmt: skip
    if text == "yaml":
        content = yaml.safe_dump(doc).encode()
    elif text == "not json":
        content = content[: draw(st.integers(0, len(content)))] + b"}{"
    elif text == "nan":
        content = content.replace(b"0.25", b"NaN", 1).replace(b'"zip": 0', b'"zip": Infinity')
    elif text == "duplicate":
        content = content.replace(b'{"kind"', b'{"kind": "transformation", "kind"', 1)
    elif text == "deep":
        depth = draw(st.sampled_from([63, 64, 65, 1000]))
        content = content[:-1] + b', "x": ' + b"[" * depth + b"]" * depth + b"}"
    elif text == "size":
        pad = 1_048_576 - len(content) + draw(st.sampled_from([-1, 0, 1]))
        content = content + b" " * max(pad, 0)
    elif text == "empty":
        content = b""
    elif text == "list":
        content = b"[" + content + b"]"
    elif text == "binary":
        content = bytes(range(256))
    elif text == "utf-16":
        content = content.decode().encode("utf-16")
    if text != "none":
        notes.append(text)
    return SideFile(name, content, notes)


# --------------------------------------------------------------------------- risk


def masked_rows(how: str = "noise") -> list[list[str]]:
    """The valid table's release for an attack: ``noise`` (age ± 2, salary ± 2 %, seeded; ``heavy
    noise`` ± 10 and ± 20 %) or
    ``microaggregated`` (age and salary replaced by the means of groups of 3 records)."""
    import numpy as np

    rows = [list(r) for r in ROWS]
    if how in ("noise", "heavy noise"):  # (heavy: age ± 10, salary ± 20 %: links get confused)
        rng = np.random.default_rng(0)
        spread, share = (2, 0.02) if how == "noise" else (10, 0.2)
        for r in rows:
            r[1] = str(int(r[1]) + int(rng.integers(-spread, spread + 1)))
            r[3] = f"{float(r[3]) * (1 + rng.normal(0, share)):.1f}"
        return rows
    for start in range(0, len(rows), 3):
        group = rows[start : start + 3]
        age = sum(int(r[1]) for r in group) / len(group)
        salary = sum(float(r[3]) for r in group) / len(group)
        for r in group:
            r[1], r[3] = f"{age:.4f}", f"{salary:.4f}"
    return rows


#: records of the same population the release never saw: a control set
CONTROL_ROWS = [
    [_ZIPS[(i * 3) % 8], str(21 + (i * 5) % 44), "MF"[(i + 1) % 2], f"{31000 + i * 999.5:.1f}",
     _DISEASES[(i * 3) % 8]]
    for i in range(40)
]  # fmt: skip

#: every attack on the valid case: the parameters it needs, whether it needs a control set,
#: the release it attacks, and the parameters it takes
ATTACKS: dict[str, tuple[list[str], bool, str, list[str]]] = {
    "dbrl": ([], False, "noise", ["metric", "covariance", "standardisation", "assignment",
                                  "engine", "chunk_size", "memory_limit", "workers", "max_cells"]),
    "mahalanobis": ([], False, "noise", ["covariance", "standardisation", "assignment"]),
    "prl": ([], False, "noise", ["tolerance", "block_on", "false_match_rate",
                                 "false_non_match_rate", "max_iter", "pair_budget"]),
    "interval-disclosure": ([], False, "noise", ["method", "p", "centre"]),
    "uniqueness": ([], False, "noise", ["threshold"]),
    "learned-weighted-mean": ([], False, "noise", ["standardisation", "epsilon", "n_initial",
                                                   "add_per_round", "max_rounds", "time_limit"]),
    "learned-choquet": ([], False, "noise", ["standardisation", "epsilon", "max_rounds"]),
    "rank-swap-transparency": (["p=10"], False, "noise", ["p", "variant", "coverage", "window"]),
    "microaggregation-transparency": (["k=3"], False, "microaggregated",
                                      ["k", "tolerance", "standardisation"]),
    "microaggregation-multivariate-transparency": (["k=3"], False, "microaggregated",
                                                   ["knowledge", "k", "groups", "method",
                                                    "block_size", "aggregate"]),
    "ddmbar": (["target=disease"], False, "noise", ["target", "features", "model"]),
    "singling-out": (["n_cols=2"], True, "noise", ["n_attacks", "n_cols", "mode",
                                                   "max_attempts", "confidence"]),
    "linkability": ([], True, "noise", ["aux_cols", "n_attacks", "n_neighbors", "confidence"]),
    "inference": (["secret=disease"], True, "noise", ["secret", "n_attacks", "regression",
                                                      "tolerance", "confidence"]),
    "membership-inference": (["target=disease"], True, "noise", ["target", "model", "features",
                                                                 "target_model", "n_shadow",
                                                                 "n_repeats", "max_eval"]),
}  # fmt: skip

#: integers an intruder-record file may hold, one per line
ROW_NUMBERS = ["0", "1", "23", "24", "-1", "1" * 25, "1.5", "1e3", "nan", "", " 3 ", "x", "0x1"]


@st.composite
def intruder_record_files(draw) -> SideFile:
    """A file of 0-based row numbers: valid ones, duplicates, out of range, not numbers."""
    lines = draw(st.lists(st.sampled_from(ROW_NUMBERS), max_size=30))
    sep = draw(st.sampled_from(["\n", ",", "\r\n", " "]))
    content = sep.join(lines).encode()
    if draw(st.integers(0, 5)) == 0:
        content = draw(st.sampled_from([b"\x00\x01", bytes(range(256)), b"0\n" * 200_000]))
    return SideFile("rows.txt", content, [])


@st.composite
def model_files(draw) -> SideFile:
    """What ``--param model=PATH`` may name: a pickle, a joblib-like compressed pickle, a zip
    that is no skops file, a zip bomb's directory, text, nothing."""
    import pickle
    import zipfile
    import zlib

    kind = draw(
        st.sampled_from(["pickle", "pickle0", "zlib pickle", "zip", "zip schema", "text", "empty"])
    )
    if kind == "pickle":
        content = pickle.dumps({"a": 1}, protocol=4)
    elif kind == "pickle0":
        content = pickle.dumps([1, 2], protocol=0)
    elif kind == "zlib pickle":
        content = zlib.compress(pickle.dumps({"a": 1}, protocol=4))
    elif kind in ("zip", "zip schema"):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
            if kind == "zip":
                zf.writestr("a.txt", b"0" * draw(st.sampled_from([10, 3_000_000])))
            else:
                zf.writestr("schema.json", json.dumps({"__class__": "X", "__module__": "os"}))
        content = buffer.getvalue()
    elif kind == "text":
        content = b"not a model\n"
    else:
        content = b""
    return SideFile(draw(st.sampled_from(["model.skops", "model.pkl", "model.joblib"])), content)


# --------------------------------------------------------------------------- compare


@functools.cache
def base_release(algorithm: str = "mingen", star: bool = False) -> bytes:
    """A release of the valid case as ``privcheck anonymize`` writes it (CSV bytes): ``mingen``
    passes the policy; ``star`` keeps every record in order, suppressed ones starred (what
    ``compare`` measures every measure on)."""
    import tempfile

    from privcheck.io import read_table, write_table
    from privcheck.pipeline.anonymize import anonymize

    policy = {**POLICY, "suppressed_records": "star"} if star else POLICY
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "d.csv"
        data.write_bytes(BASE_CSV)
        release, _ = anonymize(read_table(data), policy, algorithm, seed=1, keep_order=star)
        return write_table(release, Path(tmp) / "r.csv").read_bytes()


def release_table(content: bytes) -> tuple[list[str], list[list[str]]]:
    """A release's CSV bytes as header and rows (what ``csv_files`` mutates)."""
    rows = list(csv.reader(io.StringIO(content.decode())))
    return rows[0], rows[1:]


# --------------------------------------------------------------------------- init

#: tags a catalog may give a column: the role tags, their spellings, others, hostile text
TAGS = [
    "PII:Identifier", "PII:Quasi-Identifier", "PII:Sensitive", "PII:Insensitive",
    "pii.sensitive", "PII.NonSensitive", "PII.None", "PersonalData.SpecialCategory",
    "PersonalData.Personal", "NonSensitive", "urn:li:tag:PII:Sensitive", " pii:identifier ",
    "Tier1", "", "$x_$", "<b>x</b>", "x" * 300, "\x00",
]  # fmt: skip


@st.composite
def tag_files(draw) -> SideFile:
    """A tags file: column → tags (both roles for one column, absent columns, other shapes),
    as JSON or YAML, or its text made hostile."""
    columns = st.sampled_from([*HEADER, "nope", "", "$x_$", "x" * 300])
    tags = st.one_of(
        st.lists(st.sampled_from(TAGS), max_size=3),
        st.sampled_from(TAGS),
        st.sampled_from(HOSTILE_SCALARS),
        st.just(None),
    )
    doc: object = draw(st.dictionaries(columns, tags, max_size=6))
    if draw(st.integers(0, 6)) == 0:
        doc = draw(HOSTILE)
    fmt = draw(st.sampled_from(["json", "yaml", "yml"]))
    if fmt == "json":
        content = json.dumps(doc, allow_nan=True).encode()
    else:
        try:
            content = yaml.safe_dump(doc, allow_unicode=True).encode()
        except yaml.YAMLError:
            content = json.dumps(doc, allow_nan=True).encode()
    text = draw(
        st.sampled_from(["none", "none", "none", "alias bomb", "truncate", "binary", "size"])
    )
    if text == "alias bomb" and fmt != "json":
        content = ALIAS_BOMB.encode() + content
    elif text == "truncate":
        content = content[: draw(st.integers(0, len(content)))]
    elif text == "binary":
        content = bytes(range(256))
    elif text == "size":
        content = content + b" " * (1_048_577 - len(content))
    return SideFile(f"tags.{fmt}", content, [text])


# --------------------------------------------------------------------------- hook

#: globs a privcheck.toml may hold: ones that match the data, ones that match nothing, and the
#: shapes that once hung or raised (repeated ``**/``, ``*a*a…b``, reversed or odd classes)
GLOBS = [
    "*.csv", "d.csv", "**/*.csv", "data/*.csv", "./d.csv", "*", "**", "?.csv", "[d].csv",
    "[!x].csv", "nope/*.csv", "**/" * 40 + "*.csv", "*a" * 40 + "b", "*" * 200, "[z-a].csv",
    "[]].csv", "[!]].csv", "[", "[a-", "\\*.csv", "/etc/*", "../*.csv", "x" * 1001, "*.parquet",
    "**/d.*", "d.csv/**",
]  # fmt: skip


@st.composite
def hook_configs(draw) -> SideFile:
    """A ``privcheck.toml``: rules of drawn globs and policies (the valid one, a missing one,
    one outside the folder), unknown keys, or its text made hostile (not TOML, deep nesting,
    the size limit)."""
    rules = []
    for _ in range(draw(st.sampled_from([0, 1, 1, 1, 2, 3]))):
        files = draw(
            st.one_of(
                st.sampled_from(GLOBS),
                st.lists(st.sampled_from(GLOBS), max_size=3),
                st.sampled_from(["*.csv", "**/*.csv", ["*.csv", "data/*.csv"]]),
            )
            if draw(st.integers(0, 10)) < 10
            else st.sampled_from([1, True, [1], [""], {}])
        )
        policy = draw(
            st.sampled_from(["policy.yaml"] * 8 + ["missing.yaml", "/etc/passwd", "", "data", 5])
        )
        rule = {"files": files, "policy": policy}
        if draw(st.integers(0, 6)) == 6:
            rule[draw(st.sampled_from(["Files", "extra", "policies"]))] = "x"
        if draw(st.integers(0, 8)) == 8:
            del rule[draw(st.sampled_from(["files", "policy"]))]
        rules.append(rule)
    name = draw(st.sampled_from(["privcheck.toml", "privcheck.toml", "pyproject.toml"]))
    table = "tool.privcheck." if name == "pyproject.toml" else ""
    lines = ['[project]\nname = "x"'] if table else []
    if draw(st.integers(0, 8)) == 8:
        lines.append('[tool.privcheck]\nother = "x"' if table else 'other = "x"')
    for rule in rules:
        lines.append(f"[[{table}check]]")
        lines += [f"{key} = {json.dumps(value)}" for key, value in rule.items()]
    content = "\n".join(lines).encode() + b"\n"
    text = "none"
    if draw(st.integers(0, 3)) == 3:
        text = draw(st.sampled_from(["truncate", "deep", "size", "binary", "nul"]))
    if text == "truncate":
        content = content[: draw(st.integers(0, len(content)))]
    elif text == "deep":
        depth = draw(st.sampled_from([100, 5000]))
        content += b"x = " + b"[" * depth + b"]" * depth + b"\n"
    elif text == "size":
        content += b"#" + b"x" * (1_048_577 - len(content))
    elif text == "binary":
        content = bytes(range(256))
    elif text == "nul":
        content += b'x = "\x00"\n'
    return SideFile(name, content, [text])
