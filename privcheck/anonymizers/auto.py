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

import time
from collections.abc import Callable
from typing import Any, ClassVar

import pandas as pd

from privcheck.anonymizers.base import Anonymizer, Plan, check_possible
from privcheck.anonymizers.problem import Progress
from privcheck.encoding import EncodedTable, encode
from privcheck.errors import PolicyError
from privcheck.hookspecs import hookimpl
from privcheck.plugins import anonymizer_registry, model_registry
from privcheck.policy import Policy
from privcheck.report import AnonymizationReport
from privcheck.risk.population.prosecutor import policy_k, prosecutor_risk

#: the candidates, in the order that breaks ties
CANDIDATES = ("mingen", "mondrian", "local-suppression", "safepub")
#: metrics that describe every kind of release (lower is better for each)
COMMON_METRICS = ("loss", "discernibility", "aecs")


def comparison_metric(policy: Policy) -> str:
    """The metric candidates are compared by: the policy's, if it set one every candidate
    reports, else ``loss``."""
    if "metric" in policy.model_fields_set and policy.metric in COMMON_METRICS:
        return policy.metric
    return "loss"


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

    def anonymize(
        self,
        data: pd.DataFrame,
        policy: Policy,
        *,
        seed: int | None = None,
        keep_order: bool = False,
        previous: dict[str, int] | None = None,
        progress: Progress | None = None,
    ) -> tuple[pd.DataFrame, AnonymizationReport]:
        started = time.perf_counter()
        return self.run(
            data,
            policy,
            encoded=encode(data, policy),
            write=lambda plan: plan.release(),
            seed=seed,
            keep_order=keep_order,
            previous=previous,
            progress=progress,
            started=started,
        )

    def run(
        self,
        data: pd.DataFrame,
        policy: Policy,
        *,
        encoded: EncodedTable,
        write: Callable[[Plan], tuple[Any, AnonymizationReport]],
        seed: int | None = None,
        keep_order: bool = False,
        previous: dict[str, int] | None = None,
        progress: Progress | None = None,
        engine: bool = False,
        lower: tuple[int, ...] | None = None,
        started: float | None = None,
    ) -> tuple[Any, AnonymizationReport]:
        """Plan every candidate on ``encoded``, and ``write`` the best plan's release (the next
        best when a release cannot be written as planned). In process ``write`` is
        ``plan.release()``; an engine (``engine``: ``data`` and ``encoded`` are its counts)
        joins the plan's mapping back onto its rows — candidates that release in process only
        are then not tried, nor, when the engine generalized the rows first (to node
        ``lower``), those that need the ground values."""
        if started is None:
            started = time.perf_counter()
        check_possible(encoded, policy)  # bad input is bad for every candidate: say it once
        metric = comparison_metric(policy)
        searched = (
            policy if policy.metric == metric else policy.model_copy(update={"metric": metric})
        )
        k = policy_k(policy.models)
        registry = anonymizer_registry()
        plans: dict[str, Plan] = {}
        rows: list[dict[str, Any]] = []
        for name in CANDIDATES:
            if name not in registry:  # (a trimmed installation)
                continue
            row: dict[str, Any] = {"algorithm": name, "metric": metric}
            reason = applies_to(name, policy)
            if reason is None and engine:
                reason = engine_reason(registry[name], lower)
            if reason is None:
                try:
                    candidate = self.candidate(name)
                    candidate.refuse_unsupported(policy)
                    plan = candidate.plan(
                        data,
                        searched,  # (the full-domain searches optimise what is compared)
                        encoded=encoded,
                        seed=seed,
                        keep_order=keep_order,
                        previous=previous,  # (only full-domain searches take one)
                        progress=progress if name == "mingen" else None,
                        **({"lower": lower} if lower is not None else {}),
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
                            None
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
            rows.append(row)
        if not plans:
            tried = [
                r
                for r in rows
                if applies_to(r["algorithm"], policy) is None
                and not (engine and engine_reason(registry[r["algorithm"]], lower))
            ]
            reasons = {r["excluded_reason"] for r in tried}
            if len(reasons) == 1:  # every candidate refused for the same reason: that reason
                raise PolicyError(reasons.pop())
            why = "; ".join(f"{r['algorithm']}: {r['excluded_reason']}" for r in tried)
            raise PolicyError(f"no algorithm can release this table under the policy ({why})")
        order = {name: i for i, name in enumerate(CANDIDATES)}
        ranked = sorted(
            plans, key=lambda n: (plans[n].metrics[metric], plans[n].n_suppressed, order[n])
        )
        for chosen in ranked:
            try:
                release, report = write(plans[chosen])
                break
            except PolicyError as exc:  # its release cannot be written as planned: the next
                row = next(r for r in rows if r["algorithm"] == chosen)
                row.update(passed=False, excluded_reason=str(exc))
                if chosen == ranked[-1]:
                    raise
        report.algorithm = self.name
        report.chosen = chosen
        report.candidates = rows
        report.metric = metric
        report.parameters = {
            **report.parameters,
            "compared_by": metric,
            "candidates": [r["algorithm"] for r in rows],
        }
        if policy.metric != metric and "metric" in policy.model_fields_set:
            report.notes.append(
                f"the policy's metric {policy.metric} describes only full-domain nodes (a "
                f"Mondrian range or a blanked cell has no level): candidates were compared by "
                f"{metric}"
            )
        report.elapsed_seconds = round(time.perf_counter() - started, 4)
        return release, report


def engine_reason(cls: type[Anonymizer], lower: tuple[int, ...] | None) -> str | None:
    """Why a candidate is not tried on an engine frame (None: it is)."""
    from privcheck.anonymizers.base import GeneralizationAnonymizer

    if not cls.engine_release:
        return (
            f"{cls.name} needs the rows in process; it does not run on an engine frame "
            "(collect the frame to pandas to try it)"
        )
    if lower is not None and not issubclass(cls, GeneralizationAnonymizer):
        return (
            f"{cls.name} needs the ground values, but the class table had more combinations "
            "than max_groups, so the engine generalized the rows first (raise max_groups to "
            "try it)"
        )
    return None


@hookimpl
def privcheck_anonymizers() -> list[type]:
    return [Auto]
