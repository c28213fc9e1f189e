"""Re-applying a chosen transformation to the next batch of the same schema, checked again.

A transformation is what a generalization search chose: the hierarchy level of every
quasi-identifier (the node) and how violating classes are suppressed (the limit as a fraction
of the batch, and ``remove`` or ``star``). It is read from an anonymization report or from the
small JSON ``transformation_json`` writes, each validated by a strict schema
(``privcheck.pipeline.side_files``)::

    {"kind": "transformation", "node": {"age": 1, "zip": 2}, "suppression_limit": 0.01,
     "suppressed_records": "remove", "algorithm": "incognito"}

Applying it to a new batch generalizes the batch to the node, suppresses the classes that
violate the policy there — but only if they fit within the limit — and checks the release.
A batch on which the node no longer satisfies the policy gives NO release: ``apply`` returns
``None`` with the check report of the batch at the node (its violators), so that nothing that
fails the policy can be written by mistake; choose a new transformation with ``anonymize``.

The policy is the only authority (``effective_policy``): the file may narrow the suppression
limit, never loosen it, and cannot change ``suppressed_records`` — so a release ``apply`` writes
always passes ``privcheck check`` with the same policy.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from privcheck.anonymizers.evaluator import NodeEvaluator
from privcheck.checker import check_table
from privcheck.classes import count
from privcheck.encoding import EncodedTable
from privcheck.engines.base import Engine
from privcheck.engines.pandas_engine import PandasEngine
from privcheck.engines.schema import engine_of, is_engine_frame
from privcheck.engines.spark import SparkEngine
from privcheck.errors import PolicyError
from privcheck.models.base import table_models
from privcheck.pipeline.side_files import parse_transformation, read_side_file
from privcheck.plan import NodeRecoding, Plan
from privcheck.policy import Policy, load_policy
from privcheck.report import AnonymizationReport, Report, mark_draft


def load_transformation(transformation: Any) -> dict[str, Any]:
    """The transformation as a dict (node, suppression_limit, suppressed_records), from an
    AnonymizationReport, its JSON file or dict, or a transformation JSON file or dict —
    validated by its strict schema (``privcheck.pipeline.side_files``)."""
    return _read_transformation(transformation)[0]


def _read_transformation(transformation: Any) -> tuple[dict[str, Any], str]:
    """(the transformation, how errors name it)."""
    if isinstance(transformation, AnonymizationReport):
        data = json.loads(transformation.to_json())
        return parse_transformation(data, "the anonymization report"), "the anonymization report"
    data, text, name = read_side_file(transformation, "transformation file")
    return parse_transformation(data, name, text), name


def effective_policy(
    policy: Policy,
    transformation: dict[str, Any],
    *,
    policy_name: str = "the policy",
    transformation_name: str = "the transformation",
) -> tuple[Policy, str | None]:
    """The policy ``apply`` runs under, and a note when the transformation narrowed it.

    The policy is the only authority: a transformation may narrow it, never loosen it. Its
    ``suppression_limit`` above the policy's is refused, naming both values and both files (a
    tampered file, or one saved under an older, looser policy); one below it is applied (the
    note says so); ``suppressed_records`` other than the policy's is refused. So a release
    ``apply`` writes always passes ``privcheck check`` with the same policy."""
    mode = transformation.get("suppressed_records")
    if mode is not None and mode != policy.suppressed_records:
        raise PolicyError(
            f"{transformation_name} says suppressed_records: {mode}, but {policy_name} says "
            f"{policy.suppressed_records}: the policy decides how suppressed records are "
            "released; remove the key from the transformation, or choose a new transformation "
            "with privcheck anonymize under this policy"
        )
    limit = transformation.get("suppression_limit")
    if limit is None or limit == policy.suppression_limit:
        return policy, None
    if limit > policy.suppression_limit:
        raise PolicyError(
            f"{transformation_name} says suppression_limit: {limit!r}, above the "
            f"suppression_limit {policy.suppression_limit!r} of {policy_name}: a transformation "
            "may narrow the policy, never loosen it; remove the key from the transformation, or "
            "choose a new transformation with privcheck anonymize under this policy"
        )
    out = policy.model_copy(update={"suppression_limit": float(limit)})
    out._base_dir = policy.base_dir
    note = (
        f"suppression_limit {limit!r} of {transformation_name} is below the "
        f"{policy.suppression_limit!r} of {policy_name}: the narrower {limit!r} is applied"
    )
    return out, note


def transformation_json(report: AnonymizationReport) -> str:
    """The small transformation JSON of an anonymization report (what ``apply`` needs)."""
    return json.dumps(load_transformation(report), indent=2) + "\n"


def _node(encoded: EncodedTable, node: dict[str, int]) -> tuple[int, ...]:
    names = encoded.qi_names
    if sorted(node) != sorted(names):
        from privcheck.messages import shown_key

        raise PolicyError(
            f"the transformation generalizes {', '.join(map(shown_key, node))}, but the policy's "
            f"quasi-identifiers are {', '.join(names)}; use the policy it was made under"
        )
    out = []
    for col in encoded.quasi_identifiers:
        level = node[col.name]
        if not 0 <= level <= col.height:
            raise PolicyError(
                f"the transformation generalizes {col.name!r} to level {level}, but its "
                f"hierarchy has levels 0..{col.height}; use the same hierarchies"
            )
        out.append(level)
    return tuple(out)


def apply(
    data: Any,
    transformation: Any,
    policy: Policy | dict | str | Path,
    *,
    keep_order: bool = False,
    seed: int | None = None,
    max_groups: int | None = None,
    allow_draft: bool = False,
    notes: list[str] | None = None,
) -> tuple[Any | None, Report]:
    """Generalize ``data`` with a transformation chosen earlier and check the result: the
    release pipeline with the plan given (a ``NodeRecoding`` at the transformation's node,
    suppression re-decided on the batch).

    A draft policy (columns still marked ``review:``) is refused unless ``allow_draft``; the
    report then says ``draft: true``.

    Returns ``(release, check of the release)``, or ``(None, check of the batch at the node)``
    when the node no longer satisfies the policy within the suppression limit. ``data`` is a
    pandas frame or file (release: pandas, shuffled unless ``keep_order``) or a Spark frame
    (release: Spark, mapped and suppressed in Spark); other engine frames are collected.

    The policy is the only authority (``effective_policy``): a transformation that would loosen
    it is refused; one that narrows it is applied, and ``notes`` (a list, if given) receives the
    sentence that says so.
    """
    t, t_name = _read_transformation(transformation)
    p_name = f"the policy {policy}" if isinstance(policy, str | Path) else "the policy"
    loaded = load_policy(policy)
    loaded.require_decided(allow_draft=allow_draft)
    policy, note = effective_policy(loaded, t, policy_name=p_name, transformation_name=t_name)
    if note is not None and notes is not None:
        notes.append(note)
    if policy.model_entries("differential-privacy"):
        raise PolicyError(
            "differential privacy is a property of the mechanism: re-applying a node to a new "
            "batch does not provide it; run privcheck anonymize --algorithm safepub on the batch"
        )
    engine: Engine = PandasEngine()
    if is_engine_frame(data) and engine_of(data) == "spark":
        if policy.individual is not None:
            raise PolicyError(
                f"apply on a Spark frame suppresses aggregated classes, not people: it cannot "
                f"take a person's records out together ('individual: {policy.individual}'); "
                "collect the batch to pandas (or a file) to apply the transformation"
            )
        engine = SparkEngine()
    source = engine.read(data, policy, max_groups=max_groups)
    encoded = source.encoded
    node = _node(encoded, t["node"])
    limit = int(np.floor(policy.suppression_limit * encoded.n_records + 1e-9))
    table = count(encoded, node, track_records=engine.holds_rows)
    evaluator = NodeEvaluator(encoded, table_models(policy.models), limit, lower=node, root=table)
    settled, outcome, kept = evaluator.settle(table)
    if not outcome.satisfied:
        report = check_table(table, policy, source="batch at the transformation's node")
        if report.passed:  # pragma: no cover - a failing verdict has violating classes
            raise RuntimeError("the node fails the policy but its check passes")
        return None, mark_draft(report, policy)
    plan = Plan(
        algorithm="apply",
        recoding=NodeRecoding(node, settled, kept),
        report={},
        metrics={},
        n_classes=int(np.count_nonzero(kept)),
        n_suppressed=0,
        suppressed_cells=0,
        class_sizes=None,
        seconds=0.0,
    )
    release = engine.release(source, plan, policy, seed=seed, keep_order=keep_order)
    return release.table, mark_draft(release.check, policy)


__all__ = ["apply", "effective_policy", "load_transformation", "transformation_json"]
