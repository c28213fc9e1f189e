"""What Spark needs beyond narwhals: a session, and selecting columns by their literal names.

The check itself goes through the narwhals engine like every other backend; this module only
starts (or reuses) a SparkSession, in which ``privcheck.engines.readers.read_spark`` opens the
data as the readers of the other engines do. On a cluster (spark-submit, Databricks) a session
already exists and is reused untouched; locally a small session is started with settings that
suit one machine (no web UI, few shuffle partitions, Arrow transfers).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from privcheck.errors import DataError

#: settings of a session privcheck starts itself (never applied to an existing session)
LOCAL_CONF = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "8",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.driver.memory": "2g",
}


def _pyspark():
    try:
        import pyspark  # noqa: F401
        from pyspark.sql import SparkSession
    except ImportError:
        raise DataError(
            "--engine spark needs pyspark (and Java 17): pip install 'pyspark>=4.0,<4.2'"
        ) from None
    return SparkSession


def get_spark(master: str = "local[*]", conf: dict[str, str] | None = None) -> Any:
    """The active SparkSession, or a new one on ``master`` with ``LOCAL_CONF`` (+ ``conf``).

    A session that already runs (a cluster job, a notebook, a test fixture) is returned as it
    is: its master and settings belong to whoever started it.
    """
    spark_session = _pyspark()
    active = spark_session.getActiveSession()
    if active is not None:
        return active
    if shutil.which("java") is None and not _java_home_ok():
        raise DataError(
            "--engine spark needs Java 17 (no 'java' on PATH and no JAVA_HOME); install it, e.g. "
            "apt-get install openjdk-17-jre-headless"
        )
    builder = spark_session.builder.master(master).appName("privcheck")
    for key, value in {**LOCAL_CONF, **(conf or {})}.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def _java_home_ok() -> bool:
    import os

    home = os.environ.get("JAVA_HOME")
    return bool(home) and (Path(home) / "bin" / "java").exists()


def select_renamed(frame: Any, names: dict[str, str]) -> Any:
    """``frame`` reduced to the columns ``names`` maps, renamed; quoted, so that a name with a
    dot or a backtick is a column, not a struct field."""
    from pyspark.sql import functions as F

    def quoted(name: str) -> str:
        return "`" + name.replace("`", "``") + "`"

    return frame.select(*(F.col(quoted(old)).alias(new) for old, new in names.items()))
