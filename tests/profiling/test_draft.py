"""``draft_policy`` end to end: roles on made-up extracts (no direct identifier missed), drafts
that ``check`` and ``anonymize`` accept as they are (made-up tables, Adult, the CASC files),
the closing figures against an independent count, tags, files written."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pandas as pd
import pytest

import privcheck
from privcheck.errors import DataError, PolicyError
from privcheck.io import read_table
from privcheck.profiling.draft import draft_policy, write_draft
from tests.conftest import ADULT, DATA
from tests.profiling.tables import EXPECTED, TABLES

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "schemas" / "policy.schema.json").read_text())


@pytest.fixture(scope="module")
def drafts():
    out = {}
    for name, make in TABLES.items():
        frame = make()
        out[name] = (frame, *draft_policy(frame))
    return out


@pytest.mark.parametrize("name", list(TABLES))
def test_every_direct_identifier_is_flagged(drafts, name):
    _, _, profile = drafts[name]
    roles = {c.name: c.role for c in profile.columns}
    missed = [c for c, want in EXPECTED[name].items() if want == "identifier" and roles[c] != want]
    assert not missed, {c: profile.column(c).reason for c in missed}


@pytest.mark.parametrize("name", list(TABLES))
def test_roles_and_reviews(drafts, name):
    """Quasi-identifiers and sensitive attributes as expected; what the profile cannot know is
    marked for review (never decided silently); every reason is said."""
    _, _, profile = drafts[name]
    for column, want in EXPECTED[name].items():
        got = profile.column(column)
        assert got.reason
        if want is None:
            assert got.review, (column, got.reason)
        else:
            assert got.role == want, (column, got.reason)


def decided(policy: privcheck.Policy) -> privcheck.Policy:
    """The draft with every open decision made as drafted (each review entry deleted): what a
    person who accepts the draft's roles runs. A draft itself is refused by every gate."""
    for column in policy.open_reviews:
        policy = policy.decide(column)
    assert not policy.is_draft
    return policy


def _unique_records(frame: pd.DataFrame, qis: list[str]) -> int:
    """Records alone on their quasi-identifier values (missing and blank values one value of
    their own): the independent count, by pandas."""
    if not qis:
        return 0
    keys = frame[qis].astype(object)
    keys = keys.map(lambda v: "<missing>" if pd.isna(v) or not str(v).strip() else str(v))
    counts = keys.value_counts()
    return int((counts == 1).sum())


@pytest.mark.parametrize("name", list(TABLES))
def test_draft_checks_and_anonymizes_as_it_is(drafts, name):
    frame, policy, profile = drafts[name]
    assert policy.is_draft is any(c.review for c in profile.columns)
    policy = decided(policy)
    report = privcheck.check(frame, policy)
    assert profile.check["passed"] is report.passed
    assert profile.unique_records == _unique_records(frame, policy.quasi_identifiers)
    release, result = privcheck.anonymize(frame, policy, seed=0)
    assert result.check.passed
    again = privcheck.check(release, policy, allow_empty=True)
    assert again.passed and not again.identifiers_present


def _real_tables():
    adult = read_table(ADULT / "adult.csv")
    casc = {p.stem: read_table(p) for p in sorted((DATA / "casc").glob("*.csv"))}
    return {"adult": adult, **casc}


@pytest.mark.parametrize("name", ["adult", "census", "eia", "tarragona"])
def test_real_tables(name):
    frame = _real_tables()[name]
    policy, profile = draft_policy(frame)
    policy = decided(policy)
    report = privcheck.check(frame, policy)
    assert profile.check["passed"] is report.passed
    release, _result = privcheck.anonymize(frame, policy, seed=0)
    assert privcheck.check(release, policy, allow_empty=True).passed
    if name == "adult":  # the usual setup of the literature (data README): 8 QIs, salary
        assert policy.quasi_identifiers == [
            "sex", "age", "race", "marital-status", "education", "native-country", "workclass",
            "occupation",
        ]  # fmt: skip
        assert policy.sensitive_attributes == ["salary-class"]
        assert profile.unique_records == 14_021  # as the data README counts them
    if name == "eia":
        assert profile.column("STATE").role == "quasi_identifier"
        assert profile.column("YEAR").role == "insensitive"  # one value in every row


