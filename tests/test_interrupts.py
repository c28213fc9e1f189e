"""A stop signal during a write leaves nothing behind (issue 30): SIGTERM, SIGHUP, SIGQUIT, … go
the way Ctrl-C goes.

The CLI runs in a subprocess that pauses right after creating its temporary output (the test
hook ``PRIVCHECK_TEST_PAUSE_IN_WRITE``, which announces the pause on stderr): the signal then
arrives deterministically while the hidden ``.NAME.XXXX.tmp`` exists. Before the fix SIGTERM and
SIGHUP killed the process there and the temporary stayed; now every one of them unwinds, the
temporary is removed, nothing is written, the inputs are unchanged, and the exit code is 128 +
the signal's number.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from privcheck import interrupts
from privcheck.io import PAUSE_ENV, all_or_nothing, write_atomic, write_text_atomic
from tests.conftest import ADULT

ROOT = Path(__file__).resolve().parent.parent
SIGNALS = [
    s
    for s in ("SIGTERM", "SIGHUP", "SIGINT", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGXCPU")
    if hasattr(signal, s)
]


def _digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def adult(tmp_path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "adult.csv").write_bytes((ADULT / "adult.csv").read_bytes())
    (folder / "hierarchies").mkdir()
    for h in (ADULT / "hierarchies").iterdir():
        (folder / "hierarchies" / h.name).write_bytes(h.read_bytes())
    (folder / "policy.yaml").write_bytes((ADULT / "policy.yaml").read_bytes())
    return folder


def _default_signals() -> None:
    """In the child before exec: every signal at its default (a test run under nohup would
    otherwise hand SIGHUP down as ignored)."""
    for name in SIGNALS:
        signal.signal(getattr(signal, name), signal.SIG_DFL)


def _start(folder: Path, *args: str, pause: float = 30, prefix: tuple[str, ...] = ()):
    env = {**os.environ, "PYTHONPATH": str(ROOT), PAUSE_ENV: str(pause)}
    return subprocess.Popen(
        [*prefix, sys.executable, "-m", "privcheck.cli", *args],
        cwd=folder,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # the signal reaches privcheck alone
        preexec_fn=_default_signals,
    )


def _wait_for_pause(proc: subprocess.Popen, timeout: float = 120) -> str:
    """Read stderr until the write pauses (the temporary then exists)."""
    deadline = time.monotonic() + timeout
    seen = ""
    assert proc.stderr is not None
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        seen += line
        if "test pause:" in line:
            return line.split("test pause:", 1)[1].split()[0]
    proc.kill()
    raise AssertionError(f"the write never paused: {seen}")


@pytest.mark.parametrize("name", SIGNALS)
def test_a_signal_during_the_write_leaves_nothing_behind(adult, name):
    before = _digest(adult)
    proc = _start(
        adult, "anonymize", "adult.csv", "-p", "policy.yaml", "-o", "release.parquet",
        "--report", "report.html", "-a", "mingen", "--seed", "1",
    )  # fmt: skip
    temporary = _wait_for_pause(proc)
    assert (adult / temporary).exists()  # the hidden half-written file the issue found
    os.kill(proc.pid, getattr(signal, name))
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + getattr(signal, name), (proc.returncode, err)
    assert "Traceback" not in err, err
    assert _digest(adult) == before  # nothing written, nothing left, inputs unchanged
    assert not [p for p in adult.iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("command", ["check", "schema", "init"])
def test_a_single_output_outside_a_transaction_is_removed_too(adult, command):
    """One output written on its own (``check -o``, ``schema -o``; ``init`` writes its policy
    and hierarchies together): SIGTERM in its write leaves nothing."""
    before = _digest(adult)
    args = {
        "check": ["check", "adult.csv", "-p", "policy.yaml", "-o", "out.json"],
        "schema": ["schema", "-o", "schema.json"],
        "init": ["init", "adult.csv", "-o", "draft.yaml", "--hierarchies", "drafted"],
    }[command]
    proc = _start(adult, *args)
    _wait_for_pause(proc)
    os.kill(proc.pid, signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert _digest(adult) == before
    assert sorted(p.name for p in adult.iterdir()) == ["adult.csv", "hierarchies", "policy.yaml"]


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_the_second_of_two_outputs_interrupted_leaves_neither(adult, name):
    """The release is staged, the report's temporary is being written: both go."""
    before = _digest(adult)
    proc = _start(
        adult, "check", "adult.csv", "-p", "policy.yaml", "-o", "out.json",
        "--report", "report.html", pause=1.5,
    )  # fmt: skip
    first = _wait_for_pause(proc)  # (this pause runs its course; the signal comes in the next)
    assert first.startswith(".report.html.")
    second = _wait_for_pause(proc)
    assert second.startswith(".out.json.") and (adult / first).exists()
    os.kill(proc.pid, getattr(signal, name))
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + getattr(signal, name), err
    assert _digest(adult) == before


def test_an_ignored_hangup_stays_ignored(adult):
    """nohup: a SIGHUP the process inherited as ignored does not stop it."""
    proc = _start(
        adult, "check", "adult.csv", "-p", "policy.yaml", "-o", "out.txt", pause=1,
        prefix=("nohup",),
    )  # fmt: skip
    _wait_for_pause(proc)
    os.kill(proc.pid, signal.SIGHUP)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, err  # the check ran to its end (Adult fails its policy)
    assert "k-anonymity" in (adult / "out.txt").read_text()


in_main_thread = pytest.mark.skipif(
    threading.current_thread() is not threading.main_thread(),
    reason="Python installs signal handlers in the main thread only",
)


@in_main_thread
def test_a_signal_inside_an_uninterrupted_block_waits_for_its_end(tmp_path):
    """The rename of every output into place cannot be cut in half: a signal arriving during
    ``commit`` is raised once the outputs are all in place."""
    replaced = interrupts.install()
    try:
        with pytest.raises(interrupts.Interrupted) as stopped, all_or_nothing() as outputs:
            write_text_atomic(tmp_path / "a.txt", "a")
            write_text_atomic(tmp_path / "b.txt", "b")
            original_commit = outputs._commit

            def commit_with_a_signal():
                os.kill(os.getpid(), signal.SIGTERM)  # delivered during the renames
                time.sleep(0.05)
                original_commit()

            outputs._commit = commit_with_a_signal
        assert stopped.value.exit_code == 128 + signal.SIGTERM
        assert (tmp_path / "a.txt").read_text() == "a" and (tmp_path / "b.txt").read_text() == "b"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt"]
    finally:
        interrupts.restore(replaced)


@in_main_thread
def test_a_signal_during_a_staged_write_removes_every_temporary(tmp_path):
    replaced = interrupts.install()
    try:
        with pytest.raises(interrupts.Interrupted), all_or_nothing():
            write_text_atomic(tmp_path / "a.txt", "a")

            def slow(path: Path) -> None:
                path.write_text("half")
                os.kill(os.getpid(), signal.SIGHUP)
                time.sleep(1)  # the handler raises here
                path.write_text("never")

            write_atomic(tmp_path / "b.txt", slow)
        assert list(tmp_path.iterdir()) == []
    finally:
        interrupts.restore(replaced)
