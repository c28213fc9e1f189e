"""Rank swapping (Moore 1996) and its transparency-resistant variants (Nin, Herranz & Torra 2008).

Each attribute is masked on its own. Its values are sorted (stably); p is a PERCENTAGE of the
records, p ∈ (0, 100] (sdcMicro issue #366: not a proportion), and w = ⌊p·n/100⌋ ranks is the
swap range. Ranks are visited in increasing order; a rank that has not been swapped yet picks a
partner among the ranks above it that have not been swapped yet, the two values are exchanged,
and both ranks are done. A rank with no eligible partner keeps its value. The sort is then undone,
so every masked column is a permutation of the original one (all marginals are kept exactly).

How the partner of rank i is drawn (among the still-unswapped ranks above i):

* ``plain``: uniformly among the ranks i+1 … i+w. Every value moves by at most w ranks, which
  is what the transparency (interval-intersection) attack exploits.
* ``buckets`` (p-buckets): the ranks are cut into K = ⌈n/w⌉ buckets of w; for i in bucket r a
  bucket s ≥ r is drawn with Pr[s | r] = (1/K_r)·1/2^(s−r+1), K_r = Σ_{s=r}^{K−1} 1/2^(s−r+1)
  normalising, then a rank uniformly in bucket s (above i when s = r).
* ``distribution`` (p-distribution): the partner is i + ⌊ρ + ½⌉ with ρ ~ N(0.5w, 0.5w) (mean and
  standard deviation 0.5w).

For the two variants the rank distance is unbounded, so an intruder who knows p can no longer
intersect ±w windows around each value. Draws that land outside the file, at or below i, or on an
already swapped rank are redrawn; so the partner follows the stated law restricted to the
eligible ranks. (Buckets of w ranks and N(0.5w, 0.5w) with w = p % of n is how this module reads
Nin et al.'s p; the law is in ``params`` so an attack can use it.)

Implementation. The visit is sequential by nature (whether rank i is still free depends on all
earlier choices), but nothing about it needs a loop over records: each rank gets a fixed stream of
L = 16 proposals up front and takes the first one still free at its turn (rejection sampling gives
exactly the law above); in the rare case that all 16 are taken, it draws from the exact law over
the free ranks with one more uniform. Given these random numbers the outcome is a deterministic
function of the earlier decisions, so a chunk of ranks is resolved by fixed-point iteration
(every rank's decision recomputed from the others' current decisions, vectorised, until nothing
changes): after t rounds the first t decisions of any dependency chain are final, and chains are
short, so a chunk settles in a few dozen rounds. The result is identical to the sequential visit
with the same random numbers (tested against a plain loop).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Literal

import numpy as np
from scipy.special import ndtr

from privcheck.errors import PolicyError
from privcheck.masking._table import Data, numeric_table
from privcheck.masking.result import MaskingResult
from privcheck.metrics.information_loss import information_loss

Variant = Literal["plain", "buckets", "distribution"]
SeedLike = int | np.random.Generator | None

PROPOSALS = 16
_BIG = np.iinfo(np.int64).max
_METHOD = {
    "plain": "rank-swapping",
    "buckets": "rank-swapping-buckets",
    "distribution": "rank-swapping-distribution",
}


def swap_window(p: object, n: int) -> int:
    """w = ⌊p·n/100⌋ ranks for p ∈ (0, 100]; PolicyError if p is out of range or w < 1."""
    if isinstance(p, bool) or not isinstance(p, int | float | np.integer | np.floating):
        raise PolicyError(f"p must be a percentage in (0, 100]; got {p!r}")
    if not (math.isfinite(float(p)) and 0 < float(p) <= 100):
        raise PolicyError(
            f"p is a percentage of the records and must be in (0, 100]; got p={p} "
            "(for a proportion such as 0.05, pass p=5)"
        )
    w = math.floor(float(p) * n / 100.0 + 1e-9)
    if w < 1:
        raise PolicyError(
            f"p={p} % of {n} records is less than one rank, so nothing would be swapped; "
            f"use p ≥ {100.0 / n:.4g}"
        )
    return w


class _Law:
    """Proposal stream and exact fallback law of one variant (ranks 0 … n−1, window w)."""

    def __init__(self, n: int, w: int) -> None:
        self.n, self.w = n, w

    def propose(self, ranks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """(len(ranks) × PROPOSALS) partner proposals; −1 marks a draw that is never eligible."""
        raise NotImplementedError

    def support(self, i: int) -> tuple[int, int]:
        """Half-open rank range that can hold i's partner."""
        return i + 1, self.n

    def weights(self, i: int, ranks: np.ndarray) -> np.ndarray | None:
        """Unnormalised probabilities of the eligible ``ranks`` (None: uniform)."""
        return None


