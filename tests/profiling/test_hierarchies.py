"""Hierarchy builders: widths a person would choose, frequency tables that are trees covering
every value and ending in ``*``, and files that read back as written (privcheck's own reader
and resolvers are the judges)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcheck.hierarchy import read_table_rows, table_levels
from privcheck.policy import IntervalsHierarchy, TableHierarchy
from privcheck.profiling import hierarchies
from privcheck.profiling.columns import column_data
from privcheck.profiling.types import infer


def _is_nice(width: float) -> bool:
    exponent = math.floor(math.log10(width))
    mantissa = width / 10**exponent
    return any(abs(mantissa - m) < 1e-9 for m in (1, 2, 5, 10))


@settings(max_examples=300, deadline=None)
@given(
    low=st.floats(-1e6, 1e6, allow_nan=False),
    span=st.floats(0.001, 1e7, allow_nan=False),
    integer=st.booleans(),
)
def test_nice_widths(low, span, integer):
    if integer:
        low, span = float(round(low)), float(max(1, round(span)))
    high = low + span
    widths = hierarchies.nice_widths(low, high, low + 0.05 * span, high - 0.05 * span, integer)
    assert 1 <= len(widths) <= hierarchies.MAX_WIDTHS
    assert all(_is_nice(w) for w in widths)
    if integer:
        assert all(isinstance(w, int) and w >= 2 for w in widths)
    IntervalsHierarchy(widths=widths)  # each a multiple of the one below: the policy accepts it
    # the finest level has a handful of bins or more over the central range, not thousands
    assert span / widths[0] <= 10 * hierarchies.TARGET_BINS


def test_ages_get_the_widths_of_arx_age_hierarchy():
    assert hierarchies.nice_widths(17, 90, 19, 63, True) == [5, 10, 20]


def _frequency_oracle(labels: list[str], counts: list[int], k: int) -> list[list[str]]:
    """The frequency levels spelled out plainly (the module docstring's rule), for comparison:
    ground most frequent first; values of at least k records kept, the rest 'other'; then the
    commonest (each of at least k) until 80 %, then 50 %, of the records are covered — a level
    keeping fewer than two values or gathering fewer than two is the level below again; a level
    equal to the one below, or of one group, dropped; then '*'."""
    order = sorted(range(len(labels)), key=lambda i: -counts[i])  # stable: ties keep order
    ground = [labels[i] for i in order]
    size = [counts[i] for i in order]
    other = next(o for o in ("other", "(other)") if o not in {v.casefold() for v in labels})
    levels = [ground, [g if c >= k else other for g, c in zip(ground, size, strict=True)]]
    total = sum(size)
    for share in (0.8, 0.5):
        keep, covered = [], 0
        for g, c in sorted(zip(ground, size, strict=True), key=lambda p: (-p[1], p[0])):
            if covered >= share * total or c < k:
                break
            keep.append(g)
            covered += c
        if len(keep) < 2 or len(ground) - len(keep) < 2:
            levels.append(levels[-1])
        else:
            levels.append([g if g in keep else other for g in ground])
    kept = [levels[0]]
    for level in levels[1:]:
        if level != kept[-1] and len(set(level)) > 1:
            kept.append(level)
    kept.append(["*"] * len(ground))
    return [list(r) for r in zip(*kept, strict=True)]


@settings(max_examples=200, deadline=None)
@given(
    counts=st.lists(st.integers(1, 200), min_size=1, max_size=40),
    k=st.integers(1, 20),
    other_taken=st.booleans(),
)
def test_frequency_table_brute_force(counts, k, other_taken):
    labels = [f"v{i}" for i in range(len(counts))]
    if other_taken:
        labels[0] = "other"  # a value spelled like the gathering label
    rows, _ = hierarchies.frequency_table(labels, np.array(counts), k)
    assert sorted(r[0] for r in rows) == sorted(labels)  # every value once
    assert all(r[-1] == "*" and len(r) == len(rows[0]) for r in rows)
    table_levels(TableHierarchy(rows=rows), "c", None)  # a tree (else PolicyError)
    assert rows == _frequency_oracle(labels, counts, k)


def test_prefix_and_year_tables_are_trees():
    codes = ["SW1A 1AA", "SW1A 2AB", "M1 1AE", "E1", "EC1A 1BB"]
    table_levels(TableHierarchy(rows=hierarchies.prefix_table(codes)), "pc", None)
    mixed = ["2020-01-31", "31/01/2020", "1999-12-31", "oops"]
    rows = hierarchies.year_table(mixed, (None, "%d/%m/%Y"))
    table_levels(TableHierarchy(rows=rows), "d", None)
    assert [r[1] for r in rows] == ["2020", "2020", "1999", "(not a date)"]


def _built(values, concept=None, k=5):
    arr = pa.array(values)
    col = column_data(pa.chunked_array([arr]), "c")
    return hierarchies.build(col, infer(col), concept, k), col


@pytest.mark.parametrize(
    ("values", "concept", "kind"),
    [
        ([str(a) for a in range(17, 91)] * 3, "age", "intervals"),
        ([f"{x:.1f}" for x in np.linspace(40, 120, 300)], None, "intervals"),
        (["02139", "10115", "00501", "99999"] * 10, "postal", "masking"),
        (["SW1A 1AA", "M1 1AE", "EC1A 1BB"] * 10, "postal", "table"),
        (
            pd.date_range("1950-01-01", periods=400, freq="7D").strftime("%d/%m/%Y").tolist(),
            "birth",
            "dates",
        ),
        (["Married", "Single", "Divorced", "Widowed"] * 10 + ["Separated"], "marital", "table"),
        (["1", "2"] * 20, "sex", "table"),
        ([str(a) for a in range(18, 80)] + ["unknown"], "age", "table"),
    ],
)
def test_hierarchy_kind_by_concept_and_type(values, concept, kind):
    built, col = _built(values, concept)
    assert built.spec["type"] == kind
    labels = hierarchies._labels(col)
    assert hierarchies.resolve(built, col, labels) is None  # privcheck's resolvers accept it


def test_separator_and_line_breaks():
    built, _ = _built(["a;b", "c;d", "e"] * 10, "occupation")
    assert built.sep == "\t" and not built.inline
    spec = TableHierarchy(path="h.csv", sep=built.sep)
    text = "".join(built.sep.join(r) + "\n" for r in built.rows)
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "h.csv").write_text(text, encoding="utf-8")
        assert read_table_rows(spec, "c", Path(folder)) == built.rows
    inline, _ = _built(["Berlin\nMitte", "Köln"] * 10, "geography")
    assert inline.inline