def test_tags_win_and_a_contradiction_is_flagged(drafts):
    frame, _, _ = drafts["patients"]
    tags = {
        "contact": ["PII:Insensitive"],
        "ward": ["urn:li:tag:PII:Quasi-Identifier", "Tier.Gold"],
        "dob": ["pii:quasi-identifier"],
        "notes": ["Some.Other.Tag"],
    }
    _policy, profile = draft_policy(frame, tags=tags)
    contact = profile.column("contact")
    assert contact.role == "insensitive" and contact.review
    assert "tagged insensitive" in contact.reason and "e-mail addresses" in contact.reason
    ward = profile.column("ward")
    assert ward.role == "quasi_identifier" and ward.hierarchy["type"] == "table"
    assert not profile.column("dob").review
    assert profile.column("notes").role == "identifier"  # no role tag: the profile decides
    # a tagged column the extract does not have: a warning, not a stop (issue 29)
    _policy, absent = draft_policy(frame, tags={"nope": ["PII:Identifier"], "sex": []})
    assert absent.warnings == [n for n in absent.notes if "does not have" in n]
    assert "1 column(s) the data does not have, ignored: 'nope'" in absent.warnings[0]
    with pytest.raises(PolicyError, match="several roles"):
        draft_policy(frame, tags={"sex": ["PII:Identifier", "PII:Sensitive"]})


def test_models_missing_and_parameters():
    frame = pd.DataFrame(
        {
            "age": [20, 30, 40, None, 50, 60] * 5,
            "diagnosis": ["flu"] * 30,  # one value: no l-diversity possible
            "income": [str(i) for i in range(30)],
        }
    )
    policy, profile = draft_policy(frame, k=3, l=2, suppression=0.1)
    models = [(m.model, getattr(m, "attribute", None)) for m in policy.models]
    assert models == [("k-anonymity", None), ("l-diversity", "income")]
    assert policy.missing == "own_class" and policy.suppression_limit == 0.1
    assert profile.column("diagnosis").review
    with pytest.raises(PolicyError, match="more than the 30 records"):
        draft_policy(frame, k=31)  # asked for: refused
    small_policy, small = draft_policy(frame.head(3))  # the default k: lowered, and said
    assert small_policy.models[0].k == 3 and "k lowered from 5 to 3" in small.notes[0]
    with pytest.raises(DataError, match="no records"):
        draft_policy(frame.head(0))


def test_codes_keep_their_leading_zeros(drafts, tmp_path):
    frame = drafts["patients"][0]
    path = tmp_path / "p.csv"
    frame.to_csv(path, index=False)
    policy, profile = draft_policy(path)
    assert profile.column("zip").type == "text"
    release, _ = privcheck.anonymize(path, decided(policy), seed=0)
    values = set(release["zip"].dropna())
    assert all(len(v) == 5 for v in values if v not in ("<missing>", "*")), values


def test_files_validate_and_check_from_disk(drafts, tmp_path):
    frame = drafts["hr"][0]
    data = tmp_path / "hr.csv"
    frame.to_csv(data, index=False)
    _, profile = draft_policy(data)
    written = write_draft(profile, tmp_path / "policy.yaml", inputs=[data])
    assert written[-1] == tmp_path / "policy.yaml"
    assert all(p.parent == tmp_path / "hierarchies" for p in written[:-1]) and written[:-1]
    import yaml

    jsonschema.validate(yaml.safe_load((tmp_path / "policy.yaml").read_text()), SCHEMA)
    loaded = privcheck.load_policy(tmp_path / "policy.yaml")
    assert loaded.open_reviews.keys() == {c.name for c in profile.columns if c.review}
    assert privcheck.check(data, loaded, allow_draft=True).n_records == len(frame)
    with pytest.raises(DataError, match="exists"):
        write_draft(profile, tmp_path / "policy.yaml", inputs=[data])
    with pytest.raises(DataError, match="is the input"):
        write_draft(profile, data, inputs=[data], force=True)


def test_same_table_same_draft(drafts):
    frame = drafts["customers"][0]
    a, b = draft_policy(frame).profile, draft_policy(frame).profile
    assert [c.to_dict() for c in a.columns] == [c.to_dict() for c in b.columns]


