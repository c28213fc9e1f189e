"""``privcheck anonymize``: a table (pandas or an engine) or a graph released so that every
model of the policy holds, with its anonymization report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from privcheck.cli.options import (
    SEED_MAX,
    AllowDraft,
    Encoding,
    Engine,
    MaxGroups,
    SparkMaster,
    reads_data,
    refuse_draft,
)
from privcheck.cli.outputs import guard, require_release_path


@reads_data
def anonymize(
    data: Annotated[
        Path | None, typer.Argument(help="CSV/TSV/Parquet file to anonymize (or use --graph)")
    ] = None,
    policy: Annotated[
        Path, typer.Option("--policy", "-p", help="Policy file (YAML or JSON)")
    ] = ...,  # type: ignore[assignment]
    output: Annotated[
        Path, typer.Option("--output", "-o", help="Where to write the release (.csv/.parquet)")
    ] = ...,  # type: ignore[assignment]
    algorithm: Annotated[
        str,
        typer.Option(
            "--algorithm",
            "-a",
            help="auto (default: the least-damaging of mingen, mondrian, local-suppression, "
            "safepub), or one of them, incognito, datafly, mdav, …, or a plugin's",
        ),
    ] = "auto",
    param: Annotated[
        list[str] | None,
        typer.Option("--param", help="Algorithm parameter key=value (repeatable)"),
    ] = None,
    report: Annotated[
        Path | None,
        typer.Option(
            "--report",
            help="Write the anonymization report: .json (JSON), .html/.htm (HTML), .txt/.md (text)",
        ),
    ] = None,
    keep_order: Annotated[
        bool, typer.Option("--keep-order", help="Keep the input's row order (default: shuffle)")
    ] = False,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed",
            min=0,
            max=SEED_MAX,
            help="Seed of every random choice (shuffle, sampling, masking) for reproducible tests; "
            "never written out. Default: the operating system's entropy",
        ),
    ] = None,
    previous: Annotated[
        Path | None,
        typer.Option(
            "--previous",
            help="Report of an earlier release of the same table: only generalizations of its "
            "node are allowed, so the two releases cannot be combined into finer classes",
        ),
    ] = None,
    graph: Annotated[
        Path | None,
        typer.Option("--graph", help="Anonymize a graph (edge list or GraphML) for k-degree"),
    ] = None,
    engine: Annotated[
        Engine,
        typer.Option(help="Where the data is read and the release made (spark: OUTPUT is a dir)"),
    ] = Engine.pandas,
    spark_master: SparkMaster = "local[*]",
    max_groups: MaxGroups = None,
    allow_draft: AllowDraft = False,
    encoding: Encoding = "utf-8",
) -> None:
    """Anonymize DATA so that every model of the policy holds; write the release atomically.

    Exit 0 when the release satisfies the policy, 1 when a masking method that does not enforce
    it (rank swapping, noise, …) wrote a release that fails it, 2 on bad input.
    """
    from privcheck.io import all_or_nothing, write_text_atomic
    from privcheck.output_formats import render
    from privcheck.params import parse_params
    from privcheck.progress import is_quiet
    from privcheck.report_format import report_file_format

    if (data is None) == (graph is None):
        raise typer.BadParameter("give either DATA (a table) or --graph EDGES, not both")
    report_fmt = None if report is None else report_file_format(report, "anonymization")
    guard(
        {"--output": output, "--report": report},
        [data, graph, previous],
        policy,
        directories=("--output",) if engine is Engine.spark else (),
    )
    refuse_draft(policy, allow_draft)
    if graph is None:
        require_release_path(output, engine)
    params = parse_params(param)
    with all_or_nothing():  # the release and its report, both or neither
        if graph is not None:
            result, text = _anonymize_graph(graph, policy, output, algorithm, seed, params)
        else:
            if engine is not Engine.pandas:
                params["max_groups"] = max_groups
            result, text = _anonymize_table(
                data, policy, output, algorithm, params, keep_order=keep_order, seed=seed,
                previous=previous, engine=engine, spark_master=spark_master,
                allow_draft=allow_draft,
            )  # fmt: skip
        if report is not None:
            write_text_atomic(report, render(result, report_fmt, "anonymization"))
    typer.echo(text, nl=not text.endswith("\n"))
    if not is_quiet():
        typer.echo(f"wrote {output}" + (f" and {report}" if report else ""), err=True)
        if graph is None:
            _note_dropped(result.removed_columns, policy)
    if not result.check.passed:
        # only masking methods and synthetic-spatial (when it misses the degree sequence)
        # return a release that fails the policy
        raise typer.Exit(1)


def _anonymize_graph(graph, policy, output, algorithm, seed, params):
    """k-degree anonymization of a graph file; its release is staged at ``output``."""
    from privcheck.graph.policy_anonymize import anonymize_graph_file

    result = anonymize_graph_file(
        graph,
        policy,
        output,
        seed=seed,
        algorithm=None if algorithm == "auto" else algorithm,  # the table default
        **params,
    )
    return result, result.summary()


def _anonymize_table(
    data,
    policy,
    output,
    algorithm,
    params,
    *,
    keep_order,
    seed,
    previous,
    engine,
    spark_master,
    allow_draft=False,
):
    """Anonymize a table (pandas or an engine) and stage its release at ``output``."""
    from privcheck.anonymizers import anonymize as run_anonymize
    from privcheck.engines.output import write_release
    from privcheck.progress import progress
    from privcheck.text_report import render_anonymization_text

    frame: object = data
    if engine is not Engine.pandas:
        from privcheck.engines.readers import open_frame

        frame = open_frame(str(data), engine.value, spark_master)
    with progress(total=None, description=f"{algorithm} search") as bar:
        release, result = run_anonymize(
            frame,
            policy,
            algorithm,
            seed=seed,
            keep_order=keep_order,
            previous=previous,
            progress=bar.update,
            allow_draft=allow_draft,
            **params,
        )
    write_release(release, output)
    result.source = str(data)
    return result, render_anonymization_text(result)


def _note_dropped(removed: list[str], policy: Path) -> None:
    """Name the columns a release left out because the policy does not name them: nobody
    vouched for them, so they are dropped — say so, and how to keep one."""
    from privcheck.policy import load_policy

    loaded = load_policy(policy)
    named = loaded.attributes
    unnamed = [c for c in removed if c not in named and c != loaded.individual]
    if unnamed:
        typer.echo(
            f"note: dropped {len(unnamed)} column(s) the policy does not name: "
            f"{', '.join(unnamed)} (to keep one, list it in the policy with role: insensitive)",
            err=True,
        )
