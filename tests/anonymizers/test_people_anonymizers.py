"""Anonymizers counting people (``individual:``), held against an independent count.

Each release is made with ``pseudonymize_individual: true``, so that the people of every class
can be counted from the release alone by a pandas ``nunique`` (``tests/people_helpers.py``) —
none of privcheck's code. On a visit-level table (person attributes constant, visit attributes
varying) and on Adult with a synthetic person key grouping its rows, every class of every
release holds at least k distinct people; suppression takes a person's records together; the
individual column never appears in clear and no direct identifier is released.
"""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import privcheck
from privcheck.errors import PolicyError
from tests.people_helpers import QIS, VISIT_POLICY, people_figures, visits

ALGORITHMS = ["mingen", "incognito", "datafly", "mondrian", "local-suppression", "auto"]
ADULT_DIR = Path(__file__).resolve().parents[2] / "privcheck" / "data" / "adult"


@pytest.fixture(scope="module")
def visit_table() -> pd.DataFrame:
    return visits(5000, seed=7)


def visit_policy(**changes) -> dict:
    out = copy.deepcopy(VISIT_POLICY)
    out["pseudonymize_individual"] = True
    out.update(changes)
    return out


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_every_class_holds_k_people_on_visits(visit_table, algorithm):
    policy = visit_policy(models=[{"model": "k-anonymity", "k": 5}])
    release, report = privcheck.anonymize(visit_table, policy, algorithm, seed=1)
    figures = people_figures(release, QIS, "patient_id", 5)
    assert figures["smallest"] >= 5, figures
    assert figures["below_k"] == 0
    # the report's people agree with the independent count
    assert report.n_individuals == visit_table["patient_id"].nunique() == 5000
    assert report.check.n_individuals == figures["people"]
    assert report.n_suppressed_individuals == 5000 - figures["people"]
    assert report.n_suppressed == len(visit_table) - len(release)
    assert report.check.passed
    assert "name" not in release.columns  # a direct identifier is never released
    # counted in rows the release looks safer than it is: the smallest class has more rows
    rows = release.groupby(QIS, dropna=False).size()
    assert rows.min() >= figures["smallest"]


@pytest.mark.parametrize(
    ("algorithm", "k"), [("mingen", 20), ("datafly", 10), ("local-suppression", 10)]
)
def test_a_person_is_suppressed_with_all_their_records(algorithm, k):
    """Under ``suppressed_records: star`` with the input order kept, the release lines up with
    the input: a suppressed person has every record starred, a kept one none (k chosen so that
    each algorithm suppresses someone on this table)."""
    visit_table = visits(1500, seed=2)
    policy = visit_policy(
        models=[{"model": "k-anonymity", "k": k}],
        suppressed_records="star",
        suppression_limit=0.3,
        pseudonymize_individual=False,
    )
    release, report = privcheck.anonymize(visit_table, policy, algorithm, seed=2, keep_order=True)
    assert "patient_id" not in release.columns and "name" not in release.columns
    starred = (release[QIS] == "*").all(axis=1).to_numpy()
    assert starred.any(), "the test needs some suppression"
    per_person = pd.Series(starred).groupby(visit_table["patient_id"].to_numpy())
    assert (per_person.all() | ~per_person.any()).all()  # all of a person's records, or none
    kept = visit_table[~starred].assign(**{q: release.loc[~starred, q] for q in QIS})
    assert people_figures(kept, QIS, "patient_id", k)["below_k"] == 0
    assert report.n_suppressed == int(starred.sum())
    assert report.n_suppressed_individuals == visit_table.loc[starred, "patient_id"].nunique()


def test_l_diversity_counts_people(visit_table):
    """Distinct l-diversity by people: each class's values are held by its people."""
    policy = visit_policy(
        models=[
            {"model": "k-anonymity", "k": 5},
            {"model": "l-diversity", "variant": "distinct", "l": 3, "attribute": "diagnosis"},
        ]
    )
    release, report = privcheck.anonymize(visit_table, policy, "mingen", seed=4)
    distinct = release.groupby(QIS)["diagnosis"].nunique()
    assert distinct.min() >= 3
    assert people_figures(release, QIS, "patient_id", 5)["below_k"] == 0
    assert report.check.passed


def test_adult_with_a_synthetic_person_key():
    """Adult's rows grouped into people (1–5 rows each, no attribute constant): every class of
    the release holds five people, counted independently."""
    adult = pd.read_csv(ADULT_DIR / "adult.csv", sep=";", dtype=str).head(6000)
    rng = np.random.default_rng(0)
    adult["pid"] = rng.integers(0, 2400, len(adult)).astype(str)
    policy = privcheck.load_policy(ADULT_DIR / "policy.yaml").model_dump(mode="json")
    for attr in policy["attributes"].values():
        hierarchy = attr.get("hierarchy")
        if hierarchy and hierarchy.get("path"):
            hierarchy["path"] = str(ADULT_DIR / hierarchy["path"])
    policy.update(
        individual="pid",
        pseudonymize_individual=True,
        models=[{"model": "k-anonymity", "k": 5}],
        suppression_limit=0.05,
    )
    qis = [n for n, a in policy["attributes"].items() if a["role"] == "quasi_identifier"]
    for algorithm in ("datafly", "mondrian", "mingen"):
        release, report = privcheck.anonymize(adult, policy, algorithm, seed=5)
        figures = people_figures(release, qis, "pid", 5)
        assert figures["below_k"] == 0 and figures["smallest"] >= 5, (algorithm, figures)
        assert report.check.n_individuals == figures["people"]


