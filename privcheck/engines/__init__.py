"""The engine boundary: where the rows live decides where the one group-by runs.

A check needs the rows only for its first step, the group-by of the quasi-identifiers and the
sensitive attributes. A pandas DataFrame (or a file read into one) takes the in-process numpy
path (``aggregate`` returns None). Any other frame narwhals understands — polars (eager or lazy),
pyarrow, a DuckDB relation, a PySpark DataFrame — runs that group-by inside its own engine and
sends back only the aggregated frame: one row per distinct (quasi-identifiers…, sensitive…)
combination with its record count in the column ``WEIGHT``. That frame then walks the core path
through ``encode(agg, policy, weight_column=WEIGHT)``, so every model gives the same value as on
the rows.

What an aggregated engine cannot give back is the row number of a record: violating classes in a
report from an engine frame list no ``records``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from privcheck.errors import DataError, PolicyError
from privcheck.limits import GROUPS
from privcheck.messages import shown_columns
from privcheck.policy import Policy, Role

if TYPE_CHECKING:
    import pandas as pd

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


def check_missing(agg: pd.DataFrame, policy: Policy) -> None:
    """Raise the same DataError as ``encode`` for missing values, counting records, not groups.

    ``encode`` would count the aggregated rows; the policy's ``missing: error`` is about records,
    so the weights are summed here. Missing means what it means on pandas: null, NaN or a blank
    string. A record number cannot be named (the engine aggregated them away).
    """
    import pandas as pd

    if policy.missing != "error" or agg.empty:
        return
    weights = agg[WEIGHT].to_numpy()
    for name in policy.quasi_identifiers + policy.sensitive_attributes:
        # the same test as encoding: NA codes, plus uniques that are blank strings
        codes, uniques = pd.factorize(agg[name], use_na_sentinel=True)
        blank_value = np.array(
            [isinstance(u, str) and not u.strip() for u in np.asarray(uniques, dtype=object)],
            dtype=bool,
        )
        blank = (codes < 0) | np.append(blank_value, False)[codes]
        if blank.any():
            n_missing = int(weights[blank].sum())
            raise DataError(
                f"column {name!r} has {n_missing} missing value(s); fill them, or set "
                "'missing: own_class' in the policy to make them a class of their own"
            )


def check_policy(policy: Policy) -> Policy:
    """The policy restricted to the columns an aggregated frame carries.

    Identifiers and insensitive columns are validated on the engine's schema but do not enter
    the group-by, so ``encode`` must not look for them in the aggregated frame.
    """
    keep = {Role.quasi_identifier, Role.sensitive}
    attributes = {n: a for n, a in policy.attributes.items() if a.role in keep}
    return policy.model_copy(update={"attributes": attributes})


def sort_groups(agg: pd.DataFrame, policy: Policy) -> pd.DataFrame:
    """Put the groups in value order so that a report does not depend on the engine's output
    order (Spark's varies between runs): ties between violating classes list in value order."""
    import pandas as pd

    cols = key_columns(policy)
    if not cols or len(agg) < 2:
        return agg.reset_index(drop=True)
    codes = []
    for name in reversed(cols):  # lexsort: last key is primary
        try:
            c, _ = pd.factorize(agg[name], sort=True, use_na_sentinel=True)
        except TypeError:  # values that do not compare (mixed types): by their text
            c, _ = pd.factorize(agg[name].astype(str).where(agg[name].notna()), sort=True)
        codes.append(np.where(c < 0, np.iinfo(np.int64).max, c))
    order = np.lexsort(codes)
    return agg.iloc[order].reset_index(drop=True)


def engine_columns(frame: Any) -> list[str]:
    """The column names of an engine frame (Spark, polars eager or lazy, pyarrow, DuckDB),
    read from its schema: no job runs."""
    from privcheck.engines.narwhals_engine import _engine_error, to_narwhals

    nf = to_narwhals(frame)
    try:  # (a lazy frame reads its schema here: an unreadable file fails now)
        return [str(c) for c in nf.columns]
    except Exception as exc:  # an engine's own error (polars ComputeError, DuckDB IOException)
        raise _engine_error(frame, exc) from None


def is_engine_frame(data: Any) -> bool:
    """Whether ``data`` is a frame of an engine (anything but pandas, a path or a string)."""
    if isinstance(data, str | Path):
        return False
    pandas = sys.modules.get("pandas")  # (a DataFrame means pandas is loaded: no import here)
    return pandas is None or not isinstance(data, pandas.DataFrame)


def aggregate(frame: Any, policy: Policy, *, max_groups: int | None = None) -> pd.DataFrame | None:
    """The aggregated frame of an engine ``frame``, or None for pandas/paths (the numpy path).

    The result has one row per distinct combination of ``key_columns(policy)`` (null keys kept
    as their own group) and the record count in ``WEIGHT``, in value order. Raises DataError
    for an absent column, a missing value under ``missing: error``, or more than ``max_groups``
    groups (the class table would not fit on the driver).
    """
    if not is_engine_frame(frame):
        return None
    from privcheck.engines.narwhals_engine import group_counts
    from privcheck.nested import refuse_nested, refuse_nested_schema

    refuse_nested_schema(frame, policy)  # (a list column would be grouped as lists)
    agg = group_counts(frame, policy, max_groups_limit(max_groups))
    refuse_nested(agg, policy)  # (an engine whose schema narwhals could not read)
    check_missing(agg, policy)
    columns = agg.attrs.get(SOURCE_COLUMNS, [])
    out = sort_groups(agg, policy)
    out.attrs[SOURCE_COLUMNS] = columns
    return out


def engine_of(frame: Any) -> str:
    """A short name of the engine holding ``frame`` (for report sources and messages)."""
    if not is_engine_frame(frame):
        return "pandas"
    module = type(frame).__module__.split(".")[0]
    return {"pyspark": "spark", "_duckdb": "duckdb", "pyarrow": "pyarrow"}.get(module, module)
