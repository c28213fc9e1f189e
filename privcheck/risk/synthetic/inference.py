"""Inference: does the synthetic table let an attacker infer a sensitive value of the people it
was made from? (Article 29 Working Party; measured as Giomi et al., PETS 2023, do in Anonymeter.)

The attacker knows a target's other attributes (the known attributes without the secret one),
finds the nearest synthetic record on them (mixed distance, ties broken uniformly at random) and
guesses its value of the secret attribute. A guess succeeds when it equals the target's value —
exactly, or for a numeric attribute with ``regression=True`` when |guess − value| ≤ tolerance ×
|guess| (Anonymeter's rule). Run on ``n_attacks`` random members and as many random controls:
a synthetic table that teaches population patterns lets the attacker guess controls as well as
members (no risk); one that copies its members lets it guess members better. The baseline
guesses the value of a random synthetic record.

Each sensitive attribute of the policy is attacked on its own; ``attributes`` holds one entry
per secret, and the top-level figures are those of the riskiest one.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pandas as pd

from privcheck.errors import PolicyError
from privcheck.limits import ATTACKS
from privcheck.risk.synthetic.control import (
    MixedEncoding,
    _as_numbers,
    known_columns,
    nearest,
    require_records,
    risk_figures,
)


def _secret_codes(frames: list[pd.DataFrame], secret: str, regression: bool) -> list[np.ndarray]:
    """The secret column of each frame as comparable values: numbers for a numeric column
    (exact), else codes over the union (a missing value its own code)."""
    nums = [_as_numbers(f[secret]) for f in frames]
    if all(n is not None for n in nums):
        return nums  # type: ignore[return-value]
    if regression:
        raise PolicyError(
            f"regression=true needs a numeric secret; {secret!r} is not numeric in every file"
        )
    text = pd.concat([f[secret].astype(object) for f in frames], ignore_index=True)
    codes, _ = pd.factorize(text.where(text.notna(), None), use_na_sentinel=False)
    bounds = np.cumsum([0, *(len(f) for f in frames)])
    return [codes[a:b].astype(np.float64) for a, b in itertools.pairwise(bounds)]


def _correct(guess: np.ndarray, truth: np.ndarray, regression: bool, tol: float) -> np.ndarray:
    if regression:
        with np.errstate(divide="ignore", invalid="ignore"):
            close = np.abs(guess - truth) / (guess + 1e-12) <= tol
        return close | (np.isnan(guess) & np.isnan(truth))
    return (guess == truth) | (np.isnan(guess) & np.isnan(truth))


def inference(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    control: pd.DataFrame,
    secrets: list[str],
    *,
    attributes: list[str] | None = None,
    n_attacks: int = 500,
    regression: bool = False,
    tolerance: float = 0.05,
    confidence: float = 0.95,
    random_state: int | None = None,
) -> dict[str, Any]:
    """Inference risk of each secret column, the attacker knowing ``attributes`` (default: every
    other column). Returns ``attributes`` (secret → figures) and the riskiest one's figures."""
    require_records(original=original, synthetic=synthetic, control=control)
    if not secrets:
        raise PolicyError(
            "the inference attack needs a sensitive attribute: the policy names none; give "
            "--param secret=COLUMN"
        )
    if n_attacks < 1:
        raise PolicyError("n_attacks must be at least 1")
    ATTACKS.check(n_attacks, "n_attacks asks for", "give a smaller n_attacks")
    secrets = known_columns(list(secrets), original, "sensitive attribute")
    known = known_columns(list(attributes or original.columns), original)
    rng = np.random.default_rng(random_state)
    n_a = min(n_attacks, len(original))
    n_c = min(n_attacks, len(control))
    n_b = min(len(synthetic), n_a)
    targets = original.iloc[np.sort(rng.choice(len(original), n_a, replace=False))]
    controls = control.iloc[np.sort(rng.choice(len(control), n_c, replace=False))]
    per: dict[str, dict[str, Any]] = {}
    for secret in secrets:
        aux = [c for c in known if c != secret]
        if not aux:
            raise PolicyError(
                f"the inference attack on {secret!r} needs attributes the attacker knows besides "
                "it; give --intruder-attributes"
            )
        enc = MixedEncoding.of([synthetic[aux], targets[aux], controls[aux]], aux)
        truth = _secret_codes([synthetic, targets, controls], secret, regression)
        cand = enc.take(0, np.arange(len(synthetic)))
        hits = []
        for frame, n in ((1, n_a), (2, n_c)):
            idx, _ = nearest(enc, enc.take(frame, np.arange(n)), cand, k=1, rng=rng)
            hits.append(_correct(truth[0][idx[:, 0]], truth[frame], regression, tolerance))
        guess = truth[0][rng.choice(len(synthetic), n_b, replace=False)]
        who = rng.choice(n_a, n_b, replace=False)
        base = _correct(guess, truth[1][who], regression, tolerance)
        fig = risk_figures(
            int(hits[0].sum()), n_a, int(hits[1].sum()), n_c, int(base.sum()), n_b, confidence
        )
        fig["aux_cols"] = aux
        per[secret] = fig
    worst = max(per, key=lambda s: per[s]["risk"])
    out = {k: v for k, v in per[worst].items() if k != "aux_cols"}
    out.update(
        {
            "attribute": worst,
            "attributes": per,
            "regression": bool(regression),
            "n_members": len(original),
            "n_controls": len(control),
            "n_synthetic": len(synthetic),
        }
    )
    return out
