"""Numeric inputs of the risk attacks: integer columns exact, one shift common to every file."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcheck.errors import DataError
from privcheck.risk.linkage.inputs import numeric_matrix, paired_matrices

BIG = 2**60


def test_integers_closer_than_float64_spacing_keep_their_differences():
    """2^60 + 0, 3, 6 … are one float64 (spacing 256); shifted in integers they stay apart, and
    their spread (what a z-score divides by) is the small integers' spread."""
    ids = BIG + 3 * np.arange(20, dtype=np.int64)
    x, _ = numeric_matrix(pd.DataFrame({"id": ids}), "the file")
    np.testing.assert_array_equal(np.diff(x[:, 0]), 3.0)
    assert x[:, 0].std(ddof=1) == pytest.approx((3 * np.arange(20)).std(ddof=1))


def test_one_shift_serves_every_file_even_a_float_column():
    """An integer intruder column and a float release column near 2^60 are shifted by the same
    float-representable amount: each difference is the exact one (Python ints)."""
    a = BIG + np.array([1000, 3000, 5001], dtype=np.int64)
    b = np.array([float(BIG + 1024), float(BIG + 2816), float(BIG + 5120)])
    o = BIG + np.array([7, 9, 11], dtype=np.int64)
    za, zb, zo, _ = paired_matrices(
        pd.DataFrame({"v": a}), pd.DataFrame({"v": b}), ["v"], pd.DataFrame({"v": o})
    )
    exact = [int(x) - int(y) for x, y in zip(a.tolist(), b.tolist(), strict=True)]
    assert (za[:, 0] - zb[:, 0]).tolist() == exact
    assert (za[:, 0] - zo[:, 0]).tolist() == [int(x) - int(y) for x, y in zip(a, o, strict=True)]


def test_small_integers_are_not_shifted():
    x, _ = numeric_matrix(pd.DataFrame({"v": np.array([-5, 0, 7], dtype=np.int64)}), "f")
    assert x[:, 0].tolist() == [-5.0, 0.0, 7.0]


def test_integers_that_meet_in_float64_over_their_range_are_refused():
    values = np.array([2**62 + 1, 2**62 + 2, -(2**62), 0], dtype=np.int64)
    with pytest.raises(DataError, match="'id' holds integers that differ by less than float64"):
        numeric_matrix(pd.DataFrame({"id": values}), "the file")
    # the same range without values closer than float64's spacing is fine
    wide = np.array([2**62, 2**62 + 4096, -(2**62), 0], dtype=np.int64)
    x, _ = numeric_matrix(pd.DataFrame({"id": wide}), "the file")
    assert len(np.unique(x[:, 0])) == 4
