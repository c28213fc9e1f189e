"""The ``privcheck`` command: check, schema, plugins, demo.

Exit codes: 0 every model holds, 1 some model is violated, 2 bad input (one line on stderr naming
the problem; never a traceback).
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from importlib import resources
from pathlib import Path
from typing import Annotated

import typer

from privcheck.errors import PrivcheckError

app = typer.Typer(
    name="privcheck",
    help="Privacy-model compliance checker and anonymizer.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class Format(StrEnum):
    text = "text"
    json = "json"
    html = "html"


class Engine(StrEnum):
    pandas = "pandas"
    polars = "polars"
    duckdb = "duckdb"
    spark = "spark"


DEFAULT_SCHEMA = Path("schemas/policy.schema.json")


def demo_dir() -> Path:
    """Folder of the embedded Adult data, hierarchies and demo policy."""
    return Path(str(resources.files("privcheck") / "data" / "adult"))


def emit(text: str, output: Path | None) -> None:
    """Print to stdout, or write ``output`` atomically."""
    if output is None:
        typer.echo(text, nl=not text.endswith("\n"))
    else:
        from privcheck.io import write_text_atomic

        write_text_atomic(output, text)
        typer.echo(f"wrote {output}", err=True)


def render(report, fmt: Format) -> str:
    from privcheck.report import render_html, render_text

    if fmt is Format.json:
        return report.to_json() + "\n"
    if fmt is Format.html:
        return render_html(report)
    return render_text(report)


@app.command()
def check(
    data: Annotated[
        str, typer.Argument(help="CSV/TSV/Parquet file to check (folder or glob: other engines)")
    ],
    policy: Annotated[Path, typer.Option("--policy", "-p", help="Policy file (YAML or JSON)")],
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Report format")] = Format.text,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the report here")
    ] = None,
    max_violators: Annotated[
        int, typer.Option(min=0, help="How many violating classes to list per model")
    ] = 20,
    engine: Annotated[
        Engine, typer.Option(help="Where the group-by runs (DATA may be a folder or glob)")
    ] = Engine.pandas,
    spark_master: Annotated[
        str, typer.Option(help="Spark master for --engine spark (an active session wins)")
    ] = "local[*]",
    max_groups: Annotated[
        int | None,
        typer.Option(min=0, help="Most value combinations an engine may send back (0: no limit)"),
    ] = None,
) -> None:
    """Check DATA against a policy: exit 0 if every model holds, 1 if not, 2 on bad input."""
    from privcheck.checker import check as run_check

    if engine is not Engine.pandas:
        from privcheck.engines.readers import open_frame

        frame = open_frame(data, engine.value, spark_master)
        report = run_check(frame, policy, max_violators=max_violators, max_groups=max_groups)
        report.source = str(data)
    else:
        report = run_check(data, policy, max_violators=max_violators, max_groups=max_groups)
    emit(render(report, fmt), output)
    raise typer.Exit(0 if report.passed else 1)


@app.command()
def schema(
    output: Annotated[
        Path, typer.Option("--output", "-o", help="Where to write the schema ('-' for stdout)")
    ] = DEFAULT_SCHEMA,
) -> None:
    """Write the policy's JSON Schema (every registered model included)."""
    from privcheck.policy import policy_json_schema

    text = json.dumps(policy_json_schema(), indent=2, ensure_ascii=False) + "\n"
    emit(text, None if str(output) == "-" else output)


@app.command()
def plugins() -> None:
    """List the plugins (built-in and installed) and what each contributes."""
    from rich.console import Console
    from rich.table import Table

    from privcheck.plugins import plugin_rows

    table = Table(title="privcheck plugins", show_edge=False)
    for col in ("plugin", "source", "provides"):
        table.add_column(col)
    for row in plugin_rows():
        table.add_row(row["name"], row["source"], row["provides"])
    Console(width=120).print(table)


@app.command()
def demo() -> None:
    """Run privcheck on the embedded Adult data (30,162 records, ARX hierarchies)."""
    from privcheck.checker import check as run_check
    from privcheck.report import render_text

    folder = demo_dir()
    typer.echo(f"Adult census data and ARX hierarchies from {folder}\n")
    report = run_check(folder / "adult.csv", folder / "policy.yaml")
    report.source = "adult.csv"
    typer.echo(render_text(report))


def main() -> None:
    """Entry point: run the app, turning user errors into one line and exit code 2."""
    try:
        app(standalone_mode=True)
    except PrivcheckError as exc:
        typer.echo(f"privcheck: error: {exc}", err=True)
        sys.exit(2)
    except (BrokenPipeError, KeyboardInterrupt):  # pragma: no cover
        sys.exit(130)


if __name__ == "__main__":  # pragma: no cover
    main()
