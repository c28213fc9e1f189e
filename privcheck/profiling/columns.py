"""A table's columns read once: each column's distinct values with their counts, its missing
values, and a sample of its rows for the recognizers.

Everything the profile says about a column — distinct values, share missing, share of rows whose
value is unique, type, hierarchy — is computed from ``(values, counts)``, the column's dictionary
and how many rows hold each entry: one pass (Arrow's dictionary encoding; the CSV reader and
Parquet hand over dictionaries already) and one ``bincount`` over the codes. A 1 M-row column
of sexes is two values and two counts from then on.

What counts as missing is what a check counts: a null, a float NaN, an empty or blank string
(``privcheck.encoding`` reads the same as missing).
"""

from __future__ import annotations

import csv
import sys
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from privcheck.errors import DataError

#: rows sampled per column for the recognizers (all rows when fewer)
SAMPLE_SIZE = 10_000
#: numbers and dates with more distinct values than this get hierarchies built from their
#: range, without listing every value in Python
PYTHON_VALUES = 200_000


@dataclass(eq=False)
class ColumnData:
    """One column as distinct values and counts, plus a sample of its rows."""

    name: str
    n_rows: int
    #: distinct non-missing values (Arrow, the column's value type), most frequent not implied
    values: pa.Array
    #: rows holding each value
    counts: np.ndarray
    n_missing: int
    #: distinct values of the sample, as trimmed strings, and how many sampled rows hold each
    sample_values: pa.Array
    sample_weights: np.ndarray
    sample_size: int
    _python: list[Any] | None = field(default=None, repr=False)
    _strings: pa.Array | None = field(default=None, repr=False)

    @property
    def value_type(self) -> pa.DataType:
        return self.values.type

    @property
    def n_present(self) -> int:
        return self.n_rows - self.n_missing

    @property
    def distinct(self) -> int:
        return len(self.counts)

    @cached_property
    def unique_rows(self) -> int:
        """Rows whose value no other row holds."""
        return int(np.count_nonzero(self.counts == 1))

    @property
    def missing_share(self) -> float:
        return self.n_missing / self.n_rows if self.n_rows else 0.0

    @property
    def unique_share(self) -> float:
        """Share of all rows whose value is unique (the profile's ``unique_share``)."""
        return self.unique_rows / self.n_rows if self.n_rows else 0.0

    @property
    def unique_present_share(self) -> float:
        """Share of the rows with a value whose value is unique (what the rules read: a column
        half empty whose filled half is all distinct is still an identifier)."""
        return self.unique_rows / self.n_present if self.n_present else 0.0

    @property
    def distinct_share(self) -> float:
        """Distinct values per row with a value (1.0: every value different)."""
        return self.distinct / self.n_present if self.n_present else 0.0

    def python_values(self) -> list[Any]:
        """The distinct values as Python objects (vocabularies and tables read them; callers
        ask only for columns whose domain they can list, see ``PYTHON_VALUES``)."""
        if self._python is None:
            self._python = self.values.to_pylist()
        return self._python

    def strings(self) -> pa.Array:
        """The distinct values as trimmed strings (Arrow; computed once, when asked)."""
        if self._strings is None:
            self._strings = as_strings(self.values)
        return self._strings


def as_strings(values: pa.Array) -> pa.Array:
    """Values as trimmed strings, the way a CSV would spell them."""
    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    if pa.types.is_large_string(values.type):
        values = values.cast(pa.string())
    if not pa.types.is_string(values.type):
        values = pc.cast(values, pa.string())
    return pc.utf8_trim_whitespace(values)


