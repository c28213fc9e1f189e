"""The exact solver of local suppression: the fewest blanked cells by integer programming.

``whole_minimum`` solves the whole class table (the caller says when), started from the best
heuristic blanking and the rounded relaxation, within a time budget (HiGHS through ``highspy``,
which takes a starting solution and reports its proven bound); ``polish`` re-solves
neighbourhoods of a heuristic's result with everything else fixed (``least_cost_placement``,
scipy's HiGHS under a node limit). Both build the same integer program (``placement_model``).
The heuristics they start from or compete with are in
``privcheck.anonymizers.blanking_search``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from privcheck.anonymizers.blanking_search import (
    Problem,
    Units,
    finish_leftovers,
    greedy,
    group_view,
    refine,
)
from privcheck.classes import group

#: a result is trusted only when proven optimal within this many branch-and-bound nodes (a
#: node limit, not a time limit: the release must not depend on the machine's speed)
EXACT_NODE_LIMIT = 500
#: the restricted programs of ``whole_minimum``, in order: (columns — the pairs the relaxation
#: or a known blanking uses, times this factor, the others added in order of reduced cost —,
#: share of the time left the step may take). Measured on 100–200-row tables of 5–6
#: quasi-identifiers, k 4–5: the first step finishes in 0.02–0.3 s; the wider ones find better
#: blankings when they finish, and the ladder stops at the first one cut short. The first step
#: may take most of the time: on Adult it is cut short, and it is what improves the blanking
#: there (the whole program's search rarely does within seconds)
LADDER = ((1.0, 0.8), (1.5, 0.5), (2.0, 0.5), (3.0, 0.6))
#: the size of a neighbourhood ``polish`` re-solves exactly, in (class, pattern) pairs
POLISH_PAIRS = 600


@dataclass
class Minimum:
    """The integer program's answer on the whole table: its best placement (None: none found in
    time), whether that is proven to blank the fewest cells, and the proven lower bound on the
    cells of any valid blanking (0 when the solve proved nothing)."""

    units: Units | None
    optimal: bool
    bound: int
    #: whether the linear relaxation was solved (False: cut short by ``relaxation_seconds``)
    relaxed: bool = True


def whole_minimum(
    prob: Problem, start: Units, seconds: float, relaxation_seconds: float | None = None
) -> Minimum:
    """The fewest cells on the whole class table by HiGHS (``highspy``), started from ``start``
    (a valid heuristic blanking), within ``seconds``:

    1. the linear relaxation: its optimum, rounded up, bounds every valid blanking's cells;
    2. the relaxation rounded (``rounded_relaxation``: each class at the pattern holding most of
       its records there, the groups left below k fixed by the greedy, then refined) — on the
       hard shapes (most records unique, 5–6 quasi-identifiers) often better than every
       heuristic, and cheap;
    3. a ladder of restricted programs (``LADDER``): the (class, pattern) pairs the relaxation
       or a known blanking uses, widened step by step by the pairs of least reduced cost, each
       started from the best so far — a few hundred columns that HiGHS
       solves to optimality in a fraction of the time the whole program's search needs to find
       as good a blanking; the ladder stops at the first step cut short;
    4. the whole program, started from the best so far, for the rest: it proves the optimum
       when it finishes, else its dual bound.

    With ``relaxation_seconds``, a relaxation not solved by then ends the call (``relaxed``
    False, nothing proven) so that the caller can spend the rest otherwise.

    The time budget makes the release depend on the machine's speed only where a solve is cut
    short, and then the answer is not flagged optimal."""
    import highspy

    deadline = time.perf_counter() + seconds
    model = placement_model(prob, np.arange(len(prob.sizes)), None)
    nx, n_col = len(model.cls), len(model.cost)
    lp = highs_model(model)
    best = start
    bound = 0

    def left() -> float:
        return deadline - time.perf_counter()

    def proven() -> bool:
        return prob.over(best) == 0 and prob.cells(best) <= bound

    cap = left() if relaxation_seconds is None else min(left(), relaxation_seconds)
    relaxed = run_highs(lp, cap, None)
    if relaxed.getModelStatus() == highspy.HighsModelStatus.kInfeasible:
        return Minimum(None, False, 0)
    if relaxation_seconds is not None and (
        relaxed.getModelStatus() != highspy.HighsModelStatus.kOptimal
    ):
        return Minimum(None, False, 0, relaxed=False)
    if relaxed.getModelStatus() == highspy.HighsModelStatus.kOptimal:
        bound = max(0, math.ceil(relaxed.getInfo().objective_function_value - 1e-6))
        if proven():
            return Minimum(best, True, bound)
        solution = relaxed.getSolution()
        values = np.asarray(solution.col_value)[:nx]
        reduced = np.asarray(solution.col_dual)[:nx]
        known = values > 1e-9  # the pairs the relaxation or a known blanking uses
        for candidate in rounded_relaxation(prob, model, values):
            warm = warm_start(prob, model, candidate)
            if warm is not None:
                known |= warm[:nx] > 0
            if prob.score(candidate) < prob.score(best):
                best = candidate
        lp.integrality_ = [highspy.HighsVarType.kInteger] * n_col
        by_reduced_cost = np.argsort(reduced, kind="stable")
        for factor, share in LADDER:
            if left() <= 0.02 or proven():
                break
            warm = warm_start(prob, model, best)
            if warm is not None:
                known |= warm[:nx] > 0
            columns = known.copy()
            wider = by_reduced_cost[~known[by_reduced_cost]]
            columns[wider[: int((factor - 1.0) * known.sum())]] = True
            upper = np.asarray(model.upper).copy()
            upper[:nx][~columns] = 0.0
            lp.col_upper_ = upper
            step = run_highs(lp, left() * share, warm)
            best = better(prob, model, best, step)
            if step.getModelStatus() != highspy.HighsModelStatus.kOptimal or columns.all():
                break
        lp.col_upper_ = model.upper
    if left() <= 0.02 or proven():
        return Minimum(best, proven(), bound)
    lp.integrality_ = [highspy.HighsVarType.kInteger] * n_col
    whole = run_highs(lp, left(), warm_start(prob, model, best))
    best = better(prob, model, best, whole)
    dual = whole.getInfo().mip_dual_bound
    if np.isfinite(dual):
        bound = max(bound, math.ceil(dual - 1e-6))
    # proven: the count meets a bound (the whole run's dual bound meets its incumbent when it
    # finishes, within HiGHS's relative gap of 1e-4: exact below 10,000 cells)
    optimal = proven()
    return Minimum(best, optimal, min(bound, prob.cells(best)) if optimal else bound)


def rounded_relaxation(prob: Problem, model: PlacementModel, values: np.ndarray) -> list[Units]:
    """Valid blankings read from the relaxation's solution ``values`` (its x columns): every
    class released whole at the pattern holding most of its records in the relaxation (ties:
    the fewer cells), the groups that leaves below k fixed by ``greedy``, and that refined."""
    nx = len(model.cls)
    if nx == 0:
        return []
    order = np.lexsort((model.cost[:nx], -values, model.cls))
    heads = order[np.r_[0, np.flatnonzero(np.diff(model.cls[order])) + 1]]
    pat = prob.already.copy()
    pat[model.cls[heads]] = model.pat[heads]
    fixed = finish_leftovers(prob, greedy(prob, prob.start(pat)))
    return [fixed, refine(prob, fixed)]


def highs_model(model: PlacementModel) -> Any:
    """``model`` as a HiGHS model (continuous: the linear relaxation)."""
    import highspy

    csr = model.matrix
    lp = highspy.HighsLp()
    lp.num_col_ = len(model.cost)
    lp.num_row_ = csr.shape[0]
    lp.col_cost_ = model.cost
    lp.col_lower_ = model.lower
    lp.col_upper_ = model.upper
    lp.row_lower_ = model.row_lower
    lp.row_upper_ = model.row_upper
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.start_ = csr.indptr.astype(np.int32)
    lp.a_matrix_.index_ = csr.indices.astype(np.int32)
    lp.a_matrix_.value_ = csr.data.astype(np.float64)
    return lp


def run_highs(lp: Any, seconds: float, warm: np.ndarray | None) -> Any:
    """HiGHS run on ``lp`` for at most ``seconds`` (one thread, a fixed seed, silent), from the
    solution ``warm`` when given."""
    import highspy

    # the core class: highspy.Highs prints a banner on stdout when made (and adds callbacks)
    h = highspy._core._Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", float(max(seconds, 0.01)))
    h.setOptionValue("threads", 1)
    h.setOptionValue("random_seed", 0)
    h.passModel(lp)
    if warm is not None:
        h.setSolution(len(warm), np.arange(len(warm), dtype=np.int32), warm)
    h.run()
    return h


def better(prob: Problem, model: PlacementModel, best: Units, h: Any) -> Units:
    """The solution of the HiGHS run ``h`` when it is a valid blanking of every record scoring
    better than ``best``, else ``best``."""
    solution = h.getSolution()
    if not solution.value_valid:
        return best
    units = model.units(prob, np.asarray(solution.col_value))
    if not prob.valid(units) or int(units.sizes.sum()) != int(prob.sizes.sum()):
        return best
    return units if prob.score(units) < prob.score(best) else best


def warm_start(prob: Problem, model: PlacementModel, start: Units) -> np.ndarray | None:
    """The columns of ``model`` that release ``start`` (None when one of its units has no
    column: a row the model dropped, which a valid blanking never uses)."""
    nx = len(model.cls)
    width = np.int64(1) << prob.m
    column_key = model.cls * width + model.pat
    order = np.argsort(column_key)
    live = start.sizes > 0
    unit_key = start.parent[live] * width + start.pat[live]
    at = np.searchsorted(column_key[order], unit_key)
    at = np.minimum(at, nx - 1)
    if nx == 0 or not (column_key[order][at] == unit_key).all():
        return None
    values = np.zeros(len(model.cost))
    np.add.at(values, order[at], start.sizes[live].astype(np.float64))
    used = model.row_of[order[at]]
    values[nx + used[used >= 0]] = 1.0
    return values


def pattern_pairs(prob: Problem, classes: np.ndarray) -> int:
    """(class, pattern) pairs of ``classes``: each may blank any of its cells not yet '*'."""
    free = prob.m - np.bitwise_count(prob.already[classes]).astype(np.int64)
    return int((np.int64(1) << free).sum())


def polish(prob: Problem, u: Units, rounds: int) -> Units:
    """Re-solve neighbourhoods exactly: the classes of the group whose records lose the most cells
    and the classes nearest them (fewest differing cells, up to ``POLISH_PAIRS`` (class, pattern)
    pairs) are freed, every other unit stays where it is, and the integer program places the
    freed classes' records at least cost. The current placement is one of its solutions, so a
    round never costs cells; each group is a seed once (named by its first class)."""
    tried = np.zeros(len(prob.sizes), dtype=bool)
    index = np.arange(len(prob.sizes))
    for _ in range(rounds):
        inverse, gsize, gpat, _, _ = group_view(prob, u)
        head = np.full(len(gsize), len(prob.sizes), dtype=np.int64)
        np.minimum.at(head, inverse, u.parent)
        per = np.bitwise_count(gpat & ~prob.already[head]).astype(np.int64)
        open_ = np.flatnonzero((per > 1) & ~tried[head])
        if not len(open_):
            return u
        seed = int(open_[np.lexsort((head[open_], -per[open_]))[0]])
        tried[head[seed]] = True
        own = prob.keys[np.unique(u.parent[inverse == seed])]
        distance = (prob.keys[:, None, :] != own[None, :, :]).sum(axis=2).min(axis=1)
        near = np.lexsort((index, distance))
        weight = np.int64(1) << (prob.m - np.bitwise_count(prob.already[near]).astype(np.int64))
        free = np.sort(near[np.cumsum(weight) <= POLISH_PAIRS])
        if not len(free):
            continue
        out = np.isin(u.parent, free)
        fixed = Units(u.keys[~out], u.sizes[~out], u.pat[~out], u.parent[~out])
        now = Units(u.keys[out], u.sizes[out], u.pat[out], u.parent[out])
        placed = least_cost_placement(prob, free, fixed)
        if placed is not None and prob.cells(placed) < prob.cells(now):
            u = Units(
                np.vstack([fixed.keys, placed.keys]),
                np.concatenate([fixed.sizes, placed.sizes]),
                np.concatenate([fixed.pat, placed.pat]),
                np.concatenate([fixed.parent, placed.parent]),
            )
    return u


def least_cost_placement(prob: Problem, free: np.ndarray, fixed: Units | None) -> Units | None:
    """The least-cost placement of the records of the classes ``free``, the units ``fixed``
    staying where they are (scipy's HiGHS), or None when not proven optimal within the node
    limit (or infeasible: ``star`` mode over the limit).

    x[c, P]: records of class c released with pattern P; y[r]: released row r is used. Each
    class's records are all released; a used row holds ≥ k records, the fixed ones included (a
    row a fixed unit already uses must be used); ``star`` mode: the all-'*' row is exempt and
    holds at most ``limit``; cost Σ |P \\ already-'*'| · x."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    model = placement_model(prob, free, fixed)
    result = milp(
        model.cost,
        integrality=np.ones(len(model.cost)),
        bounds=Bounds(model.lower, model.upper),
        constraints=LinearConstraint(model.matrix, model.row_lower, model.row_upper),
        options={"node_limit": EXACT_NODE_LIMIT},
    )
    if result.x is None:  # infeasible, or no solution within the node limit
        return None
    return model.units(prob, result.x)


