"""A file read for an anonymization: string columns as dictionaries, released as a plain read.

An anonymizer encodes the rows to integer codes and builds its release from them. A string
column held as one string per row costs, at 5 M rows of Adult, as much memory as the release
itself, for nothing the codes do not already say. A file (Parquet, CSV/TSV) is therefore read
with its string columns as Arrow dictionaries — pandas categoricals: small integer codes into
the few distinct values, which ``encode`` reuses instead of hashing every row.

What a release copies from the rows (a sensitive or insensitive column, gathered for the
released records only) is turned back into the type a plain read gives that column
(``as_read``): a release written from a file is the same, type for type and value for value,
as one made from the file read plainly. The plain types are read off the file's schema (its
pandas metadata included), never from its rows, and kept in the frame's ``attrs``, which
pandas carries through row selections.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from privcheck.io import read_table

#: ``DataFrame.attrs`` key: column name → the dtype a plain read gives it
PLAIN_DTYPES = "privcheck_plain_dtypes"


def read_rows(path: str | Path) -> pd.DataFrame:
    """The file at ``path`` as a DataFrame whose string columns are categoricals, with the
    dtype each would have had read plainly in ``attrs[PLAIN_DTYPES]``."""
    path = Path(path)
    if path.suffix.lower() in (".csv", ".tsv", ".txt"):
        table = read_table(path, arrow=True)  # (every column a dictionary of strings)
        frame = table.to_pandas()
        plain = _empty_frame(_undictionaried(table.schema))
    else:
        frame = read_table(path, dictionary=True)
        plain = _parquet_plain(path)
    dtypes = {}
    for name in frame.columns:
        if not isinstance(frame[name].dtype, pd.CategoricalDtype):
            continue
        dtype = plain[name].dtype if name in plain.columns else None
        if dtype is not None and not isinstance(dtype, pd.CategoricalDtype):
            dtypes[name] = dtype
    if dtypes:
        frame.attrs[PLAIN_DTYPES] = dtypes
    release_freed_memory()
    return frame


def release_freed_memory() -> None:
    """Hand memory already freed back to the system between the phases of an anonymization.

    Arrow's pool keeps freed blocks for reuse (the Parquet pages just decoded, the release's
    temporaries), and glibc's ``malloc`` keeps freed arrays of a few MB in its heap, whose holes
    only allocations that fit can reuse: at 5 M rows the search's temporaries left 0.4 GB
    resident that the release could not reuse, on top of the release. Nothing live is touched;
    elsewhere than glibc the second step is skipped."""
    import contextlib
    import ctypes
    import sys

    import pyarrow as pa

    pa.default_memory_pool().release_unused()
    if sys.platform.startswith("linux"):
        # (the process's own symbols: glibc's; musl and others have no malloc_trim)
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).malloc_trim(0)


def as_read(data: pd.DataFrame, name: Any, column: pd.Series) -> pd.Series:
    """``column`` (rows of ``data[name]``) as the plain read of its file gives it: a string
    column ``read_rows`` made categorical becomes its plain dtype again (unchanged otherwise)."""
    dtype = (data.attrs.get(PLAIN_DTYPES) or {}).get(name)
    if dtype is None or not isinstance(column.dtype, pd.CategoricalDtype):
        return column
    # the few categories in the plain dtype, then one gather of the codes (-1: missing);
    # ``astype`` goes through a Python object per row, 7× the column's size at its peak
    categories = pd.Series(column.cat.categories.astype(dtype)).array
    values = categories.take(column.cat.codes.to_numpy(), allow_fill=True)
    return pd.Series(values, index=column.index, name=column.name, copy=False)


def _parquet_plain(path: Path) -> pd.DataFrame:
    """No rows of the Parquet file, typed as ``pd.read_parquet`` types them (its schema and
    pandas metadata: the types a plain read gives)."""
    import pyarrow.parquet as pq

    schema = pq.read_schema(path) if path.is_file() else pq.ParquetDataset(path).schema
    return _empty_frame(schema)


def _empty_frame(schema: Any) -> pd.DataFrame:
    table = schema.empty_table()
    try:
        return table.to_pandas()
    except NotImplementedError:  # (metadata the Arrow types contradict: see io.read_parquet)
        return table.to_pandas(ignore_metadata=True)


def _undictionaried(schema: Any) -> Any:
    """``schema`` with every dictionary column its value type (what a plain CSV read gives)."""
    import pyarrow as pa

    fields = [
        f.with_type(f.type.value_type) if pa.types.is_dictionary(f.type) else f for f in schema
    ]
    return pa.schema(fields, metadata=schema.metadata)
