"""Optimal k-anonymous degree sequences by dynamic programming (Liu & Terzi 2008, §4 and §8).

Given degrees d, find a sequence d' in which every value occurs at least k times, minimising the
L1 change Σ|d' − d|. Sorting d in decreasing order, an optimal d' groups consecutive positions
and gives each group one value:
- additions only (edges may only be added, so d' ≥ d): the group's largest degree, with cost
  I(i, j) = Σ (d_i − d_l);
- additions and deletions: the group's median (the L1-optimal common value).

DA(i) = min over t of DA(t) + I(t, i), the best cost of the first i degrees. Groups of 2k or more
can always be split into two groups of at least k without raising the cost, so t ranges over
[i − 2k + 1, i − k] only: O(n·k) work instead of O(n²).

Vectorisation: DA(i) only reads DA(t) with t ≤ i − k, so the k values DA(b), …, DA(b + k − 1) of
a block depend only on earlier blocks. The DP runs one numpy step per block of k positions, a
(k × k) candidate matrix each (split into row chunks when k is large, to bound memory):
about n / k Python iterations, O(n·k) arithmetic in total.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privcheck.errors import DataError, PolicyError


@dataclass(frozen=True)
class DegreeAnonymization:
    """A k-anonymous target degree per node (input order) and its L1 distance to the input."""

    target: np.ndarray
    cost: int


def anonymize_degree_sequence(
    degrees: np.ndarray, k: int, *, allow_decrease: bool = False
) -> DegreeAnonymization:
    """Minimal-L1 k-anonymous degree sequence (each value shared by ≥ k entries).

    With `allow_decrease=False` every target is ≥ its input degree (supergraph realisation);
    with True targets may also fall (group medians), for realisation by additions and deletions.
    Ties between equal degrees are broken by input position, so the result is deterministic.
    """
    d = np.asarray(degrees)
    if d.ndim != 1 or not np.issubdtype(d.dtype, np.integer):
        raise DataError(f"degrees must be a 1-D integer array; got dtype {d.dtype}, ndim {d.ndim}")
    n = d.size
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or not 1 <= k <= max(n, 1):
        raise PolicyError(f"k must be an integer between 1 and the number of nodes ({n}); got {k}")
    if n == 0:
        return DegreeAnonymization(target=d.astype(np.int64), cost=0)
    order = np.lexsort((np.arange(n), -d))  # decreasing degree, stable
    s = d[order].astype(np.int64)
    prefix = np.concatenate([[0], np.cumsum(s)])

    def cost(t: np.ndarray, i: np.ndarray) -> np.ndarray:
        """L1 cost of one group holding sorted positions t..i-1 (arrays of equal shape)."""
        if not allow_decrease:
            return (i - t) * s[t] - (prefix[i] - prefix[t])
        m = (t + i - 1) // 2  # median position (values decrease, so any middle one is optimal)
        med = s[m]
        # positions t..m-1 hold values ≥ med, m+1..i-1 values ≤ med
        upper = (prefix[m] - prefix[t]) - (m - t) * med
        lower = (i - m - 1) * med - (prefix[i] - prefix[m + 1])
        return upper + lower

    k = int(k)
    unreachable = np.iinfo(np.int64).max // 4
    best = np.full(n + 1, unreachable, np.int64)
    best[0] = 0
    cut = np.zeros(n + 1, np.int64)  # start position of the last group of the first i
    offsets = np.arange(k)  # t = i - k - j for j in 0..k-1
    rows_per_step = max(1, (1 << 20) // k)  # bound the (rows × k) matrix when k is large
    for lo in range(k, n + 1, k):
        for first in range(lo, min(lo + k, n + 1), rows_per_step):
            i = np.arange(first, min(first + rows_per_step, lo + k, n + 1))[:, None]
            t = i - k - offsets[None, :]
            # a group has k..2k-1 members, except that one group may hold all of the first i
            valid = t >= 0
            t_safe = np.where(valid, t, 0)
            total = np.where(
                valid, best[t_safe] + cost(t_safe, np.broadcast_to(i, t.shape)), unreachable
            )
            pick = np.argmin(total, axis=1)
            rows = np.arange(i.shape[0])
            best[i[:, 0]] = total[rows, pick]
            cut[i[:, 0]] = t[rows, pick]
    # walk the cuts back from n: one step per group
    target_sorted = np.empty(n, np.int64)
    i = n
    while i > 0:
        t = int(cut[i])
        target_sorted[t:i] = s[t] if not allow_decrease else s[(t + i - 1) // 2]
        i = t
    target = np.empty(n, np.int64)
    target[order] = target_sorted
    return DegreeAnonymization(target=target, cost=int(np.abs(target - d).sum()))
