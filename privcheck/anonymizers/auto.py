"""``--algorithm auto``: run every algorithm that can guarantee the policy, write the best one.

A user asks "what is the least-damaging fix?"; answering it by hand meant re-running each
algorithm and reading their reports side by side. ``auto`` does it in one straight path:

1. **plan** — the table is encoded once, and every candidate searches on that encoding: MinGen
   (the full-domain optimum), Mondrian (multidimensional local recoding), local suppression
   (blanked cells; k-anonymity only) and, for a differential-privacy policy, SafePub. Each
   candidate's release is decided on class tables and its figures computed from them — nothing
   is written yet. A candidate that cannot guarantee the policy (a model it cannot enforce, a
   suppression limit it cannot meet) is kept in the report with the reason, not scored.
2. **choose** — the candidate with the least information loss wins, measured the same way for
   every candidate: the policy's ``metric`` when the policy sets one that describes every kind
   of release (``loss``, ``discernibility``, ``aecs``), else ``loss`` (Prec and height describe
   only full-domain nodes: a Mondrian range or a blanked cell has no level). Ties go to fewer
   suppressed records, then to the order above.
3. **release** — only the chosen candidate is materialised; its release is re-checked like any
   other, and its report carries every candidate (``candidates``) and the one written
   (``chosen``).

Each candidate runs exactly as it would alone (``--algorithm mingen`` …) with the comparison
metric as the policy's ``metric``: a full-domain search left to optimise Prec would pick a node
that is not the least-loss one, and lose a comparison it could have won. What ``auto`` writes is
the best of what the user could have had by trying each of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import pandas as pd

from privcheck.anonymizers.base import Anonymizer, check_possible
from privcheck.anonymizers.problem import Progress
from privcheck.encoding import EncodedTable
from privcheck.errors import PolicyError
from privcheck.hookspecs import hookimpl
from privcheck.plan import NodeRecoding, Plan
from privcheck.plugins import anonymizer_registry, model_registry
from privcheck.policy import Policy
from privcheck.ranking import COMMON_METRICS, comparison_metric, rank_key  # noqa: F401
from privcheck.risk.population.prosecutor import policy_k, prosecutor_risk

#: the candidates, in the order that breaks ties
CANDIDATES = ("mingen", "mondrian", "local-suppression", "safepub")


def applies_to(name: str, policy: Policy) -> str | None:
    """Why a candidate is not tried for this policy (None: it is tried)."""
    registry = model_registry()
    mechanism = [m.model for m in policy.models if registry[m.model].target == "mechanism"]
    if name == "safepub" and not mechanism:
        return "the policy has no differential-privacy model, which safepub is for"
    return None


class Auto(Anonymizer):
    name = "auto"
    summary = "run mingen, mondrian, local suppression (and safepub) and write the least loss"
    mechanisms: ClassVar[frozenset[str]] = frozenset({"differential-privacy"})
    engine_release: ClassVar[bool] = True
    takes_start: ClassVar[bool] = True
    counts_people: ClassVar[bool] = True  # (its candidates that cannot are excluded, with why)

    def __init__(self, **params: Any) -> None:
        """Parameters go to the candidates that take them (``relaxed`` to mondrian, ``polish``
        to local suppression, ``steps`` to safepub …); one no candidate knows is refused."""
        registry = anonymizer_registry()
        known = {
            key for name in CANDIDATES if name in registry for key in registry[name].defaults()
        }
        unknown = sorted(set(params) - known)
        if unknown:
            raise PolicyError(
                f"auto has no parameter {unknown[0]!r}: it passes parameters on to its "
                f"candidates, which take {', '.join(sorted(known))}"
            )
        self.params = dict(params)

    def candidate(self, name: str) -> Anonymizer:
        """Candidate ``name`` with the parameters it takes."""
        cls = anonymizer_registry()[name]
        return cls(**{k: v for k, v in self.params.items() if k in cls.defaults()})

    def plan(
        self,
        encoded: EncodedTable | None,
        policy: Policy,
        *,
        rows: pd.DataFrame | None = None,
        seed: int | None = None,
        previous: dict[str, int] | None = None,
        progress: Progress | None = None,
        lower: Sequence[int] | None = None,
    ) -> Plan:
        """Plan every candidate on ``encoded`` and return the best plan, the others ranked
        behind it (``Plan.fallbacks``: released in turn when a release cannot be written as
        planned). Without ``rows`` (an engine holds them) the candidates that need them are not
        tried, nor, when the engine generalized the rows first (to node ``lower``), those that
        need the ground values. Each plan's report is auto's: every candidate and the one
        written."""
        check_possible(encoded, policy)  # bad input is bad for every candidate: say it once
        metric = comparison_metric(policy)
        searched = (
            policy if policy.metric == metric else policy.model_copy(update={"metric": metric})
        )
        k = policy_k(policy.models)
        registry = anonymizer_registry()
        plans: dict[str, Plan] = {}
        rows_: list[dict[str, Any]] = []
        for name in CANDIDATES:
            if name not in registry:  # (a trimmed installation)
                continue
            row: dict[str, Any] = {"algorithm": name, "metric": metric}
            reason = applies_to(name, policy)
            if reason is None:
                reason = engine_reason(registry[name], rows is not None, lower)
            if reason is None:
                try:
                    candidate = self.candidate(name)
                    candidate.refuse_unsupported(policy)
                    plan = candidate.plan(
                        encoded,
                        searched,  # (the full-domain searches optimise what is compared)
                        rows=rows,
                        seed=seed,
                        previous=previous,  # (only full-domain searches take one)
                        progress=progress if name == "mingen" else None,
                        lower=lower,
                    )
                except PolicyError as exc:  # it cannot guarantee this policy: say why
                    reason = str(exc)
                else:
                    plans[name] = plan
                    row.update(
                        passed=True,
                        excluded_reason=None,
                        metric_value=float(plan.metrics[metric]),
                        n_classes=plan.n_classes,
                        n_suppressed=plan.n_suppressed,
                        suppressed_cells=plan.suppressed_cells,
                        seconds=round(plan.seconds, 4),
                        risk=(
                            finished_risk(plan, k)
                            if plan.class_sizes is None
                            else prosecutor_risk(plan.class_sizes, plan.class_records, k)
                        ),
                    )
            if reason is not None:
                row.update(
                    passed=False,
                    excluded_reason=reason,
                    metric_value=None,
                    n_classes=None,
                    n_suppressed=None,
                    suppressed_cells=None,
                    seconds=None,
                    risk=None,
                )
            rows_.append(row)
        if not plans:
            tried = [
                r
                for r in rows_
                if applies_to(r["algorithm"], policy) is None
                and not engine_reason(registry[r["algorithm"]], rows is not None, lower)
            ]
            reasons = {r["excluded_reason"] for r in tried}
            if len(reasons) == 1:  # every candidate refused for the same reason: that reason
                raise PolicyError(reasons.pop())
            why = "; ".join(f"{r['algorithm']}: {r['excluded_reason']}" for r in tried)
            raise PolicyError(f"no algorithm can release this table under the policy ({why})")
        order = {name: i for i, name in enumerate(CANDIDATES)}
        ranked = sorted(
            plans, key=lambda n: rank_key(plans[n].metrics[metric], plans[n].n_suppressed, order[n])
        )
        note = None
        if policy.metric != metric and "metric" in policy.model_fields_set:
            note = (
                f"the policy's metric {policy.metric} describes only full-domain nodes (a "
                f"Mondrian range or a blanked cell has no level): candidates were compared by "
                f"{metric}"
            )
        candidates = [r["algorithm"] for r in rows_]
        for name in ranked:
            plan = plans[name]
            plan.report = {
                **plan.report,
                "algorithm": self.name,
                "chosen": name,
                "candidates": rows_,  # (one list: a release that fails marks its row)
                "metric": metric,
                "parameters": {
                    **plan.report["parameters"],
                    "compared_by": metric,
                    "candidates": candidates,
                },
                "notes": [*plan.report.get("notes", []), *([note] if note else [])],
            }
        best = plans[ranked[0]]
        best.fallbacks = [plans[n] for n in ranked[1:]]
        return best


def finished_risk(plan: Plan, k: int | None) -> dict[str, float] | None:
    """The risk a candidate without class sizes leaves (SafePub, whose classes are those of the
    mechanism's sample): the prosecutor risk of the classes its node recoding keeps — the
    classes of the records it releases (None for any other recoding)."""
    recoding = plan.recoding
    if not isinstance(recoding, NodeRecoding):
        return None
    return prosecutor_risk(recoding.table.sizes[recoding.kept_classes], None, k)


def engine_reason(
    cls: type[Anonymizer], in_process: bool, lower: Sequence[int] | None
) -> str | None:
    """Why a candidate is not tried on an engine frame (None: it is, or the rows are in
    process)."""
    if in_process:
        return None
    if not cls.engine_release:
        return (
            f"{cls.name} needs the rows in process; it does not run on an engine frame "
            "(collect the frame to pandas to try it)"
        )
    if lower is not None and not cls.takes_start:
        return (
            f"{cls.name} needs the ground values, but the class table had more combinations "
            "than max_groups, so the engine generalized the rows first (raise max_groups to "
            "try it)"
        )
    return None


@hookimpl
def privcheck_anonymizers() -> list[type]:
    return [Auto]
