"""Reading tables and writing outputs atomically.

CSV values are read as strings (ZIP codes keep their leading zeros; "NA" is a value, only an
empty field is missing); numeric needs (intervals, ordering) parse them later, in encoding.
A CSV file is read strictly: a header that repeats a column name, or a row with more or fewer
fields than the header, is an input error rather than a silently renamed or shifted column.
"""

from __future__ import annotations

import csv
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from privcheck.errors import DataError

if TYPE_CHECKING:
    import pandas as pd

_DELIMITERS = ";,\t|"


def sniff_delimiter(path: Path) -> str:
    with path.open("r", encoding="utf-8-sig", newline="") as fh:
        head = fh.readline()
    try:
        return csv.Sniffer().sniff(head, delimiters=_DELIMITERS).delimiter
    except csv.Error:
        return ","


def csv_header(path: Path, sep: str) -> list[str]:
    """The header row, refused when a name repeats (pandas would rename it to 'a.1')."""
    with path.open("r", encoding="utf-8-sig", newline="") as fh:
        header = next(csv.reader(fh, delimiter=sep), None)
    if not header:
        raise DataError(f"cannot read {path}: the file is empty (no header row)")
    seen: set[str] = set()
    for name in header:
        if name in seen:
            raise DataError(
                f"column {name!r} appears twice in the header of {path}; rename one of them"
            )
        seen.add(name)
    return header


def read_csv(path: Path, arrow: bool = False) -> pd.DataFrame | Any:
    """A CSV/TSV file as string columns, strictly (see the module docstring).

    Parsed by Arrow's CSV reader (multi-threaded, and it refuses ragged rows, which pandas'
    reader pads with missing values or shifts into an index); UTF-8 with or without a BOM,
    LF or CRLF line endings, quoted fields with embedded delimiters and newlines.

    ``arrow`` returns the ``pyarrow.Table`` itself, its columns dictionary-encoded by the reader
    (what a check encodes: no pandas import, no Python string per row).
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    sep = sniff_delimiter(path)
    header = csv_header(path, sep)
    string_type = pa.dictionary(pa.int32(), pa.string()) if arrow else pa.string()
    table = pacsv.read_csv(
        path,
        parse_options=pacsv.ParseOptions(delimiter=sep, newlines_in_values=True),
        convert_options=pacsv.ConvertOptions(
            column_types={name: string_type for name in header},
            strings_can_be_null=True,
            null_values=[""],
        ),
    )
    if table.num_columns == 1 and any(c in header[0] for c in ":;,\t| "):
        hint = header[0][:60]
        raise DataError(
            f"{path} has a single column {hint!r}: its delimiter is not one of ; , tab | "
            "(which privcheck detects); write the file with one of them"
        )
    return table if arrow else table.to_pandas()


def read_parquet(
    path: Path,
    columns: Iterable[str] | None = None,
    dictionary: bool = False,
    arrow: bool = False,
) -> pd.DataFrame | Any:
    """A Parquet file (or a folder of parts) as a DataFrame.

    ``columns`` reads only those columns when the file has them all (otherwise every column, so
    that the error about a missing one can list what the file holds). ``dictionary`` reads
    string columns as Arrow dictionaries, i.e. pandas categoricals: Parquet stores them
    dictionary-encoded, and a check reuses the codes instead of building a Python string per
    row and hashing it back into codes. ``arrow`` returns the ``pyarrow.Table`` (see
    ``read_csv``).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not columns and not dictionary and not arrow:
        import pandas as pd

        return pd.read_parquet(path)
    schema = pq.read_schema(path) if path.is_file() else pq.ParquetDataset(path).schema
    names = list(schema.names)
    wanted = None
    if columns is not None:
        want = list(dict.fromkeys(columns))
        if all(c in names for c in want):
            wanted = [c for c in names if c in set(want)]  # in the file's order
    strings = [
        f.name
        for f in schema
        if (wanted is None or f.name in wanted)
        and (pa.types.is_string(f.type) or pa.types.is_large_string(f.type))
    ]
    read_dictionary = strings if dictionary else None
    if path.is_file():  # (read_table goes through pyarrow.dataset, which imports pandas)
        table = pq.ParquetFile(path, read_dictionary=read_dictionary).read(columns=wanted)
    else:
        table = pq.read_table(path, columns=wanted, read_dictionary=read_dictionary)
    return table if arrow else table.to_pandas()


