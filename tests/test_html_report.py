"""The HTML report: self-contained, every section present, and it renders in a real browser.

The browser test runs Debian's headless Chromium (skipped when it is not installed), asserts on
the DOM it built, checks that nothing reached the console, and keeps a screenshot in
test-artifacts/ for a person to look at.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from privcheck.checker import check
from privcheck.html_report import render_html, size_buckets
from privcheck.report import Section, SectionPlot, SectionTable
from tests.conftest import ADULT

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CONTRIBUTED = ["anonymization", "suppression", "information-loss", "utility", "risk"]


def contributed_sections() -> list[Section]:
    """What the anonymizer, metrics and risk steps will attach (shape only; values invented)."""
    return [
        Section(
            id="risk",
            title="Re-identification risk",
            figures={"records at risk > 0.2": 120, "highest risk": 0.5},
            plot=SectionPlot(
                kind="bar",
                x=["0–0.05", "0.05–0.1", "0.1–0.2", ">0.2"],
                series={"records": [25000, 4000, 1042, 120]},
                xlabel="risk",
                ylabel="records",
                log_y=True,
            ),
        ),
        Section(
            id="suppression",
            title="Suppression",
            figures={"suppressed records": 301, "limit": "1 %"},
        ),
        Section(
            id="anonymization",
            title="Anonymization",
            summary="Generalization lattice node chosen by the search.",
            table=SectionTable(
                columns=["attribute", "level", "example"],
                rows=[["age", 1, "35-39"], ["sex", 0, "Male"]],
            ),
        ),
        Section(
            id="information-loss",
            title="Information loss",
            figures={"Prec": 0.71, "discernibility": 123456},
        ),
        Section(
            id="utility",
            title="Utility",
            plot=SectionPlot(
                kind="line", x=[1, 2, 3], series={"a": [0.1, 0.2, None], "b": [0.3, 0.2, 0.1]}
            ),
        ),
    ]


@pytest.fixture(scope="module")
def page() -> str:
    report = check(ADULT / "adult.csv", ADULT / "policy.yaml", details=True)
    report.source = "adult.csv"
    report.sections = contributed_sections()
    return render_html(report)


def test_page_is_self_contained_with_every_section(page):
    assert page.startswith("<!DOCTYPE html>")
    assert "http" not in page and "<script" not in page and " src=" not in page
    for anchor in [
        "verdict",
        "summary",
        "classes",
        "model-1",
        "model-2",
        "model-3",
        *[f"section-{s}" for s in CONTRIBUTED],
    ]:
        assert f"id='{anchor}'" in page, anchor
    # contributed sections in the documented order, after the models
    positions = [page.index(f"id='section-{s}'") for s in CONTRIBUTED]
    assert positions == sorted(positions) and positions[0] > page.index("id='model-3'")
    # ids stay unique across the several inline SVGs
    ids = re.findall(r'\bid="([^"]+)"', page)
    assert len(ids) == len(set(ids))
    assert page.count("<svg") == 1 + 2 * 2 + 2  # classes; 2 × (histogram, distribution); 2 sections


def test_sections_render_only_when_present():
    report = check(ADULT / "adult.csv", ADULT / "policy.yaml", details=False)
    html = render_html(report)
    assert "id='classes'" not in html and "<svg" not in html
    assert not any(f"section-{s}" in html for s in CONTRIBUTED)
    assert "id='model-1'" in html


def test_class_size_buckets_add_up(adult_frame):
    from privcheck.report import SizeHistogram

    sizes = adult_frame.groupby(["sex", "race", "age"]).size()
    counts = sizes.value_counts().sort_index()
    hist = SizeHistogram(sizes=counts.index.tolist(), classes=counts.tolist())
    labels, classes, records, lows = size_buckets(hist)
    assert classes.sum() == len(sizes) and records.sum() == len(adult_frame)
    assert classes[0] == (sizes == 1).sum() and labels[0] == "1"
    assert records[lows < 5].sum() == sizes[sizes < 5].sum()


def chromium(*args: str, tmp_path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


def console_messages(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line]


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_renders_in_headless_chromium(page, tmp_path):
    ARTIFACTS.mkdir(exist_ok=True)
    html_path = ARTIFACTS / "report.html"
    html_path.write_text(page, encoding="utf-8")
    url = html_path.resolve().as_uri()

    dom = chromium("--dump-dom", url, tmp_path=tmp_path)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert console_messages(dom.stderr) == []
    body = dom.stdout
    assert "FAILED" in body
    for anchor in [
        "summary",
        "classes",
        "model-1",
        "model-2",
        "model-3",
        *[f"section-{s}" for s in CONTRIBUTED],
    ]:
        assert re.search(rf'id="{anchor}"', body), anchor
    assert body.count("<svg") == 7 and body.count("<path") > 100  # the plots were parsed as SVG

    png = ARTIFACTS / "report.png"
    png.unlink(missing_ok=True)
    shot = chromium(
        "--hide-scrollbars",
        "--window-size=1200,6400",
        f"--screenshot={png}",
        url,
        tmp_path=tmp_path,
    )
    assert shot.returncode == 0, shot.stderr[-2000:]
    assert console_messages(shot.stderr) == []
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_console_check_catches_errors(tmp_path):
    """Positive control: the console check above does see a page's errors."""
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><p>x</p><script>console.error('boom'); nope();</script>")
    res = chromium("--dump-dom", bad.as_uri(), tmp_path=tmp_path)
    messages = console_messages(res.stderr)
    assert any("boom" in m for m in messages) and any("Uncaught" in m for m in messages)
