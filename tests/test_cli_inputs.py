"""Bad input through every table subcommand, and outputs that would destroy what the user owns.

Each case is what a user (or a pre-release hook) meets in practice: a file that is not there, a
0-byte file, a header without rows, a delimiter privcheck does not detect, a repeated column name,
a ragged row, a BOM with Windows line endings, standard input. The contract: exit 2, one line on
stderr naming the problem, no traceback, and no output file. An output that names an input (by any
spelling: ``./x/../d.csv``, a symlink, a hard link), another output, a directory or a folder that
does not exist is refused the same way before any work, and the input stays byte-for-byte intact.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from tests.test_cli import assert_one_line_error, write_policy

POLICY = {
    "attributes": {
        "a": {"role": "quasi_identifier"},
        "b": {"role": "quasi_identifier"},
        "s": {"role": "sensitive"},
    },
    "models": [{"model": "k-anonymity", "k": 2}],
}

#: name → (file bytes, what the one-line error must mention)
BAD_FILES: dict[str, tuple[bytes | None, str]] = {
    "absent.csv": (None, "not found"),
    "zero.csv": (b"", "empty"),
    "colon.csv": (b"a:b:s\n1:2:3\n1:2:3\n", "delimiter"),
    "duplicate.csv": (b"a,a,b,s\n1,2,3,4\n1,2,3,4\n", "'a' appears twice"),
    "ragged.csv": (b"a,b,s\n1,2,3\n1,2\n", "Expected 3 columns, got 2"),
    "extra.csv": (b"a,b,s\n1,2,3\n1,2,3,4,5\n", "Expected 3 columns, got 5"),
    "latin1.csv": (b"a,b,s\n\xe9,2,3\n", "pass --encoding cp1252"),
    "corrupt.parquet": (b"not parquet at all", "cannot read"),
    "-": (None, "standard input"),
}


def _make(tmp_path: Path, name: str) -> Path | str:
    content, _ = BAD_FILES[name]
    if name == "-":
        return "-"
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    return path


def _commands(data, policy: Path, out: Path) -> dict[str, list]:
    return {
        "check": ["check", data, "-p", policy, "-o", out],
        "anonymize": ["anonymize", data, "-p", policy, "-o", out, "--seed", "1"],
        "risk": ["risk", "--original", data, "--masked", data, "-p", policy, "--attack", "dbrl"],
    }


@pytest.mark.parametrize("name", list(BAD_FILES))
@pytest.mark.parametrize("command", ["check", "anonymize", "risk"])
def test_bad_data_file_is_one_line_exit_2_and_writes_nothing(cli, tmp_path, name, command):
    policy = write_policy(tmp_path, POLICY)
    data = _make(tmp_path, name)
    out = tmp_path / "out" / "result.csv"
    out.parent.mkdir()
    res = cli(*_commands(data, policy, out)[command])
    assert_one_line_error(res, BAD_FILES[name][1])
    assert list(out.parent.iterdir()) == []


def test_header_only_table_is_refused_unless_allowed(cli, tmp_path):
    policy = write_policy(
        tmp_path,
        {
            **POLICY,
            "models": [
                {"model": "k-anonymity", "k": 2},
                {"model": "l-diversity", "variant": "recursive", "l": 2, "c": 2},
                {"model": "t-closeness", "t": 0.3},
            ],
        },
    )
    data = tmp_path / "header.csv"
    data.write_text("a,b,s\n")
    assert_one_line_error(cli("check", data, "-p", policy), "no records", "--allow-empty")
    assert_one_line_error(
        cli("anonymize", data, "-p", policy, "-o", tmp_path / "r.csv"), "no records"
    )
    assert not (tmp_path / "r.csv").exists()
    res = cli("check", data, "-p", policy, "--allow-empty", "-f", "json")
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    assert report["passed"] is True and report["n_records"] == 0
    # nothing was measured: null, and not "unbounded" (an infinite EMD is never shown as a pass)
    assert [(m["value"], m["unbounded"]) for m in report["models"]] == [(None, False)] * 3
    text = cli("check", data, "-p", policy, "--allow-empty").stdout
    assert "∞" not in text and "n/a" in text


def test_bom_and_windows_line_endings_read_like_plain_csv(cli, tmp_path):
    policy = write_policy(tmp_path, POLICY)
    plain = tmp_path / "plain.csv"
    plain.write_bytes(b"a,b,s\n1,2,x\n1,2,y\n3,4,x\n3,4,z\n")
    bom = tmp_path / "bom.csv"
    bom.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes().replace(b"\n", b"\r\n"))
    reports = [json.loads(cli("check", f, "-p", policy, "-f", "json").stdout) for f in (plain, bom)]
    for r in reports:
        r.pop("source"), r.pop("elapsed_seconds")
    assert reports[0] == reports[1]
    assert reports[0]["n_records"] == 4 and reports[0]["passed"] is True


def test_quoted_fields_with_delimiters_and_newlines(cli, tmp_path):
    policy = write_policy(tmp_path, POLICY)
    data = tmp_path / "quoted.csv"
    data.write_text('a,b,s\n"x, y",2,"multi\nline"\n"x, y",2,plain\n')
    res = cli("check", data, "-p", policy, "-f", "json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["n_classes"] == 1


def test_a_folder_as_data_is_refused(cli, tmp_path):
    policy = write_policy(tmp_path, POLICY)
    folder = tmp_path / "folder"
    folder.mkdir()
    assert_one_line_error(cli("check", folder, "-p", policy), "folder without Parquet files")


# --------------------------------------------------------------------------- outputs


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def workdir(tmp_path):
    """A folder with a data file, a policy with a hierarchy file, and a report to pass back."""
    data = tmp_path / "d.csv"
    zips = ["47677", "47678", "47602", "47605", "47606"]
    rows = [
        f"{zips[i % 5]},{20 + (7 * i) % 45},{3 + i % 9}K,{('flu', 'ulcer', 'cold')[i % 3]}"
        for i in range(30)
    ]
    data.write_text("zip,age,salary,disease\n" + "\n".join(rows) + "\n")
    (tmp_path / "hierarchies").mkdir()
    (tmp_path / "hierarchies" / "zip.csv").write_text("".join(f"{z};{z[:3]}**;*\n" for z in zips))
    policy = write_policy(
        tmp_path,
        {
            "attributes": {
                "zip": {
                    "role": "quasi_identifier",
                    "hierarchy": {"type": "table", "path": "hierarchies/zip.csv"},
                },
                "age": {
                    "role": "quasi_identifier",
                    "hierarchy": {"type": "intervals", "widths": [10, 20]},
                },
                "disease": {"role": "sensitive"},
                "salary": {"role": "insensitive"},
            },
            "models": [{"model": "k-anonymity", "k": 3}],
        },
    )
    return tmp_path, data, policy


def _aliases(root: Path, data: Path) -> dict[str, Path]:
    (root / "sub").mkdir(exist_ok=True)
    link = root / "link.csv"
    link.symlink_to(data)
    hard = root / "hard.csv"
    os.link(data, hard)
    return {
        "same": data,
        "dotdot": root / "sub" / ".." / "d.csv",
        "missing-dotdot": root / "nosuch" / ".." / "d.csv",
        "symlink": link,
        "hardlink": hard,
    }


@pytest.mark.parametrize("spelling", ["same", "dotdot", "missing-dotdot", "symlink", "hardlink"])
def test_output_aliasing_the_input_is_refused(cli, workdir, spelling):
    root, data, policy = workdir
    alias = _aliases(root, data)[spelling]
    before = _digest(data)
    for args in (
        ["anonymize", data, "-p", policy, "-o", alias],
        ["anonymize", data, "-p", policy, "-o", root / "r.csv", "--report", alias],
        ["check", data, "-p", policy, "-o", alias],
    ):
        res = cli(*args)
        assert res.returncode == 2, (args, res.stdout, res.stderr)
        assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr
        assert _digest(data) == before
    assert not (root / "r.csv").exists()


def test_outputs_never_overwrite_policy_or_hierarchy_or_each_other(cli, workdir):
    root, data, policy = workdir
    saved = {p: _digest(p) for p in (policy, root / "hierarchies" / "zip.csv")}
    cases = [
        (["-o", policy], "never overwrites"),
        (["-o", root / "hierarchies" / "zip.csv"], "never overwrites"),
        (["-o", root / "r.json", "--report", root / "." / "r.json"], "both name"),
        (["-o", root], "is a directory"),
        (["-o", root / "no" / "such" / "r.csv"], "does not exist"),
    ]
    for extra, needle in cases:
        res = cli("anonymize", data, "-p", policy, *extra)
        assert_one_line_error(res, needle)
    assert {p: _digest(p) for p in saved} == saved
    assert sorted(p.name for p in root.iterdir()) == ["d.csv", "hierarchies", "policy.yaml"]


def test_risk_and_apply_outputs_are_guarded(cli, workdir):
    root, data, policy = workdir
    released = root / "released.csv"
    report = root / "report.json"
    res = cli("anonymize", data, "-p", policy, "-o", released, "--report", report, "--keep-order")
    assert res.returncode == 0, res.stderr
    before = _digest(released)
    res = cli(
        "risk",
        "--original",
        data,
        "--masked",
        released,
        "-p",
        policy,
        "--attack",
        "dbrl",
        "-o",
        released,
    )
    assert_one_line_error(res, "never overwrites")
    res = cli("apply", data, "-t", report, "-p", policy, "-o", report)
    assert_one_line_error(res, "never overwrites")
    assert _digest(released) == before


def test_risk_output_never_overwrites_a_file_it_reads(cli, workdir):
    """Every file risk reads is an input of the output guard, not only --original, --masked and
    the policy: the intruder's rows file and a model file given as a parameter (skops or
    pickle, by any spelling). Each -o naming one: exit 2, one line, nothing written, the file
    byte-identical (before, each of these exited 0 with the input replaced by the report)."""
    import joblib
    import skops.io
    from sklearn.linear_model import LogisticRegression

    root, data, policy = workdir
    rows = root / "rows.txt"
    rows.write_text("0\n3\n7\n")
    fitted = LogisticRegression().fit([[0.0], [1.0]], [0, 1])
    secure, pickled = root / "model.skops", root / "model.joblib"
    skops.io.dump(fitted, secure)
    joblib.dump(fitted, pickled)
    saved = {p: _digest(p) for p in (rows, secure, pickled)}
    base = ["risk", "--original", data, "--masked", data, "-p", policy]
    cases = [
        ["--attack", "dbrl", "--intruder-records", rows, "-o", rows],
        ["--attack", "dbrl", "--intruder-records", rows, "-o", f"{root}/./rows.txt", "-f", "json"],
        ["--attack", "uniqueness", "--intruder-records", "rows.txt", "-o", rows],
    ]
    for model in (secure, pickled):
        attack = ["--attack", "membership-inference", "--param", "target=disease"]
        cases.append([*attack, "--param", f"model={model}", "-o", model])
        cases.append([*attack, "--param", f"model={model}", "--trust-model-file", "-o", model])
    for extra in cases:
        res = cli(*base, *extra, cwd=root)
        assert_one_line_error(res, "never overwrites")
        assert res.stdout == ""
    assert {p: _digest(p) for p in saved} == saved
    assert sorted(p.name for p in root.iterdir()) == [
        "d.csv",
        "hierarchies",
        "model.joblib",
        "model.skops",
        "policy.yaml",
        "rows.txt",
    ]
    # a number of records is not a file: the report is written
    res = cli(*base, "--attack", "dbrl", "--intruder-records", "5", "-o", root / "5.json")
    assert res.returncode == 0, res.stderr
    assert json.loads((root / "5.json").read_text())["n_intruder_records"] == 5


def test_dropped_columns_are_named_on_stderr(cli, workdir):
    root, data, policy = workdir
    extra = root / "extra.csv"
    lines = data.read_text().splitlines()
    extra.write_text(
        "\n".join([lines[0] + ",note,id"] + [f"{x},n{i},{i}" for i, x in enumerate(lines[1:])])
    )
    res = cli("anonymize", extra, "-p", policy, "-o", root / "r.csv", "--seed", "1")
    assert res.returncode == 0, res.stderr
    note = [line for line in res.stderr.splitlines() if line.startswith("note: dropped")]
    assert note and "note, id" in note[0] and "role: insensitive" in note[0]
