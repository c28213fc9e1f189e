"""The `privcheck-check` pre-commit hook, run by the real pre-commit on a temporary git repository.

pre-commit clones the hook repository at a commit and pip-installs it into a fresh virtualenv,
exactly as a consumer's machine would; the test points it at a snapshot commit of this checkout
(so uncommitted changes are tested too). The virtualenv install needs the package index (or a
warm pip cache): about 15 s.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "tests" / "data" / "examples"
PRE_COMMIT = shutil.which("pre-commit")

pytestmark = [
    pytest.mark.skipif(PRE_COMMIT is None, reason="pre-commit is not installed"),
    pytest.mark.slow,  # one virtualenv with numpy/pandas/pyarrow/scipy: 1–2 minutes here
]

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
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
}


def run(*args, cwd: Path, env: dict, check: bool = True) -> subprocess.CompletedProcess:
    res = subprocess.run(list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    if check and res.returncode != 0:
        raise AssertionError(f"{args} failed:\n{res.stdout}\n{res.stderr}")
    return res


def snapshot(dest: Path, env: dict) -> str:
    """Copy what the package needs (tracked and new files) into a fresh repo; commit it."""
    listed = run(
        "git", "ls-files", "--cached", "--others", "--exclude-standard", cwd=ROOT, env=env
    ).stdout.splitlines()
    keep = [
        p
        for p in listed
        if p in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml")
        or p.startswith("privcheck/")
    ]
    for rel in keep:
        if (ROOT / rel).is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, dest / rel)
    run("git", "init", "-q", cwd=dest, env=env)
    run("git", "add", "-A", cwd=dest, env=env)
    run("git", "commit", "-q", "-m", "snapshot", cwd=dest, env=env)
    return run("git", "rev-parse", "HEAD", cwd=dest, env=env).stdout.strip()


def test_precommit_blocks_violating_csv_and_passes_compliant(tmp_path):
    env = {
        **os.environ,
        **GIT_ENV,
        "PRE_COMMIT_HOME": str(tmp_path / "cache"),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        # pip's --no-compile (its environment spelling of a negative flag is inverted): the
        # hook's virtualenv skips byte-compiling numpy/pandas/pyarrow/scipy — half the
        # install's time; Python compiles what the hook imports when it runs
        "PIP_NO_COMPILE": "0",
    }
    env.pop("PYTHONPATH", None)
    hook_repo, repo = tmp_path / "hook-repo", tmp_path / "repo"
    hook_repo.mkdir()
    repo.mkdir()
    rev = snapshot(hook_repo, env)

    run("git", "init", "-q", cwd=repo, env=env)
    (repo / "policy.yaml").write_text(yaml.safe_dump(POLICY))
    (repo / "privcheck.toml").write_text(
        '[[check]]\nfiles = ["releases/*.csv"]\npolicy = "policy.yaml"\n'
    )
    (repo / ".pre-commit-config.yaml").write_text(
        yaml.safe_dump(
            {"repos": [{"repo": str(hook_repo), "rev": rev, "hooks": [{"id": "privcheck-check"}]}]}
        )
    )
    (repo / "releases").mkdir()
    shutil.copy(EXAMPLES / "three_diverse.csv", repo / "releases" / "good.csv")
    bad = (EXAMPLES / "three_diverse.csv").read_text().replace("476**,2*,3K", "47677,2*,3K", 1)
    (repo / "releases" / "bad.csv").write_text(bad)
    run("git", "add", "-A", cwd=repo, env=env)

    good = run(PRE_COMMIT, "run", "--files", "releases/good.csv", cwd=repo, env=env, check=False)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "privcheck (privacy models)" in good.stdout and "Passed" in good.stdout

    blocked = run(PRE_COMMIT, "run", "--files", "releases/bad.csv", cwd=repo, env=env, check=False)
    assert blocked.returncode == 1, blocked.stdout + blocked.stderr
    assert "Failed" in blocked.stdout
    assert (
        "releases/bad.csv: FAILED (policy.yaml): k-anonymity (k=3) VIOLATED: class size 1"
        in blocked.stdout
    )

    # as a git hook: the commit with the violating file is refused, the compliant one is made
    run(PRE_COMMIT, "install", cwd=repo, env=env)
    refused = run("git", "commit", "-q", "-m", "release", cwd=repo, env=env, check=False)
    assert refused.returncode != 0
    assert "releases/bad.csv: FAILED" in refused.stdout + refused.stderr
    assert run("git", "rev-list", "--all", cwd=repo, env=env).stdout == ""  # nothing committed
    run("git", "rm", "-q", "--cached", "releases/bad.csv", cwd=repo, env=env)
    run("git", "commit", "-q", "-m", "release", cwd=repo, env=env)
    assert run("git", "ls-files", "releases", cwd=repo, env=env).stdout.split() == [
        "releases/good.csv"
    ]
