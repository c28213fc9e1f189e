"""Engines: where the rows live decides where the group-by runs and where a release is written.

``counts`` is the engine boundary of a check (one group-by, in process or inside polars, pyarrow,
DuckDB or Spark); ``base`` the interface every engine implements for the release path
(``pandas_engine``: in process; ``spark``: the plan's mapping joined back in Spark); ``recheck``
a release checked as ``privcheck check`` reads it. No engine imports an anonymizer.
"""

from privcheck.engines.counts import aggregate, check_missing, engine_columns, sort_groups
from privcheck.engines.schema import (
    DEFAULT_MAX_GROUPS,
    ENGINES,
    SOURCE_COLUMNS,
    WEIGHT,
    check_columns,
    engine_of,
    is_engine_frame,
    key_columns,
    max_groups_limit,
)
from privcheck.policy import aggregated_policy as check_policy

__all__ = [
    "DEFAULT_MAX_GROUPS", "ENGINES", "SOURCE_COLUMNS", "WEIGHT", "aggregate", "check_columns",
    "check_missing", "check_policy", "engine_columns", "engine_of", "is_engine_frame",
    "key_columns", "max_groups_limit", "sort_groups",
]  # fmt: skip
