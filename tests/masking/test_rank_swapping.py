"""Rank swapping: marginals kept, swap range respected, exact match with the sequential visit."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcheck.errors import DataError, PolicyError
from privcheck.masking import rank_swap
from privcheck.masking.rank_swapping import (
    _LAWS,
    _fallback,
    certain_window,
    intruder_window,
    swap_partners,
    swap_window,
)

VARIANTS = ["plain", "buckets", "distribution"]


def sequential_partners(n: int, w: int, variant: str, seed: int, chunk: int) -> np.ndarray:
    """The textbook visit, one rank at a time, on the same random numbers as swap_partners."""
    rng = np.random.default_rng(seed)
    law = _LAWS[variant](n, w)
    swapped = np.zeros(n, dtype=bool)
    partner = np.full(n, -1)
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        proposals = law.propose(np.arange(lo, hi), rng)
        fallback = rng.random(hi - lo)
        for pos, i in enumerate(range(lo, hi)):
            if swapped[i]:
                continue
            swapped[i] = True
            choice = next((int(j) for j in proposals[pos] if j >= 0 and not swapped[j]), -1)
            if choice < 0:
                choice = _fallback(law, i, lambda r: ~swapped[r], float(fallback[pos]))
            if choice >= 0:
                swapped[choice] = True
                partner[i], partner[choice] = choice, i
    return partner


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(
    ("n", "w", "chunk"), [(1080, 54, 256), (1080, 10, 300), (600, 3, 200), (50, 1, 16), (7, 6, 4)]
)
def test_vectorised_resolution_equals_the_sequential_visit(variant, n, w, chunk):
    expected = sequential_partners(n, w, variant, seed=n + w, chunk=chunk)
    got = swap_partners(n, w, variant, np.random.default_rng(n + w), chunk=chunk)
    assert np.array_equal(got, expected)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 300),
    p=st.floats(1, 100),
    variant=st.sampled_from(VARIANTS),
)
def test_partners_form_a_matching_and_plain_stays_in_range(seed, n, p, variant):
    w = max(1, int(p * n / 100))
    partner = swap_partners(n, w, variant, np.random.default_rng(seed), chunk=64)
    paired = np.flatnonzero(partner >= 0)
    assert np.array_equal(partner[partner[paired]], paired)  # swaps are pairs
    assert np.all(partner[paired] != paired)
    if variant == "plain":
        assert np.all(np.abs(partner[paired] - paired) <= w)


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_column_is_a_permutation_of_the_original(census, variant):
    result = rank_swap(census, 5, variant=variant, seed=1)
    for col in census.columns:
        assert np.array_equal(np.sort(result.masked[col].to_numpy()), np.sort(census[col]))
    assert result.information_loss.mean_divergence == pytest.approx(0.0, abs=1e-12)
    assert result.information_loss.variance_divergence == pytest.approx(0.0, abs=1e-12)
    assert (result.masked != census).to_numpy().mean() > 0.5  # most values did move


def test_plain_rank_displacement_is_at_most_p_percent():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(2000, 3)), columns=["a", "b", "c"])
    result = rank_swap(frame, 2.5, seed=4)
    w = result.params["window_ranks"]
    assert w == 50
    for col in frame.columns:
        rank_of = pd.Series(np.arange(len(frame)), index=np.sort(frame[col].to_numpy()))
        moved = np.abs(rank_of[result.masked[col].to_numpy()].to_numpy() - frame[col].rank() + 1)
        assert moved.max() <= w
        assert moved.max() >= w // 2


def test_variants_escape_the_window_and_defeat_the_interval_attack(census):
    # The transparency attack on plain rank swapping (Nin, Herranz & Torra 2008): knowing p, an
    # intruder keeps the masked records whose every value lies within ±w ranks of the target's;
    # the true record always survives. The variants move values further, so the same attack
    # loses the true record (and a wider window leaves bigger candidate sets).
    x = census.to_numpy()
    n = len(x)
    orig_sorted = np.sort(x, axis=0)
    kept_true = {}
    for variant in VARIANTS:
        masked = rank_swap(census, 5, variant=variant, seed=2)
        w = masked.params["window_ranks"]
        y = masked.masked.to_numpy()
        inside = np.ones(n, dtype=bool)
        for j in range(x.shape[1]):
            # the values within w ranks of the target's value (tie blocks widen the window)
            first = np.searchsorted(orig_sorted[:, j], x[:, j], side="left")
            last = np.searchsorted(orig_sorted[:, j], x[:, j], side="right") - 1
            low = orig_sorted[np.maximum(first - w, 0), j]
            high = orig_sorted[np.minimum(last + w, n - 1), j]
            inside &= (low <= y[:, j]) & (y[:, j] <= high)
        kept_true[variant] = float(inside.mean())
    assert kept_true["plain"] == 1.0
    assert kept_true["buckets"] < 0.5 and kept_true["distribution"] < 0.5


@pytest.mark.parametrize("variant", ["buckets", "distribution"])
def test_proposal_law_matches_the_fallback_weights(variant):
    # The proposals and the exact fallback must describe one law, or the partner distribution
    # would depend on how many proposals happened to be taken.
    n, w, i = 400, 20, 37
    law = _LAWS[variant](n, w)
    draws = np.concatenate(
        [law.propose(np.full(5000, i), np.random.default_rng(s)).ravel() for s in range(4)]
    )
    draws = draws[draws >= 0]
    support = np.arange(i + 1, n)
    weights = law.weights(np.array([i]), support[None, :])[0]
    expected = weights / weights.sum()
    counts = np.bincount(draws - (i + 1), minlength=len(support))
    sd = np.sqrt(len(draws) * expected * (1 - expected)) + 1
    assert np.all(np.abs(counts - len(draws) * expected) < 5 * sd)


def test_buckets_law_halves_with_each_bucket():
    law = _LAWS["buckets"](1000, 100)
    p = law._bucket_probs(0)
    assert np.allclose(p[1:] / p[:-1], 0.5) and p.sum() == pytest.approx(1.0)


def test_example_window_from_the_literature():
    # Ten records with p = 20 % give a window of 2 ranks (shared examples, Torra's lecture).
    assert swap_window(20, 10) == 2


def test_seeded_and_transparent(census):
    a = rank_swap(census, 10, seed=8)
    b = rank_swap(census, 10, seed=8)
    assert a.masked.equals(b.masked)
    assert a.params == {
        "p": 10.0,
        "window_ranks": 108,
        "variant": "plain",
        "columns": list(census.columns),
        "proposal_law": "uniform over the next 108 unswapped ranks",
    }
    assert a.method == "rank-swapping"
    assert rank_swap(census, 10, variant="buckets", seed=1).method == "rank-swapping-buckets"


@pytest.mark.parametrize(
    ("p", "fragment"),
    [
        (0, "must be in (0, 100]; got p=0"),
        (100.5, "must be in (0, 100]"),
        (-3, "must be in (0, 100]"),
        (float("nan"), "must be in (0, 100]"),
        ("5", "must be a percentage"),
        (True, "must be a percentage"),
        (0.05, "less than one rank"),
    ],
)
def test_p_errors(census, p, fragment):
    with pytest.raises(PolicyError) as info:
        rank_swap(census, p)
    assert fragment in str(info.value)


def test_other_errors(census):
    with pytest.raises(PolicyError, match="variant must be"):
        rank_swap(census, 5, variant="swap")
    frame = census.head(30).copy()
    frame["s"] = "x"
    with pytest.raises(DataError, match="'s' is not numeric"):
        rank_swap(frame, 10)


@pytest.mark.parametrize("variant", ["buckets", "distribution"])
def test_intruder_window_covers_the_displacement_law(variant):
    # Oracle: fresh replays of the law (other seed) fall within the window about `coverage` of
    # the time; plain's window is its hard bound w.
    n, p = 1000, 5
    assert intruder_window(n, p, "plain") == swap_window(p, n) == 50
    window = intruder_window(n, p, variant, coverage=0.99)
    rng = np.random.default_rng(123)
    ranks = np.arange(n)
    shifts = np.concatenate(
        [np.abs(np.where((q := swap_partners(n, 50, variant, rng)) >= 0, q - ranks, 0))
         for _ in range(10)]
    )  # fmt: skip
    assert 0.98 <= (shifts <= window).mean() <= 0.998
    assert window > 50  # the law reaches beyond plain's bound
    with pytest.raises(PolicyError, match="coverage"):
        intruder_window(n, p, variant, coverage=0)


def _max_shift(n: int, w: int, variant: str, replays: int, seed: int) -> int:
    rng = np.random.default_rng(seed)
    ranks = np.arange(n)
    return max(
        int(np.abs(np.where((q := swap_partners(n, w, variant, rng)) >= 0, q - ranks, 0)).max())
        for _ in range(replays)
    )


@pytest.mark.parametrize(("variant", "p", "n"), [("buckets", 25, 8), ("distribution", 50, 6)])
def test_certain_window_is_the_whole_file_for_the_variants(variant, p, n):
    # Oracle: replays of the law on a small file reach the largest displacement, n − 1 (rank 0
    # swapped with the last rank), so no window short of the whole file is certain; plain's
    # replays never exceed w, which is its certain window.
    w = swap_window(p, n)
    assert certain_window(n, p, "plain") == w == _max_shift(n, w, "plain", 300, 5)
    assert certain_window(n, p, variant) == n - 1 == _max_shift(n, w, variant, 1000, 5)
    assert intruder_window(n, p, variant, coverage=1.0) == n - 1
    assert certain_window(1080, 5, variant) == 1079 and certain_window(1080, 5) == 54


@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        (lambda: certain_window(100, 5, "bucket"), "variant must be 'plain', 'buckets'"),
        (lambda: certain_window(100, 0.5, "buckets"), "less than one rank"),
        (lambda: certain_window(100, 150, "plain"), "must be in (0, 100]"),
        (lambda: intruder_window(100, 5, "buckets", coverage=1.5), "coverage must be a number"),
        (lambda: intruder_window(100, 5, "buckets", coverage="high"), "coverage must be"),
        (lambda: intruder_window(100, 5, "buckets", coverage=True), "coverage must be"),
        (lambda: intruder_window(100, 5, 3), "variant must be"),  # type: ignore[arg-type]
    ],
)
def test_window_parameter_errors(call, fragment):
    with pytest.raises(PolicyError) as info:
        call()
    assert fragment in str(info.value)
