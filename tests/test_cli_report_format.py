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


# ----------------------------------------------------------------------- check --report (issue 24)


@pytest.mark.parametrize(("name", "kind"), [("r.html", "html"), ("R.HTM", "html"),
                                            ("r.json", "json"), ("r.txt", "text"),
                                            ("r.md", "text")])  # fmt: skip
def test_check_report_file_in_its_format_beside_stdout(cli, tmp_path, name, kind):
    """``check --report FILE`` writes the report in the file's format, as ``anonymize --report``
    does, and stdout still gets what --format says (default text)."""
    res = cli(*check_args(tmp_path, "--report", tmp_path / name))
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("privcheck check")  # stdout: the text, as without --report
    body = (tmp_path / name).read_text(encoding="utf-8")
    if kind == "html":
        page = parse(body)
        assert {"verdict", "summary", "classes"} <= page.ids  # with the details HTML draws
        assert "<svg" in body
    elif kind == "json":  # the report --format json prints (but for its timing)
        printed = json.loads(cli(*check_args(tmp_path, "--format", "json")).stdout)
        written = json.loads(body)
        for d in (printed, written):
            d.pop("elapsed_seconds")
        assert written == printed and written["kind"] == "check"
    else:
        assert body == res.stdout
    assert f"wrote {tmp_path / name}" in res.stderr


def test_check_report_html_leaves_the_printed_json_as_it_was(cli, tmp_path):
    """The HTML file needs the plot data; the JSON printed beside it is the plain one."""
    res = cli(*check_args(tmp_path, "--format", "json", "--report", tmp_path / "r.html"))
    assert res.returncode == 0, res.stderr
    printed = json.loads(res.stdout)
    plain = json.loads(cli(*check_args(tmp_path, "--format", "json")).stdout)
    for d in (printed, plain):
        d.pop("elapsed_seconds")
    assert printed == plain and printed["class_sizes"] is None
    assert "<svg" in (tmp_path / "r.html").read_text(encoding="utf-8")


def test_check_report_and_output_are_both_written(cli, tmp_path):
    res = cli(*check_args(tmp_path, "-o", tmp_path / "out.json", "--report", tmp_path / "r.html"))
    assert res.returncode == 0, res.stderr
    assert res.stdout == ""  # -o took the printed report
    assert json.loads((tmp_path / "out.json").read_text())["passed"] is True
    assert "verdict" in parse((tmp_path / "r.html").read_text(encoding="utf-8")).ids
    assert "wrote" in res.stderr and "out.json" in res.stderr and "r.html" in res.stderr


def test_check_report_of_a_failing_table_exits_1_and_is_written(cli, tmp_path):
    policy = write_policy(tmp_path, {**GOOD_POLICY, "models": [{"model": "k-anonymity", "k": 50}]})
    data = EXAMPLES / "three_diverse.csv"
    res = cli("check", data, "-p", policy, "--report", tmp_path / "r.json")
    assert res.returncode == 1, res.stderr
    assert json.loads((tmp_path / "r.json").read_text())["passed"] is False


@pytest.mark.parametrize("name", ["r.xml", "report"])
def test_check_report_refuses_an_unknown_extension(cli, tmp_path, name):
    res = cli(*check_args(tmp_path, "--report", tmp_path / name))
    assert_one_line_error(res, "--report", "extension", ".json")
    assert not (tmp_path / name).exists() and res.stdout == ""


def test_check_report_is_guarded_like_every_output(cli, tmp_path):
    # naming the policy (an input) is refused before any work, and nothing is written
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps(GOOD_POLICY))
    data = EXAMPLES / "three_diverse.csv"
    before = policy.read_text()
    res = cli("check", data, "-p", policy, "--report", policy)
    assert_one_line_error(res, "--report")
    assert policy.read_text() == before
    # the same file as --output
    res = cli(*check_args(tmp_path, "-o", tmp_path / "r.json", "--report", tmp_path / "r.json"))
    assert_one_line_error(res, "--output", "--report")
    assert not (tmp_path / "r.json").exists()
    # a folder that does not exist
    res = cli(*check_args(tmp_path, "--report", tmp_path / "nowhere" / "r.html"))
    assert_one_line_error(res, "--report")
    # a bad policy: nothing written, not even the report
    res = cli("check", data, "-p", write_policy(tmp_path, "models: [", "bad.yaml"),
              "--report", tmp_path / "bad.html")  # fmt: skip
    assert res.returncode == 2 and not (tmp_path / "bad.html").exists()
