"""Top and bottom coding of numeric quasi-identifiers, applied before encoding."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
import yaml

from privcheck.encoding import encode
from privcheck.errors import DataError, PolicyError
from privcheck.pipeline.anonymize import anonymize
from privcheck.pipeline.check import check
from privcheck.policy import Attribute, load_policy
from privcheck.topcoding import apply_coding
from tests.conftest import ADULT, ROOT, run_cli

ENV = {"PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


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


# --- the coded value is written as the column spells its values --------------------------------


def _attr(top: dict | None = None, bottom: dict | None = None, **extra) -> Attribute:
    spec: dict = {"role": "quasi_identifier", **extra}
    if top is not None:
        spec["top_coding"] = top
    if bottom is not None:
        spec["bottom_coding"] = bottom
    return Attribute.model_validate(spec)


def _expected(values: list, top: float, top_value, bottom: float, bottom_value) -> list:
    """The oracle: one value at a time, in plain Python."""
    out = []
    for v in values:
        if v is None or v != v:  # (missing: None or NaN)
            out.append(None)
        elif float(v) > top:
            out.append(top_value)
        elif float(v) < bottom:
            out.append(bottom_value)
        else:
            out.append(v)
    return out


AGES = [15, 39, 80, 81, 99, 50, 12]


@pytest.mark.parametrize(
    ("column", "value", "top_value", "bottom_value"),
    [
        # a CSV/TSV column (pandas' string dtype): the number as the data spells it
        (pd.Series([str(a) for a in AGES], dtype="str"), None, "80", "20"),
        (pd.Series([str(a) for a in AGES], dtype="str"), 80.0, "80", "20"),
        (pd.Series([str(a) for a in AGES], dtype="str"), 85.5, "85.5", "20"),
        (pd.Series([str(a) for a in AGES], dtype="str"), "80+", "80+", "20"),
        # the data's own spelling of the coded number wins over the canonical one
        (pd.Series(["15.0", "39.0", "80.0", "81.0", "99.0", "50.0", "12.0"]), 80, "80.0", "20"),
        # integers stay integers; floats floats
        (pd.Series(AGES, dtype="int64"), 80.0, 80, 20),
        (pd.Series(AGES, dtype="Int64"), 80.0, 80, 20),
        (pd.Series(AGES, dtype="int64[pyarrow]"), 80.0, 80, 20),
        (pd.Series(AGES, dtype="float64"), 80.0, 80.0, 20.0),
        # a label or a fraction in an integer column: objects, the other values untouched
        (pd.Series(AGES, dtype="int64"), "80+", "80+", 20),
        (pd.Series(AGES, dtype="int64"), 80.5, 80.5, 20),
    ],
)
def test_coded_value_is_spelled_like_the_column(column, value, top_value, bottom_value) -> None:
    top = {"threshold": 80} if value is None else {"threshold": 80, "value": value}
    coded = apply_coding(column, "age", _attr(top, {"threshold": 20}))
    expected = _expected(column.tolist(), 80, top_value, 20, bottom_value)
    got = coded.tolist()
    assert got == expected
    assert [type(v) for v in got] == [type(v) for v in expected]
    untouched = [i for i, v in enumerate(column.tolist()) if 20 <= float(v) <= 80]
    assert [type(got[i]) for i in untouched] == [type(column.tolist()[i]) for i in untouched]


@pytest.mark.parametrize("categories", [AGES, [str(a) for a in AGES]])
@pytest.mark.parametrize("value", [None, 80.5, "80+"])
def test_categorical_is_coded_through_its_categories(categories, value) -> None:
    column = pd.Series(
        pd.Categorical(
            [*categories, None, categories[0]], categories=[*categories, type(categories[0])(1000)]
        )
    )
    top = {"threshold": 80} if value is None else {"threshold": 80, "value": value}
    coded = apply_coding(column, "age", _attr(top))
    assert isinstance(coded.dtype, pd.CategoricalDtype)
    spelled = {None: 80, 80.5: 80.5, "80+": "80+"}[value]
    if isinstance(categories[0], str) and not isinstance(spelled, str):
        spelled = {80: "80", 80.5: "80.5"}[spelled]
    expected = _expected(column.tolist(), 80, spelled, -1, None)
    assert [None if pd.isna(v) else v for v in coded.tolist()] == expected
    # the values above 80 now share one category; the unused 1000 is gone
    assert sorted(map(str, coded.cat.categories)) == sorted({str(v) for v in expected if v})


@pytest.mark.parametrize("algorithm", ["mingen", "local-suppression"])
def test_cli_codes_adult_csv_and_the_release_rechecks(tmp_path, algorithm) -> None:
    """The reported crash (a TypeError from pandas' string dtype): a CSV column, read as
    strings, top-coded under a table hierarchy. MinGen generalizes age; local suppression keeps
    it, so the coded value is released as the data spells it."""
    policy = tmp_path / "p.yaml"
    policy.write_text(
        yaml.safe_dump(
            {
                "attributes": {
                    "age": {
                        "role": "quasi_identifier",
                        "hierarchy": {"type": "table", "path": str(ADULT / "hierarchies/age.csv")},
                        "top_coding": {"threshold": 80, "value": 80},
                    },
                    "sex": {
                        "role": "quasi_identifier",
                        "hierarchy": {"type": "table", "path": str(ADULT / "hierarchies/sex.csv")},
                    },
                    "salary-class": {"role": "sensitive"},
                },
                "models": [{"model": "k-anonymity", "k": 5}],
            }
        )
    )
    out = tmp_path / "out.csv"
    made = run_cli(
        "anonymize", ADULT / "adult.csv", "-p", policy, "-a", algorithm, "-o", out, env=ENV
    )
    assert made.returncode == 0, made.stderr
    ages = pd.read_csv(out, dtype=str)["age"]
    if algorithm == "local-suppression":
        numbers = ages[ages.str.fullmatch(r"\d+")].astype(int)
        assert numbers.max() == 80 and (numbers == 80).any()  # the coded value, released as such
    assert not ages.str.contains(".", regex=False).any()  # never '80.0'
    assert run_cli("check", out, "-p", policy, env=ENV).returncode == 0
