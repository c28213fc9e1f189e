"""The draft finds the person behind the rows: ``individual:`` on a visit-level table, names
judged per person, and no person key drafted where there is none."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import yaml

import privcheck
from privcheck.profiling.draft import draft_policy, write_draft
from tests.conftest import ADULT
from tests.people_helpers import QIS, people_figures, visits


@pytest.fixture(scope="module")
def visit_table() -> pd.DataFrame:
    return visits(3000, seed=5)


def test_drafts_the_individual_on_a_visit_level_table(visit_table):
    policy, profile = draft_policy(visit_table)
    assert policy.individual == "patient_id"
    assert "patient_id" not in policy.attributes  # counted, never an attribute
    assert profile.individual == "patient_id"
    assert profile.column("patient_id").role == "identifier"
    assert "name" in profile.individual_reason and "sex" in profile.individual_reason
    assert policy.attributes["name"].role.value == "identifier"
    assert any("identifies the person" in note for note in profile.notes)
    # the closing check counts people
    assert profile.check is not None and not profile.check["passed"]


def test_names_repeated_over_visits_are_identifiers_per_person(visit_table):
    """Under names that say nothing, the key is still found and the name column — distinct in
    a fifth of the rows, one value per person — is an identifier once counted per person."""
    renamed = visit_table.rename(
        columns={"patient_id": "ref", "name": "x1", "sex": "g", "birth_year": "col_b"}
    )
    policy, profile = draft_policy(renamed)
    assert policy.individual == "ref"
    x1 = profile.column("x1")
    assert x1.role == "identifier", x1.reason
    assert "counted per person of 'ref'" in x1.reason
    assert policy.attributes["x1"].role.value == "identifier"


def test_no_individual_on_a_person_level_table():
    adult = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str)
    policy, profile = draft_policy(adult)
    assert policy.individual is None and profile.individual is None


def test_a_group_key_is_not_a_person():
    """A household key repeats like a person's, but its members' birth years and sexes differ:
    no individual."""
    rng = np.random.default_rng(3)
    n_households = 2000
    size = rng.integers(1, 6, n_households)
    hh = np.repeat(np.arange(n_households), size)
    n = len(hh)
    frame = pd.DataFrame(
        {
            "household_id": [f"H{h:05d}" for h in hh],
            "sex": rng.choice(["F", "M"], n),
            "birth_year": rng.integers(1930, 2010, n).astype(str),
            "zip": rng.choice([f"{z:05d}" for z in range(10000, 10040)], n_households)[hh],
            "income": rng.integers(10, 200, n).astype(str),
        }
    )
    policy, _ = draft_policy(frame)
    assert policy.individual is None


def test_the_draft_runs_and_its_release_holds_k_people(tmp_path, visit_table):
    """init → anonymize: the drafted policy as it is (with pseudonyms asked for, so that the
    release can be counted independently) releases classes of at least k people."""
    policy, profile = draft_policy(visit_table)
    write_draft(profile, tmp_path / "policy.yaml")
    text = (tmp_path / "policy.yaml").read_text()
    line = next(x for x in text.splitlines() if x.startswith("individual:"))
    assert line.startswith("individual: patient_id  # ")
    data = yaml.safe_load(text)
    for attr in data["attributes"].values():  # the open decisions, made as drafted
        attr.pop("review", None)
    data["pseudonymize_individual"] = True
    release, report = privcheck.anonymize(
        visit_table, privcheck.policy.parse_policy(data, base_dir=tmp_path), seed=0
    )
    qis = [q for q in QIS if q in policy.quasi_identifiers]
    figures = people_figures(release, qis, "patient_id", profile.k)
    assert figures["below_k"] == 0
    assert report.check.passed and report.n_individuals == 3000
    assert "name" not in release.columns
