"""The ``privcheck`` command: check, anonymize, compare, risk, apply, hook, init, schema, plugins,
demo.

Exit codes: 0 every model holds, 1 some model is violated, 2 bad input (one line on stderr naming
the problem; never a traceback). Global options: ``--verbose`` logs what was computed (timings,
classes) on stderr; ``--quiet`` silences progress bars and notes.
"""

from __future__ import annotations

import functools
import json
import logging
import os
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
    # plain (click) help and usage errors: Typer's Rich formatting imports rich's markdown,
    # syntax and traceback modules and pygments — ~0.2 s, half the budget of `--help`
    rich_markup_mode=None,
)


class Format(StrEnum):
    text = "text"
    json = "json"
    html = "html"
    github = "github"


class Engine(StrEnum):
    pandas = "pandas"
    polars = "polars"
    duckdb = "duckdb"
    spark = "spark"


#: options shared by every command that can run on an engine
SparkMaster = Annotated[
    str, typer.Option(help="Spark master for --engine spark (an active session wins)")
]
MaxGroups = Annotated[
    int | None,
    typer.Option(
        min=0, max=2**63 - 1, help="Most value combinations an engine may send back (0: no limit)"
    ),
]

AllowDraft = Annotated[
    bool,
    typer.Option(
        "--allow-draft",
        help="Run a draft policy (columns still marked review:) anyway; the report then says "
        "draft: true (default: refused, exit 2)",
    ),
]
Encoding = Annotated[
    str,
    typer.Option(
        "--encoding",
        help="Encoding of the CSV/TSV files read that are not UTF-8 (e.g. cp1252, latin-1, "
        "utf-16); UTF-8 files, a BOM or not, are always read as UTF-8",
    ),
]


def reads_data(command):
    """Run ``command`` with its ``--encoding`` applied to every CSV/TSV file it reads
    (``privcheck.io.csv_encoding``): the data, a population table, earlier releases."""

    @functools.wraps(command)
    def run(*args, **kwargs):
        from privcheck.io import csv_encoding

        with csv_encoding(kwargs.get("encoding")):
            return command(*args, **kwargs)

    return run


def refuse_draft(policy: Path, allow_draft: bool) -> None:
    """A draft policy (columns still marked review:) is refused before any data is read:
    exit 2, one line naming the columns and what to do."""
    from privcheck.policy import load_policy

    load_policy(policy).require_decided(allow_draft=allow_draft)


