"""Open decisions are data, and every gate refuses a draft (issue 29).

A draft drafted by ``privcheck init`` from a real table (the CASC EIA file: 8 columns left for
review) is refused by every command and call that runs a policy — exit 2 / ``PolicyError``, one
line naming all its open columns and what to do; ``--allow-draft`` (``allow_draft=True``) runs it
and the report and the Verdict say ``draft: true``; deleting the review entries makes it a policy
like any other (``draft: false``). The oracle for the open columns is the profile ``init``
printed: every column it marks for review, and no other, is named.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import privcheck
from privcheck.api import evaluate, remediate
from privcheck.errors import PolicyError
from privcheck.io import read_table
from privcheck.policy import load_policy, parse_policy
from privcheck.utility.compare import compare_releases
from tests.conftest import DATA
from tests.test_cli import assert_one_line_error

EIA = DATA / "casc" / "eia.csv"
CENSUS = DATA / "casc" / "census.csv"
#: a review entry as ``privcheck init`` writes it (a JSON-quoted YAML string)
REVIEW_ENTRY = re.compile(r', review: "(?:[^"\\]|\\.)*"')


def _init(cli, data: Path, folder: Path) -> tuple[Path, list[str]]:
    """``privcheck init`` as a user runs it: the policy and the columns its profile marks for
    review."""
    policy = folder / "policy.yaml"
    res = cli("-q", "init", data, "-o", policy, "-f", "json")
    assert res.returncode == 0, res.stderr
    review = [c["name"] for c in json.loads(res.stdout)["columns"] if c["review"]]
    return policy, review


@pytest.fixture(scope="module")
def eia_draft(tmp_path_factory):
    """The EIA draft, its open columns, a release of it (kept in order) and its report."""
    from tests.conftest import run_cli

    folder = tmp_path_factory.mktemp("eia")
    policy, review = _init(run_cli, EIA, folder)
    assert len(review) >= 2 and load_policy(policy).quasi_identifiers  # something to gate
    release, report = folder / "release.csv", folder / "report.json"
    res = run_cli(
        "anonymize", EIA, "-p", policy, "-o", release, "--report", report, "--keep-order",
        "--seed", "1", "--allow-draft", "--algorithm", "mingen",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    return policy, review, release, report


def _refused_line(res, review: list[str]) -> str:
    assert_one_line_error(res, "is a draft", "--allow-draft", "delete its 'review:' line")
    line = res.stderr.strip()
    assert f"{len(review)} column(s) still marked review ({', '.join(review)})" in line, line
    return line


def test_init_writes_a_review_entry_for_every_column_it_marks(eia_draft):
    policy, review, _, _ = eia_draft
    loaded = load_policy(policy)
    assert list(loaded.open_reviews) == review and loaded.is_draft
    text = policy.read_text()
    for name in review:  # what was seen and what to decide, on the attribute itself
        (line,) = [x for x in text.splitlines() if x.lstrip().startswith(f"{name}:")]
        assert ", review: " in line and "keep or change the role" in line, line
    assert len(REVIEW_ENTRY.findall(text)) == len(review)


def test_every_cli_gate_refuses_the_draft_in_one_line(cli, eia_draft, tmp_path):
    policy, review, release, report = eia_draft
    out = tmp_path / "out.csv"
    (tmp_path / "privcheck.toml").write_text(
        f'[[check]]\nfiles = ["*.csv"]\npolicy = "{policy.as_posix()}"\n'
    )
    data = tmp_path / "eia.csv"
    data.write_bytes(EIA.read_bytes())
    gates = {
        "check": ["check", EIA, "-p", policy],
        "check --explain": ["check", EIA, "-p", policy, "--explain"],
        "anonymize": ["anonymize", EIA, "-p", policy, "-o", out],
        "apply": ["apply", EIA, "-t", report, "-p", policy, "-o", out],
        "risk": ["risk", "--original", EIA, "--masked", release, "-p", policy,
                 "--attack", "uniqueness"],
        "compare": ["compare", EIA, release, "-p", policy],
    }  # fmt: skip
    for name, args in gates.items():
        _refused_line(cli(*args), review)
        assert not out.exists(), name
    hook = cli("hook", "--config", tmp_path / "privcheck.toml", data)
    assert hook.returncode == 2 and hook.stdout == "", hook.stdout
    (line,) = hook.stderr.strip().splitlines()  # said once for the policy, not per file
    assert f"({', '.join(review)})" in line and "--allow-draft" in line


def test_allow_draft_runs_and_every_report_says_draft(cli, eia_draft, tmp_path):
    policy, review, release, report = eia_draft
    note = f"DRAFT policy: {len(review)} open review items ({', '.join(review)})"
    res = cli("check", release, "-p", policy, "--allow-draft", "-f", "json")
    assert res.returncode == 0, res.stderr
    checked = json.loads(res.stdout)
    assert checked["draft"] is True and checked["open_reviews"] == review
    text = cli("check", release, "-p", policy, "--allow-draft")
    assert text.returncode == 0 and note in text.stdout
    html = tmp_path / "r.html"
    assert cli("check", release, "-p", policy, "--allow-draft", "-o", html).returncode == 0
    assert "DRAFT policy" in html.read_text() and "this verdict does not mean" in html.read_text()
    anonymization = json.loads(report.read_text())
    assert anonymization["draft"] is True and anonymization["check"]["draft"] is True
    assert anonymization["open_reviews"] == review
    applied = cli(
        "apply", EIA, "-t", report, "-p", policy, "-o", tmp_path / "next.csv", "--allow-draft",
        "-f", "json",
    )  # fmt: skip
    assert applied.returncode == 0, applied.stderr
    assert json.loads(applied.stdout)["draft"] is True
    risk = cli(
        "risk", "--original", EIA, "--masked", release, "-p", policy, "--attack", "uniqueness",
        "--allow-draft", "-f", "json",
    )  # fmt: skip
    assert risk.returncode == 0, risk.stderr
    assert json.loads(risk.stdout)["draft"] is True
    compared = cli("compare", EIA, release, "-p", policy, "--allow-draft", "-f", "json")
    assert compared.returncode == 0, compared.stderr
    assert json.loads(compared.stdout)["draft"] is True
    (tmp_path / "privcheck.toml").write_text(
        f'[[check]]\nfiles = ["*.csv"]\npolicy = "{policy.as_posix()}"\n'
    )
    (tmp_path / "rel.csv").write_bytes(release.read_bytes())
    hook = cli("hook", "--config", tmp_path / "privcheck.toml", tmp_path / "rel.csv",
               "--allow-draft")  # fmt: skip
    assert hook.returncode == 0, hook.stderr
    assert "rel.csv: passed" in hook.stdout and note in hook.stdout


def test_api_gates_refuse_and_allow_draft_marks_the_verdict(eia_draft):
    policy, review, release, report = eia_draft
    frame = read_table(EIA)
    calls = {
        "check": lambda **kw: privcheck.check(frame, policy, **kw),
        "anonymize": lambda **kw: privcheck.anonymize(frame, policy, seed=0, **kw),
        "apply": lambda **kw: privcheck.apply(frame, report, policy, seed=0, **kw),
        "evaluate": lambda **kw: evaluate(frame, policy, **kw),
        "remediate": lambda **kw: remediate(frame, policy, "mingen", seed=0, **kw),
        "compare": lambda **kw: compare_releases(
            frame, [("r", read_table(release))], load_policy(policy), **kw
        ),
    }
    for name, call in calls.items():
        with pytest.raises(PolicyError) as info:
            call()
        message = str(info.value)
        assert "\n" not in message and f"({', '.join(review)})" in message, name
        assert "allow_draft=True" in message, name
    assert privcheck.check(frame, policy, allow_draft=True).draft is True
    _, anonymization = privcheck.anonymize(frame, policy, seed=0, allow_draft=True)
    assert anonymization.draft and anonymization.check.open_reviews == review
    verdict = evaluate(frame, policy, allow_draft=True)
    assert verdict.draft is True and verdict.open_reviews == review
    assert json.loads(verdict.to_json())["draft"] is True
    _, remediated = remediate(frame, policy, "mingen", seed=0, allow_draft=True)
    assert remediated.draft is True
    assert calls["compare"](allow_draft=True)["draft"] is True


def test_deleting_the_review_entries_lets_it_through(cli, eia_draft, tmp_path):
    policy, _, release, _ = eia_draft
    decided = tmp_path / "decided.yaml"
    decided.write_text(REVIEW_ENTRY.sub("", policy.read_text()))
    (tmp_path / "hierarchies").symlink_to(policy.parent / "hierarchies")
    loaded = load_policy(decided)
    assert not loaded.is_draft and loaded.open_reviews == {}
    res = cli("check", release, "-p", decided, "-f", "json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["draft"] is False
    assert json.loads(res.stdout)["open_reviews"] == []
    assert evaluate(release, decided).draft is False
    # the same as deciding in Python: each review entry deleted, the drafted roles kept
    in_python = load_policy(policy)
    for column in in_python.open_reviews:
        in_python = in_python.decide(column)
    assert in_python.model_dump() == loaded.model_dump()


def test_a_long_list_of_open_columns_says_how_many_more(cli, tmp_path):
    policy, review = _init(cli, CENSUS, tmp_path)
    assert len(review) > 10
    res = cli("check", CENSUS, "-p", policy)
    assert_one_line_error(res, ", ".join(review[:10]) + f" and {len(review) - 10} more")
    assert f"{len(review)} column(s) still marked review" in res.stderr


def test_the_review_field_and_decide():
    base = {
        "attributes": {
            "zip": {"role": "quasi_identifier", "review": "5-digit codes: postal codes?"},
            "given": {"role": "insensitive", "review": "532 distinct values: first names?"},
            "dx": {"role": "sensitive"},
        },
        "models": [{"model": "k-anonymity", "k": 2}],
    }
    policy = parse_policy(base)
    assert policy.open_reviews == {
        "zip": "5-digit codes: postal codes?",
        "given": "532 distinct values: first names?",
    }
    with pytest.raises(PolicyError, match=r"the policy is a draft: 2 column\(s\)"):
        policy.require_decided()
    policy.require_decided(allow_draft=True)
    one = policy.decide("given", "identifier")
    assert one.attributes["given"].role == "identifier" and list(one.open_reviews) == ["zip"]
    assert one.decide("zip").is_draft is False
    with pytest.raises(PolicyError, match="no attribute 'nope'"):
        policy.decide("nope")
    with pytest.raises(PolicyError, match="must say what was seen"):
        parse_policy({**base, "attributes": {"a": {"role": "insensitive", "review": " "}}})
    # null is no open decision: a decided policy dumped and read back stays decided
    again = parse_policy(json.loads(policy.decide("zip").decide("given").model_dump_json()))
    assert not again.is_draft
