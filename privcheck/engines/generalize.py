"""Anonymizing on an engine frame (Spark): plan on the driver, release in the engine.

Every algorithm that plans on the class table (``anonymizers.base.Plan``) runs on a Spark frame:
the full-domain searches (incognito, mingen, datafly), Mondrian (strict and relaxed), local
suppression, and ``auto`` over them. Spark sends back its group-by counts (as for a check: one
row per distinct combination of quasi-identifiers and sensitive values, with its count); the
plan runs on them with the same code as in process (the counts are the weights of the same
encoding), so every decision, metric and suppressed record is that of the pandas run. The plan's
*mapping* — what the release shows for each distinct combination (``anonymizers.mapping``) — is
then joined back onto the rows in Spark (``engines.release``), identifiers are dropped, and the
release, a lazy Spark DataFrame, is checked again through the engine before it is returned.

Spark has no row order to hide, so the release is not shuffled (``seed``/``keep_order`` do not
apply). polars and DuckDB frames run in this process anyway: they are collected to pandas and
take the in-process path (their release is a pandas DataFrame, shuffled as usual).

When the ground class table has more combinations than ``max_groups``, the rows are generalized
inside Spark first — for the full-domain searches only (Mondrian and local suppression need the
ground values; ``auto`` then tries only MinGen): every value is replaced by a representative
ground value of its group at a start node (raising, one level at a time, the quasi-identifier
with the most distinct values), until the class table fits; the search then runs on the lattice
above the start node, which is reported as ``parameters["start_node"]``.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pandas as pd

from privcheck.anonymizers.base import (
    Anonymizer,
    EngineRelease,
    GeneralizationAnonymizer,
    Plan,
)
from privcheck.anonymizers.mapping import CombinationMapping, NodeMapping
from privcheck.anonymizers.release import (
    release_policy,
    removed_columns,
    starred_kept_records,
)
from privcheck.encoding import encode, encode_column
from privcheck.engines import WEIGHT, aggregate, check_columns, check_policy, engine_of
from privcheck.engines.release import CHANGED, apply_mapping, map_column
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


def engine_recheck(kept: Any, policy: Policy, *, must_pass: bool = True) -> Report:
    """Check a release's kept rows through the engine; a failure is a bug (``must_pass``)."""
    from privcheck.checker import check

    # (the caller decided whether a draft may run: anonymize and apply gate it)
    report = check(
        kept,
        release_policy(policy),
        details=False,
        max_groups=0,
        allow_empty=True,
        allow_draft=True,
    )
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


def class_counts(frame: Any, policy: Policy, max_groups: int | None, *, generalize: bool = True):
    """The engine's aggregated counts, generalizing first (Spark, ``generalize``) when they
    would not fit."""
    from privcheck.engines import max_groups_limit

    try:
        return frame, aggregate(frame, policy, max_groups=max_groups), None
    except DataError as exc:
        limit = max_groups_limit(max_groups)
        if _TOO_MANY not in str(exc) or not is_spark(frame) or not limit or not generalize:
            raise
    return generalize_first(frame, policy, limit)


# ---------------------------------------------------------------------- anonymize
def anonymize_engine(
    frame: Any,
    policy: Policy,
    anonymizer: Anonymizer,
    *,
    previous: dict[str, int] | None = None,
    progress: Any = None,
    max_groups: int | None = None,
) -> tuple[Any, AnonymizationReport]:
    """Anonymize a Spark frame with any anonymizer whose plans carry a mapping (the
    full-domain searches, Mondrian, local suppression, auto; see the module docstring)."""
    from privcheck.anonymizers.auto import Auto

    started = time.perf_counter()
    if not anonymizer.engine_release:
        raise PolicyError(
            f"{anonymizer.name} needs the rows in process and does not run on an engine frame; "
            "collect the frame to pandas first (the algorithms that run on Spark: auto, "
            "incognito, mingen, datafly, mondrian, local-suppression)"
        )
    check_columns(list(frame.columns), policy)
    full_domain = isinstance(anonymizer, GeneralizationAnonymizer)
    auto = isinstance(anonymizer, Auto)
    try:
        source, agg, start = class_counts(frame, policy, max_groups, generalize=full_domain or auto)
    except DataError as exc:
        if _TOO_MANY not in str(exc) or full_domain or auto:
            raise
        raise DataError(
            f"{exc}; {anonymizer.name} needs the ground class table (Spark generalizes the rows "
            "first only for the full-domain searches and auto)"
        ) from None
    encoded = encode(agg, check_policy(policy), weight_column=WEIGHT)
    removed = removed_columns(frame, policy)

    def write(plan: Plan) -> tuple[Any, AnonymizationReport]:
        return engine_write(source, policy, plan, removed, ground=start is None)

    if auto:
        release, report = anonymizer.run(
            agg,
            policy,
            encoded=encoded,
            write=write,
            previous=previous,
            progress=progress,
            engine=True,
            lower=start,
            started=started,
        )
    else:
        lower = {"lower": start} if full_domain else {}
        plan = anonymizer.plan(
            agg, policy, encoded=encoded, previous=previous, progress=progress, **lower
        )
        release, report = write(plan)
        report.chosen = report.algorithm
    report.parameters["engine"] = "spark"
    if start is not None:
        report.parameters["start_node"] = dict(zip(encoded.qi_names, start, strict=True))
    report.elapsed_seconds = round(time.perf_counter() - started, 4)
    return release, report


def engine_write(
    source: Any, policy: Policy, plan: Plan, removed: list[str], *, ground: bool = True
) -> tuple[Any, AnonymizationReport]:
    """Write ``plan``'s release in Spark (its mapping joined back onto ``source``), re-check it
    there, and build its report. A release the check would read differently from the plan
    (kept records written all ``*``) is refused as the pandas path refuses it."""
    if plan.mapping is None or plan.engine_report is None:
        raise PolicyError(f"{plan.algorithm} does not run on an engine frame")
    mapping = plan.mapping()
    release, checked, rows = apply_mapping(source, policy, mapping)
    check = engine_recheck(checked, policy, must_pass=False)
    if not check.passed:
        failing = ", ".join(m.model for m in check.models if not m.passed) or (
            "the suppression limit"
        )
        if mapping.starred_kept:
            raise starred_kept_records(failing)
        raise RuntimeError(
            f"the release fails {failing} when checked in the engine; this is a bug in the "
            "anonymizer"
        )
    expected = (
        mapping.n_checked_rows if isinstance(mapping, NodeMapping) else mapping.n_released_rows
    )
    if check.n_records + check.n_suppressed != expected:
        raise RuntimeError(
            f"the engine released {check.n_records + check.n_suppressed} rows where the plan "
            f"has {expected}: some values did not join back to their class; this is a bug"
        )
    changed = None
    if isinstance(mapping, CombinationMapping):
        changed = mapping.changed_cells
        if mapping.count_changed:
            from pyspark.sql import functions as F

            changed = int(rows.agg(F.sum(CHANGED)).collect()[0][0] or 0)
    report = plan.engine_report(EngineRelease(check, removed, ground, changed))
    return release, report
