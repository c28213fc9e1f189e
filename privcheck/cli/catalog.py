"""``privcheck catalog check|status``: a dataset's tags read from DataHub, its Verdict written
back as assertions and run events, and the latest verdict read back.

``check`` exits as ``privcheck check`` does (0 every model holds, 1 some model is violated, 2
bad input — an unknown URN, an unreachable catalog, a schema without the policy's columns, a
draft, a missing extra — with nothing written to the catalog); ``status`` exits 0 when every
model of the latest run holds, 1 when one failed, 2 when the catalog does not know the dataset.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from privcheck.cli.options import AllowDraft, Encoding, reads_data

app = typer.Typer(
    name="catalog",
    help="Check a dataset registered in a data catalog (DataHub) and record the verdict there.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

Store = Annotated[
    Path | None,
    typer.Option(
        "--store",
        help="DataHub Lite store file (default: $PRIVCHECK_DATAHUB_STORE, else the DataHub "
        "CLI's own store: ~/.datahub/lite/datahub.db, or ~/.datahubenv's lite section)",
    ),
]
Gms = Annotated[
    str | None,
    typer.Option(
        "--gms",
        help="A DataHub server (GMS) URL instead of Lite (default: $PRIVCHECK_DATAHUB_GMS); "
        "the token is read from $DATAHUB_GMS_TOKEN",
    ),
]


def _format(value: str) -> str:
    if value not in ("text", "json"):
        raise typer.BadParameter(f"{value!r} is not one of text, json")
    return value


FormatOption = Annotated[
    str,
    typer.Option("--format", "-f", callback=_format, help="Output format: text or json"),
]


def _catalog(store: Path | None, gms: str | None):
    from privcheck.catalogs.datahub import DataHubCatalog

    return DataHubCatalog(store=store, gms=gms)


def _mark(passed: bool) -> str:
    return "PASS" if passed else "FAIL"


@app.command("check")
@reads_data
def check(
    urn: Annotated[str, typer.Argument(help="The dataset's DataHub URN")],
    data: Annotated[Path, typer.Argument(help="The dataset's rows: CSV/TSV or Parquet")],
    policy: Annotated[
        Path,
        typer.Option(
            "--policy",
            "-p",
            help="Base policy (models, suppression, hierarchies); the catalog's tags override "
            "its roles",
        ),
    ] = ...,  # type: ignore[assignment]
    store: Store = None,
    gms: Gms = None,
    fmt: FormatOption = "text",
    allow_draft: AllowDraft = False,
    encoding: Encoding = "utf-8",
) -> None:
    """Check DATA against the policy the catalog's tags make of BASE; write the verdict back as
    assertions and run events. Exit 0 if every model holds, 1 if not, 2 on bad input."""
    from privcheck.catalog import describe
    from privcheck.catalogs.tagged import check_in_catalog
    from privcheck.progress import is_quiet

    catalog = _catalog(store, gms)
    verdict, notes = check_in_catalog(catalog, urn, data, policy, allow_draft=allow_draft)
    if not is_quiet():
        for note in notes:
            typer.echo(f"note: {note}", err=True)
    if fmt == "json":
        typer.echo(verdict.to_json())
    else:
        lines = [f"{_mark(verdict.passed)} {urn} ({verdict.n_records:,} records)"]
        lines += [f"  {_mark(m.passed)} {describe(m)}" for m in verdict.models]
        if verdict.identifiers_present:
            lines.append(f"  FAIL identifiers present: {', '.join(verdict.identifiers_present)}")
        if not verdict.suppression_ok:
            lines.append("  FAIL more records suppressed than the policy allows")
        typer.echo("\n".join(lines))
    if not is_quiet():
        typer.echo(
            f"wrote {len(verdict.models)} assertion run(s) to DataHub at {catalog.location()}",
            err=True,
        )
    raise typer.Exit(0 if verdict.passed else 1)


@app.command("status")
def status(
    urn: Annotated[str, typer.Argument(help="The dataset's DataHub URN")],
    store: Store = None,
    gms: Gms = None,
    fmt: FormatOption = "text",
) -> None:
    """The latest privcheck result per model, as stored in the catalog. Exit 0 if every model
    holds, 1 if one failed, 2 when the catalog does not know the dataset."""
    catalog = _catalog(store, gms)
    results = catalog.latest_results(urn)
    passed = all(r.passed and r.verdict_passed for r in results)
    identifiers = sorted({i for r in results for i in r.identifiers_present})
    if fmt == "json":
        typer.echo(
            json.dumps(
                {
                    "dataset": urn,
                    "passed": passed,
                    "identifiers_present": identifiers,
                    "run_id": results[0].run_id,
                    "evaluated_at": results[0].evaluated_at,
                    "models": [r.to_dict() for r in results],
                },
                indent=2,
            )
        )
    else:
        from datetime import UTC, datetime

        when = datetime.fromtimestamp(results[0].evaluated_at / 1000, UTC)
        lines = [f"{_mark(passed)} {urn} (checked {when:%Y-%m-%d %H:%M:%S} UTC)"]
        lines += [f"  {_mark(r.passed)} {r.summary}" for r in results]
        if identifiers:
            lines.append(f"  FAIL identifiers present: {', '.join(identifiers)}")
        typer.echo("\n".join(lines))
    raise typer.Exit(0 if passed else 1)
