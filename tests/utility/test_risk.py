"""The privacy side of ``compare``: the verdict equals ``privcheck check`` of the same file, and
the prosecutor risk equals a brute force over the released rows — every pair of rows compared,
``*`` a value (``category``) or matching anything (``wildcard``)."""

from __future__ import annotations

from itertools import product
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import privcheck
from privcheck.policy import parse_policy
from privcheck.risk.population.prosecutor import DEFAULT_THRESHOLD
from privcheck.utility.risk import release_verdict, risk_threshold

QIS = ["zip", "age", "sex"]


def brute_risk(frame: pd.DataFrame, threshold: float, wildcard: bool, star_rows: bool) -> dict:
    """Per released row, the rows it cannot be told from (equal on every QI, or — wildcard —
    either one '*'); all-'*' rows are suppressed records under ``star_rows``."""
    rows = [tuple(r) for r in frame[QIS].astype(str).to_numpy()]
    if star_rows and not all(all(v == "*" for v in r) for r in rows):
        rows = [r for r in rows if not all(v == "*" for v in r)]
    if not rows:
        return {"highest": 0.0, "average": 0.0, "records_above": 0.0}

    def same(a, b) -> bool:
        return all(x == y or (wildcard and "*" in (x, y)) for x, y in zip(a, b, strict=True))

    risk = [1.0 / sum(same(a, b) for b in rows) for a in rows]
    return {
        "highest": max(risk),
        "average": sum(risk) / len(risk),
        "records_above": sum(r > threshold for r in risk) / len(risk),
    }


def random_release(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 40))
    frame = pd.DataFrame(
        {
            "zip": rng.choice(["130", "131", "*"], n, p=[0.45, 0.45, 0.1]),
            "age": rng.choice(["20-29", "30-39", "*"], n, p=[0.45, 0.45, 0.1]),
            "sex": rng.choice(["F", "M", "*"], n, p=[0.45, 0.45, 0.1]),
            "disease": rng.choice(["flu", "cold", "ache"], n),
        }
    )
    starred = rng.random(n) < 0.1
    frame.loc[starred, QIS] = "*"
    return frame


def policy(k: int | None, cells: str, records: str, limit: float = 0.2, extra=()) -> object:
    models = [{"model": "k-anonymity", "k": k}] if k is not None else []
    models += list(extra)
    return parse_policy(
        {
            "attributes": {
                **{q: {"role": "quasi_identifier"} for q in QIS},
                "disease": {"role": "sensitive"},
            },
            "models": models or [{"model": "l-diversity", "l": 2, "attribute": "disease"}],
            "suppressed_cells": cells,
            "suppressed_records": records,
            "suppression_limit": limit,
        }
    )


@pytest.mark.parametrize(
    ("seed", "cells", "records"),
    list(product(range(6), ["category", "wildcard"], ["remove", "star"])),
)
def test_risk_and_verdict_equal_brute_force_and_check(seed, cells, records, tmp_path) -> None:
    frame = random_release(seed)
    k = 2 + seed % 3
    pol = policy(
        k, cells, records, extra=[{"model": "l-diversity", "l": 2, "attribute": "disease"}]
    )
    got = release_verdict(frame, pol)
    want = brute_risk(frame, 1 / k, cells == "wildcard", records == "star")
    assert got.risk() == pytest.approx(want)
    path = tmp_path / "release.csv"
    frame.to_csv(path, index=False)
    assert got.passed is privcheck.check(path, pol).passed


def test_threshold_is_one_over_the_largest_k_else_ARX_default() -> None:
    two = [{"model": "k-anonymity", "k": 7}]
    assert risk_threshold(policy(3, "category", "remove", extra=two)) == pytest.approx(1 / 7)
    assert risk_threshold(policy(None, "category", "remove")) == DEFAULT_THRESHOLD == 0.2
    frame = random_release(1)
    got = release_verdict(frame, policy(None, "category", "remove"))
    assert got.records_above == pytest.approx(brute_risk(frame, 0.2, False, False)["records_above"])


def test_mechanism_models_are_left_out_of_the_verdict(tmp_path: Path) -> None:
    """Differential privacy cannot be checked on a table (``check`` refuses it); the verdict is
    the other models'."""
    frame = random_release(2)
    dp = {"model": "differential-privacy", "epsilon": 1.0, "delta": 1e-6}
    with_dp = policy(2, "category", "remove", extra=[dp])
    without = policy(2, "category", "remove")
    assert release_verdict(frame, with_dp) == release_verdict(frame, without)


@pytest.mark.parametrize(
    ("seed", "records", "dropped"),
    list(product(range(4), ["remove", "star"], [0, 1, 3, 9])),
)
def test_records_left_out_count_against_the_suppression_limit(seed, records, dropped) -> None:
    """compare knows the original's size: a release that leaves records out has suppressed
    them, and with its '*' rows they must stay within floor(limit · N) — counted by hand."""
    frame = random_release(seed)
    n_original = len(frame) + dropped
    pol = policy(2, "category", records, limit=0.1)
    got = release_verdict(frame, pol, n_original=n_original)
    qi_star = (frame[QIS] == "*").all(axis=1)
    starred = int(qi_star.sum()) if records == "star" and not qi_star.all() else 0
    within = starred + dropped <= int(np.floor(0.1 * n_original + 1e-9))
    assert got.passed is (release_verdict(frame, pol).passed and within)
