"""Minimal sample uniques and SUDA scores (SUDA2: Manning, Haglin & Keane, DMKD 2008; scores as
Elliot et al. define them and sdcMicro's ``suda2`` computes them).

A record is a *sample unique* on a set S of quasi-identifiers when no other record shares its
values on S. S is a *minimal sample unique* (MSU) of the record when it is unique on S but on no
proper subset of S — the smallest combinations an intruder needs to single the record out. A
record's SUDA score adds, over its MSUs of size k among M quasi-identifiers searched up to size
``max_size``, the weight w(k) = Π_{i=k}^{U−1} (M − i) with U = min(max_size, M − 1): small MSUs
weigh most. With ``max_size = M`` (sdcMicro always searches every size) w(k) = (M − k)!, which is
sdcMicro's default (``original_scores = TRUE``) scoring; ARX's SUDA2 uses the same formula.

The search works on the class table, not on records: records in a class of two or more at the full
key are unique on no subset, so only the classes of size one (the sample uniques) are candidates,
and a subset's class table is a group-by of the full classes' key columns. Level by level (subsets
of size k from the size-(k−1) ones), a candidate is already unique on S when it is unique on some
S − {j} — uniqueness only grows with the set — and those candidates also drop out of the group-by:
no other record shares their values on S, so removing them changes no other group's size. What is
left unique on S is exactly the candidates whose MSU is S. Each subset costs one group-by of at
most the table's classes; the subsets of each level are bitmasks.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from math import comb

import numpy as np

from privcheck.classes import group
from privcheck.errors import PolicyError
from privcheck.limits import EXPLAIN_SUBSETS

#: when no ``max_size`` is given, search the largest sizes whose subsets number at most this
DEFAULT_SUBSETS = 4095


def score_weights(n_attributes: int, max_size: int) -> np.ndarray:
    """w(k) for k = 1 … max_size: Π_{i=k}^{U−1} (M − i), U = min(max_size, M − 1)."""
    upper = min(max_size, n_attributes - 1)
    out = np.ones(max_size, dtype=float)
    for k in range(1, max_size + 1):
        for i in range(k, upper):
            out[k - 1] *= n_attributes - i
    return out


def default_max_size(n_attributes: int, budget: int = DEFAULT_SUBSETS) -> int:
    """Every size when the subsets are at most ``budget``, else the largest size that fits."""
    total, size = 0, 0
    for k in range(1, n_attributes + 1):
        total += comb(n_attributes, k)
        if total > budget:
            break
        size = k
    return max(size, 1)


def subsets_searched(n_attributes: int, max_size: int) -> int:
    """Combinations of 1 … ``max_size`` of ``n_attributes`` quasi-identifiers (the search's
    work: one group-by each)."""
    return sum(comb(n_attributes, k) for k in range(1, min(max_size, n_attributes) + 1))


def popcount(masks: np.ndarray) -> np.ndarray:
    """Bits set in each int64 bitmask."""
    m = np.asarray(masks, dtype=np.uint64)
    bits = np.zeros(len(m), dtype=np.int64)
    while m.any():
        bits += (m & np.uint64(1)).astype(np.int64)
        m = m >> np.uint64(1)
    return bits


@dataclass(eq=False)
class SudaResult:
    """Every MSU found: ``msu_mask[i]`` (a bitmask over the quasi-identifiers, bit j = column j)
    is an MSU of the record of class ``msu_class[i]`` (a class of size one)."""

    n_attributes: int
    max_size: int
    weights: np.ndarray
    msu_mask: np.ndarray
    msu_class: np.ndarray
    n_classes: int
    #: sample uniques (classes of size one at the full key)
    n_uniques: int

    @property
    def complete(self) -> bool:
        """Whether every subset size was searched."""
        return self.max_size >= self.n_attributes

    def msu_sizes(self) -> np.ndarray:
        return popcount(self.msu_mask)

    def msu_scores(self) -> np.ndarray:
        """Each MSU's weight w(|MSU|)."""
        return self.weights[self.msu_sizes() - 1] if len(self.msu_mask) else np.zeros(0)

    def class_scores(self) -> np.ndarray:
        """SUDA score of each class's record (0 for classes of two or more records)."""
        return np.bincount(self.msu_class, weights=self.msu_scores(), minlength=self.n_classes)

    def attribute_contributions(self) -> np.ndarray:
        """sdcMicro's attribute contribution, in %: the share of the total SUDA score that comes
        from MSUs containing each quasi-identifier (they add up to more than 100)."""
        scores = self.msu_scores()
        total = scores.sum()
        out = np.zeros(self.n_attributes)
        if total <= 0:
            return out
        for j in range(self.n_attributes):
            has = (self.msu_mask >> j) & 1 == 1
            out[j] = 100.0 * scores[has].sum() / total
        return out

    def subset_counts(self) -> tuple[np.ndarray, np.ndarray]:
        """The distinct MSU subsets and how many records have each as an MSU."""
        masks, counts = np.unique(self.msu_mask, return_counts=True)
        return masks, counts


