"""Membership inference on a synthetic table: the cross-fitted threshold and AUC."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sklearn")


def test_best_threshold_and_auc_against_brute_force():
    """The cross-fitting's threshold maximises TPR − FPR over every cut (brute force), and its
    AUC is scikit-learn's."""
    from sklearn.metrics import roc_auc_score

    from privcheck.risk.synthetic.membership import best_threshold, cross_fitted, rank_auc

    rng = np.random.default_rng(8)
    for _ in range(20):
        member = rng.integers(0, 6, rng.integers(5, 40)).astype(float)
        control = rng.integers(0, 6, rng.integers(5, 40)).astype(float)
        t = best_threshold(member, control)
        cuts = np.unique(np.concatenate([member, control, [np.inf]]))
        gains = [(member >= c).mean() - (control >= c).mean() for c in cuts]
        best = max(max(gains), 0.0)
        got = (member >= t).mean() - (control >= t).mean()
        assert got == pytest.approx(best)
        truth = np.r_[np.ones(len(member)), np.zeros(len(control))]
        assert rank_auc(member, control) == pytest.approx(
            roc_auc_score(truth, np.r_[member, control])
        )
    res = cross_fitted(np.arange(100.0), np.arange(100.0) - 1000, 5, rng)  # separable
    assert res["advantage"] == 1.0 and res["auc"] == 1.0 and res["accuracy"] == 1.0
