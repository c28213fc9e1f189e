"""The exact solver of local suppression: the fewest blanked cells by integer programming.

``exact_minimum`` solves the whole class table when it is small (the caller says how small);
``polish`` re-solves neighbourhoods of a heuristic's result with everything else fixed. Both
place records with ``least_cost_placement`` (scipy's HiGHS, under a node limit so that a result
never depends on the machine's speed). The heuristics they start from or compete with are in
``privcheck.anonymizers.blanking_search``.
"""

from __future__ import annotations

import numpy as np

from privcheck.anonymizers.blanking_search import Problem, Units, group_view
from privcheck.classes import group

#: a result is trusted only when proven optimal within this many branch-and-bound nodes (a
#: node limit, not a time limit: the release must not depend on the machine's speed)
EXACT_NODE_LIMIT = 500
#: the size of a neighbourhood ``polish`` re-solves exactly, in (class, pattern) pairs
POLISH_PAIRS = 600


def exact_minimum(prob: Problem, max_pairs: int) -> Units | None:
    """The fewest cells by integer programming, or None when the class table has more than
    ``max_pairs`` (class, pattern) pairs or the optimum is not proven within the node limit."""
    everything = np.arange(len(prob.sizes))
    if pattern_pairs(prob, everything) > max_pairs:
        return None
    return least_cost_placement(prob, everything, None)


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
    result = milp(
        cost.astype(np.float64),
        integrality=np.ones(nx + ny),
        bounds=Bounds(np.concatenate([np.zeros(nx), y_lo]), np.concatenate([size, np.ones(ny)])),
        constraints=LinearConstraint(
            vstack(blocks).tocsr(), np.concatenate(lo), np.concatenate(hi)
        ),
        options={"node_limit": EXACT_NODE_LIMIT},
    )
    if result.x is None:  # infeasible, or no solution within the node limit
        return None
    x = np.round(result.x[:nx]).astype(np.int64)
    take = x > 0
    return Units(prob.keys[cls[take]], x[take], p[take], cls[take])
