"""Wildcard semantics of '*' cells: effective class sizes against a row-pair brute force."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcheck.classes import count
from privcheck.encoding import encode
from privcheck.pipeline.check import check
from privcheck.policy import load_policy
from privcheck.wildcard import effective_sizes


def _policy(m: int, k: int = 2, semantics: str = "wildcard") -> dict:
    attrs = {f"q{j}": {"role": "quasi_identifier"} for j in range(m)}
    return {
        "attributes": attrs,
        "models": [{"model": "k-anonymity", "k": k}],
        "suppressed_cells": semantics,
    }


def _random(seed: int, n: int, m: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 3, size=(n, m)).astype(str).astype(object)
    values[rng.random((n, m)) < 0.3] = "*"
    return pd.DataFrame(values, columns=[f"q{j}" for j in range(m)])


def _pairwise(frame: pd.DataFrame) -> np.ndarray:
    """Per row: the rows compatible with it (equal or '*' on every column) — row pairs."""
    v = frame.to_numpy(dtype=object)
    a, b = v[:, None, :], v[None, :, :]
    return ((a == b) | (a == "*") | (b == "*")).all(axis=2).sum(axis=1)


@pytest.mark.parametrize("seed", range(40))
def test_effective_sizes_match_row_pairs(seed: int) -> None:
    m = 2 + seed % 3
    frame = _random(seed, n=5 + seed % 20, m=m)
    policy = load_policy(_policy(m))
    table = count(encode(frame, policy, as_released=True), track_records=True)
    eff = effective_sizes(table)
    expected = _pairwise(frame)
    np.testing.assert_array_equal(eff[table.record_class], expected)
    report = check(frame, policy)
    assert report.suppressed_cells == "wildcard"
    assert report.models[0].value == expected.min()
    assert report.passed == bool(expected.min() >= 2)


def test_category_counts_star_as_a_value() -> None:
    frame = pd.DataFrame({"q0": ["1", "1", "*", "2", "2"], "q1": ["x", "*", "x", "y", "y"]})
    cat = check(frame, _policy(2, semantics="category"))
    wild = check(frame, _policy(2, semantics="wildcard"))
    assert (cat.passed, cat.models[0].value, cat.suppressed_cells) == (False, 1, "category")
    # (1,x) matches (1,*) and (*,x): 3; (1,*) and (*,x) match (1,x): 2; (2,y): 2
    assert (wild.passed, wild.models[0].value) == (True, 2)


def test_default_is_category_and_report_says_so() -> None:
    frame = pd.DataFrame({"q0": ["1", "1"], "q1": ["x", "x"]})
    policy = _policy(2)
    del policy["suppressed_cells"]
    assert check(frame, policy).suppressed_cells == "category"


def test_all_star_rows_stay_suppressed_records_under_star() -> None:
    frame = pd.DataFrame({"q0": ["1", "1", "*", "*"], "q1": ["x", "x", "*", "y"]})
    policy = {**_policy(2), "suppressed_records": "star", "suppression_limit": 0.25}
    report = check(frame, policy)
    assert report.n_suppressed == 1  # the all-'*' row, not the partly starred one
    assert report.n_records == 3
    # (*, y) is compatible with nothing but itself under wildcard: effective size 1
    assert report.models[0].value == 1
