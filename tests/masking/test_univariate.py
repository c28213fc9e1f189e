"""Optimal univariate microaggregation against brute force, a plain DP and MDAV."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcheck.errors import PolicyError
from privcheck.masking import mdav_groups, optimal_univariate, optimal_univariate_groups


def sse(x: np.ndarray, labels: np.ndarray) -> float:
    return float(sum(((x[labels == g] - x[labels == g].mean()) ** 2).sum() for g in set(labels)))


def set_partitions(items: list[int]):
    """Every partition of ``items`` into non-empty blocks (Bell(n) of them)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in set_partitions(rest):
        yield [[first], *part]
        for i in range(len(part)):
            yield [*part[:i], [first, *part[i]], *part[i + 1 :]]


def brute_force_min_sse(x: np.ndarray, k: int) -> float:
    """Minimum SSE over ALL partitions with blocks of at least k values (no ordering assumed)."""
    best = np.inf
    for part in set_partitions(list(range(len(x)))):
        if min(len(b) for b in part) >= k:
            best = min(best, sum(((x[b] - x[b].mean()) ** 2).sum() for b in part))
    return float(best)


def plain_dp_min_sse(x: np.ndarray, k: int) -> float:
    """Hansen–Mukherjee shortest path, one record at a time, SSE of each run recomputed."""
    v = np.sort(x)
    n = len(v)
    best = [0.0] + [np.inf] * n
    for j in range(1, n + 1):
        for size in range(k, 2 * k):
            if size <= j and best[j - size] < np.inf:
                run = v[j - size : j]
                best[j] = min(best[j], best[j - size] + float(((run - run.mean()) ** 2).sum()))
    return best[n]


@settings(max_examples=25, deadline=None)
@given(
    values=st.lists(st.integers(-20, 20), min_size=2, max_size=8),
    k=st.integers(2, 4),
)
def test_equals_brute_force_over_all_partitions(values, k):
    x = np.array(values, dtype=float) + np.linspace(0, 0.01, len(values))
    k = min(k, len(x))
    labels = optimal_univariate_groups(x, k)
    assert sse(x, labels) == pytest.approx(brute_force_min_sse(x, k), abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 120), k=st.integers(2, 7))
def test_equals_plain_dp_and_groups_are_consecutive_runs(seed, n, k):
    k = min(k, n)
    x = np.random.default_rng(seed).lognormal(size=n)
    labels = optimal_univariate_groups(x, k)
    assert sse(x, labels) == pytest.approx(plain_dp_min_sse(x, k), rel=1e-9, abs=1e-12)
    sizes = np.bincount(labels)
    assert sizes.min() >= k and sizes.max() <= max(2 * k - 1, k)
    order = np.argsort(x, kind="stable")
    assert np.all(np.diff(labels[order]) >= 0)  # group g holds the g-th run of sorted values


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 150), k=st.integers(2, 6))
def test_never_worse_than_mdav_on_one_attribute(seed, n, k):
    k = min(k, n)
    x = np.random.default_rng(seed).standard_t(3, size=n)
    optimal = sse(x, optimal_univariate_groups(x, k))
    assert optimal <= sse(x, mdav_groups(x[:, None], k)) + 1e-9


def test_ties_and_duplicates():
    x = np.array([5.0, 1.0, 5.0, 1.0, 5.0, 1.0, 3.0])
    labels = optimal_univariate_groups(x, 3)
    assert sse(x, labels) == pytest.approx(plain_dp_min_sse(x, 3))
    assert labels.tolist() == [1, 0, 1, 0, 1, 0, 0]  # {1,1,1,3} and {5,5,5}


def test_frame_masking_is_k_anonymous_per_column(census):
    result = optimal_univariate(census, 3)
    assert result.method == "optimal-univariate"
    for j, col in enumerate(census.columns):
        assert result.masked[col].value_counts().min() >= 3
        assert np.array_equal(
            result.groups[j], optimal_univariate_groups(census[col].to_numpy(float), 3)
        )
    # each column on its own loses far less than MDAV on all 13 together
    assert result.information_loss.sse_sst < 1.0


def test_median_aggregate():
    frame = pd.DataFrame({"x": [1.0, 2.0, 9.0, 20.0, 21.0, 40.0]})
    out = optimal_univariate(frame, 3, aggregate="median").masked["x"]
    assert out.tolist() == [2.0, 2.0, 2.0, 21.0, 21.0, 21.0]


@pytest.mark.parametrize("k", [1, 7, 0])
def test_k_errors(k):
    with pytest.raises(PolicyError, match="between 2 and the number of records"):
        optimal_univariate_groups(np.arange(6.0), k)


def test_needs_one_dimension():
    with pytest.raises(PolicyError, match="1-D"):
        optimal_univariate_groups(np.zeros((4, 2)), 2)