def version_text() -> str:
    """The installed distribution's version (``privcheck.__version__`` when not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("privcheck")
    except PackageNotFoundError:
        from privcheck import __version__

        return __version__


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"privcheck {version_text()}")
        raise typer.Exit(0)


#: seeds are whole numbers 0 … 2^32 − 1 (``privcheck.params.SEED_MAX``): the range every random
#: generator privcheck seeds accepts (scikit-learn's random_state is the narrowest), so a seed is
#: refused on the command line in one line instead of failing deep inside an attack
SEED_MAX = 2**32 - 1

DEFAULT_SCHEMA = Path("schemas/policy.schema.json")
DEFAULT_VERDICT_SCHEMA = Path("schemas/verdict.schema.json")


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


@app.callback()
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


def demo_dir() -> Path:
    """Folder of the embedded Adult data, hierarchies and demo policy."""
    return Path(str(resources.files("privcheck") / "data" / "adult"))


def emit(text: str, output: Path | None) -> None:
    """Print to stdout (no ``output``, or ``-``), or write ``output`` atomically."""
    if output is None or str(output) == "-":
        typer.echo(text, nl=not text.endswith("\n"))
    else:
        from privcheck.io import write_text_atomic

        write_text_atomic(output, text)
        from privcheck.progress import is_quiet

        if not is_quiet():
            typer.echo(f"wrote {output}", err=True)


def guard(
    outputs: dict[str, Path | None],
    inputs: list[str | Path | None],
    policy: Path | None = None,
    *,
    directories: tuple[str, ...] = (),
) -> None:
    """Refuse outputs that alias an input (data, policy, its hierarchy files …), each other, a
    directory or a missing folder — before any work, so nothing is written (see
    ``privcheck.io.guard_outputs``)."""
    from privcheck.io import guard_outputs

    if all(p is None for p in outputs.values()):
        return
    sources = [*inputs, policy]
    if policy is not None and Path(policy).is_file():
        from privcheck.policy import load_policy

        sources += load_policy(policy).input_files()
    guard_outputs(outputs, sources, directories=directories)


def render(report, fmt: Format, source: str | None = None) -> str:
    """The check report in ``fmt``: renderers sit above the report data and import it."""
    if fmt is Format.json:
        return report.to_json() + "\n"
    if fmt is Format.html:
        from privcheck.html_report import render_html

        return render_html(report)
    if fmt is Format.github:
        from privcheck.hook import github_annotations

        return github_annotations(report, source)
    from privcheck.text_report import render_text

    return render_text(report)


@app.command()
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
        Format | None,
        typer.Option(
            "--format", "-f", help="Report format (default: --output's extension, else text)"
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
    from privcheck.report_format import output_format, report_file_format

    fmt = Format(output_format(output, fmt.value if fmt is not None else None))
    report_fmt = None if report_file is None else Format(report_file_format(report_file))
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
        from privcheck.pipeline.check import check_linked

        report = check_linked(Path(data), linked_with, policy, max_violators=max_violators)
        report = _marked(report, policy)
        source = f"{data} ⋈ {linked_with}"
    else:
        from privcheck.pipeline.check import check as run_check

        frame: object = data
        if engine is not Engine.pandas:
            from privcheck.engines.readers import open_frame

            frame = open_frame(data, engine.value, spark_master)
        report = run_check(
            frame,
            policy,
            max_violators=max_violators,
            max_groups=max_groups,
            details=Format.html in (fmt, report_fmt),
            allow_empty=allow_empty,
            explain=explain,
            explain_max_size=explain_max_size,
            allow_draft=allow_draft,
        )
        report.source = source = str(data)
    on_stdout = fmt is Format.text and (output is None or str(output) == "-")
    if report.notes and not on_stdout:  # (a text report on the terminal prints them)
        from privcheck.progress import is_quiet

        if not is_quiet():
            for note in report.notes:
                typer.echo(f"note: {note}", err=True)
    if report_file is None:
        emit(render(report, fmt, source), output)
    else:
        from privcheck.io import all_or_nothing, write_text_atomic

        assert report_fmt is not None
        written = render(report, report_fmt, source)
        # what is printed does not change with --report: the plot data an HTML report file
        # needed stays out of a JSON printed beside it
        shown = report if fmt is Format.html else _without_details(report)
        text = render(shown, fmt, source)
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


@app.command()
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
    from privcheck.params import parse_params
    from privcheck.progress import is_quiet
    from privcheck.report_format import report_file_format

    if (data is None) == (graph is None):
        raise typer.BadParameter("give either DATA (a table) or --graph EDGES, not both")
    report_fmt = None if report is None else report_file_format(report)
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
            write_text_atomic(report, render_anonymization(result, report_fmt, text))
    typer.echo(text, nl=not text.endswith("\n"))
    if not is_quiet():
        typer.echo(f"wrote {output}" + (f" and {report}" if report else ""), err=True)
        if graph is None:
            _note_dropped(result.removed_columns, policy)
    if not result.check.passed:
        # only masking methods and synthetic-spatial (when it misses the degree sequence)
        # return a release that fails the policy
        raise typer.Exit(1)


def require_release_path(output: Path, engine: Engine) -> None:
    """A release goes to a file privcheck reads back (``check`` must be able to re-check it):
    CSV/TSV or Parquet by its extension; a Spark release is a folder of Parquet parts."""
    from privcheck.errors import DataError
    from privcheck.io import RELEASE_SUFFIXES

    if str(output) == "-":
        raise DataError(
            "--output - : a release is written to a file (it is re-checked and kept); name a "
            ".csv, .tsv or .parquet file"
        )
    if engine is not Engine.spark and output.suffix.lower() not in RELEASE_SUFFIXES:
        raise DataError(
            f"--output {output}: privcheck writes and reads back releases as .csv, .tsv or "
            f".parquet, not {output.suffix or 'a file without extension'}; rename it"
        )


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
    from privcheck.engines.output import write_release
    from privcheck.pipeline.anonymize import anonymize as run_anonymize
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


def render_anonymization(result, fmt: str | None, text: str) -> str:
    """The anonymization report (a table's or a graph's) in the report file's format."""
    if fmt == "json":
        return result.to_json() + "\n"
    if fmt == "html":
        from privcheck.html_report import render_anonymization_html

        return render_anonymization_html(result)
    return text


