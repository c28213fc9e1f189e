"""``privcheck apply``: a chosen transformation re-applied to the next batch, written only when
the batch's release satisfies the policy."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from privcheck.cli.options import (
    SEED_MAX,
    AllowDraft,
    Encoding,
    Engine,
    SparkMaster,
    reads_data,
    refuse_draft,
)
from privcheck.cli.outputs import guard, require_release_path
from privcheck.report_format import format_choice


@reads_data
def apply(
    data: Annotated[str, typer.Argument(help="The next batch (CSV/TSV/Parquet; folder or glob)")],
    transformation: Annotated[
        Path,
        typer.Option(
            "--transformation",
            "-t",
            help="An anonymization report (JSON) or a transformation JSON: the node to re-apply",
        ),
    ],
    policy: Annotated[
        Path, typer.Option("--policy", "-p", help="Policy file (YAML or JSON)")
    ] = ...,  # type: ignore[assignment]
    output: Annotated[
        Path, typer.Option("--output", "-o", help="Where to write the release")
    ] = ...,  # type: ignore[assignment]
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            parser=format_choice("check"),
            metavar="<format>",
            help="Report format: text, json, html, github or a plugin's (privcheck plugins)",
        ),
    ] = "text",
    engine: Annotated[Engine, typer.Option(help="Where the batch is read and generalized")] = (
        Engine.pandas
    ),
    spark_master: SparkMaster = "local[*]",
    keep_order: Annotated[
        bool, typer.Option("--keep-order", help="Keep the input's row order (default: shuffle)")
    ] = False,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed",
            min=0,
            max=SEED_MAX,
            help="Seed of the row shuffle, for reproducible tests; never written out. Default: "
            "the operating system's entropy",
        ),
    ] = None,
    allow_draft: AllowDraft = False,
    encoding: Encoding = "utf-8",
) -> None:
    """Re-apply a chosen transformation to DATA and check it: exit 0 and write the release if
    the policy holds, exit 1 with the batch's check report and NO release if it does not.

    The policy is the only authority: a transformation whose suppression_limit is above the
    policy's, or whose suppressed_records differs, is refused (exit 2); a lower limit is applied
    and a note says so."""
    from privcheck.anonymizers import apply as run_apply
    from privcheck.engines.output import write_release
    from privcheck.output_formats import render

    guard(
        {"--output": output},
        [data, transformation],
        policy,
        directories=("--output",) if engine is Engine.spark else (),
    )
    require_release_path(output, engine)
    refuse_draft(policy, allow_draft)
    frame: object = data
    if engine is not Engine.pandas:
        from privcheck.engines.readers import open_frame

        frame = open_frame(data, engine.value, spark_master)
    notes: list[str] = []
    release, report = run_apply(
        frame,
        transformation,
        policy,
        keep_order=keep_order,
        seed=seed,
        allow_draft=allow_draft,
        notes=notes,
    )
    from privcheck.progress import is_quiet

    for note in notes if not is_quiet() else []:  # the transformation narrowed the policy
        typer.echo(f"note: {note}", err=True)
    if release is None:
        typer.echo(render(report, fmt, "check", source=str(data)), nl=False)
        typer.echo(
            f"the transformation no longer satisfies the policy on {data}; nothing written "
            "(choose a new one with privcheck anonymize)",
            err=True,
        )
        raise typer.Exit(1)
    write_release(release, output)
    typer.echo(render(report, fmt, "check", source=f"release of {data}"), nl=False)
    typer.echo(f"wrote {output}", err=True)
