"""Helpers of the synthetic-table tests: Adult split into the people a synthetic table is made
from, a control set and the rest of the population, and two synthetic tables: one that leaks its
members, one that cannot."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

ADULT = Path(__file__).resolve().parents[3] / "privcheck" / "data" / "adult" / "adult.csv"
#: members, controls and synthetic rows of the Adult scenario
N = 2000
QIS = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
]


def perturb(frame: pd.DataFrame, share: float, rng: np.random.Generator) -> pd.DataFrame:
    """``frame`` with ``share`` of each column's cells replaced by values of other rows (a
    generator that copies its training rows and shuffles a few cells)."""
    out = frame.copy()
    for c in out.columns:
        hit = rng.random(len(out)) < share
        out.loc[hit, c] = rng.permutation(out[c].to_numpy())[hit]
    return out


def adult_split() -> dict[str, pd.DataFrame]:
    """``members`` (the generator's training rows), ``control`` (never seen), ``leak`` (the
    members with 5 % of cells shuffled: it leaks every person) and ``independent`` (rows of the
    rest of Adult: it leaks nobody); age as integers."""
    adult = pd.read_csv(ADULT, sep=";")
    rng = np.random.default_rng(2024)
    order = rng.permutation(len(adult))
    members = adult.iloc[order[:N]].reset_index(drop=True)
    control = adult.iloc[order[N : 2 * N]].reset_index(drop=True)
    population = adult.iloc[order[2 * N :]].reset_index(drop=True)
    return {
        "members": members,
        "control": control,
        "leak": perturb(members, 0.05, rng),
        "independent": population.sample(N, random_state=7).reset_index(drop=True),
    }
