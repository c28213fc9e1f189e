"""Encoding: codes agree with the values; every input problem is caught here."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcheck.encoding import encode
from privcheck.errors import DataError
from privcheck.policy import load_policy
from tests.conftest import ADULT


def test_adult_codes_decode_to_the_data(adult_frame):
    enc = encode(adult_frame, load_policy(ADULT / "policy.yaml"))
    assert enc.n_records == 30162
    for col in enc.quasi_identifiers:
        decoded = col.levels.ground[col.codes]
        assert (decoded == adult_frame[col.name].to_numpy(dtype=object)).all()
    # generalizing codes equals looking the value up in the hierarchy file (whose row for 50
    # reads "50;45-49;40-49;40-59;*" — ARX's file, quirk included)
    age = enc.quasi_identifiers[0]
    assert adult_frame["age"][:3].tolist() == ["39", "50", "38"]
    assert age.levels.labels[2][age.codes_at(2)][:3].tolist() == ["30-39", "40-49", "30-39"]


def test_numeric_frame_matches_table_hierarchy():
    """A numeric column (39.0) is matched to hierarchy rows spelled '39'."""
    policy = {
        "attributes": {
            "age": {
                "role": "quasi_identifier",
                "hierarchy": {
                    "type": "table",
                    "rows": [["39", "30-39", "*"], ["41", "40-49", "*"]],
                },
            }
        }
    }
    enc = encode(pd.DataFrame({"age": [39.0, 41.0, 39.0]}), policy)
    assert enc.quasi_identifiers[0].codes.tolist() == [0, 1, 0]


@pytest.mark.parametrize("missing", [np.nan, None, "", "  "])
def test_missing_values_are_an_error_by_default(missing):
    frame = pd.DataFrame({"a": ["x", missing, "y"], "s": ["u", "v", "w"]}, dtype=object)
    policy = {"attributes": {"a": {"role": "quasi_identifier"}, "s": {"role": "sensitive"}}}
    with pytest.raises(DataError, match=r"'a' has 1 missing value\(s\) \(first at row 1\)"):
        encode(frame, policy)


def test_missing_in_sensitive_is_an_error_too():
    frame = pd.DataFrame({"a": ["x", "y"], "s": ["u", None]}, dtype=object)
    policy = {"attributes": {"a": {"role": "quasi_identifier"}, "s": {"role": "sensitive"}}}
    with pytest.raises(DataError, match="'s'"):
        encode(frame, policy)


def test_missing_own_class_with_hierarchy_merges_only_at_single_top():
    frame = pd.DataFrame({"zip": ["02138", None, "02139"]}, dtype=object)
    policy = {
        "missing": "own_class",
        "attributes": {
            "zip": {"role": "quasi_identifier", "hierarchy": {"type": "masking", "levels": 5}}
        },
    }
    col = encode(frame, policy).quasi_identifiers[0]
    assert col.levels.labels[0][col.codes[1]] == "<missing>"
    assert col.codes_at(1)[1] != col.codes_at(1)[0]
    assert col.codes_at(5).tolist() == [0, 0, 0]


def test_unused_policy_columns_and_extra_data_columns():
    frame = pd.DataFrame({"a": ["x"], "extra": [1]})
    enc = encode(frame, {"attributes": {"a": {"role": "quasi_identifier"}}})
    assert enc.qi_names == ["a"]


def test_released_numeric_ranges_are_accepted_only_on_numeric_hierarchies():
    """A check accepts ``[lo, hi]`` (a Mondrian release) for a quasi-identifier whose
    hierarchy's ground values are numbers; a zero-padded code is no number, and a range that
    runs backwards or holds words is no range."""
    from privcheck.encoding import is_range, numeric_values

    rows = {
        "age": [["30", "30-39", "*"], ["35", "30-39", "*"]],
        "zip": [["02138", "0213*", "*"], ["02139", "0213*", "*"]],
    }
    policy = {
        "attributes": {
            q: {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": r}}
            for q, r in rows.items()
        },
        "models": [{"model": "k-anonymity", "k": 1}],
    }
    ok = pd.DataFrame({"age": ["[30, 35]", "30", "30-39"], "zip": ["02138", "0213*", "*"]})
    enc = encode(ok, policy, as_released=True)
    assert list(enc.quasi_identifiers[0].levels.ground) == ["30", "30-39", "[30, 35]"]
    bad = ok.assign(zip=["[2138, 2139]", "02138", "02139"])
    with pytest.raises(DataError, match="'zip' is not in its hierarchy"):
        encode(bad, policy, as_released=True)
    assert numeric_values(np.array(["30", "2.5"], dtype=object)) is not None
    assert numeric_values(np.array(["02138"], dtype=object)) is None
    assert not is_range("[35, 30]") and not is_range("[a, b]") and is_range("[-1.5, 2]")
