"""The anonymization report: what the planner knew, completed with what only the release knows.

A plan carries the report fields its planner knows (``Plan.report``: parameters, node, metrics,
suppressed records and cells, lattice figures …); the engine's ``Release`` the re-check, the
rows written, the columns left out, the changed cells, the utility and the input's classes.
Here the two become one ``AnonymizationReport``, with the people counted (a person's records go
together, so the suppressed people are those the re-check did not find), the risk before and
after (``risk_profile``), and — for a method that does not guarantee every model of the policy
(masking) — a note on each model it leaves to the re-check.
"""

from __future__ import annotations

from typing import Any

from privcheck.encoding import EncodedTable
from privcheck.engines.base import Release, Source
from privcheck.pipeline.risk_profile import attach_risk
from privcheck.plan import Plan
from privcheck.policy import Policy
from privcheck.report import AnonymizationReport, Report


def people_counts(encoded: EncodedTable | None, check: Report) -> dict[str, int | None]:
    """An anonymization report's people: ``n_individuals`` of the input and
    ``n_suppressed_individuals`` — those its release's re-check did not find, since a person's
    records are suppressed together (both None when the policy counts records)."""
    if encoded is None or encoded.individual is None:
        return {"n_individuals": None, "n_suppressed_individuals": None}
    kept = check.n_individuals or 0
    return {
        "n_individuals": encoded.n_individuals,
        "n_suppressed_individuals": encoded.n_individuals - kept,
    }


def enforcement_notes(plan: Plan, check: Report) -> list[str]:
    """A note on each model of the policy the method does not guarantee, with the verdict the
    re-check found (``Plan.enforced``); a guaranteed model that fails is a bug."""
    if plan.enforced is None:
        return []
    out = []
    for m in check.models:
        if m.model in plan.enforced:
            if not m.passed:  # pragma: no cover - the planner verified its guarantee
                raise RuntimeError(
                    f"the {plan.algorithm} release fails {m.model}; this is a bug in the anonymizer"
                )
            continue
        verdict = "the release satisfies it" if m.passed else "the release FAILS it"
        out.append(
            f"{plan.not_enforcing} the policy's {m.model} "
            f"({', '.join(f'{k}={v}' for k, v in m.params.items())}): {verdict}"
            + ("" if m.passed else f" (achieved {m.value:g})" if m.value is not None else "")
        )
    return out


def anonymization_report(
    plan: Plan,
    release: Release,
    source: Source,
    policy: Policy,
    *,
    seed_given: bool,
    keep_order: bool,
) -> AnonymizationReport:
    """The report of ``plan`` written as ``release`` from ``source``."""
    fields: dict[str, Any] = dict(plan.report)
    parameters = dict(fields.pop("parameters"))
    for key, value in (("seed_given", seed_given), ("keep_order", keep_order)):
        if key in parameters:  # (the planner placed them where it publishes them)
            parameters[key] = value
    notes = [*fields.pop("notes", []), *enforcement_notes(plan, release.check)]
    if release.changed_cells is not None:
        fields["changed_cells"] = release.changed_cells
    report = AnonymizationReport(
        **fields,
        parameters=parameters,
        notes=notes,
        check=release.check,
        n_released_rows=release.n_released_rows,
        removed_columns=release.removed,
        utility=release.utility,
        **people_counts(source.encoded, release.check),
    )
    attach_risk(report, policy, release.before)
    report.source = source.name
    return report
