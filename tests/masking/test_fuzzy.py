"""Fuzzy (FCM) microaggregation: the two limits, the membership formula, the draw, errors."""

from __future__ import annotations

import numpy as np
import pytest

from privcheck.errors import PolicyError
from privcheck.masking import fuzzy_microaggregation
from privcheck.masking.fuzzy import _draw_centres, _update_centres, log_memberships


@pytest.fixture(scope="module")
def blob() -> np.ndarray:
    """Three independent attributes on different scales: no direction dominates after z-scoring."""
    rng = np.random.default_rng(1)
    return rng.normal(size=(60, 3)) * [1.0, 5.0, 10.0] + [0.0, 3.0, -2.0]


def direct_memberships(x: np.ndarray, v: np.ndarray, m: float) -> np.ndarray:
    """μ_i(x) = (Σ_j (‖x − v_i‖² / ‖x − v_j‖²)^(1/(m−1)))^(−1), straight from the formula."""
    d2 = ((x[:, None, :] - v[None, :, :]) ** 2).sum(axis=2)
    ratio = (d2[:, :, None] / d2[:, None, :]) ** (1.0 / (m - 1.0))
    return 1.0 / ratio.sum(axis=2)


@pytest.mark.parametrize("m", [1.3, 2.0, 3.5])
def test_memberships_match_the_formula(m):
    rng = np.random.default_rng(0)
    x, v = rng.normal(size=(40, 3)), rng.normal(size=(6, 3))
    assert np.allclose(np.exp(log_memberships(x, v, m)), direct_memberships(x, v, m))


def test_record_on_a_centre_belongs_to_it():
    v = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 0.0]])
    u = np.exp(log_memberships(np.array([[0.0, 0.0], [1.0, 1.0]]), v, 2.0))
    assert np.allclose(u, [[0.5, 0.0, 0.5], [0.0, 1.0, 0.0]])


@pytest.mark.parametrize("m", [1.5, 2.0, 40.0])
def test_centre_update_matches_direct_weighted_mean(m):
    rng = np.random.default_rng(2)
    x, v = rng.normal(size=(50, 2)), rng.normal(size=(5, 2))
    w = direct_memberships(x, v, m) ** m
    expected = (w.T @ x) / w.sum(axis=0)[:, None]
    assert np.allclose(_update_centres(x, v, m), expected)


def test_large_fuzziness_gives_the_mean(blob):
    # m1 = m2 large: memberships → 1/c and the FCM centres collapse on the mean, so every record
    # becomes the mean (the mean is a stable FCM solution here: its largest normalised scatter
    # eigenvalue is 0.41 < 1/2; Yu, Cheng & Huang 2004).
    result = fuzzy_microaggregation(blob, k=3, m1=20.0, m2=20.0, seed=5)
    deviation = np.abs(result.masked - blob.mean(axis=0)) / blob.std(axis=0)
    assert deviation.max() < 1e-3
    assert result.information_loss.sse_sst == pytest.approx(100.0, abs=0.1)


@pytest.mark.parametrize("m", [1.01, 1 + 1e-6, 1 + 1e-9])
def test_one_cluster_per_record_and_crisp_memberships_give_the_original(blob, m):
    result = fuzzy_microaggregation(blob, n_clusters=len(blob), m1=m, m2=m, seed=3)
    assert np.allclose(result.masked, blob, rtol=0, atol=1e-12)
    assert result.information_loss.sse_sst == pytest.approx(0.0, abs=1e-20)


def test_moderate_fuzziness_sits_between_the_limits(blob):
    crisp = fuzzy_microaggregation(blob, k=3, m1=1.2, m2=1.2, seed=1).information_loss.sse_sst
    fuzzy = fuzzy_microaggregation(blob, k=3, m1=2.0, m2=2.0, seed=1).information_loss.sse_sst
    assert 0 < crisp < fuzzy < 100


def test_draw_follows_the_memberships():
    rng = np.random.default_rng(4)
    v = rng.normal(size=(4, 2))
    x = np.repeat(rng.normal(size=(1, 2)), 40_000, axis=0)
    mu = np.exp(log_memberships(x[:1], v, 2.0))[0]
    counts = np.bincount(_draw_centres(x, v, 2.0, np.random.default_rng(9)), minlength=4)
    sd = np.sqrt(len(x) * mu * (1 - mu))
    assert np.all(np.abs(counts - len(x) * mu) < 5 * sd)


def test_seeded_and_transparent(blob):
    a = fuzzy_microaggregation(blob, k=4, seed=11)
    b = fuzzy_microaggregation(blob, k=4, seed=11)
    c = fuzzy_microaggregation(blob, k=4, seed=12)
    assert np.array_equal(a.masked, b.masked)
    assert not np.array_equal(a.masked, c.masked)
    assert a.params["n_clusters"] == 15 and a.params["k"] == 4
    assert "seed" not in a.params
    assert a.groups[0].shape == (60,)
    # every released record is one of the centres
    assert len(np.unique(a.masked, axis=0)) <= 15


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"k": 3, "m1": 1.0}, "m1 must be a finite number greater than 1"),
        ({"k": 3, "m2": 0.5}, "m2 must be a finite number greater than 1"),
        ({"k": 3, "m1": float("inf")}, "m1 must be a finite number greater than 1"),
        ({}, "exactly one of k"),
        ({"k": 3, "n_clusters": 4}, "exactly one of k"),
        ({"n_clusters": 0}, "n_clusters must be between 1 and the number of records (60)"),
        ({"k": 1}, "between 2 and the number of records"),
    ],
)
def test_parameter_errors(blob, kwargs, fragment):
    with pytest.raises(PolicyError) as info:
        fuzzy_microaggregation(blob, **kwargs)
    assert fragment in str(info.value)
