"""How the ``privcheck`` command runs around its commands: the global options (``--verbose``,
``--quiet``, ``--version``), logging, and the entry point that turns every refusal into one
line on stderr and an exit code (stop signals unwind like Ctrl-C).
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Annotated

import typer

from privcheck.errors import PrivcheckError


def version_text() -> str:
    """The installed distribution's version (``privcheck.__version__`` when not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("privcheck")
    except PackageNotFoundError:
        from privcheck.version import __version__

        return __version__


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"privcheck {version_text()}")
        raise typer.Exit(0)


def configure_logging(verbose: bool) -> None:
    """``--verbose``: INFO records of the ``privcheck`` loggers on stderr, one line each, and the
    libraries' warnings (numpy, pandas, pyarrow, matplotlib, scikit-learn, ``re`` …) and log
    records of level WARNING and above, each naming where it came from.

    Without it, stderr carries only privcheck's own lines (progress, notes, ``wrote …``, one
    error line): a library's warning about a value in the data (an overflow, a glyph the font
    lacks, a regular expression's future meaning) is not the user's to act on, and a hook or CI
    log that shows one looks broken. ``main`` ignores warnings unless Python's own ``-W`` /
    ``PYTHONWARNINGS`` asked for them; library log records go to a null handler.
    """
    import warnings

    logger = logging.getLogger("privcheck")
    root = logging.getLogger()
    for owner in (logger, root):
        for handler in list(owner.handlers):
            if getattr(handler, "_privcheck_cli", False):
                owner.removeHandler(handler)
    if not verbose:
        logger.setLevel(logging.WARNING)
        logger.propagate = True
        silent = logging.NullHandler()  # (with a handler, logging's last resort never prints)
        silent._privcheck_cli = True  # type: ignore[attr-defined]
        root.addHandler(silent)
        logging.captureWarnings(False)
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("privcheck: %(message)s"))
    handler._privcheck_cli = True  # type: ignore[attr-defined]
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False  # (the libraries' handler below is the root's)
    libraries = logging.StreamHandler(sys.stderr)
    libraries.setFormatter(logging.Formatter("privcheck: %(levelname)s from %(name)s: %(message)s"))
    libraries.setLevel(logging.WARNING)
    libraries._privcheck_cli = True  # type: ignore[attr-defined]
    root.addHandler(libraries)
    if not sys.warnoptions:
        warnings.simplefilter("default")
    logging.captureWarnings(True)  # warnings become records of 'py.warnings', shown above


def global_options(
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Log what is computed (timings, classes)")
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress bars or notes on stderr")
    ] = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Print privcheck's version and exit",
            callback=_print_version,
            is_eager=True,
        ),
    ] = False,
) -> None:
    """Privacy-model compliance checker and anonymizer."""
    from privcheck import progress

    if verbose and quiet:
        raise typer.BadParameter("--verbose and --quiet exclude each other")
    progress.configure(quiet=quiet)
    configure_logging(verbose)


def run(app: typer.Typer) -> None:
    """Run ``app`` as the ``privcheck`` command, turning user errors into one line and exit code 2.

    Click's own usage errors (an unknown option, a missing argument, a value of the wrong
    type) are printed the same way — one line naming the problem and where help is — so a
    hook or CI log reads every refusal alike."""
    import warnings

    from privcheck import collector, interrupts

    collector.defer()  # start-up objects are not garbage; reading the data resumes collection
    replaced = interrupts.install()  # SIGTERM, SIGHUP …: unwind like Ctrl-C, outputs removed
    click = _click_exceptions()
    try:
        with warnings.catch_warnings():  # (restored when main returns: a test process)
            if not sys.warnoptions:  # Python's -W / PYTHONWARNINGS still decide when given
                warnings.simplefilter("ignore")
            configure_logging(False)
            if len(sys.argv) > 1 and "--help" not in sys.argv[1:]:
                require_working_folder()
            code = app(standalone_mode=False)
    except PrivcheckError as exc:
        typer.echo(f"privcheck: error: {_one_line(str(exc))}", err=True)
        sys.exit(2)
    except click.NoArgsIsHelpError as exc:  # `privcheck` alone: the help, as Click prints it
        typer.echo(exc.format_message())
        sys.exit(exc.exit_code)
    except click.UsageError as exc:
        command = exc.ctx.command_path if exc.ctx is not None else "privcheck"
        hint = f" (see {command} --help)"
        typer.echo(f"privcheck: error: {_one_line(exc.format_message())}{hint}", err=True)
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        typer.echo(f"privcheck: error: {_one_line(exc.format_message())}", err=True)
        sys.exit(exc.exit_code)
    except interrupts.Interrupted as exc:
        sys.exit(exc.exit_code)
    except (getattr(click, "Abort", KeyboardInterrupt), BrokenPipeError, KeyboardInterrupt):
        sys.exit(_stopped_code(130))
    except OSError as exc:  # the system refused something no check foresaw: still one line
        typer.echo(f"privcheck: error: {_os_error_line(exc)}", err=True)
        sys.exit(2)
    finally:
        interrupts.restore(replaced)
        collector.release()
    sys.exit(_stopped_code(code) if isinstance(code, int) else 0)


def _stopped_code(code: int) -> int:
    """128 + the signal's number when a stop signal ended the command (Typer reports every
    ``KeyboardInterrupt`` as 130, SIGTERM's included)."""
    from privcheck.interrupts import stopped_by

    signum = stopped_by()
    return 128 + signum if signum is not None and code == 130 else code


def require_working_folder() -> None:
    """Refuse to start in a working folder that no longer exists (deleted, or moved away while
    a shell sat in it): every relative path would resolve against nothing."""
    from privcheck.errors import DataError

    try:
        os.getcwd()
    except OSError:
        raise DataError(
            "the current working folder no longer exists (deleted or moved); cd to an existing "
            "folder and run again"
        ) from None


def _os_error_line(exc: OSError) -> str:
    """An operating-system error as one line: what failed, on which path, and what to do."""
    reason = exc.strerror or (str(exc).splitlines() or [type(exc).__name__])[0]
    where = " → ".join(str(p) for p in (exc.filename, exc.filename2) if p is not None)
    if isinstance(exc, PermissionError):
        hint = "check the permissions of the file and of every folder above it"
    elif isinstance(exc, FileNotFoundError):
        hint = "check the path (and that the working folder still exists)"
    else:
        hint = "nothing was written; check the path and the file system"
    return f"{where + ': ' if where else ''}{reason}; {hint}"


def _click_exceptions():
    """Click's exception classes as Typer raises them (recent Typer vendors its own Click)."""
    try:
        from typer._click import exceptions
    except ImportError:  # pragma: no cover - Typer before it vendored Click
        from click import exceptions
    return exceptions


def _one_line(message: str) -> str:
    """A message as one line (a wrapped Click message or a multi-line cause joined)."""
    return " ".join(part.strip() for part in message.splitlines() if part.strip())
