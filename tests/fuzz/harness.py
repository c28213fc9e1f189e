"""Running the CLI on a fuzz case and asserting the contract of every run.

The CLI runs in this process (``privcheck.cli.main`` with ``sys.argv`` set): a run on the small
tables here takes tens of milliseconds, where a subprocess spends half a second importing. An
uncaught exception propagates out of ``main`` and fails the test — what a user would see as a
traceback. A run is stopped after ``RUN_SECONDS`` of its thread's processor time
(``PRIVCHECK_FUZZ_SECONDS``, default 10) or three times that of wall time (a run blocked on a
FIFO uses no processor time), run once more, and reported as a failure when it overruns again:
no small input may buy more than seconds of work.

The contract (``assert_contract``):

- the exit code is 0, 1 or 2, and no traceback is printed on stdout or stderr;
- exit 2 prints exactly one line on stderr (``privcheck: error: …``; ``hook`` a line per file
  it could not check) and writes nothing: the folder the run works in is byte-for-byte what it
  was, no file added, none replaced;
- exit 0 or 1 changes no input (every file that existed is unchanged, apart from outputs the
  run was asked to replace) and leaves nothing behind but its declared outputs (no temporary);
- special files given as outputs (``/dev/null``) keep their kind;
- with ``-q`` a successful run prints no library warning on stderr.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
import signal
import stat
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings

from privcheck import progress
from privcheck.cli import main
from privcheck.cli.entry import configure_logging

#: examples per fuzz test: the suite's default, or the environment's for a longer local hunt
CASES_ENV = "PRIVCHECK_FUZZ_CASES"
#: a file to append "command, exit code, seconds" of every run to (see how deep cases get)
STATS_ENV = "PRIVCHECK_FUZZ_STATS"
#: "0": failing cases are reported as drawn, not shrunk (a long hunt finds more, faster)
SHRINK_ENV = "PRIVCHECK_FUZZ_SHRINK"
#: the most processor time (seconds) a single run may take before it is reported as a failure
RUN_SECONDS = float(os.environ.get("PRIVCHECK_FUZZ_SECONDS", "10"))
#: the most wall-clock time: a run that waits (a FIFO opened) uses no processor time; and on a
#: machine shared with other jobs a run's wall time is theirs too, so this is the looser bound
WALL_SECONDS = 3 * RUN_SECONDS
#: a Python warning printed the way the warnings module prints one
_LIBRARY_WARNING = re.compile(r"\b\w*Warning: ")
#: the one line a run that exits 2 prints on stderr
ERROR_LINE = re.compile(r"privcheck: error: \S")


def fuzz_settings(default_cases: int) -> settings:
    """Hypothesis settings of a fuzz test: ``default_cases`` examples (``PRIVCHECK_FUZZ_CASES``
    overrides), the same examples on every run, no time limit per example (the harness has its
    own), and no example database (the cases are fixed, nothing to replay)."""
    cases = int(os.environ.get(CASES_ENV) or default_cases)
    phases = list(Phase)
    if os.environ.get(SHRINK_ENV) == "0":  # (a hunt: report what fails, as drawn)
        phases = [p for p in phases if p not in (Phase.shrink, Phase.explain)]
    return settings(
        max_examples=cases,
        phases=phases,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )


class RunTimeout(BaseException):
    """Raised by the alarm inside a run that took too long (a BaseException: no ``except
    Exception`` in the code under test can swallow it)."""


@dataclass
class Run:
    """One CLI run: its arguments, exit code, output and wall time."""

    args: tuple[str, ...]
    code: int
    out: str
    err: str
    seconds: float

    def describe(self) -> str:
        return (
            f"privcheck {' '.join(self.args)}\n-> exit {self.code} in {self.seconds:.2f} s\n"
            f"stdout: {self.out[-1500:]!r}\nstderr: {self.err[-1500:]!r}"
        )


class _Alarm:
    rang = False
    #: the main thread's processor time when the run started
    thread_start = 0.0


_TIMERS = {signal.SIGALRM: signal.ITIMER_REAL, signal.SIGPROF: signal.ITIMER_PROF}


#: "1": numpy's floating-point overflow and invalid operations raise (FloatingPointError, so a
#: traceback) instead of passing silently — a local hunt for figures computed on inf or nan,
#: whose warnings the CLI keeps off stderr; code that expects them says so with np.errstate
FPE_ENV = "PRIVCHECK_FUZZ_FPE"


def _float_errors():
    if os.environ.get(FPE_ENV) != "1":
        return contextlib.nullcontext()
    import numpy as np

    return np.errstate(over="raise", invalid="raise")


def _on_alarm(signum, frame) -> None:
    # The processor-time timer counts every thread of the process: threads a library left
    # spinning after an earlier run (OpenMP's busy wait) once charged a 1-second run 11 s. The
    # run's own thread decides; what other threads do is bounded by the wall-clock timer.
    if signum == signal.SIGPROF and not _Alarm.rang:
        used = time.thread_time() - _Alarm.thread_start
        if used < RUN_SECONDS:
            signal.setitimer(signal.ITIMER_PROF, max(RUN_SECONDS - used, 0.1))
            return
    # (raised again every half second: code that swallows one — a callback run by the garbage
    # collector, whose exceptions Python only reports — cannot keep the run going)
    _Alarm.rang = True
    signal.setitimer(_TIMERS[signum], 0.5)
    raise RunTimeout


def run_cli(args: Sequence[object], cwd: Path, *, quiet: bool = True) -> Run:
    """``privcheck [-q] ARGS`` in this process, in ``cwd``: its exit code, stdout and stderr.

    A run past the time limits is run once more before it fails the test: on a machine shared
    with other jobs (a virtual machine's processor time counts time its host gave to others) a
    1-second run was once charged 11 s; an input that buys the work overruns both times."""
    overruns = []
    for _ in range(2):
        run = _run_once(args, cwd, quiet)
        if isinstance(run, Run):
            return run
        overruns.append(run)
    pytest.fail(
        f"privcheck {' '.join(map(str, args))} ran past {RUN_SECONDS:g} s of processor time "
        f"or {WALL_SECONDS:g} s of wall time, twice ({'; '.join(overruns)})",
        pytrace=False,
    )


def _run_once(args: Sequence[object], cwd: Path, quiet: bool) -> Run | str:
    """One run, or how long it took when it overran the limits."""
    argv = ["privcheck", *(["-q"] if quiet else []), *map(str, args)]
    out, err = io.StringIO(), io.StringIO()
    saved_argv, saved_cwd = sys.argv, os.getcwd()
    previous = {signum: signal.signal(signum, _on_alarm) for signum in _TIMERS}
    start, cpu = time.perf_counter(), time.process_time()
    code = None
    _Alarm.rang = False
    _Alarm.thread_start = time.thread_time()
    try:
        os.chdir(cwd)
        sys.argv = argv
        signal.setitimer(signal.ITIMER_REAL, WALL_SECONDS)
        signal.setitimer(signal.ITIMER_PROF, RUN_SECONDS)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), _float_errors():
            try:
                main()
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except RunTimeout:
        _Alarm.rang = True
    finally:
        for signum, timer in _TIMERS.items():
            signal.setitimer(timer, 0)
            signal.signal(signum, previous[signum])
        sys.argv = saved_argv
        os.chdir(saved_cwd)
        progress.configure(quiet=False)  # (-q is process-wide state; leave none behind)
        configure_logging(False)
    if _Alarm.rang:  # (also when code under test swallowed the alarm and the run ended)
        return (
            f"{time.thread_time() - _Alarm.thread_start:.1f} s of the run's processor time "
            f"({time.process_time() - cpu:.1f} s in all threads), "
            f"{time.perf_counter() - start:.1f} s of wall time"
        )
    run = Run(tuple(argv[1:]), code, out.getvalue(), err.getvalue(), time.perf_counter() - start)
    if os.environ.get(STATS_ENV):  # (a local hunt: how deep the cases get, per command)
        command = next((a for a in run.args if not a.startswith("-")), "")
        with open(os.environ[STATS_ENV], "a", encoding="utf-8") as fh:
            fh.write(f"{command}\t{run.code}\t{run.seconds:.3f}\n")
    return run


def snapshot(folder: Path) -> dict[str, str]:
    """Every entry under ``folder``, symbolic links not followed: a regular file by its digest,
    anything else by its kind (a FIFO stays a FIFO, a link keeps its target)."""
    out: dict[str, str] = {}
    for root, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            path = Path(root, name)
            rel = str(path.relative_to(folder))
            mode = os.lstat(path).st_mode
            if stat.S_ISREG(mode):
                try:
                    out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
                except PermissionError:  # (an ordinary user's unreadable input: its metadata)
                    out[rel] = f"unreadable {os.lstat(path).st_size} {os.lstat(path).st_mtime_ns}"
            elif stat.S_ISLNK(mode):
                out[rel] = f"link to {os.readlink(path)}"
            else:
                out[rel] = f"kind {stat.S_IFMT(mode)}"
    return out


def _kind(path: Path) -> int | None:
    try:
        return stat.S_IFMT(os.lstat(path).st_mode)
    except FileNotFoundError:
        return None


def assert_contract(
    folder: Path,
    args: Sequence[object],
    *,
    outputs: Iterable[str | Path] = (),
    outside: Iterable[Path] = (),
    quiet: bool = True,
    note: str = "",
    error_lines: int = 1,
    error_line: re.Pattern[str] = ERROR_LINE,
) -> Run:
    """Run ``privcheck ARGS`` in ``folder`` and assert the contract (module docstring).

    ``outputs``: what the run may write (paths relative to ``folder``, or absolute; a folder's
    whole content for a folder output); everything else under ``folder`` is an input.
    ``outside``: special files named as outputs outside ``folder`` (``/dev/null``).
    ``error_lines``, ``error_line``: how many lines exit 2 may print on stderr and what each
    looks like — one ``privcheck: error:`` line, but for ``hook``, which says a line per file
    it could not check."""
    folder = Path(folder)
    declared = {_relative(folder, p) for p in outputs}
    declared.discard(None)
    kinds = {p: _kind(p) for p in outside}
    before = snapshot(folder)
    run = run_cli(args, folder, quiet=quiet)
    context = f"{note}\n{run.describe()}"
    assert run.code in (0, 1, 2), context
    assert "Traceback" not in run.out and "Traceback" not in run.err, context
    after = snapshot(folder)
    if run.code == 2:
        lines = run.err.strip().splitlines()
        assert 1 <= len(lines) <= error_lines, context
        assert all(error_line.match(line) for line in lines), context
        assert after == before, f"written on exit 2: {_changes(before, after)}\n{context}"
    else:
        changed = _changes(before, after)
        undeclared = [p for p in changed if not _under(p, declared)]
        assert not undeclared, f"changed or added outside the outputs: {undeclared}\n{context}"
        if quiet:
            assert not _LIBRARY_WARNING.search(run.err), context
    temporaries = [p for p in after if Path(p).name.endswith(".tmp")]
    assert not temporaries, f"temporaries left: {temporaries}\n{context}"
    for path, kind in kinds.items():
        assert _kind(path) == kind, f"{path} changed kind\n{context}"
    return run


def _relative(folder: Path, path: str | Path) -> str | None:
    path = Path(path)
    if not path.is_absolute():
        return str(path)
    try:
        return str(path.relative_to(folder))
    except ValueError:
        return None


def _under(rel: str, declared: set[str]) -> bool:
    return any(rel == d or rel.startswith(d.rstrip("/") + "/") for d in declared)


def _changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Entries added, removed or changed."""
    keys = set(before) | set(after)
    return sorted(k for k in keys if before.get(k) != after.get(k))


def recheck(folder: Path, release: Path, policy: Path, *extra: str) -> Run:
    """``privcheck check RELEASE -p POLICY`` under the contract: the release an exit-0 run wrote
    must pass its own policy."""
    run = assert_contract(folder, ["check", release, "-p", policy, *extra])
    assert run.code == 0, f"an exit-0 release fails its own policy\n{run.describe()}"
    return run


def each_exit(run: Run, expected: Callable[[int], bool], why: str) -> None:
    """An exit code the command's documentation allows for this case."""
    assert expected(run.code), f"{why}\n{run.describe()}"


def assert_suppression_within_policy(
    data: Path, release: Path, policy: Path, encoding: str | None = None
) -> None:
    """A release keeps at least (1 − the policy's suppression_limit) of the records: the policy
    is the only authority, whatever a side file said (a release that drops records is not seen
    by a re-check, which reads only what is left)."""
    from privcheck.io import read_table
    from privcheck.policy import load_policy

    loaded = load_policy(policy)
    if loaded.individual is not None:  # (people are suppressed, not records)
        return
    n = len(read_table(data, encoding=encoding))
    kept = len(read_table(release))
    assert n - kept <= loaded.suppression_limit * n + 1e-9, (
        f"{n - kept} of {n} records suppressed, above the policy's limit {loaded.suppression_limit}"
    )
