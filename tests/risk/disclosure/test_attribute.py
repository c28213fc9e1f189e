"""Interval, categorical and model-based attribute disclosure against loops and known cases."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcheck.errors import DataError, PolicyError
from privcheck.risk.disclosure.attribute import (
    average_interval_disclosure,
    categorical_disclosure,
    model_disclosure,
    rank_interval_disclosure,
    sd_interval_disclosure,
    sdcmicro_drisk,
)


@pytest.fixture
def files():
    rng = np.random.default_rng(21)
    x = rng.integers(0, 30, size=(80, 3)).astype(float)  # ties in every marginal
    xm = x + rng.normal(scale=4.0, size=x.shape).round(1)
    return x, xm


def _rank_loop(x, xm, p):
    n, m = x.shape
    w = int(p * n // 100)
    out = np.zeros((n, m), dtype=bool)
    for j in range(m):
        s = sorted(xm[:, j])
        for i in range(n):
            pos = [q for q in range(n) if s[q] == xm[i, j]]
            lo = s[max(min(pos) - w, 0)]
            hi = s[min(max(pos) + w, n - 1)]
            out[i, j] = lo <= x[i, j] <= hi
    return out


@pytest.mark.parametrize("p", [1, 5, 10, 20])
def test_rank_interval_matches_loop(files, p):
    x, xm = files
    res = rank_interval_disclosure(x, xm, p)
    expected = _rank_loop(x, xm, p)
    assert np.array_equal(res.disclosed, expected)
    assert res.rate == pytest.approx(expected.mean())
    assert res.record_rate == pytest.approx(expected.all(axis=1).mean())
    # the other centring swaps the roles of the two files
    other = rank_interval_disclosure(x, xm, p, centre="original")
    assert np.array_equal(other.disclosed, _rank_loop(xm, x, p))


def test_sd_interval_matches_loop(files):
    x, xm = files
    res = sd_interval_disclosure(x, xm, 10)
    n, m = x.shape
    for j in range(m):
        mean = sum(x[:, j]) / n
        sd = (sum((v - mean) ** 2 for v in x[:, j]) / (n - 1)) ** 0.5
        for i in range(n):
            assert res.disclosed[i, j] == (xm[i, j] - 0.1 * sd <= x[i, j] <= xm[i, j] + 0.1 * sd)
    avg = average_interval_disclosure(x, xm, "sd")
    assert avg["score"] == pytest.approx(
        np.mean([sd_interval_disclosure(x, xm, p).rate for p in range(1, 11)])
    )
    assert res.rate <= sd_interval_disclosure(x, xm, 50).rate  # wider intervals disclose more


def test_sdcmicro_drisk_matches_its_definition(files):
    x, xm = files
    n, m = x.shape
    sds = [np.std(xm[:, j], ddof=1) for j in range(m)]
    count = 0
    for i in range(n):
        outside = sum(
            not (xm[i, j] - 0.05 * sds[j] <= x[i, j] <= xm[i, j] + 0.05 * sds[j]) for j in range(m)
        )
        count += outside <= 1
    assert sdcmicro_drisk(x, xm) == pytest.approx(count / n)


def test_unmasked_release_discloses_everything(files):
    x, _ = files
    assert rank_interval_disclosure(x, x, 1).rate == 1.0
    assert sd_interval_disclosure(x, x, 1).record_rate == 1.0


def test_categorical_disclosure_by_hand():
    o = pd.DataFrame({"sex": ["f", "m", "f", "m"], "edu": ["a", "b", None, "c"]})
    m = pd.DataFrame({"sex": ["f", "f", "f", "m"], "edu": ["a", "c", None, "b"]})
    res = categorical_disclosure(o, m)
    assert res.per_attribute == {"sex": 0.75, "edu": 0.5}
    assert res.rate == pytest.approx(0.625)
    assert res.record_rate == pytest.approx(0.5)  # records 0 and 2 agree on both
    # baseline sex: P_o = {f: .5, m: .5}, P_m = {f: .75, m: .25} → .5·.75 + .5·.25 = 0.5
    assert res.baseline_per_attribute["sex"] == pytest.approx(0.5)
    with pytest.raises(DataError, match="row by row"):
        categorical_disclosure(o, m.iloc[:3])


def test_model_disclosure_classification():
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(5)
    n = 300
    orig = pd.DataFrame({"a": rng.integers(0, 4, n), "b": rng.integers(0, 3, n)})
    orig["disease"] = np.where(orig["a"] >= 2, "x", "y")  # a function of the features
    masked = orig.copy()
    res = model_disclosure(orig, masked, "disease", estimator=DecisionTreeClassifier())
    assert res.task == "classification"
    assert res.rate == 1.0
    assert res.baseline_rate < 0.7
    # a release whose target is shuffled teaches nothing beyond the baseline
    shuffled = masked.copy()
    shuffled["disease"] = rng.permutation(shuffled["disease"].to_numpy())
    res2 = model_disclosure(orig, shuffled, "disease", estimator=DecisionTreeClassifier())
    assert res2.rate < 0.7


def test_model_disclosure_regression():
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(8)
    n = 400
    orig = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    orig["income"] = 2 * orig["a"] - orig["b"]
    masked = orig + rng.normal(scale=0.05, size=orig.shape)
    res = model_disclosure(orig, masked, "income", estimator=LinearRegression(), tolerance=0.1)
    assert res.task == "regression"
    assert res.r2 > 0.99
    assert res.rate > 0.9 > res.baseline_rate
    with pytest.raises(PolicyError, match="n_folds"):
        model_disclosure(orig, masked, "income", n_folds=1)
    with pytest.raises(DataError, match="no target"):
        model_disclosure(orig, masked, "nope")


def test_interval_errors(files):
    x, xm = files
    with pytest.raises(PolicyError, match="percentage"):
        rank_interval_disclosure(x, xm, 0)
    with pytest.raises(DataError, match="same records"):
        sd_interval_disclosure(x, xm[:10])
