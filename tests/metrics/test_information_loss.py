"""Information-loss measures on hand-computed examples and against direct numpy formulas."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcheck.errors import DataError, PolicyError
from privcheck.metrics.information_loss import (
    il1s,
    information_loss,
    moment_divergences,
    sse_sst,
    within_group_sse_sst,
)

X = np.array([[0.0], [2.0], [4.0]])
Y = np.array([[1.0], [1.0], [4.0]])


def test_sse_sst_by_hand():
    # differences (−1, 1, 0) over sd² = 8/3 → SSE = 3/4; SST of z-scores = n = 3 → 25 %
    assert sse_sst(X, Y) == pytest.approx(25.0)
    assert sse_sst(X, X) == 0.0


def test_within_group_sse_sst_by_hand_and_against_the_release():
    x = np.array([0.0, 2.0, 4.0, 10.0])
    # groups {0, 2} and {4, 10}: SSE = 1 + 1 + 9 + 9 = 20, SST = 16 + 4 + 0 + 36 = 56
    assert within_group_sse_sst(x, np.array([0, 0, 1, 1])) == pytest.approx(100 * 20 / 56)
    rng = np.random.default_rng(0)
    data = rng.lognormal(size=(200, 4))
    labels = rng.integers(0, 40, size=200)
    means = pd.DataFrame(data).groupby(labels).transform("mean").to_numpy()
    assert within_group_sse_sst(data, labels) == pytest.approx(sse_sst(data, means))


def test_il1s_published_and_sdcmicro_conventions():
    # sample sd 2: |x − x'| / 2 = (0.5, 0.5, 0) → mean 1/3; published divides by √2
    assert il1s(X, Y) == pytest.approx(1 / 3 / np.sqrt(2))
    assert il1s(X, Y, convention="sdcmicro") == pytest.approx(1 / 3 * np.sqrt(2))
    with pytest.raises(PolicyError, match="convention"):
        il1s(X, Y, convention="other")


def test_il1s_against_a_direct_loop():
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(50, 3)) * [1, 10, 100], rng.normal(size=(50, 3))
    total = 0.0
    for j in range(3):
        s = np.std(x[:, j], ddof=1)
        for i in range(50):
            total += abs(x[i, j] - y[i, j]) / (np.sqrt(2) * s)
    assert il1s(x, y) == pytest.approx(total / 150)


def test_moment_divergences_by_hand():
    d = moment_divergences(X, Y)
    assert d["mean_divergence"] == pytest.approx(0.0)
    assert d["variance_divergence"] == pytest.approx(abs(2 - 8 / 3) / (8 / 3))
    assert d["covariance_divergence"] is None and d["correlation_divergence"] is None
    shifted = moment_divergences(X, X + np.sqrt(8 / 3))  # a shift of one sd
    assert shifted["mean_divergence"] == pytest.approx(1.0)


def test_moment_divergences_against_numpy():
    rng = np.random.default_rng(2)
    x = rng.multivariate_normal([0, 5, 1], [[1, 0.8, 0.1], [0.8, 2, 0.3], [0.1, 0.3, 1]], 300)
    y = x + rng.normal(size=x.shape) * [0.5, 2.0, 0.1]
    d = moment_divergences(x, y)
    sd = x.std(axis=0)
    iu = np.triu_indices(3, 1)
    cov_x, cov_y = np.cov(x, rowvar=False, ddof=0), np.cov(y, rowvar=False, ddof=0)
    assert d["mean_divergence"] == pytest.approx(np.mean(np.abs(y.mean(0) - x.mean(0)) / sd))
    assert d["variance_divergence"] == pytest.approx(
        np.mean(np.abs(y.var(0) - x.var(0)) / x.var(0))
    )
    assert d["covariance_divergence"] == pytest.approx(
        np.mean(np.abs(cov_y - cov_x)[iu] / np.outer(sd, sd)[iu])
    )
    assert d["correlation_divergence"] == pytest.approx(
        np.mean(np.abs(np.corrcoef(y, rowvar=False) - np.corrcoef(x, rowvar=False))[iu])
    )


def test_constant_columns():
    x = np.array([[1.0, 5.0], [2.0, 5.0], [3.0, 5.0]])
    y = np.array([[1.0, 5.0], [2.0, 6.0], [3.0, 7.0]])
    d = moment_divergences(x, y)
    # the original correlation with a constant column counts as 0; the masked one is 1
    assert d["correlation_divergence"] == pytest.approx(1.0)
    assert np.isfinite(sse_sst(x, y)) and np.isfinite(il1s(x, y))
    with pytest.raises(DataError, match="every attribute is constant"):
        sse_sst(np.ones((3, 2)), np.ones((3, 2)))


def test_bundle_and_frames():
    frame = pd.DataFrame(np.random.default_rng(3).normal(size=(20, 2)), columns=["a", "b"])
    loss = information_loss(frame, frame * 1.1)
    assert loss.mean_divergence > 0 and loss.variance_divergence == pytest.approx(0.21)
    assert loss.correlation_divergence == pytest.approx(0.0, abs=1e-12)
    assert set(loss.model_dump()) == {
        "sse_sst",
        "il1s",
        "mean_divergence",
        "variance_divergence",
        "covariance_divergence",
        "correlation_divergence",
    }


def test_input_errors():
    with pytest.raises(DataError, match="same shape"):
        sse_sst(np.zeros((3, 2)), np.zeros((4, 2)))
    with pytest.raises(DataError, match="missing or infinite"):
        il1s(np.array([1.0, np.nan]), np.array([1.0, 2.0]))
    with pytest.raises(DataError, match="one entry per record"):
        within_group_sse_sst(np.zeros((3, 1)), np.array([0, 1]))
