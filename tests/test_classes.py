"""Property tests of the class tables: rollup equals a fresh count, row order does not matter,
k is the smallest class, and missing values are either refused or a class of their own."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import privcheck
from privcheck.classes import ClassTable, count, rollup
from privcheck.encoding import encode
from privcheck.errors import DataError
from privcheck.policy import parse_policy
from tests.models import bruteforce as bf
from tests.models.compare import ADULT_QIS, adult_policy, privcheck_per_class

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ALL_MODELS = [
    {"model": "k-anonymity", "k": 3},
    {"model": "l-diversity", "variant": "distinct", "l": 2, "attribute": "s"},
    {"model": "l-diversity", "variant": "entropy", "l": 1.7, "attribute": "s"},
    {"model": "l-diversity", "variant": "recursive", "l": 2, "c": 2, "attribute": "s"},
    {"model": "t-closeness", "t": 0.3, "distance": "equal", "attribute": "s"},
    {"model": "t-closeness", "t": 0.3, "distance": "ordered", "attribute": "s"},
    {"model": "t-closeness", "t": 0.3, "distance": "hierarchical", "attribute": "s"},
    {"model": "l-diversity", "variant": "distinct", "l": 2, "attribute": "u"},
]


@st.composite
def tables(draw, missing: bool = False, max_rows: int = 80):
    """A random table, its policy (table hierarchies on every QI and on ``s``) and the
    hierarchy rows; some QIs have no hierarchy (grouped as they stand) when it is drawn so."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(1, max_rows))
    n_qi = draw(st.integers(1, 4))
    frame, attrs, hierarchies = {}, {}, {}
    for j in range(n_qi + 1):
        name = f"q{j}" if j < n_qi else "s"
        m = draw(st.integers(1, 7))
        rows = bf.random_tree(
            rng, m, draw(st.integers(1, 3)), f"{name}_", single_top=draw(st.booleans())
        )
        idx = draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n))
        values: list[str | None] = [rows[i][0] for i in idx]
        if missing and name != "s":
            holes = draw(st.lists(st.booleans(), min_size=n, max_size=n))
            values = [None if h else v for v, h in zip(values, holes, strict=True)]
        frame[name] = values
        role = "sensitive" if name == "s" else "quasi_identifier"
        if name == "s" or draw(st.booleans()):
            hierarchies[name] = rows
            attrs[name] = {"role": role, "hierarchy": {"type": "table", "rows": rows}}
        else:
            attrs[name] = {"role": role}
    frame["u"] = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n))
    attrs["u"] = {"role": "sensitive"}
    policy = {"attributes": attrs, "models": ALL_MODELS}
    if missing:
        policy["missing"] = "own_class"
    return pd.DataFrame(frame, dtype=object), policy, hierarchies