class _Plain(_Law):
    def propose(self, ranks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        width = np.minimum(self.w, self.n - 1 - ranks)
        u = rng.random((ranks.shape[0], PROPOSALS))
        out = ranks[:, None] + 1 + np.floor(u * width[:, None]).astype(np.int64)
        out[width == 0] = -1
        return out

    def support(self, i: int) -> tuple[int, int]:
        return i + 1, min(self.n, i + 1 + self.w)


class _Buckets(_Law):
    def __init__(self, n: int, w: int) -> None:
        super().__init__(n, w)
        self.n_buckets = -(-n // w)

    def _bucket_probs(self, r: int) -> np.ndarray:
        t = np.arange(self.n_buckets - r)
        q = 0.5 ** (t + 1)
        return q / q.sum()

    def propose(self, ranks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        shape = (ranks.shape[0], PROPOSALS)
        u_bucket, u_rank = rng.random(shape), rng.random(shape)
        r = (ranks // self.w)[:, None]
        spread = self.n_buckets - r  # buckets r … K−1
        norm = 1.0 - 0.5**spread
        with np.errstate(divide="ignore"):
            step = np.ceil(-np.log2(1.0 - u_bucket * norm)) - 1.0
        s = r + np.clip(step, 0, spread - 1).astype(np.int64)
        lo = np.where(s == r, ranks[:, None] + 1, s * self.w)
        hi = np.minimum((s + 1) * self.w, self.n)
        out = lo + np.floor(u_rank * (hi - lo)).astype(np.int64)
        out[hi <= lo] = -1
        return out

    def weights(self, i: int, ranks: np.ndarray) -> np.ndarray:
        r = i // self.w
        s = ranks // self.w
        start = np.where(s == r, i + 1, s * self.w)
        size = np.minimum((s + 1) * self.w, self.n) - start  # ranks the proposal draws from
        return self._bucket_probs(r)[s - r] / size


class _Distribution(_Law):
    def propose(self, ranks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        half = 0.5 * self.w
        rho = rng.normal(half, half, size=(ranks.shape[0], PROPOSALS))
        out = ranks[:, None] + np.floor(rho + 0.5).astype(np.int64)
        out[(out <= ranks[:, None]) | (out >= self.n)] = -1
        return out

    def weights(self, i: int, ranks: np.ndarray) -> np.ndarray:
        half = 0.5 * self.w
        d = (ranks - i).astype(np.float64)
        # Pr[⌊ρ + ½⌉ = d] = Pr[d − ½ ≤ ρ < d + ½], from the upper tail to keep precision.
        return ndtr(-(d - 0.5 - half) / half) - ndtr(-(d + 0.5 - half) / half)


_LAWS: dict[str, type[_Law]] = {"plain": _Plain, "buckets": _Buckets, "distribution": _Distribution}


def _pick(law: _Law, i: int, free: np.ndarray, u: float) -> int:
    """Exact draw among the free ranks from the law (the fallback after PROPOSALS misses)."""
    if free.shape[0] == 0:
        return -1
    w = law.weights(i, free)
    if w is None:
        return int(free[min(int(u * free.shape[0]), free.shape[0] - 1)])
    total = float(w.sum())
    if not total > 0:  # every free rank is beyond the law's numerical reach: take the nearest
        return int(free[0])
    cdf = np.cumsum(w) / total
    return int(free[min(int(np.searchsorted(cdf, u, side="right")), free.shape[0] - 1)])


def swap_partners(
    n: int,
    w: int,
    variant: Variant,
    rng: np.random.Generator,
    *,
    chunk: int | None = None,
) -> np.ndarray:
    """Partner rank of every rank 0 … n−1 (−1: kept its value), resolved chunk by chunk.

    Random numbers are consumed chunk by chunk in rank order: the chunk's proposals, then one
    fallback uniform per rank of the chunk. ``chunk`` defaults to min(16384, max(256, 8w)).
    """
    law = _LAWS[variant](n, w)
    chunk = chunk or min(16384, max(256, 8 * w))
    taken = np.zeros(n, dtype=bool)  # swapped by a decision of an earlier chunk
    partner = np.full(n, -1, dtype=np.int64)
    first_taker = np.full(n, _BIG, dtype=np.int64)  # scratch, reset after every round
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        ranks = np.arange(lo, hi)
        props = law.propose(ranks, rng)
        fallback_u = rng.random(hi - lo)
        safe = np.where(props >= 0, props, 0)
        eligible = (props >= 0) & ~taken[safe]
        free_at_start = ~taken[lo:hi]
        active = free_at_start.copy()
        choice = np.full(hi - lo, -1, dtype=np.int64)
        rows = np.arange(hi - lo)
        while True:
            chosen = active & (choice >= 0)
            np.minimum.at(first_taker, choice[chosen], ranks[chosen])
            # rank i is still free at its turn iff no earlier rank of the chunk took it
            new_active = free_at_start & (first_taker[lo:hi] >= ranks)
            ok = eligible & (first_taker[safe] >= ranks[:, None])
            hit = ok.any(axis=1)
            new_choice = np.where(hit, props[rows, ok.argmax(axis=1)], -1)
            for pos in np.flatnonzero(new_active & ~hit):
                i = lo + int(pos)
                a, b = law.support(i)
                cand = np.arange(a, b)
                free = cand[~taken[a:b] & (first_taker[a:b] >= i)]
                new_choice[pos] = _pick(law, i, free, float(fallback_u[pos]))
            new_choice[~new_active] = -1
            first_taker[choice[chosen]] = _BIG
            if np.array_equal(new_active, active) and np.array_equal(new_choice, choice):
                break
            active, choice = new_active, new_choice
        done = active & (choice >= 0)
        taken[lo:hi] |= active
        taken[choice[done]] = True
        partner[ranks[done]] = choice[done]
        partner[choice[done]] = ranks[done]
    return partner


def swap_column(x: np.ndarray, w: int, variant: Variant, rng: np.random.Generator) -> np.ndarray:
    """One attribute rank-swapped: a permutation of x (stable ranks, ties by input order)."""
    order = np.argsort(x, kind="stable")
    partner = swap_partners(x.shape[0], w, variant, rng)
    source = np.where(partner >= 0, partner, np.arange(x.shape[0]))
    out = np.empty_like(x)
    out[order] = x[order][source]
    return out


def rank_swap(
    data: Data,
    p: float,
    *,
    variant: Variant = "plain",
    seed: SeedLike = None,
    columns: Sequence[Hashable] | None = None,
) -> MaskingResult:
    """Rank-swap every masked column independently (p: percentage of the records, (0, 100]).

    ``variant`` is ``"plain"`` (partner within the next w = ⌊p·n/100⌋ ranks), ``"buckets"``
    (p-buckets) or ``"distribution"`` (p-distribution); see the module docstring. ``seed`` (int or
    numpy Generator) makes the run reproducible and is not published in ``params``.
    """
    if variant not in _LAWS:
        raise PolicyError(f"variant must be 'plain', 'buckets' or 'distribution'; got {variant!r}")
    table = numeric_table(data, columns)
    w = swap_window(p, table.n)
    rng = np.random.default_rng(seed)
    masked = np.empty_like(table.values)
    for j in range(table.values.shape[1]):
        masked[:, j] = swap_column(table.values[:, j], w, variant, rng)
    return MaskingResult(
        method=_METHOD[variant],
        params={
            "p": float(p),
            "window_ranks": w,
            "variant": variant,
            "columns": list(table.columns),
            "proposal_law": _law_text(variant, w),
        },
        masked=table.rebuild(masked),
        information_loss=information_loss(table.values, masked),
    )


def _law_text(variant: str, w: int) -> str:
    if variant == "plain":
        return f"uniform over the next {w} unswapped ranks"
    if variant == "buckets":
        return f"buckets of {w} ranks; Pr[s|r] ∝ 1/2^(s−r+1), s ≥ r; uniform rank in bucket"
    return f"rank distance round(N(mean={0.5 * w}, sd={0.5 * w})), forward, unswapped"
