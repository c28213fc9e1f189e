"""The package's public API and the attack registry used by ``privcheck risk``."""

from __future__ import annotations

import numpy as np

import privcheck.risk as risk


def test_every_registered_attack_runs_and_names_itself():
    rng = np.random.default_rng(0)
    x = np.column_stack([rng.permutation(np.arange(24.0)), rng.normal(size=24)])
    xm = x + rng.normal(scale=0.3, size=x.shape)
    # univariate microaggregation with k = 3: sorted groups of three replaced by their mean
    micro = np.empty_like(x)
    for j in range(2):
        group = np.argsort(np.argsort(x[:, j])) // 3
        micro[:, j] = (np.bincount(group, weights=x[:, j]) / np.bincount(group))[group]
    params = {
        "rank-swap-transparency": {"p": 10},
        "prl": {"tolerance": 0.5},
        "learned-weighted-mean": {"time_limit": 10},
        "learned-owa": {"time_limit": 10},
        "learned-bilinear": {"time_limit": 10},
        "learned-choquet": {"time_limit": 10},
    }
    for name, fn in risk.ATTACKS.items():
        if name == "microaggregation-transparency":
            res = fn(x, micro, k=3)
            assert res.figures["true_in_candidates_rate"] == 1.0
        else:
            res = fn(x, xm, **params.get(name, {}))
        assert res.attack == name, name
        assert 0.0 <= res.certain_rate <= res.anonymity_set_rate + 1e-12 <= 1.0 + 1e-12, name
        assert len(res.record_risk) == 24


def test_public_names_exist():
    for name in risk.__all__:
        assert hasattr(risk, name), name
