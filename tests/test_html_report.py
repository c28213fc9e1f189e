"""The HTML report: self-contained, every section present, and it renders in a real browser.

The browser test runs Debian's headless Chromium (skipped when it is not installed), asserts on
the DOM it built, checks that nothing reached the console, and keeps a screenshot in
test-artifacts/ for a person to look at.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from privcheck.checker import check
from privcheck.html_report import render_html
from privcheck.html_report.check import size_buckets
from privcheck.report import Section, SectionPlot, SectionTable
from tests.conftest import ADULT
from tests.html_helpers import CHROMIUM, chromium, console_messages

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
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


# ----------------------------------------------------------------------- issue 18, item 7
CENSUS = ROOT / "tests" / "data" / "casc" / "census.csv"
#: JSON keys that must never be what a reader sees
SNAKE_KEYS = [
    "reidentified_share",
    "anonymity_set_rate",
    "mean_candidate_set_size",
    "true_in_candidates_rate",
    "suppression_limit",
    "sse_sst",
    "n_records",
]


def assert_words(page) -> None:
    for key in SNAKE_KEYS:
        assert key not in page.words, key


def test_anonymization_page_of_a_generalization_with_its_front():
    from privcheck import anonymize
    from privcheck.html_report import render_anonymization_html
    from tests.html_helpers import parse

    _, result = anonymize(ADULT / "adult.csv", ADULT / "policy.yaml", "mingen", tradeoff=True)
    html = render_anonymization_html(result)
    page = parse(html)
    assert "http" not in html and "<script" not in html
    assert {"transformation", "suppression", "information-loss", "tradeoff", "summary"} <= page.ids
    assert "exposure" not in page.ids  # no transparency attack for a generalization
    words = page.words
    for text in ("Generalization against suppression", "Re-check of the release", "Lattice size"):
        assert text in words, text
    assert "Precision (Prec; 1 = no loss) (optimised)" in words
    assert html.count("<svg") == 4  # the front, risk, class sizes before/after, loss per QI
    assert {"risk", "plot-tradeoff", "plot-risk", "plot-class-sizes-before-after"} <= page.ids
    assert "plot-loss" in page.ids
    assert words.count("age") >= 1 and str(result.node["age"]) in words
    assert_words(page)


def test_anonymization_page_of_a_masking_with_its_exposure():
    import pandas as pd

    from privcheck import anonymize
    from privcheck.html_report import render_anonymization_html
    from tests.html_helpers import parse

    census = pd.read_csv(CENSUS)
    policy = {
        "attributes": {c: {"role": "quasi_identifier"} for c in census.columns},
        "models": [{"model": "k-anonymity", "k": 3}],
    }
    _, result = anonymize(census, policy, "mdav")
    page = parse(render_anonymization_html(result))
    assert "exposure" in page.ids and "tradeoff" not in page.ids
    words = page.words
    assert "Re-identified share" in words and "33.3%" in words
    assert "Warning: 33.3% of the records are re-identified" in words
    assert "SSE/SST (%)" in words and "Mean candidate-set size" in words
    assert "--attack microaggregation-multivariate-transparency --param k=3" in " ".join(page.pre)
    assert "Equivalence classes" not in words  # no dead link to a section this page lacks
    assert_words(page)


def test_risk_page_labels_figures_in_words(tmp_path):
    import pandas as pd

    from privcheck.html_report import render_risk_html
    from privcheck.masking import rank_swap
    from privcheck.plugins import risk_registry
    from privcheck.risk.assess import assess
    from tests.html_helpers import parse

    census = pd.read_csv(CENSUS)
    swapped = rank_swap(census, 5, seed=1).masked
    qis = ["AFNLWGT", "AGI", "EMCONTRB", "FEDTAX"]
    report = assess(census, swapped, qis, risk_registry()["rank-swap-transparency"], {"p": 5})
    page = parse(render_risk_html(report))
    words = page.words
    for text in (
        "Re-identification rate",
        "Re-identified share (anonymity sets)",
        "Mean candidate-set size",
        "True record among the candidates",
        "Window (ranks)",
        "Attack parameters: p=5",
    ):
        assert text in words, text
    assert_words(page)


def test_numeric_sensitive_panel_shows_value_ranges_and_names_classes():
    import numpy as np
    import pandas as pd

    from tests.html_helpers import parse

    census = pd.read_csv(CENSUS)
    frame = pd.DataFrame(
        {
            "agi": (census.AGI // 20000 * 20000).astype(str),
            "tax": (census.FEDTAX // 5000 * 5000).astype(str),
            "fica": census.FICA.astype(str),
        }
    )
    policy = {
        "attributes": {
            "agi": {"role": "quasi_identifier"},
            "tax": {"role": "quasi_identifier"},
            "fica": {"role": "sensitive"},
        },
        "models": [{"model": "l-diversity", "variant": "distinct", "l": 3}],
    }
    report = check(frame, policy, details=True)
    d = report.models[0].distribution
    assert len(d.values) == 10 and "ranges of about equal frequency" in d.grouping
    assert sum(d.overall) == len(frame) and max(d.overall) < 0.15 * len(frame)
    # oracle: each class's counts per range, recounted from the rows
    fica = census.FICA.to_numpy()
    for c in d.classes:
        rows = (frame.agi == c.values["agi"]) & (frame.tax == c.values["tax"])
        assert rows.sum() == c.size
        expected = []
        for label in d.values:
            lo, _, hi = label.partition("–")
            hi = hi or lo
            expected.append(int(np.sum((fica[rows] >= float(lo)) & (fica[rows] <= float(hi)))))
        assert expected == c.counts, (c.values, expected, c.counts)
    html = render_html(report)
    page = parse(html)
    first = d.classes[0].values
    assert f"agi={first['agi']}, tax={first['tax']}" in html  # the legend names the class
    assert "values grouped: 10 ranges" in page.words
    assert first["agi"] in page.words  # and the table under the plot


def test_categorical_sensitive_panel_keeps_the_top_values_and_other():
    import pandas as pd

    values = [f"v{i:02d}" for i in range(40)]
    frame = pd.DataFrame({"q": ["a", "b"] * 200, "s": [values[i % 40] for i in range(400)]})
    policy = {
        "attributes": {"q": {"role": "quasi_identifier"}, "s": {"role": "sensitive"}},
        "models": [{"model": "l-diversity", "variant": "distinct", "l": 2}],
    }
    d = check(frame, policy, details=True).models[0].distribution
    assert len(d.values) == 30 and d.values[-1] == "other (11 values)"
    assert d.grouping == "the 29 most frequent values, then the other 11"
    assert sum(d.overall) == 400


# ----------------------------------------------------------------------- issue 24: pictures


def assert_accessible(html: str, expected_ids: set[str]) -> list[dict]:
    """Every chart is an inline SVG image with a text alternative — role=img, an aria-label
    and the same <title> — inside a <figure> with a caption; the expected figures are there."""
    from tests.html_helpers import charts

    found = charts(html)
    assert found, "no chart"
    for c in found:
        assert c["role"] == "img", c
        assert c["aria_label"] and c["title"] == c["aria_label"], c
        assert c["figure"] is not None and c["figure"]["caption"].strip(), c
    ids = {c["figure"]["id"] for c in found}
    assert expected_ids <= ids, (expected_ids, ids)
    return found


def chart(found: list[dict], figure_id: str) -> str:
    (c,) = [c for c in found if c["figure"]["id"] == figure_id]
    return c["aria_label"]


@pytest.fixture(scope="module")
def mondrian_report():
    from privcheck import anonymize

    _, result = anonymize(ADULT / "adult.csv", ADULT / "policy.yaml", "mondrian", seed=3)
    return result


def test_anonymization_page_draws_risk_before_and_after(mondrian_report):
    from privcheck.html_report import render_anonymization_html
    from privcheck.html_report.anonymization_charts import bin_labels as _bin_labels
    from privcheck.html_report.anonymization_charts import size_comparison
    from tests.html_helpers import parse

    r = mondrian_report
    html = render_anonymization_html(r)
    page = parse(html)
    found = assert_accessible(html, {"plot-risk", "plot-class-sizes-before-after", "plot-loss"})
    assert "candidates" not in page.ids  # a named algorithm: no candidates
    profile = r.risk_profile
    # the risk chart's text alternative carries the numbers of the JSON's plot data
    alt = chart(found, "plot-risk")
    for lab, b, a in zip(
        _bin_labels(profile.risk_bins), profile.records_before, profile.records_after, strict=True
    ):
        assert f"risk {lab}: {b:,} before, {a:,} after" in alt
    assert "lower risk is better" in alt and sum(profile.records_after) == r.n_kept
    alt = chart(found, "plot-class-sizes-before-after")
    labels, before, after, _ = size_comparison(profile)
    assert before.sum() == r.n_records and after.sum() == r.n_kept
    for lab, b, a in zip(labels, before, after, strict=True):
        assert f"size {lab}: {b:,} before, {a:,} after" in alt
    words = page.words
    assert "Re-identification risk before and after" in words
    assert "Highest record risk" in words and "Records above the threshold" in words
    assert f"{r.risk_before.records_above:.2%}" in words and "k = 5" in words
    assert "lower is better" in words and "larger is safer" in html


def test_loss_by_attribute_is_drawn_only_when_present(mondrian_report):
    from privcheck.html_report import render_anonymization_html
    from privcheck.report import AnonymizationReport
    from tests.html_helpers import parse

    r = mondrian_report.model_copy(deep=True)
    assert r.loss_by_attribute is not None  # every generalization/recoding report fills it
    assert "plot-loss" in parse(render_anonymization_html(r)).ids
    r.loss_by_attribute = None
    assert "plot-loss" not in parse(render_anonymization_html(r)).ids
    r.loss_by_attribute = {"age": 0.125, "sex": 0.0, "education": 0.6667}
    html = render_anonymization_html(r)
    found = assert_accessible(html, {"plot-loss"})
    alt = chart(found, "plot-loss")
    assert "age 0.125" in alt and "sex 0" in alt and "education 0.6667" in alt
    assert "lower is better" in alt
    assert "Information loss per quasi-identifier" in parse(html).words
    back = AnonymizationReport.model_validate_json(r.to_json())
    assert back.loss_by_attribute == r.loss_by_attribute


CANDIDATES = [
    {"algorithm": "mingen", "passed": True, "excluded_reason": None, "metric": "loss",
     "metric_value": 0.42, "n_classes": 310, "n_suppressed": 120, "suppressed_cells": 0,
     "seconds": 1.25, "risk": {"highest": 0.2, "average": 0.0103, "records_above": 0.0}},
    {"algorithm": "mondrian", "passed": True, "excluded_reason": None, "metric": "loss",
     "metric_value": 0.21, "n_classes": 3020, "n_suppressed": 0, "suppressed_cells": 0,
     "seconds": 1.5, "risk": {"highest": 0.2, "average": 0.1001, "records_above": 0.0}},
    {"algorithm": "local-suppression", "passed": False, "excluded_reason": None,
     "metric": "loss", "metric_value": 0.05, "n_classes": 6100, "n_suppressed": 0,
     "suppressed_cells": 4321, "seconds": 0.5,
     "risk": {"highest": 0.5, "average": 0.2, "records_above": 0.125}},
    {"algorithm": "safepub", "passed": None,
     "excluded_reason": "the policy has no differential-privacy model", "metric": None,
     "metric_value": None, "n_classes": None, "n_suppressed": None, "suppressed_cells": None,
     "seconds": None, "risk": None},
]  # fmt: skip


def test_candidates_on_one_risk_utility_chart(mondrian_report):
    import json

    from privcheck.html_report import render_anonymization_html
    from privcheck.report import AnonymizationReport
    from tests.html_helpers import parse

    r = mondrian_report.model_copy(deep=True)
    assert r.candidates is None and r.chosen == "mondrian"
    r.candidates = CANDIDATES
    html = render_anonymization_html(r)
    page = parse(html)
    found = assert_accessible(html, {"plot-candidates"})
    alt = chart(found, "plot-candidates")
    assert "3 candidate releases" in alt  # the excluded one has no point
    assert "mingen: risk 0.0103, 0.42" in alt
    assert "mondrian: risk 0.1001, 0.21, chosen" in alt
    assert "local-suppression: risk 0.2, 0.05, fails the policy" in alt
    assert "safepub" not in alt and "lower is better" in alt
    words = page.words
    assert "the policy has no differential-privacy model" in words  # the excluded, in the table
    assert "mondrian (chosen)" in words and "4,321" in words
    assert page.words.index("Candidates") < page.words.index("Re-identification risk")
    # the JSON contract: the exact names, and a saved report renders the same page
    doc = json.loads(r.to_json())
    assert doc["chosen"] == "mondrian" and doc["candidates"] == CANDIDATES
    assert set(doc["risk_before"]) == set(doc["risk_after"]) == {
        "highest", "average", "records_above"
    }  # fmt: skip
    again = render_anonymization_html(AnonymizationReport.model_validate(doc))
    strip = re.compile(r"rendered [0-9:\- ]+UTC")
    assert strip.sub("", again) == strip.sub("", html)


def test_pareto_front_against_brute_force():
    import numpy as np

    from privcheck.html_report.anonymization_charts import pareto

    rng = np.random.default_rng(0)
    for _ in range(50):
        n = int(rng.integers(1, 25))
        x = rng.integers(0, 6, n).astype(float)
        cost = rng.integers(0, 6, n).astype(float)
        front = pareto(x, cost)
        for i in range(n):
            beaten = any(
                (x[j] <= x[i] and cost[j] <= cost[i]) and (x[j] < x[i] or cost[j] < cost[i])
                for j in range(n)
            )
            if beaten:
                assert not front[i]
        # one point per distinct (x, cost) pair that nothing beats
        unbeaten = {
            (x[i], cost[i])
            for i in range(n)
            if not any(
                (x[j] <= x[i] and cost[j] <= cost[i]) and (x[j] < x[i] or cost[j] < cost[i])
                for j in range(n)
            )
        }
        assert front.sum() == len(unbeaten)


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
@pytest.mark.parametrize(
    ("algorithm", "params", "figures"),
    [
        ("mingen", ["--param", "tradeoff=true"], {"plot-risk", "plot-class-sizes-before-after",
                                                   "plot-tradeoff", "plot-loss"}),
        ("mondrian", [], {"plot-risk", "plot-class-sizes-before-after", "plot-loss"}),
        ("auto", [], {"plot-risk", "plot-class-sizes-before-after", "plot-loss",
                      "plot-candidates"}),
    ],
)  # fmt: skip
def test_cli_anonymization_report_renders_offline_in_chromium(tmp_path, algorithm, params, figures):
    """The report a user gets from ``privcheck anonymize ... --report r.html``, opened in a real
    browser that reaches no network: no console error, no request leaves the page, every chart
    is drawn with its text alternative."""
    from tests.conftest import run_cli
    from tests.html_helpers import charts, page_requests

    ARTIFACTS.mkdir(exist_ok=True)
    report = ARTIFACTS / f"anonymize-{algorithm}.html"
    res = run_cli(
        "anonymize", ADULT / "adult.csv", "-p", ADULT / "policy.yaml", "-o",
        tmp_path / "release.csv", "-a", algorithm, *params, "--report", report, "--seed", "7",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    html = report.read_text(encoding="utf-8")
    assert "http" not in html and "<script" not in html and " src=" not in html
    url = report.resolve().as_uri()
    netlog = tmp_path / "netlog.json"
    dom = chromium(f"--log-net-log={netlog}", "--dump-dom", url, tmp_path=tmp_path, offline=True)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert console_messages(dom.stderr) == []
    assert page_requests(netlog) == []
    body = dom.stdout
    found = assert_accessible(body, figures)  # the DOM the browser built
    assert len(found) == len(charts(html)) == len(figures)
    assert body.count("<path") > 50  # the plots were parsed as SVG
    png = ARTIFACTS / f"anonymize-{algorithm}.png"
    png.unlink(missing_ok=True)
    shot = chromium("--hide-scrollbars", "--window-size=1200,5200", f"--screenshot={png}", url,
                    tmp_path=tmp_path, offline=True)  # fmt: skip
    assert shot.returncode == 0 and console_messages(shot.stderr) == []
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_offline_check_sees_a_page_that_needs_the_network(tmp_path):
    """Positive control: a page with a remote stylesheet, image and script is seen asking."""
    from tests.html_helpers import page_requests

    page = tmp_path / "remote.html"
    page.write_text(
        "<!DOCTYPE html><html><head><link rel='stylesheet' href='https://example.com/a.css'>"
        "</head><body><img src='https://example.com/b.png'><p>x</p></body></html>"
    )
    netlog = tmp_path / "netlog.json"
    res = chromium(f"--log-net-log={netlog}", "--dump-dom", page.as_uri(), tmp_path=tmp_path,
                   offline=True)  # fmt: skip
    assert res.returncode == 0
    assert page_requests(netlog) == ["https://example.com/a.css", "https://example.com/b.png"]


def test_accessibility_check_catches_a_chart_without_its_alternative():
    """Negative control of ``assert_accessible``: a bare SVG, or one outside a captioned
    figure, is refused."""
    bare = "<figure id='f'><svg viewBox='0 0 1 1'></svg><figcaption>x</figcaption></figure>"
    with pytest.raises(AssertionError):
        assert_accessible(bare, {"f"})
    uncaptioned = "<svg role='img' aria-label='a'><title>a</title></svg>"
    with pytest.raises(AssertionError):
        assert_accessible(uncaptioned, set())
    good = (
        "<figure id='f'><svg role='img' aria-label='3 records'><title>3 records</title></svg>"
        "<figcaption>x</figcaption></figure>"
    )
    assert len(assert_accessible(good, {"f"})) == 1


# --------------------------------------------------------------- text from the data, literally

#: text matplotlib reads as TeX math, or a browser as markup or a template
HOSTILE_TEXT = ["$$", "$x_$", r"$\frac{a}{b}$", "<script>alert(1)</script>", "{{x}}", "a&b<i>"]


def _hostile_files(tmp_path: Path) -> tuple[Path, Path]:
    """A table whose column names and values are ``HOSTILE_TEXT``: a quasi-identifier named
    ``$q_1$`` holding them, a numeric one named ``$x_$``, a sensitive one named
    ``<b>$\\frac{s}{2}$</b>`` holding them too."""
    import yaml

    rows = ["$q_1$,$x_$,<b>$\\frac{s}{2}$</b>"]
    for i in range(60):
        value = HOSTILE_TEXT[i % len(HOSTILE_TEXT)]
        secret = HOSTILE_TEXT[(i // 2) % len(HOSTILE_TEXT)]
        rows.append(f'"{value}",{20 + i % 7},"{secret}"')
    data = tmp_path / "d.csv"
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    policy = tmp_path / "p.yaml"
    policy.write_text(
        yaml.safe_dump(
            {
                "attributes": {
                    "$q_1$": {"role": "quasi_identifier"},
                    "$x_$": {
                        "role": "quasi_identifier",
                        "hierarchy": {"type": "intervals", "widths": [5, 10]},
                    },
                    "<b>$\\frac{s}{2}$</b>": {"role": "sensitive"},
                },
                "models": [
                    {"model": "k-anonymity", "k": 2},
                    {
                        "model": "l-diversity",
                        "variant": "distinct",
                        "l": 2,
                        "attribute": "<b>$\\frac{s}{2}$</b>",
                    },
                    {
                        "model": "t-closeness",
                        "t": 0.5,
                        "distance": "equal",
                        "attribute": "<b>$\\frac{s}{2}$</b>",
                    },
                ],
                "suppression_limit": 0.3,
            }
        ),
        encoding="utf-8",
    )
    return data, policy


def _literal_page(path: Path, *texts: str) -> None:
    """The page parses (every element closed), carries each text as text, and holds no
    element the data smuggled in."""
    from tests.html_helpers import parse

    html = path.read_text(encoding="utf-8")
    page = parse(html)
    words = " ".join(page.text)
    for text in texts:
        assert text in words, text
    assert "<script" not in html and "<b>$" not in html and "<i>" not in html


def test_text_from_the_data_is_drawn_and_written_literally_in_every_report(tmp_path):
    """A ``$`` in a value or a column name crashed the check report (matplotlib's mathtext:
    ``$x_$`` a parse error, a traceback); ``<script>`` must stay text. Each report kind — check
    (with --explain), anonymization, risk — renders, and says every name and value as
    written; compare (text and JSON) too."""
    import json

    from tests.test_fuzz_inputs import run_cli

    data, policy = _hostile_files(tmp_path)
    names = ["$q_1$", "$x_$", "<b>$\\frac{s}{2}$</b>"]
    code, _, err = run_cli("check", data, "-p", policy, "-o", tmp_path / "c.html")
    assert code in (0, 1) and not err.strip(), err
    _literal_page(tmp_path / "c.html", *names, *HOSTILE_TEXT)
    code, _, err = run_cli("check", data, "-p", policy, "--explain", "-o", tmp_path / "e.html")
    assert code in (0, 1) and not err.strip(), err
    _literal_page(tmp_path / "e.html", *names)
    release = tmp_path / "r.csv"
    code, _, err = run_cli(
        "anonymize", data, "-p", policy, "-o", release, "--report", tmp_path / "a.html",
        "--seed", "1",
    )  # fmt: skip
    assert code == 0, err
    _literal_page(tmp_path / "a.html", "$q_1$", "$x_$")
    code, _, err = run_cli(
        "risk", "--original", data, "--masked", data, "-p", policy, "-a", "uniqueness",
        "-o", tmp_path / "k.html",
    )  # fmt: skip
    assert code in (0, 1), err
    _literal_page(tmp_path / "k.html", "$q_1$", "$x_$")
    named = tmp_path / "$x_$ <i>{{r}}.csv"  # compare prints the releases by name
    named.write_bytes(release.read_bytes())
    code, out, err = run_cli("compare", data, named, "-p", policy, "-f", "json")
    assert code == 0, err
    assert json.loads(out)["releases"][0]["release"] == str(named)
    code, out, err = run_cli("compare", data, named, "-p", policy)
    assert code == 0 and named.name in out, err


def test_a_plot_draws_dollar_signs_as_text():
    """The plot helpers themselves: a legend, tick labels and a title with TeX-looking text are
    drawn (no exception) and the SVG holds the text as written."""
    from privcheck.html_report.page import section_plot

    svg = section_plot(
        Section(
            id="x",
            title="$x_$",
            plot=SectionPlot(
                kind="bar",
                x=["$$", "$x_$", r"\frac{1}{2}"],
                series={"$a_$": [1, 2, 3]},
                xlabel="$b_$",
                ylabel="{{y}}",
            ),
        ),
        "salt",
    )
    for text in ("$$", "$x_$", "\\frac{1}{2}", "$a_$", "$b_$", "{{y}}"):
        assert html_text(text) in svg, text


def html_text(text: str) -> str:
    import html

    return html.escape(text, quote=False)
