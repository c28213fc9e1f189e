"""Top and bottom coding of numeric quasi-identifiers, applied before encoding."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcheck.anonymizers.api import anonymize
from privcheck.checker import check
from privcheck.encoding import encode
from privcheck.errors import DataError, PolicyError
from privcheck.policy import load_policy


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "age": rng.integers(15, 100, 300),
            "sex": rng.choice(["F", "M"], 300),
            "disease": rng.choice(["a", "b", "c"], 300),
        }
    )


def _policy(age: dict, k: int = 3) -> dict:
    return {
        "attributes": {
            "age": {"role": "quasi_identifier", **age},
            "sex": {"role": "quasi_identifier"},
            "disease": {"role": "sensitive"},
        },
        "models": [{"model": "k-anonymity", "k": k}],
    }


def test_values_beyond_the_thresholds_are_replaced() -> None:
    frame = _frame()
    policy = _policy(
        {"top_coding": {"threshold": 80}, "bottom_coding": {"threshold": 20, "value": 19}}
    )
    col = encode(frame, policy).quasi_identifiers[0]
    ground = np.asarray(col.levels.ground, dtype=float)[col.codes]
    age = frame["age"].to_numpy()
    expected = np.where(age > 80, 80, np.where(age < 20, 19, age))
    np.testing.assert_array_equal(ground, expected)
    assert ground.max() == 80 and ground.min() == 19


def test_searches_combine_with_it_and_release_holds_coded_values() -> None:
    frame = _frame()
    policy = _policy(
        {
            "hierarchy": {"type": "intervals", "widths": [5, 10, 20]},
            "top_coding": {"threshold": 75, "value": 75},
        }
    )
    release, report = anonymize(frame, policy, "mingen", keep_order=True)
    assert report.check.passed
    _, plain_report = anonymize(
        frame, _policy({"hierarchy": policy["attributes"]["age"]["hierarchy"]}), "mingen"
    )
    # coding the sparse old ages lets the search keep finer age bins (or as fine)
    assert report.node["age"] <= plain_report.node["age"]
    release, report = anonymize(
        frame,
        _policy({"top_coding": {"threshold": 75, "value": "75+"}}),
        "local-suppression",
        keep_order=True,
    )
    ages = release["age"]
    older = frame["age"] > 75
    assert set(ages[older]) <= {"75+", "*"}
    young = ~older & (ages != "*")
    assert (ages[young].astype(int) == frame["age"][young]).all()
    diff = (ages.astype(str) != frame["age"].astype(str)).sum() + (release["sex"] == "*").sum()
    assert report.changed_cells == diff
    assert check(release, _policy({})).passed


def test_check_reads_values_as_they_stand() -> None:
    frame = _frame()
    coded = check(frame, _policy({"top_coding": {"threshold": 30}}))
    raw = check(frame, _policy({}))
    assert coded.models[0].value == raw.models[0].value


@pytest.mark.parametrize(
    ("attrs", "error", "match"),
    [
        (
            {
                "hierarchy": {"type": "intervals", "widths": [10]},
                "top_coding": {"threshold": 80, "value": "80+"},
            },
            PolicyError,
            "numeric value",
        ),
        (
            {"top_coding": {"threshold": 10}, "bottom_coding": {"threshold": 20}},
            PolicyError,
            "bottom <= top",
        ),
    ],
)
def test_bad_policies_are_refused_in_one_line(attrs, error, match) -> None:
    with pytest.raises(error, match=match):
        encode(_frame(), load_policy(_policy(attrs)))


def test_non_numeric_column_and_non_qi_are_refused() -> None:
    frame = _frame().assign(age=lambda f: f["age"].astype(str).replace("50", "fifty"))
    with pytest.raises(DataError, match="non-numeric value 'fifty'"):
        encode(frame, _policy({"top_coding": {"threshold": 80}}))
    policy = _policy({})
    policy["attributes"]["disease"]["top_coding"] = {"threshold": 1}
    with pytest.raises(PolicyError, match="not a quasi_identifier"):
        load_policy(policy)
