"""Incognito (LeFevre, DeWitt & Ramakrishnan, SIGMOD 2005).

Incognito finds every full-domain generalization that satisfies the policy by growing the set of
quasi-identifiers: it first finds the satisfying nodes of every single attribute, then of every
pair, and so on. Two properties make this cheap:

- *subset property*: if a table fails the policy with respect to some attributes at some levels, it
  fails with respect to any superset of them at the same levels. So the candidate nodes over an
  attribute set P are those whose projection on every (|P|−1)-subset satisfied (the candidate
  graph; the paper's join and prune steps as one vectorised lookup per subset);
- *generalization property*: a node above a satisfying node satisfies. The breadth-first search
  over a candidate graph, from its roots by height, marks every generalization of a satisfying
  node instead of evaluating it; only failing nodes push their direct generalizations.

Frequency sets ("class tables") are never recomputed from the records except once per attribute
set, at the meet of the candidate graph's roots (the paper's super-root): every other node's table
is a rollup of the smallest already computed table below it.

With a suppression limit, "satisfies" means "satisfies after suppressing at most the limit". That
keeps both properties when every model is monotone with suppression (k-anonymity, distinct
l-diversity). Otherwise the attribute subsets prune with those models only (a necessary
condition), and on the full attribute set each candidate is evaluated unless a node below it
satisfies with nothing to suppress — so the set returned is still exactly the satisfying set.

A model without the generalization property at all (δ-disclosure: a merged class can dilute a
value below its bound) is searched the same way, minus the last shortcut: a node with nothing
to suppress says nothing about its generalizations, so every candidate of the full attribute set
is evaluated. The subsets still prune with the models monotone with suppression, which keep both
properties whatever else the policy holds.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np

from privcheck.anonymizers.evaluator import NodeEvaluator, needed_view, project, subset_view
from privcheck.anonymizers.generalization import GeneralizationAnonymizer
from privcheck.anonymizers.problem import (
    SMALLER_LATTICE,
    SearchProblem,
    SearchResult,
    require_exhaustive,
    shape_text,
)
from privcheck.classes import ClassTable, count, rollup
from privcheck.encoding import EncodedTable
from privcheck.hookspecs import hookimpl
from privcheck.lattice import Lattice


class Incognito(GeneralizationAnonymizer):
    name = "incognito"
    summary = "every satisfying node via attribute subsets, rollups and pruning (LeFevre 2005)"
    # it prunes with the generalization property only where the policy's models have it (see the
    # module docstring), so it needs no refusal of models without it
    pruning = False

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """``tradeoff``: also report the Pareto front of the metric and the suppressed records
        over every satisfying node (the anonymization report draws it), as mingen does."""
        return {"tradeoff": True}

    def search(self, problem: SearchProblem) -> SearchResult:
        q = problem.lattice.width
        # its work, bounded before it starts: every node of the lattice (a node is evaluated
        # unless a satisfying one below it is known, so a policy most nodes fail evaluates
        # nearly all) and a candidate graph per attribute subset (2^q of them)
        require_exhaustive(
            max(problem.lattice.size, 2**q),
            f"incognito may evaluate every node of the lattice (levels "
            f"{shape_text(problem.lattice.shape)}) and searches all 2^{q} subsets of its "
            "quasi-identifiers: that is up to",
            "use mingen (it prunes the lattice where incognito evaluates it), " + SMALLER_LATTICE,
        )
        heights = np.asarray(problem.lattice.heights)
        lower = np.asarray(problem.lattice.lower)
        # the predicate the subsets prune with: satisfied itself when it is monotone, else the
        # part of the policy that is (models monotone with suppression)
        sound = problem.pruning_sound
        subset_configs = problem.configs if sound else problem.evaluator.monotone_configs
        satisfied: dict[tuple[int, ...], np.ndarray] = {}
        lattices: dict[tuple[int, ...], Lattice] = {}
        projections = Projections(problem, subset_configs)
        extra = 0
        steps, step = 2**q, 0  # progress: one step per attribute subset, one for the full set
        for size in range(1, q):
            if not subset_configs:
                break
            for subset in combinations(range(q), size):
                step += 1
                problem.progress(step, steps)
                lat = Lattice(heights[list(subset)], lower[list(subset)])
                cand = candidates(subset, lat, satisfied, lattices)
                lattices[subset] = lat
                if not cand.any():
                    satisfied[subset] = cand
                    continue
                root = meet(lat, cand)
                evaluator = NodeEvaluator(
                    projections.view(subset),
                    subset_configs,
                    problem.limit,
                    lower=root,
                    root=projections.table(subset, root),
                )
                satisfied[subset] = breadth_first(lat, cand, _predicate(evaluator, sound))
                extra += evaluator.evaluations
        full = tuple(range(q))
        lat = problem.lattice
        cand = (
            candidates(full, lat, satisfied, lattices)
            if q > 1 and subset_configs
            else np.ones(lat.size, dtype=bool)
        )

        def verdict(node: tuple[int, ...]) -> bool:
            return problem.evaluate(node).satisfied

        if sound:
            sat = breadth_first(lat, cand, verdict)
        else:
            sat = exhaustive_with_clean_marking(problem, lat, cand)
        problem.progress(steps, steps)
        problem.evaluator.evaluations += extra
        optimum, outcome = problem.optimum(sat)
        tradeoff = problem.tradeoff(sat) if self.params["tradeoff"] else None
        return SearchResult(sat, np.ones(lat.size, dtype=bool), optimum, outcome, tradeoff=tradeoff)


class Projections:
    """Frequency sets of attribute subsets at the lattice's lower bound, each projected from the
    one of a superset (one attribute more), down from the full set's: far fewer classes than
    records get grouped than counting every subset from the rows."""

    def __init__(self, problem: SearchProblem, configs) -> None:
        self.width = problem.lattice.width
        self.lower = problem.lattice.lower
        self.full = needed_view(problem.encoded, configs)
        self._views: dict[tuple[int, ...], EncodedTable] = {}
        self._tables: dict[tuple[int, ...], ClassTable] = {}
        self._configs = configs

    def view(self, subset: tuple[int, ...]) -> EncodedTable:
        if subset not in self._views:
            self._views[subset] = subset_view(self.full, subset)
        return self._views[subset]

    def table(self, subset: tuple[int, ...], node: tuple[int, ...] | None = None) -> ClassTable:
        """The class table of ``subset`` at ``node`` (default: the lower bound)."""
        base = self._base(subset)
        if node is None or tuple(node) == base.node:
            return base
        return rollup(base, tuple(node))

    def _base(self, subset: tuple[int, ...]) -> ClassTable:
        hit = self._tables.get(subset)
        if hit is not None:
            return hit
        full = tuple(range(self.width))
        if subset == full:
            table = count(self.view(full), self.lower, track_records=False)
        else:
            extra = min(set(full) - set(subset))
            parent = tuple(sorted((*subset, extra)))
            table = project(
                self._base(parent), [parent.index(j) for j in subset], self.view(subset)
            )
        self._tables[subset] = table
        return table


def _predicate(evaluator: NodeEvaluator, sound: bool):
    """The pruning verdict of a subset node: satisfied, or the monotone part within the limit."""

    def verdict(node: tuple[int, ...]) -> bool:
        outcome = evaluator.evaluate(node)
        return outcome.satisfied if sound else outcome.monotone_ok

    return verdict


def candidates(
    subset: tuple[int, ...],
    lat: Lattice,
    satisfied: dict[tuple[int, ...], np.ndarray],
    lattices: dict[tuple[int, ...], Lattice],
) -> np.ndarray:
    """Nodes over ``subset`` whose projection on every one-smaller subset satisfied."""
    cand = np.ones(lat.size, dtype=bool)
    if len(subset) == 1:
        return cand
    for drop in range(len(subset)):
        sub = subset[:drop] + subset[drop + 1 :]
        sub_lat = lattices[sub]
        cols = [c for c in range(len(subset)) if c != drop]
        rel = lat.nodes[:, cols] - np.asarray(sub_lat.lower)
        cand &= satisfied[sub][rel @ sub_lat.strides]
    return cand


def meet(lat: Lattice, cand: np.ndarray) -> tuple[int, ...]:
    """The componentwise minimum of the candidate nodes (the super-root)."""
    return tuple(int(v) for v in lat.nodes[cand].min(axis=0))


def breadth_first(lat: Lattice, cand: np.ndarray, verdict) -> np.ndarray:
    """Incognito's search of one candidate graph: by height from the roots; a satisfying node
    marks its generalizations, a failing one is removed and queues its direct generalizations.
    Returns the satisfying candidates (the marked ones and the evaluated satisfying ones)."""
    sat = cand.copy()
    marked = np.zeros(lat.size, dtype=bool)
    has_pred = np.zeros(lat.size, dtype=bool)
    for j in range(lat.width):
        pred = lat.predecessor_index(np.arange(lat.size), j)
        ok = pred >= 0
        has_pred[ok] |= cand[pred[ok]]
    queued = cand & ~has_pred
    for layer in lat.layers:
        for i in layer[queued[layer] & ~marked[layer]]:
            if verdict(lat.node(i)):
                marked |= lat.up_mask(lat.nodes[i]) & cand
            else:
                sat[i] = False
                for j in range(lat.width):
                    s = int(lat.successor_index(np.array([i]), j)[0])
                    if s >= 0 and cand[s]:
                        queued[s] = True
    return sat


def exhaustive_with_clean_marking(
    problem: SearchProblem, lat: Lattice, cand: np.ndarray
) -> np.ndarray:
    """Every candidate evaluated, except the generalizations of a node with nothing to
    suppress (they satisfy too, when every model has the generalization property); used when
    "satisfied within the limit" is not monotone."""
    sat = np.zeros(lat.size, dtype=bool)
    clean = np.zeros(lat.size, dtype=bool)
    for layer in lat.layers:
        for i in layer[cand[layer]]:
            if clean[i]:
                sat[i] = True
                continue
            outcome = problem.evaluate(lat.node(i))
            if outcome.satisfied:
                sat[i] = True
            if outcome.clean and problem.monotone:
                clean |= lat.up_mask(lat.nodes[i])
    return sat


@hookimpl
def privcheck_anonymizers() -> list[type]:
    return [Incognito]