def suda2(
    keys: np.ndarray,
    sizes: np.ndarray,
    cards: list[int],
    max_size: int | None = None,
) -> SudaResult:
    """All MSUs of size ≤ ``max_size`` of the sample uniques of a class table.

    ``keys`` are the classes' codes (classes × quasi-identifiers), ``sizes`` their records (a
    class of size one is one sample-unique record), ``cards`` each column's number of codes.
    """
    keys = np.asarray(keys)
    sizes = np.asarray(sizes, dtype=np.int64)
    n_classes, m = keys.shape if keys.ndim == 2 else (len(sizes), 0)
    if m > 62:
        raise PolicyError(f"SUDA searches at most 62 quasi-identifiers; got {m}")
    if max_size is None:
        limit = EXPLAIN_SUBSETS.value()
        budget = min(DEFAULT_SUBSETS, limit) if limit else DEFAULT_SUBSETS
        max_size = default_max_size(m, budget) if m else 1
    if max_size < 1:
        raise PolicyError(f"max_size must be at least 1; got {max_size}")
    max_size = min(max_size, max(m, 1))
    # each combination is a group-by of the classes: bounded before the first
    EXPLAIN_SUBSETS.check(
        subsets_searched(m, max_size),
        f"the explanation (SUDA2) up to {max_size} of {m} quasi-identifiers searches",
        "give a smaller --explain-max-size (API: explain_max_size=)",
    )
    weights = score_weights(m, max_size) if m else np.ones(1)
    uniques = np.flatnonzero(sizes == 1)
    nu = len(uniques)
    columns = [np.ascontiguousarray(keys[:, j]) for j in range(m)]
    found_mask: list[np.ndarray] = []
    found_class: list[np.ndarray] = []
    previous: dict[int, np.ndarray] = {}
    for k in range(1, max_size + 1):
        current: dict[int, np.ndarray] = {}
        for subset in combinations(range(m), k):
            mask = 0
            for j in subset:
                mask |= 1 << j
            if k == 1:
                cover = np.zeros(nu, dtype=bool)
            else:
                cover = previous[mask ^ (1 << subset[0])].copy()
                for j in subset[1:]:
                    cover |= previous[mask ^ (1 << j)]
            if nu == 0 or cover.all():
                current[mask] = cover
                continue
            keep = np.ones(n_classes, dtype=bool)
            keep[uniques[cover]] = False
            rows = np.flatnonzero(keep)
            inverse, n_groups = group(
                [columns[j][rows] for j in subset], [cards[j] for j in subset]
            )
            group_size = np.bincount(inverse, weights=sizes[rows], minlength=n_groups)
            # the candidates still open sit among the kept rows in order
            position = np.cumsum(keep) - 1
            open_ = np.flatnonzero(~cover)
            unique_here = group_size[inverse[position[uniques[open_]]]] == 1
            new = open_[unique_here]
            if len(new):
                found_mask.append(np.full(len(new), mask, dtype=np.int64))
                found_class.append(uniques[new])
                cover[new] = True
            current[mask] = cover
        previous = current
    msu_mask = np.concatenate(found_mask) if found_mask else np.zeros(0, dtype=np.int64)
    msu_class = np.concatenate(found_class) if found_class else np.zeros(0, dtype=np.int64)
    return SudaResult(m, max_size, weights, msu_mask, msu_class, n_classes, nu)