def _nodes(draw, encoded) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Three nodes, each at least as coarse as the one before."""
    heights = encoded.heights
    a = tuple(draw(st.integers(0, h)) for h in heights)
    b = tuple(draw(st.integers(lo, h)) for lo, h in zip(a, heights, strict=True))
    c = tuple(draw(st.integers(lo, h)) for lo, h in zip(b, heights, strict=True))
    return a, b, c


def assert_same_table(got: ClassTable, want: ClassTable) -> None:
    assert got.node == want.node
    np.testing.assert_array_equal(got.keys, want.keys)
    np.testing.assert_array_equal(got.sizes, want.sizes)
    assert got.sensitive.keys() == want.sensitive.keys()
    for name, s in want.sensitive.items():
        g = got.sensitive[name]
        assert g.n_values == s.n_values
        np.testing.assert_array_equal(g.indptr, s.indptr)
        np.testing.assert_array_equal(g.values, s.values)
        np.testing.assert_array_equal(g.counts, s.counts)
    np.testing.assert_array_equal(got.record_class, want.record_class)


@SETTINGS
@given(case=tables(missing=False) | tables(missing=True), data=st.data())
def test_rollup_equals_count_at_the_coarser_node(case, data):
    frame, policy, _ = case
    encoded = encode(frame, parse_policy(policy))
    a, b, c = _nodes(data.draw, encoded)
    base = count(encoded, a)
    assert_same_table(rollup(base, c), count(encoded, c))
    assert_same_table(rollup(rollup(base, b), c), count(encoded, c))
    assert rollup(count(encoded, a, track_records=False), c).record_class is None


@SETTINGS
@given(case=tables(missing=False) | tables(missing=True), data=st.data())
def test_classes_and_k_match_brute_force(case, data):
    """The classes are the groups of the generalized rows; k is the smallest class."""
    frame, policy, hierarchies = case
    pol = parse_policy(policy)
    encoded = encode(frame, pol)
    node, _, _ = _nodes(data.draw, encoded)
    table = count(encoded, node)
    qis = pol.quasi_identifiers
    rows = bf.rows_from_frame(frame)
    classes = bf.group_rows(rows, qis, "s", node, hierarchies)
    labels = table.class_labels(np.arange(table.n_classes))
    keys = [tuple(lab[q] for q in qis) for lab in labels]
    assert dict(zip(keys, table.sizes.tolist(), strict=True)) == {
        k: len(v) for k, v in classes.items()
    }
    # every record's class has that record's generalized values
    row_keys = [
        tuple(
            bf.generalize(bf._clean(r[q]), _lookup(hierarchies, q), lv)
            for q, lv in zip(qis, node, strict=True)
        )
        for r in rows
    ]
    assert [keys[c] for c in table.record_class] == row_keys
    sensitive = Counter((row_keys[i], r["s"]) for i, r in enumerate(rows))
    entries = table.sensitive["s"]
    ground = encoded.sensitive["s"].levels.ground
    got = Counter()
    for c in range(table.n_classes):
        lo, hi = entries.indptr[c], entries.indptr[c + 1]
        for v, f in zip(entries.values[lo:hi], entries.counts[lo:hi], strict=True):
            got[(keys[c], str(ground[v]))] = int(f)
    assert got == sensitive
    (k_result,) = privcheck.checker.check_table(
        table, parse_policy({**policy, "models": [{"model": "k-anonymity", "k": 2}]})
    ).models
    assert k_result.value == min(len(v) for v in classes.values())


def _lookup(hierarchies, q):
    return {r[0]: r for r in hierarchies[q]} if q in hierarchies else None


@SETTINGS
@given(case=tables(missing=False) | tables(missing=True), data=st.data())
def test_checks_are_invariant_to_row_order(case, data):
    frame, policy, _ = case
    perm = np.asarray(data.draw(st.permutations(range(len(frame)))), dtype=int)
    shuffled = frame.iloc[perm].reset_index(drop=True)
    pol = parse_policy(policy)
    node, _, _ = _nodes(data.draw, encode(frame, pol))
    t1, t2 = count(encode(frame, pol), node), count(encode(shuffled, pol), node)
    assert privcheck_per_class(t1, pol) == privcheck_per_class(t2, pol)
    r1 = privcheck.checker.check_table(t1, pol, max_violators=10_000)
    r2 = privcheck.checker.check_table(t2, pol, max_violators=10_000)
    for m1, m2 in zip(r1.models, r2.models, strict=True):
        assert (m1.passed, m1.value, m1.violating_classes, m1.violating_records) == (
            m2.passed,
            m2.value,
            m2.violating_classes,
            m2.violating_records,
        )
        # the same classes are named, with the same records (row numbers mapped back); a
        # report lists the first MAX_RECORDS_PER_CLASS rows of a class, in input order
        cap = privcheck.checker.MAX_RECORDS_PER_CLASS
        v1 = {tuple(v.values.items()): (v.size, sorted(v.records)) for v in m1.violators}
        v2 = {
            tuple(v.values.items()): (v.size, sorted(perm[v.records].tolist()))
            for v in m2.violators
        }
        assert v1.keys() == v2.keys()
        for key, (size, rows) in v1.items():
            assert v2[key][0] == size and len(rows) == len(v2[key][1]) == min(size, cap)
            if size <= cap:
                assert rows == v2[key][1]


@SETTINGS
@given(case=tables(missing=True))
def test_missing_values_are_refused_unless_own_class(case):
    frame, policy, _ = case
    holes = [c for c in frame.columns if frame[c].isna().any()]
    strict = {k: v for k, v in policy.items() if k != "missing"}
    if holes:
        with pytest.raises(DataError, match=f"column '{holes[0]}' has"):
            encode(frame, parse_policy(strict))
    else:
        encode(frame, parse_policy(strict))
    report = privcheck.check(frame, policy)
    assert report.n_records == len(frame)  # no row dropped
    table = count(encode(frame, parse_policy(policy)))
    labels = table.class_labels(np.arange(table.n_classes))
    for q in holes:
        missing_classes = [c for c, lab in enumerate(labels) if lab[q] == "<missing>"]
        assert table.sizes[missing_classes].sum() == frame[q].isna().sum()


def test_missing_value_is_its_own_class_until_the_single_top():
    """ZIP 0213* holds two records and a missing ZIP one: apart at every level but '*'."""
    frame = pd.DataFrame({"zip": ["02138", "02139", None], "s": ["a", "b", "a"]})
    policy = parse_policy(
        {
            "attributes": {
                "zip": {"role": "quasi_identifier", "hierarchy": {"type": "masking"}},
                "s": {"role": "sensitive"},
            },
            "missing": "own_class",
        }
    )
    encoded = encode(frame, policy)
    sizes = {lv: sorted(count(encoded, (lv,)).sizes.tolist()) for lv in range(6)}
    assert sizes == {0: [1, 1, 1], 1: [1, 2], 2: [1, 2], 3: [1, 2], 4: [1, 2], 5: [3]}


def test_wide_keys_beyond_int64_are_renumbered_not_overflowed():
    """Eight QIs of 500 values: the key space (500⁸ ≈ 4·10²¹) overflows int64, so the combined
    key is renumbered on the way; classes must still be exactly the distinct rows."""
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({f"q{j}": rng.integers(0, 500, size=3000) for j in range(8)})
    frame.iloc[1000:1500] = frame.iloc[:500].to_numpy()  # some repeated rows
    frame["s"] = rng.choice(["a", "b"], size=3000)
    policy = {
        "attributes": {
            **{f"q{j}": {"role": "quasi_identifier"} for j in range(8)},
            "s": {"role": "sensitive"},
        },
        "models": [{"model": "k-anonymity", "k": 2}],
    }
    table = count(encode(frame, parse_policy(policy)))
    want = Counter(map(tuple, frame.iloc[:, :8].astype(str).to_numpy().tolist()))
    labels = table.class_labels(np.arange(table.n_classes))
    got = {
        tuple(lab[f"q{j}"] for j in range(8)): int(s)
        for lab, s in zip(labels, table.sizes, strict=True)
    }
    assert got == dict(want)
    assert table.n_classes == len(want) < 3000


def test_no_quasi_identifiers_is_one_class():
    frame = pd.DataFrame({"s": ["a", "b", "a", "c"]})
    report = privcheck.check(
        frame,
        {
            "attributes": {"s": {"role": "sensitive"}},
            "models": [
                {"model": "k-anonymity", "k": 4},
                {"model": "l-diversity", "variant": "distinct", "l": 3},
            ],
        },
    )
    assert report.n_classes == 1
    assert [(m.value, m.passed) for m in report.models] == [(4, True), (3, True)]


def test_numeric_column_with_nan_as_its_own_class():
    frame = pd.DataFrame({"age": [30.0, 30.0, np.nan, 41.0], "s": ["a", "b", "a", "b"]})
    policy = {
        "attributes": {"age": {"role": "quasi_identifier"}, "s": {"role": "sensitive"}},
        "models": [{"model": "k-anonymity", "k": 2}],
        "missing": "own_class",
    }
    table = count(encode(frame, parse_policy(policy)))
    labels = [lab["age"] for lab in table.class_labels(np.arange(table.n_classes))]
    assert dict(zip(labels, table.sizes.tolist(), strict=True)) == {
        "30": 2,
        "41": 1,
        "<missing>": 1,
    }
    with pytest.raises(DataError, match="'age' has 1 missing value"):
        encode(frame, parse_policy({k: v for k, v in policy.items() if k != "missing"}))


@pytest.mark.parametrize(
    "node", [(1, 0, 0, 1, 1, 1, 1, 0), (2, 1, 0, 1, 2, 2, 0, 1), (4, 1, 1, 2, 3, 2, 2, 2)]
)
def test_adult_rollup_equals_count(adult_frame, node):
    """On the real data with ARX's hierarchies, through an intermediate node too."""
    policy = parse_policy(
        adult_policy(ADULT_QIS, "salary-class", [{"model": "k-anonymity", "k": 2}])
    )
    encoded = encode(adult_frame, policy)
    bottom = count(encoded)
    middle = tuple(lv // 2 for lv in node)
    assert_same_table(rollup(bottom, node), count(encoded, node))
    assert_same_table(rollup(rollup(bottom, middle), node), count(encoded, node))


@pytest.mark.parametrize("dense", [True, False])
def test_adult_rollup_paths_equal_count(adult_frame, monkeypatch, dense):
    """Every table packs its key columns (not only the big ones), and the key is factorised by
    sorting as well as densely: the same tables either way."""
    import privcheck.classes as classes

    monkeypatch.setattr(classes, "_PACK_ROWS", 1)
    if not dense:
        monkeypatch.setattr(classes, "_ROLLUP_DENSE_MIN", 0)
        monkeypatch.setattr(classes, "_ROLLUP_DENSE_PER_ROW", 0)
    policy = parse_policy(
        adult_policy(ADULT_QIS, "salary-class", [{"model": "k-anonymity", "k": 2}])
    )
    encoded = encode(adult_frame, policy)
    bottom = count(encoded)
    for middle, node in [
        ((0, 0, 0, 1, 0, 0, 0, 0), (0, 0, 0, 1, 1, 0, 0, 0)),
        ((1, 0, 0, 1, 1, 1, 0, 0), (2, 1, 0, 1, 2, 2, 0, 1)),
        ((2, 0, 1, 1, 2, 1, 1, 1), (4, 1, 1, 2, 3, 2, 2, 2)),
    ]:
        assert_same_table(rollup(bottom, node), count(encoded, node))
        assert_same_table(rollup(rollup(bottom, middle), node), count(encoded, node))


@pytest.mark.parametrize("kept", [256, 2])
def test_adult_rollups_of_one_table_reuse_its_pack_codes(adult_frame, monkeypatch, kept):
    """A search rolls the root up to hundreds of nodes: each pack's own code at the levels asked
    is kept on the table and combined again for the next node with the same levels in that
    pack — the same tables as counting the rows, in any order, also once the memo starts over
    (``kept`` codes at most)."""
    import itertools

    import privcheck.classes as classes

    monkeypatch.setattr(classes, "_PACK_CODES", kept)
    policy = parse_policy(
        adult_policy(ADULT_QIS, "salary-class", [{"model": "k-anonymity", "k": 2}])
    )
    encoded = encode(adult_frame, policy)
    bottom = count(encoded, track_records=False)
    assert bottom.n_classes >= classes._PACK_ROWS  # (the packed path)
    nodes = [
        (a, b, 0, c, 1, d, 0, 1)
        for a, b, c, d in itertools.product((0, 1, 3), (0, 1), (0, 2), (0, 1))
    ]
    for node in nodes + nodes[::-1]:
        assert_same_table(rollup(bottom, node), count(encoded, node, track_records=False))
    assert 0 < len(bottom.pack_codes) <= kept


@pytest.mark.parametrize("counts_path", [True, False])
def test_adult_rollup_of_sizes_only_equals_count(adult_frame, monkeypatch, counts_path):
    """A table with no sensitive counts and no record classes (a k-anonymity search's) rolls up
    through one weighted count over the key space (``_rollup_counts``): the same tables as
    counting the rows, from small tables as well as big ones."""
    import dataclasses

    import privcheck.classes as classes

    monkeypatch.setattr(classes, "_COUNT_ROWS", 1 if counts_path else 1 << 60)
    monkeypatch.setattr(classes, "_COUNT_DENSE_PER_ROW", 1 << 20)
    policy = parse_policy(
        adult_policy(ADULT_QIS, "salary-class", [{"model": "k-anonymity", "k": 2}])
    )
    encoded = dataclasses.replace(encode(adult_frame, policy), sensitive={})
    bottom = count(encoded, track_records=False)
    for middle, node in [
        ((0, 0, 0, 1, 0, 0, 0, 0), (0, 0, 0, 1, 1, 0, 0, 0)),
        ((1, 0, 0, 1, 1, 1, 0, 0), (2, 1, 0, 1, 2, 2, 0, 1)),
        ((2, 0, 1, 1, 2, 1, 1, 1), (4, 1, 1, 2, 3, 2, 2, 2)),
    ]:
        expected = count(encoded, node, track_records=False)
        for table in (rollup(bottom, node), rollup(rollup(bottom, middle), node)):
            assert_same_table(table, expected)
            assert table.keys.flags.f_contiguous and table.keys.dtype == expected.keys.dtype
