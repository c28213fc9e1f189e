"""Progress bars only on a terminal and never with --quiet; --verbose logs what was computed."""

from __future__ import annotations

import io

import pytest

from privcheck import progress
from tests.conftest import ADULT


@pytest.fixture(autouse=True)
def _reset():
    yield
    progress.configure(quiet=False)


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_bar_only_on_a_terminal(monkeypatch):
    monkeypatch.setattr("sys.stderr", io.StringIO())
    with progress.progress(3, "x") as bar:
        bar.advance()
    assert not bar.enabled and bar.completed == 1
    tty = Tty()
    monkeypatch.setattr("sys.stderr", tty)
    with progress.progress(3, "x") as bar:
        bar.advance(3)
    assert bar.enabled
    progress.configure(quiet=True)
    with progress.progress(3, "x", enabled=True) as bar:
        bar.advance()
    assert not bar.enabled  # --quiet wins over an explicit request


def test_verbose_logs_the_computation(cli):
    res = cli("--verbose", "check", ADULT / "adult.csv", "-p", ADULT / "policy.yaml", "-f", "json")
    assert res.returncode == 1
    log = res.stderr
    assert "privcheck: read 30162 rows" in log
    assert "privcheck: encoded 30162 records" in log
    assert "privcheck: 18109 equivalence classes" in log
    for model in ("k-anonymity", "l-diversity", "t-closeness"):
        assert f"privcheck: {model} " in log
    assert res.stdout.startswith("{")  # the report itself is untouched


def test_quiet_and_default_are_silent_on_stderr(cli, tmp_path):
    out = tmp_path / "r.json"
    res = cli(
        "-q", "check", ADULT / "adult.csv", "-p", ADULT / "policy.yaml", "-f", "json", "-o", out
    )
    assert res.returncode == 1 and res.stderr == "" and out.exists()
    res = cli("check", ADULT / "adult.csv", "-p", ADULT / "policy.yaml", "-f", "json")
    assert res.stderr == ""  # not a terminal: no bar, no log