def read_table(
    source: str | Path | pd.DataFrame,
    *,
    columns: Iterable[str] | None = None,
    dictionary: bool = False,
    arrow: bool = False,
) -> pd.DataFrame | Any:
    """A DataFrame from a DataFrame, a CSV/TSV file (delimiter sniffed) or a Parquet file.

    ``columns`` and ``dictionary`` are hints for Parquet (see ``read_parquet``): a check reads
    only the policy's columns, string columns as categoricals. ``arrow`` returns a file as a
    ``pyarrow.Table`` (string columns dictionary-encoded) instead: pandas is not imported.
    """
    if not isinstance(source, str | Path):
        return source
    if str(source) == "-":
        raise DataError(
            "reading a table from standard input ('-') is not supported; save it to a CSV or "
            "Parquet file and give its path"
        )
    path = Path(source)
    if not path.exists():
        raise DataError(f"data file not found: {path}")
    suffix = path.suffix.lower()
    if path.is_dir() and not any(path.rglob("*.parquet")):
        raise DataError(
            f"{path} is a folder without Parquet files; give a CSV/TSV/Parquet file (a folder "
            "is read as the Parquet parts of one table)"
        )
    try:
        if suffix in (".parquet", ".pq") or path.is_dir():
            return read_parquet(path, columns, dictionary or arrow, arrow)
        if suffix in (".csv", ".tsv", ".txt"):
            return read_csv(path, arrow)
    except (ValueError, OSError) as exc:  # (pandas' ParserError is a ValueError)
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DataError(f"cannot read {path}: {first}") from None
    raise DataError(f"unsupported data file type {suffix!r} ({path}); use .csv, .tsv or .parquet")


def _same_file(a: Path, b: Path) -> bool:
    """Whether two spellings name one file: same resolved path (``..``, symlinks), or the same
    inode when both exist (hard links, bind mounts)."""
    if a.resolve() == b.resolve():
        return True
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def guard_outputs(
    outputs: Mapping[str, str | Path | None],
    inputs: Iterable[str | Path | None],
    *,
    directories: Iterable[str] = (),
) -> None:
    """Refuse, before any work, outputs that would destroy something or cannot be written.

    ``outputs`` maps an option (``--output``) to its path; ``inputs`` are every file the command
    reads (data, policy, hierarchies, reports). An output naming an input (by any spelling), two
    outputs naming one file, an existing directory where a file is expected (options not in
    ``directories``) and a folder that does not exist are refused with one line (``DataError``):
    privcheck never overwrites what it reads and never creates folders on its own — a
    mistyped folder would otherwise silently receive the release.
    """
    given = [(opt, Path(p)) for opt, p in outputs.items() if p is not None and str(p) != "-"]
    sources = [Path(p) for p in inputs if p is not None and str(p) != "-"]
    dirs = set(directories)
    for i, (opt, path) in enumerate(given):
        for src in sources:
            if _same_file(path, src):
                raise DataError(
                    f"{opt} {path} is the input {src}: privcheck never overwrites what it reads; "
                    "write the output to another file"
                )
        for other_opt, other in given[:i]:
            if _same_file(path, other):
                raise DataError(
                    f"{other_opt} and {opt} both name {path}; give each output its own file"
                )
        if path.is_dir() and opt not in dirs:
            raise DataError(f"{opt} {path} is a directory; name a file, e.g. {path / 'out.csv'}")
        parent = path.parent
        if not parent.is_dir():
            raise DataError(
                f"{opt} {path}: the folder {parent} does not exist; create it first "
                "(privcheck does not create folders)"
            )


def write_atomic(path: str | Path, write: Callable[[Path], None]) -> Path:
    """Write through a temporary file in the same folder, then rename: all or nothing.

    The folder must exist (``guard_outputs`` says so in one line before any work is done)."""
    path = Path(path)
    if path.is_dir():
        raise DataError(f"{path} is a directory; name a file to write")
    if not path.parent.is_dir():
        raise DataError(
            f"cannot write {path}: the folder {path.parent} does not exist; create it first"
        )
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
