"""The DP's degree sequence against exhaustive search over all anonymizations of tiny sequences."""

import itertools

import numpy as np
import pytest

from privcheck.errors import DataError, PolicyError
from privcheck.graph.degree_dp import anonymize_degree_sequence


def set_partitions(items):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in set_partitions(rest):
        yield [[first], *part]
        for i in range(len(part)):
            yield [*part[:i], [first, *part[i]], *part[i + 1 :]]


def partition_optimum(d, k, allow_decrease):
    """Min L1 over all partitions of the nodes (any, not only contiguous) into groups ≥ k.

    A k-anonymous sequence groups nodes by their new value; the cheapest value for a group is
    its maximum (additions only) or its median (both directions)."""
    best = None
    for part in set_partitions(list(range(len(d)))):
        if min(len(g) for g in part) < k:
            continue
        cost = 0
        for g in part:
            v = d[g]
            cost += (v.max() - v).sum() if not allow_decrease else np.abs(v - np.median(v)).sum()
        best = cost if best is None or cost < best else best
    return best


def value_optimum(d, k, allow_decrease):
    """Min L1 over every sequence of values in [min d, max d] (≥ d for additions only)."""
    lo = d if not allow_decrease else np.full_like(d, d.min())
    ranges = [range(int(a), int(d.max()) + 1) for a in lo]
    cands = np.array(list(itertools.product(*ranges)))
    ok = np.ones(len(cands), bool)
    for v in range(int(d.min()), int(d.max()) + 1):
        count = (cands == v).sum(axis=1)
        ok &= (count == 0) | (count >= k)
    return int(np.abs(cands[ok] - d).sum(axis=1).min())


@pytest.mark.parametrize("allow_decrease", [False, True])
def test_minimal_cost_against_partition_search(allow_decrease):
    rng = np.random.default_rng(7)
    for _ in range(150):
        n = int(rng.integers(2, 9))
        d = rng.integers(0, n, size=n)
        k = int(rng.integers(2, n + 1))
        res = anonymize_degree_sequence(d, k, allow_decrease=allow_decrease)
        assert res.cost == partition_optimum(d, k, allow_decrease)
        assert res.cost == np.abs(res.target - d).sum()
        assert np.unique(res.target, return_counts=True)[1].min() >= k
        if not allow_decrease:
            assert (res.target >= d).all()


@pytest.mark.parametrize("allow_decrease", [False, True])
def test_minimal_cost_against_value_search(allow_decrease):
    rng = np.random.default_rng(11)
    for _ in range(40):
        n = int(rng.integers(2, 7))
        d = rng.integers(0, 5, size=n)
        k = int(rng.integers(2, n + 1))
        res = anonymize_degree_sequence(d, k, allow_decrease=allow_decrease)
        assert res.cost == value_optimum(d, k, allow_decrease)


def test_long_sequences_are_k_anonymous_and_cheaper_than_one_group():
    rng = np.random.default_rng(3)
    d = np.minimum(rng.zipf(2.2, size=5000), 400)
    for k in (2, 5, 17):
        for dec in (False, True):
            res = anonymize_degree_sequence(d, k, allow_decrease=dec)
            assert np.unique(res.target, return_counts=True)[1].min() >= k
            assert res.cost <= np.abs(d.max() - d).sum()
    # Already k-anonymous sequences cost nothing.
    same = np.repeat([1, 2, 3], 4)
    assert anonymize_degree_sequence(same, 4).cost == 0


def test_errors():
    with pytest.raises(PolicyError, match="between 1 and the number of nodes"):
        anonymize_degree_sequence(np.array([1, 2]), 3)
    with pytest.raises(DataError, match="integer array"):
        anonymize_degree_sequence(np.array([1.5, 2.0]), 2)
