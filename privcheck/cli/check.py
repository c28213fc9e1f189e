"""``privcheck check``: a table (pandas or an engine), a graph, or two linked releases against
a policy; exit 0 when every model holds, 1 when one is violated."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from privcheck.cli.options import (
    AllowDraft,
    Encoding,
    Engine,
    MaxGroups,
    SparkMaster,
    reads_data,
    refuse_draft,
)
from privcheck.cli.outputs import emit, guard
from privcheck.report_format import format_choice


@reads_data
def check(
    data: Annotated[
        str | None,
        typer.Argument(help="CSV/TSV/Parquet file to check (folder or glob: other engines)"),
    ] = None,
    policy: Annotated[
        Path, typer.Option("--policy", "-p", help="Policy file (YAML or JSON)")
    ] = ...,  # type: ignore[assignment]
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format",
            "-f",
            parser=format_choice("check"),
            metavar="<format>",
            help="Report format: text, json, html, github or a plugin's (privcheck plugins) "
            "(default: --output's extension, else text)",
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write the report here (.json, .html, .txt: format)"),
    ] = None,
    report_file: Annotated[
        Path | None,
        typer.Option(
            "--report",
            help="Also write the report here, in the file's format: .json (JSON), .html/.htm "
            "(HTML), .txt/.md (text) — as anonymize --report",
        ),
    ] = None,
    max_violators: Annotated[
        int, typer.Option(min=0, help="How many violating classes to list per model")
    ] = 20,
    graph: Annotated[
        Path | None,
        typer.Option("--graph", help="Check a graph instead: edge list (source,target) or GraphML"),
    ] = None,
    linked_with: Annotated[
        Path | None,
        typer.Option(
            "--linked-with",
            help="Another release of the same records: check the classes an intruder gets by "
            "pairing the two releases' rows and intersecting their classes",
        ),
    ] = None,
    engine: Annotated[
        Engine, typer.Option(help="Where the group-by runs (DATA may be a folder or glob)")
    ] = Engine.pandas,
    spark_master: SparkMaster = "local[*]",
    max_groups: MaxGroups = None,
    allow_empty: Annotated[
        bool,
        typer.Option(
            "--allow-empty",
            help="Accept a table without records as a vacuous pass (default: exit 2, an empty "
            "extract is usually a broken pipeline)",
        ),
    ] = False,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            help="Explain the re-identification risk: minimal sample uniques (SUDA2) and each "
            "quasi-identifier's contribution",
        ),
    ] = False,
    explain_max_size: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Largest quasi-identifier combination --explain searches (SUDA's maxK; default: "
            "all, up to 4,095 combinations)",
        ),
    ] = None,
    allow_draft: AllowDraft = False,
    encoding: Encoding = "utf-8",
) -> None:
    """Check DATA against a policy: exit 0 if every model holds, 1 if not, 2 on bad input."""
    from privcheck.output_formats import draws_details, render
    from privcheck.report_format import output_format, report_file_format

    fmt = output_format(output, fmt, "check", "check")
    report_fmt = None if report_file is None else report_file_format(report_file, "check")
    if (data is None) == (graph is None):
        raise typer.BadParameter("give either DATA (a table) or --graph EDGES, not both")
    guard({"--output": output, "--report": report_file}, [data, graph, linked_with], policy)
    refuse_draft(policy, allow_draft)
    if explain and (graph is not None or linked_with is not None):
        raise typer.BadParameter("--explain applies to a table check, not to --graph/--linked-with")
    if graph is not None:
        from privcheck.graph.checking import check_graph

        report = _marked(check_graph(graph, policy, max_violators=max_violators), policy)
        source = str(graph)
    elif linked_with is not None:
        from privcheck.anonymizers.complementary import check_linked

        report = check_linked(Path(data), linked_with, policy, max_violators=max_violators)
        report = _marked(report, policy)
        source = f"{data} ⋈ {linked_with}"
    else:
        from privcheck.checker import check as run_check

        frame: object = data
        if engine is not Engine.pandas:
            from privcheck.engines.readers import open_frame

            frame = open_frame(data, engine.value, spark_master)
        report = run_check(
            frame,
            policy,
            max_violators=max_violators,
            max_groups=max_groups,
            details=draws_details(fmt) or draws_details(report_fmt),
            allow_empty=allow_empty,
            explain=explain,
            explain_max_size=explain_max_size,
            allow_draft=allow_draft,
        )
        report.source = source = str(data)
    on_stdout = fmt == "text" and (output is None or str(output) == "-")
    if report.notes and not on_stdout:  # (a text report on the terminal prints them)
        from privcheck.progress import is_quiet

        if not is_quiet():
            for note in report.notes:
                typer.echo(f"note: {note}", err=True)
    if report_file is None:
        emit(render(report, fmt, "check", source=source), output)
    else:
        from privcheck.io import all_or_nothing, write_text_atomic

        assert report_fmt is not None
        written = render(report, report_fmt, "check", source=source)
        # what is printed does not change with --report: the plot data an HTML report file
        # needed stays out of a JSON printed beside it
        shown = report if draws_details(fmt) else _without_details(report)
        text = render(shown, fmt, "check", source=source)
        with all_or_nothing():  # the report file and --output: both or neither
            write_text_atomic(report_file, written)
            if output is not None and str(output) != "-":
                write_text_atomic(output, text)
        if output is None or str(output) == "-":
            typer.echo(text, nl=not text.endswith("\n"))
        _wrote(report_file if output is None or str(output) == "-" else output, report_file)
    raise typer.Exit(0 if report.passed else 1)


def _marked(report, policy: Path):
    """A report of a check that ran outside ``checker.check`` says whether the policy was a
    draft (``--allow-draft``)."""
    from privcheck.policy import load_policy
    from privcheck.report import mark_draft

    return mark_draft(report, load_policy(policy))


def _without_details(report):
    """The check report without the plot data ``details=True`` adds (``checker.check``)."""
    if getattr(report, "class_sizes", None) is None:
        return report
    models = [m.model_copy(update={"histogram": None, "distribution": None}) for m in report.models]
    return report.model_copy(update={"class_sizes": None, "models": models})


def _wrote(first: Path, second: Path) -> None:
    """Say which files a command wrote (on stderr; not with --quiet)."""
    from privcheck.progress import is_quiet

    if not is_quiet():
        names = str(first) if first == second else f"{first} and {second}"
        typer.echo(f"wrote {names}", err=True)
