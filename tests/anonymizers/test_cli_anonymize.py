"""``privcheck anonymize`` and ``privcheck check --linked-with`` as a user runs them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import yaml
from anon_helpers import ROOT, race_zip_policy

from tests.conftest import EXAMPLES, run_cli

ENV = {"PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def cli(*args):
    return run_cli(*args, env=ENV)


def write_policy(tmp_path: Path, policy: dict, name: str = "policy.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(policy))
    return path


def assert_one_line_error(result, *needles: str) -> None:
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_anonymize_writes_release_and_report(tmp_path):
    policy = write_policy(tmp_path, race_zip_policy(2))
    out, rep = tmp_path / "release.csv", tmp_path / "report.json"
    res = cli(
        "anonymize",
        EXAMPLES / "race_zip.csv",
        "-p",
        policy,
        "-o",
        out,
        "--algorithm",
        "mingen",
        "--report",
        rep,
        "--keep-order",
    )
    assert res.returncode == 0, res.stderr
    assert "released 8 of 8 records" in res.stdout
    release = pd.read_csv(out, dtype=str)
    assert release["zip"].tolist() == ["0213*", "0213*", "0214*", "0214*"] * 2
    report = json.loads(rep.read_text())
    assert report["kind"] == "anonymization" and report["algorithm"] == "mingen"
    assert report["node"] == {"race": 0, "zip": 1}
    assert report["n_kept"] + report["n_suppressed"] == report["n_records"] == 8
    assert report["check"]["passed"] is True
    # the release passes a check with the very policy that made it
    assert cli("check", out, "-p", policy).returncode == 0
    # a guarded follow-up release and the linked check of the pair
    out2 = tmp_path / "second.csv"
    res = cli(
        "anonymize",
        EXAMPLES / "race_zip.csv",
        "-p",
        policy,
        "-o",
        out2,
        "--previous",
        rep,
        "--keep-order",
    )
    assert res.returncode == 0, res.stderr
    assert cli("check", out, "-p", policy, "--linked-with", out2).returncode == 0


def test_linked_check_of_an_unguarded_pair_fails(tmp_path):
    policy = write_policy(tmp_path, race_zip_policy(2))
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    prev = tmp_path / "prev.json"
    prev.write_text(json.dumps({"node": {"race": 1, "zip": 0}}))
    assert (
        cli(
            "anonymize", EXAMPLES / "race_zip.csv", "-p", policy, "-o", a, "--keep-order"
        ).returncode
        == 0
    )
    assert (
        cli(
            "anonymize",
            EXAMPLES / "race_zip.csv",
            "-p",
            policy,
            "-o",
            b,
            "--keep-order",
            "--previous",
            prev,
        ).returncode
        == 0
    )
    res = cli("check", a, "-p", policy, "--linked-with", b, "--format", "json")
    assert res.returncode == 1, res.stderr
    report = json.loads(res.stdout)
    assert report["passed"] is False and report["n_classes"] == 8
    assert report["models"][0]["value"] == 1


def test_impossible_policies_exit_2_and_leave_nothing_behind(tmp_path):
    out = tmp_path / "release.csv"
    data = EXAMPLES / "race_zip.csv"
    res = cli("anonymize", data, "-p", write_policy(tmp_path, race_zip_policy(9)), "-o", out)
    assert_one_line_error(res, "k=9", "only 8 records")
    diverse = {
        **race_zip_policy(2),
        "models": [{"model": "l-diversity", "variant": "distinct", "l": 3, "attribute": "race"}],
    }
    diverse["attributes"] = {**diverse["attributes"], "race": {"role": "sensitive"}}
    res = cli("anonymize", data, "-p", write_policy(tmp_path, diverse), "-o", out)
    assert_one_line_error(res, "l=3", "'race' has only 2 distinct values")
    res = cli(
        "anonymize",
        data,
        "-p",
        write_policy(tmp_path, race_zip_policy(2)),
        "-o",
        out,
        "--algorithm",
        "flash",
    )
    assert_one_line_error(res, "unknown algorithm 'flash'", "incognito")
    assert list(tmp_path.glob("release*")) == [] and list(tmp_path.glob(".release*")) == []


def test_nothing_satisfies_within_the_limit(tmp_path):
    policy = {
        **race_zip_policy(2),
        "models": [
            {"model": "k-anonymity", "k": 2},
            {"model": "t-closeness", "t": 0.0, "attribute": "race"},
        ],
    }
    policy["attributes"] = {"zip": policy["attributes"]["zip"], "race": {"role": "sensitive"}}
    frame = pd.read_csv(EXAMPLES / "race_zip.csv", dtype=str).iloc[:7]
    data = tmp_path / "seven.csv"
    frame.to_csv(data, index=False)
    res = cli("anonymize", data, "-p", write_policy(tmp_path, policy), "-o", tmp_path / "r.csv")
    assert res.returncode == 0, res.stderr  # the top node is one class with EMD 0
    policy["attributes"]["zip"]["hierarchy"] = {"type": "masking", "levels": 1}
    path = write_policy(tmp_path, policy)
    res = cli("anonymize", data, "-p", path, "-o", tmp_path / "r.csv", "-a", "mingen")
    assert_one_line_error(res, "within the suppression limit of 0 records")
    # no full-domain node fits, but Mondrian may put every record in one box: auto finds it
    res = cli(
        "anonymize", data, "-p", path, "-o", tmp_path / "r.csv", "--report", tmp_path / "r.json"
    )
    assert res.returncode == 0, res.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["chosen"] == "mondrian" and report["algorithm"] == "auto"
    mingen = next(c for c in report["candidates"] if c["algorithm"] == "mingen")
    assert not mingen["passed"] and "suppression limit" in mingen["excluded_reason"]


def test_demo_shows_check_anonymize_check():
    res = cli("demo")
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert out.index("1. check") < out.index("2. anonymize") < out.index("3. check")
    assert "FAILED" in out.split("2. anonymize")[0]
    after = out.split("3. check")[1]
    assert "adult-release.csv: PASSED" in after and "chose " in out.split("3. check")[0]
    report = Path(out.rsplit("(HTML, with pictures): ", 1)[1].strip())
    assert report.is_file() and (report.parent / "adult-release.csv").is_file()
