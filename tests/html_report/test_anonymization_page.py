"""The anonymization page complete (issue 33): a differential-privacy policy renders (it crashed
with a ValueError, exit 1, nothing written); candidates ``--algorithm auto`` did not run say
"not used" and why (they were labelled FAIL); one sentence says why the chosen one was written;
nothing is clipped in a 1,024-pixel window, measured in headless Chromium; SafePub's candidate
carries its risk (it was null), equal to a pandas count over the written release."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from tests.conftest import ADULT
from tests.html_helpers import CHROMIUM, clipped, parse

QIS = ["age", "sex", "race"]


def dp_policy(tmp: Path) -> Path:
    spec = {
        "attributes": {
            q: {
                "role": "quasi_identifier",
                "hierarchy": {"type": "table", "path": str(ADULT / "hierarchies" / f"{q}.csv")},
            }
            for q in QIS
        },
        "models": [{"model": "differential-privacy", "epsilon": 2.0, "delta": 1e-5}],
    }
    path = tmp / "dp.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


@pytest.fixture(scope="module")
def dp_run(tmp_path_factory):
    """``anonymize --report`` of 2,000 Adult records under (2, 1e-5)-differential privacy, as
    HTML and as JSON, the release kept in order."""
    from tests.conftest import run_cli

    tmp = tmp_path_factory.mktemp("dp_page")
    data = tmp / "adult.csv"
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    frame.head(2000)[QIS].to_csv(data, index=False)
    policy = dp_policy(tmp)
    out = {}
    for fmt in ("html", "json"):
        release, report = tmp / f"release-{fmt}.csv", tmp / f"report.{fmt}"
        res = run_cli(
            "anonymize", data, "-p", policy, "-o", release, "--report", report,
            "--seed", "1", "--keep-order",
        )  # fmt: skip
        out[fmt] = (res, release, report)
    return out


def test_a_differential_privacy_policy_renders(dp_run) -> None:
    res, release, report = dp_run["html"]
    assert res.returncode == 0, res.stderr
    assert release.exists() and report.exists()
    words = parse(report.read_text(encoding="utf-8")).words
    assert "differential privacy of the mechanism" in words  # the guarantee
    assert "Suppression limit not applied (the mechanism suppresses every class below k)" in words
    assert "over age, race, sex." in words  # the meta line names the quasi-identifiers
    for name in ("mingen", "mondrian", "local-suppression"):  # not used, and why
        assert f"{name} — not used: {name} cannot enforce differential-privacy" in words
    assert "FAIL" not in words.replace("FAILED", "")
    assert (
        "--algorithm auto wrote the release of safepub , the only candidate that could "
        "guarantee this policy (loss " in words
    )


def test_safepubs_candidate_carries_its_risk(dp_run) -> None:
    """The risk of SafePub's row equals a pandas count over the written release (its classes
    over every released column, prosecutor risk 1 / class size, threshold 0.2 without k)."""
    res, release, report = dp_run["json"]
    assert res.returncode == 0, res.stderr
    doc = json.loads(report.read_text())
    row = next(c for c in doc["candidates"] if c["algorithm"] == "safepub")
    written = pd.read_csv(release, dtype=str, keep_default_na=False)
    assert 0 < len(written) < 2000  # some records released, some suppressed
    sizes = written.value_counts().to_numpy()
    per_record = np.repeat(1.0 / sizes, sizes)
    assert row["risk"] == pytest.approx(
        {
            "highest": per_record.max(),
            "average": per_record.mean(),
            "records_above": (per_record > 0.2).mean(),
        }
    )
    assert row["risk"] == pytest.approx(doc["risk_after"])


# ----------------------------------------------------------------- the candidates' words


def report_with(candidates: list[dict], chosen: str):
    from privcheck.report import AnonymizationReport, Report

    return AnonymizationReport(
        algorithm="auto",
        parameters={},
        quasi_identifiers=["q"],
        n_records=100,
        n_kept=100,
        n_suppressed=0,
        n_released_rows=100,
        check=Report(passed=True, n_records=100, n_classes=1, quasi_identifiers=["q"], models=[]),
        candidates=candidates,
        chosen=chosen,
        metric=candidates[0]["metric"],
    )


def row(name: str, value: float | None, suppressed: int | None = 0, **extra) -> dict:
    ran = value is not None
    return {
        "algorithm": name,
        "metric": "discernibility",
        "passed": ran,
        "excluded_reason": None if ran else f"{name} cannot do this: the reason",
        "metric_value": value,
        "n_classes": 3 if ran else None,
        "n_suppressed": suppressed,
        "suppressed_cells": 0 if ran else None,
        "seconds": 0.1 if ran else None,
        "risk": {"highest": 0.2, "average": 0.1, "records_above": 0.0} if ran else None,
        **extra,
    }


def test_the_choice_in_one_sentence_by_the_rule_auto_applies() -> None:
    from privcheck.html_report.anonymization import candidate_outcome, choice_sentence

    three = [row("mingen", 900.0), row("mondrian", 500.0), row("safepub", None)]
    least = report_with(three, "mondrian")
    assert choice_sentence(least) == (
        "--algorithm auto wrote the release of <strong>mondrian</strong>: of the 2 candidates "
        "that guarantee the policy it has the least discernibility (500, against 900 for "
        "mingen); safepub was not used (see below)."
    )
    tie = report_with([row("mingen", 500.0, 9), row("mondrian", 500.0, 2)], "mondrian")
    said = choice_sentence(tie)
    assert "the same discernibility as mingen (500) with fewer suppressed records" in said
    assert "(2 against 9)" in said
    alone = report_with([row("mingen", None), row("safepub", 1.0)], "safepub")
    assert choice_sentence(alone).endswith(
        "the only candidate that could guarantee this policy (discernibility 1); mingen was "
        "not used (see below)."
    )
    unwritten = row("mingen", 400.0, passed=False, excluded_reason="cannot be written")
    assert [candidate_outcome(c, "mondrian") for c in (
        row("mondrian", 1.0), row("mingen", 2.0), row("safepub", None), unwritten,
        row("x", 3.0, passed=False),
    )] == ["chosen", "passes", "not used", "not written", "fails"]  # fmt: skip


def test_candidates_not_run_say_not_used_and_why() -> None:
    from privcheck.html_report import render_anonymization_html

    three = [row("mingen", 900.0), row("mondrian", 500.0), row("safepub", None)]
    r = report_with(three, "mondrian")
    page = parse(render_anonymization_html(r))
    words = page.words
    assert "safepub not used" in words  # the table's outcome cell
    assert "safepub — not used: safepub cannot do this: the reason" in words  # and why
    assert "FAIL" not in words.replace("FAILED", "") and "choice" in page.ids


# ------------------------------------------------------------ nothing clipped at 1,024 px


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_the_probe_sees_a_clipped_table(tmp_path: Path) -> None:
    """The measuring script finds what does not fit (a 1,300-pixel table in a scrolling box,
    the page's old candidates table) and passes a page that fits."""
    from privcheck.html_report.page import html_page

    wide = tmp_path / "wide.html"
    cells = "".join(f"<td>column-{i}-with-a-long-unbreakable-name</td>" for i in range(12))
    table = f"<div class='scroll'><table><tr>{cells}</tr></table></div>"
    wide.write_text(html_page("wide", [table]))
    width, found = clipped(wide, 1024, tmp_path)
    assert width == 1024 and any("scrolls sideways" in f for f in found), found
    narrow = tmp_path / "narrow.html"
    narrow.write_text(html_page("narrow", ["<p>fits</p>"]))
    assert clipped(narrow, 1024, tmp_path) == (1024, [])


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
@pytest.mark.parametrize(
    ("algorithm", "params"),
    [("auto", []), ("mingen", ["--param", "tradeoff=true"])],
)
def test_nothing_is_clipped_at_1024_pixels(tmp_path: Path, dp_run, algorithm, params) -> None:
    """``auto`` on Adult (its candidates table, local suppression and SafePub not used with
    their reasons), MinGen with its front, and the DP page: every element inside a 1,024-pixel
    window, none scrolling sideways, every <details> opened."""
    from tests.conftest import run_cli

    report = tmp_path / f"{algorithm}.html"
    res = run_cli(
        "anonymize", ADULT / "adult.csv", "-p", ADULT / "policy.yaml", "-o",
        tmp_path / "release.csv", "-a", algorithm, *params, "--report", report, "--seed", "7",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert clipped(report, 1024, tmp_path) == (1024, [])
    if algorithm == "auto":
        assert clipped(dp_run["html"][2], 1024, tmp_path) == (1024, [])
