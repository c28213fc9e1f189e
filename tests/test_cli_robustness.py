"""No traceback from any input, round two (issue 30): what the system refuses, numbers no option
can hold, a working folder that is gone, library warnings, outputs inside what a command reads.

Each case runs the real CLI in a subprocess and asserts the contract: exit 0, 1 or 2 as
documented; for 2 exactly one line on stderr, no traceback, nothing written; every input
byte-identical afterwards.

*As an ordinary user*: the permission cases need a process that file permissions stop. Run as
an ordinary user they are run as they are; run as root they go through ``setpriv`` with every
capability dropped (root without CAP_DAC_OVERRIDE is refused a mode-000 folder like anyone),
and are skipped where ``setpriv`` is missing.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
import yaml

from tests.conftest import run_cli

ROOT = Path(__file__).resolve().parent.parent
POLICY = {
    "attributes": {
        "zip": {"role": "quasi_identifier"},
        "age": {"role": "quasi_identifier"},
        "disease": {"role": "sensitive"},
    },
    "models": [{"model": "k-anonymity", "k": 2}],
    "suppression_limit": 0.5,
}
ROWS = "zip,age,disease\n" + "".join(
    f"{z},{a},{d}\n"
    for z, a, d in zip(
        ["13053", "13068", "13068", "13053", "14853", "14853", "14850", "14850"] * 3,
        [28, 29, 21, 23, 50, 55, 47, 49] * 3,
        ["flu", "cold", "hiv", "flu", "cold", "hiv", "flu", "cold"] * 3,
        strict=True,
    )
)


def ordinary_user() -> list[str]:
    """The prefix that runs a command without the power to ignore file permissions."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: file permissions cannot be tested")
    return [setpriv, "--bounding-set=-all", "--inh-caps=-all"]


