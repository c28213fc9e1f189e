"""The ``privcheck`` command: check, anonymize, compare, risk, apply, hook, init, schema, plugins,
demo.

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
    check,
    compare,
    demo,
    hook,
    init,
    plugins,
    risk,
    schema,
)
from privcheck.cli.entry import global_options, run

app = typer.Typer(
    name="privcheck",
    help="Privacy-model compliance checker and anonymizer.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # plain (click) help and usage errors: Typer's Rich formatting imports rich's markdown,
    # syntax and traceback modules and pygments — ~0.2 s, half the budget of `--help`
    rich_markup_mode=None,
)
app.callback()(global_options)
app.command()(check.check)
app.command()(anonymize.anonymize)
app.command()(compare.compare)
app.command()(risk.risk)
app.command()(apply.apply)
app.command()(hook.hook)
app.command()(init.init)
app.command()(schema.schema)
app.command()(plugins.plugins)
app.command()(demo.demo)


def main() -> None:
    """Entry point (``privcheck``, ``python -m privcheck``, ``python -m privcheck.cli``): run the
    app, every refusal one line on stderr and an exit code (``entry.run``)."""
    run(app)
