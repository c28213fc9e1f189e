"""Writing a release where it was made: a Spark release as a folder of Parquet parts, atomically.

Spark writes one part file per partition, so its output is a directory. It is written to a
temporary directory next to the target and renamed into place only once Spark has finished, so
a failed or interrupted job never leaves a half-written release under the target's name; an
existing target is replaced only after the new one is complete.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from privcheck.errors import DataError


def write_spark_parquet(frame: Any, path: str | Path) -> Path:
    """Write a Spark DataFrame as a Parquet directory at ``path``, all or nothing."""
    from privcheck.io import write_atomic

    path = Path(path)
    if path.exists() and not path.is_dir():
        raise DataError(f"{path} is a file; a Spark release is a directory of Parquet parts")
    return write_atomic(path, lambda tmp: frame.write.parquet(str(tmp)), directory=True)


def write_release(release: Any, path: str | Path) -> Path:
    """A pandas release to a CSV/Parquet file, a Spark release to a Parquet directory."""
    if isinstance(release, pd.DataFrame):
        from privcheck.io import write_table

        return write_table(release, path)
    return write_spark_parquet(release, path)