class CompareFormat(StrEnum):
    text = "text"
    json = "json"


@app.command()
@reads_data
def compare(
    original: Annotated[Path, typer.Argument(help="The original file (CSV/TSV/Parquet)")],
    releases: Annotated[
        list[str],
        typer.Argument(
            help="Releases of it (any order; --keep-order with suppressed_records: star gives "
            "every measure)",
        ),
    ],
    policy: Annotated[
        Path, typer.Option("--policy", "-p", help="The policy the releases were made under")
    ] = ...,  # type: ignore[assignment]
    target: Annotated[
        str | None,
        typer.Option(
            "--target", help="Column to predict for classification utility (policy: utility.target)"
        ),
    ] = None,
    test_share: Annotated[
        float | None,
        typer.Option(
            "--test-share", help="Held-out share of the original, in (0, 1) (default 0.3)"
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed", min=0, max=SEED_MAX, help="Seed of the split and the model (default 0)"
        ),
    ] = None,
    wide: Annotated[
        bool, typer.Option("--wide", help="Text: every measure (default: those that decide)")
    ] = False,
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format", "-f", help="text or json (default: --output's extension, else text)"
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write the report here, atomically (.json, .txt)"),
    ] = None,
    allow_draft: AllowDraft = False,
    encoding: Encoding = "utf-8",
) -> None:
    """Which release to publish: the utility of each release against the original (loss, Prec,
    non-uniform entropy, KL divergence, classes, suppressed records, generalized cells,
    classification accuracy, …), its re-identification risk, whether it passes the policy, and
    the release with the least loss among those that pass."""
    from privcheck.errors import PolicyError
    from privcheck.io import read_table
    from privcheck.policy import load_policy
    from privcheck.report_format import output_format
    from privcheck.utility.compare import compare_releases
    from privcheck.utility.table import render_json, render_text

    guard({"--output": output}, [original, *releases], policy)
    chosen = output_format(output, fmt)
    if chosen not in {f.value for f in CompareFormat}:
        raise PolicyError(f"privcheck compare writes text or json, not {chosen}")
    if test_share is not None and not 0.0 < test_share < 1.0:
        raise PolicyError(f"--test-share must lie strictly between 0 and 1; got {test_share}")
    if seed is not None and seed < 0:
        raise PolicyError(f"--seed must be 0 or more; got {seed}")
    pol = load_policy(policy)
    pol.require_decided(allow_draft=allow_draft)
    data = read_table(original)
    # each release is named as given on the command line (JSON 'release', 'recommended')
    frames = [(name, read_table(Path(name))) for name in releases]
    result = compare_releases(
        data,
        frames,
        pol,
        target=target,
        test_share=test_share,
        seed=seed,
        allow_draft=allow_draft,
    )
    if chosen == "json":
        text = render_json(result)
    else:
        text = render_text(result, wide=wide, n_records=len(data))
    emit(text, output)


class RiskFormat(StrEnum):
    text = "text"
    json = "json"
    html = "html"


