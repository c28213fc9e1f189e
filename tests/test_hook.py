"""`privcheck hook`: globs → policies from privcheck.toml, one line per file, exit codes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from privcheck.hook import compile_glob
from tests.conftest import EXAMPLES

POLICY = {
    "attributes": {
        "zip": {"role": "quasi_identifier"},
        "age": {"role": "quasi_identifier"},
        "disease": {"role": "sensitive"},
    },
    "models": [
        {"model": "k-anonymity", "k": 3},
        {"model": "l-diversity", "variant": "distinct", "l": 3},
    ],
}


@pytest.mark.parametrize(
    "glob, path, hit",
    [
        ("releases/*.csv", "releases/a.csv", True),
        ("releases/*.csv", "releases/x/a.csv", False),
        ("releases/**/*.csv", "releases/a.csv", True),
        ("releases/**/*.csv", "releases/x/y/a.csv", True),
        ("**/*.parquet", "a.parquet", True),
        ("data/?.csv", "data/ab.csv", False),
        ("data/[ab].csv", "data/b.csv", True),
        ("data/[!ab].csv", "data/b.csv", False),
        ("a.csv", "xa.csv", False),
    ],
)
def test_glob_semantics(glob, path, hit):
    assert compile_glob(glob).fullmatch(path) is hit


ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def cli(cli):
    """The CLI of this checkout, also when run from another folder."""
    return lambda *args, **kw: cli(*args, env={"PYTHONPATH": str(ROOT)}, **kw)


@pytest.fixture
def hook(monkeypatch):
    """``privcheck hook`` in-process (the CLI path is covered by the subprocess tests)."""
    from privcheck.hook import run_hook

    def run(*args: str, cwd: Path):
        monkeypatch.chdir(cwd)
        lines: list[str] = []
        files = [Path(a) for a in args if not a.startswith("-")]
        code = run_hook(
            files,
            github="--format" in args,
            echo=lines.append,
            echo_error=lambda line: lines.append(f"[stderr] {line}"),
        )
        return code, "\n".join(lines) + "\n"

    return run


@pytest.fixture
def repo(tmp_path) -> Path:
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "release.yaml").write_text(yaml.safe_dump(POLICY))
    (tmp_path / "releases").mkdir()
    shutil.copy(EXAMPLES / "three_diverse.csv", tmp_path / "releases" / "good.csv")
    bad = (EXAMPLES / "three_diverse.csv").read_text().splitlines()
    bad[1] = bad[1].replace("476**", "47677")  # a unique record: k and l break
    (tmp_path / "releases" / "bad.csv").write_text("\n".join(bad) + "\n")
    (tmp_path / "other.csv").write_text("x\n1\n")
    (tmp_path / "privcheck.toml").write_text(
        '[[check]]\nfiles = ["releases/*.csv"]\npolicy = "policies/release.yaml"\n'
    )
    return tmp_path


def test_compliant_file_passes(cli, repo):
    res = cli("hook", "releases/good.csv", "other.csv", cwd=repo)
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout.strip() == (
        "releases/good.csv: passed (policies/release.yaml): k-anonymity ok: class size 3 "
        "(required ≥ 3); l-diversity ok: distinct values 3 (required ≥ 3)"
    )


def test_violating_file_blocks_with_a_readable_line(cli, repo):
    res = cli("hook", "releases/good.csv", "releases/bad.csv", cwd=repo)
    assert res.returncode == 1
    lines = res.stdout.strip().splitlines()
    assert lines[0].startswith("releases/good.csv: passed")
    assert lines[1].startswith(
        "releases/bad.csv: FAILED (policies/release.yaml): k-anonymity "
        "(k=3) VIOLATED: class size 1 (required ≥ 3), 2 classes / 3 records"
    )


def test_no_files_checks_everything_the_config_matches(hook, repo):
    code, out = hook(cwd=repo)
    assert code == 1
    assert sorted(line.split(":")[0] for line in out.splitlines()) == [
        "releases/bad.csv",
        "releases/good.csv",
    ]


def test_github_annotations(hook, repo):
    code, out = hook("--format", "releases/bad.csv", cwd=repo)
    assert code == 1
    assert out.startswith(
        "::error file=releases/bad.csv,title=privcheck%3A k-anonymity violated::k-anonymity (k=3)"
    )


@pytest.mark.parametrize(
    "config, needle",
    [
        (None, "no privcheck.toml"),
        ('[[check]]\nfiles = ["*.csv"]\npolicy = "missing.yaml"\n', "policy file not found"),
        ("[[check]]\npolicy = 'policies/release.yaml'\n", "files must be a glob"),
        ("check = [\n", "is not valid TOML"),
        # strict (issue 30): a key the hook does not read is refused, not ignored
        (
            'checks = []\n[[check]]\nfiles = "*.csv"\npolicy = "policies/release.yaml"\n',
            "privcheck.toml has the unknown key 'checks'",
        ),
        (
            '[[check]]\nfile = "*.csv"\npolicy = "policies/release.yaml"\n',
            "check[0] has unknown key 'file'",
        ),
        (
            '[[check]]\nfiles = ["*.csv", 1]\npolicy = "policies/release.yaml"\n',
            "check[0].files must be a glob",
        ),
        ('[[check]]\nfiles = "*.csv"\npolicy = true\n', "check[0].policy must be the path"),
        ("check = 5\n", "has no [[check]] entries"),
        ("check = [5]\n", "check[0] must be a table"),
    ],
)
def test_bad_config_exits_2(hook, repo, config, needle):
    if config is None:
        (repo / "privcheck.toml").unlink()
    else:
        (repo / "privcheck.toml").write_text(config)
    code, out = hook("releases/good.csv", cwd=repo)
    assert code == 2 and needle in out, out
    assert out.startswith("[stderr] privcheck: error:") and out.count("\n") == 1, out


def test_unreadable_data_exits_2(hook, repo):
    (repo / "releases" / "broken.csv").write_text("zip,age\n1,2\n")  # no disease column
    code, out = hook("releases/broken.csv", cwd=repo)
    assert code == 2
    assert "[stderr] releases/broken.csv: ERROR" in out and "'disease'" in out


def test_pyproject_tool_section(hook, repo):
    text = (repo / "privcheck.toml").read_text().replace("[[check]]", "[[tool.privcheck.check]]")
    (repo / "privcheck.toml").unlink()
    (repo / "pyproject.toml").write_text(text)
    assert hook("releases/bad.csv", cwd=repo)[0] == 1


def test_check_format_github(cli, tmp_path):
    policy = tmp_path / "p.yaml"
    policy.write_text(yaml.safe_dump(POLICY))
    res = cli("check", EXAMPLES / "three_diverse.csv", "-p", policy, "-f", "github")
    assert res.returncode == 0
    assert res.stdout.startswith("::notice file=") and "2 models hold on 9 records" in res.stdout


SECRET = "S3CRET-token-4e5f"


@pytest.mark.parametrize(
    "config",
    [
        f'[[check]]\nfiles = ["*.csv"]\npolicy = "{SECRET}.yaml"\n',
        f'[[check]]\nfiles = ["*.csv"]\npolicy = "policies/release.yaml"\n"a:${SECRET}" = 1\n',
        f'"root:${SECRET}:1::" = 1\n',
        f'token = "{SECRET}\n',
        '[[check]]\nfiles = "*"\npolicy = "policies/release.yaml"\n'
        f'[[check]]\nfiles = "{SECRET}"\n',
    ],
)
def test_config_errors_name_the_key_never_the_value(hook, repo, config):
    (repo / "privcheck.toml").write_text(config)
    code, out = hook("releases/good.csv", cwd=repo)
    assert code == 2 and out.startswith("[stderr] privcheck: error:"), out
    assert out.count("\n") == 1 and SECRET not in out, out


@pytest.mark.parametrize(
    "text",
    ["tool = 1\n# tool.privcheck\n", "[tool]\nprivcheck = 5\n", "[tool.privcheck]\nx = 1\n"],
)
def test_pyproject_section_of_the_wrong_shape_is_one_line(hook, repo, text):
    (repo / "privcheck.toml").unlink()
    (repo / "pyproject.toml").write_text(text)
    code, out = hook("releases/good.csv", cwd=repo)
    assert code == 2 and out.startswith("[stderr] privcheck: error:") and out.count("\n") == 1
