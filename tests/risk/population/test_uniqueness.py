"""Uniqueness and El Emam / ARX risks against a table computed by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcheck.errors import DataError, PolicyError
from privcheck.risk.population.uniqueness import class_sizes_of, record_risks, uniqueness_risk

# five classes of sizes 1, 1, 2, 3, 5 (n = 12); population sizes 1, 4, 2, 10, 20 (Σ = 37)
F_SAMPLE = [1, 1, 2, 3, 5]
F_POP = [1, 4, 2, 10, 20]


def test_sample_only_by_hand():
    r = uniqueness_risk(F_SAMPLE, threshold=0.2)
    assert r.n_records == 12 and r.n_classes == 5
    assert r.sample_uniques == 2
    assert r.sample_uniqueness == pytest.approx(2 / 12)
    assert r.prosecutor_average_risk == pytest.approx(5 / 12)
    # not pyCANON's class average (1 + 1 + 1/2 + 1/3 + 1/5) / 5 = 0.6067
    assert r.prosecutor_average_risk != pytest.approx((1 + 1 + 1 / 2 + 1 / 3 + 1 / 5) / 5)
    assert r.prosecutor_highest_risk == 1.0
    # 1/f > 0.2 for f = 1, 1, 2, 3 → 7 of 12 records
    assert r.prosecutor_records_at_risk == pytest.approx(7 / 12)
    # no population: journalist = prosecutor, marketer = #classes / n
    assert r.journalist_average_risk == pytest.approx(5 / 12)
    assert r.marketer_average_risk == pytest.approx(5 / 12)
    assert r.population_uniqueness_of_sample_uniques is None
    assert r.prosecutor_record_risk_summary.mean == pytest.approx(5 / 12)
    assert r.prosecutor_record_risk_summary.share_certain == pytest.approx(2 / 12)


def test_with_population_by_hand():
    r = uniqueness_risk(F_SAMPLE, F_POP, threshold=0.2)
    # journalist: 1/F > 0.2 for F = 1, 4, 2 → f = 1 + 1 + 2 = 4 records of 12
    assert r.journalist_records_at_risk == pytest.approx(4 / 12)
    assert r.journalist_highest_risk == 1.0
    marketer = (1 / 1 + 1 / 4 + 2 / 2 + 3 / 10 + 5 / 20) / 12
    assert r.marketer_average_risk == pytest.approx(marketer)
    assert r.journalist_average_risk == pytest.approx(max(5 / 37, marketer))
    assert r.population_uniques == 1
    # sample uniques: classes 0 (F = 1) and 1 (F = 4) → P(PU | SU) = 1/2
    assert r.population_uniqueness_of_sample_uniques == pytest.approx(0.5)
    # prosecutor figures ignore the population
    assert r.prosecutor_average_risk == pytest.approx(5 / 12)


def test_record_level_from_keys():
    df = pd.DataFrame(
        {"age": [30, 30, 40, 40, 40, 50, None], "sex": ["f", "f", "m", "m", "f", "f", "f"]}
    )
    sizes, cls = class_sizes_of(df)
    assert sorted(sizes.tolist()) == [1, 1, 1, 2, 2]
    assert sizes.sum() == len(df)  # the record with a missing age is kept, in its own class
    risks = record_risks(sizes, cls)
    assert risks["prosecutor"].tolist() == [0.5, 0.5, 0.5, 0.5, 1.0, 1.0, 1.0]
    # record-weighted average = #classes / n, computed from the per-record risks
    assert risks["prosecutor"].mean() == pytest.approx(
        uniqueness_risk(sizes).prosecutor_average_risk
    )
    s1, c1 = class_sizes_of(np.array(["a", "b", "a"]))
    assert s1.tolist() == [2, 1] and c1.tolist() == [0, 1, 0]


def test_errors():
    with pytest.raises(DataError, match="population must contain"):
        uniqueness_risk([2, 3], [1, 5])
    with pytest.raises(DataError, match="same order"):
        uniqueness_risk([2, 3], [4])
    with pytest.raises(DataError, match="positive integers"):
        uniqueness_risk([0, 3])
    with pytest.raises(PolicyError, match="threshold"):
        uniqueness_risk([1, 3], threshold=0)
