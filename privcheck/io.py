"""Reading tables and writing outputs atomically.

CSV values are read as strings (ZIP codes keep their leading zeros; "NA" is a value, only an
empty field is missing); numeric needs (intervals, ordering) parse them later, in encoding.
"""

from __future__ import annotations

import csv
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from privcheck.errors import DataError

_DELIMITERS = ";,\t|"


def sniff_delimiter(path: Path) -> str:
    with path.open("r", encoding="utf-8-sig", newline="") as fh:
        head = fh.readline()
    try:
        return csv.Sniffer().sniff(head, delimiters=_DELIMITERS).delimiter
    except csv.Error:
        return ","


def read_table(source: str | Path | pd.DataFrame) -> pd.DataFrame:
    """A DataFrame from a DataFrame, a CSV/TSV file (delimiter sniffed) or a Parquet file."""
    if isinstance(source, pd.DataFrame):
        return source
    path = Path(source)
    if not path.exists():
        raise DataError(f"data file not found: {path}")
    suffix = path.suffix.lower()
    try:
        if suffix in (".parquet", ".pq") or path.is_dir():
            return pd.read_parquet(path)
        if suffix in (".csv", ".tsv", ".txt"):
            return pd.read_csv(
                path,
                sep=sniff_delimiter(path),
                dtype=str,
                keep_default_na=False,
                na_values=[""],
                encoding="utf-8-sig",
            )
    except (ValueError, OSError, pd.errors.ParserError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DataError(f"cannot read {path}: {first}") from None
    raise DataError(f"unsupported data file type {suffix!r} ({path}); use .csv, .tsv or .parquet")


def write_atomic(path: str | Path, write: Callable[[Path], None]) -> Path:
    """Write through a temporary file in the same folder, then rename: all or nothing."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(Path(tmp))
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it owner-only; give it a normal file's mode
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_text_atomic(path: str | Path, text: str) -> Path:
    return write_atomic(path, lambda p: p.write_text(text, encoding="utf-8"))


def write_table(frame: pd.DataFrame, path: str | Path) -> Path:
    """Write a table as CSV or Parquet (by suffix), atomically."""
    suffix = Path(path).suffix.lower()
    if suffix in (".parquet", ".pq"):
        return write_atomic(path, lambda p: frame.to_parquet(p, index=False))
    sep = "\t" if suffix == ".tsv" else ","
    return write_atomic(path, lambda p: frame.to_csv(p, index=False, sep=sep))
