"""The CLI as a pre-release hook sees it: exit codes, report formats, one-line errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from tests.conftest import ADULT, EXAMPLES

GOOD_POLICY = {
    "attributes": {
        "zip": {"role": "quasi_identifier"},
        "age": {"role": "quasi_identifier"},
        "disease": {"role": "sensitive"},
        "salary": {"role": "sensitive"},
    },
    "models": [
        {"model": "k-anonymity", "k": 3},
        {"model": "l-diversity", "variant": "distinct", "l": 3, "attribute": "disease"},
    ],
}


def write_policy(tmp_path: Path, policy: dict | str, name: str = "policy.yaml") -> Path:
    path = tmp_path / name
    path.write_text(policy if isinstance(policy, str) else yaml.safe_dump(policy))
    return path


def assert_one_line_error(result, *needles: str) -> None:
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_passing_table_exits_0_with_json_contract(cli, tmp_path):
    res = cli(
        "check",
        EXAMPLES / "three_diverse.csv",
        "-p",
        write_policy(tmp_path, GOOD_POLICY),
        "--format",
        "json",
    )
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    assert report["passed"] is True
    assert report["n_records"] == 9 and report["n_classes"] == 3
    for m in report["models"]:
        assert {
            "model",
            "params",
            "passed",
            "value",
            "violating_classes",
            "violating_records",
        } <= set(m)
    assert [m["value"] for m in report["models"]] == [3, 3]


def test_failing_table_exits_1_and_names_violators(cli, tmp_path):
    policy = {
        **GOOD_POLICY,
        "models": [
            {"model": "t-closeness", "t": 0.2, "distance": "ordered", "attribute": "salary"}
        ],
    }
    res = cli(
        "check", EXAMPLES / "three_diverse.csv", "-p", write_policy(tmp_path, policy), "-f", "json"
    )
    assert res.returncode == 1
    model = json.loads(res.stdout)["models"][0]
    assert model["value"] == pytest.approx(0.375)
    assert model["violating_classes"] == 2 and model["violating_records"] == 6
    worst = model["violators"][0]
    assert worst["values"] == {"zip": "476**", "age": "2*"}
    assert worst["records"] == [0, 1, 2]


def test_text_and_html_reports(cli, tmp_path):
    policy = write_policy(tmp_path, GOOD_POLICY)
    text = cli("check", EXAMPLES / "t_close.csv", "-p", policy)
    assert text.returncode == 0 and "PASSED" in text.stdout and "k-anonymity" in text.stdout
    out = tmp_path / "report.html"
    res = cli("check", EXAMPLES / "t_close.csv", "-p", policy, "-f", "html", "-o", out)
    assert res.returncode == 0
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and "PASSED" in page and "http" not in page


def test_demo_runs_on_embedded_adult(cli):
    res = cli("demo")
    assert res.returncode == 0, res.stderr
    assert "30162 records" in res.stdout and "18109 classes" in res.stdout


def test_check_adult_policy_from_other_folder(cli, tmp_path):
    """Hierarchy paths resolve against the policy file, not the working directory."""
    res = cli("check", ADULT / "adult.csv", "-p", ADULT / "policy.yaml", "-f", "json", cwd=tmp_path)
    assert res.returncode == 1
    assert json.loads(res.stdout)["n_classes"] == 18109


BAD_INPUTS = {
    "missing column": (
        {
            **GOOD_POLICY,
            "attributes": {**GOOD_POLICY["attributes"], "income": {"role": "quasi_identifier"}},
        },
        None,
        ["'income'", "missing"],
    ),
    "k below 1": (
        {**GOOD_POLICY, "models": [{"model": "k-anonymity", "k": 0}]},
        None,
        ["k", "1"],
    ),
    "l below 1": (
        {**GOOD_POLICY, "models": [{"model": "l-diversity", "l": 0.5, "attribute": "disease"}]},
        None,
        ["l", "1"],
    ),
    "t above 1": (
        {**GOOD_POLICY, "models": [{"model": "t-closeness", "t": 1.5, "attribute": "disease"}]},
        None,
        ["t", "1"],
    ),
    "t below 0": (
        {**GOOD_POLICY, "models": [{"model": "t-closeness", "t": -0.1, "attribute": "disease"}]},
        None,
        ["t", "0"],
    ),
    "unknown model": (
        {**GOOD_POLICY, "models": [{"model": "k-anonimity", "k": 2}]},
        None,
        ["unknown model 'k-anonimity'", "k-anonymity"],
    ),
    "recursive without c": (
        {
            **GOOD_POLICY,
            "models": [
                {"model": "l-diversity", "variant": "recursive", "l": 2, "attribute": "disease"}
            ],
        },
        None,
        ["needs the parameter c"],
    ),
    "attribute not sensitive": (
        {**GOOD_POLICY, "models": [{"model": "l-diversity", "l": 2, "attribute": "zip"}]},
        None,
        ["'zip'", "not a sensitive attribute"],
    ),
    "malformed yaml": ("attributes: {zip: [role: quasi\n  - : :", None, ["not valid YAML"]),
    "unknown role": (
        {"attributes": {"zip": {"role": "quasi"}}, "models": []},
        None,
        ["role"],
    ),
}


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_policy_gives_exit_2_and_one_line(cli, tmp_path, case):
    policy, _, needles = BAD_INPUTS[case]
    res = cli("check", EXAMPLES / "three_diverse.csv", "-p", write_policy(tmp_path, policy))
    assert_one_line_error(res, *needles)


def test_missing_value_in_quasi_identifier(cli, tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("zip,age,disease,salary\n476**,2*,flu,3K\n,2*,flu,4K\n")
    res = cli("check", data, "-p", write_policy(tmp_path, GOOD_POLICY))
    assert_one_line_error(res, "'zip'", "missing", "own_class")


def test_missing_value_own_class_is_a_class(cli, tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("zip,age,disease,salary\n476**,2*,flu,3K\n,2*,flu,4K\n,2*,flu,4K\n")
    policy = {**GOOD_POLICY, "missing": "own_class", "models": [{"model": "k-anonymity", "k": 2}]}
    res = cli("check", data, "-p", write_policy(tmp_path, policy), "-f", "json")
    report = json.loads(res.stdout)
    assert res.returncode == 1 and report["n_classes"] == 2
    assert report["models"][0]["value"] == 1


def test_value_absent_from_hierarchy(cli, tmp_path):
    (tmp_path / "race.csv").write_text("Black;Person;*\nWhite;Person;*\n")
    policy = {
        "attributes": {
            "race": {"role": "quasi_identifier", "hierarchy": {"type": "table", "path": "race.csv"}}
        },
        "models": [{"model": "k-anonymity", "k": 2}],
    }
    data = tmp_path / "d.csv"
    data.write_text("race\nBlack\nAsian\n")
    res = cli("check", data, "-p", write_policy(tmp_path, policy))
    assert_one_line_error(res, "'Asian'", "'race'", "not in its hierarchy")


def test_hierarchy_not_a_tree(cli, tmp_path):
    (tmp_path / "zip.csv").write_text("02138;0213*;021**;*\n02139;0213*;022**;*\n")
    policy = {
        "attributes": {
            "zip": {"role": "quasi_identifier", "hierarchy": {"type": "table", "path": "zip.csv"}}
        },
        "models": [{"model": "k-anonymity", "k": 2}],
    }
    data = tmp_path / "d.csv"
    data.write_text("zip\n02138\n02139\n")
    res = cli("check", data, "-p", write_policy(tmp_path, policy))
    assert_one_line_error(res, "not a tree", "'0213*'")


def test_check_groups_released_values_as_they_stand(cli, tmp_path):
    """A generalized release is checked against the policy it was made under: labels of any
    hierarchy level and the suppression mark are values, not errors."""
    policy = {
        "attributes": {
            "age": {"role": "quasi_identifier", "hierarchy": {"type": "intervals", "widths": [10]}},
            "race": {
                "role": "quasi_identifier",
                "hierarchy": {
                    "type": "table",
                    "rows": [["Black", "Person", "*"], ["White", "Person", "*"]],
                },
            },
        },
        "models": [{"model": "k-anonymity", "k": 2}],
    }
    data = tmp_path / "release.csv"
    data.write_text("age,race\n30-39,Person\n30-39,Person\n*,*\n*,*\n")
    res = cli("check", data, "-p", write_policy(tmp_path, policy), "-f", "json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["n_classes"] == 2
    data.write_text("age,race\n30-39,Asian\n30-39,Person\n")
    res = cli("check", data, "-p", write_policy(tmp_path, policy))
    assert_one_line_error(res, "'Asian'", "not in its hierarchy at any level")


@pytest.mark.parametrize("what", ["data", "policy"])
def test_missing_files(cli, tmp_path, what):
    policy = write_policy(tmp_path, GOOD_POLICY)
    data = EXAMPLES / "three_diverse.csv"
    args = (tmp_path / "nope.csv", policy) if what == "data" else (data, tmp_path / "nope.yaml")
    res = cli("check", args[0], "-p", args[1])
    assert_one_line_error(res, "not found", "nope")


def test_failed_write_leaves_no_partial_file(cli, tmp_path):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    bad_policy = write_policy(
        tmp_path, {**GOOD_POLICY, "models": [{"model": "k-anonymity", "k": 0}]}
    )
    res = cli("check", EXAMPLES / "three_diverse.csv", "-p", bad_policy, "-o", out_dir / "r.json")
    assert res.returncode == 2
    assert list(out_dir.iterdir()) == []


def test_usage_error_is_exit_2(cli):
    res = cli("check")
    assert res.returncode == 2


def test_version(cli):
    """``privcheck --version`` prints the installed version (the package's own when not
    installed) and exits 0, without a command."""
    from importlib.metadata import PackageNotFoundError, version

    import privcheck

    try:
        expected = version("privcheck")
    except PackageNotFoundError:
        expected = privcheck.__version__
    res = cli("--version")
    assert res.returncode == 0, res.stderr
    assert res.stdout == f"privcheck {expected}\n" and res.stderr == ""
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", expected)
