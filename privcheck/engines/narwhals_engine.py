"""The check's group-by run inside any engine narwhals speaks: polars, pyarrow, DuckDB, PySpark.

One formulation for every backend, without joins: ``group_by(QIs + sensitive, drop_null_keys=
False).agg(len)``. Null keys stay a group of their own on every backend (narwhals' default would
drop them, and a dropped null would silently overstate k), so ``missing: own_class`` and
``missing: error`` see exactly what pandas sees.

Only the aggregated frame is collected, and at most ``limit + 1`` rows of it: if the engine has
more groups than the limit the check stops with a message naming the limit, before the driver
is asked to hold a class table it may not fit.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from privcheck.engines.schema import SOURCE_COLUMNS, WEIGHT, check_columns, engine_of, key_columns
from privcheck.errors import DataError
from privcheck.policy import Policy


def _narwhals():
    try:
        import narwhals.stable.v2 as nw
    except ImportError:  # pragma: no cover - narwhals ships with the engines extra
        raise DataError(
            "checking a non-pandas frame needs narwhals: pip install narwhals"
        ) from None
    return nw


def to_narwhals(frame: Any):
    """``frame`` as a narwhals DataFrame/LazyFrame, or a DataError naming what is accepted."""
    nw = _narwhals()
    try:
        return nw.from_native(frame, allow_series=False)
    except TypeError:
        raise DataError(
            f"cannot check a {type(frame).__module__}.{type(frame).__name__}: pass a pandas, "
            "polars (eager or lazy), pyarrow, DuckDB or PySpark frame, or a file path"
        ) from None


def _engine_error(frame: Any, exc: Exception) -> DataError:
    """An engine's exception as one line naming the engine (the CLI's exit code 2)."""
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return DataError(f"the {engine_of(frame)} engine failed: {first}")


def group_counts(frame: Any, policy: Policy, limit: int) -> pd.DataFrame:
    """Record counts per distinct key combination, computed in the engine, as pandas.

    ``limit`` (0: none) caps the groups brought back; more groups raise a DataError.
    """
    nw = _narwhals()
    nf = to_narwhals(frame)
    try:
        names = list(nf.collect_schema().names())
    except Exception as exc:  # a lazy scan reads the file's footer here
        raise _engine_error(frame, exc) from exc
    check_columns(names, policy)
    keys = key_columns(policy)
    # group under plain positional names: Spark reads "a.b" as a struct field, and a data
    # column could be called like anything; the real names come back on the small result
    safe = {name: f"_privcheck_k{i}" for i, name in enumerate(keys)}
    try:
        if keys:
            if nf.implementation.is_pyspark():  # narwhals does not quote Spark column names
                from privcheck.engines.spark_engine import select_renamed

                nf = to_narwhals(select_renamed(nw.to_native(nf), safe))
            else:
                nf = nf.select(*(nw.col(k).alias(v) for k, v in safe.items()))
            agg = nf.group_by(list(safe.values()), drop_null_keys=False).agg(nw.len().alias(WEIGHT))
        else:
            agg = nf.select(nw.len().alias(WEIGHT))
        if limit:
            agg = agg.head(limit + 1)
        if isinstance(agg, nw.LazyFrame):
            agg = agg.collect()
        # through Arrow for every backend: one conversion of types (a date stays a date;
        # polars' own to_pandas would turn it into a timestamp and change its label)
        out = agg.to_arrow().to_pandas()
    except Exception as exc:  # the engine's own failure (unreadable file, lost executor …)
        raise _engine_error(frame, exc) from exc
    out.columns = [*keys, WEIGHT]
    out.attrs[SOURCE_COLUMNS] = names
    if limit and len(out) > limit:
        raise DataError(
            f"the {engine_of(frame)} frame has more than {limit:,} distinct combinations of "
            f"{', '.join(keys)}: its class table is too large to bring back for a check "
            "(the limit is max_groups / --max-groups / PRIVCHECK_MAX_GROUPS; raise it if the "
            "driver has the memory, about 1 kB per combination — see docs/scaling.md)"
        )
    return out
