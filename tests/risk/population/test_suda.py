"""SUDA2 against sdcMicro's documented examples (its test suite's expected scores and attribute
contributions) and against a brute force over every subset of quasi-identifiers."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from privcheck.classes import group
from privcheck.errors import PolicyError
from privcheck.risk.population.suda import default_max_size, score_weights, suda2


def run(frame: pd.DataFrame, max_size: int | None = None):
    """SUDA2 on a frame's class table; returns each row's score, each row's MSUs (bitmasks)."""
    codes = [pd.factorize(frame[c])[0] for c in frame.columns]
    cards = [int(c.max()) + 1 for c in codes]
    inverse, n = group(codes, cards)
    keys = np.zeros((n, len(codes)), dtype=np.int64)
    for j, c in enumerate(codes):
        keys[inverse, j] = c
    result = suda2(keys, np.bincount(inverse, minlength=n), cards, max_size)
    row_of_class = {int(c): r for r, c in enumerate(inverse)}
    msus: dict[int, set[int]] = {}
    for mask, c in zip(result.msu_mask, result.msu_class, strict=True):
        msus.setdefault(row_of_class[int(c)], set()).add(int(mask))
    return result.class_scores()[inverse], msus, result


# --------------------------------------------------------------------------- sdcMicro's examples


def test_sdcmicro_book_example():
    """sdcMicro tests/testthat/test_suda2.R, "suda2 book example": scores of rows 5–8."""
    tab = pd.DataFrame(
        {
            "age": ["20s"] * 7 + ["60s"],
            "gender": ["male"] * 4 + ["female"] * 3 + ["male"],
            "income": ["50k+", "50k+"] + ["50k-"] * 6,
            "education": ["highschool"] * 4
            + ["university", "highschool", "middleschool", "university"],
        }
    )
    scores, _, _ = run(tab)
    assert scores[4:].tolist() == [4, 2, 6, 8]


def test_sdcmicro_sdc_guideline_example():
    """sdcMicro's "suda2 sdc guideline" example: every row's score."""
    frame = pd.DataFrame(
        {
            "Residence": ["Urban"] * 4 + ["Rural"] + ["Urban"] * 5,
            "Gender": [
                "Female",
                "Female",
                "Female",
                "Male",
                "Female",
                "Male",
                "Female",
                "Male",
                "Female",
                "Female",
            ],
            "Education": [
                "Secondary incomplete",
                "Secondary incomplete",
                "Primary incomplete",
                "Secondary complete",
                "Secondary complete",
                "Secondary complete",
                "Primary complete",
                "Post-secondary",
                "Secondary incomplete",
                "Secondary incomplete",
            ],
            "Labor": [
                "Employed",
                "Employed",
                "Non-LF",
                "Employed",
                "Unemployed",
                "Employed",
                "Non-LF",
                "Unemployed",
                "Non-LF",
                "Non-LF",
            ],
        }
    )
    scores, msus, _ = run(frame)
    assert scores.tolist() == [0, 0, 6, 0, 12, 0, 6, 10, 0, 0]
    # the worked reasoning: row 5 (Rural) is unique on Residence alone (weight 3! = 6) and on
    # three pairs not involving it (weight 2! = 2 each): Gender+Education, Gender+Labor,
    # Education+Labor
    assert msus[4] == {0b0001, 0b0110, 0b1010, 0b1100}


@pytest.mark.parametrize("order", ["abc", "acb", "cab", "cba"])
def test_sdcmicro_attribute_contributions(order):
    """sdcMicro's "simple example contribution" tests: a = 50 %, b = c = 37.5 %, in any order."""
    frame = pd.DataFrame({"a": [2, 1, 1], "b": [0, 3, 0], "c": [0, 6, 0]})[list(order)]
    _, _, result = run(frame)
    want = {"a": 50.0, "b": 37.5, "c": 37.5}
    assert result.attribute_contributions().tolist() == [want[c] for c in order]


def test_score_weights_by_hand():
    """w(k) = Π_{i=k}^{U−1} (M − i), U = min(maxK, M − 1): for M = 4 and all sizes (M − k)!;
    for M = 5, maxK = 3: (4·3, 3, 1)."""
    assert score_weights(4, 4).tolist() == [6, 2, 1, 1]
    assert score_weights(5, 3).tolist() == [12, 3, 1]
    assert score_weights(8, 8).tolist() == [math.factorial(8 - k) for k in range(1, 9)]
    assert score_weights(1, 1).tolist() == [1]


def test_default_max_size():
    assert default_max_size(8) == 8 and default_max_size(12) == 12
    assert default_max_size(13) == 6  # 13 + 78 + 286 + 715 + 1287 + 1716 = 4095 subsets
    with pytest.raises(PolicyError, match="max_size"):
        suda2(np.zeros((1, 2), dtype=np.int64), np.ones(1), [1, 1], max_size=0)


# --------------------------------------------------------------------------- brute force


def brute_msus(frame: pd.DataFrame, max_size: int) -> dict[int, set[int]]:
    """Row → its MSUs (bitmasks of columns), from counting value tuples of every subset."""
    rows = [tuple(r) for r in frame.itertuples(index=False)]
    m = frame.shape[1]
    unique: dict[int, set[int]] = {}
    for k in range(1, m + 1):
        for subset in itertools.combinations(range(m), k):
            mask = sum(1 << j for j in subset)
            counts = Counter(tuple(r[j] for j in subset) for r in rows)
            unique[mask] = {
                i for i, r in enumerate(rows) if counts[tuple(r[j] for j in subset)] == 1
            }
    out: dict[int, set[int]] = {}
    for mask, rows_unique in unique.items():
        size = bin(mask).count("1")
        if size > max_size:
            continue
        for i in rows_unique:
            subsets = [mask ^ (1 << j) for j in range(m) if mask >> j & 1]
            if all(s == 0 or i not in unique[s] for s in subsets):
                out.setdefault(i, set()).add(mask)
    return out


@pytest.mark.parametrize("seed", range(40))
def test_random_tables_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 6))
    n = int(rng.integers(1, 70))
    frame = pd.DataFrame({f"q{j}": rng.integers(0, rng.integers(1, 6), n) for j in range(m)})
    max_size = int(rng.integers(1, m + 1)) if seed % 2 else m
    scores, msus, result = run(frame, max_size)
    want = brute_msus(frame, max_size)
    assert msus == want
    weights = score_weights(m, max_size)
    for i in range(n):
        expect = sum(weights[bin(s).count("1") - 1] for s in want.get(i, ()))
        assert scores[i] == expect
    assert result.n_uniques == sum(
        1 for r, c in Counter(map(tuple, frame.to_numpy().tolist())).items() if c == 1
    )
