"""What every generalization search shares: the lattice, its nodes' verdicts, and the optimum.

A node's verdict comes from ``privcheck.anonymizers.evaluator.NodeEvaluator`` (its class table
rolled up from the cache, ARX's suppression semantics, the fixed point of table-dependent models).

Three facts about a node drive the pruning (for models with the generalization property):
``clean`` (no class violates anything: nothing to suppress) carries to every generalization;
``monotone_ok`` (the models whose violators only shrink under generalization — k-anonymity,
distinct l-diversity — stay within the limit) carries to every generalization and its failure to
every specialization; ``satisfied`` carries both ways only when every model is monotone with
suppression (or the limit is 0, when it equals ``clean``).
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from privcheck.anonymizers.evaluator import NodeEvaluator, NodeOutcome
from privcheck.encoding import EncodedTable
from privcheck.errors import PolicyError
from privcheck.lattice import Lattice, Node
from privcheck.limits import EXHAUSTIVE_NODES, LATTICE_NODES
from privcheck.metrics.generalization import (
    Metric,
    loss_bounds,
    loss_level_sums,
    precision,
)
from privcheck.plugins import model_registry
from privcheck.policy import ModelConfig

#: lattice nodes a search keeping per-node arrays accepts by default (``LATTICE_NODES``)
MAX_LATTICE = LATTICE_NODES.default
#: quasi-identifiers a lattice search handles whatever the limits: it views per-node arrays
#: with one axis per quasi-identifier, and numpy arrays have at most 32 (numpy 1; 64 in 2)
MAX_AXES = 32

Progress = Callable[[int, int], None]


def shape_text(shape: Sequence[int], shown: int = 8) -> str:
    """A lattice's levels per quasi-identifier for a message: ``5 × 2 × 2 × …`` (at most
    ``shown`` factors)."""
    parts = [str(s) for s in shape[:shown]]
    return " × ".join(parts + (["…"] if len(shape) > shown else []))


#: how to stay within ``EXHAUSTIVE_NODES`` whatever the search
SMALLER_LATTICE = "fewer quasi-identifiers or hierarchy levels, or the greedy 'datafly'"


def require_exhaustive(nodes: int, subject: str, advice: str) -> None:
    """Refuse, before it starts, a search that would evaluate ``nodes`` nodes one by one
    (``EXHAUSTIVE_NODES``); ``subject`` says which search and why ("incognito may evaluate
    every node of a lattice of 301 × 301: it has"), ``advice`` how to avoid it."""
    EXHAUSTIVE_NODES.check(nodes, subject, advice)


@dataclass(frozen=True)
class TradeoffPoint:
    """One release on the generalization / suppression Pareto front (see ``tradeoff``)."""

    node: Node
    value: float
    suppressed: int


@dataclass(eq=False)
class SearchResult:
    """What a search found, over the lattice's node numbering."""

    #: nodes known to satisfy the policy (evaluated or tagged)
    satisfying: np.ndarray
    #: nodes whose verdict is known (evaluated or tagged); all of them for exhaustive searches
    resolved: np.ndarray
    optimum: Node | None
    optimum_outcome: NodeOutcome | None
    #: the search's own path, for greedy searches (DataFly's steps)
    path: list[Node] | None = None
    exact: bool = True
    #: the Pareto front of metric and suppressed records, when the search was asked for it
    tradeoff: list[TradeoffPoint] | None = None


class SearchProblem:
    """One anonymization task as the searches see it: lattice, evaluator, metric, progress."""

    def __init__(
        self,
        encoded: EncodedTable,
        configs: Sequence[ModelConfig],
        limit: int,
        metric: Metric,
        lower: Sequence[int] | None = None,
        progress: Progress | None = None,
        *,
        exhaustive: bool = True,
    ) -> None:
        self.encoded = encoded
        self.configs = list(configs)
        self.limit = int(limit)
        self.metric = metric
        self.lattice = Lattice(encoded.heights, lower, encoded.qi_names)
        if exhaustive:
            if self.lattice.width > MAX_AXES:
                raise PolicyError(
                    f"a full-domain search handles at most {MAX_AXES} quasi-identifiers (one "
                    f"array axis each); the policy has {self.lattice.width}: use fewer, or "
                    "mondrian"
                )
            LATTICE_NODES.check(
                self.lattice.size,
                f"the generalization lattice (levels {shape_text(self.lattice.shape)}) has",
                "use fewer quasi-identifiers or hierarchy levels, or the greedy 'datafly'",
            )
        self.evaluator = NodeEvaluator(encoded, configs, limit, self.lattice.lower)
        self.outcomes: dict[int, NodeOutcome] = {}
        self._loss_sums: list[np.ndarray] | None = None
        #: the last ``optimum``'s satisfying nodes and answer
        self._optimum_memo: tuple[np.ndarray, tuple[Node | None, NodeOutcome | None]] | None = None
        self._progress = progress
        self.started = time.perf_counter()
        registry = model_registry()
        self.monotone = all(registry[c.model].monotone for c in self.configs)
        #: whether "satisfied within the limit" has the generalization property
        self.pruning_sound = self.monotone and (self.limit == 0 or not self.evaluator.other_configs)

    @property
    def evaluations(self) -> int:
        return self.evaluator.evaluations

    def evaluate(self, node: Sequence[int]) -> NodeOutcome:
        """Evaluate a node of the lattice (memoised). The node is evaluated as given, never
        looked up by number: a greedy search on a lattice too large to enumerate (DataFly is
        the search for those) must not build the table of every node."""
        i = self.lattice.index(node)
        hit = self.outcomes.get(i)
        if hit is None:
            hit = self.outcomes[i] = self.evaluator.evaluate(tuple(int(v) for v in node))
        return hit

    def evaluate_index(self, i: int) -> NodeOutcome:
        """Evaluate the node numbered ``i`` (memoised; a search's own indices need no check)."""
        hit = self.outcomes.get(i)
        if hit is None:
            hit = self.outcomes[i] = self.evaluator.evaluate(self.lattice.node(i))
        return hit

    @property
    def reports_progress(self) -> bool:
        return self._progress is not None

    def progress(self, done: int, total: int | None = None) -> None:
        """Report search progress: ``done`` of ``total`` steps (default: lattice nodes)."""
        if self._progress is not None:
            self._progress(int(done), int(self.lattice.size if total is None else total))

    # ------------------------------------------------------------------ the optimum
    def score(self, node: Node) -> tuple[float, NodeOutcome, np.ndarray | None]:
        """The metric of the release a satisfying node makes."""
        table, outcome, kept = self.evaluator.settle(self.evaluator.table(node))
        i = self.lattice.index(node)
        if i not in self.outcomes:  # ranking a tagged node evaluates it
            self.evaluator.evaluations += 1
            self.outcomes[i] = outcome
        if not outcome.satisfied:  # pragma: no cover - callers pass satisfying nodes only
            raise RuntimeError(f"node {node} does not satisfy the policy")
        keep = None if outcome.clean else kept
        return self.metric.score(table, keep), outcome, keep

    def optimum(self, satisfying: np.ndarray) -> tuple[Node | None, NodeOutcome | None]:
        """The best satisfying node by the metric; ties go to fewer suppressed records, then the
        lower node, then the first in lattice order.

        Without suppression every metric is monotone, so only the minimal satisfying nodes can be
        optimal. With suppression every satisfying node is a candidate; Prec, height and loss are
        ranked best-first by a bound (a kept record costs ``Σ h/|DGH|``, a suppressed one more),
        so the ranking stops as soon as no remaining node can win.
        """
        if not satisfying.any():
            return None, None
        memo = self._optimum_memo
        if memo is not None and np.array_equal(memo[0], satisfying):
            return memo[1]  # (``tradeoff`` without suppression asks again)
        best = self._optimum(satisfying)
        self._optimum_memo = (satisfying.copy(), best)
        return best

    def _optimum(self, satisfying: np.ndarray) -> tuple[Node | None, NodeOutcome | None]:
        """``optimum``, not memoised."""
        lat = self.lattice
        candidates = lat.minimal(satisfying) if self.limit == 0 else satisfying
        idx = np.flatnonzero(candidates)
        bound = self._cost_bounds(idx)
        ranking = (
            f"ranking the satisfying nodes by {self.metric.name} scores each (a release of "
            "its own) until no other can win:"
        )
        advice = f"use the metric prec, height or loss (they bound the ranking), {SMALLER_LATTICE}"
        if not np.isfinite(bound).any():  # no bound: every candidate is scored
            require_exhaustive(len(idx), f"{ranking} there are", advice)
        order = np.lexsort((idx, lat.node_heights[idx], bound))
        best_key, best = None, (None, None)
        budget = EXHAUSTIVE_NODES.value()
        for scored, i in enumerate(idx[order]):
            if budget and scored >= budget:  # ties of the bound: as many as there are nodes
                require_exhaustive(len(idx), f"{ranking} there are", advice)
            node = lat.node(i)
            b = bound[np.searchsorted(idx, i)]
            if best_key is not None and b > best_key[0] + 1e-12:
                break
            value, outcome, _ = self.score(node)
            key = (round(self.metric.cost(value), 12), outcome.suppressed, lat.height(node), int(i))
            if best_key is None or key < best_key:
                best_key, best = key, (node, outcome)
        return best

    def _cost_bounds(self, idx: np.ndarray) -> np.ndarray:
        """A lower bound of the metric's cost at each node of ``idx``: exact for Prec, height and
        loss without suppression (a kept record costs ``Σ h/|DGH|``, or the shares its values
        cover, a suppressed one more); −∞ for metrics that depend on the class sizes."""
        lat = self.lattice
        if self.metric.name == "prec":
            n_attr = max(lat.width, 1)
            # node_cost over every node at once, in its order of operations (same floats)
            nodes = lat.nodes[idx]
            cost = np.zeros(len(idx))
            for j, h in enumerate(lat.heights):
                if h > 0:
                    cost = cost + nodes[:, j] / h
            return -(1.0 - cost / n_attr)
        if self.metric.name == "height":
            return lat.node_heights[idx].astype(float)
        if self.metric.name == "loss":
            root = self.evaluator.root
            if self._loss_sums is None:
                self._loss_sums = loss_level_sums(root)
            return loss_bounds(self._loss_sums, lat.nodes[idx], root.n_records)
        return np.full(len(idx), -np.inf)

    def _suppression_floor(self) -> np.ndarray:
        """A lower bound of the records suppressed at every node, from the evaluated ones.

        With models whose violators only shrink under generalization (k-anonymity, distinct
        l-diversity) a node suppresses at least what any evaluated generalization of it does:
        the maximum over the evaluated nodes above (``Lattice.downward_reduce``). Other models
        (t-closeness's fixed point) give no such bound: 0.
        """
        lat = self.lattice
        floor = np.zeros(lat.size, dtype=np.int64)
        if self.evaluator.other_configs or not self.outcomes:
            return floor
        done = np.fromiter(self.outcomes, dtype=np.int64, count=len(self.outcomes))
        floor[done] = [self.outcomes[i].suppressed for i in done.tolist()]
        return lat.downward_reduce(floor, np.maximum)

    def tradeoff(self, satisfying: np.ndarray) -> list[TradeoffPoint]:
        """The Pareto front of the metric and the suppressed records over the satisfying nodes.

        The optimum by the metric is one release; with a suppression limit there is a curve of
        others that suppress fewer records for some loss of utility (with Prec, suppressed
        cells already count as fully generalized, so the optimum often spends the whole limit).
        The front lists every release not beaten on both counts, best metric first: its first
        point is the optimum, its last the best release that suppresses least.

        Exact, without scoring every satisfying node: nodes are ranked best-first by the cost
        bound of ``optimum``; a node whose bound and suppression floor are matched by a point
        already found is skipped, and the scan stops once a point that suppresses nothing costs
        no more than every remaining bound.
        """
        lat = self.lattice
        idx = np.flatnonzero(satisfying)
        if not len(idx):
            return []
        if self.limit == 0:  # nothing is ever suppressed: the optimum is the whole front
            node, outcome = self.optimum(satisfying)
            value, _, _ = self.score(node)
            return [TradeoffPoint(node, value, 0)]
        bound = self._cost_bounds(idx)
        tracing = (
            f"the trade-off front (tradeoff=true) over the satisfying nodes by "
            f"{self.metric.name} scores each until no other can join it:"
        )
        advice = (
            "pass --param tradeoff=false, use the metric prec, height or loss (they bound the "
            f"front), {SMALLER_LATTICE}"
        )
        if not np.isfinite(bound).any():  # no bound: every satisfying node is scored
            require_exhaustive(len(idx), f"{tracing} there are", advice)
        floor = self._suppression_floor()
        order = np.lexsort((idx, lat.node_heights[idx], bound))
        costs: list[float] = []  # the front so far, by increasing cost ...
        sups: list[int] = []  # ... and strictly decreasing suppression
        keys: list[tuple[int, float]] = []
        clean_cost = np.inf
        budget, scored = EXHAUSTIVE_NODES.value(), 0
        for pos in order:
            i, b = int(idx[pos]), float(bound[pos])
            if b > clean_cost + 1e-12:
                break
            at = bisect.bisect_right(costs, b + 1e-12)
            if at and sups[at - 1] <= floor[i]:
                continue  # a point found costs no more and suppresses no more
            known = self.outcomes.get(i)
            if known is not None and self.metric.name == "prec":  # no need to roll up again
                sup = known.suppressed
                value = precision(lat.nodes[i], lat.heights, self.encoded.n_records, sup)
            else:
                scored += 1
                if budget and scored > budget:  # ties of the bound: as many as there are nodes
                    require_exhaustive(len(idx), f"{tracing} there are", advice)
                value, outcome, _ = self.score(lat.node(i))
                sup = outcome.suppressed
            cost = round(self.metric.cost(value), 12)
            if sup == 0:
                clean_cost = min(clean_cost, cost)
            at = bisect.bisect_right(costs, cost)
            if at and sups[at - 1] <= sup:
                continue  # dominated, or equalled by a node ranked first (lower, then first)
            start = end = bisect.bisect_left(costs, cost)
            while end < len(costs) and sups[end] >= sup:
                end += 1  # the points it dominates
            costs[start:end], sups[start:end], keys[start:end] = [cost], [sup], [(i, value)]
        return [
            TradeoffPoint(lat.node(i), value, sup)
            for (i, value), sup in zip(keys, sups, strict=True)
        ]


class Tags:
    """What a search knows about every node: satisfies, fails, or unknown — and the same for
    the monotone part of the policy (the models monotone with suppression).

    ``record`` applies predictive tagging (Flash / OLA style): a verdict carries to the up-set
    or down-set of the node when the module docstring's monotonicity facts allow it. The monotone
    part's verdicts always carry (its models are monotone with suppression, whatever else the
    policy holds), and so does its failure to the down-set's full verdict; a satisfied or clean
    node tags its up-set only when every model has the generalization property.
    """

    def __init__(self, problem: SearchProblem) -> None:
        self.problem = problem
        size = problem.lattice.size
        self.sat = np.zeros(size, dtype=bool)
        self.fail = np.zeros(size, dtype=bool)
        self.mono_ok = np.zeros(size, dtype=bool)
        self.mono_fail = np.zeros(size, dtype=bool)
        self.tagging = True
        #: whether every model has the generalization property (satisfied / clean carry up)
        self.monotone = problem.monotone
        # the same arrays with one axis per quasi-identifier, where up-sets and down-sets are
        # boxes (views: writes land in the flat arrays)
        lat = problem.lattice
        self._sat_grid, self._fail_grid = lat.grid(self.sat), lat.grid(self.fail)
        self._ok_grid, self._mono_fail_grid = lat.grid(self.mono_ok), lat.grid(self.mono_fail)

    @property
    def resolved(self) -> np.ndarray:
        return self.sat | self.fail

    def verdicts(self, predicate: str = "satisfied") -> tuple[np.ndarray, np.ndarray]:
        """The per-node masks of where ``predicate`` is known to hold and to fail (live: they
        change as nodes are evaluated and tagged)."""
        if predicate == "satisfied":
            return self.sat, self.fail
        return self.mono_ok, self.mono_fail

    def known(self, i: int, predicate: str = "satisfied") -> bool:
        if predicate == "satisfied":
            return bool(self.sat[i] or self.fail[i])
        return bool(self.mono_ok[i] or self.mono_fail[i])

    def holds(self, i: int, predicate: str = "satisfied") -> bool:
        return bool(self.sat[i] if predicate == "satisfied" else self.mono_ok[i])

    def record(self, i: int, outcome: NodeOutcome) -> None:
        p = self.problem
        # up-sets and down-sets are boxes of the lattice grid: tag them by slice assignment
        up, down = p.lattice.boxes_at(i) if self.tagging else (None, None)
        if outcome.monotone_ok:
            self.mono_ok[i] = True
            if up is not None:
                self._ok_grid[up] = True
        else:
            self.mono_fail[i] = True
            if down is not None:
                self._mono_fail_grid[down] = True
                self._fail_grid[down] = True
        if outcome.satisfied:
            self.sat[i] = True
            if up is not None and self.monotone and (p.pruning_sound or outcome.clean):
                self._sat_grid[up] = True
        else:
            self.fail[i] = True
            # (a monotone failure has tagged the down-set already)
            if down is not None and p.pruning_sound and outcome.monotone_ok:
                self._fail_grid[down] = True

    def evaluate(self, i: int) -> NodeOutcome:
        outcome = self.problem.evaluate_index(i)
        self.record(i, outcome)
        if self.problem.reports_progress:  # counting the resolved nodes is a pass per node
            self.problem.progress(int(self.resolved.sum()))
        return outcome