@dataclass
class PlacementModel:
    """The integer program of ``least_cost_placement``: columns x[c, P] (``cls``, ``pat``), then
    one binary per released row (``rows``); each x's row is ``row_of``."""

    cls: np.ndarray
    pat: np.ndarray
    row_of: np.ndarray  # per x column its released row's column − nx (−1: exempt, no row)
    cost: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    matrix: Any  # scipy CSR
    row_lower: np.ndarray
    row_upper: np.ndarray

    def units(self, prob: Problem, values: np.ndarray) -> Units:
        x = np.round(np.asarray(values)[: len(self.cls)]).astype(np.int64)
        take = x > 0
        return Units(prob.keys[self.cls[take]], x[take], self.pat[take], self.cls[take])


def placement_model(prob: Problem, free: np.ndarray, fixed: Units | None) -> PlacementModel:
    """Build the integer program ``least_cost_placement`` and ``whole_minimum`` solve."""
    from scipy.sparse import coo_matrix, vstack

    m, k = prob.m, prob.k
    pats = np.arange(1 << m, dtype=np.int64)
    allowed = (pats[None, :] & prob.already[free, None]) == prob.already[free, None]
    which, pi = np.nonzero(allowed)
    cls, p = free[which], pats[pi]
    released = prob.released(p, prob.keys[cls])
    n_fixed = 0 if fixed is None else len(fixed.sizes)
    if n_fixed:
        released = np.vstack([released, prob.released(fixed.pat, fixed.keys)])
    row, n_rows = group([released[:, j] for j in range(m)], prob.radix)
    there = np.zeros(n_rows)  # records the fixed units hold in each row
    if n_fixed:
        there = np.bincount(row[len(cls) :], weights=fixed.sizes, minlength=n_rows)
        row = row[: len(cls)]
    exempt = (p == prob.full) if prob.star_mode else np.zeros(len(cls), dtype=bool)
    room = float(prob.limit)
    if prob.star_mode and n_fixed:
        room -= float(fixed.sizes[fixed.pat == prob.full].sum())
    # a row that the classes reaching it cannot fill to k is never used
    reach = np.bincount(row, weights=prob.sizes[cls], minlength=n_rows) + there
    keep = exempt | (reach[row] >= k)
    cls, p, exempt, row = cls[keep], p[keep], exempt[keep], row[keep]
    live = np.flatnonzero(~exempt)
    rows, row_live = np.unique(row[live], return_inverse=True)
    nx, ny = len(cls), len(rows)
    size = prob.sizes[cls].astype(np.float64)
    n_free = len(free)
    slot = np.searchsorted(free, cls)
    blocks = [
        coo_matrix((np.ones(nx), (slot, np.arange(nx))), shape=(n_free, nx + ny)),  # = size
        coo_matrix(  # x − size · y ≤ 0
            (
                np.concatenate([np.ones(len(live)), -size[live]]),
                (np.tile(np.arange(len(live)), 2), np.concatenate([live, nx + row_live])),
            ),
            shape=(len(live), nx + ny),
        ),
        coo_matrix(  # Σ x + fixed − k · y ≥ 0
            (
                np.concatenate([np.ones(len(live)), np.full(ny, -float(k))]),
                (
                    np.concatenate([row_live, np.arange(ny)]),
                    np.concatenate([live, nx + np.arange(ny)]),
                ),
            ),
            shape=(ny, nx + ny),
        ),
    ]
    total = prob.sizes[free].astype(np.float64)
    lo = [total, np.full(len(live), -np.inf), -there[rows]]
    hi = [total, np.zeros(len(live)), np.full(ny, np.inf)]
    if prob.star_mode:
        blocks.append(
            coo_matrix(np.concatenate([exempt, np.zeros(ny)]).astype(np.float64)[None, :])
        )
        lo.append(np.zeros(1))
        hi.append(np.full(1, room))
    cost = np.concatenate([np.bitwise_count(p & ~prob.already[cls]), np.zeros(ny)])
    y_lo = (there[rows] > 0).astype(np.float64)  # a row fixed records use stays in use
    row_of = np.full(nx, -1, dtype=np.int64)
    row_of[live] = row_live
    return PlacementModel(
        cls=cls,
        pat=p,
        row_of=row_of,
        cost=cost.astype(np.float64),
        lower=np.concatenate([np.zeros(nx), y_lo]),
        upper=np.concatenate([size, np.ones(ny)]),
        matrix=vstack(blocks).tocsr(),
        row_lower=np.concatenate(lo),
        row_upper=np.concatenate(hi),
    )
