"""Generalization anonymizers on an engine frame: search on the driver, release in the engine.

The search needs only the class table, so the engine sends back its group-by counts (as for a
check) and the usual search runs on them. The chosen node is then applied where the rows live:
each quasi-identifier is mapped to its level's labels through a small broadcast mapping frame
(one row per distinct value, joined null-safely), the classes that violate the policy at that
node are dropped (or starred) by a broadcast join on their generalized keys, identifiers are
dropped, and the release — a Spark DataFrame — is checked again through the engine before it is
returned.

Spark has no row order to hide, so the release is not shuffled (``seed``/``keep_order`` do not
apply). polars and DuckDB frames run in this process anyway: they are collected to pandas and
take the in-process path (their release is a pandas DataFrame).

When the ground class table has more combinations than ``max_groups``, the rows are generalized
inside Spark first: every value is replaced by a representative ground value of its group at a
start node (raising, one level at a time, the quasi-identifier with the most distinct values),
until the class table fits; the search then runs on the lattice above the start node, which is
reported as ``parameters["start_node"]``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from privcheck.anonymizers.base import Choice, GeneralizationAnonymizer
from privcheck.anonymizers.release import SUPPRESSED, release_policy, removed_columns
from privcheck.anonymizers.risk_profile import attach_risk, ground_classes
from privcheck.encoding import EncodedTable, encode, encode_column
from privcheck.engines import WEIGHT, aggregate, check_columns, check_policy, engine_of
from privcheck.errors import DataError, PolicyError
from privcheck.policy import Policy
from privcheck.report import AnonymizationReport, Report

_TOO_MANY = "too large to bring back"


def is_spark(frame: Any) -> bool:
    return engine_of(frame) == "spark"


def to_pandas(frame: Any) -> pd.DataFrame:
    """An in-process engine frame (polars eager/lazy, pyarrow, DuckDB) as pandas, via Arrow."""
    from privcheck.engines.narwhals_engine import to_narwhals

    nf = to_narwhals(frame)
    if hasattr(nf, "collect"):
        nf = nf.collect()
    return nf.to_arrow().to_pandas()


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _python(values: pd.Series, spark_type: Any) -> list:
    """Values as Python objects Spark accepts for ``spark_type`` (nulls as None)."""
    from pyspark.sql import types as T

    integral = isinstance(spark_type, T.IntegralType)
    out = []
    for v in values.astype(object).tolist():
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


#: mappings up to this many values become a literal map expression (no join at all); larger
#: ones a broadcast join
_LITERAL_MAP = 4096


def map_column(frame: Any, name: str, values: pd.Series, targets: pd.Series, target_type=None):
    """``frame`` with column ``name`` replaced by ``targets`` looked up by ``values`` (nulls
    included; ``target_type`` defaults to the column's own type): a literal map for small
    mappings, else a small broadcast, null-safe join."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    source_type = frame.schema[name].dataType
    target_type = target_type or source_type
    keys, outs = _python(values, source_type), _python(targets, target_type)
    columns = frame.columns
    if len(keys) <= _LITERAL_MAP:
        null_target = [t for k, t in zip(keys, outs, strict=True) if k is None]
        pairs = [
            part
            for k, t in zip(keys, outs, strict=True)
            if k is not None
            for part in (F.lit(k).cast(source_type), F.lit(t).cast(target_type))
        ]
        source = F.col(_quoted(name))
        mapped = F.create_map(*pairs)[source] if pairs else F.lit(None).cast(target_type)
        if null_target:
            # missing is null or NaN, as on pandas (Spark keeps the two apart)
            missing = source.isNull()
            if isinstance(source_type, T.FractionalType):
                missing = missing | F.isnan(source)
            mapped = F.when(missing, F.lit(null_target[0]).cast(target_type)).otherwise(mapped)
        return frame.select(*(mapped.alias(c) if c == name else F.col(_quoted(c)) for c in columns))
    v, t = "__privcheck_from", "__privcheck_to"
    schema = T.StructType([T.StructField(v, source_type), T.StructField(t, target_type)])
    mapping = frame.sparkSession.createDataFrame(list(zip(keys, outs, strict=True)), schema)
    key = F.col(_quoted(name))
    if isinstance(source_type, T.FractionalType):  # NaN is missing, like null
        key = F.when(F.isnan(key), F.lit(None)).otherwise(key)
    joined = frame.join(F.broadcast(mapping), key.eqNullSafe(F.col(v)), "left")
    return joined.select(*(F.col(t).alias(c) if c == name else F.col(_quoted(c)) for c in columns))


def level_labels(agg: pd.DataFrame, encoded: EncodedTable, node: Sequence[int]) -> dict:
    """Per quasi-identifier: its distinct values in ``agg`` and their labels at ``node``."""
    out = {}
    for col, level in zip(encoded.quasi_identifiers, node, strict=True):
        labels = np.asarray(col.levels.labels[level], dtype=object)[col.codes_at(level)]
        pairs = pd.DataFrame({"v": agg[col.name].to_numpy(), "l": labels}).drop_duplicates("v")
        out[col.name] = (pairs["v"], pairs["l"].astype(str))
    return out


def spark_release(
    frame: Any,
    policy: Policy,
    encoded: EncodedTable,
    labels: dict,
    choice_table: Any,
    kept_classes: np.ndarray,
) -> tuple[Any, Any]:
    """The release of ``frame`` (Spark) and its kept rows (what the re-check groups)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    drop = set(removed_columns(frame, policy))
    columns = [c for c in frame.columns if c not in drop]
    out = frame.select(*(F.col(_quoted(c)) for c in columns))
    for name, (values, targets) in labels.items():
        out = map_column(out, name, values, targets, T.StringType())
    qis = encoded.qi_names
    bad = np.flatnonzero(~kept_classes)
    if len(bad) == 0:
        return out, out
    keys = {
        f"__privcheck_s{j}": np.asarray(col.levels.labels[choice_table.node[j]], dtype=object)[
            choice_table.keys[bad, j]
        ].astype(str)
        for j, col in enumerate(encoded.quasi_identifiers)
    }
    schema = T.StructType([T.StructField(k, T.StringType()) for k in keys])
    rows = [tuple(r) for r in zip(*(v.tolist() for v in keys.values()), strict=True)]
    violating = frame.sparkSession.createDataFrame(rows, schema=schema)
    on = [F.col(_quoted(q)) == F.col(s) for q, s in zip(qis, keys, strict=True)]
    kept = out.join(F.broadcast(violating), on, "left_anti")
    if policy.suppressed_records != "star":
        return kept, kept
    flagged = out.join(
        F.broadcast(violating.withColumn("__privcheck_sup", F.lit(True))), on, "left"
    )
    starred = flagged.select(
        *(
            F.when(F.col("__privcheck_sup").isNotNull(), F.lit(SUPPRESSED))
            .otherwise(F.col(_quoted(c)))
            .alias(c)
            if c in qis
            else F.col(_quoted(c))
            for c in columns
        )
    )
    return starred, kept


def engine_recheck(kept: Any, policy: Policy, *, must_pass: bool = True) -> Report:
    """Check a release's kept rows through the engine; a failure is a bug (``must_pass``)."""
    from privcheck.checker import check

    report = check(kept, release_policy(policy), details=False, max_groups=0, allow_empty=True)
    report.source = "release"
    if must_pass and not report.passed:
        failing = ", ".join(m.model for m in report.models if not m.passed)
        raise RuntimeError(
            f"the release fails {failing} when checked in the engine; this is a bug in the "
            "anonymizer"
        )
    return report


# ---------------------------------------------------------------------- generalize first
def _one_column_policy(policy: Policy, name: str) -> Policy:
    return policy.model_copy(update={"attributes": {name: policy.attributes[name]}})


def generalize_first(frame: Any, policy: Policy, max_groups: int) -> tuple[Any, tuple[int, ...]]:
    """``frame`` with each quasi-identifier replaced by a representative ground value of its
    group at the lowest start node (raising the attribute with most distinct values) whose
    class table has at most ``max_groups`` combinations."""
    qis = policy.quasi_identifiers
    distinct = {}
    for q in qis:  # one small group-by per attribute: its distinct values
        sub = _one_column_policy(policy, q)
        values = aggregate(frame, sub, max_groups=max_groups)[q]
        col = encode_column(values, q, policy.attributes[q], policy)
        distinct[q] = (values, col)
    node = [0] * len(qis)
    while True:
        width = [
            len(np.unique(col.codes_at(level))) if level < col.height else -1
            for (_, col), level in zip(distinct.values(), node, strict=True)
        ]
        j = int(np.argmax(width))
        if width[j] < 0:
            raise DataError(
                f"even fully generalized the frame has more than {max_groups:,} combinations "
                "of its attributes; raise max_groups"
            )
        node[j] += 1
        mapped = frame
        for q, level in zip(qis, node, strict=True):
            if level == 0:
                continue
            values, col = distinct[q]
            codes = col.codes_at(level)
            first = pd.Series(np.arange(len(codes))).groupby(codes).transform("first").to_numpy()
            mapped = map_column(mapped, q, values, values.iloc[first].reset_index(drop=True))
        try:
            agg = aggregate(mapped, policy, max_groups=max_groups)
        except DataError as exc:
            if _TOO_MANY in str(exc):
                continue
            raise
        return mapped, agg, tuple(node)


def class_counts(frame: Any, policy: Policy, max_groups: int | None):
    """The engine's aggregated counts, generalizing first (Spark) when they would not fit."""
    from privcheck.engines import max_groups_limit

    try:
        return frame, aggregate(frame, policy, max_groups=max_groups), None
    except DataError as exc:
        limit = max_groups_limit(max_groups)
        if _TOO_MANY not in str(exc) or not is_spark(frame) or not limit:
            raise
    return generalize_first(frame, policy, limit)


# ---------------------------------------------------------------------- anonymize
def anonymize_engine(
    frame: Any,
    policy: Policy,
    anonymizer: GeneralizationAnonymizer,
    *,
    previous: dict[str, int] | None = None,
    progress: Any = None,
    max_groups: int | None = None,
) -> tuple[Any, AnonymizationReport]:
    """Anonymize a Spark frame with a generalization search (see the module docstring)."""
    started = time.perf_counter()
    if not isinstance(anonymizer, GeneralizationAnonymizer):
        raise PolicyError(
            f"{anonymizer.name} does not run on an engine frame; only the generalization "
            "searches (incognito, mingen, datafly) do — collect the frame to pandas first"
        )
    check_columns(list(frame.columns), policy)
    source, agg, start = class_counts(frame, policy, max_groups)
    encoded = encode(agg, check_policy(policy), weight_column=WEIGHT)
    choice: Choice = anonymizer.choose(
        encoded, policy, previous=previous, progress=progress, lower=start
    )
    labels = level_labels(agg, encoded, choice.node)
    release, kept = spark_release(
        source, policy, encoded, labels, choice.table, choice.kept_classes
    )
    check = engine_recheck(kept, policy)
    n_kept = int(choice.table.sizes[choice.kept_classes].sum())
    report = anonymizer.make_report(
        choice,
        encoded,
        policy,
        check=check,
        n_released_rows=encoded.n_records if policy.suppressed_records == "star" else n_kept,
        removed=removed_columns(frame, policy),
        seed_given=False,
        keep_order=True,
    )
    report.parameters["engine"] = "spark"
    if start is not None:
        report.parameters["start_node"] = dict(zip(encoded.qi_names, start, strict=True))
    # the input's risk needs its ground values: unknown when Spark generalized them first
    before = ground_classes(encoded, policy) if start is None else None
    attach_risk(report, policy, before)
    report.elapsed_seconds = round(time.perf_counter() - started, 4)
    return release, report
