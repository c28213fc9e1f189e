"""SafePub's utility scores: the sensitivity bounds they are divided by hold, by brute force.

Neighbouring inputs differ by one record (added or removed, as in Li et al. and SafePub). The
added record is either drawn into the sample (the sample grows by it) or not (only the input
does). For every tiny input, every record of the domain, every lattice node and several k, the
score (already divided by its sensitivity) may change by at most 1.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from privcheck.anonymizers.evaluator import select_classes
from privcheck.classes import count
from privcheck.encoding import encode
from privcheck.lattice import Lattice
from privcheck.metrics.scores import SCORES, prec_score
from privcheck.policy import parse_policy

# a three-level hierarchy and a two-level one: 4 × 2 values, a lattice of 3 × 2 nodes
A_ROWS = [["a1", "x", "*"], ["a2", "x", "*"], ["a3", "y", "*"], ["a4", "y", "*"]]
B_ROWS = [["b1", "*"], ["b2", "*"]]
POLICY = parse_policy(
    {
        "attributes": {
            "a": {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": A_ROWS}},
            "b": {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": B_ROWS}},
        }
    }
)
DOMAIN = [(a[0], b[0]) for a in A_ROWS for b in B_ROWS]
LATTICE = Lattice((2, 1))


#: the domain encoded once; a sample is the domain weighted by its multiplicities
_DOMAIN = encode(pd.DataFrame(DOMAIN, columns=["a", "b"]), POLICY)


def _tables(rows: list[tuple[str, str]]) -> dict:
    return _tables_of(tuple(rows.count(d) for d in DOMAIN))


@functools.cache
def _tables_of(multiplicities: tuple[int, ...]) -> dict:
    weights = np.array(multiplicities, dtype=np.int64)
    encoded = replace(_DOMAIN, weights=weights, n_records=int(weights.sum()))
    tables = {}
    for node in LATTICE:
        t = count(encoded, node, track_records=False)
        tables[node] = select_classes(t, t.sizes > 0)
    return tables


def _scores(sample: list[tuple[str, str]], n_input: int, k: int) -> np.ndarray:
    tables = _tables(sample)
    return np.array(
        [[s.score(tables[node], k, n_input) for node in LATTICE] for s in SCORES.values()]
    )


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_sensitivity_bounds_hold_on_every_neighbour(k: int) -> None:
    rng = np.random.default_rng(7)
    worst = np.zeros(len(SCORES))
    inputs = [
        list(c)
        for size in range(0, 4)
        for c in itertools.combinations_with_replacement(DOMAIN, size)
    ]
    inputs += [
        [DOMAIN[i] for i in rng.integers(0, len(DOMAIN), size)]
        for size in (6, 9, 12)
        for _ in range(15)
    ]
    for rows in inputs:
        # a sample: some of the input's records (not sampled ones only count in the input size)
        sampled = [r for r in rows if rng.random() < 0.7]
        n = len(rows)
        base = _scores(sampled, n, k)
        for extra in DOMAIN:
            for drawn in (True, False):
                other = _scores([*sampled, extra] if drawn else sampled, n + 1, k)
                worst = np.maximum(worst, np.abs(other - base).max(axis=1))
    assert (worst <= 1 + 1e-9).all(), dict(zip(SCORES, worst, strict=True))
    # the bounds are not slack by orders of magnitude: some neighbour moves each score a lot
    assert (worst >= 0.2).all(), dict(zip(SCORES, worst, strict=True))


def test_prec_score_by_hand() -> None:
    # k = 2 at node (1, 0): classes (x, b1) ×2, (y, b2) ×1 → one kept class of 2, one suppressed
    tables = _tables([("a1", "b1"), ("a2", "b1"), ("a3", "b2")])
    t = tables[(1, 0)]
    # kept cost 2 · (1/2 + 0/1); suppressed: 1 sampled + 2 not sampled, 2 cells each
    expected = -(2 * 0.5 + 3 * 2) / (2 * 1)
    assert prec_score(t, 2, 5) == pytest.approx(expected)
