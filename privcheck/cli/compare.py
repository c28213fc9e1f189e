"""``privcheck compare``: the utility and risk of releases of one original, side by side, and
the one to publish."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from privcheck.cli.options import SEED_MAX, AllowDraft, Encoding, reads_data
from privcheck.cli.outputs import emit, guard


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
    from privcheck.output_formats import render
    from privcheck.policy import load_policy
    from privcheck.report_format import output_format
    from privcheck.utility.compare import compare_releases

    guard({"--output": output}, [original, *releases], policy)
    chosen = output_format(output, fmt, "compare", "compare")
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
    emit(render(result, chosen, "compare", wide=wide, n_records=len(data)), output)
