"""A report file's format follows its extension (issue 18, item 7), from the command line.

``anonymize --report`` takes .json/.html/.htm/.txt/.md and refuses anything else; ``check -o`` and
``risk -o`` infer the format from a known extension and refuse an explicit ``--format`` that
contradicts it — in one line, exit 2, with nothing written (not even the release).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLES
from tests.html_helpers import parse
from tests.test_cli import GOOD_POLICY, assert_one_line_error, write_policy

RACE_ZIP = {
    "attributes": {
        "race": {
            "role": "quasi_identifier",
            "hierarchy": {"type": "table", "path": str(EXAMPLES / "race_zip_hierarchies/race.csv")},
        },
        "zip": {
            "role": "quasi_identifier",
            "hierarchy": {"type": "table", "path": str(EXAMPLES / "race_zip_hierarchies/zip.csv")},
        },
    },
    "models": [{"model": "k-anonymity", "k": 2}],
}


def anonymize_args(tmp_path: Path, report: Path) -> list:
    policy = write_policy(tmp_path, RACE_ZIP)
    return [
        "anonymize",
        EXAMPLES / "race_zip.csv",
        "-p",
        policy,
        "-o",
        tmp_path / "release.csv",
        "--report",
        report,
    ]


@pytest.mark.parametrize("name", ["report.html", "REPORT.HTM"])
def test_anonymize_report_html(cli, tmp_path, name):
    res = cli(*anonymize_args(tmp_path, tmp_path / name))
    assert res.returncode == 0, res.stderr
    page = parse((tmp_path / name).read_text(encoding="utf-8"))
    assert {"verdict", "transformation", "suppression", "summary"} <= page.ids
    text = " ".join(page.text)
    assert "Transformation" in text and "Re-check of the release" in text
    assert "Records in the input" in text and "suppression_limit" not in text


@pytest.mark.parametrize(("name", "kind"), [("r.json", "json"), ("r.md", "text")])
def test_anonymize_report_json_and_text(cli, tmp_path, name, kind):
    res = cli(*anonymize_args(tmp_path, tmp_path / name))
    assert res.returncode == 0, res.stderr
    body = (tmp_path / name).read_text(encoding="utf-8")
    if kind == "json":
        assert json.loads(body)["kind"] == "anonymization"
    else:
        assert body == res.stdout  # the text printed on stdout
        assert "privcheck anonymize" in body


@pytest.mark.parametrize("name", ["report.xml", "report"])
def test_anonymize_refuses_an_unknown_report_extension(cli, tmp_path, name):
    res = cli(*anonymize_args(tmp_path, tmp_path / name))
    assert_one_line_error(res, "--report", "extension", ".json")
    assert not (tmp_path / name).exists() and not (tmp_path / "release.csv").exists()


def check_args(tmp_path: Path, *extra) -> list:
    return [
        "check",
        EXAMPLES / "three_diverse.csv",
        "-p",
        write_policy(tmp_path, GOOD_POLICY),
        *extra,
    ]


@pytest.mark.parametrize(
    ("name", "fmt", "kind"),
    [
        ("out.html", None, "html"),
        ("out.json", None, "json"),
        ("out.html", "html", "html"),
        ("out.txt", "github", "github"),
        ("out.report", "json", "json"),  # no format in the name: --format decides
        ("out", None, "text"),
    ],
)
def test_check_output_format_follows_the_extension(cli, tmp_path, name, fmt, kind):
    extra = ["-o", tmp_path / name] + (["--format", fmt] if fmt else [])
    res = cli(*check_args(tmp_path, *extra))
    assert res.returncode == 0, res.stderr
    body = (tmp_path / name).read_text(encoding="utf-8")
    if kind == "html":
        assert "Models" in " ".join(parse(body).text)
    elif kind == "json":
        assert json.loads(body)["passed"] is True
    elif kind == "github":
        assert body == "" or body.startswith("::")
    else:
        assert body.startswith("privcheck check")


@pytest.mark.parametrize(
    ("name", "fmt"),
    [("out.html", "json"), ("out.txt", "json")],
)
def test_check_refuses_a_format_that_contradicts_the_extension(cli, tmp_path, name, fmt):
    res = cli(*check_args(tmp_path, "-o", tmp_path / name, "--format", fmt))
    assert_one_line_error(res, f"--format {fmt}", "extension")
    assert not (tmp_path / name).exists()


def risk_args(tmp_path: Path, *extra) -> list:
    policy = tmp_path / "risk.yaml"
    policy.write_text(
        yaml.safe_dump({"attributes": {c: {"role": "quasi_identifier"} for c in "abcd"}})
    )
    original = tmp_path / "original.csv"
    masked = tmp_path / "masked.csv"
    original.write_text("a,b,c,d\n1,2,3,4\n5,6,7,8\n9,1,2,3\n4,4,4,4\n")
    masked.write_text("a,b,c,d\n1,2,3,5\n5,6,8,8\n9,2,2,3\n4,4,4,3\n")
    return ["risk", "--original", original, "--masked", masked, "-p", policy, "-a", "dbrl", *extra]


def test_risk_output_format_follows_the_extension(cli, tmp_path):
    out = tmp_path / "risk.html"
    res = cli(*risk_args(tmp_path, "-o", out))
    assert res.returncode == 0, res.stderr
    text = " ".join(parse(out.read_text(encoding="utf-8")).text)
    assert "Re-identification rate" in text and "Nearest-neighbour rate" in text
    assert "nearest_neighbour_rate" not in text and "anonymity_set_rate" not in text
    res = cli(*risk_args(tmp_path, "-o", tmp_path / "risk.json"))
    assert res.returncode == 0, res.stderr
    assert json.loads((tmp_path / "risk.json").read_text())["attack"] == "dbrl"


def test_risk_refuses_a_contradicting_format(cli, tmp_path):
    res = cli(*risk_args(tmp_path, "-o", tmp_path / "risk.json", "--format", "html"))
    assert_one_line_error(res, "--format html", "extension means json")
    assert not (tmp_path / "risk.json").exists()
