"""The full-domain generalization searches' shared planner (ARX semantics).

A subclass (MinGen, Incognito, DataFly) only implements ``search`` over the lattice
(``privcheck.anonymizers.problem.SearchProblem``); the impossible-policy diagnosis, the choice
of the node, its suppressed classes and the plan's figures are done here once. The plan is a
``NodeRecoding``: any engine writes it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from privcheck.anonymizers.base import (
    Anonymizer,
    check_possible,
    node_plan,
    nothing_satisfies,
    previous_lower,
    suppression_limit_records,
)
from privcheck.anonymizers.evaluator import NodeOutcome
from privcheck.anonymizers.problem import Progress, SearchProblem, SearchResult
from privcheck.classes import ClassTable, count
from privcheck.encoding import EncodedTable
from privcheck.errors import PolicyError
from privcheck.metrics.generalization import Metric, get_metric
from privcheck.models.base import table_models
from privcheck.plan import Plan
from privcheck.policy import Policy


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


class GeneralizationAnonymizer(Anonymizer):
    """A full-domain generalization search with suppression (ARX semantics)."""

    engine_release: ClassVar[bool] = True
    takes_start: ClassVar[bool] = True
    #: full-domain generalization recodes every record alike, so a person's records with the
    #: same values fall in the same class; suppression takes people out (``evaluator``)
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
        limit = suppression_limit_records(policy, encoded.n_records)
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
        encoded: EncodedTable | None,
        policy: Policy,
        *,
        rows: Any = None,
        seed: int | None = None,
        previous: dict[str, int] | None = None,
        progress: Progress | None = None,
        lower: Sequence[int] | None = None,
    ) -> Plan:
        """Search the lattice (on class tables only) and plan the chosen node's release.
        ``lower``: see ``choose``."""
        started = time.perf_counter()
        choice = self.choose(encoded, policy, previous=previous, progress=progress, lower=lower)
        return node_plan(
            self.name,
            encoded,
            choice.node,
            choice.table,
            choice.kept_classes,
            choice.outcome.clean,
            self.search_report(choice, encoded, policy),
            started=started,
            ground_table=choice.problem.evaluator.root,
        )

    def search_report(
        self, choice: Choice, encoded: EncodedTable, policy: Policy
    ) -> dict[str, Any]:
        """The fields of a chosen node's anonymization report that the search knows."""
        result, lattice = choice.result, choice.problem.lattice
        minimal = lattice.minimal(result.satisfying) if result.exact else None
        return {
            "algorithm": self.name,
            "parameters": self.parameters(policy, choice.previous, choice.limit),
            "quasi_identifiers": encoded.qi_names,
            "node": lattice.describe(choice.node),
            "metric": choice.metric.name,
            "nodes_evaluated": choice.problem.evaluations,
            "lattice_size": lattice.size,
            "satisfying_nodes": int(result.satisfying.sum()) if result.exact else None,
            "minimal_nodes": (
                [lattice.describe(lattice.node(i)) for i in np.flatnonzero(minimal)]
                if minimal is not None
                else None
            ),
            "path": [lattice.describe(n) for n in result.path] if result.path else None,
            "tradeoff": (
                [
                    {"node": lattice.describe(p.node), "value": p.value, "suppressed": p.suppressed}
                    for p in result.tradeoff
                ]
                if result.tradeoff is not None
                else None
            ),
            "search_seconds": round(choice.search_seconds, 4),
        }

    def parameters(self, policy: Policy, lower: Sequence[int] | None, limit: int) -> dict[str, Any]:
        """Everything that determines the release (published: the transparency principle) —
        except the randomness: whether a seed was given (set by the release), never its value
        (with the seed anyone could replay the row shuffle and link release rows back to input
        positions)."""
        return {
            **self.params,
            "models": [{"model": m.model, **m.params()} for m in policy.models],
            "suppression_limit": policy.suppression_limit,
            "suppression_limit_records": limit,
            "suppressed_records": policy.suppressed_records,
            "metric": policy.metric,
            "seed_given": None,
            "keep_order": None,
            "previous_node": list(lower) if lower is not None else None,
        }
