"""``privcheck risk``: what an attack (a registered risk measure) learns from a release, or
what a synthetic table adds to a control set."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from privcheck.cli.options import SEED_MAX, AllowDraft, Encoding, reads_data
from privcheck.cli.outputs import emit, guard
from privcheck.report_format import format_choice


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
        str | None,
        typer.Option(
            "--format",
            "-f",
            parser=format_choice("risk"),
            metavar="<format>",
            help="Report format: text, json, html or a plugin's (privcheck plugins) (default: "
            "--output's extension, else text)",
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
    from privcheck.io import read_table
    from privcheck.output_formats import render
    from privcheck.params import parse_params
    from privcheck.plugins import risk_registry
    from privcheck.policy import load_policy
    from privcheck.report import mark_draft
    from privcheck.report_format import output_format
    from privcheck.risk.assess import assess

    params = parse_params(param)
    # every file risk reads: the intruder's rows, a model file, any other parameter naming one
    read = [intruder_records, *(v for v in params.values() if isinstance(v, str))]
    files = [f for f in read if f and os.path.isfile(f)]  # (not a number of records, a word)
    guard(
        {"--output": output},
        [original, *masked, *([control] if control is not None else []), *files],
        policy,
    )
    fmt = output_format(output, fmt, "risk", "risk")
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
    emit(render(report, fmt, "risk", source=str(masked[0])), output)
    if report.passed is False:
        raise typer.Exit(1)