def run(
    *args,
    cwd: Path | None = None,
    prefix: list[str] | None = None,
    env: dict | None = None,
    process: bool = False,
):
    """``privcheck ARGS``: in this process (``run_cli``) unless the run needs its own — another
    user's rights (``prefix``), its environment, or its warnings shown afresh (``process``: a
    process prints a library's warning once; in this one it may have been shown already)."""
    if not (prefix or env or process):
        return run_cli(*map(str, args), cwd=cwd)
    return subprocess.run(
        [*(prefix or []), sys.executable, "-m", "privcheck.cli", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        timeout=300,
    )


def one_line(res: subprocess.CompletedProcess, *needles: str) -> str:
    assert res.returncode == 2, (res.returncode, res.stdout, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def snapshot(folder: Path) -> dict[str, str]:
    out = {}
    for p in sorted(folder.rglob("*")):
        try:
            mode = os.lstat(p).st_mode
            out[str(p.relative_to(folder))] = (
                hashlib.sha256(p.read_bytes()).hexdigest() if stat.S_ISREG(mode) else "dir"
            )
        except PermissionError:
            out[str(p.relative_to(folder))] = "unreadable"
    return out


@pytest.fixture
def work(tmp_path) -> Path:
    """ok/ (readable data, policy, parts), locked/ (mode 000, the same inside), ro/ (read-only),
    parts/ (Parquet parts, one sub-folder unreadable)."""
    for name in ("ok", "locked", "ro"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "d.csv").write_text(ROWS)
        (folder / "pol.yaml").write_text(yaml.safe_dump(POLICY))
        (folder / "rows.txt").write_text("0\n1\n")
        (folder / "tags.json").write_text(json.dumps({"zip": ["PII:Quasi-Identifier"]}))
    parts = tmp_path / "parts"
    (parts / "deny").mkdir(parents=True)
    table = pacsv.read_csv(tmp_path / "ok" / "d.csv")
    pq.write_table(table, parts / "a.parquet")
    pq.write_table(table, parts / "deny" / "b.parquet")
    (tmp_path / "privcheck.toml").write_text(
        '[[check]]\nfiles = ["parts/**/*.parquet", "ok/*.csv", "locked/*.csv"]\n'
        'policy = "ok/pol.yaml"\n'
    )
    yield tmp_path
    for folder in (tmp_path / "locked", tmp_path / "ro", parts / "deny"):
        folder.chmod(0o755)


def lock(work: Path) -> None:
    (work / "locked").chmod(0)
    (work / "ro").chmod(0o555)
    (work / "parts" / "deny").chmod(0)


PERMISSION_CASES = {
    "check data": "check locked/d.csv -p ok/pol.yaml",
    "check policy": "check ok/d.csv -p locked/pol.yaml",
    "check parts": "check parts -p ok/pol.yaml",
    "check parts polars": "check parts -p ok/pol.yaml --engine polars",
    "check linked": "check ok/d.csv --linked-with locked/d.csv -p ok/pol.yaml",
    "check output": "check ok/d.csv -p ok/pol.yaml -o locked/sub/r.txt",
    "check output ro": "check ok/d.csv -p ok/pol.yaml -o ro/r.txt",
    "anonymize data": "anonymize locked/d.csv -p ok/pol.yaml -o ok/r.csv",
    "anonymize output": "anonymize ok/d.csv -p ok/pol.yaml -o locked/r.csv",
    "risk original": "risk --original locked/d.csv --masked ok/d.csv -p ok/pol.yaml -a uniqueness",
    "risk masked": "risk --original ok/d.csv --masked locked/d.csv -p ok/pol.yaml -a uniqueness",
    "risk control": (
        "risk --original ok/d.csv --masked ok/d.csv --control locked/d.csv -p ok/pol.yaml "
        "-a linkability --seed 1"
    ),
    "risk intruder rows": (
        "risk --original ok/d.csv --masked ok/d.csv -p ok/pol.yaml -a dbrl "
        "--intruder-records locked/rows.txt"
    ),
    "init data": "init locked/d.csv -o ok/draft.yaml",
    "init tags": "init ok/d.csv -o ok/draft.yaml --tags locked/tags.json",
    "init output": "init ok/d.csv -o locked/draft.yaml",
    "compare original": "compare locked/d.csv ok/d.csv -p ok/pol.yaml",
    "compare release": "compare ok/d.csv locked/d.csv -p ok/pol.yaml",
    "hook file": "hook locked/d.csv",
    "hook config": "hook -c locked/privcheck.toml",
    "hook every file": "hook",
    "schema output": "schema -o ro/policy.schema.json",
}


@pytest.mark.parametrize("case", sorted(PERMISSION_CASES))
def test_what_the_user_cannot_read_or_write_is_one_line(work, case):
    prefix = ordinary_user()
    before = snapshot(work)
    lock(work)
    res = run(*PERMISSION_CASES[case].split(), cwd=work, prefix=prefix)
    one_line(res)
    assert "Permission denied" in res.stderr or "cannot" in res.stderr, res.stderr
    for folder in ("locked", "ro", "parts/deny"):
        (work / folder).chmod(0o755)
    assert snapshot(work) == before  # nothing written, every input unchanged


def test_schema_in_a_working_folder_the_user_cannot_write_is_one_line(work):
    prefix = ordinary_user()
    lock(work)
    res = run("schema", cwd=work / "ro", prefix=prefix)
    one_line(res, "schemas", "-o PATH")
    (work / "ro").chmod(0o755)
    assert not (work / "ro" / "schemas").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["check", "d.csv", "-p", "pol.yaml"],
        ["check", "{abs}/d.csv", "-p", "{abs}/pol.yaml"],
        ["anonymize", "{abs}/d.csv", "-p", "{abs}/pol.yaml", "-o", "r.csv"],
        ["init", "{abs}/d.csv", "-o", "draft.yaml"],
        ["hook"],
        ["schema"],
        ["risk", "--original", "d.csv", "--masked", "d.csv", "-p", "pol.yaml", "-a", "dbrl"],
        ["compare", "d.csv", "d.csv", "-p", "pol.yaml"],
        ["demo"],
    ],
)
def test_a_deleted_working_folder_is_one_line(tmp_path, args):
    """``cd gone && rm -r ../gone && privcheck …``: every relative path would resolve against
    nothing; os.getcwd() itself fails. One line, exit 2."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "d.csv").write_text(ROWS)
    (data / "pol.yaml").write_text(yaml.safe_dump(POLICY))
    gone = tmp_path / "gone"
    gone.mkdir()
    argv = [a.replace("{abs}", str(data)) for a in args]
    script = f"cd {gone} && rmdir {gone} && exec {sys.executable} -m privcheck.cli " + " ".join(
        f"'{a}'" for a in argv
    )
    res = subprocess.run(
        ["sh", "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
    )
    one_line(res, "working folder no longer exists")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]


# ------------------------------------------------------------------------- numbers of options

BIG = "1" + "0" * 24  # 25 digits


@pytest.fixture
def small(tmp_path) -> Path:
    (tmp_path / "d.csv").write_text(ROWS)
    (tmp_path / "pol.yaml").write_text(yaml.safe_dump(POLICY))
    (tmp_path / "rows25.txt").write_text(f"0\n{BIG}\n")  # a row number of 25 digits
    return tmp_path


NUMERIC_REFUSED = {
    "anonymize --seed negative": "anonymize d.csv -p pol.yaml -o r.csv --seed -1",
    "anonymize --seed 25 digits": "anonymize d.csv -p pol.yaml -o r.csv --seed {BIG}",
    "anonymize --seed -25 digits": "anonymize d.csv -p pol.yaml -o r.csv --seed -{BIG}",
    "anonymize --seed 2^32": "anonymize d.csv -p pol.yaml -o r.csv --seed 4294967296",
    "apply --seed negative": "apply d.csv -t t.json -p pol.yaml -o r.csv --seed -5",
    "risk --seed negative": "risk --original d.csv --masked d.csv -p pol.yaml -a dbrl --seed -1",
    "risk --seed 2^32": (
        "risk --original d.csv --masked d.csv -p pol.yaml -a membership-inference --param "
        "control_share=0.5 --seed 4294967296"
    ),
    "risk --intruder-records 25 digits": (
        "risk --original d.csv --masked d.csv -p pol.yaml -a dbrl --intruder-records {BIG}"
    ),
    "risk --intruder-records file of 25 digits": (
        "risk --original d.csv --masked d.csv -p pol.yaml -a dbrl --intruder-records rows25.txt"
    ),
    "risk --intruder-records negative": (
        "risk --original d.csv --masked d.csv -p pol.yaml -a dbrl --intruder-records -3"
    ),
    "risk random_state negative": (
        "risk --original d.csv --masked d.csv -p pol.yaml -a dbrl --param random_state=-1"
    ),
    "risk random_state 25 digits": (
        "risk --original d.csv --masked d.csv -p pol.yaml -a dbrl --param random_state={BIG}"
    ),
    "risk control_share 25 digits": (
        "risk --original d.csv --masked d.csv -p pol.yaml -a singling-out --param "
        "control_share={BIG} --seed 1"
    ),
    "risk control_share nan": (
        "risk --original d.csv --masked d.csv -p pol.yaml -a linkability --param "
        "control_share=nan --seed 1"
    ),
    "risk n_attacks nan": (
        "risk --original d.csv --masked d.csv -p pol.yaml -a singling-out --param "
        "control_share=0.5 --param n_attacks=nan --seed 1"
    ),
    "risk n_attacks 1e308": (
        "risk --original d.csv --masked d.csv -p pol.yaml -a singling-out --param "
        "control_share=0.5 --param n_attacks=1e308 --seed 1"
    ),
    "risk threshold word": (
        "risk --original d.csv --masked d.csv -p pol.yaml -a uniqueness --param threshold=abc"
    ),
    "compare --seed negative": "compare d.csv d.csv -p pol.yaml --seed -1",
    "compare --seed 25 digits": "compare d.csv d.csv -p pol.yaml --seed {BIG}",
    "compare --test-share nan": "compare d.csv d.csv -p pol.yaml --test-share nan",
    "init --k 25 digits": "init d.csv -o draft.yaml --k {BIG}",
    "init --l 25 digits": "init d.csv -o draft.yaml --l {BIG}",
    "init --k negative": "init d.csv -o draft.yaml --k -1",
    "init --suppression nan": "init d.csv -o draft.yaml --suppression nan",
    "init --suppression inf": "init d.csv -o draft.yaml --suppression inf",
    "check --max-violators negative": "check d.csv -p pol.yaml --max-violators -1",
    "check --explain-max-size 0": "check d.csv -p pol.yaml --explain --explain-max-size 0",
    "check --max-groups negative": "check d.csv -p pol.yaml --engine polars --max-groups -1",
    "check --max-groups 25 digits": "check d.csv -p pol.yaml --engine polars --max-groups {BIG}",
    "anonymize fuzzy tol nan": (
        "anonymize d.csv -p pol.yaml -o r.csv -a fuzzy-microaggregation --param tol=nan"
    ),
}

NUMERIC_ACCEPTED = {
    "check --max-violators 25 digits": "check d.csv -p pol.yaml --max-violators {BIG}",
    "check --explain-max-size 25 digits": (
        "check d.csv -p pol.yaml --explain --explain-max-size {BIG}"
    ),
    "anonymize --seed 2^32-1": "anonymize d.csv -p pol.yaml -o r.csv --seed 4294967295",
}


@pytest.mark.parametrize("case", sorted(NUMERIC_REFUSED))
def test_a_number_no_option_can_hold_is_one_line(small, case):
    before = snapshot(small)
    res = run(*NUMERIC_REFUSED[case].format(BIG=BIG).split(), cwd=small)
    one_line(res)
    assert snapshot(small) == before


@pytest.mark.parametrize("case", sorted(NUMERIC_ACCEPTED))
def test_a_large_number_where_any_number_will_do_is_accepted(small, case):
    res = run(*NUMERIC_ACCEPTED[case].format(BIG=BIG).split(), cwd=small)
    assert res.returncode in (0, 1) and "Traceback" not in res.stderr, res.stderr


# ------------------------------------------------------------------------- library warnings


@pytest.fixture
def warning_inputs(tmp_path) -> Path:
    """Data that made numpy (overflow in a square), matplotlib (a glyph its font lacks) and
    pandas warn on stderr during successful runs."""
    rows = ["a,b,s,name"]
    for i in range(40):
        big = ["1e308", "-1e308", "5", "7"][i % 4]
        rows.append(f"{big},{30 + i % 3},{['x', 'y'][i % 2]},{['中文', '😀', 'x'][i % 3]}")
    (tmp_path / "n.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    policy = {
        "attributes": {
            "a": {"role": "quasi_identifier"},
            "b": {"role": "quasi_identifier"},
            "name": {"role": "quasi_identifier"},
            "s": {"role": "sensitive"},
        },
        "models": [
            {"model": "k-anonymity", "k": 2},
            {"model": "t-closeness", "t": 0.9, "distance": "equal", "attribute": "s"},
        ],
        "suppression_limit": 0.5,
    }
    (tmp_path / "p.yaml").write_text(yaml.safe_dump(policy))
    return tmp_path


WARNING_RUNS = {
    "compare overflow": "compare n.csv n.csv -p p.yaml",
    "html glyphs": "check n.csv -p p.yaml -o c.html",
}


@pytest.mark.parametrize("case", sorted(WARNING_RUNS))
def test_library_warnings_stay_off_stderr_unless_verbose(warning_inputs, case):
    """Each run warned on stderr before (numpy's overflow, matplotlib's missing glyph); a
    successful run's stderr now holds privcheck's own lines only ('wrote …'), and ``-v`` shows
    the warnings, naming where they came from."""
    args = WARNING_RUNS[case].split()
    res = run(*args, cwd=warning_inputs, process=True)
    assert res.returncode in (0, 1), res.stderr
    own = [line for line in res.stderr.splitlines() if line.strip()]
    assert all(line.startswith("wrote ") for line in own), res.stderr
    verbose = run("-v", *args, cwd=warning_inputs, process=True)
    assert verbose.returncode == res.returncode
    assert "Warning" in verbose.stderr and "from py.warnings" in verbose.stderr, verbose.stderr


def test_linkage_on_values_near_the_float_limit_refuses_or_computes_without_warning(
    warning_inputs,
):
    """The record-linkage attacks used to compute on ±1e308 and warn of overflow. Distance-based
    linkage (means, variances, distances) now refuses values beyond
    ``limits.FLOAT_MAGNITUDE``: exit 2, one line naming the column. Probabilistic linkage
    compares values, and an overflowing difference is a disagreement: it runs, with nothing on
    stderr."""
    args = "risk --original n.csv --masked n.csv -p p.yaml -a {} --intruder-attributes a,b"
    dbrl = run(*args.format("dbrl").split(), cwd=warning_inputs, process=True)
    assert dbrl.returncode == 2, dbrl.stderr
    (line,) = dbrl.stderr.strip().splitlines()
    assert "'a'" in line and "1e+100" in line
    prl = run(*args.format("prl").split(), cwd=warning_inputs, process=True)
    assert prl.returncode in (0, 1) and prl.stderr == "", prl.stderr


def test_python_warning_options_still_decide(warning_inputs):
    """``-W error`` (a developer's choice) is honoured: the first warning is an error."""
    res = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-m", "privcheck.cli",
         *WARNING_RUNS["compare overflow"].split()],
        capture_output=True, text=True, cwd=warning_inputs,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300,
    )  # fmt: skip
    assert res.returncode != 0 and "RuntimeWarning" in res.stderr


