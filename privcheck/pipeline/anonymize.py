"""``anonymize``: read → encode → plan → release → re-check → report, for every algorithm and
every engine — the library call behind ``privcheck anonymize``.

The policy is loaded once and passed down. The engine that holds the data reads and encodes it
(``privcheck.engines``: pandas in process, Spark where the rows live); the algorithm, a planner
(``privcheck.anonymizers``), decides on the encoded class table what is released
(``privcheck.plan.Plan``); the engine writes that release and re-checks it; the report joins
what the planner knew with what only the release knows (``privcheck.pipeline.report``). When a
plan cannot be written as planned (``auto``'s best candidate, say, whose release a check would
read differently), the next one it ranked is written.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from privcheck.anonymizers.base import Anonymizer, Progress
from privcheck.engines.base import Engine, Release, Source
from privcheck.engines.pandas_engine import PandasEngine
from privcheck.engines.schema import engine_of, is_engine_frame
from privcheck.engines.spark import SparkEngine
from privcheck.errors import PolicyError
from privcheck.pipeline.report import anonymization_report
from privcheck.pipeline.side_files import previous_node
from privcheck.plan import Plan
from privcheck.plugins import anonymizer_registry
from privcheck.policy import Policy, load_policy
from privcheck.report import AnonymizationReport, mark_draft


def anonymize(
    data: Any,
    policy: Policy | dict | str | Path,
    algorithm: str = "auto",
    *,
    seed: int | None = None,
    keep_order: bool = False,
    previous: AnonymizationReport | dict | str | Path | None = None,
    progress: Progress | None = None,
    max_groups: int | None = None,
    allow_draft: bool = False,
    **params: Any,
) -> tuple[Any, AnonymizationReport]:
    """Anonymize ``data`` so that every model of ``policy`` holds; return the release and its
    report.

    ``algorithm`` names a registered anonymizer: ``auto`` (the default: every algorithm that can
    guarantee the policy is planned and the least-damaging release written, see
    ``privcheck.anonymizers.auto``), ``incognito``, ``mingen``, ``datafly``, ``mondrian``,
    ``local-suppression``, ``safepub``, a masking method, or a plugin's; ``params`` are its own
    parameters. Rows are shuffled unless ``keep_order``; every
    random choice draws from the operating system's entropy unless ``seed`` is given (for
    reproducible tests; it is never written out). ``previous`` (a report, its JSON file, or
    ``{qi: level}``) restricts the search to generalizations of an earlier release's node, so the
    two cannot be combined into finer classes. ``progress(done, total)`` is called as the search
    resolves lattice nodes.

    ``data`` may also be an engine frame: a PySpark DataFrame is anonymized in Spark by
    ``auto``, the full-domain searches, ``mondrian`` and ``local-suppression`` (class table
    from Spark, plan here, release written in Spark by joining the plan's mapping back, as a
    Spark DataFrame, not shuffled; at most ``max_groups`` combinations come back, else Spark
    generalizes first for the full-domain searches — see ``privcheck.engines.spark``);
    polars, pyarrow and DuckDB frames are collected to pandas.

    A draft policy (columns still marked ``review:``) is refused unless ``allow_draft``: a
    column left for review would be released as whatever it was drafted (an undecided column is
    drafted insensitive, and kept in clear). With ``allow_draft`` the report and its check say
    ``draft: true``.

    Raises ``PolicyError`` when the policy cannot be satisfied (saying why) and ``DataError`` when
    the data does not fit the policy.
    """
    started = time.perf_counter()
    policy = load_policy(policy)
    policy.require_anonymizable(allow_draft=allow_draft)
    planner = planner_for(algorithm, params, policy)
    engine = engine_for(data, planner, policy)
    source = engine.read(
        data,
        policy,
        encoded=planner.encodes,
        max_groups=max_groups,
        generalize=planner.takes_start,
        needs_ground=planner.name,
    )
    plan = planner.plan(
        source.encoded,
        policy,
        rows=source.rows if engine.holds_rows else None,
        seed=seed,
        previous=previous_node(previous),
        progress=progress,
        lower=source.start,
    )
    plan, release = write(engine, source, plan, policy, seed=seed, keep_order=keep_order)
    report = anonymization_report(
        plan,
        release,
        source,
        policy,
        seed_given=seed is not None and not engine.ordered,
        keep_order=keep_order or engine.ordered,
    )
    if not engine.holds_rows:
        report.parameters["engine"] = engine.name
    if source.start is not None:
        report.parameters["start_node"] = dict(
            zip(source.encoded.qi_names, source.start, strict=True)
        )
    report.elapsed_seconds = round(time.perf_counter() - started, 4)
    mark_draft(report.check, policy)
    return release.table, mark_draft(report, policy)


def planner_for(algorithm: str, params: dict[str, Any], policy: Policy) -> Anonymizer:
    """The registered anonymizer ``algorithm`` with its parameters, refusing a policy it cannot
    guarantee whatever the data."""
    registry = anonymizer_registry()
    cls = registry.get(algorithm)
    if cls is None:
        raise PolicyError(f"unknown algorithm {algorithm!r}; available: {', '.join(registry)}")
    planner = cls(**params)
    planner.refuse_unsupported(policy)
    return planner


def engine_for(data: Any, planner: Anonymizer, policy: Policy) -> Engine:
    """The engine that holds ``data``: Spark for a Spark frame (for a planner whose plans it
    can write), else pandas in process (other engine frames are collected)."""
    if not is_engine_frame(data) or engine_of(data) != "spark":
        return PandasEngine()
    if policy.individual is not None:
        raise PolicyError(
            "anonymizing a Spark frame plans on its aggregated classes, which cannot "
            f"take a person's records out together ('individual: {policy.individual}'); "
            "collect the frame to pandas (or a file) to count people"
        )
    if not planner.engine_release:
        raise PolicyError(
            f"{planner.name} needs the rows in process and does not run on an engine frame; "
            "collect the frame to pandas first (the algorithms that run on Spark: auto, "
            "incognito, mingen, datafly, mondrian, local-suppression)"
        )
    return SparkEngine()


def write(
    engine: Engine,
    source: Source,
    plan: Plan,
    policy: Policy,
    *,
    seed: int | None,
    keep_order: bool,
) -> tuple[Plan, Release]:
    """The release of ``plan``, or of the next plan it ranked (``Plan.fallbacks``) when its
    release cannot be written as planned: the candidate that failed says why in the report's
    candidates."""
    ranked = [plan, *plan.fallbacks]
    for i, chosen in enumerate(ranked):
        try:
            return chosen, engine.release(source, chosen, policy, seed=seed, keep_order=keep_order)
        except PolicyError as exc:
            for row in chosen.report.get("candidates") or []:
                if row["algorithm"] == chosen.algorithm:
                    row.update(passed=False, excluded_reason=str(exc))
            if i == len(ranked) - 1:
                raise
    raise AssertionError("a plan is always written or refused")  # pragma: no cover
