"""``privcheck hook``: data files checked against the policies privcheck.toml assigns them
(pre-commit, CI); the work is ``privcheck.hook.run_hook``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from privcheck.cli.options import AllowDraft, Encoding, reads_data


@reads_data
def hook(
    files: Annotated[
        list[Path] | None,
        typer.Argument(help="Data files to check (default: every file the config matches)"),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option("--config", "-c", help="Config mapping globs to policies (privcheck.toml)"),
    ] = None,
    fmt: Annotated[
        str, typer.Option("--format", "-f", help="text, or github for Actions annotations")
    ] = "text",
    allow_draft: AllowDraft = False,
    encoding: Encoding = "utf-8",
) -> None:
    """Check data files against the policies privcheck.toml assigns them (pre-commit, CI)."""
    from privcheck.hook import run_hook

    if fmt not in ("text", "github"):
        raise typer.BadParameter(f"--format must be text or github; got {fmt!r}")
    code = run_hook(
        list(files or []),
        config,
        github=fmt == "github",
        echo=typer.echo,
        echo_error=lambda line: typer.echo(line, err=True),
        allow_draft=allow_draft,
    )
    raise typer.Exit(code)