# ------------------------------------------------------------- outputs inside what is read


@pytest.fixture
def parts(tmp_path) -> Path:
    """parts/ (two Parquet parts, one in a sub-folder) and its policy beside it."""
    (tmp_path / "d.csv").write_text(ROWS)
    table = pacsv.read_csv(tmp_path / "d.csv")
    (tmp_path / "parts" / "sub").mkdir(parents=True)
    pq.write_table(table.slice(0, 12), tmp_path / "parts" / "a.parquet")
    pq.write_table(table.slice(12), tmp_path / "parts" / "sub" / "b.parquet")
    (tmp_path / "pol.yaml").write_text(yaml.safe_dump(POLICY))
    return tmp_path


INSIDE = {
    "anonymize into the folder": "anonymize parts -p pol.yaml -o parts/r.parquet",
    "anonymize into a sub-folder": "anonymize parts -p pol.yaml -o parts/sub/r.csv",
    "anonymize by another spelling": "anonymize parts -p pol.yaml -o parts/../parts/r.csv",
    "anonymize hidden name": "anonymize parts -p pol.yaml -o parts/.r.parquet",
    "anonymize report": "anonymize parts -p pol.yaml -o r.csv --report parts/r.html",
    "check output": "check parts -p pol.yaml -o parts/report.txt",
    "check report": "check parts -p pol.yaml --report parts/report.json",
    "check glob output": "check parts/*.parquet --engine polars -p pol.yaml -o parts/x.parquet",
    "compare output": "compare parts parts -p pol.yaml -o parts/c.json",
    "risk output": "risk --original parts --masked parts -p pol.yaml -a uniqueness -o parts/k.json",
    "init output": "init parts -o parts/draft.yaml",
    "init hierarchies": "init parts -o draft.yaml --hierarchies parts/h",
    "previous release folder": "anonymize d.csv -p pol.yaml -o parts/sub/r.csv --previous parts",
}


