"""What an anonymizer is to privcheck: a named plugin that plans a release.

An anonymizer is a *planner* (``Anonymizer.plan``): from the encoded class table and the policy
to a ``privcheck.plan.Plan`` — what is released, in codes, and the figures it knows. It writes
no row and knows no engine: the pipeline (``privcheck.pipeline``) hands the plan to the engine
that holds the data (pandas in process, Spark), which writes, re-checks and reports it. So a
planner runs on every engine that can write its kind of plan, and ``--algorithm auto`` can weigh
plans before anything is written.

Plugins register through the ``privcheck_anonymizers`` hook, as the built-ins do. The helpers
here build the common plans: ``generalize`` releases one full-domain node (the classes that
still violate the policy suppressed), which is all a toy planner needs; the full-domain searches
share ``privcheck.anonymizers.generalization``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from privcheck.anonymizers.evaluator import NodeEvaluator
from privcheck.anonymizers.problem import Progress
from privcheck.classes import count
from privcheck.encoding import EncodedTable
from privcheck.errors import PolicyError
from privcheck.metrics.generalization import all_metrics, loss_by_attribute
from privcheck.models.base import evaluate_models, table_models, validate_data
from privcheck.params import check_param_types
from privcheck.plan import NodeRecoding, Plan
from privcheck.plugins import model_registry
from privcheck.policy import Policy
from privcheck.report import _fmt


class Anonymizer:
    """Base class of anonymizer plugins.

    Subclasses set ``name`` (the ``--algorithm`` value) and ``summary``, and implement ``plan``.
    ``pruning`` says whether the algorithm prunes with the generalization property, so it must
    refuse models that lack it (``PrivacyModel.monotone``).
    """

    name: ClassVar[str]
    summary: ClassVar[str] = ""
    pruning: ClassVar[bool] = False
    #: models that are properties of the mechanism (``target == "mechanism"``, e.g.
    #: differential privacy) which this anonymizer enforces; it refuses the others
    mechanisms: ClassVar[frozenset[str]] = frozenset()
    #: whether its plans are recodings of the class table (a ``NodeRecoding`` or a
    #: ``CombinationRecoding``) that an engine can write without the rows leaving it: it then
    #: runs on a Spark frame
    engine_release: ClassVar[bool] = False
    #: whether it plans on the encoded table; False: it reads the rows (``rows``), which only
    #: the in-process engine holds (masking)
    encodes: ClassVar[bool] = True
    #: whether it takes a start node (``lower``: a node an engine generalized the rows to when
    #: their class table would not fit), from which a full-domain search climbs
    takes_start: ClassVar[bool] = False
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

    def plan(
        self,
        encoded: EncodedTable | None,
        policy: Policy,
        *,
        rows: Any = None,
        seed: int | None = None,
        previous: dict[str, int] | None = None,
        progress: Progress | None = None,
        lower: Sequence[int] | None = None,
    ) -> Plan:
        """The release this algorithm makes of ``encoded`` (the table encoded for the policy;
        an engine's counts carry weights), as data. ``rows``: the records, when the engine
        holds them in process (a planner with ``encodes = False`` reads them instead of
        ``encoded``); ``seed``: the randomness a randomized planner draws from (None: the
        operating system's); ``previous``: an earlier release's node, a lower bound for
        full-domain searches; ``lower``: a start node (``takes_start``)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ refusals
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

    # ------------------------------------------------------------------ common plans
    def generalize(
        self,
        encoded: EncodedTable,
        policy: Policy,
        node: Sequence[int],
        *,
        started: float | None = None,
    ) -> Plan:
        """The plan that releases full-domain ``node``: every quasi-identifier at its level,
        the classes that still violate the policy there suppressed (a person's records
        together) — refused when that takes more records than the suppression limit allows.
        What a toy planner returns; its figures and report come from shared code."""
        if started is None:
            started = time.perf_counter()
        check_possible(encoded, policy)
        node = tuple(int(v) for v in node)
        limit = suppression_limit_records(policy, encoded.n_records)
        configs = table_models(policy.models)
        table = count(encoded, node, track_records=encoded.weights is None)
        evaluator = NodeEvaluator(encoded, configs, limit, lower=node, root=table)
        settled, outcome, kept = evaluator.settle(table)
        if not outcome.satisfied:
            raise PolicyError(
                f"{self.name}: the release at node {node} does not satisfy the policy within "
                f"the suppression limit of {limit} records; raise suppression_limit or "
                "generalize further"
            )
        report = {
            "algorithm": self.name,
            "parameters": {
                **self.params,
                "models": [{"model": m.model, **m.params()} for m in policy.models],
                "suppression_limit": policy.suppression_limit,
                "suppressed_records": policy.suppressed_records,
                "seed_given": None,
                "keep_order": None,
            },
            "quasi_identifiers": encoded.qi_names,
        }
        return node_plan(
            self.name, encoded, node, settled, kept, outcome.clean, report, started=started
        )


def node_plan(
    algorithm: str,
    encoded: EncodedTable,
    node: tuple[int, ...],
    table: Any,
    kept_classes: np.ndarray,
    clean: bool,
    report: dict[str, Any],
    *,
    started: float,
    ground_table: Any = None,
) -> Plan:
    """A ``NodeRecoding`` plan and the figures every full-domain release reports: its node,
    the records kept and suppressed, the metrics and the loss of each quasi-identifier
    (``report`` holds the planner's own fields)."""
    keep = None if clean else kept_classes
    metrics = all_metrics(table, keep)
    n_kept = int(table.sizes[kept_classes].sum())
    n_suppressed = encoded.n_records - n_kept
    report = {
        "node": {n: int(v) for n, v in zip(encoded.qi_names, node, strict=True)},
        "n_records": encoded.n_records,
        "n_kept": n_kept,
        "n_suppressed": int(n_suppressed),
        "metrics": metrics,
        "loss_by_attribute": loss_by_attribute(table, keep),
        **report,
    }
    if ground_table is None and tuple(table.node) == encoded.bottom:
        ground_table = table
    return Plan(
        algorithm=algorithm,
        recoding=NodeRecoding(tuple(node), table, kept_classes),
        report=report,
        metrics=metrics,
        n_classes=int(np.count_nonzero(kept_classes)),
        n_suppressed=int(n_suppressed),
        suppressed_cells=int(n_suppressed) * len(encoded.quasi_identifiers),
        class_sizes=table.subjects[kept_classes],
        seconds=time.perf_counter() - started,
        ground_table=ground_table,
    )


def suppression_limit_records(policy: Policy, n_records: int) -> int:
    """The suppression limit in records (floor of limit · N, as a check computes it)."""
    return int(np.floor(policy.suppression_limit * n_records + 1e-9))


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
