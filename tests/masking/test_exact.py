"""Exact integer arithmetic of the masking methods, against Python's exact ints and fractions."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcheck.errors import DataError
from privcheck.masking import (
    add_noise,
    fuzzy_microaggregation,
    mdav,
    optimal_univariate,
    rank_swap,
)
from privcheck.masking.exact import even_offset, float_to_int, group_means, to_float

INT64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)


def oracle(values: list[int], labels: list[int], how: str) -> tuple[list[int], list[float]]:
    """Per-row exact group mean (median) with Python ints: round() is half to even, and
    float(Fraction) is correctly rounded."""
    groups: dict[int, list[int]] = {}
    for v, g in zip(values, labels, strict=True):
        groups.setdefault(g, []).append(v)
    exact = {}
    for g, vs in groups.items():
        if how == "mean":
            exact[g] = Fraction(sum(vs), len(vs))
        else:
            s = sorted(vs)
            exact[g] = Fraction(s[(len(s) - 1) // 2] + s[len(s) // 2], 2)
    return [round(exact[g]) for g in labels], [float(exact[g]) for g in labels]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(INT64, st.integers(0, 5)), min_size=1, max_size=40),
    st.sampled_from(["mean", "median"]),
)
def test_group_means_equal_the_exact_fractions(rows, how):
    values = [v for v, _ in rows]
    labels = [g for _, g in rows]
    x = np.array(values, dtype=np.int64)
    offset = even_offset(x)
    ints, floats, shifted = group_means(x, np.array(labels), how, offset)
    want_ints, want_floats = oracle(values, labels, how)
    assert ints.tolist() == want_ints
    assert floats.tolist() == want_floats
    want_shifted = oracle([v - offset for v in values], labels, how)[1]
    assert shifted.tolist() == want_shifted


def test_group_means_near_the_int64_limits_never_wrap():
    top = 2**63 - 1
    x = np.array([top, top - 1, top, -(2**63), -(2**63) + 1, -(2**63)], dtype=np.int64)
    ints, floats, _ = group_means(x, np.array([0, 0, 0, 1, 1, 1]), "mean")
    assert ints.tolist() == [top] * 3 + [-(2**63)] * 3  # (3·top − 1)/3 rounds to top
    assert floats.tolist() == [float(Fraction(3 * top - 1, 3))] * 3 + [-(2.0**63)] * 3


@pytest.mark.parametrize(
    ("q", "r", "m"),
    [
        (2**53 + 1, 0, 2),  # a tie at the float grid: to even (2^53)
        (2**53 + 1, 1, 2),  # just above the tie: up
        (2**53 + 3, 0, 7),  # tie to even upwards (2^53 + 4)
        (2**60 + 2**7, 0, 3),  # tie at spacing 2^8
        (2**60 + 2**7, 1, 3),
        (-(2**53) - 1, 0, 5),
        (-(2**53) - 2, 1, 2),  # −2^53 − 1.5
        (0, 1, 3),
        (-1, 2, 3),  # −1/3
        (12345, 1, 2**29),
    ],
)
def test_to_float_is_correctly_rounded_at_ties(q, r, m):
    got = to_float(np.array([q]), np.array([r]), np.array([m]))[0]
    assert got == float(Fraction(q) + Fraction(r, m))


def test_float_to_int_rounds_half_even_and_stays_in_range():
    lo, hi = -(2**63), 2**63 - 1
    got = float_to_int(np.array([0.5, 1.5, -2.5, 2.0**63, -(2.0**64), 7.49]), lo, hi)
    assert got.tolist() == [0, 2, -2, hi, lo, 7]
    assert float_to_int(np.array([2.0**60 + 2**9]), 0, 2**60).tolist() == [2**60]


@pytest.fixture
def near_2_60() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    n = 90
    return pd.DataFrame(
        {
            "id": (2**60 + rng.integers(0, 5_000, n) * 7).astype(np.int64),
            "amount": rng.integers(-(2**62), 2**62, n, dtype=np.int64),
            "x": rng.normal(size=n),
        }
    )


@pytest.mark.parametrize("variant", ["plain", "buckets", "distribution"])
def test_rank_swap_is_an_exact_permutation_of_int64_columns(near_2_60, variant):
    result = rank_swap(near_2_60, 10, variant=variant, seed=3)
    out = result.masked
    for c in ("id", "amount"):
        assert out[c].dtype == np.int64
        assert sorted(out[c].tolist()) == sorted(near_2_60[c].tolist())
        assert result.integers[c].tolist() == out[c].tolist()
    assert (out["id"] != near_2_60["id"]).any()  # something was swapped
    # the float column is swapped too, as a permutation of its floats
    assert sorted(out["x"]) == sorted(near_2_60["x"])


@pytest.mark.parametrize("how", ["mean", "median"])
def test_mdav_means_of_int64_columns_are_exact(near_2_60, how):
    result = mdav(near_2_60, 3, aggregate=how)
    labels = result.groups[0].tolist()
    for c in ("id", "amount"):
        want_ints, want_floats = oracle(near_2_60[c].tolist(), labels, how)
        assert result.integers[c].tolist() == want_ints
        assert result.masked[c].tolist() == want_floats
        assert min(want_ints) >= near_2_60[c].min() and max(want_ints) <= near_2_60[c].max()


def test_optimal_univariate_means_of_int64_columns_are_exact(near_2_60):
    result = optimal_univariate(near_2_60, 4, columns=["id", "amount"])
    for c, labels in zip(("id", "amount"), result.groups, strict=True):
        want_ints, _ = oracle(near_2_60[c].tolist(), labels.tolist(), "mean")
        assert result.integers[c].tolist() == want_ints


def test_noise_on_an_integer_column_adds_a_rounded_integer(near_2_60):
    result = add_noise(near_2_60, 0.1, seed=1, columns=["id", "x"])
    out = result.masked
    assert out["id"].dtype == np.int64 and out["x"].dtype == np.float64
    diff = [a - b for a, b in zip(out["id"].tolist(), near_2_60["id"].tolist(), strict=True)]
    assert any(diff) and all(isinstance(d, int) for d in diff)


def test_noise_that_would_leave_the_int64_range_is_refused():
    frame = pd.DataFrame({"big": np.array([2**63 - 1, 2**63 - 2, -(2**63)], dtype=np.int64)})
    with pytest.raises(DataError, match="column 'big'"):
        add_noise(frame, 5.0, seed=1)


def test_fuzzy_centres_of_an_integer_column_are_integers_within_its_range(near_2_60):
    result = fuzzy_microaggregation(near_2_60[["id", "x"]], 3, seed=2)
    ids = result.masked["id"]
    assert ids.dtype == np.int64
    assert ids.min() >= near_2_60["id"].min() and ids.max() <= near_2_60["id"].max()


def test_uint64_beyond_int64_is_refused_naming_the_column():
    frame = pd.DataFrame({"u": np.array([2**64 - 5, 3, 4, 5], dtype=np.uint64)})
    with pytest.raises(DataError, match="column 'u'"):
        mdav(frame, 2)


def test_columns_too_close_for_float64_are_still_told_apart():
    """2^60 + 0 … 2^60 + 87 are one float64 value; computed relative to an even offset they are
    distinct, so MDAV groups neighbours and the swaps and information loss see the spread."""
    frame = pd.DataFrame({"id": (2**60 + np.arange(30) * 3).astype(np.int64)})
    assert frame["id"].astype(float).nunique() == 1
    result = mdav(frame, 3)
    labels = result.groups[0]
    ids = frame["id"].to_numpy()
    for g in np.unique(labels):
        members = np.sort(ids[labels == g])
        assert members[-1] - members[0] <= 3 * 4  # consecutive values, not an arbitrary mix
    assert result.information_loss.sse_sst < 5
    swapped = rank_swap(frame, 10, seed=1)
    assert sorted(swapped.masked["id"].tolist()) == sorted(ids.tolist())
    assert swapped.information_loss.sse_sst > 0
