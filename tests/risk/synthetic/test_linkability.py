"""Linkability: the two halves, the link rule and random tie-breaking."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcheck.errors import PolicyError
from privcheck.risk.synthetic.linkability import _linked, default_halves, linkability


def test_default_halves_and_bad_columns():
    assert default_halves(["a", "b", "c"]) == [["a", "b"], ["c"]]
    with pytest.raises(PolicyError, match="at least two attributes"):
        default_halves(["a"])
    frame = pd.DataFrame({"a": [1], "b": [2]})
    with pytest.raises(PolicyError, match="aux_cols"):
        linkability(frame, frame, frame, aux_cols=[["a"]])


def test_link_rule():
    idx0 = np.array([[1, 2], [3, 4], [5, 6]])
    idx1 = np.array([[2, 9], [8, 7], [6, 5]])
    assert _linked(idx0, idx1).tolist() == [True, False, True]


def test_unique_copies_link_and_ties_do_not_inflate():
    """A synthetic table that copies unique members links every member and no control. When
    every synthetic record ties on both halves, random tie-breaks link about 1 in n, where the
    first of the tied records would link every target."""
    n = 60
    members = pd.DataFrame({"a": np.arange(n), "b": np.arange(n) * 3})
    rng = np.random.default_rng(4)  # other people: halves unrelated to the members'
    control = pd.DataFrame({"a": rng.permutation(n) + 0.4, "b": rng.permutation(n) * 3 + 1})
    res = linkability(members, members, control, n_attacks=n, random_state=0)
    assert res["attack_rate"] > 0.95 and res["control_rate"] < 0.1
    assert res["risk_ci"][0] > 0.8
    flat = pd.DataFrame({"a": [0] * n, "b": [0] * n})
    tied = linkability(flat, flat, flat.copy(), n_attacks=n, random_state=0)
    assert tied["n_success"] < 10  # ~ n × 1/n = 1 expected
