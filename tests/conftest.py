"""Shared fixtures: paths to the embedded and test data, a CLI runner, plugin isolation."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

# pytest-xdist's workers run under execnet, whose ``__main__`` has neither a spec nor a file:
# pyspark.sql.connect (imported by Great Expectations) reads that as "running doctests" and calls
# sys.exit(0) when its gRPC extras are absent, killing the worker. A worker is not a doctest run.
_main = sys.modules.get("__main__")
if _main is not None and _main.__spec__ is None and not hasattr(_main, "__file__"):
    _main.__file__ = "<pytest worker>"

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
EXAMPLES = DATA / "examples"
ADULT = ROOT / "privcheck" / "data" / "adult"


@pytest.fixture(scope="session")
def adult_frame() -> pd.DataFrame:
    from privcheck.io import read_table

    return read_table(ADULT / "adult.csv")


@pytest.fixture(scope="session")
def adult_policy_path() -> Path:
    return ADULT / "policy.yaml"


def run_cli(*args: str, cwd: Path | None = None, env: dict | None = None):
    """Run the installed CLI entry point (``python -m privcheck.cli``) as a user would."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "privcheck.cli", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=full_env,
        timeout=300,
    )


@pytest.fixture
def cli():
    return run_cli
