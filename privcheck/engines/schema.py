"""What every engine agrees on before a job runs: the group-by keys of a check, the columns the
policy needs, the record-count column of an aggregated frame, the engine a frame belongs to."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from privcheck.errors import DataError, PolicyError
from privcheck.limits import GROUPS
from privcheck.messages import shown_columns
from privcheck.policy import Policy, Role

#: the record-count column of an aggregated frame (the keys are grouped under positional names,
#: so it cannot meet a data column's name)
WEIGHT = "__privcheck_records__"

#: ``attrs`` key of an aggregated frame: the engine frame's own column names (a check reports
#: identifier columns the data still holds)
SOURCE_COLUMNS = "privcheck_source_columns"

#: the most distinct (quasi-identifier…, sensitive…) combinations a check brings back to the
#: driver; override with ``max_groups=`` or the PRIVCHECK_MAX_GROUPS environment variable
#: (``privcheck.limits.GROUPS``)
DEFAULT_MAX_GROUPS = GROUPS.default

ENGINES = ("pandas", "polars", "duckdb", "spark")


def max_groups_limit(max_groups: int | None = None) -> int:
    """The group limit in force: the argument, else $PRIVCHECK_MAX_GROUPS, else the default
    (``privcheck.limits.GROUPS``).

    0 means no limit.
    """
    if max_groups is None:
        return GROUPS.value()
    if max_groups < 0:
        raise PolicyError(f"max_groups must be >= 0 (0: no limit); got {max_groups}")
    return max_groups


def key_columns(policy: Policy) -> list[str]:
    """The group-by keys of a check: quasi-identifiers, then sensitive attributes, then the
    individual column when the policy counts people (each group is then one person's records
    with the same values, and the check counts distinct people from the groups)."""
    keys = policy.quasi_identifiers + policy.sensitive_attributes
    if policy.individual is not None:
        keys.append(policy.individual)
    return keys


def check_columns(names: list[str], policy: Policy) -> None:
    """Raise the same DataError as ``encode`` when a policy column is absent from the data.

    Runs on the engine's schema, before any job, so a typo costs no scan of the data.
    """
    present = set(names)
    # an identifier absent from the data is what a release looks like (see checker)
    absent = [
        c
        for c, a in policy.attributes.items()
        if c not in present and a.role is not Role.identifier
    ]
    if absent:
        have = shown_columns(names, most=12)
        raise DataError(
            f"column {absent[0]!r} named in the policy is missing from the data "
            f"(columns: {have}); fix the policy or the data"
        )
    if policy.individual is not None and policy.individual not in present:
        from privcheck.encoding import missing_individual

        raise missing_individual(policy.individual, names)


def is_engine_frame(data: Any) -> bool:
    """Whether ``data`` is a frame of an engine (anything but pandas, a path or a string)."""
    if isinstance(data, str | Path):
        return False
    pandas = sys.modules.get("pandas")  # (a DataFrame means pandas is loaded: no import here)
    return pandas is None or not isinstance(data, pandas.DataFrame)


def engine_of(frame: Any) -> str:
    """A short name of the engine holding ``frame`` (for report sources and messages)."""
    if not is_engine_frame(frame):
        return "pandas"
    module = type(frame).__module__.split(".")[0]
    return {"pyspark": "spark", "_duckdb": "duckdb", "pyarrow": "pyarrow"}.get(module, module)
