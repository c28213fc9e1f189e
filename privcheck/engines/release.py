"""Writing a plan's release in Spark: its mapping (``privcheck.engines.mapping``) joined back.

The driver decided the release on the class table; here Spark applies it to the rows, which
never leave the executors:

- a ``NodeMapping`` (full-domain generalization): each quasi-identifier is mapped to its level's
  labels through a small mapping (a literal ``map`` expression, or a broadcast, null-safe join
  for more than 4,096 values), and the classes that violate the policy at the node are dropped —
  or written as ``*`` with ``suppressed_records: star`` — by a broadcast join on their
  generalized keys (``spark_release``);
- a ``CombinationMapping`` (Mondrian, local suppression): one broadcast, null-safe join of the
  rows with the groups (one row per distinct key combination). A group released as one unit
  takes its released values from that join. The records of a group released as several units
  (relaxed Mondrian dividing a combination, local suppression blanking some of its records) are
  numbered by ``row_number()`` over a window partitioned by the group, ordered by
  ``monotonically_increasing_id()`` — Spark's read order, which for one file is the file's
  order, the order the pandas path ranks them in — and joined with their unit on
  (group, start ≤ rank < stop). Only those rows are shuffled for the ranking; the two parts
  are united (``combination_release``).

Identifiers and columns the policy does not list are dropped; the release is a lazy Spark
DataFrame, not shuffled (Spark has no row order to hide).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from privcheck.engines.mapping import (
    GROUP,
    RAW,
    START,
    STOP,
    WRITTEN,
    CombinationMapping,
    NodeMapping,
)
from privcheck.plan import SUPPRESSED, removed_columns
from privcheck.policy import Policy

#: helper columns of the joins (cannot meet a data column's name)
_ID = "__privcheck_id"
_RANK = "__privcheck_rank"
_MULTI = "__privcheck_multi"
_UNIT_GROUP = "__privcheck_unit_group"
CHANGED = "__privcheck_changed"
#: mappings up to this many values become a literal map expression (no join at all); larger
#: ones a broadcast join
_LITERAL_MAP = 4096
#: a groups frame up to this many rows is broadcast to every executor (else Spark decides)
_BROADCAST_ROWS = 2_000_000


def quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def python_values(values: pd.Series | np.ndarray, spark_type: Any) -> list:
    """Values as Python objects Spark accepts for ``spark_type`` (nulls, NaN included, as
    None)."""
    from pyspark.sql import types as T

    integral = isinstance(spark_type, T.IntegralType)
    out = []
    for v in pd.Series(values, dtype=object).tolist():
        if v is None or (not isinstance(v, str) and pd.isna(v)):
            out.append(None)
        elif integral:
            out.append(int(v))
        elif isinstance(spark_type, T.FractionalType):
            out.append(float(v))
        elif isinstance(v, pd.Timestamp):
            out.append(v.to_pydatetime())
        else:
            out.append(v)
    return out


def _small_frame(spark: Any, columns: dict[str, tuple[list, Any]]) -> Any:
    """A Spark DataFrame of a few columns given as (Python values, Spark type)."""
    from pyspark.sql import types as T

    schema = T.StructType([T.StructField(name, t) for name, (_, t) in columns.items()])
    rows = list(zip(*(values for values, _ in columns.values()), strict=True))
    return spark.createDataFrame(rows, schema)


def _missing_as_null(column: Any, spark_type: Any) -> Any:
    """A key as the class table reads it: a floating-point NaN is missing, like null."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    if isinstance(spark_type, T.FractionalType):
        return F.when(F.isnan(column), F.lit(None)).otherwise(column)
    return column


