"""Additive noise: variance and covariance ratios on large samples, errors, reproducibility."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcheck.errors import PolicyError
from privcheck.masking import add_noise

SIGMA = np.array([[4.0, 1.2, -0.6], [1.2, 1.0, 0.3], [-0.6, 0.3, 2.25]])
N = 200_000


@pytest.fixture(scope="module")
def sample() -> np.ndarray:
    return np.random.default_rng(0).multivariate_normal([10.0, -3.0, 0.0], SIGMA, size=N)


def cov_tolerance(cov: np.ndarray, n: int) -> np.ndarray:
    """5 sd of a sample covariance of normal data: Var(s_jl) = (σ_jl² + σ_jj σ_ll)/(n−1)."""
    return 5 * np.sqrt((cov**2 + np.outer(np.diag(cov), np.diag(cov))) / (n - 1))


@pytest.mark.parametrize("a", [0.05, 0.5])
def test_uncorrelated_noise_has_variance_a_var_x(sample, a):
    noise = add_noise(sample, a, seed=1).masked - sample
    var_x = sample.var(axis=0, ddof=1)
    target = np.diag(a * var_x)
    assert np.all(np.abs(np.cov(noise, rowvar=False) - target) < cov_tolerance(target, N))
    assert np.all(np.abs(noise.mean(axis=0)) < 5 * np.sqrt(a * var_x / N))


@pytest.mark.parametrize("a", [0.05, 0.5])
def test_correlated_noise_has_covariance_a_sigma(sample, a):
    noise = add_noise(sample, a, kind="correlated", seed=2).masked - sample
    target = a * np.cov(sample, rowvar=False)
    assert np.all(np.abs(np.cov(noise, rowvar=False) - target) < cov_tolerance(target, N))


def test_correlated_noise_keeps_correlations_uncorrelated_does_not(sample):
    uncorrelated = add_noise(sample, 1.0, seed=3).information_loss
    correlated = add_noise(sample, 1.0, kind="correlated", seed=3).information_loss
    # uncorrelated noise with a = 1 halves every correlation (|r| ≤ 0.6 here); correlated keeps them
    assert correlated.correlation_divergence < 0.01 < uncorrelated.correlation_divergence
    assert uncorrelated.sse_sst == pytest.approx(100.0, rel=0.02)  # E[SSE] = a·SST


def test_singular_covariance_is_fine():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(5000, 2))
    frame = pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "c": x[:, 0] + 2 * x[:, 1], "k": 1.0})
    out = add_noise(frame, 0.2, kind="correlated", seed=5).masked
    noise = out - frame
    assert np.allclose(noise["c"], noise["a"] + 2 * noise["b"])  # noise lies in Σ's span
    assert np.allclose(noise["k"], 0.0)


def test_seeded_frame_output_and_params(sample):
    frame = pd.DataFrame(sample[:100], columns=["x", "y", "z"]).assign(name="n")
    a = add_noise(frame, 0.1, seed=9, columns=["x", "z"])
    b = add_noise(frame, 0.1, seed=9, columns=["x", "z"])
    assert a.masked.equals(b.masked)
    assert (a.masked["y"] == frame["y"]).all() and (a.masked["name"] == "n").all()
    assert a.params == {
        "a": 0.1,
        "kind": "uncorrelated",
        "columns": ["x", "z"],
        "moments": "sample",
    }


@pytest.mark.parametrize("a", [0, -1, float("nan"), float("inf"), "0.1", True])
def test_noise_level_errors(sample, a):
    with pytest.raises(PolicyError, match="noise level a"):
        add_noise(sample[:10], a)


def test_kind_and_size_errors(sample):
    with pytest.raises(PolicyError, match="kind must be"):
        add_noise(sample[:10], 0.1, kind="multiplicative")
    with pytest.raises(PolicyError, match="at least two records"):
        add_noise(sample[:1], 0.1)
