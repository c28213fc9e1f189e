"""Inference: per-attribute entries, the guess rule and the riskiest attribute on top."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcheck.errors import PolicyError
from privcheck.risk.synthetic.inference import _correct, inference


def test_guess_rules():
    guess = np.array([1.0, 2.0, np.nan, 100.0])
    truth = np.array([1.0, 3.0, np.nan, 104.0])
    assert _correct(guess, truth, False, 0.05).tolist() == [True, False, True, False]
    assert _correct(guess, truth, True, 0.05).tolist() == [True, False, True, True]


def test_copied_secrets_are_inferred_per_attribute():
    """A synthetic table copying unique members: each member's secrets are guessed exactly;
    controls (other people, random secrets) only at the population's rate."""
    rng = np.random.default_rng(0)
    n = 300
    members = pd.DataFrame(
        {
            "age": rng.permutation(n),
            "zip": rng.integers(0, 50, n),
            "disease": rng.choice(list("abcd"), n),
            "income": rng.choice(["lo", "hi"], n),
        }
    )
    control = members.assign(
        disease=rng.choice(list("abcd"), n),
        income=rng.choice(["lo", "hi"], n),
        age=rng.permutation(n) + 0.5,
    )
    res = inference(
        members,
        members,
        control,
        ["disease", "income"],
        attributes=["age", "zip"],
        n_attacks=200,
        random_state=1,
    )
    assert set(res["attributes"]) == {"disease", "income"}
    for entry in res["attributes"].values():
        assert entry["attack_rate"] > 0.95 and entry["risk_ci"][0] > 0.3
        assert entry["n_attacks"] == 200
    assert res["attribute"] in ("disease", "income")
    assert res["risk"] == max(e["risk"] for e in res["attributes"].values())
    with pytest.raises(PolicyError, match="sensitive attribute"):
        inference(members, members, control, [])
