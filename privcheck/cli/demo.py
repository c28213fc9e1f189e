"""``privcheck demo``: check, anonymize and re-check the embedded Adult data, writing the
release and its HTML report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from privcheck.cli.outputs import guard


def demo_dir() -> Path:
    """Folder of the embedded Adult data, hierarchies and demo policy."""
    from importlib import resources

    return Path(str(resources.files("privcheck") / "data" / "adult"))


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

    from privcheck.anonymizers import anonymize as run_anonymize
    from privcheck.checker import check as run_check
    from privcheck.html_report import render_anonymization_html
    from privcheck.io import all_or_nothing, read_table, write_table, write_text_atomic
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
