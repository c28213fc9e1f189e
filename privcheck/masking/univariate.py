"""Optimal univariate microaggregation (Hansen & Mukherjee 2003).

For one attribute the SSE-optimal k-partition groups consecutive values of the sorted
attribute, and no group needs more than 2k−1 values (a bigger one splits into two groups of at
least k without raising the SSE). So the optimum is a shortest path over the sorted values:

    F(0) = 0,   F(j) = min over s in [k, 2k−1], s ≤ j of  F(j − s) + SSE(x_(j−s+1) … x_(j))

where SSE of a run comes in O(1) from prefix sums of x and x². F(j) only needs F(j − k) and
earlier, so the values F(j0) … F(j0 + k − 1) are computed together, as one vectorised (k × k)
step, and the loop runs over n/k blocks rather than n records: O(n·k) work in all.

Ties: among equally good last groups the smallest is taken (the first minimum in size order);
values are sorted stably, so equal values keep their input order.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from privcheck.errors import PolicyError
from privcheck.masking._table import Data, check_k, numeric_table
from privcheck.masking.mdav import Aggregate, aggregate_groups, exact_means
from privcheck.masking.result import MaskingResult
from privcheck.metrics.information_loss import information_loss


def _optimal_cuts(sorted_x: np.ndarray, k: int) -> np.ndarray:
    """Start positions (in sorted order) of the optimal groups, ascending, first one 0."""
    n = sorted_x.shape[0]
    centred = sorted_x - sorted_x.mean()  # keeps the prefix-sum differences well conditioned
    p1 = np.concatenate(([0.0], np.cumsum(centred)))
    p2 = np.concatenate(([0.0], np.cumsum(centred * centred)))
    best = np.full(n + 1, np.inf)
    best[0] = 0.0
    back = np.zeros(n + 1, dtype=np.int64)
    sizes = np.arange(k, 2 * k)
    for j0 in range(k, n + 1, k):
        ends = np.arange(j0, min(j0 + k, n + 1))
        starts = ends[:, None] - sizes[None, :]
        valid = starts >= 0
        starts = np.where(valid, starts, 0)
        s1 = p1[ends][:, None] - p1[starts]
        s2 = p2[ends][:, None] - p2[starts]
        cost = np.maximum(s2 - s1 * s1 / sizes, 0.0)
        total = np.where(valid, best[starts] + cost, np.inf)
        choice = np.argmin(total, axis=1)
        rows = np.arange(ends.shape[0])
        best[ends] = total[rows, choice]
        back[ends] = starts[rows, choice]
    cuts = []
    j = n
    back_list = back.tolist()
    while j > 0:  # one step per group
        j = back_list[j]
        cuts.append(j)
    return np.array(cuts[::-1], dtype=np.int64)


def optimal_univariate_groups(x: np.ndarray, k: int) -> np.ndarray:
    """Labels of the SSE-optimal grouping of a 1-D array into groups of k … 2k−1 values.

    Labels follow the sorted order: group 0 holds the smallest values.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1:
        raise PolicyError(f"optimal univariate microaggregation needs a 1-D array; got {x.ndim}-D")
    k = check_k(k, x.shape[0])
    order = np.argsort(x, kind="stable")
    cuts = _optimal_cuts(x[order], k)
    sizes = np.diff(np.append(cuts, x.shape[0]))
    labels = np.empty(x.shape[0], dtype=np.int64)
    labels[order] = np.repeat(np.arange(cuts.shape[0]), sizes)
    return labels


def optimal_univariate(
    data: Data,
    k: int,
    *,
    columns: Sequence[Hashable] | None = None,
    aggregate: Aggregate = "mean",
) -> MaskingResult:
    """Microaggregate each column on its own with the optimal univariate partition.

    Every column's released values are shared by at least k records, but the columns are grouped
    independently, so combinations of columns are NOT k-anonymous (use `mdav` for that).
    """
    if aggregate not in ("mean", "median"):
        raise PolicyError(f"aggregate must be 'mean' or 'median'; got {aggregate!r}")
    table = numeric_table(data, columns)
    k = check_k(k, table.n)
    masked = np.empty_like(table.values)
    labels = []
    integers: dict[int, np.ndarray] = {}
    absolute: dict[int, np.ndarray] = {}
    for j in range(table.values.shape[1]):
        lab = optimal_univariate_groups(table.values[:, j], k)
        masked[:, j] = aggregate_groups(table.values[:, [j]], lab, aggregate)[:, 0]
        exact_means(table, [j], lab, aggregate, masked, integers, absolute)
        labels.append(lab)
    return MaskingResult(
        method="optimal-univariate",
        params={"k": k, "aggregate": aggregate, "columns": list(table.columns)},
        masked=table.rebuild(masked, absolute=absolute),
        information_loss=information_loss(table.values, masked),
        groups=tuple(labels),
        integers={table.columns[j]: v for j, v in integers.items()},
    )