@pytest.mark.parametrize("case", sorted(INSIDE))
def test_an_output_inside_an_input_folder_is_refused(parts, case):
    """``anonymize parts -o parts/r.parquet`` mixed released rows into the raw parts (the next
    read of the folder got both). An output anywhere inside a folder a command reads — the
    data, a policy's previous releases, a glob's matches — is refused; the input unchanged."""
    before = snapshot(parts)
    res = run(*INSIDE[case].split(), cwd=parts)
    one_line(res)
    assert "input" in res.stderr or "previous" in res.stderr, res.stderr
    assert snapshot(parts) == before


def test_a_folder_the_policy_reads_is_an_input_folder_too(parts):
    """k-anonymity-across-releases reads its previous releases: a release written inside a
    folder of them would join the series."""
    policy = {
        **POLICY,
        "models": [
            {"model": "k-anonymity", "k": 2},
            {"model": "k-anonymity-across-releases", "k": 2, "previous": ["parts"]},
        ],
    }
    (parts / "series.yaml").write_text(yaml.safe_dump(policy))
    before = snapshot(parts)
    res = run("anonymize", "d.csv", "-p", "series.yaml", "-o", "parts/next.csv", cwd=parts)
    one_line(res, "inside the input folder")
    assert snapshot(parts) == before


def test_an_output_beside_the_input_folder_is_fine(parts):
    res = run("anonymize", "parts", "-p", "pol.yaml", "-o", "r.parquet", "--seed", "1", cwd=parts)
    assert res.returncode == 0, res.stderr
    assert run("check", "r.parquet", "-p", "pol.yaml", cwd=parts).returncode == 0
