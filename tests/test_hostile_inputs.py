"""A pre-release gate whose inputs are written by an attacker (or met by an unlucky operator).

Every case runs the real CLI in a subprocess with a time limit and asserts the contract: exit 0,
1 or 2 as documented; for 2 one line on stderr and no traceback; no file written or replaced on
2; every input byte-identical afterwards; no hang. The cases are issue 22's defects and their
variations: special files as outputs and inputs, alias bombs, deep nesting, repeated keys, other
encodings, non-finite or mistyped numbers, unreadable folders and full disks.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLES, run_cli

ROOT = Path(__file__).resolve().parent.parent
POLICY = {
    "attributes": {
        "zip": {"role": "quasi_identifier"},
        "age": {"role": "quasi_identifier"},
        "disease": {"role": "sensitive"},
    },
    "models": [{"model": "k-anonymity", "k": 3}],
}
#: 451 bytes of YAML naming 9^9 values ("billion laughs")
ALIAS_BOMB = "".join(
    f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True)
)
ALIAS_BOMB = 'a: &a ["x","x","x","x","x","x","x","x","x"]\n' + ALIAS_BOMB


def run(*args, cwd: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """``privcheck ARGS`` in this process (``run_cli``), stopped after ``timeout`` seconds (a
    FIFO opened and never written would otherwise hang the test)."""
    return run_cli(*map(str, args), cwd=cwd, timeout=timeout)


def refused(res: subprocess.CompletedProcess, *needles: str) -> str:
    assert res.returncode == 2, (res.returncode, res.stdout, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def snapshot(folder: Path) -> dict[str, str]:
    """Every regular file under ``folder`` (and the kind of everything else): nothing may be
    written, replaced or left behind by a refused command."""
    out = {}
    for p in sorted(folder.rglob("*")):
        mode = os.lstat(p).st_mode
        out[str(p.relative_to(folder))] = (
            digest(p) if stat.S_ISREG(mode) else f"kind {stat.S_IFMT(mode)}"
        )
    return out


@pytest.fixture
def work(tmp_path) -> tuple[Path, Path, Path]:
    data = tmp_path / "d.csv"
    data.write_bytes((EXAMPLES / "three_diverse.csv").read_bytes())
    policy = tmp_path / "policy.yaml"
    policy.write_text(yaml.safe_dump(POLICY))
    return tmp_path, data, policy


# --------------------------------------------------------------------------- outputs


def _special_outputs(root: Path) -> dict[str, Path]:
    target = root / "target.txt"
    target.write_text("keep me\n")
    link = root / "link.json"
    link.symlink_to(target)
    fifo = root / "pipe.json"
    os.mkfifo(fifo)
    return {"symlink": link, "fifo": fifo, "device": Path("/dev/null")}


@pytest.mark.parametrize("kind", ["symlink", "fifo", "device"])
def test_an_output_that_is_not_a_regular_file_is_refused_and_left_alone(work, kind):
    root, data, policy = work
    out = _special_outputs(root)[kind]
    before = snapshot(root)
    mode = os.lstat(out).st_mode
    commands = [
        ["check", data, "-p", policy, "-o", out],
        ["anonymize", data, "-p", policy, "-o", out.with_suffix(".csv"), "--seed", "1"]
        if kind != "device"
        else ["anonymize", data, "-p", policy, "-o", "/dev/null", "--seed", "1"],
        ["anonymize", data, "-p", policy, "-o", root / "r.csv", "--report", out],
        ["risk", "--original", data, "--masked", data, "-p", policy, "-a", "uniqueness", "-o", out],
        ["compare", data, data, "-p", policy, "-o", out],
        ["schema", "-o", out],
    ]
    for args in commands:
        if kind != "device" and args[0] == "anonymize" and "--report" not in args:
            out.with_suffix(".csv").unlink(missing_ok=True)
            os.symlink(out, out.with_suffix(".csv")) if kind == "symlink" else os.mkfifo(
                out.with_suffix(".csv")
            )
        res = run(*args, timeout=30)
        line = refused(res)  # (a device named without extension may be refused for that first)
        assert kind_words(kind) in line or "extension" in line, line
        assert os.lstat(out).st_mode == mode  # still the link / FIFO / device
        if args[0] == "anonymize" and "--report" not in args and kind != "device":
            out.with_suffix(".csv").unlink()
    assert snapshot(root) == before
    if kind == "symlink":
        assert (root / "target.txt").read_text() == "keep me\n"


def kind_words(kind: str) -> str:
    return {"symlink": "symbolic link", "fifo": "FIFO", "device": "character device"}[kind]


def test_dash_prints_a_report_on_standard_output(work):
    root, data, policy = work
    before = snapshot(root)
    res = run("check", data, "-p", policy, "-o", "-", "-f", "json")
    assert res.returncode in (0, 1) and json.loads(res.stdout)["n_records"] == 9
    res = run("compare", data, data, "-p", policy, "-o", "-", "-f", "json")
    assert res.returncode == 0 and json.loads(res.stdout)
    assert snapshot(root) == before  # no file named '-'
    refused(run("anonymize", data, "-p", policy, "-o", "-"), "written to a file")


@pytest.mark.parametrize("name", ["release.json", "release.xlsx", "release"])
def test_a_release_must_have_an_extension_privcheck_reads_back(work, name):
    root, data, policy = work
    before = snapshot(root)
    refused(run("anonymize", data, "-p", policy, "-o", root / name), ".csv, .tsv or .parquet")
    assert snapshot(root) == before


def _mount_tmpfs(path: Path, *options: str) -> bool:
    """A small tmpfs at ``path`` (root only): a read-only or full file system, for real."""
    if os.geteuid() != 0:
        return False
    path.mkdir()
    res = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", ",".join(options), "tmpfs", str(path)],
        capture_output=True,
    )
    return res.returncode == 0


@pytest.fixture
def small_fs(tmp_path):
    mounted: list[Path] = []

    def make(name: str, *options: str) -> Path:
        path = tmp_path / name
        if _mount_tmpfs(path, *options):
            mounted.append(path)
        else:  # an ordinary user: a folder without write permission
            path.mkdir(exist_ok=True)
            if "ro" in options:
                path.chmod(0o555)
            else:
                pytest.fail("a full file system needs root to mount a tmpfs")
        return path

    yield make
    for path in mounted:
        subprocess.run(["umount", str(path)], check=False)


def test_a_read_only_output_folder_is_refused_before_the_work(work, small_fs):
    root, data, policy = work
    folder = small_fs("ro", "ro", "size=64k")
    res = run("anonymize", data, "-p", policy, "-o", folder / "r.csv", "--report", root / "r.json")
    refused(res, "cannot write in the folder")
    assert not (root / "r.json").exists() and list(folder.iterdir()) == []


def test_a_full_disk_is_one_line_and_leaves_no_half_result(work, small_fs):
    root, data, policy = work
    full = small_fs("full", "size=16k")
    (full / "filler").write_bytes(b"x" * 16384)
    refused(run("check", data, "-p", policy, "-o", full / "r.json"), "cannot write in the folder")
    (full / "filler").unlink()
    (full / "filler").write_bytes(b"x" * 12288)  # room for the probe, not for an HTML report
    res = run("anonymize", data, "-p", policy, "-o", root / "r.csv", "--report", full / "r.html")
    refused(res, "nothing was written")
    assert not (root / "r.csv").exists()  # the release went with its report
    assert sorted(p.name for p in full.iterdir()) == ["filler"]
    assert sorted(p.name for p in root.iterdir()) == ["d.csv", "full", "policy.yaml"]


# --------------------------------------------------------------------------- inputs


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_data_that_is_not_a_regular_file_is_refused_without_reading(work, kind):
    root, data, policy = work
    special = {"fifo": root / "pipe.csv", "device": Path("/dev/zero"), "folder": root / "dir.csv"}
    path = special[kind]
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    for args in (
        ["check", path, "-p", policy],
        ["anonymize", path, "-p", policy, "-o", root / "r.csv"],
        ["risk", "--original", path, "--masked", data, "-p", policy, "-a", "uniqueness"],
        ["hook", path],
    ):
        res = run(*args, timeout=10, cwd=root)
        assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert not (root / "r.csv").exists()


def _write(root: Path, name: str, content: str | bytes) -> Path:
    path = root / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


BAD_POLICIES: dict[str, tuple[str | bytes, str]] = {
    "bomb.yaml": (ALIAS_BOMB + yaml.safe_dump(POLICY), "alias"),
    "deep.yaml": ("attributes: " + "[" * 50_000 + "]" * 50_000 + "\n", "nested more than"),
    "deep.json": ('{"attributes": ' + "[" * 50_000 + "]" * 50_000 + "}", "nested more than"),
    "dup.yaml": (
        yaml.safe_dump(POLICY) + "attributes:\n  zip: {role: insensitive}\n",
        "appears twice",
    ),
    "dup.json": (json.dumps(POLICY)[:-1] + ', "models": []}', "appears twice"),
    "latin1.yaml": ("# Zürich\n".encode("latin-1") + yaml.safe_dump(POLICY).encode(), "UTF-8"),
    "utf16.yaml": (yaml.safe_dump(POLICY).encode("utf-16"), "UTF-8"),
    "inf.yaml": (
        yaml.safe_dump(POLICY).replace("models:", "models:\n- {model: l-diversity, variant: "
                                       "entropy, l: .inf}"),
        "finite",
    ),
    "inf.json": (
        json.dumps({**POLICY, "models": [{"model": "t-closeness", "t": float("inf")}]}),
        "finite",
    ),
    "nan.json": (
        json.dumps({**POLICY, "models": [{"model": "l-diversity", "variant": "entropy",
                                          "l": float("nan")}]}),
        "finite",
    ),
    "ktrue.yaml": (yaml.safe_dump({**POLICY, "models": [{"model": "k-anonymity", "k": True}]}),
                   "valid integer"),
    "kfloat.yaml": (yaml.safe_dump({**POLICY, "models": [{"model": "k-anonymity", "k": 2.5}]}),
                    "valid integer"),
    "kstring.json": (json.dumps({**POLICY, "models": [{"model": "k-anonymity", "k": "3"}]}),
                     "valid integer"),
    "topstring.yaml": (
        yaml.safe_dump({
            **POLICY,
            "attributes": {**POLICY["attributes"], "age": {
                "role": "quasi_identifier",
                "hierarchy": {"type": "intervals", "widths": [10], "top": "maybe"}}},
        }),
        "valid boolean",
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", list(BAD_POLICIES))
def test_a_hostile_policy_is_one_line_in_bounded_time(work, name):
    root, data, _ = work
    content, needle = BAD_POLICIES[name]
    policy = _write(root, name, content)
    before = snapshot(root)
    for args in (
        ["check", data, "-p", policy],
        ["anonymize", data, "-p", policy, "-o", root / "r.csv"],
    ):
        refused(run(*args, timeout=10), needle)
    assert snapshot(root) == before


def test_entropy_l_of_infinity_no_longer_passes(work):
    root, data, _ = work
    policy = _write(root, "p.yaml", BAD_POLICIES["inf.yaml"][0])
    line = refused(run("check", data, "-p", policy, "-f", "json"), "models[0].l is inf")
    assert "numbers must be finite" in line


@pytest.mark.parametrize(
    "param, needle",
    [
        ("{" + ALIAS_BOMB.strip().replace("\n", ", ") + "}", "alias"),
        ("[" * 10_000 + "]" * 10_000, "nested more than"),
        ("{a: 1, a: 2}", "appears twice"),
        (".inf", "finite"),
    ],
)
def test_hostile_params_are_one_line(work, param, needle):
    root, data, policy = work
    res = run("anonymize", data, "-p", policy, "-o", root / "r.csv", "--param", f"k={param}")
    refused(res, needle)
    assert not (root / "r.csv").exists()


def test_hostile_transformation_files_are_one_line(work):
    root, data, policy = work
    for name, content, needle in (
        ("deep.json", "[" * 50_000 + "]" * 50_000, "nested more than"),
        ("dup.json", '{"node": {"zip": 0}, "node": {"zip": 1}}', "appears twice"),
        ("latin.json", '{"node": "\xe9"}'.encode("latin-1"), "UTF-8"),
    ):
        t = _write(root, name, content)
        refused(run("apply", data, "-t", t, "-p", policy, "-o", root / "r.csv"), needle)
    os.mkfifo(root / "pipe.json")
    refused(run("apply", data, "-t", root / "pipe.json", "-p", policy, "-o", root / "r.csv",
                timeout=10), "FIFO")  # fmt: skip
    assert not (root / "r.csv").exists()


@pytest.mark.parametrize(
    "config, needle",
    [
        ('[[check]]\nfiles = ["*.csv"]\npolicy = "p\xe9.yaml"\n'.encode("latin-1"), "UTF-8"),
        ("a = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
        ("check = [\n", "not valid TOML"),
    ],
)
def test_a_hostile_hook_config_is_one_line_on_stderr(work, config, needle):
    root, _, _ = work
    _write(root, "privcheck.toml", config)
    res = run("hook", "d.csv", cwd=root, timeout=10)
    refused(res, needle)
    assert res.stdout == ""


def test_hook_reports_bad_data_on_stderr(work):
    root, _, _ = work
    (root / "bad.csv").write_text("zip,age\n1,2\n")
    _write(root, "privcheck.toml", '[[check]]\nfiles = ["*.csv"]\npolicy = "policy.yaml"\n')
    res = run("hook", "bad.csv", cwd=root)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.startswith("bad.csv: ERROR") and "'disease'" in res.stderr


def test_missing_values_in_a_sensitive_column_no_model_reads_are_an_input_error(work):
    root, _, _ = work
    data = _write(root, "m.csv", "zip,age,disease,other\n1,2,flu,\n1,2,flu,x\n1,2,flu,y\n")
    policy = _write(
        root,
        "m.yaml",
        yaml.safe_dump(
            {
                "attributes": {**POLICY["attributes"], "other": {"role": "sensitive"}},
                "models": [{"model": "k-anonymity", "k": 3}],
            }
        ),
    )
    refused(run("check", data, "-p", policy), "'other' has 1 missing value")
    refused(run("anonymize", data, "-p", policy, "-o", root / "r.csv"), "'other' has 1 missing")
    own = _write(root, "own.yaml", policy.read_text() + "missing: own_class\n")
    assert run("check", data, "-p", own).returncode == 0


def test_usage_errors_are_one_line(work):
    _, data, policy = work
    refused(run("check", data, "--no-such-option"), "No such option")
    refused(run("check", data), "Missing option")
    refused(run("check", data, "-p", policy, "--max-violators", "x"), "max-violators")
    refused(run("anonymize", data, "-p", policy), "Missing option")


def test_fifos_given_to_other_inputs_of_other_commands_are_refused(work):
    root, data, policy = work
    fifo = root / "pipe.csv"
    os.mkfifo(fifo)
    graph_policy = _write(root, "g.yaml", "models:\n  - {model: k-degree, k: 2}\n")
    for args in (
        ["check", "--graph", fifo, "-p", graph_policy],
        ["check", data, "-p", policy, "--linked-with", fifo],
        ["check", fifo, "-p", policy, "--engine", "polars"],
        ["check", fifo, "-p", policy, "--engine", "duckdb"],
        ["compare", data, fifo, "-p", policy],
        ["risk", "--original", data, "--masked", fifo, "-p", policy, "-a", "uniqueness"],
        ["risk", "--original", data, "--masked", data, "-p", policy, "-a", "uniqueness",
         "--intruder-records", fifo],
    ):  # fmt: skip
        refused(run(*args, timeout=20), "FIFO")
