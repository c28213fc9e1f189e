"""Shared fixtures: paths to the embedded and test data, a CLI runner, plugin isolation."""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import traceback
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

if sys.dont_write_bytecode:  # (PYTHONDONTWRITEBYTECODE): the CLI processes tests still start
    # would each compile privcheck from source (~0.4 s); compile it once, as pip install does
    import compileall

    for _package in (ROOT / "privcheck", ROOT / "plugins" / "privcheck-gx" / "privcheck_gx"):
        compileall.compile_dir(_package, quiet=1)


def _datahub_folders_in_a_temporary_home() -> None:
    """DataHub's SDK fixes its folders (``~/.datahub``, ``~/.datahubenv``) when first imported
    and writes its telemetry file there at once: imported here first, with HOME in a temporary
    folder for that moment, no test (nor a command run in this process) touches the user's
    ``~/.datahub``. A test that needs HOME elsewhere sets it for a CLI process of its own."""
    import atexit
    import shutil
    import tempfile

    home = tempfile.mkdtemp(prefix="privcheck-tests-home-")
    atexit.register(shutil.rmtree, home, ignore_errors=True)
    saved = {key: os.environ.get(key) for key in ("HOME", "DATAHUB_TELEMETRY_ENABLED")}
    os.environ.update(HOME=home, DATAHUB_TELEMETRY_ENABLED="false")
    try:
        import datahub.cli.config_utils
        import datahub.telemetry.telemetry  # noqa: F401
    except ImportError:  # the catalog extra is not installed: its tests skip
        pass
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def pytest_configure(config) -> None:
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        _datahub_folders_in_a_temporary_home()  # (a process that runs tests: not xdist's own)


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


#: environment variables a command reads while it runs (``PRIVCHECK_*`` limits, stores and
#: keys): a test may set them for an in-process run. Any other (``PYTHONWARNINGS``, ``HOME`` …)
#: is read when the interpreter or a library starts, so a run that sets one gets a process.
_RUN_TIME_ENV = ("PRIVCHECK_",)


def run_cli(
    *args: str,
    cwd: Path | None = None,
    env: dict | None = None,
    process: bool = False,
    timeout: float = 300,
) -> subprocess.CompletedProcess:
    """Run ``privcheck ARGS`` as a user would: its exit code, stdout and stderr.

    By default the command runs in this process (``privcheck.cli.main`` with ``sys.argv``, the
    working folder and ``env`` set, stdout and stderr captured): a CLI process spends over half
    a second starting, and the suite runs hundreds of commands, mostly on small tables that
    take tens of milliseconds. What only a real process shows gets one: ``process=True``, an
    ``env`` naming a variable read at start-up or a module path this process does not have, and
    data on stdin (``-``). A ``--engine spark`` run takes this worker's Spark session (one per
    worker: the CLI never stops a session it did not start). An exception escaping ``main`` is
    printed on stderr with exit code 1, as the interpreter would; a run past ``timeout``
    seconds fails the test (``subprocess.TimeoutExpired``, as from a process)."""
    argv = [str(arg) for arg in args]
    extra = {k: v for k, v in (env or {}).items() if k != "PYTHONPATH"}
    if (
        process
        or any(not key.startswith(_RUN_TIME_ENV) for key in extra)
        or not _importable_here((env or {}).get("PYTHONPATH", ""))
        or "-" in argv
    ):
        return run_cli_process(*argv, cwd=cwd, env=env, timeout=timeout)
    return _run_in_process(argv, cwd, extra, timeout)


def _importable_here(python_path: str) -> bool:
    """Whether a ``PYTHONPATH`` adds nothing this process does not import from already (a test
    that puts a stand-in module first needs a process of its own)."""
    here = {os.path.realpath(entry or os.curdir) for entry in sys.path}
    wanted = [entry for entry in python_path.split(os.pathsep) if entry]
    return all(os.path.realpath(entry) in here for entry in wanted)


def run_cli_process(
    *args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 300
) -> subprocess.CompletedProcess:
    """Run the installed CLI entry point (``python -m privcheck.cli``) in a process of its own."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "privcheck.cli", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=full_env,
        timeout=timeout,
    )


class _RanTooLong(BaseException):
    """Raised by the alarm in an in-process run (a BaseException: no handler of the command
    takes it for its own error)."""


def _on_alarm(signum, frame) -> None:
    raise _RanTooLong


class _Captured(io.TextIOWrapper):
    """A captured stdout/stderr with a byte buffer underneath (a command may write bytes)."""

    def __init__(self) -> None:
        super().__init__(io.BytesIO(), encoding="utf-8", errors="replace", write_through=True)

    def isatty(self) -> bool:
        return False

    def text(self) -> str:
        self.flush()
        value = self.buffer.getvalue().decode("utf-8", "replace")  # type: ignore[attr-defined]
        return value.replace("\r\n", "\n").replace("\r", "\n")  # (text=True's newlines)


def _run_in_process(
    argv: list[str], cwd: Path | None, env: dict, timeout: float
) -> subprocess.CompletedProcess:
    from privcheck import progress
    from privcheck.cli import main
    from privcheck.cli.entry import configure_logging

    out, err = _Captured(), _Captured()
    saved_argv, saved_cwd, saved_env = sys.argv, os.getcwd(), dict(os.environ)
    code = 0
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        os.environ.update(env)
        if cwd is not None:
            os.chdir(cwd)
        sys.argv = ["privcheck", *argv]
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main()
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except Exception:  # what the interpreter prints for an uncaught exception
                traceback.print_exc()
                code = 1
    except _RanTooLong:
        raise subprocess.TimeoutExpired(["privcheck", *argv], timeout) from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        sys.argv = saved_argv
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        progress.configure(quiet=False)  # (-q is process-wide state; leave none behind)
        configure_logging(False)
    return subprocess.CompletedProcess(["privcheck", *argv], code, out.text(), err.text())


@pytest.fixture
def cli():
    return run_cli


#: session fixtures dear enough to build once: a module using one runs on the first worker
_SHARED_FIXTURES = frozenset({"spark", "million_parquet"})


def pytest_collection_modifyitems(config, items) -> None:
    """The modules that start Spark (or build the 1 M-record table) first, together; then the
    modules whose own fixtures are built once per module; then the rest.

    With ``--dist worksteal`` each worker takes a contiguous half of the list and an idle one
    takes the other's last tests. Grouped at the front, the Spark modules all run on the first
    worker, which starts the suite's one JVM (~10 s of two cores' time each), and the other
    worker never does; a module with a costly module fixture (Adult released three ways, the
    name tables of eleven locales) is never split between the workers by a steal, which would
    build its fixture twice. The order of the tests within a module is kept."""

    def module(item) -> str:
        return item.nodeid.split("::")[0]

    def builds_once(item) -> bool:
        defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {}) or {}
        return any(
            d.scope in ("module", "package") and str(d.baseid).startswith("tests")
            for fixture_defs in defs.values()
            for d in fixture_defs
        )

    spark = {
        module(item)
        for item in items
        if _SHARED_FIXTURES & set(getattr(item, "fixturenames", ())) or "spark" in item.nodeid
    }
    once = {module(item) for item in items if builds_once(item)} - spark
    items.sort(key=lambda item: 0 if module(item) in spark else 1 if module(item) in once else 2)
