"""Output formats are plugins over the report data: the built-ins register through the
``privcheck_output_formats`` hook, and a third-party format (a catalog's, a CI system's) is one
more — listed by ``privcheck plugins``, accepted by ``--format``, asked for by its file extension
and used to write the report."""

from __future__ import annotations

import json
import os
from pathlib import Path
from xml.etree import ElementTree

import pytest
import yaml

from privcheck.errors import PolicyError
from privcheck.hookspecs import hookimpl
from privcheck.output_formats import OutputFormat, formats_for, render
from privcheck.plugins import output_format_registry, plugin_rows, register_plugin, reset_plugins
from tests.conftest import ADULT, EXAMPLES

JUNIT_SRC = Path(__file__).parent / "plugins" / "privcheck_junit" / "src"


def fake_installation(root: Path) -> Path:
    """What `pip install tests/plugins/privcheck_junit` leaves on sys.path besides the module: a
    dist-info folder whose entry_points.txt registers it under the group 'privcheck'."""
    dist = root / "privcheck_junit-0.1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: privcheck-junit\nVersion: 0.1.0\n")
    (dist / "entry_points.txt").write_text("[privcheck]\njunit = privcheck_junit\n")
    return root


@pytest.fixture
def junit_installed(tmp_path, monkeypatch):
    """The JUnit plugin installed: the CLI's child processes find it through its entry point."""
    site = fake_installation(tmp_path / "site")
    monkeypatch.delenv("PRIVCHECK_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    paths = [str(JUNIT_SRC), str(site), os.environ.get("PYTHONPATH", "")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in paths if p))
    monkeypatch.syspath_prepend(str(JUNIT_SRC))
    monkeypatch.syspath_prepend(str(site))
    reset_plugins()
    yield tmp_path
    monkeypatch.undo()
    reset_plugins()


def test_builtin_formats_register_through_the_hook():
    reset_plugins()
    assert list(output_format_registry()) == ["text", "json", "html", "github"]
    assert list(formats_for("check")) == ["text", "json", "html", "github"]
    assert list(formats_for("anonymization")) == ["text", "json", "html"]
    assert list(formats_for("risk")) == ["text", "json", "html"]
    assert list(formats_for("compare")) == ["text", "json"]
    rows = {r["name"]: r for r in plugin_rows()}
    assert rows["privcheck.output_formats"] == {
        "name": "privcheck.output_formats",
        "source": "built-in",
        "provides": "text, json, html, github",
    }


def _junit_cases(xml: str) -> dict[str, bool]:
    """Test case name → passed, from a JUnit document."""
    suite = ElementTree.fromstring(xml)
    assert suite.tag == "testsuite"
    cases = {c.get("name"): c.find("failure") is None for c in suite.iter("testcase")}
    failures = sum(not ok for ok in cases.values())
    assert int(suite.get("tests")) == len(cases) and int(suite.get("failures")) == failures
    return cases


def _expected_cases(report: dict) -> dict[str, bool]:
    """Oracle: the same check's JSON report — one case per model, one per finding."""
    cases = {
        f"{m['model']} ({', '.join(f'{k}={v}' for k, v in m['params'].items())})": m["passed"]
        for m in report["models"]
    }
    if report["identifiers_present"] or not report["suppression_ok"]:
        cases["release integrity"] = False
    return cases


def mixed_policy(folder: Path) -> Path:
    """Adult's quasi-identifiers under a model that holds and two that do not."""
    policy = yaml.safe_load((ADULT / "policy.yaml").read_text(encoding="utf-8"))
    for spec in policy["attributes"].values():
        spec["hierarchy"]["path"] = str(ADULT / spec["hierarchy"]["path"])
    policy["models"] = [
        {"model": "k-anonymity", "k": 1},
        {"model": "k-anonymity", "k": 5},
        {"model": "l-diversity", "variant": "distinct", "l": 2, "attribute": "salary-class"},
    ]
    path = folder / "mixed.yaml"
    path.write_text(yaml.safe_dump(policy), encoding="utf-8")
    return path


def test_a_plugin_format_is_listed_accepted_and_used(junit_installed, cli):
    tmp = junit_installed
    listed = cli("plugins")
    assert listed.returncode == 0, listed.stderr
    assert "privcheck-junit 0.1.0" in listed.stdout and "junit" in listed.stdout
    assert "text, json, html, github" in listed.stdout  # the built-ins, beside it

    args = ("check", ADULT / "adult.csv", "-p", mixed_policy(tmp))
    reference = cli(*args, "--format", "json")
    assert reference.returncode == 1, reference.stderr
    expected = _expected_cases(json.loads(reference.stdout))
    assert False in expected.values() and True in expected.values()

    printed = cli(*args, "--format", "junit")
    assert printed.returncode == 1, printed.stderr
    assert _junit_cases(printed.stdout) == expected
    # the file's extension asks for it: .xml is the plugin's
    written = cli(*args, "-o", tmp / "results.xml")
    assert written.returncode == 1, written.stderr
    assert _junit_cases((tmp / "results.xml").read_text(encoding="utf-8")) == expected
    assert (tmp / "results.xml").read_text(encoding="utf-8") == printed.stdout


def test_a_plugin_format_is_refused_where_it_renders_nothing(junit_installed, cli):
    tmp = junit_installed
    # risk reports: junit renders checks only, so it is no choice of privcheck risk
    risk = cli(
        "risk", "--original", EXAMPLES / "rank_swap_original.csv",
        "--masked", EXAMPLES / "rank_swap_masked.csv", "-p", ADULT / "policy.yaml",
        "--attack", "dbrl", "--format", "junit",
    )  # fmt: skip
    assert risk.returncode == 2
    assert "'junit' is not one of 'text', 'json', 'html'" in risk.stderr
    # an anonymization report named .xml: the extension names junit, which cannot write it
    anonymize = cli(
        "anonymize", EXAMPLES / "race_zip.csv", "-p", ADULT / "policy.yaml",
        "-o", tmp / "release.csv", "--report", tmp / "report.xml",
    )  # fmt: skip
    assert anonymize.returncode == 2
    assert "'.xml' names junit, which writes no anonymization report" in anonymize.stderr
    assert ".json" in anonymize.stderr and len(anonymize.stderr.strip().splitlines()) == 1
    assert not (tmp / "report.xml").exists() and not (tmp / "release.csv").exists()


def test_without_the_plugin_its_format_is_unknown(cli, tmp_path):
    res = cli(
        "check", ADULT / "adult.csv", "-p", ADULT / "policy.yaml", "--format", "junit",
        env={"PRIVCHECK_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )  # fmt: skip
    assert res.returncode == 2
    assert "'junit' is not one of 'text', 'json', 'html', 'github'" in res.stderr
    # and an .xml file is no format's: written in the default text, as any other extension
    out = tmp_path / "report.xml"
    res = cli(
        "check", ADULT / "adult.csv", "-p", ADULT / "policy.yaml", "-o", out,
        env={"PRIVCHECK_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )  # fmt: skip
    assert res.returncode == 1, res.stderr
    assert out.read_text(encoding="utf-8").startswith("privcheck check")


class _Catalog:
    """A plugin object registered at run time (a notebook's): a catalog's own JSON shape."""

    class CatalogFormat(OutputFormat):
        name = "catalog"
        kinds = frozenset({"check", "anonymization"})
        suffixes = (".catalog.json",)
        media_type = "application/json"

        def render(self, report, kind, **context):
            check = report if kind == "check" else report.check
            return json.dumps({"passed": check.passed, "kind": kind}) + "\n"

    @hookimpl
    def privcheck_output_formats(self):
        return [self.CatalogFormat]


def test_a_format_registered_at_run_time_renders_its_kinds(adult_frame):
    from privcheck import check

    try:
        register_plugin(_Catalog(), "catalog")
        assert list(output_format_registry())[-1] == "catalog"
        report = check(adult_frame, ADULT / "policy.yaml")
        assert json.loads(render(report, "catalog", "check")) == {"passed": False, "kind": "check"}
        assert list(formats_for("anonymization")) == ["text", "json", "html", "catalog"]
        with pytest.raises(PolicyError, match="no output format 'catalog' for a risk report"):
            render(report, "catalog", "risk")
    finally:
        reset_plugins()
    assert "catalog" not in output_format_registry()


def test_a_format_reusing_a_builtin_name_is_refused():
    class Impostor(OutputFormat):
        name = "json"
        kinds = frozenset({"check"})

    class Plugin:
        @hookimpl
        def privcheck_output_formats(self):
            return [Impostor]

    try:
        register_plugin(Plugin(), "impostor")
        with pytest.raises(PolicyError, match="two plugins provide the output format 'json'"):
            output_format_registry()
    finally:
        reset_plugins()


def test_each_builtin_format_renders_what_the_commands_wrote_before(adult_frame):
    """The registry's formats are the functions the commands called: same text, byte for byte
    (the HTML page up to its time stamp)."""
    import re

    from privcheck import check
    from privcheck.github_report import github_annotations
    from privcheck.html_report import render_html
    from privcheck.text_report import render_text

    report = check(adult_frame, ADULT / "policy.yaml", details=True)
    stamp = re.compile(r"rendered [0-9:\- ]+UTC")
    assert render(report, "text", "check") == render_text(report)
    assert render(report, "json", "check") == report.to_json() + "\n"
    assert render(report, "github", "check", source="a.csv") == github_annotations(report, "a.csv")
    page = render(report, "html", "check")
    assert stamp.sub("", page) == stamp.sub("", render_html(report))
