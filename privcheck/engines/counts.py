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

from typing import TYPE_CHECKING, Any

import numpy as np

from privcheck.engines.schema import (
    SOURCE_COLUMNS,
    WEIGHT,
    is_engine_frame,
    key_columns,
    max_groups_limit,
)
from privcheck.errors import DataError
from privcheck.policy import Policy

if TYPE_CHECKING:
    import pandas as pd


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


def checked_counts(
    frame: Any, policy: Policy, *, max_groups: int | None = None
) -> tuple[pd.DataFrame, Policy, list[str], str | None]:
    """What a check of an engine ``frame`` reads: its aggregated counts (``aggregate``), the
    policy it is checked under (counted in records when the frame lacks the individual column,
    ``checker.individual_absent``), the policy's identifier columns the frame holds, and the
    note on a missing individual column (or None)."""
    from privcheck.checker import individual_absent, present_identifiers

    policy, absent_note = individual_absent(engine_columns(frame), policy)
    agg = aggregate(frame, policy, max_groups=max_groups)
    identifiers = present_identifiers(agg.attrs.get(SOURCE_COLUMNS, ()), policy)
    return agg, policy, identifiers, absent_note
