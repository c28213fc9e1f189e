"""Where a command's results go: outputs guarded before any work, a release's path checked,
a check report rendered in its format, text printed or written atomically."""

from __future__ import annotations

from pathlib import Path

import typer

from privcheck.cli.options import Engine


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
