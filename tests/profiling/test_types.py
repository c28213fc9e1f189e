"""Column reading and types: counts from one pass agree with pandas; codes with leading zeros
stay codes; a number column with a stray word is text and says which word."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from privcheck.profiling.columns import arrow_table, column_data, sample_rows
from privcheck.profiling.types import infer


def _col(values, name="c", dictionary=True):
    arr = pa.array(values)
    if dictionary and pa.types.is_string(arr.type):
        arr = arr.dictionary_encode()
    return column_data(pa.chunked_array([arr[:3], arr[3:]]), name)


@pytest.mark.parametrize("dictionary", [True, False])
def test_counts_agree_with_pandas(dictionary):
    rng = np.random.default_rng(0)
    values = list(rng.choice(["a", "b", "c", "d", " ", "", None, "e"], 500))
    values += [f"u{i}" for i in range(40)]  # values held by one row each
    col = _col(values, dictionary=dictionary)
    series = pd.Series(values, dtype=object)
    blank = series.isna() | (series.fillna("").str.strip() == "")
    present = series[~blank]
    counts = present.value_counts()
    assert col.n_missing == int(blank.sum())
    assert col.distinct == len(counts)
    assert col.unique_rows == int((counts == 1).sum())
    assert col.unique_share == pytest.approx((counts == 1).sum() / len(values))
    got = dict(zip(col.values.to_pylist(), col.counts.tolist(), strict=True))
    assert got == counts.to_dict()
    assert col.sample_size == len(present)  # (fewer rows than the sample: all)


def test_sample_is_of_the_stated_size_and_the_same_rows_for_every_column():
    positions = sample_rows(50_000, 1_000, seed=0)
    assert len(positions) == 1_000 and len(set(positions.tolist())) == 1_000
    assert (positions == sample_rows(50_000, 1_000, seed=0)).all()
    col = column_data(pa.chunked_array([pa.array(np.arange(50_000) % 7)]), "x", positions)
    assert col.sample_size == 1_000 and col.sample_weights.sum() == 1_000


@pytest.mark.parametrize(
    ("values", "kind", "code"),
    [
        (["1", "22", "-3", "40"] * 5, "integer", False),
        (["02139", "10115", "00501"] * 5, "text", True),
        (["1.5", "2", "-0.25", "3e2"] * 5, "decimal", False),
        (["yes", "no", "Yes"] * 5, "boolean", False),
        (["J", "N"] * 5, "text", False),
        (["0", "1"] * 5, "boolean", False),
        (["2020-01-02", "1999-12-31"] * 5, "date", False),
        (["19870314", "20011231"] * 5, "date", False),
        (["red", "green"] * 5, "text", False),
    ],
)
def test_types(values, kind, code):
    info = infer(_col(values))
    assert info.type == kind
    assert info.code is code


def test_typed_columns():
    frame = pd.DataFrame(
        {
            "i": [1, 2, 3, 4],
            "f": [1.0, 2.0, None, 4.0],  # whole numbers with a missing value: integers
            "d": [0.5, 1.25, 2.0, 3.0],
            "t": pd.to_datetime(["2020-01-01", "2021-02-03", None, "2022-03-04"]),
            "b": [True, False, True, None],
            "mixed": [1, "a", 2.5, None],  # mixed Python objects: read as strings
        }
    )
    table = arrow_table(frame)
    kinds = {n: infer(column_data(table.column(n), n)).type for n in table.column_names}
    assert kinds == {
        "i": "integer",
        "f": "integer",
        "d": "decimal",
        "t": "date",
        "b": "boolean",
        "mixed": "text",
    }


def test_a_stray_word_makes_numbers_text_and_is_named():
    info = infer(_col([str(i) for i in range(18, 90)] + ["unknown"]))
    assert info.type == "text" and info.stray == "unknown"


def test_number_statistics_are_weighted_by_rows():
    info = infer(_col(["10"] * 90 + ["1000"] * 10))
    assert (info.low, info.high) == (10, 1000)
    assert info.p05 == 10 and info.p95 == 1000


def test_typed_integers_beyond_2_53_are_profiled_not_refused():
    """A Parquet int64 column of card numbers (16 digits, beyond 2^53): the statistics round,
    the values stay exact for the recognizers, and the column is flagged as card numbers."""
    from stdnum import luhn

    from privcheck.profiling.draft import draft_policy

    bodies = [910_000_000_000_000 + 7_919 * i for i in range(200)]  # 15 digits: 16 with the key
    cards = [int(f"{b}{luhn.calc_check_digit(str(b))}") for b in bodies]
    assert all(luhn.is_valid(str(c)) for c in cards) and max(cards) > 2**53
    table = pa.table({"card": pa.array(cards, pa.int64()), "sex": ["f", "m"] * 100})
    info = infer(column_data(table.column("card"), "card"))
    assert info.type == "integer"
    _, profile = draft_policy(table)
    card = profile.column("card")
    assert card.role == "identifier" and card.pattern == "payment-card"
