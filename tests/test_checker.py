"""The release-integrity findings of ``check``: identifier columns (absent is a release, present
fails) and '*' rows counted as suppressed records against the limit; worked examples whose
figures are counted by hand, and the CLI run on the issue's own scenario."""

from __future__ import annotations

import json
import os

import pandas as pd
import polars as pl
import pytest
import yaml

import privcheck
from privcheck.api import evaluate
from privcheck.hook import summary_line
from privcheck.html_report import render_html
from privcheck.pipeline.anonymize import anonymize
from privcheck.text_report import render_text
from tests.conftest import ROOT, run_cli

ENV = {"PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}

ZIP_ROWS = [
    ["02138", "021**", "*"],
    ["02139", "021**", "*"],
    ["02141", "021**", "*"],
    ["09999", "099**", "*"],
]


def policy(**extra) -> dict:
    return {
        "attributes": {
            "name": {"role": "identifier"},
            "zip": {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": ZIP_ROWS}},
            "disease": {"role": "sensitive"},
        },
        "models": [{"model": "k-anonymity", "k": 2}],
        **extra,
    }


def release(zips: list[str]) -> pd.DataFrame:
    return pd.DataFrame({"zip": zips, "disease": ["flu", "cold"] * (len(zips) // 2)})


# ------------------------------------------------------------------------------ identifiers


def test_an_absent_identifier_is_what_a_release_looks_like():
    report = privcheck.check(release(["02138", "02138", "02139", "02139"]), policy())
    assert report.passed and report.identifiers_present == []
    assert json.loads(report.to_json())["identifiers_present"] == []


def test_a_present_identifier_fails_in_every_rendering():
    frame = release(["02138", "02138", "02139", "02139"]).assign(name=list("abcd"))
    report = privcheck.check(frame, policy())
    assert all(m.passed for m in report.models)  # the models hold; the identifier does not
    assert not report.passed and report.identifiers_present == ["name"]
    sentence = "identifier column(s) present: name — a release must not carry them"
    assert sentence in render_text(report)
    assert sentence in render_html(report)
    assert sentence.capitalize()[:20] in summary_line(report)
    verdict = evaluate(frame, policy())
    assert not verdict.passed and verdict.identifiers_present == ["name"]


def test_an_engine_frame_reports_its_identifier_columns_too():
    frame = pl.DataFrame({"zip": ["02138", "02138"], "disease": ["a", "b"], "name": ["x", "y"]})
    report = privcheck.check(frame, policy())
    assert not report.passed and report.identifiers_present == ["name"]
    assert privcheck.check(frame.drop("name"), policy()).passed


def test_cli_release_of_an_identifier_policy_checks_with_that_policy(tmp_path):
    """The issue's case: anonymize drops 'name'; check with the same file exits 0 on the
    release and 1 on the raw data, which still holds it."""
    raw = release(["02138", "02139", "02141"] * 2).assign(name=list("abcdef"))
    data, pol, out = tmp_path / "raw.csv", tmp_path / "policy.yaml", tmp_path / "release.csv"
    raw.to_csv(data, index=False)
    pol.write_text(yaml.safe_dump(policy()))
    made = run_cli("anonymize", data, "-p", pol, "-o", out, env=ENV)
    assert made.returncode == 0, made.stderr
    assert "name" not in pd.read_csv(out).columns
    ok = run_cli("check", out, "-p", pol, "--format", "json", env=ENV)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert json.loads(ok.stdout)["identifiers_present"] == []
    bad = run_cli("check", data, "-p", pol, env=ENV)
    assert bad.returncode == 1
    assert "identifier column(s) present: name — a release must not carry them" in bad.stdout


# ------------------------------------------------------------------------------ suppression


def test_star_rows_are_suppressed_records_within_the_limit():
    """14 kept rows in classes of 2 + one '*' row; limit 10 % of 15 rows = 1 record."""
    zips = ["02138", "02139"] * 7 + ["*"]
    frame = pd.DataFrame({"zip": zips, "disease": ["flu"] * 15})
    star = policy(suppressed_records="star", suppression_limit=0.1)
    report = privcheck.check(frame, star)
    assert report.passed and report.n_suppressed == 1 and report.n_records == 14
    assert report.suppression_limit_records == 1 and report.suppression_ok
    assert report.models[0].value == 7  # the '*' row is no class of size 1
    # under 'remove' a '*' row is an ordinary (generalized) value: a class of one
    assert not privcheck.check(frame, policy(suppression_limit=0.1)).passed


def test_more_star_rows_than_the_limit_fail():
    zips = ["02138", "02139"] * 7 + ["*", "*"]
    frame = pd.DataFrame({"zip": zips, "disease": ["flu"] * 16})
    report = privcheck.check(frame, policy(suppressed_records="star", suppression_limit=0.1))
    assert report.n_suppressed == 2 and report.suppression_limit_records == 1
    assert not report.suppression_ok and not report.passed and report.models[0].passed
    assert "2 suppressed records ('*' rows) exceed the suppression limit of 1" in render_text(
        report
    )


def test_a_table_of_star_rows_is_the_fully_generalized_class():
    frame = pd.DataFrame({"zip": ["*"] * 4, "disease": ["flu", "cold"] * 2})
    report = privcheck.check(frame, policy(suppressed_records="star"))
    assert report.passed and report.n_suppressed == 0 and report.n_classes == 1


def test_violators_name_rows_of_the_file_star_rows_included():
    frame = pd.DataFrame({"zip": ["*", "02138", "02138", "*", "02139"], "disease": ["a"] * 5})
    report = privcheck.check(frame, policy(suppressed_records="star", suppression_limit=0.4))
    (k,) = report.models
    assert report.n_suppressed == 2 and k.violators[0].records == [4]  # '02139' is file row 4


@pytest.mark.parametrize("mode", ["remove", "star"])
def test_anonymized_release_with_outliers_and_missing_values_rechecks(tmp_path, mode):
    """An outlier suppressed (removed or starred) and missing ZIPs as their own class: the
    written file passes check with the policy file that made it."""
    zips = ["02138", "02139", "02141", None, None, "02138", "02139", "09999"]
    raw = pd.DataFrame({"zip": zips, "disease": ["flu", "cold"] * 4, "name": list("abcdefgh")})
    spec = policy(suppressed_records=mode, suppression_limit=0.2, missing="own_class")
    pol = tmp_path / "policy.yaml"
    pol.write_text(yaml.safe_dump(spec))
    out, report = anonymize(raw, pol, "mingen")
    assert report.n_suppressed == 1 and report.node == {"zip": 1}
    out.to_csv(tmp_path / "release.csv", index=False)
    written = pd.read_csv(tmp_path / "release.csv", dtype=str, keep_default_na=False)
    assert "<missing>" in set(written["zip"])
    checked = privcheck.check(tmp_path / "release.csv", pol)
    assert checked.passed, checked.to_json()
    assert checked.n_suppressed == (1 if mode == "star" else 0)


# --------------------------------------------------------------------------- people (individual)


def _visits_policy(individual: bool) -> dict:
    from tests.people_helpers import VISIT_POLICY

    out = json.loads(json.dumps(VISIT_POLICY))
    out["attributes"]["patient_id"] = {"role": "identifier"}
    if not individual:
        del out["individual"]
    return out


def test_repeated_people_without_individual_is_one_note(tmp_path):
    """A person key repeating over records while the policy counts records: one note (report,
    text line, stderr for JSON), not a failure of its own; none once ``individual`` is set."""
    from tests.people_helpers import visits

    frame = visits(300, seed=1)
    report = privcheck.check(frame, _visits_policy(individual=False))
    assert report.n_individuals is None
    assert len(report.notes) == 1
    note = report.notes[0]
    assert "'patient_id' repeats" in note and "individual: patient_id" in note
    assert "note: " + note in render_text(report)
    counted = privcheck.check(frame, _visits_policy(individual=True))
    assert counted.notes == [] and counted.n_individuals == 300
    # a person key the policy does not name is found by its name
    unnamed = _visits_policy(individual=False)
    del unnamed["attributes"]["patient_id"]
    assert privcheck.check(frame, unnamed).notes == [note]
    # a table of one record per person has nothing to say
    once = frame.drop_duplicates("patient_id")
    assert privcheck.check(once, _visits_policy(individual=False)).notes == []
    data, pol = tmp_path / "visits.csv", tmp_path / "policy.yaml"
    frame.to_csv(data, index=False)
    pol.write_text(yaml.safe_dump(_visits_policy(individual=False)))
    res = run_cli("check", data, "-p", pol, "--format", "json", env=ENV)
    assert res.returncode == 1
    assert json.loads(res.stdout)["notes"] == [note]
    assert res.stderr.count("note: ") == 1 and "individual: patient_id" in res.stderr
    text = run_cli("check", data, "-p", pol, env=ENV)
    assert text.stdout.count("note: ") == 1 and "note:" not in text.stderr


def test_records_of_people_in_every_report(tmp_path):
    """JSON: ``n_individuals`` beside ``n_records`` (null without ``individual``); text and
    HTML: "N records of M people"."""
    from tests.people_helpers import visits

    frame = visits(200, seed=2)
    report = privcheck.check(frame, _visits_policy(individual=True))
    data = json.loads(report.to_json())
    assert data["n_records"] == len(frame) and data["n_individuals"] == 200
    assert data["individual"] == "patient_id"
    assert f"{len(frame)} records of 200 people" in render_text(report)
    assert f"{len(frame):,} records of 200 people" in render_html(report)
    plain = json.loads(privcheck.check(frame, _visits_policy(individual=False)).to_json())
    assert "n_individuals" in plain and plain["n_individuals"] is None
    verdict = evaluate(frame, _visits_policy(individual=True), name="visits")
    assert verdict.n_individuals == 200


@pytest.mark.parametrize("engine", ["polars", "polars-lazy"])
def test_engines_count_people(engine):
    """The engine's group-by keeps the person: the same people per class as pandas."""
    from tests.people_helpers import visits

    frame = visits(400, seed=3)
    pol = _visits_policy(individual=True)
    pol["models"] = [
        {"model": "k-anonymity", "k": 2},
        {"model": "l-diversity", "variant": "entropy", "l": 1.5, "attribute": "diagnosis"},
    ]
    for attr in pol["attributes"].values():
        attr.pop("hierarchy", None)
    expected = privcheck.check(frame, pol)
    native = pl.from_pandas(frame)
    got = privcheck.check(native.lazy() if engine == "polars-lazy" else native, pol)
    assert got.n_individuals == expected.n_individuals == 400
    for a, b in zip(got.models, expected.models, strict=True):
        assert a.value == pytest.approx(b.value) and a.violating_classes == b.violating_classes
