"""Hierarchy specs resolve to level arrays that are trees, with the labels users expect."""

from __future__ import annotations

import numpy as np
import pytest

from privcheck.errors import DataError, PolicyError
from privcheck.hierarchy import (
    date_levels,
    interval_levels,
    masking_levels,
    natural_order,
    table_levels,
)
from privcheck.policy import (
    DatesHierarchy,
    IntervalsHierarchy,
    MaskingHierarchy,
    TableHierarchy,
    parse_policy,
)
from tests.conftest import ADULT, EXAMPLES


def labels_of(levels, value_index: int) -> list[str]:
    return [str(levels.labels[i][levels.maps[i][value_index]]) for i in range(len(levels.maps))]


def test_zip_masking_digit_by_digit():
    lv = masking_levels(MaskingHierarchy(), "zip", np.array(["02139", "02138", "02141"], object))
    assert lv.height == 5
    assert labels_of(lv, 0) == ["02139", "0213*", "021**", "02***", "0****", "*****"]
    # 02139 and 02138 meet at level 1, 02141 joins them at level 2
    assert lv.maps[1][0] == lv.maps[1][1] != lv.maps[1][2]
    assert lv.maps[2][0] == lv.maps[2][2]


def test_masking_levels_limit():
    lv = masking_levels(MaskingHierarchy(levels=2), "zip", np.array(["02139"], object))
    assert labels_of(lv, 0) == ["02139", "0213*", "021**"]
    with pytest.raises(PolicyError, match="levels"):
        masking_levels(MaskingHierarchy(levels=9), "zip", np.array(["02139"], object))


def test_intervals_like_arx_age_bands():
    lv = interval_levels(
        IntervalsHierarchy(widths=[5, 10, 20]), "age", np.array(["17", "39", "40"], object)
    )
    # integer bins are closed ranges, spelt as Mondrian spells the range of a class
    assert labels_of(lv, 1) == ["39", "[35, 39]", "[30, 39]", "[20, 39]", "*"]
    assert labels_of(lv, 0) == ["17", "[15, 19]", "[10, 19]", "[0, 19]", "*"]
    assert lv.maps[2][1] != lv.maps[2][2] and lv.maps[4][1] == lv.maps[4][2]
    assert labels_of(lv, 2)[3] == "[40, 59]"


def test_intervals_with_fractional_values():
    lv = interval_levels(
        IntervalsHierarchy(widths=[0.5], top=False), "x", np.array([0.2, 0.7], object)
    )
    assert labels_of(lv, 0)[1] == "[0, 0.5)" and labels_of(lv, 1)[1] == "[0.5, 1)"


def test_intervals_reject_text():
    with pytest.raises(DataError, match="non-numeric value 'old'"):
        interval_levels(IntervalsHierarchy(widths=[5]), "age", np.array(["3", "old"], object))


def test_dates_day_month_year_decade():
    lv = date_levels(DatesHierarchy(), "dob", np.array(["1987-03-14", "1989-11-02"], object))
    assert labels_of(lv, 0) == ["1987-03-14", "1987-03", "1987", "1980s", "*"]
    assert lv.maps[3][0] == lv.maps[3][1]
    # refused at policy load (before any data is read)
    with pytest.raises(PolicyError, match="fine to coarse"):
        parse_policy(
            {
                "attributes": {
                    "dob": {
                        "role": "quasi_identifier",
                        "hierarchy": {"type": "dates", "levels": ["year", "month"]},
                    }
                }
            }
        )
    with pytest.raises(DataError, match="not a date"):
        date_levels(DatesHierarchy(), "dob", np.array(["yesterday"], object))


def test_arx_tables_load_as_trees():
    for name in (
        "age",
        "education",
        "marital-status",
        "native-country",
        "occupation",
        "race",
        "sex",
        "workclass",
        "salary-class",
    ):
        lv = table_levels(TableHierarchy(path=f"hierarchies/{name}.csv"), name, ADULT)
        assert lv.cardinality(lv.height) == 1  # single root '*'
        for a in range(lv.height + 1):
            for b in range(a, lv.height + 1):
                # up() composes exactly: mapping ground→a→b equals ground→b
                assert np.array_equal(lv.up(a, b)[lv.maps[a]], lv.maps[b])


def test_race_zip_example_hierarchy():
    lv = table_levels(TableHierarchy(path="zip.csv"), "zip", EXAMPLES / "race_zip_hierarchies")
    assert lv.height == 3 and labels_of(lv, 0) == ["02138", "0213*", "021**", "*****"]


def test_table_rejects_ragged_and_duplicate_rows():
    with pytest.raises(PolicyError, match="row 2"):
        table_levels(TableHierarchy(rows=[["a", "x", "*"], ["b", "*"]]), "c", None)
    with pytest.raises(PolicyError, match="twice"):
        table_levels(TableHierarchy(rows=[["a", "*"], ["a", "*"]]), "c", None)


def test_natural_order():
    values = np.array(["11K", "3K", "10K", "4K"], object)
    assert [values[i] for i in np.argsort(natural_order(values))] == ["3K", "4K", "10K", "11K"]
    nums = np.array(["10", "9", "100"], object)
    assert list(natural_order(nums)) == [1, 0, 2]


def test_iso_week_level_against_isocalendar():
    import datetime as dt

    start = dt.date(1999, 12, 1)
    days = [start + dt.timedelta(days=i) for i in range(0, 10_000, 3)]
    lv = date_levels(
        DatesHierarchy(levels=["week", "year", "decade"]),
        "day",
        np.array([d.isoformat() for d in days], object),
    )
    iso = [d.isocalendar() for d in days]
    assert labels_at(lv, 1) == [f"{y}-W{w:02d}" for y, w, _ in iso]
    assert labels_at(lv, 2) == [str(y) for y, _, _ in iso]  # the ISO year: each week one parent
    assert labels_at(lv, 3) == [f"{y // 10 * 10}s" for y, _, _ in iso]
    assert labels_at(lv, 4) == ["*"] * len(days)


def test_intervals_bound_exact_integers_near_2_60():
    values = [2**60 + d for d in (-7, 0, 9, 10, 12345)]
    lv = interval_levels(
        IntervalsHierarchy(widths=[10, 1000]), "id", np.array([str(v) for v in values], object)
    )
    for level, w in ((1, 10), (2, 1000)):
        want = [f"[{v // w * w}, {v // w * w + w - 1}]" for v in values]  # Python ints: exact
        assert labels_at(lv, level) == want
    with pytest.raises(DataError, match="'id' holds integers beyond 2\\^53"):
        interval_levels(IntervalsHierarchy(widths=[2.5]), "id", np.array(values, dtype=np.int64))


def labels_at(lv, level: int) -> list[str]:
    return [str(lv.labels[level][lv.maps[level][g]]) for g in range(len(lv.ground))]
