"""Open a data path in the engine the user chose, lazily where the engine is lazy.

``open_frame(path, engine)`` gives the frame the check's group-by then runs in: a pandas
DataFrame (read in full, the in-process path), a polars LazyFrame, a DuckDB relation or a Spark
DataFrame (all three scan the files themselves, so the rows never enter Python). Parquet files,
folders of Parquet files and globs are read; CSV/TSV files too, every column as a string and only
an empty field missing, as the pandas reader does.
"""

from __future__ import annotations

import glob
from pathlib import Path
from typing import Any

from privcheck.engines import ENGINES
from privcheck.errors import DataError, PolicyError

_CSV = (".csv", ".tsv", ".txt")
_PARQUET = (".parquet", ".pq")


def has_scheme(path: str) -> bool:
    """s3://bucket/…, hdfs://…, dbfs:/…: a path only the engine can resolve."""
    head = path.split("/", 1)[0]
    return head.endswith(":") and len(head) > 2


def data_format(path: str) -> str:
    """'csv' or 'parquet' (folders and anything else are taken as Parquet)."""
    suffix = Path(path.rstrip("/")).suffix.lower()
    return "csv" if suffix in _CSV else "parquet"


def local_matches(path: str) -> list[Path]:
    """The local files a path or glob names (empty for remote paths); DataError if none, or if
    one is not a regular file (a FIFO or a device would hang the engine's reader); a folder
    stands for the Parquet parts inside it, which are checked the same way."""
    from privcheck.io import parquet_parts, require_regular_file

    if has_scheme(path):
        return []
    if glob.has_magic(path):
        found = sorted(Path(p) for p in glob.glob(path, recursive=True))
        if not found:
            raise DataError(f"no data file matches {path}")
    else:
        found = [Path(path)]  # (require_regular_file says whether it is missing or unreadable)
    for p in found:
        parts = parquet_parts(p) if p.is_dir() else [p]
        for part in parts:
            require_regular_file(part, "data file")
    return found


def _scan_target(path: str) -> str:
    """A folder becomes a glob of its Parquet files (polars and DuckDB want files)."""
    p = Path(path)
    if not has_scheme(path) and p.is_dir():
        return str(p / "**" / "*.parquet")
    return path


def read_spark(spark: Any, data: str | Path) -> Any:
    """A Spark DataFrame over a Parquet file, folder or glob, or a CSV/TSV file or glob.

    CSV is read as pandas reads it in privcheck: every column a string (ZIP codes keep their
    leading zeros), a header row, only an empty field missing. Paths with a scheme (s3://,
    hdfs://, dbfs:/) go to Spark unchecked; local ones are checked first for a clear message.
    """
    text = str(data)
    fmt = data_format(text)
    matches = local_matches(text)
    reader = spark.read
    if fmt == "csv":  # (a file that does not decode is refused here, in privcheck's words)
        from privcheck.io import current_encoding, encoding_for, is_utf8, sniff_delimiter

        encoding = encoding_for(matches[0]) if matches else current_encoding()
        sep = sniff_delimiter(matches[0], encoding) if matches else ","
    try:
        if fmt == "csv":
            return (
                reader.option("header", "true")
                .option("sep", sep)
                .option("inferSchema", "false")
                .option("encoding", "UTF-8" if is_utf8(encoding) else encoding)
                .csv(text)
            )
        return reader.parquet(text)
    except Exception as exc:  # AnalysisException and friends: one line, exit code 2
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataError(f"spark cannot read {text}: {first}") from None


def open_frame(data: str | Path, engine: str = "pandas", spark_master: str = "local[*]") -> Any:
    """The data at ``data`` as a frame of ``engine`` (pandas, polars, duckdb or spark)."""
    text = str(data)
    if engine not in ENGINES:
        raise PolicyError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    if engine == "pandas":
        from privcheck.io import read_table

        return read_table(data)
    if engine == "spark":
        from privcheck.engines.spark_engine import get_spark

        local_matches(text)  # a wrong path fails before a JVM starts
        return read_spark(get_spark(spark_master), text)
    matches = local_matches(text)
    fmt = data_format(text)
    sep = ","
    if fmt == "csv":
        from privcheck.io import current_encoding, encoding_for, is_utf8, sniff_delimiter

        encoding = encoding_for(matches[0]) if matches else current_encoding()
        if not is_utf8(encoding):  # (polars reads UTF-8 only; DuckDB few others, no cp1252)
            raise DataError(
                f"--engine {engine} reads UTF-8 CSV files only, not {encoding}; use --engine "
                f"pandas or spark, or save the file as UTF-8 (iconv -f {encoding} -t utf-8)"
            )
        if matches:
            sep = sniff_delimiter(matches[0])
    target = _scan_target(text)
    try:
        if engine == "polars":
            import polars as pl

            if fmt == "csv":
                return pl.scan_csv(target, separator=sep, infer_schema=False)
            return pl.scan_parquet(target)
        import duckdb

        if fmt == "csv":
            return duckdb.read_csv(target, header=True, sep=sep, all_varchar=True)
        return duckdb.read_parquet(target)
    except ImportError:
        raise DataError(
            f"--engine {engine} needs the {engine} package: pip install {engine}"
        ) from None
    except Exception as exc:  # the engine's own read errors: one line, exit code 2
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataError(f"{engine} cannot read {text}: {first}") from None
