"""Typed input (pandas categoricals, Arrow dictionary columns, Parquet read as dictionaries)
encodes exactly as the same values given as plain strings: the string path is the oracle.

The typed path reuses the column's own codes instead of factorizing the values; these tests pin
that the shortcut is invisible — same report (values, classes, violators, details), same errors —
including categories no row uses, missing values and values absent from the hierarchy.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import privcheck
from privcheck.encoding import encode, sensitive_read
from privcheck.errors import DataError
from privcheck.policy import load_policy, parse_policy
from tests.conftest import ADULT


def _report(data, policy) -> dict:
    report = privcheck.check(data, policy, details=True)
    return report.model_dump(mode="json", exclude={"elapsed_seconds", "source"})


def _error(data, policy) -> str:
    with pytest.raises(DataError) as info:
        privcheck.check(data, policy)
    return str(info.value)


def _arrow_dictionary(frame: pd.DataFrame) -> pd.DataFrame:
    """Every column as ``pd.ArrowDtype(dictionary<string>)``, in two chunks with different
    dictionaries (what concatenated Parquet row groups can give)."""
    out = {}
    half = len(frame) // 2
    for name in frame.columns:
        values = frame[name].astype(object).where(frame[name].notna(), None).tolist()
        chunks = [pa.array(values[:half]).dictionary_encode(), pa.array(values[half:])]
        chunks[1] = chunks[1].dictionary_encode()
        out[name] = pd.Series(pd.arrays.ArrowExtensionArray(pa.chunked_array(chunks)))
    return pd.DataFrame(out)


@pytest.fixture(scope="module")
def adult_sample() -> pd.DataFrame:
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str)
    return frame.sample(4000, random_state=1).reset_index(drop=True)


@pytest.fixture(scope="module")
def full_policy() -> privcheck.Policy:
    base = load_policy(ADULT / "policy.yaml")
    data = base.model_dump(mode="json", exclude={"models"})
    data["models"] = [
        {"model": "k-anonymity", "k": 5},
        {"model": "l-diversity", "variant": "distinct", "l": 2},
        {"model": "l-diversity", "variant": "entropy", "l": 2},
        {"model": "l-diversity", "variant": "recursive", "l": 2, "c": 3},
        {"model": "t-closeness", "t": 0.2, "distance": "equal"},
        {"model": "t-closeness", "t": 0.2, "distance": "ordered"},
        {"model": "t-closeness", "t": 0.2, "distance": "hierarchical"},
    ]
    return parse_policy(data, base_dir=base.base_dir)


def test_categoricals_give_the_string_report(adult_sample, full_policy):
    expected = _report(adult_sample, full_policy)
    assert _report(adult_sample.astype("category"), full_policy) == expected


def test_unused_and_reordered_categories_change_nothing(adult_sample, full_policy):
    expected = _report(adult_sample, full_policy)
    typed = {}
    for name in adult_sample.columns:
        values = adult_sample[name]
        # categories in reverse order, plus values no row holds — one of them absent from the
        # hierarchy, which must not matter since no row has it
        categories = [*sorted(values.unique(), reverse=True), "zz-unused", "Unknown-country"]
        typed[name] = pd.Categorical(values, categories=categories)
    assert _report(pd.DataFrame(typed), full_policy) == expected


def test_arrow_dictionary_columns_give_the_string_report(adult_sample, full_policy):
    expected = _report(adult_sample, full_policy)
    assert _report(_arrow_dictionary(adult_sample), full_policy) == expected


def test_parquet_read_as_dictionaries_gives_the_string_report(
    adult_sample, full_policy, tmp_path: Path
):
    expected = _report(adult_sample, full_policy)
    plain, typed = tmp_path / "plain.parquet", tmp_path / "typed.parquet"
    adult_sample.assign(extra=np.arange(len(adult_sample))).to_parquet(plain)
    adult_sample.astype("category").to_parquet(typed)
    assert _report(plain, full_policy) == expected
    assert _report(typed, full_policy) == expected


def test_missing_values_same_report_and_same_error(adult_sample, full_policy):
    frame = adult_sample.head(600).copy()
    frame.loc[[3, 50], "occupation"] = None
    frame.loc[7, "occupation"] = ""  # an empty string counts as missing, as in a CSV
    frame.loc[[9, 11], "salary-class"] = np.nan
    typed_frames = [frame.astype("category"), _arrow_dictionary(frame)]

    expected = _error(frame, full_policy)
    assert "'occupation' has 3 missing value(s) (first at row 3)" in expected
    for typed in typed_frames:
        assert _error(typed, full_policy) == expected

    own = full_policy.model_copy(update={"missing": "own_class"})
    expected_report = _report(frame, own)
    for typed in typed_frames:
        assert _report(typed, own) == expected_report


def test_value_absent_from_the_hierarchy_same_error(adult_sample, full_policy):
    frame = adult_sample.head(300).copy()
    frame.loc[5, "native-country"] = "Atlantis"
    expected = _error(frame, full_policy)
    assert "'Atlantis'" in expected
    assert _error(frame.astype("category"), full_policy) == expected
    assert _error(_arrow_dictionary(frame), full_policy) == expected
    # the anonymizers' encoding (ground values against the hierarchy) refuses it the same way
    with pytest.raises(DataError) as plain:
        encode(frame, full_policy)
    with pytest.raises(DataError) as typed:
        encode(frame.astype("category"), full_policy)
    assert str(typed.value) == str(plain.value)


def test_an_unused_category_absent_from_the_hierarchy_is_no_error(adult_sample, full_policy):
    """A check keeps a quasi-identifier's categories as they are (no pass to find the unused
    ones); a category no row holds is still no value of the data, hierarchy or not."""
    frame = adult_sample.head(300)
    typed = frame.astype("category")
    categories = [*typed["native-country"].cat.categories, "Zz-Atlantis"]  # sorted, unused
    typed["native-country"] = typed["native-country"].cat.set_categories(categories)
    assert _report(typed, full_policy) == _report(frame, full_policy)


def test_numeric_categories_and_ordered_distance():
    """Numbers as categories order numerically (ordered t-closeness), and an unused category
    does not widen the value range the ordered distance divides by."""
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {"zip": rng.choice(["021", "022", "023"], 500), "income": rng.choice([10, 20, 40], 500)}
    )
    policy = {
        "attributes": {"zip": {"role": "quasi_identifier"}, "income": {"role": "sensitive"}},
        "models": [{"model": "t-closeness", "t": 0.1, "distance": "ordered"}],
    }
    expected = _report(frame, policy)
    typed = frame.assign(income=pd.Categorical(frame["income"], categories=[40, 10, 20, 99]))
    assert _report(typed, policy) == expected


def test_mixed_type_categories_follow_first_appearance():
    """Values that do not compare keep their order of appearance, as plain values do."""
    values = pd.Series(["b", 1, "a", 1, "b"], dtype=object)
    policy = {"attributes": {"v": {"role": "quasi_identifier"}}}
    plain = encode(pd.DataFrame({"v": values}), policy, as_released=True).quasi_identifiers[0]
    cat = pd.Categorical(values, categories=[1, "a", "b", "unused"])
    typed = encode(pd.DataFrame({"v": cat}), policy, as_released=True).quasi_identifiers[0]
    assert typed.codes.tolist() == plain.codes.tolist()
    # a check keeps a quasi-identifier's unused categories (they make no class): the values
    # the rows hold read the same
    used = np.unique(typed.codes)
    assert typed.levels.ground[used].tolist() == plain.levels.ground.tolist()


def test_only_the_sensitive_columns_models_read_are_encoded(adult_sample):
    policy = load_policy(
        {
            "attributes": {
                "age": {"role": "quasi_identifier"},
                "sex": {"role": "quasi_identifier"},
                "salary-class": {"role": "sensitive"},
                "occupation": {"role": "sensitive"},
            },
            "models": [
                {"model": "k-anonymity", "k": 2},
                {"model": "l-diversity", "l": 2, "attribute": "occupation"},
            ],
        }
    )
    assert sensitive_read(policy) == ["occupation"]
    k_only = policy.model_copy(update={"models": policy.models[:1]})
    assert sensitive_read(k_only) == []
    encoded = encode(adult_sample, policy, as_released=True, sensitive=sensitive_read(policy))
    assert list(encoded.sensitive) == ["occupation"]
    assert list(encode(adult_sample, policy).sensitive) == ["salary-class", "occupation"]
    # the verdict does not depend on the unread column
    plain = _report(adult_sample, policy)
    assert _report(adult_sample.assign(**{"salary-class": "x"}), policy) == plain
