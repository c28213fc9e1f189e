"""The engine boundary itself: which inputs take which path, the group limit, the missing-value
count by records, the value order that makes reports independent of an engine's output order."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcheck.classes import count
from privcheck.encoding import encode
from privcheck.engines import (
    DEFAULT_MAX_GROUPS,
    WEIGHT,
    aggregate,
    check_missing,
    check_policy,
    engine_of,
    max_groups_limit,
    sort_groups,
)
from privcheck.errors import DataError, PolicyError
from privcheck.policy import load_policy

POLICY = load_policy(
    {
        "attributes": {
            "q": {"role": "quasi_identifier"},
            "s": {"role": "sensitive"},
            "id": {"role": "identifier"},
        },
        "models": [{"model": "k-anonymity", "k": 2}],
    }
)


def test_pandas_and_paths_take_the_numpy_path(tmp_path):
    frame = pd.DataFrame({"q": ["a"], "s": ["x"], "id": ["1"]})
    assert aggregate(frame, POLICY) is None
    assert aggregate(str(tmp_path / "x.csv"), POLICY) is None
    assert aggregate(tmp_path / "x.csv", POLICY) is None


def test_aggregate_brute_force_against_pandas_groupby():
    pytest.importorskip("narwhals")
    pl = pytest.importorskip("polars")
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "q": rng.choice(np.array(["a", "b", None], dtype=object), 5000),
            "s": rng.choice(np.array(["x", "y", "z"], dtype=object), 5000),
            "id": np.arange(5000).astype(str),
        }
    )
    policy = load_policy({**POLICY.model_dump(), "missing": "own_class"})
    agg = aggregate(pl.from_pandas(frame), policy)
    oracle = frame.fillna({"q": "<NA>"}).groupby(["q", "s"]).size().to_dict()
    assert list(agg.columns) == ["q", "s", WEIGHT]
    got = agg.fillna({"q": "<NA>"}).set_index(["q", "s"])[WEIGHT].to_dict()
    assert got == oracle and len(got) == 9 and sum(got.values()) == 5000


def test_group_limit_from_argument_environment_default(monkeypatch):
    monkeypatch.delenv("PRIVCHECK_MAX_GROUPS", raising=False)
    assert max_groups_limit() == DEFAULT_MAX_GROUPS == 5_000_000
    assert max_groups_limit(7) == 7
    monkeypatch.setenv("PRIVCHECK_MAX_GROUPS", "12")
    assert max_groups_limit() == 12 and max_groups_limit(0) == 0
    monkeypatch.setenv("PRIVCHECK_MAX_GROUPS", "lots")
    with pytest.raises(PolicyError, match="PRIVCHECK_MAX_GROUPS"):
        max_groups_limit()
    with pytest.raises(PolicyError, match="max_groups must be >= 0"):
        max_groups_limit(-1)


def test_missing_counted_in_records():
    agg = pd.DataFrame(
        {"q": ["a", None, "  ", "b"], "s": ["x", "x", "y", "y"], WEIGHT: [5, 3, 4, 1]}
    )
    with pytest.raises(DataError, match=r"column 'q' has 7 missing value\(s\); fill them"):
        check_missing(agg, POLICY)
    check_missing(agg, load_policy({**POLICY.model_dump(), "missing": "own_class"}))


def test_sort_groups_makes_class_order_independent_of_row_order():
    rng = np.random.default_rng(1)
    agg = pd.DataFrame(
        {
            "q": rng.choice(np.array(["b", "a", "c", None], dtype=object), 40),
            "s": rng.choice(np.array(["y", "x"], dtype=object), 40),
        }
    ).drop_duplicates()
    agg[WEIGHT] = rng.integers(1, 9, len(agg))
    policy = load_policy({**POLICY.model_dump(), "missing": "own_class"})
    a = sort_groups(agg, policy)
    b = sort_groups(agg.iloc[::-1], policy)
    pd.testing.assert_frame_equal(a, b)
    assert a["q"].iloc[0] == "a" and pd.isna(a["q"].iloc[-1])  # value order, nulls last
    ta = count(encode(a, check_policy(policy), weight_column=WEIGHT))
    tb = count(encode(b, check_policy(policy), weight_column=WEIGHT))
    assert np.array_equal(ta.keys, tb.keys) and np.array_equal(ta.sizes, tb.sizes)


def test_check_policy_keeps_only_group_by_columns():
    reduced = check_policy(POLICY)
    assert list(reduced.attributes) == ["q", "s"]
    assert reduced.models == POLICY.models and "id" in POLICY.attributes


def test_engine_names():
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    frame = pd.DataFrame({"q": ["a"]})
    assert engine_of(frame) == "pandas"
    assert engine_of(pl.from_pandas(frame).lazy()) == "polars"
    assert engine_of(duckdb.from_df(frame)) == "duckdb"
