"""Anonymeter 1.1.0 run on the same inputs as privcheck, for the agreement tests and the
benchmark. It pins numpy < 1.27 and is installed without its dependencies (README); on
today's numpy and pandas it runs as it is — no shim is needed."""

from __future__ import annotations

import logging
import warnings

import numpy as np
import pandas as pd


def anonymeter_risks(
    members: pd.DataFrame,
    synthetic: pd.DataFrame,
    control: pd.DataFrame,
    *,
    columns: list[str],
    halves: list[list[str]],
    secret: str,
    n_attacks: int,
    seed: int,
) -> dict[str, dict]:
    """Anonymeter's singling-out, linkability and inference risks (risk, interval, rates)."""
    from anonymeter.evaluators import (
        InferenceEvaluator,
        LinkabilityEvaluator,
        SinglingOutEvaluator,
    )

    logging.getLogger("anonymeter").setLevel(logging.ERROR)
    np.random.seed(seed)  # its target samples draw from numpy's global generator
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        so = SinglingOutEvaluator(
            ori=members[columns],
            syn=synthetic[columns],
            control=control[columns],
            n_attacks=n_attacks,
            seed=seed,
        ).evaluate()
        li = LinkabilityEvaluator(
            ori=members,
            syn=synthetic,
            control=control,
            n_attacks=n_attacks,
            aux_cols=(halves[0], halves[1]),
        ).evaluate(n_jobs=1)
        aux = [c for c in columns if c != secret]
        inf = InferenceEvaluator(
            ori=members,
            syn=synthetic,
            control=control,
            aux_cols=aux,
            secret=secret,
            n_attacks=n_attacks,
        ).evaluate(n_jobs=1)
        for name, ev in (("singling-out", so), ("linkability", li), ("inference", inf)):
            res = ev.results()
            risk = res.risk()
            out[name] = {
                "risk": float(risk.value),
                "risk_ci": [float(risk.ci[0]), float(risk.ci[1])],
                "attack_rate": float(res.attack_rate.value),
                "control_rate": float(res.control_rate.value),
            }
    return out
