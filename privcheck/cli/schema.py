"""``privcheck schema``: the policy's JSON Schema (every registered model included), or the
catalog Verdict's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from privcheck.cli.outputs import emit, guard

DEFAULT_SCHEMA = Path("schemas/policy.schema.json")
DEFAULT_VERDICT_SCHEMA = Path("schemas/verdict.schema.json")


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
