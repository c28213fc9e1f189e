"""The Spark engine: plan on the driver, release in the engine (``SparkEngine``).

Every planner whose plans an engine can write (a ``NodeRecoding`` or a ``CombinationRecoding``,
``privcheck.plan``) runs on a Spark frame: the full-domain searches (incognito, mingen,
datafly), Mondrian (strict and relaxed), local suppression, and ``auto`` over them. Spark sends
back its group-by counts (as for a check: one row per distinct combination of
quasi-identifiers and sensitive values, with its count); the plan is made on them with the same
code as in process (the counts are the weights of the same encoding), so every decision, metric
and suppressed record is that of the pandas run. The plan's *mapping* — what the release shows
for each distinct combination (``privcheck.engines.mapping``) — is then joined back onto the
rows in Spark (``privcheck.engines.release``), identifiers are dropped, and the release, a lazy
Spark DataFrame, is checked again through the engine before it is returned.

Spark has no row order to hide, so the release is not shuffled (``seed``/``keep_order`` do not
apply). polars and DuckDB frames run in this process anyway: they are collected to pandas and
take the in-process path (their release is a pandas DataFrame, shuffled as usual).

When the ground class table has more combinations than ``max_groups``, the rows are generalized
inside Spark first — for the full-domain searches only (Mondrian and local suppression need the
ground values; ``auto`` then tries only MinGen; the planner says whether it takes a start
node): every value is replaced by a representative
ground value of its group at a start node (raising, one level at a time, the quasi-identifier
with the most distinct values), until the class table fits; the search then runs on the lattice
above the start node, which is reported as ``parameters["start_node"]``.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pandas as pd

from privcheck.checker import check_frame, refuse_mechanism_models
from privcheck.encoding import encode, encode_column
from privcheck.engines.base import Engine, Release, Source
from privcheck.engines.counts import aggregate, checked_counts
from privcheck.engines.input_classes import input_classes
from privcheck.engines.mapping import CombinationMapping, NodeMapping, plan_mapping
from privcheck.engines.recheck import failed
from privcheck.engines.release import CHANGED, apply_mapping, literal_mapping, map_column
from privcheck.engines.schema import WEIGHT, check_columns, engine_of, max_groups_limit
from privcheck.errors import DataError, PolicyError
from privcheck.plan import CombinationRecoding, NodeRecoding, Plan, release_policy, removed_columns
from privcheck.policy import Policy, aggregated_policy
from privcheck.report import Report, mark_draft

_TOO_MANY = "too large to bring back"


def is_spark(frame: Any) -> bool:
    return engine_of(frame) == "spark"


def engine_recheck(kept: Any, policy: Policy) -> Report:
    """Check a release's rows through the engine, exactly as ``privcheck check`` checks an
    engine frame (its counts come back; the release policy; a draft already decided)."""
    started = time.perf_counter()
    rpolicy = release_policy(policy)
    rpolicy.require_attributes()
    refuse_mechanism_models(rpolicy)
    agg, rpolicy, identifiers, absent_note = checked_counts(kept, rpolicy, max_groups=0)
    report = check_frame(
        agg,
        rpolicy,
        weight=WEIGHT,
        identifiers=identifiers,
        notes=[absent_note],
        details=False,
        allow_empty=True,
    )
    mark_draft(report, rpolicy)
    report.elapsed_seconds = round(time.perf_counter() - started, 4)
    report.source = "release"
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
    # each (attribute, level)'s literal map, built once: the loop maps every raised attribute
    # again at each step, and a map costs a few calls into the JVM per value
    literals: dict[tuple[str, int], Any] = {}
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
            targets = values.iloc[first].reset_index(drop=True)
            if (q, level) not in literals:
                source_type = frame.schema[q].dataType
                literals[q, level] = literal_mapping(source_type, q, values, targets)
            mapped = map_column(mapped, q, values, targets, literal=literals[q, level])
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
    try:
        return frame, aggregate(frame, policy, max_groups=max_groups), None
    except DataError as exc:
        limit = max_groups_limit(max_groups)
        if _TOO_MANY not in str(exc) or not is_spark(frame) or not limit or not generalize:
            raise
    return generalize_first(frame, policy, limit)


# ---------------------------------------------------------------------- the engine
class SparkEngine(Engine):
    """A Spark frame: its counts come back to plan on, its release stays in Spark."""

    name = "spark"
    holds_rows = False
    ordered = True

    def read(
        self,
        data: Any,
        policy: Policy,
        *,
        encoded: bool = True,
        max_groups: int | None = None,
        generalize: bool = False,
        needs_ground: str | None = None,
    ) -> Source:
        """The frame's counts, encoded with weights; generalized first (``generalize``: the
        planner takes a start node) when they are too many to bring back — else refused,
        naming the algorithm that ``needs_ground``."""
        check_columns(list(data.columns), policy)
        try:
            frame, agg, start = class_counts(data, policy, max_groups, generalize=generalize)
        except DataError as exc:
            if _TOO_MANY not in str(exc) or generalize or needs_ground is None:
                raise
            raise DataError(
                f"{exc}; {needs_ground} needs the ground class table (Spark generalizes the "
                "rows first only for the full-domain searches and auto)"
            ) from None
        counts = encode(agg, aggregated_policy(policy), weight_column=WEIGHT)
        return Source(agg, counts, frame=frame, start=start)

    def release(
        self,
        source: Source,
        plan: Plan,
        policy: Policy,
        *,
        seed: int | None = None,
        keep_order: bool = False,
    ) -> Release:
        """Write ``plan``'s release in Spark (its mapping joined back onto the rows), re-check
        it there. A release the check would read differently from the plan (kept records
        written all ``*``) is refused as the pandas engine refuses it."""
        recoding = plan.recoding
        if not isinstance(recoding, NodeRecoding | CombinationRecoding):
            raise PolicyError(f"{plan.algorithm} does not run on an engine frame")
        mapping = plan_mapping(source.rows, source.encoded, recoding, policy)
        release, checked, rows = apply_mapping(source.frame, policy, mapping)
        check = engine_recheck(checked, policy)
        if not check.passed:
            raise failed(
                check, plan.algorithm, starred_kept=mapping.starred_kept,
                advice=plan.failure_advice,
            )  # fmt: skip
        expected = (
            mapping.n_checked_rows if isinstance(mapping, NodeMapping) else mapping.n_released_rows
        )
        if check.n_records + check.n_suppressed != expected:
            raise RuntimeError(
                f"the engine released {check.n_records + check.n_suppressed} rows where the "
                f"plan has {expected}: some values did not join back to their class; this is "
                "a bug"
            )
        changed = None
        if isinstance(mapping, CombinationMapping):
            changed = mapping.changed_cells
            if mapping.count_changed:
                from pyspark.sql import functions as F

                changed = int(rows.agg(F.sum(CHANGED)).collect()[0][0] or 0)
        removed = removed_columns(source.frame.columns, policy)
        before = input_classes(source, plan, policy)
        return Release(release, check, mapping.n_released_rows, removed, changed, before=before)