def _blank(values: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """Which values are missing: null, NaN, an empty or blank string."""
    absent = pc.is_null(values)
    kind = values.type
    if pa.types.is_floating(kind):
        absent = pc.or_(absent, pc.fill_null(pc.is_nan(values), False))
    elif pa.types.is_string(kind) or pa.types.is_large_string(kind):
        empty = pc.or_(pc.equal(pc.binary_length(values), 0), pc.utf8_is_space(values))
        absent = pc.or_(absent, pc.fill_null(empty, False))
    return absent


def _numpy_bool(values: pa.Array | pa.ChunkedArray) -> np.ndarray:
    return np.asarray(values.to_numpy(zero_copy_only=False), dtype=bool)


def _from_dictionary(
    column: pa.ChunkedArray, positions: np.ndarray
) -> tuple[pa.Array, np.ndarray, int, np.ndarray]:
    """(values, counts, missing rows, the value index of each sampled row — -1 missing) of a
    dictionary column: its dictionary unified across chunks, one ``bincount`` over the codes."""
    column = column.unify_dictionaries()
    if column.num_chunks == 0:
        empty = np.zeros(0, dtype=np.int64)
        return pa.array([], type=column.type.value_type), empty, 0, empty
    dictionary = column.chunk(0).dictionary
    parts = [
        (pc.fill_null(c.indices, -1) if c.null_count else c.indices).to_numpy(zero_copy_only=False)
        for c in column.chunks
    ]
    codes = np.concatenate(parts) if len(parts) > 1 else parts[0]
    if column.null_count:
        counts = np.bincount(codes + 1, minlength=len(dictionary) + 1)[1:]  # null → slot 0
    else:
        counts = np.bincount(codes, minlength=len(dictionary))
    used = (counts > 0) & ~_numpy_bool(_blank(dictionary))
    remap = np.full(len(dictionary) + 1, -1, dtype=np.int64)  # code -1 (null) reads the last
    remap[np.flatnonzero(used)] = np.arange(int(used.sum()))
    kept = counts[used].astype(np.int64)
    sampled = remap[codes[positions]]
    return dictionary.filter(pa.array(used)), kept, len(codes) - int(kept.sum()), sampled


def _distinct_with_counts(column: pa.Array, all_distinct: bool) -> tuple[pa.Array, np.ndarray]:
    """The column's distinct values that are not missing, and the rows holding each.

    When its sample is distinct in every row (a key, an e-mail), the distinct values alone are
    hashed first (Arrow's ``unique``: two thirds of ``value_counts``' cost on a million keys):
    as many as the rows with a value means one row each. Otherwise, or when some value
    repeats, ``value_counts``."""
    if all_distinct:
        uniques = pc.unique(column)
        uniques = uniques.filter(pc.invert(_blank(uniques)))
        present = len(column) - int(pc.sum(_blank(column).cast(pa.int64())).as_py() or 0)
        if len(uniques) == present:
            return uniques, np.ones(len(uniques), dtype=np.int64)
    pairs = pc.value_counts(column)
    keep = pc.invert(_blank(pairs.field("values")))
    values = pairs.field("values").filter(keep)
    counts = pairs.field("counts").filter(keep).to_numpy(zero_copy_only=False)
    return values, counts.astype(np.int64)


def sample_rows(n_rows: int, sample_size: int = SAMPLE_SIZE, seed: int = 0) -> np.ndarray:
    """The rows every column's sample is drawn from (sorted; all rows when fewer)."""
    if n_rows <= sample_size:
        return np.arange(n_rows)
    return np.sort(np.random.default_rng(seed).choice(n_rows, size=sample_size, replace=False))


def column_data(
    column: pa.ChunkedArray | pa.Array, name: str, positions: np.ndarray | None = None
) -> ColumnData:
    """Profile-ready data of one column: distinct values, counts, missing, and its values in
    the sampled rows ``positions`` (``sample_rows``; default: all rows) that hold one.

    A dictionary column (what the CSV reader and Parquet give) is counted on its codes; any
    other column (a key read plain, a typed number) with Arrow's ``value_counts``: either way
    one hash of each value at most."""
    if isinstance(column, pa.Array):
        column = pa.chunked_array([column])
    if pa.types.is_null(column.type):
        column = column.cast(pa.string())
    n_rows = len(column)
    if positions is None:
        positions = np.arange(n_rows)
    if pa.types.is_dictionary(column.type):
        values, counts, n_missing, sampled = _from_dictionary(column, positions)
        sampled = sampled[sampled >= 0]
        index, weights = np.unique(sampled, return_counts=True)
        sample_values = as_strings(values.take(pa.array(index)))
        n_sampled = len(sampled)
    else:
        # (one hash table over the whole column: per-chunk tables merged cost a third more)
        column = column.combine_chunks()
        taken = column.take(pa.array(positions))
        blank_taken = _blank(taken)
        if pc.any(blank_taken).as_py():
            taken = taken.filter(pc.invert(blank_taken))
        drawn = pc.value_counts(as_strings(taken))
        values, counts = _distinct_with_counts(column, all_distinct=len(drawn) == len(taken))
        n_missing = n_rows - int(counts.sum())
        sample_values = drawn.field("values")
        weights = drawn.field("counts").to_numpy(zero_copy_only=False)
        n_sampled = len(taken)
    if len(sample_values) == 0:
        sample_values = pa.array([], pa.string())
    return ColumnData(
        name=name,
        n_rows=n_rows,
        values=values,
        counts=counts,
        n_missing=n_missing,
        sample_values=sample_values,
        sample_weights=np.asarray(weights, dtype=np.int64),
        sample_size=n_sampled,
    )


def plain_columns(path: str | Path, rows: int = 2_000) -> list[str]:
    """Columns of a CSV or Parquet file distinct in more than half of its first ``rows`` rows:
    read them plain, not as dictionaries (``privcheck.io.read_csv``)."""
    path = Path(path)
    heads: dict[str, list] = {}
    try:
        if path.is_file() and path.suffix.lower() in (".csv", ".tsv", ".txt"):
            from privcheck.io import csv_header, encoding_for, is_utf8, sniff_delimiter

            encoding = encoding_for(path)
            sep = sniff_delimiter(path, encoding)
            header = csv_header(path, sep, encoding)
            text = "utf-8-sig" if is_utf8(encoding) else encoding
            with path.open("r", encoding=text, newline="") as fh:
                reader = csv.reader(fh, delimiter=sep)
                next(reader, None)
                lines = [row for _, row in zip(range(rows), reader, strict=False)]
            heads = {name: [r[i] for r in lines if i < len(r)] for i, name in enumerate(header)}
        elif path.is_file() and path.suffix.lower() in (".parquet", ".pq"):
            import pyarrow.parquet as pq

            batch = next(pq.ParquetFile(path).iter_batches(batch_size=rows), None)
            if batch is not None:
                heads = {
                    name: batch.column(i).to_pylist()
                    for i, name in enumerate(batch.schema.names)
                    if pa.types.is_string(batch.schema.field(i).type)
                    or pa.types.is_large_string(batch.schema.field(i).type)
                }
    except (OSError, UnicodeDecodeError, csv.Error, ValueError, pa.ArrowException, DataError):
        return []  # the reader proper says what is wrong with the file
    return [n for n, v in heads.items() if len(v) >= 100 and len(set(v)) > 0.5 * len(v)]


def arrow_table(frame: Any) -> pa.Table:
    """A pandas DataFrame or an Arrow table as an Arrow table (each pandas column converted on
    its own; one of mixed Python types is read as strings, as a CSV would hold it)."""
    if isinstance(frame, pa.Table):
        return frame
    pd = sys.modules.get("pandas")
    if pd is None or not isinstance(frame, pd.DataFrame):
        raise DataError(
            f"expected a table (pandas DataFrame or Arrow table); got {type(frame).__name__}"
        )
    names = list(frame.columns)
    bad = [c for c in names if not isinstance(c, str)]
    if bad:
        raise DataError(
            f"column name {bad[0]!r} is not a string; a policy names columns by strings "
            "(rename the columns, e.g. frame.columns = frame.columns.astype(str))"
        )
    arrays = []
    for name in names:
        series = frame[name]
        try:
            arrays.append(pa.array(series, from_pandas=True))
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
            text = series.astype(str).where(series.notna(), None)
            arrays.append(pa.array(text, type=pa.string(), from_pandas=True))
    return pa.table(arrays, names=names)
