"""``privcheck init``: a table profiled and its policy drafted (``privcheck.profiling``), each
role with its reason, the hierarchies written beside it."""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from privcheck.cli.options import Encoding, reads_data


class InitFormat(StrEnum):
    text = "text"
    json = "json"


@reads_data
def init(
    data: Annotated[Path, typer.Argument(help="CSV/TSV/Parquet file to profile")],
    output: Annotated[
        Path,
        typer.Option(
            "--output", "-o", help="Policy file to write (YAML with a reason per line; .json: JSON)"
        ),
    ] = ...,  # type: ignore[assignment]
    tags: Annotated[
        Path | None,
        typer.Option(
            "--tags",
            help="Catalog tags, JSON or YAML: column → list of tags (PII:Identifier, "
            "PII:Quasi-Identifier, PII:Sensitive, PII:Insensitive); they set the roles",
        ),
    ] = None,
    k: Annotated[
        int | None,
        typer.Option(
            "--k", min=1, help="k of the k-anonymity model (default 5; a smaller table: its size)"
        ),
    ] = None,
    l: Annotated[  # noqa: E741
        int,
        typer.Option(
            "--l", min=1, help="l of the distinct l-diversity of each sensitive attribute (1: none)"
        ),
    ] = 2,
    suppression: Annotated[
        float | None,
        typer.Option(
            "--suppression", help="Suppression limit, the share of records (default 0.05)"
        ),
    ] = None,
    hierarchies: Annotated[
        Path | None,
        typer.Option(
            "--hierarchies",
            help="Folder for the table hierarchies (default: hierarchies/ beside the policy)",
        ),
    ] = None,
    fmt: Annotated[
        InitFormat,
        typer.Option("--format", "-f", help="How the profile is printed on stdout: text or json"),
    ] = InitFormat.text,
    force: Annotated[
        bool, typer.Option("--force", help="Replace an existing policy or hierarchy file")
    ] = False,
    encoding: Encoding = "utf-8",
) -> None:
    """Profile DATA and draft its policy: a role for every column with its reason, a hierarchy
    for every quasi-identifier, the models. Exit 0 with the draft written, 2 on bad input."""
    from privcheck.errors import DataError, PolicyError
    from privcheck.io import guard_outputs
    from privcheck.progress import is_quiet

    if str(output) == "-":
        raise DataError(
            "--output - : init writes the policy to a file (its table hierarchies go beside "
            "it); name a .yaml file"
        )
    if suppression is not None and not 0.0 <= suppression <= 1.0:
        raise PolicyError(f"--suppression must lie between 0 and 1; got {suppression}")
    inputs = [data, tags]
    guard_outputs({"--output": output}, inputs)  # before the work: aliasing, folder, kind
    if not force and os.path.lexists(output):
        raise DataError(
            f"{output} exists: privcheck init never overwrites a file; pass --force to replace "
            "it, or choose another name"
        )
    from privcheck.profiling.draft import draft_policy, write_draft
    from privcheck.profiling.render import profile_text, summary_text

    draft = draft_policy(data, k=k, l=l, suppression=suppression, tags=tags)
    write_draft(draft.profile, output, hierarchies_dir=hierarchies, inputs=inputs, force=force)
    profile = draft.profile
    for warning in profile.warnings:  # (said even with --quiet)
        typer.echo(f"privcheck: warning: {warning}", err=True)
    if fmt is InitFormat.json:
        typer.echo(profile.to_json())
    else:
        typer.echo(profile_text(profile), nl=False)
    if not is_quiet():
        typer.echo(summary_text(profile, str(data)), err=True, nl=False)
