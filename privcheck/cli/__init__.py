"""The ``privcheck`` command: check, anonymize, compare, risk, apply, hook, init, schema, plugins,
publish, demo, catalog (check|status).

Exit codes: 0 every model holds, 1 some model is violated, 2 bad input (one line on stderr naming
the problem; never a traceback). Global options: ``--verbose`` logs what was computed (timings,
classes) on stderr; ``--quiet`` silences progress bars and notes.

This module only assembles the app: each command is one module of this package (its function
has the command's name), registered below in the order ``--help`` lists them; the options
several commands share are in ``options.py``, where their results go in ``outputs.py``, and the
global options and the entry point's error handling in ``entry.py``. Every heavy import stays
inside the command functions, so ``privcheck --help`` starts fast.
"""

from __future__ import annotations

import typer

from privcheck.cli import (
    anonymize,
    apply,
    catalog,
    check,
    compare,
    demo,
    hook,
    init,
    plugins,
    publish,
    risk,
    schema,
)
from privcheck.cli.entry import global_options, run

_SETTINGS: dict = dict(
    name="privcheck",
    help="Privacy-model compliance checker and anonymizer.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # plain (click) help and usage errors: Typer's Rich formatting imports rich's markdown,
    # syntax and traceback modules and pygments — ~0.2 s, half the budget of `--help`
    rich_markup_mode=None,
)
#: the commands in the order ``--help`` lists them
COMMANDS = (
    check.check,
    anonymize.anonymize,
    compare.compare,
    risk.risk,
    apply.apply,
    hook.hook,
    init.init,
    schema.schema,
    plugins.plugins,
    publish.publish,
    demo.demo,
)


def build_app(only: str | None = None) -> typer.Typer:
    """The ``privcheck`` app: every command, or only the one named ``only``.

    Typer turns each command's signature into Click parameters when the app runs — ~0.03 s for
    all twelve, a tenth of a small check's budget — so the entry point builds only the command
    the command line names; ``--help`` and anything else get the whole app."""
    built = typer.Typer(**_SETTINGS)
    built.callback()(global_options)
    for command in COMMANDS:
        if only is None or command.__name__ == only:
            built.command()(command)
    if only is None or only == catalog.app.info.name:
        built.add_typer(catalog.app)
    return built


app = build_app()


def _named_command(args: list[str]) -> str | None:
    """The command a command line names (its first argument after the global options, which
    take no value), when it is one of ours."""
    first = next((arg for arg in args if not arg.startswith("-")), None)
    names = {command.__name__ for command in COMMANDS} | {catalog.app.info.name}
    return first if first in names else None


def main() -> None:
    """Entry point (``privcheck``, ``python -m privcheck``, ``python -m privcheck.cli``): run the
    app, every refusal one line on stderr and an exit code (``entry.run``)."""
    import sys

    named = _named_command(sys.argv[1:])
    run(app if named is None else build_app(named))
