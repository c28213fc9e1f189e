"""What an anonymizer is to privcheck: a named plugin that turns data + policy into a release.

``Anonymizer`` is the plugin interface (registered through the ``privcheck_anonymizers`` hook,
built-ins included). ``GeneralizationAnonymizer`` is the shared machinery of the full-domain
generalization searches: a subclass only implements ``search`` over the lattice; encoding, the
impossible-policy diagnosis, the release, its re-check and the report are done here once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from privcheck.anonymizers.mapping import NodeMapping, node_mapping
from privcheck.anonymizers.problem import NodeOutcome, Progress, SearchProblem, SearchResult
from privcheck.anonymizers.release import (
    materialise,
    people_counts,
    recheck,
    recheck_codes,
    removed_columns,
    without_individual,
)
from privcheck.anonymizers.risk_profile import attach_risk, ground_classes
from privcheck.classes import ClassTable, count
from privcheck.encoding import EncodedTable, encode
from privcheck.errors import PolicyError
from privcheck.metrics.generalization import (
    Metric,
    all_metrics,
    get_metric,
    loss_by_attribute,
)
from privcheck.models.base import evaluate_models, table_models, validate_data
from privcheck.params import check_param_types
from privcheck.plugins import model_registry
from privcheck.policy import Policy
from privcheck.report import AnonymizationReport, Report, _fmt


@dataclass(eq=False)
class Plan:
    """What an anonymizer would release, decided on the class table before a single value is
    written: the figures ``--algorithm auto`` compares, and ``release`` — which materialises the
    release, re-checks it and builds its report (called for the chosen candidate only).

    ``class_sizes`` are the released classes as ``check`` reads them (suppressed records left
    out), for the risk a candidate leaves (None when the algorithm does not say);
    ``suppressed_cells`` the quasi-identifier cells released as ``*`` by suppression (blanked
    cells, and every cell of a suppressed record)."""

    algorithm: str
    metrics: dict[str, float]
    n_classes: int
    n_suppressed: int
    suppressed_cells: int
    class_sizes: np.ndarray | None
    seconds: float
    release: Callable[[], tuple[Any, AnonymizationReport]]
    #: records per released class when a class's size as read differs from its records
    #: (``suppressed_cells: wildcard``: a class reads as its compatible records)
    class_records: np.ndarray | None = None
    #: for an engine that holds the rows (``privcheck.engines.generalize``): what the release
    #: shows for each distinct combination of the encoded table (``anonymizers.mapping``), for
    #: the engine to join back; None when the algorithm releases in process only
    mapping: Callable[[], Any] | None = None
    #: the report of the release an engine wrote from ``mapping`` (``EngineRelease``)
    engine_report: Callable[[EngineRelease], AnonymizationReport] | None = None


@dataclass(eq=False)
class EngineRelease:
    """What an engine says about the release it wrote from a plan's ``mapping``: its re-check
    (the ordinary check, run in the engine), the source's columns it left out, whether the
    class table held the ground values (False when the engine generalized the rows first: the
    input's risk is then unknown), and the changed cells it counted
    (``CombinationMapping.count_changed``)."""

    check: Report
    removed: list[str]
    ground: bool = True
    changed_cells: int | None = None


class Anonymizer:
    """Base class of anonymizer plugins.

    Subclasses set ``name`` (the ``--algorithm`` value) and ``summary``, and implement
    ``anonymize`` — or ``plan`` (decide on the class table) with ``anonymize`` as
    ``plan(...).release()``, which lets ``--algorithm auto`` compare candidates and materialise
    only the chosen one. ``pruning`` says whether the algorithm prunes with the generalization
    property, so it must refuse models that lack it (``PrivacyModel.monotone``).
    """

    name: ClassVar[str]
    summary: ClassVar[str] = ""
    pruning: ClassVar[bool] = False
    #: models that are properties of the mechanism (``target == "mechanism"``, e.g.
    #: differential privacy) which this anonymizer enforces; it refuses the others
    mechanisms: ClassVar[frozenset[str]] = frozenset()
    #: whether its plans carry a ``mapping`` an engine can join back (``Plan.mapping``): the
    #: anonymizer then runs on a Spark frame without the rows leaving Spark
    engine_release: ClassVar[bool] = False
    #: whether it guarantees k distinct people per class when the policy names an
    #: ``individual`` (classes counted in people, a person's records suppressed together)
    counts_people: ClassVar[bool] = False
    #: why it cannot, when it cannot (the one-line refusal of a policy with ``individual``)
    people_reason: ClassVar[str] = (
        "it was not built to count people: its classes are counted in records"
    )
    #: parameters the anonymizer checks itself, type and range, with a message that says more
    #: than "must be a number" (the generic check by their defaults' types leaves them to it)
    checks_own: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, **params: Any) -> None:
        unknown = sorted(set(params) - set(self.defaults()))
        if unknown:
            known = ", ".join(self.defaults()) or "none"
            raise PolicyError(f"{self.name} has no parameter {unknown[0]!r} (parameters: {known})")
        params = check_param_types(self.name, self.defaults(), params, skip=self.checks_own)
        self.params = {**self.defaults(), **params}

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """The algorithm's own parameters and their defaults (published in the report)."""
        return {}

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
        raise NotImplementedError

    def plan(
        self,
        data: pd.DataFrame,
        policy: Policy,
        *,
        encoded: EncodedTable | None = None,
        seed: int | None = None,
        keep_order: bool = False,
        previous: dict[str, int] | None = None,
        progress: Progress | None = None,
    ) -> Plan:
        """The release this algorithm would make. The default runs ``anonymize`` (a plugin that
        does not split deciding from writing): its figures come from the finished release.
        ``encoded`` is the table already encoded for the policy, shared between candidates."""
        started = time.perf_counter()
        release, report = self.anonymize(
            data, policy, seed=seed, keep_order=keep_order, previous=previous, progress=progress
        )
        return Plan(
            algorithm=self.name,
            metrics=dict(report.metrics),
            n_classes=int(report.check.n_classes),
            n_suppressed=report.n_suppressed,
            suppressed_cells=suppressed_cells_of(report),
            class_sizes=None,
            seconds=time.perf_counter() - started,
            release=lambda: (release, report),
        )

    def refuse_unsupported(self, policy: Policy) -> None:
        """Refuse, in one line, a policy this algorithm cannot guarantee whatever the data: a
        mechanism's model it does not provide, or people it cannot count."""
        self.refuse_mechanism_models(policy)
        self.refuse_individual(policy)

    def refuse_individual(self, policy: Policy) -> None:
        """A policy that counts people (``individual``) needs an algorithm that guarantees k
        distinct people per class."""
        if policy.individual is not None and not self.counts_people:
            raise PolicyError(
                f"{self.name} cannot guarantee k distinct people per class ('individual: "
                f"{policy.individual}'): {self.people_reason}; use --algorithm auto, mingen, "
                "incognito, datafly, mondrian or local-suppression"
            )

    def refuse_mechanism_models(self, policy: Policy) -> None:
        """A property of the mechanism (differential privacy) is only enforced by an algorithm
        built for it: a search that optimises over the data, or a masking method, is not."""
        registry = model_registry()
        for m in policy.models:
            model = registry[m.model]
            if model.target == "mechanism" and m.model not in self.mechanisms:
                by = getattr(model, "enforced_by", None)
                raise PolicyError(
                    f"{self.name} cannot enforce {m.model}: it is a property of the mechanism "
                    "that makes the release, which this algorithm does not provide"
                    + (f"; use --algorithm {by}" if by else "")
                )

    def refuse_non_monotone(self, policy: Policy) -> None:
        """Pruning searches rely on the generalization property: refuse models without it."""
        if not self.pruning:
            return
        registry = model_registry()
        for m in policy.models:
            if not registry[m.model].monotone:
                raise PolicyError(
                    f"{self.name} prunes the lattice with the generalization property, which the "
                    f"model {m.model!r} does not have (a coarser node may violate it); use the "
                    "exhaustive 'mingen' or the greedy 'datafly' instead"
                )


class PlannedAnonymizer(Anonymizer):
    """An anonymizer that decides on the class table first (``plan``) and writes second: its
    ``anonymize`` is ``plan(...).release()``, and ``--algorithm auto`` can weigh its plan
    against others' before anything is materialised."""

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
        return self.plan(
            data, policy, seed=seed, keep_order=keep_order, previous=previous, progress=progress
        ).release()

    def plan(
        self,
        data: pd.DataFrame,
        policy: Policy,
        *,
        encoded: EncodedTable | None = None,
        seed: int | None = None,
        keep_order: bool = False,
        previous: dict[str, int] | None = None,
        progress: Progress | None = None,
    ) -> Plan:
        raise NotImplementedError


@dataclass(eq=False)
class Choice:
    """A search's outcome: the chosen node, its class table and which classes are kept."""

    problem: SearchProblem
    result: SearchResult
    node: tuple[int, ...]
    table: ClassTable
    outcome: NodeOutcome
    kept_classes: np.ndarray
    limit: int
    previous: tuple[int, ...] | None
    metric: Metric
    search_seconds: float


class GeneralizationAnonymizer(PlannedAnonymizer):
    """A full-domain generalization search with suppression (ARX semantics)."""

    engine_release: ClassVar[bool] = True
    #: full-domain generalization recodes every record alike, so a person's records with the
    #: same values fall in the same class; suppression takes people out (``problem``)
    counts_people: ClassVar[bool] = True

    #: whether the search is guaranteed to return the optimum by the policy's metric
    optimal: ClassVar[bool] = True
    #: whether the search keeps per-node arrays over the whole lattice (bounded in size)
    exhaustive: ClassVar[bool] = True

    def search(self, problem: SearchProblem) -> SearchResult:
        raise NotImplementedError

    def choose(
        self,
        encoded: EncodedTable,
        policy: Policy,
        *,
        previous: dict[str, int] | None = None,
        progress: Progress | None = None,
        lower: Sequence[int] | None = None,
    ) -> Choice:
        """Search the lattice of ``encoded`` and return the chosen node with its class table.

        ``encoded`` may be an engine's aggregated counts (weights): only class tables are used.
        ``lower`` (a node the data was already generalized to, e.g. inside an engine) bounds
        the lattice from below like ``previous`` does; the higher of the two wins per attribute.
        """
        self.refuse_unsupported(policy)
        self.refuse_non_monotone(policy)
        check_possible(encoded, policy)
        limit = int(np.floor(policy.suppression_limit * encoded.n_records + 1e-9))
        prev = previous_lower(encoded, previous)
        bound = prev
        if lower is not None:
            bound = tuple(lower) if prev is None else tuple(map(max, prev, lower))
        metric = get_metric(policy.metric)
        search_started = time.perf_counter()
        configs = table_models(policy.models)  # graph models have nothing to say here
        problem = SearchProblem(
            encoded, configs, limit, metric, bound, progress, exhaustive=self.exhaustive
        )
        result = self.search(problem)
        search_seconds = time.perf_counter() - search_started
        if result.optimum is None:
            raise PolicyError(nothing_satisfies(encoded, policy, limit, bound))
        node = result.optimum
        table = problem.evaluator.records_table(node)
        if table is None:
            table = count(encoded, node, track_records=encoded.weights is None)
        table, outcome, kept_classes = problem.evaluator.settle(table)
        if not outcome.satisfied:  # pragma: no cover - the search returned a failing node
            raise RuntimeError(f"{self.name} chose node {node}, which does not satisfy the policy")
        return Choice(
            problem, result, node, table, outcome, kept_classes, limit, prev, metric, search_seconds
        )

    def plan(
        self,
        data: pd.DataFrame,
        policy: Policy,
        *,
        encoded: EncodedTable | None = None,
        seed: int | None = None,
        keep_order: bool = False,
        previous: dict[str, int] | None = None,
        progress: Progress | None = None,
        lower: Sequence[int] | None = None,
    ) -> Plan:
        """Search the lattice (on class tables only); the release is written by ``release``
        (or, by an engine, from ``mapping``). ``lower``: see ``choose``."""
        started = time.perf_counter()
        if encoded is None:
            encoded = encode(data, policy)
        choice = self.choose(encoded, policy, previous=previous, progress=progress, lower=lower)
        keep = None if choice.outcome.clean else choice.kept_classes
        metrics = all_metrics(choice.table, keep)
        n_kept = int(choice.table.sizes[choice.kept_classes].sum())
        n_suppressed = encoded.n_records - n_kept
        planned = time.perf_counter() - started

        def release() -> tuple[pd.DataFrame, AnonymizationReport]:
            return self.release_choice(
                data, encoded, choice, policy, seed=seed, keep_order=keep_order, started=started
            )

        def mapping() -> NodeMapping:
            return node_mapping(
                data, encoded, choice.node, choice.table, choice.kept_classes, policy
            )

        def engine_report(engine: EngineRelease) -> AnonymizationReport:
            star = policy.suppressed_records == "star"
            report = self.make_report(
                choice,
                encoded,
                policy,
                check=engine.check,
                n_released_rows=encoded.n_records if star else n_kept,
                removed=engine.removed,
                seed_given=False,
                keep_order=True,
            )
            before = None
            if engine.ground:
                before = ground_classes(encoded, policy, data, choice.problem.evaluator.root)
            attach_risk(report, policy, before)
            report.elapsed_seconds = round(time.perf_counter() - started, 4)
            return report

        return Plan(
            algorithm=self.name,
            metrics=metrics,
            n_classes=int(np.count_nonzero(choice.kept_classes)),
            n_suppressed=n_suppressed,
            suppressed_cells=n_suppressed * len(encoded.quasi_identifiers),
            class_sizes=choice.table.subjects[choice.kept_classes],
            seconds=planned,
            release=release,
            mapping=mapping,
            engine_report=engine_report,
        )

    def release_choice(
        self,
        data: pd.DataFrame,
        encoded: EncodedTable,
        choice: Choice,
        policy: Policy,
        *,
        seed: int | None,
        keep_order: bool,
        started: float,
    ) -> tuple[pd.DataFrame, AnonymizationReport]:
        """Materialise the chosen node's release, re-check it and build the report."""
        kept_records = choice.kept_classes[choice.table.record_class]
        release, suppressed = materialise(
            data,
            encoded,
            choice.node,
            kept_records,
            policy,
            keep_order=keep_order,
            seed=seed,
            table=choice.table,
            keep_individual=True,
        )
        check = recheck_codes(
            data, encoded, choice.table, kept_records, policy, n_rows=len(release)
        )
        if check is None:  # kept records that read back as suppressed: check the written rows
            check = recheck(release, suppressed, policy)
        release = without_individual(release, policy)
        report = self.make_report(
            choice,
            encoded,
            policy,
            check=check,
            n_released_rows=len(release),
            removed=removed_columns(data, policy),
            seed_given=seed is not None,
            keep_order=keep_order,
        )
        if policy.utility is not None:
            from privcheck.utility.report import node_release_utility

            report.utility = node_release_utility(data, encoded, choice.node, kept_records, policy)
        before = ground_classes(encoded, policy, data, choice.problem.evaluator.root)
        attach_risk(report, policy, before)
        report.elapsed_seconds = round(time.perf_counter() - started, 4)
        return release, report

    def make_report(
        self,
        choice: Choice,
        encoded: EncodedTable,
        policy: Policy,
        *,
        check: Report,
        n_released_rows: int,
        removed: list[str],
        seed_given: bool,
        keep_order: bool,
    ) -> AnonymizationReport:
        """The anonymization report of a chosen node (shared by pandas and the engines)."""
        result, lattice, table = choice.result, choice.problem.lattice, choice.table
        keep = None if choice.outcome.clean else choice.kept_classes
        n_kept = int(table.sizes[choice.kept_classes].sum())
        minimal = lattice.minimal(result.satisfying) if result.exact else None
        return AnonymizationReport(
            algorithm=self.name,
            parameters=self.parameters(
                policy, seed_given, keep_order, choice.previous, choice.limit
            ),
            quasi_identifiers=encoded.qi_names,
            node=lattice.describe(choice.node),
            n_records=encoded.n_records,
            n_kept=n_kept,
            n_suppressed=int(encoded.n_records - n_kept),
            **people_counts(encoded, check),
            n_released_rows=n_released_rows,
            removed_columns=removed,
            metric=choice.metric.name,
            metrics=all_metrics(table, keep),
            loss_by_attribute=loss_by_attribute(table, keep),
            nodes_evaluated=choice.problem.evaluations,
            lattice_size=lattice.size,
            satisfying_nodes=int(result.satisfying.sum()) if result.exact else None,
            minimal_nodes=(
                [lattice.describe(lattice.node(i)) for i in np.flatnonzero(minimal)]
                if minimal is not None
                else None
            ),
            path=[lattice.describe(n) for n in result.path] if result.path else None,
            tradeoff=(
                [
                    {"node": lattice.describe(p.node), "value": p.value, "suppressed": p.suppressed}
                    for p in result.tradeoff
                ]
                if result.tradeoff is not None
                else None
            ),
            check=check,
            search_seconds=round(choice.search_seconds, 4),
        )

    def parameters(
        self,
        policy: Policy,
        seed_given: bool,
        keep_order: bool,
        lower: Sequence[int] | None,
        limit: int,
    ) -> dict[str, Any]:
        """Everything that determines the release (published: the transparency principle) —
        except the randomness: whether a seed was given, never its value (with the seed anyone
        could replay the row shuffle and link release rows back to input positions)."""
        return {
            **self.params,
            "models": [{"model": m.model, **m.params()} for m in policy.models],
            "suppression_limit": policy.suppression_limit,
            "suppression_limit_records": limit,
            "suppressed_records": policy.suppressed_records,
            "metric": policy.metric,
            "seed_given": seed_given,
            "keep_order": keep_order,
            "previous_node": list(lower) if lower is not None else None,
        }


def suppressed_cells_of(report: AnonymizationReport) -> int:
    """Quasi-identifier cells a release gives as ``*`` by suppression: blanked cells (local
    suppression) plus every cell of a suppressed record (left out or written as ``*``)."""
    if report.suppressed_cells:  # blanking: a suppressed record's cells are among the blanked
        return int(report.suppressed_cells["total"])
    return report.n_suppressed * len(report.quasi_identifiers)


def check_possible(encoded: EncodedTable, policy: Policy) -> None:
    """Refuse policies no generalization can satisfy, saying why (before any search)."""
    n = encoded.n_records
    if n == 0:
        raise PolicyError("the table has no records; there is nothing to anonymize")
    validate_data(encoded, table_models(policy.models))
    people = encoded.individual is not None
    size, unit = (encoded.n_individuals, "people") if people else (n, "records")
    for m in policy.models:
        k = getattr(m, "k", None)
        if m.model in ("k-anonymity", "alpha-k-anonymity") and k is not None and k > size:
            raise PolicyError(
                f"{m.model} with k={k} cannot hold: the table has only {size} {unit}; use "
                f"k ≤ {size}"
            )
        if m.model == "l-diversity":
            col = encoded.sensitive[m.attribute]
            distinct = int(np.count_nonzero(np.bincount(col.codes, minlength=1)))
            if m.l > distinct:
                raise PolicyError(
                    f"l-diversity with l={m.l:g} cannot hold: {m.attribute!r} has only "
                    f"{distinct} distinct values in the table; use l ≤ {distinct}"
                )


def nothing_satisfies(
    encoded: EncodedTable, policy: Policy, limit: int, lower: Sequence[int] | None
) -> str:
    """Why no node satisfies the policy: a model the whole table (the top node) violates, or
    the suppression limit."""
    top = count(encoded, encoded.top, track_records=False)
    for ev in evaluate_models(top, table_models(policy.models)):
        if not ev.passed and top.n_classes == 1:
            return (
                f"no generalization satisfies {ev.config.model} ({_params(ev.config)}): even "
                f"with every quasi-identifier fully generalized the table violates it "
                f"({ev.statistic} = {_fmt(ev.value())}); relax the model"
            )
    where = f" above the previous release's node {tuple(lower)}" if lower is not None else ""
    pct = 100.0 * policy.suppression_limit
    return (
        f"no generalization{where} satisfies the policy within the suppression limit of "
        f"{limit} records ({pct:g}% of {encoded.n_records}); raise suppression_limit or relax "
        "the models"
    )


def _params(config) -> str:
    return ", ".join(f"{k}={v}" for k, v in config.params().items())


def previous_lower(
    encoded: EncodedTable, previous: dict[str, int] | None
) -> tuple[int, ...] | None:
    """The previous release's node as the lattice's lower bound (complementary releases)."""
    if previous is None:
        return None
    names = encoded.qi_names
    if sorted(previous) != sorted(names):
        from privcheck.messages import shown_key

        raise PolicyError(
            f"the previous release generalized {', '.join(map(shown_key, previous))}, but this "
            "policy's "
            f"quasi-identifiers are {', '.join(names)}; a follow-up release must use the same "
            "quasi-identifiers"
        )
    lower = []
    for col in encoded.quasi_identifiers:
        level = int(previous[col.name])
        if not 0 <= level <= col.height:
            raise PolicyError(
                f"the previous release generalized {col.name!r} to level {level}, but its "
                f"hierarchy has levels 0..{col.height}; use the same hierarchies"
            )
        lower.append(level)
    return tuple(lower)
