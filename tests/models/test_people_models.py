"""Every model counting people (``individual:``) against pandas brute force on random tables.

The oracle (``tests/people_helpers.py``) groups the rows with pandas and counts the person
column's distinct values per class and per (class, sensitive value): none of privcheck's
encoding, class tables or model code. The tables are random, with people holding several rows
whose quasi-identifiers and sensitive values vary, so one person often sits in several classes
and holds several values — where counting rows and counting people differ.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import privcheck
from privcheck.errors import PolicyError
from tests.people_helpers import (
    alpha_share,
    beta_gain,
    l_diversity,
    people_per_class,
    t_closeness_equal,
)


def random_table(seed: int, n_people: int, n_rows: int, n_values: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "pid": rng.integers(0, n_people, n_rows).astype(str),
            "a": rng.integers(0, 3, n_rows).astype(str),
            "b": rng.integers(0, 2, n_rows).astype(str),
            "s": rng.integers(0, n_values, n_rows).astype(str),
        }
    )


def policy(*models: dict, individual: str | None = "pid") -> dict:
    out = {
        "attributes": {
            "a": {"role": "quasi_identifier"},
            "b": {"role": "quasi_identifier"},
            "s": {"role": "sensitive"},
        },
        "models": list(models),
    }
    if individual is not None:
        out["individual"] = individual
    return out


def value_of(report, model: str) -> float | None:
    return next(m.value for m in report.models if m.model == model)


tables = st.builds(
    random_table,
    seed=st.integers(0, 10_000),
    n_people=st.integers(1, 40),
    n_rows=st.integers(1, 150),
    n_values=st.integers(1, 5),
)


@settings(max_examples=60, deadline=None)
@given(tables, st.integers(1, 6))
def test_k_anonymity_is_the_fewest_people_in_a_class(frame, k):
    report = privcheck.check(frame, policy({"model": "k-anonymity", "k": k}))
    people = people_per_class(frame, ["a", "b"], "pid")
    assert value_of(report, "k-anonymity") == people.min()
    assert report.models[0].violating_classes == int((people < k).sum())
    assert report.models[0].passed == bool((people >= k).all())
    # the person key in clear is an identifier a release must not carry
    assert report.identifiers_present == ["pid"] and not report.passed
    assert report.n_individuals == frame["pid"].nunique()
    assert report.n_records == len(frame)


@settings(max_examples=60, deadline=None)
@given(tables, st.sampled_from(["distinct", "entropy", "recursive"]))
def test_l_diversity_counts_each_value_by_its_people(frame, variant):
    model = {"model": "l-diversity", "variant": variant, "l": 2}
    if variant == "recursive":
        model["c"] = 2.0
    report = privcheck.check(frame, policy(model))
    expected = l_diversity(frame, ["a", "b"], "pid", "s", variant, 2)
    got = value_of(report, "l-diversity")
    if math.isinf(expected):
        assert got is None and report.models[0].unbounded
    else:
        assert got == pytest.approx(expected, rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(tables)
def test_t_closeness_compares_people_distributions(frame):
    report = privcheck.check(frame, policy({"model": "t-closeness", "t": 0.3}))
    assert value_of(report, "t-closeness") == pytest.approx(
        t_closeness_equal(frame, ["a", "b"], "pid", "s"), abs=1e-12
    )


@settings(max_examples=40, deadline=None)
@given(tables)
def test_alpha_k_share_is_of_the_class_people(frame):
    model = {"model": "alpha-k-anonymity", "alpha": 0.5, "k": 2}
    report = privcheck.check(frame, policy(model))
    assert value_of(report, "alpha-k-anonymity") == pytest.approx(
        alpha_share(frame, ["a", "b"], "pid", "s"), rel=1e-12
    )


@settings(max_examples=40, deadline=None)
@given(tables)
def test_beta_likeness_gain_is_of_people_shares(frame):
    report = privcheck.check(frame, policy({"model": "beta-likeness", "beta": 1.0}))
    assert value_of(report, "beta-likeness") == pytest.approx(
        beta_gain(frame, ["a", "b"], "pid", "s"), rel=1e-9, abs=1e-12
    )


@settings(max_examples=40, deadline=None)
@given(tables)
def test_prosecutor_risk_is_one_over_the_people(frame):
    model = {"model": "average-risk", "threshold": 1.0}
    report = privcheck.check(frame, policy(model))
    people = people_per_class(frame, ["a", "b"], "pid")
    # each class's people count once per class they sit in: #classes / Σ people per class
    assert value_of(report, "average-risk") == pytest.approx(len(people) / people.sum())


@settings(max_examples=30, deadline=None)
@given(tables)
def test_without_individual_nothing_changes(frame):
    """The same table and models without ``individual:`` count records exactly as before."""
    models = [
        {"model": "k-anonymity", "k": 2},
        {"model": "l-diversity", "variant": "entropy", "l": 1.5},
        {"model": "t-closeness", "t": 0.3},
        {"model": "beta-likeness", "beta": 1.0},
    ]
    report = privcheck.check(frame, policy(*models, individual=None))
    assert report.n_individuals is None
    sizes = frame.groupby(["a", "b"]).size()
    assert value_of(report, "k-anonymity") == sizes.min()
    # the people oracle with every row its own person is the records oracle
    rows = frame.assign(pid=np.arange(len(frame)).astype(str))
    assert value_of(report, "t-closeness") == pytest.approx(
        t_closeness_equal(rows, ["a", "b"], "pid", "s"), abs=1e-12
    )
    as_people = privcheck.check(rows, policy(*models))
    for a, b in zip(report.models, as_people.models, strict=True):
        assert a.value == pytest.approx(b.value, abs=1e-12)
        assert a.passed == b.passed


def test_same_table_passes_in_rows_and_fails_in_people():
    """Five visits of one person make a class of five records and one person."""
    frame = pd.DataFrame(
        {
            "pid": ["p1"] * 5 + ["p2", "p3", "p4", "p5", "p6"],
            "a": ["x"] * 5 + ["y"] * 5,
            "b": ["0"] * 10,
            "s": ["u", "v", "u", "v", "u", "u", "v", "u", "v", "u"],
        }
    )
    k5 = {"model": "k-anonymity", "k": 5}
    rows = privcheck.check(frame, policy(k5, individual=None))
    people = privcheck.check(frame, policy(k5))
    assert rows.passed and value_of(rows, "k-anonymity") == 5
    assert not people.models[0].passed and value_of(people, "k-anonymity") == 1
    assert people.models[0].violating_classes == 1
    assert people.models[0].violators[0].values == {"a": "x", "b": "0"}


def test_individual_must_not_have_another_role():
    bad = policy({"model": "k-anonymity", "k": 2})
    bad["attributes"]["pid"] = {"role": "quasi_identifier"}
    with pytest.raises(PolicyError, match="individual column and cannot also be a"):
        privcheck.check(random_table(0, 5, 20, 2), bad)
    ok = policy({"model": "k-anonymity", "k": 2})
    ok["attributes"]["pid"] = {"role": "identifier"}  # it is one: allowed
    assert privcheck.check(random_table(0, 5, 20, 2), ok).n_individuals == 5


def test_individual_refusals_are_one_line():
    frame = random_table(1, 5, 30, 2)
    wild = policy({"model": "k-anonymity", "k": 2})
    wild["suppressed_cells"] = "wildcard"
    with pytest.raises(PolicyError, match="wildcard cannot count people"):
        privcheck.check(frame, wild)
    lonely = policy({"model": "k-anonymity", "k": 2}, individual=None)
    lonely["pseudonymize_individual"] = True
    with pytest.raises(PolicyError, match="pseudonymize_individual needs 'individual"):
        privcheck.check(frame, lonely)


def test_missing_person_is_an_input_error():
    frame = random_table(2, 5, 30, 2)
    frame.loc[3, "pid"] = None
    with pytest.raises(privcheck.DataError, match="every record must name its person"):
        privcheck.check(frame, policy({"model": "k-anonymity", "k": 2}))


def test_population_uniqueness_needs_each_person_in_one_class():
    """The estimators read a sample partitioned into classes: refused when someone has records
    in two classes, fine when the quasi-identifiers are constant per person."""
    varying = pd.DataFrame({"pid": ["1", "1", "2"], "a": ["x", "y", "x"], "b": ["0"] * 3})
    constant = pd.DataFrame({"pid": ["1", "1", "2"], "a": ["x", "x", "y"], "b": ["0"] * 3})
    pol = {
        "individual": "pid",
        "attributes": {"a": {"role": "quasi_identifier"}, "b": {"role": "quasi_identifier"}},
        "models": [{"model": "population-uniqueness", "threshold": 1.0, "estimator": "dankar"}],
        "population": {"size": 1000},
    }
    with pytest.raises(PolicyError, match="population-uniqueness cannot count people"):
        privcheck.check(varying, pol)
    report = privcheck.check(constant, pol)
    assert report.n_individuals == 2


def test_release_series_refuses_people(tmp_path):
    earlier = tmp_path / "earlier.csv"
    pd.DataFrame({"a": ["x", "y"], "b": ["0", "0"], "s": ["u", "v"]}).to_csv(earlier, index=False)
    pol = policy({"model": "k-anonymity-across-releases", "k": 2, "previous": [str(earlier)]})
    with pytest.raises(PolicyError, match="across-releases cannot count people"):
        privcheck.check(random_table(3, 5, 20, 2), pol)