def test_csv_and_parquet_draft_alike(drafts, tmp_path):
    frame = drafts["customers"][0]
    frame.to_csv(tmp_path / "c.csv", index=False)
    frame.to_parquet(tmp_path / "c.parquet", index=False)
    csv = draft_policy(tmp_path / "c.csv").profile
    parquet = draft_policy(tmp_path / "c.parquet").profile
    assert [c.role for c in csv.columns] == [c.role for c in parquet.columns]
    assert [c.distinct for c in csv.columns] == [c.distinct for c in parquet.columns]


def _ages(n: int = 600, seed: int = 0) -> pd.DataFrame:
    import numpy as np

    rng = np.random.default_rng(seed)
    born = pd.to_datetime(rng.integers(-12_000, 12_000, n), unit="D")
    return pd.DataFrame(
        {
            "sex": rng.choice(["F", "M"], n),
            "date_of_birth": born.strftime("%Y-%m-%d"),
            "age": 2025 - born.year,
            "birth_year": born.year,
            "zip": rng.choice(["02139", "02140", "10115", "00501"], n),
        }
    )


@pytest.mark.parametrize(
    ("columns", "kept"),
    [
        (["date_of_birth", "age", "birth_year"], "age"),
        (["date_of_birth", "birth_year"], "birth_year"),
        (["date_of_birth"], "date_of_birth"),
    ],
)
def test_one_age_like_quasi_identifier(columns, kept):
    """Of age, year and date of birth one is drafted (an age or a birth year over a full date:
    the least loss for the same protection); the others are left out, marked for review."""
    frame = _ages()[["sex", "zip", *columns]]
    policy, profile = draft_policy(frame, preview_rows=0)
    age_like = [c for c in policy.quasi_identifiers if c in columns]
    assert age_like == [kept]
    for other in set(columns) - {kept}:
        column = profile.column(other)
        assert column.role == "identifier" and column.review
        assert column.reason.startswith("review:") and repr(kept) in column.reason
    if len(columns) > 1:
        assert "the one age-like quasi-identifier" in profile.column(kept).reason
    release, _ = privcheck.anonymize(frame, decided(policy), seed=0)
    assert not set(columns) - {kept} & set(release.columns)  # not released silently


def test_a_catalog_choice_of_age_like_stands():
    frame = _ages()[["sex", "zip", "date_of_birth", "age"]]
    tags = {"date_of_birth": ["PII:Quasi-Identifier"]}
    policy, profile = draft_policy(frame, tags=tags, preview_rows=0)
    assert "date_of_birth" in policy.quasi_identifiers
    assert profile.column("age").role == "identifier" and profile.column("age").review


def test_preview_is_the_auto_release_loss(drafts):
    """The preview is what ``anonymize`` (auto) reports for the table (a table this small is
    previewed whole), and each figure is the loss recomputed from the release itself: per
    record, the share of the hierarchy's other ground values its released value covers."""
    frame, policy, profile = drafts["patients"]
    preview = profile.preview
    assert preview.sample_rows == preview.rows == len(frame) and preview.error is None
    starred = decided(policy).model_copy(update={"suppressed_records": "star"})
    starred._base_dir = policy.base_dir
    release, report = privcheck.anonymize(frame, starred, "auto", seed=0, keep_order=True)
    assert report.chosen == preview.chosen
    assert preview.loss_by_attribute == pytest.approx(report.loss_by_attribute, abs=1e-12)
    per = report.loss_by_attribute
    assert preview.loss == pytest.approx(sum(per.values()) / len(per), abs=1e-12)
    assert preview.costliest_attribute == max(
        report.loss_by_attribute, key=report.loss_by_attribute.get
    )
    from privcheck.encoding import encode

    encoded = encode(frame, policy)
    for col in encoded.quasi_identifiers:
        levels = col.levels
        ground = [str(g) for g in levels.ground]
        covered: dict[str, set[str]] = {}
        for lv in range(levels.height + 1):
            for g, code in zip(ground, levels.maps[lv], strict=True):
                covered.setdefault(str(levels.labels[lv][code]), set()).add(g)
        cells = release[col.name].astype(str)
        share = [
            1.0 if v == "*" else (len(covered[v]) - 1) / max(len(ground) - 1, 1) for v in cells
        ]
        if report.chosen == "mingen":  # (Mondrian's ranges are covered by the recoding tests)
            assert sum(share) / len(share) == pytest.approx(preview.loss_by_attribute[col.name])