@app.command()
@reads_data
def risk(
    original: Annotated[
        Path, typer.Option("--original", help="The original file (CSV/TSV/Parquet)")
    ] = ...,  # type: ignore[assignment]
    masked: Annotated[
        list[Path],
        typer.Option(
            "--masked",
            help="The release, row i = masked row i of the original (repeat it for the attacks "
            "across releases: release-intersection)",
        ),
    ] = ...,  # type: ignore[assignment]
    policy: Annotated[
        Path, typer.Option("--policy", "-p", help="Policy: its quasi-identifiers are attacked")
    ] = ...,  # type: ignore[assignment]
    attack: Annotated[
        str, typer.Option("--attack", "-a", help="dbrl, mahalanobis, prl, learned-…, …")
    ] = ...,  # type: ignore[assignment]
    param: Annotated[
        list[str] | None, typer.Option("--param", help="Attack parameter key=value (repeatable)")
    ] = None,
    intruder_records: Annotated[
        str | None,
        typer.Option(
            "--intruder-records",
            help="Records the intruder holds: a number N (random, --seed) or a file of 0-based "
            "row numbers (default: all)",
        ),
    ] = None,
    intruder_attributes: Annotated[
        str | None,
        typer.Option(
            "--intruder-attributes",
            help="Comma-separated attributes the intruder knows (default: the quasi-identifiers)",
        ),
    ] = None,
    fmt: Annotated[
        RiskFormat | None,
        typer.Option(
            "--format", "-f", help="Report format (default: --output's extension, else text)"
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="Write the report here, atomically (.json, .html, .txt: format)"
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed",
            min=0,
            max=SEED_MAX,
            help="Seed of the intruder sample, tie-breaks and shadow models, for reproducible "
            "tests; never written out. Default: the operating system's entropy",
        ),
    ] = None,
    trust_model_file: Annotated[
        bool,
        typer.Option(
            "--trust-model-file",
            help="Let a model file (--param model=PATH) be a pickle/joblib file: loading one "
            "RUNS ITS CODE, so only for a file you trust (default: skops files only)",
        ),
    ] = False,
    control: Annotated[
        Path | None,
        typer.Option(
            "--control",
            help="Attacks on a synthetic table (or a model): records of the same population the "
            "generator never saw, the non-members (same columns as --original)",
        ),
    ] = None,
    allow_draft: AllowDraft = False,
    encoding: Encoding = "utf-8",
) -> None:
    """Measure the disclosure risk of a release: how many records an attack re-identifies, or
    how much a synthetic table adds to what a control set gives (exit 1 above the policy's
    synthetic_risk.max_risk)."""
    from privcheck.errors import PolicyError
    from privcheck.html_report import render_risk_html
    from privcheck.io import read_table
    from privcheck.params import parse_params
    from privcheck.plugins import risk_registry
    from privcheck.policy import load_policy
    from privcheck.report import mark_draft
    from privcheck.report_format import output_format
    from privcheck.risk.assess import assess, render_risk_text

    params = parse_params(param)
    # every file risk reads: the intruder's rows, a model file, any other parameter naming one
    read = [intruder_records, *(v for v in params.values() if isinstance(v, str))]
    files = [f for f in read if f and os.path.isfile(f)]  # (not a number of records, a word)
    guard(
        {"--output": output},
        [original, *masked, *([control] if control is not None else []), *files],
        policy,
    )
    chosen = output_format(output, fmt.value if fmt is not None else None)
    if chosen not in {f.value for f in RiskFormat}:
        raise PolicyError(f"privcheck risk writes text, json or html, not {chosen}")
    fmt = RiskFormat(chosen)
    registry = risk_registry()
    measure = registry.get(attack)
    if measure is None:
        raise PolicyError(f"unknown attack {attack!r}; known attacks: {', '.join(registry)}")
    measure.check_params(params)
    pol = load_policy(policy)
    pol.require_decided(allow_draft=allow_draft)
    attrs = None
    if intruder_attributes is not None:
        attrs = [a.strip() for a in intruder_attributes.split(",") if a.strip()]
    releases = [read_table(m) for m in masked]
    report = assess(
        read_table(original),
        releases[0],
        pol.quasi_identifiers,
        measure,
        params,
        intruder_records=intruder_records,
        intruder_attributes=attrs,
        seed=seed,
        original_name=str(original),
        masked_name=", ".join(str(m) for m in masked),
        others=releases[1:],
        policy=pol,
        trust_model_file=trust_model_file,
        control=read_table(control) if control is not None else None,
        control_name=str(control) if control is not None else None,
    )
    mark_draft(report, pol)
    if fmt is RiskFormat.json:
        text = report.to_json() + "\n"
    elif fmt is RiskFormat.html:
        text = render_risk_html(report)
    else:
        text = render_risk_text(report)
    emit(text, output)
    if report.passed is False:
        raise typer.Exit(1)


