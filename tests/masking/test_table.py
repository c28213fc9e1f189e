"""Input checks shared by every masking method."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcheck.errors import DataError, PolicyError
from privcheck.masking._table import check_k, numeric_table, standardize


def test_frame_columns_and_rebuild():
    frame = pd.DataFrame({"a": [1, 2, 3], "b": [1.5, 2.5, 3.5], "s": list("xyz")}, index=[7, 8, 9])
    table = numeric_table(frame, ["b", "a"])
    assert table.columns == ["b", "a"] and table.values.dtype == np.float64
    assert table.values.flags.c_contiguous
    out = table.rebuild(table.values * 2)
    assert out["a"].tolist() == [2.0, 4.0, 6.0] and out["s"].tolist() == list("xyz")
    assert out.index.tolist() == [7, 8, 9]
    assert frame["a"].tolist() == [1, 2, 3]  # the input is not modified


def test_arrays():
    arr = np.arange(12).reshape(4, 3)
    table = numeric_table(arr, [2, 0])
    out = table.rebuild(np.zeros((4, 2)))
    assert out[:, 1].tolist() == [1, 4, 7, 10] and out[:, 0].tolist() == [0, 0, 0, 0]
    vec = numeric_table(np.array([3.0, 1.0]))
    assert vec.rebuild(np.array([[5.0], [6.0]])).tolist() == [5.0, 6.0]


@pytest.mark.parametrize(
    ("data", "columns", "fragment"),
    [
        (pd.DataFrame({"a": ["1", "2"]}), None, "column 'a' is not numeric (dtype"),
        (pd.DataFrame({"a": [True, False]}), None, "column 'a' is not numeric"),
        (pd.DataFrame({"a": [1.0, None, 3.0]}), None, "'a' has 1 missing or infinite value(s)"),
        (pd.DataFrame({"a": pd.array([1, None], dtype="Int64")}), None, "rows 1"),
        (pd.DataFrame({"a": [1.0, np.inf]}), None, "missing or infinite"),
        (pd.DataFrame({"a": []}, dtype=float), None, "no records"),
        (np.array([["a", "b"]]), None, "not numeric"),
        (np.zeros((2, 2, 2)), None, "1-D or 2-D"),
        ([[1, 2]], None, "DataFrame or a numpy array"),
    ],
)
def test_data_errors(data, columns, fragment):
    with pytest.raises(DataError) as info:
        numeric_table(data, columns)
    assert fragment in str(info.value)


def test_missing_value_message_lists_rows():
    frame = pd.DataFrame({"a": [np.nan] * 7 + [1.0]})
    with pytest.raises(
        DataError, match=r"7 missing or infinite value\(s\) \(rows 0, 1, 2, 3, 4 and 2 more\)"
    ):
        numeric_table(frame)


@pytest.mark.parametrize(
    ("data", "columns", "fragment"),
    [
        (pd.DataFrame({"a": [1.0]}), ["b"], "not in the data"),
        (pd.DataFrame({"a": [1.0]}), ["a", "a"], "twice"),
        (pd.DataFrame({"a": [1.0]}), [], "no columns"),
        (np.zeros((2, 2)), [2], "out of range"),
    ],
)
def test_column_errors(data, columns, fragment):
    with pytest.raises(PolicyError, match=fragment):
        numeric_table(data, columns)


def test_check_k():
    assert check_k(np.int64(3), 5) == 3
    for bad in (1, 6, 2.0, "3", None, False):
        with pytest.raises(PolicyError):
            check_k(bad, 5)


def test_standardize_population_sd_and_constant_columns():
    x = np.array([[1.0, 5.0], [3.0, 5.0]])
    assert np.array_equal(standardize(x), [[-1.0, 0.0], [1.0, 0.0]])


def test_integers_beyond_2_53_are_held_relative_to_an_even_offset():
    frame = pd.DataFrame({"a": np.array([2**60, 2**60 + 2, 2**60 + 5], dtype=np.int64)})
    table = numeric_table(frame)
    assert table.offsets == [2**60 + 2] and table.values[:, 0].tolist() == [-2.0, 0.0, 3.0]
    out = table.rebuild(table.values * 2)  # rebuild adds the offset back
    assert out["a"].tolist() == [float(2**60 - 2), float(2**60 + 2), float(2**60 + 8)]
    assert numeric_table(pd.DataFrame({"a": [1, 2, 3]})).offsets == [0]  # exact floats: none
