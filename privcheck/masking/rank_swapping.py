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
exactly the law above); in the rare case that all 16 are taken, it draws from the law over the
free ranks with one more uniform (over the next w ranks for plain; for the variants over the next
61 buckets or mean + 40 sd first, where the rest of the law is below double precision, and
only if nothing there is free over the rest of the file). Given these random numbers the outcome
is a deterministic function of the earlier decisions, so a chunk of ranks is resolved by
fixed-point iteration (every rank's decision recomputed from the others' current decisions,
vectorised, until nothing changes): after t rounds the first t decisions of any dependency
chain are final, and chains are short when w is not tiny, so a chunk settles in a few dozen
rounds (1 M records: a few seconds per attribute). With a swap range of a few ranks the chains
get long and the resolution nearly sequential (200 k records with w = 3: ~10 s). The result is
identical to the sequential visit with the same random numbers (tested against a plain loop).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from typing import Literal

import numpy as np

from privcheck.errors import PolicyError
from privcheck.masking._table import Data, numeric_table
from privcheck.masking.result import MaskingResult
from privcheck.metrics.information_loss import information_loss

Variant = Literal["plain", "buckets", "distribution"]
SeedLike = int | np.random.Generator | None

PROPOSALS = 16
_FIRST = 3  # proposals tested for every rank in each round of the resolution
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
    """Proposal stream and exact fallback law of one variant (ranks 0 … n−1, swap range w).

    ``window`` is how many ranks above i the fallback examines first; ``extends`` says whether
    the law reaches beyond that window (then, if nothing there is free, the rest of the file is
    examined: see `_fallback`).
    """

    extends = False

    def __init__(self, n: int, w: int) -> None:
        self.n, self.w = n, w
        self.window = w

    def propose(self, ranks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """(len(ranks) × PROPOSALS) partner proposals; −1 marks a draw that is never eligible."""
        raise NotImplementedError

    def weights(self, i: np.ndarray, ranks: np.ndarray) -> np.ndarray:
        """Unnormalised probabilities of partner ``ranks`` (m × W) for ranks ``i`` (m,)."""
        return np.ones(ranks.shape)


class _Plain(_Law):
    def propose(self, ranks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        width = np.minimum(self.w, self.n - 1 - ranks)
        u = rng.random((ranks.shape[0], PROPOSALS))
        out = ranks[:, None] + 1 + np.floor(u * width[:, None]).astype(np.int64)
        out[width == 0] = -1
        return out


class _Buckets(_Law):
    extends = True

    def __init__(self, n: int, w: int) -> None:
        super().__init__(n, w)
        self.n_buckets = -(-n // w)
        # 61 buckets: beyond them Pr[s | r] < 2^-61, below what a double-precision draw resolves
        self.window = 61 * w

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

    def weights(self, i: np.ndarray, ranks: np.ndarray) -> np.ndarray:
        r = (i // self.w)[:, None]
        s = ranks // self.w
        start = np.where(s == r, i[:, None] + 1, s * self.w)
        size = np.minimum((s + 1) * self.w, self.n) - start  # ranks the proposal draws from
        spread = self.n_buckets - r
        # Pr[s | r] = 2^-(s−r+1) / (1 − 2^-spread)
        prob = np.exp2(-(s - r + 1.0)) / (1.0 - np.exp2(-spread.astype(np.float64)))
        return prob / np.maximum(size, 1)


class _Distribution(_Law):
    extends = True

    def __init__(self, n: int, w: int) -> None:
        super().__init__(n, w)
        # mean + 40 sd: the normal tail beyond is below 1e-300 of the total
        self.window = math.ceil(0.5 * w + 40 * 0.5 * w) + 1

    def propose(self, ranks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        half = 0.5 * self.w
        rho = rng.normal(half, half, size=(ranks.shape[0], PROPOSALS))
        out = ranks[:, None] + np.floor(rho + 0.5).astype(np.int64)
        out[(out <= ranks[:, None]) | (out >= self.n)] = -1
        return out

    def weights(self, i: np.ndarray, ranks: np.ndarray) -> np.ndarray:
        half = 0.5 * self.w
        d = (ranks - i[:, None]).astype(np.float64)
        # Pr[⌊ρ + ½⌉ = d] = Pr[d − ½ ≤ ρ < d + ½], from the upper tail to keep precision.
        from scipy.special import ndtr  # (imported when used: scipy is slow to import)

        return ndtr(-(d - 0.5 - half) / half) - ndtr(-(d + 0.5 - half) / half)


_LAWS: dict[str, type[_Law]] = {"plain": _Plain, "buckets": _Buckets, "distribution": _Distribution}


def _draw_rows(weights: np.ndarray, ranks: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Per row, the rank drawn with probability ∝ weight by inverse CDF at u (−1: none)."""
    cdf = np.cumsum(weights, axis=1)
    total = cdf[:, -1]
    idx = (cdf <= (u * total)[:, None]).sum(axis=1)
    last = weights.shape[1] - 1 - np.argmax(weights[:, ::-1] > 0, axis=1)
    idx = np.minimum(idx, last)  # guards u·total rounding up to the total
    out = ranks[np.arange(ranks.shape[0]), idx]
    return np.where(total > 0, out, -1)


def _fallback(law: _Law, i: int, is_free: Callable[[np.ndarray], np.ndarray], u: float) -> int:
    """Exact draw from the law among the free ranks above i (after PROPOSALS misses).

    First the free ranks among the next ``law.window``; if none is free and the law reaches
    further, the rest of the file (the nearest free rank when every weight there underflows).
    """
    stop = min(law.n, i + 1 + law.window)
    ranks = np.arange(i + 1, stop)
    at = np.array([i])
    if ranks.shape[0]:
        weights = law.weights(at, ranks[None, :]) * is_free(ranks)[None, :]
        choice = int(_draw_rows(weights, ranks[None, :], np.array([u]))[0])
        if choice >= 0:
            return choice
    if not law.extends or stop >= law.n:
        return -1
    ranks = np.arange(stop, law.n)
    free = is_free(ranks)
    if not free.any():
        return -1
    weights = law.weights(at, ranks[None, :]) * free[None, :]
    if not weights.sum() > 0:
        return int(ranks[free][0])
    return int(_draw_rows(weights, ranks[None, :], np.array([u]))[0])


_FALLBACK_CELLS = 1 << 20  # vectorise the fallbacks of a round up to this many (rank, candidate)


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
    offsets = np.arange(1, law.window + 1)
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
            # most ranks take one of their first proposals: test those for all, the rest rarely
            ok = eligible[:, :_FIRST] & (first_taker[safe[:, :_FIRST]] >= ranks[:, None])
            hit = ok.any(axis=1)
            new_choice = np.where(hit, props[rows, ok.argmax(axis=1)], -1)
            more = np.flatnonzero(~hit)
            if more.shape[0]:
                ok = eligible[more] & (first_taker[safe[more]] >= ranks[more, None])
                hit[more] = ok.any(axis=1)
                new_choice[more] = np.where(hit[more], props[more, ok.argmax(axis=1)], -1)
            missed = np.flatnonzero(new_active & ~hit)
            if missed.shape[0]:
                new_choice[missed] = _fallbacks(
                    law, ranks[missed], fallback_u[missed], taken, first_taker, offsets
                )
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


def _fallbacks(
    law: _Law,
    at: np.ndarray,
    u: np.ndarray,
    taken: np.ndarray,
    first_taker: np.ndarray,
    offsets: np.ndarray,
) -> np.ndarray:
    """`_fallback` for several ranks at once (the window step as one matrix when it fits)."""
    out = np.full(at.shape[0], -1, dtype=np.int64)
    if at.shape[0] * offsets.shape[0] <= _FALLBACK_CELLS:
        cand = at[:, None] + offsets[None, :]
        inside = cand < law.n
        safe = np.minimum(cand, law.n - 1)  # out-of-file cells: a valid rank, never free
        free = inside & ~taken[safe] & (first_taker[safe] >= at[:, None])
        out = _draw_rows(law.weights(at, safe) * free, safe, u)
        todo = np.flatnonzero((out < 0) & law.extends & (at + 1 + law.window < law.n))
    else:
        todo = np.arange(at.shape[0])
    for j in todo:  # rare: a wide window with many misses, or nothing free in the window
        i = int(at[j])

        def is_free(r: np.ndarray, i: int = i) -> np.ndarray:
            return ~taken[r] & (first_taker[r] >= i)

        out[j] = _fallback(law, i, is_free, float(u[j]))
    return out


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
    check_variant(variant)
    table = numeric_table(data, columns)
    w = swap_window(p, table.n)
    rng = np.random.default_rng(seed)
    masked = np.empty_like(table.values)
    integers = {}
    for j in range(table.values.shape[1]):
        exact = table.exact[j] if j < len(table.exact) else None
        if exact is None:
            masked[:, j] = swap_column(table.values[:, j], w, variant, rng)
        else:  # sorted and permuted as integers: an exact permutation even beyond 2^53
            integers[j] = swap_column(exact, w, variant, rng)
            masked[:, j] = table.shifted(j, integers[j])
    return MaskingResult(
        method=_METHOD[variant],
        params={
            "p": float(p),
            "window_ranks": w,
            "variant": variant,
            "columns": list(table.columns),
            "proposal_law": _law_text(variant, w),
        },
        masked=table.rebuild(masked, integers),
        information_loss=information_loss(table.values, masked),
        integers={table.columns[j]: v for j, v in integers.items()},
    )


def _law_text(variant: str, w: int) -> str:
    if variant == "plain":
        return f"uniform over the next {w} unswapped ranks"
    if variant == "buckets":
        return f"buckets of {w} ranks; Pr[s|r] ∝ 1/2^(s−r+1), s ≥ r; uniform rank in bucket"
    return f"rank distance round(N(mean={0.5 * w}, sd={0.5 * w})), forward, unswapped"


def check_variant(variant: object) -> Variant:
    """The variant name, or PolicyError naming the three accepted ones."""
    if not isinstance(variant, str) or variant not in _LAWS:
        raise PolicyError(
            f"variant must be 'plain', 'buckets' or 'distribution' (the rank-swapping variant "
            f"the release was made with); got {variant!r}"
        )
    return variant  # type: ignore[return-value]


def check_coverage(coverage: object) -> float:
    """coverage ∈ (0, 1] as a float, or PolicyError saying what the values mean."""
    ok = not isinstance(coverage, bool) and isinstance(
        coverage, int | float | np.integer | np.floating
    )
    if not ok or not 0 < float(coverage) <= 1:  # type: ignore[arg-type]
        raise PolicyError(
            f"coverage must be a number in (0, 1]: 1 for the window that certainly holds the "
            f"true value, e.g. 0.999 for one that holds it for 99.9 % of the values; "
            f"got {coverage!r}"
        )
    return float(coverage)  # type: ignore[arg-type]


def certain_window(n: int, p: float, variant: Variant = "plain") -> int:
    """The smallest rank window that holds the masked value of every value WITH CERTAINTY.

    The transparency attack proper (Nin, Herranz & Torra 2008) only intersects sets that surely
    contain the true record, so its window is the support of the displacement law, not a
    quantile. For ``plain`` that support is bounded: a value moves at most w = ⌊p·n/100⌋ ranks.
    The variants' law has unbounded support on the file: every rank above i has positive
    probability of being the partner (p-buckets: Pr[s | r] > 0 for every bucket s ≥ r;
    p-distribution: the normal puts mass on every distance, and the fallback may even take the
    nearest free rank), and a rank taken by an earlier one moves back by any amount. So no window
    short of the whole file is certain: n − 1 ranks (every record is a candidate). ``p`` is
    checked as `swap_window` checks it (a release with that p must be possible).
    """
    w = swap_window(p, n)
    return w if check_variant(variant) == "plain" else max(n - 1, 0)


def intruder_window(
    n: int,
    p: float,
    variant: Variant = "plain",
    *,
    coverage: float = 0.999,
    trials: int = 20,
    seed: SeedLike = 0,
) -> int:
    """The rank window an intruder who knows the method and its parameters searches within.

    Under the transparency principle the intruder knows n, p and the variant (they are in the
    release's parameters) and hence the law of the rank displacement |rank(x') − rank(x)|, but not
    the randomness. For ``plain`` the law is bounded by w = ⌊p·n/100⌋: that window always holds the
    true value. The variants' law is unbounded, so the intruder picks the displacement that covers
    ``coverage`` of the values, estimated by replaying the public law ``trials`` times on n ranks
    (no data needed: the displacement depends only on n, w and the variant). A window covering
    0.999 per attribute keeps the true record among the candidates of an m-attribute intersection
    with probability about 0.999^m. ``coverage=1`` gives the certain window (`certain_window`):
    the largest displacement seen in a few replays is no bound on an unbounded law.
    """
    coverage = check_coverage(coverage)
    variant = check_variant(variant)
    w = swap_window(p, n)
    if variant == "plain":
        return w
    if coverage == 1.0:
        return certain_window(n, p, variant)
    rng = np.random.default_rng(seed)
    ranks = np.arange(n)
    shifts = [
        np.abs(np.where(partner >= 0, partner - ranks, 0))
        for partner in (swap_partners(n, w, variant, rng) for _ in range(max(1, trials)))
    ]
    return int(np.ceil(np.quantile(np.concatenate(shifts), coverage)))
