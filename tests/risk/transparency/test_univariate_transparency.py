"""Transparency attacks: the literature's worked example and loop oracles."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privcheck.errors import DataError, PolicyError
from privcheck.risk.transparency.univariate import (
    microaggregation_group_bounds,
    microaggregation_transparency,
    rank_interval,
    rank_swap_transparency,
    rank_swap_window,
)

# copies of shared/data/examples kept in the repository, so a clean clone tests on its own
EXAMPLES = Path(__file__).resolve().parents[2] / "data" / "examples"


@pytest.fixture
def example():
    orig = pd.read_csv(EXAMPLES / "rank_swap_original.csv")
    masked = pd.read_csv(EXAMPLES / "rank_swap_masked.csv")
    return orig, masked


def test_rank_swap_worked_example(example):
    orig, masked = example
    intruder = pd.DataFrame([[6, 7, 10, 2]], columns=orig.columns)
    assert rank_swap_window(20, len(masked)) == 2
    # B_j as the examples README states them: a1 in 4..8, a2 in 5..9, a3 in 8..10, a4 in 1..4
    expected = {"a1": (4, 8), "a2": (5, 9), "a3": (8, 10), "a4": (1, 4)}
    for col, (lo, hi) in expected.items():
        s = np.sort(masked[col].to_numpy())
        got = rank_interval(s, s, intruder[col].to_numpy(), 2)
        assert (got[0][0], got[1][0]) == (lo, hi)
    res = rank_swap_transparency(intruder, masked, p=20, true_index=[1])
    assert res.candidate_set_size.tolist() == [1]
    assert masked.iloc[int(res.linked_index[0])].tolist() == [5, 5, 8, 1]
    assert res.certain_rate == 1.0
    assert res.reidentification_rate == 1.0
    assert res.figures["window"] == 2
    assert res.record_risk.tolist() == [1.0]


def test_rank_swap_example_whole_file_matches_loop_oracle(example):
    orig, masked = example
    o, mk = orig.to_numpy(), masked.to_numpy()
    res = rank_swap_transparency(orig, masked, p=20)
    for i in range(len(o)):
        cands = set(range(len(mk)))
        for j in range(o.shape[1]):
            ranks = sorted(mk[:, j])
            r = ranks.index(o[i, j])
            allowed = set(ranks[max(r - 2, 0) : r + 3])
            cands &= {q for q in range(len(mk)) if mk[q, j] in allowed}
        assert res.candidate_set_size[i] == len(cands)
        assert i in cands  # the true record always survives: the release is a 2-rank swap
    assert res.figures["true_in_candidates_rate"] == 1.0


def _rank_swap(x: np.ndarray, window: int, rng: np.random.Generator) -> np.ndarray:
    """A plain rank swap (each value swapped at most once with a partner ≤ window ranks away)."""
    out = x.copy()
    for j in range(x.shape[1]):
        order = np.argsort(x[:, j], kind="stable")
        swapped = np.zeros(len(x), dtype=bool)
        for r in range(len(x)):
            if swapped[r]:
                continue
            free = [q for q in range(r + 1, min(r + window + 1, len(x))) if not swapped[q]]
            if free:
                q = free[rng.integers(len(free))]
                a, b = order[r], order[q]
                out[a, j], out[b, j] = x[b, j], x[a, j]
                swapped[[r, q]] = True
    return out


def test_rank_swap_intersections_and_restricted_links_match_loops():
    rng = np.random.default_rng(4)
    n, w = 60, 10
    x = np.column_stack([rng.permutation(n) + rng.random() for _ in range(3)]).astype(float)
    xm = _rank_swap(x, w, rng)
    res = rank_swap_transparency(x, xm, window=w, chunk_size=11)
    mean, sd = xm.mean(axis=0), xm.std(axis=0, ddof=1)
    za, zb = (x - mean) / sd, (xm - mean) / sd
    rank_a = np.argsort(np.argsort(x, axis=0), axis=0)
    rank_b = np.argsort(np.argsort(xm, axis=0), axis=0)
    certain = 0
    for i in range(n):
        cands = [
            q for q in range(n) if all(abs(rank_b[q, j] - rank_a[i, j]) <= w for j in range(3))
        ]
        assert i in cands
        assert res.candidate_set_size[i] == len(cands)
        best = min(cands, key=lambda q: float(((za[i] - zb[q]) ** 2).sum()))
        assert res.linked_index[i] == best
        certain += len(cands) == 1
    assert res.certain_rate == pytest.approx(certain / n)
    assert res.figures["false_certain"] == 0
    # knowing the method never hurts the intruder here: at least as good as plain DBRL
    from privcheck.risk.linkage.distance import dbrl

    assert res.reidentification_rate >= dbrl(x, xm, standardisation="masked").reidentification_rate


def _microaggregate(x: np.ndarray, k: int) -> np.ndarray:
    """Univariate fixed-size microaggregation: sorted groups of k, the last one takes the rest."""
    out = np.empty_like(x)
    for j in range(x.shape[1]):
        order = np.argsort(x[:, j], kind="stable")
        n_groups = len(x) // k
        for g in range(n_groups):
            idx = order[g * k : (g + 1) * k if g < n_groups - 1 else len(x)]
            out[idx, j] = x[idx, j].mean()
    return out


def test_group_bounds_hand_example():
    # groups {1,2,3} → 2, {4,5,6} → 5, {7,8,20} → 35/3
    masked = np.array([2, 2, 2, 5, 5, 5, 35 / 3, 35 / 3, 35 / 3])
    lower, upper = microaggregation_group_bounds(masked, 3)
    # v = 4 fits groups 1 and 2, not 3 (every member of group 3 is ≥ the mean of group 2)
    fits = (lower <= 4) & (upper >= 4)
    assert fits.tolist() == [True] * 6 + [False] * 3
    # v = 20 fits group 3 only: in group 2 it would exceed the next mean 35/3
    fits = (lower <= 20) & (upper >= 20)
    assert fits.tolist() == [False] * 6 + [True] * 3
    # v = −4 still fits group 1 (with two members at 5), nothing below −4 does
    assert ((lower <= -4) & (upper >= -4)).tolist() == [True] * 3 + [False] * 6
    assert not ((lower <= -4.01) & (upper >= -4.01)).any()


@pytest.mark.parametrize("knowledge", ["values", "original"])
def test_microaggregation_transparency_is_sound(knowledge):
    rng = np.random.default_rng(9)
    x = rng.lognormal(size=(90, 3)).round(3)
    xm = _microaggregate(x, 3)
    res = microaggregation_transparency(
        x, xm, 3, original=x if knowledge == "original" else None, chunk_size=17
    )
    assert res.figures["true_in_candidates_rate"] == 1.0
    assert res.figures["false_certain"] == 0
    assert res.figures["mean_candidate_set_size"] < 90
    if knowledge == "original":
        # aligned marginals pin each value to its own group: on one attribute the candidate
        # set is exactly the group
        one = microaggregation_transparency(x[:, :1], xm[:, :1], 3, original=x[:, :1])
        _, counts = np.unique(xm[:, 0], return_counts=True)
        sizes = dict(zip(np.unique(xm[:, 0]), counts, strict=True))
        assert one.candidate_set_size.tolist() == [sizes[v] for v in xm[:, 0]]


def test_microaggregation_value_knowledge_with_loops():
    rng = np.random.default_rng(12)
    x = rng.normal(size=(30, 2)).round(2)
    xm = _microaggregate(x, 3)
    res = microaggregation_transparency(x, xm, 3)
    for i in range(30):
        cands = set(range(30))
        for j in range(2):
            cents = sorted(set(xm[:, j]))
            ok = set()
            for g, c in enumerate(cents):
                size = int(np.sum(xm[:, j] == c))
                prev = cents[g - 1] if g > 0 else -np.inf
                nxt = cents[g + 1] if g + 1 < len(cents) else np.inf
                lo = max(prev, c - (size - 1) * (nxt - c)) if nxt < np.inf else prev
                hi = min(nxt, c + (size - 1) * (c - prev)) if prev > -np.inf else nxt
                if lo <= x[i, j] <= hi:
                    ok |= {q for q in range(30) if xm[q, j] == c}
            cands &= ok
        assert res.candidate_set_size[i] == len(cands)


def test_parameter_errors(example):
    orig, masked = example
    with pytest.raises(PolicyError, match="percentage"):
        rank_swap_transparency(orig, masked, p=0.2 * 100 * 10)
    with pytest.raises(PolicyError, match="give the rank-swapping percentage"):
        rank_swap_transparency(orig, masked)
    with pytest.raises(PolicyError, match=r"must lie in \(0, 100\)"):
        rank_swap_transparency(orig, masked, p=100, variant="buckets")
    with pytest.raises(PolicyError, match="variant must be 'plain', 'buckets' or 'distribution'"):
        rank_swap_transparency(orig, masked, p=20, variant="bucket")
    for bad in (0, 1.2, "high", None):
        with pytest.raises(PolicyError, match=r"coverage must be a number in \(0, 1\]"):
            rank_swap_transparency(orig, masked, p=20, variant="buckets", coverage=bad)
    with pytest.raises(DataError, match="fewer than k"):
        microaggregation_transparency(orig, masked, 3)
    with pytest.raises(DataError, match="same records"):
        microaggregation_transparency(orig, masked, 1, original=orig.iloc[:5])


@pytest.fixture(scope="module")
def swapped_variants():
    """200 records, 3 attributes with distinct values, rank-swapped with p = 5 per variant."""
    from privcheck.masking import rank_swap

    rng = np.random.default_rng(11)
    x = pd.DataFrame(rng.normal(size=(200, 3)), columns=["u", "v", "z"])
    return x, {v: rank_swap(x, 5, variant=v, seed=2).masked for v in ("buckets", "distribution")}


def _loop_candidates(x: np.ndarray, xm: np.ndarray, window: int) -> list[list[int]]:
    rank_a = np.argsort(np.argsort(x, axis=0), axis=0)  # marginals kept: ranks in the release
    rank_b = np.argsort(np.argsort(xm, axis=0), axis=0)
    n, m = x.shape
    return [
        [q for q in range(n) if all(abs(rank_b[q, j] - rank_a[i, j]) <= window for j in range(m))]
        for i in range(n)
    ]


@pytest.mark.parametrize("variant", ["buckets", "distribution"])
def test_certain_intruder_against_a_variant_keeps_every_record(swapped_variants, variant):
    # The variants' law reaches every rank, so the certain intruder's B_j is the whole file and
    # the attack is plain DBRL (same standardisation, same tie-breaks) with no certain link.
    from privcheck.risk.linkage.distance import dbrl

    x, masked = swapped_variants
    res = rank_swap_transparency(x, masked[variant], p=5, variant=variant)
    assert res.candidate_set_size.tolist() == [200] * 200
    assert res.figures["window"] == 199 and res.figures["window_rule"] == "certain"
    assert res.figures["variant"] == variant and res.figures["coverage"] == 1.0
    assert res.params["variant"] == variant and res.params["window"] == 199
    assert res.figures["true_in_candidates_rate"] == 1.0 and res.certain_rate == 0.0
    ref = dbrl(x, masked[variant], standardisation="masked", random_state=0)
    assert res.linked_index.tolist() == ref.linked_index.tolist()


@pytest.mark.parametrize("variant", ["buckets", "distribution"])
def test_relaxed_and_naive_intruders_match_loops(swapped_variants, variant):
    from privcheck.masking.rank_swapping import intruder_window

    x, masked = swapped_variants
    xm = masked[variant]
    relaxed = rank_swap_transparency(x, xm, p=5, variant=variant, coverage=0.99)
    window = intruder_window(200, 5, variant, coverage=0.99)
    assert relaxed.figures["window"] == window > 10
    assert relaxed.figures["window_rule"] == "0.99 of the law"
    # plain's ±w (w = 10) against the variant: what `window=` gives, whatever the variant says
    naive = rank_swap_transparency(x, xm, variant=variant, window=10)
    assert naive.figures["window_rule"] == "given" and naive.figures["window"] == 10
    for res, win in ((relaxed, window), (naive, 10)):
        cands = _loop_candidates(x.to_numpy(), xm.to_numpy(), win)
        assert res.candidate_set_size.tolist() == [len(c) for c in cands]
        true_in = np.mean([i in c for i, c in enumerate(cands)])
        assert res.figures["true_in_candidates_rate"] == pytest.approx(true_in)
    assert naive.figures["true_in_candidates_rate"] < relaxed.figures["true_in_candidates_rate"]


def test_plain_window_is_w_at_any_coverage(example):
    orig, masked = example
    for coverage in (1.0, 0.5):
        res = rank_swap_transparency(orig, masked, p=20, coverage=coverage)
        assert res.figures["window"] == 2 and res.figures["window_rule"] == "certain"