def test_rows_pass_people_fail(visit_table):
    """A release made counting rows passes k = 5 in rows and fails it in people."""
    by_rows = copy.deepcopy(VISIT_POLICY)
    del by_rows["individual"]
    by_rows["attributes"]["patient_id"] = {"role": "insensitive"}  # (kept to count people)
    release, report = privcheck.anonymize(visit_table, by_rows, "mingen", seed=6)
    assert report.check.passed
    assert release.groupby(QIS).size().min() >= 5
    figures = people_figures(release, QIS, "patient_id", 5)
    assert figures["below_k"] > 0
    # the people-counting check of the same release says so
    as_people = copy.deepcopy(VISIT_POLICY)
    for attr in as_people["attributes"].values():
        if attr["role"] == "quasi_identifier":
            attr.pop("hierarchy", None)
    del as_people["attributes"]["name"]
    check = privcheck.check(release, {**as_people, "pseudonymize_individual": True})
    k = next(m for m in check.models if m.model == "k-anonymity")
    assert not k.passed and k.value == figures["smallest"]
    assert k.violating_classes == figures["below_k"]


def test_release_drops_the_individual_column(visit_table):
    release, report = privcheck.anonymize(visit_table, VISIT_POLICY, "datafly", seed=7)
    assert "patient_id" not in release.columns and "name" not in release.columns
    assert "patient_id" in report.removed_columns
    assert report.check.n_individuals is not None


def test_pseudonyms_are_keyed_and_fresh(visit_table):
    policy = visit_policy()
    a, _ = privcheck.anonymize(visit_table, policy, "datafly", seed=8, keep_order=True)
    b, _ = privcheck.anonymize(visit_table, policy, "datafly", seed=8, keep_order=True)
    assert a["patient_id"].nunique() == visit_table["patient_id"].nunique()
    # one pseudonym per person, and not the identifier itself
    pairs = pd.DataFrame({"p": visit_table["patient_id"], "q": a["patient_id"]}).drop_duplicates()
    assert len(pairs) == visit_table["patient_id"].nunique()
    assert not set(a["patient_id"]) & set(visit_table["patient_id"])
    # a fresh key each release: the same person gets another pseudonym
    assert not set(a["patient_id"]) & set(b["patient_id"])


@pytest.mark.parametrize("algorithm", ["mdav", "safepub", "rank-swapping", "noise"])
def test_algorithms_that_cannot_count_people_refuse(visit_table, algorithm):
    with pytest.raises(PolicyError, match="cannot guarantee k distinct people per class"):
        privcheck.anonymize(visit_table.head(200), VISIT_POLICY, algorithm, seed=0)


def test_auto_excludes_what_cannot_count_people(visit_table):
    policy = visit_policy(models=[{"model": "k-anonymity", "k": 5}])
    _, report = privcheck.anonymize(visit_table, policy, "auto", seed=9)
    rows = {r["algorithm"]: r for r in report.candidates}
    assert rows["mingen"]["passed"] and rows["mondrian"]["passed"]
    assert report.check.passed and report.n_individuals == 5000


def test_relaxed_mondrian_refuses_people(visit_table):
    with pytest.raises(PolicyError, match="relaxed=true divides a class's records"):
        privcheck.anonymize(visit_table, VISIT_POLICY, "mondrian", relaxed=True)


def test_apply_counts_people(visit_table):
    policy = visit_policy(models=[{"model": "k-anonymity", "k": 5}])
    _, report = privcheck.anonymize(visit_table, policy, "mingen", seed=10)
    batch = visits(4000, seed=11)
    release, check = privcheck.apply(batch, report, policy, seed=1)
    assert release is not None and check.passed
    assert people_figures(release, QIS, "patient_id", 5)["below_k"] == 0
    assert check.n_individuals == release["patient_id"].nunique()


def test_check_of_a_release_without_the_individual_column_counts_records_and_says_so(
    visit_table,
):
    """A release drops the person key, so its check counts records: every class of a
    privcheck release holds >= k people, hence >= k records, so the release passes its own
    policy (every exit-0 release re-checks) — and the report says people were not counted."""
    release, report = privcheck.anonymize(visit_table, VISIT_POLICY, "datafly", seed=12)
    assert "patient_id" not in release.columns
    check = privcheck.check(release, VISIT_POLICY)
    assert check.passed and check.n_individuals is None
    assert any("the policy's individual, is not in the data" in n for n in check.notes)
    assert report.check.n_individuals is not None  # (the anonymizer's re-check counted them)


@pytest.mark.parametrize("algorithm", ["mingen", "datafly", "mondrian"])
def test_table_dependent_models_hold_in_people(visit_table, algorithm):
    """t-closeness and entropy l-diversity counted in people hold on the release, as the
    brute force measures them (suppressing people changes the table's distribution: the
    search iterates to the fixed point)."""
    from tests.people_helpers import l_diversity, t_closeness_equal

    policy = visit_policy(
        models=[
            {"model": "k-anonymity", "k": 5},
            {"model": "t-closeness", "t": 0.15, "attribute": "diagnosis"},
            {"model": "l-diversity", "variant": "entropy", "l": 3, "attribute": "diagnosis"},
        ],
        suppression_limit=0.2,
    )
    release, report = privcheck.anonymize(visit_table, policy, algorithm, seed=13)
    assert report.check.passed
    assert t_closeness_equal(release, QIS, "patient_id", "diagnosis") <= 0.15 + 1e-12
    assert l_diversity(release, QIS, "patient_id", "diagnosis", "entropy") >= 3 - 1e-9
    assert people_figures(release, QIS, "patient_id", 5)["below_k"] == 0
