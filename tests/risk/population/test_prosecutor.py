"""Prosecutor risk from class sizes, against record-by-record brute force."""

from __future__ import annotations

import numpy as np
import pytest

from privcheck.risk.population.prosecutor import (
    DEFAULT_THRESHOLD,
    RISK_BINS,
    policy_k,
    prosecutor_risk,
    risk_histogram,
    size_distribution,
    threshold,
)


def brute_force(sizes, weights, k):
    """One risk per record (1 / its class's size), then the three figures by definition."""
    risks = [1.0 / s for s, w in zip(sizes, weights, strict=True) for _ in range(w)]
    bound = 1.0 / k if k else DEFAULT_THRESHOLD
    return {
        "highest": max(risks),
        "average": sum(risks) / len(risks),
        "records_above": sum(r > bound for r in risks) / len(risks),
    }


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [None, 2, 3, 5, 11])
def test_figures_equal_record_by_record_risks(seed, k):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 30, rng.integers(1, 40))
    assert prosecutor_risk(sizes, k=k) == pytest.approx(brute_force(sizes, sizes, k))
    # effective sizes (wildcard): a class faces more records than it holds
    effective = sizes + rng.integers(0, 5, len(sizes))
    assert prosecutor_risk(effective, sizes, k) == pytest.approx(brute_force(effective, sizes, k))


def test_worked_example():
    # classes of 1, 2 and 5 records: risks 1, 1/2, 1/2, 1/5 × 5
    figures = prosecutor_risk([1, 2, 5], k=3)
    assert figures["highest"] == 1.0
    assert figures["average"] == pytest.approx(3 / 8)  # #classes / n
    assert figures["records_above"] == pytest.approx(3 / 8)  # the classes below k = 3
    # without a k the threshold is 0.2: risk 1/5 is not above it
    assert prosecutor_risk([1, 2, 5])["records_above"] == pytest.approx(3 / 8)
    assert prosecutor_risk([1, 2, 4])["records_above"] == 1.0


def test_class_of_exactly_k_is_not_above_one_over_k():
    assert prosecutor_risk([3, 3, 3], k=3)["records_above"] == 0.0
    assert prosecutor_risk([5], k=None)["records_above"] == 0.0  # 1/5 is not above 0.2


def test_empty_and_zero_weight_classes_carry_no_risk():
    assert prosecutor_risk([]) == {"highest": 0.0, "average": 0.0, "records_above": 0.0}
    assert prosecutor_risk([1, 4], [0, 4], k=2) == {
        "highest": 0.25,
        "average": 0.25,
        "records_above": 0.0,
    }


def test_histogram_bins_are_closed_on_the_right():
    sizes = np.array([1, 2, 5, 10, 20, 50, 100, 101, 3])
    records = risk_histogram(sizes)
    expected = np.zeros(len(RISK_BINS) - 1, dtype=int)
    for s in sizes:
        r = 1.0 / s
        i = next(i for i in range(len(RISK_BINS) - 1) if RISK_BINS[i] < r <= RISK_BINS[i + 1])
        expected[i] += s
    assert records == expected.tolist() and sum(records) == sizes.sum()


def test_size_distribution_counts_classes_and_records():
    dist = size_distribution([3, 1, 3, 7], [3, 1, 2, 7])
    assert dist == {"sizes": [1, 3, 7], "classes": [1, 2, 1], "records": [1, 5, 7]}


def test_threshold_follows_the_largest_k():
    class M:
        def __init__(self, model, k=None):
            self.model, self.k = model, k

    assert policy_k([M("k-anonymity", 3), M("l-diversity"), M("k-anonymity", 5)]) == 5
    assert policy_k([M("l-diversity")]) is None
    assert threshold(5) == 0.2 and threshold(None) == DEFAULT_THRESHOLD and threshold(4) == 0.25