def literal_mapping(
    source_type: Any, name: str, values: pd.Series, targets: pd.Series, target_type=None
):
    """The column ``name`` (of ``source_type``) looked up in a literal map of ``values`` →
    ``targets`` (nulls included; ``target_type`` defaults to the column's own type), or None
    when there are too many values for one (``map_column`` joins instead). Building it costs a
    few calls into the JVM per value: a caller mapping the same column the same way again
    keeps the expression."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    if len(values) > _LITERAL_MAP:
        return None
    target_type = target_type or source_type
    keys, outs = python_values(values, source_type), python_values(targets, target_type)
    null_target = [t for k, t in zip(keys, outs, strict=True) if k is None]
    pairs = [
        part
        for k, t in zip(keys, outs, strict=True)
        if k is not None
        for part in (F.lit(k).cast(source_type), F.lit(t).cast(target_type))
    ]
    source = F.col(quoted(name))
    mapped = F.create_map(*pairs)[source] if pairs else F.lit(None).cast(target_type)
    if null_target:
        # missing is null or NaN, as on pandas (Spark keeps the two apart)
        missing = source.isNull()
        if isinstance(source_type, T.FractionalType):
            missing = missing | F.isnan(source)
        mapped = F.when(missing, F.lit(null_target[0]).cast(target_type)).otherwise(mapped)
    return mapped


def map_column(
    frame, name: str, values: pd.Series, targets: pd.Series, target_type=None, *, literal=None
):
    """``frame`` with column ``name`` replaced by ``targets`` looked up by ``values`` (nulls
    included; ``target_type`` defaults to the column's own type): a literal map for small
    mappings (``literal``: the one ``literal_mapping`` gave for them), else a small broadcast,
    null-safe join."""
    from pyspark.sql import functions as F

    source_type = frame.schema[name].dataType
    columns = frame.columns
    if literal is None:
        literal = literal_mapping(source_type, name, values, targets, target_type)
    if literal is not None:
        return frame.select(*(literal.alias(c) if c == name else F.col(quoted(c)) for c in columns))
    target_type = target_type or source_type
    keys, outs = python_values(values, source_type), python_values(targets, target_type)
    v, t = "__privcheck_from", "__privcheck_to"
    mapping = _small_frame(frame.sparkSession, {v: (keys, source_type), t: (outs, target_type)})
    key = _missing_as_null(F.col(quoted(name)), source_type)
    joined = frame.join(F.broadcast(mapping), key.eqNullSafe(F.col(v)), "left")
    return joined.select(*(F.col(t).alias(c) if c == name else F.col(quoted(c)) for c in columns))


def apply_mapping(frame: Any, policy: Policy, mapping: NodeMapping | CombinationMapping):
    """The release of ``frame`` (Spark) under a plan's ``mapping``, the rows its re-check reads,
    and (``CombinationMapping.count_changed``) a frame with the changed cells of every row in
    ``CHANGED``, else None."""
    if isinstance(mapping, NodeMapping):
        release, kept = spark_release(frame, policy, mapping)
        return release, kept, None
    return combination_release(frame, policy, mapping)


def spark_release(frame: Any, policy: Policy, mapping: NodeMapping) -> tuple[Any, Any]:
    """The release of ``frame`` (Spark) at a full-domain node and its kept rows (what the
    re-check groups)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    drop = set(removed_columns(frame.columns, policy))
    columns = [c for c in frame.columns if c not in drop]
    out = frame.select(*(F.col(quoted(c)) for c in columns))
    for name, (values, targets) in mapping.labels.items():
        out = map_column(out, name, values, targets, T.StringType())
    qis = list(mapping.labels)
    n_bad = len(next(iter(mapping.violating.values()))) if mapping.violating else 0
    if n_bad == 0:
        return out, out
    keys = {f"__privcheck_s{j}": mapping.violating[q] for j, q in enumerate(qis)}
    schema = T.StructType([T.StructField(k, T.StringType()) for k in keys])
    rows = [tuple(r) for r in zip(*(v.tolist() for v in keys.values()), strict=True)]
    violating = frame.sparkSession.createDataFrame(rows, schema=schema)
    on = [F.col(quoted(q)) == F.col(s) for q, s in zip(qis, keys, strict=True)]
    kept = out.join(F.broadcast(violating), on, "left_anti")
    if policy.suppressed_records != "star":
        return kept, kept
    flagged = out.join(
        F.broadcast(violating.withColumn("__privcheck_sup", F.lit(True))), on, "left"
    )
    starred = flagged.select(
        *(
            F.when(F.col("__privcheck_sup").isNotNull(), F.lit(SUPPRESSED))
            .otherwise(F.col(quoted(c)))
            .alias(c)
            if c in qis
            else F.col(quoted(c))
            for c in columns
        )
    )
    return starred, kept


def combination_release(
    frame: Any, policy: Policy, mapping: CombinationMapping
) -> tuple[Any, Any, Any]:
    """The release of ``frame`` (Spark) under a ``CombinationMapping`` (see the module
    docstring): (release, the same frame for the re-check, the rows with ``CHANGED`` or
    None)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    spark = frame.sparkSession
    types = {f.name: f.dataType for f in frame.schema.fields}
    drop = set(removed_columns(frame.columns, policy))
    columns = [c for c in frame.columns if c not in drop]
    units = mapping.units
    ranked = mapping.ranked
    counted = mapping.count_changed
    # a released column is text, unless the release leaves its ground values (then typed as
    # the source column, as the pandas release keeps a column of numbers numeric)
    out_type = {
        q: T.StringType() if all(isinstance(v, str) for v in units[q]) else types[q]
        for q in mapping.qis
    }
    released = {q: f"__privcheck_r{j}" for j, q in enumerate(mapping.qis)}
    key_names = {k: f"__privcheck_k{i}" for i, k in enumerate(mapping.keys)}

    n_units = units.groupby(GROUP, sort=False).size()
    multi_groups = set(n_units.index[n_units.to_numpy() > 1].tolist())
    groups = mapping.groups
    is_multi = groups[GROUP].isin(multi_groups).to_numpy()
    # the values of single-unit groups go into the groups frame itself: one join for them
    single = units[~units[GROUP].isin(multi_groups)].set_index(GROUP)
    at = single.reindex(groups[GROUP])
    gcols: dict[str, tuple[list, Any]] = {
        name: (python_values(groups[k], types[k]), types[k]) for k, name in key_names.items()
    }
    gcols[GROUP] = (groups[GROUP].astype(np.int64).tolist(), T.LongType())
    gcols[_MULTI] = (is_multi.tolist(), T.BooleanType())
    for q, name in released.items():
        gcols[name] = (python_values(at[q], out_type[q]), out_type[q])
    raw = {q: f"__privcheck_raw{j}" for j, q in enumerate(mapping.qis)}
    written = {q: f"__privcheck_w{j}" for j, q in enumerate(mapping.qis)}
    unit_written = {q: f"__privcheck_uw{j}" for j, q in enumerate(mapping.qis)}
    if counted:  # the strings the pandas release compares, made here
        for q in mapping.qis:
            gcols[raw[q]] = (groups[RAW + q].astype(object).tolist(), T.StringType())
            gcols[written[q]] = (python_values(at[WRITTEN + q], T.StringType()), T.StringType())
    gframe = _small_frame(spark, gcols)
    if len(groups) <= _BROADCAST_ROWS:
        gframe = F.broadcast(gframe)

    source = frame.select(*(F.col(quoted(c)) for c in columns))
    if ranked:
        source = source.withColumn(_ID, F.monotonically_increasing_id())
    on = [
        _missing_as_null(F.col(quoted(k)), types[k]).eqNullSafe(F.col(name))
        for k, name in key_names.items()
    ]
    joined = source.join(gframe, on, "inner") if on else source.crossJoin(gframe)

    def select(part: Any, values: dict[str, str], strings: dict[str, str]) -> Any:
        cols = [F.col(values[c]).alias(c) if c in values else F.col(quoted(c)) for c in columns]
        if not counted:
            return part.select(*cols)
        changed = sum((F.col(raw[q]) != F.col(strings[q])).cast("long") for q in mapping.qis)
        return part.select(*cols, (F.lit(0).cast("long") + changed).alias(CHANGED))

    out = select(joined.where(~F.col(_MULTI)), released, written)
    if ranked:
        ucols: dict[str, tuple[list, Any]] = {}
        multi = units[units[GROUP].isin(multi_groups)]
        ucols[_UNIT_GROUP] = (multi[GROUP].astype(np.int64).tolist(), T.LongType())
        ucols[START] = (multi[START].astype(np.int64).tolist(), T.LongType())
        ucols[STOP] = (multi[STOP].astype(np.int64).tolist(), T.LongType())
        unit_names = {q: f"__privcheck_u{j}" for j, q in enumerate(mapping.qis)}
        for q, name in unit_names.items():
            ucols[name] = (python_values(multi[q], out_type[q]), out_type[q])
        if counted:
            for q in mapping.qis:
                ucols[unit_written[q]] = (multi[WRITTEN + q].astype(object).tolist(),
                                          T.StringType())  # fmt: skip
        uframe = F.broadcast(_small_frame(spark, ucols))
        window = Window.partitionBy(F.col(GROUP)).orderBy(F.col(_ID))
        numbered = joined.where(F.col(_MULTI)).withColumn(
            _RANK, F.row_number().over(window) - F.lit(1)
        )
        taken = numbered.join(
            uframe,
            (F.col(GROUP) == F.col(_UNIT_GROUP))
            & (F.col(_RANK) >= F.col(START))
            & (F.col(_RANK) < F.col(STOP)),
            "inner",
        )
        out = out.unionByName(select(taken, unit_names, unit_written))
    if counted:
        release = out.select(*(F.col(quoted(c)) for c in columns))
        return release, release, out
    return out, out, None