@app.command()
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
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Report format")] = Format.text,
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
    from privcheck.engines.output import write_release
    from privcheck.pipeline.apply import apply as run_apply

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
        typer.echo(render(report, fmt, str(data)), nl=False)
        typer.echo(
            f"the transformation no longer satisfies the policy on {data}; nothing written "
            "(choose a new one with privcheck anonymize)",
            err=True,
        )
        raise typer.Exit(1)
    write_release(release, output)
    typer.echo(render(report, fmt, f"release of {data}"), nl=False)
    typer.echo(f"wrote {output}", err=True)


@app.command()
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


class InitFormat(StrEnum):
    text = "text"
    json = "json"


@app.command()
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


@app.command()
def schema(
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            help="Where to write the schema ('-' for stdout; default "
            "schemas/policy.schema.json, or schemas/verdict.schema.json with --verdict)",
        ),
    ] = None,
    verdict: Annotated[
        bool, typer.Option("--verdict", help="The catalog Verdict's schema instead")
    ] = False,
) -> None:
    """Write the policy's JSON Schema (every registered model included), or the Verdict's."""
    if verdict:
        from privcheck.api import verdict_json_schema

        data, default = verdict_json_schema(), DEFAULT_VERDICT_SCHEMA
    else:
        from privcheck.policy import policy_json_schema

        data, default = policy_json_schema(), DEFAULT_SCHEMA
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if output is None:  # the documented default: the repository's schemas/ folder
        from privcheck.errors import DataError

        try:
            default.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DataError(
                f"cannot create the folder {default.parent} for the schema: {exc.strerror}; "
                "run where you can write, or give -o PATH (or -o - for standard output)"
            ) from None
        output = default
    guard({"--output": output}, [])
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
def demo(
    output_dir: Annotated[
        Path | None,
        typer.Option(
            "--output-dir",
            help="Folder for the demo's release and HTML report (default: a new temporary "
            "folder, printed)",
        ),
    ] = None,
) -> None:
    """Run privcheck on the embedded Adult data (30,162 records, ARX hierarchies): the raw table
    fails, auto picks the least-damaging release and says why, the release passes, and the
    release and its HTML report are written."""
    import tempfile

    from privcheck.html_report import render_anonymization_html
    from privcheck.io import all_or_nothing, read_table, write_table, write_text_atomic
    from privcheck.pipeline.anonymize import anonymize as run_anonymize
    from privcheck.pipeline.check import check as run_check
    from privcheck.policy import load_policy
    from privcheck.text_report import render_anonymization_text, render_text

    folder = demo_dir()
    out = Path(tempfile.mkdtemp(prefix="privcheck-demo-")) if output_dir is None else output_dir
    release_path, report_path = out / "adult-release.csv", out / "adult-report.html"
    guard({"--output-dir": release_path, "--report": report_path}, [folder / "adult.csv"])
    typer.echo(f"Adult census data and ARX hierarchies from {folder}\n")
    data = read_table(folder / "adult.csv")
    policy = load_policy(folder / "policy.yaml")
    report = run_check(data, policy)
    report.source = "adult.csv"
    typer.echo("1. check the original data")
    typer.echo(render_text(report))
    typer.echo(
        "2. anonymize it (auto: plan mingen, mondrian, local suppression; write the least loss)"
    )
    release, result = run_anonymize(data, policy, "auto")
    result.source = "adult.csv"
    with all_or_nothing():
        write_table(release, release_path)
        write_text_atomic(report_path, render_anonymization_html(result))
    typer.echo(render_anonymization_text(result))
    typer.echo(f"3. check the release written to {release_path}")
    after = run_check(release_path, policy)
    after.source = str(release_path)
    typer.echo(render_text(after))
    typer.echo(f"the anonymization report (HTML, with pictures): {report_path}")
    if not after.passed:  # pragma: no cover - every release passes check with its policy
        raise typer.Exit(1)


def main() -> None:
    """Entry point: run the app, turning user errors into one line and exit code 2.

    Click's own usage errors (an unknown option, a missing argument, a value of the wrong
    type) are printed the same way — one line naming the problem and where help is — so a
    hook or CI log reads every refusal alike."""
    import warnings

    from privcheck import interrupts

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


if __name__ == "__main__":  # pragma: no cover
    main()
