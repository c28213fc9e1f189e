"""``privcheck publish``: a batch published to an Apache Iceberg table only if it passes the
policy (write–audit–publish; ``privcheck.catalogs.iceberg``).

Exit 0 published, 1 rejected (main untouched, nothing of the batch written), 2 bad input —
and 2 as well when main moved while the batch was audited (another writer committed): nothing
was published, the staged batch was removed, run again.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from privcheck.cli.options import (
    AllowDraft,
    Encoding,
    Engine,
    SparkMaster,
    reads_data,
    refuse_draft,
)


class PublishFormat(StrEnum):
    text = "text"
    json = "json"


@reads_data
def publish(
    data: Annotated[Path, typer.Argument(help="CSV/TSV/Parquet file: the batch to publish")],
    table: Annotated[
        str, typer.Option("--table", "-t", help="The Iceberg table, NAMESPACE.TABLE")
    ] = ...,  # type: ignore[assignment]
    policy: Annotated[
        Path, typer.Option("--policy", "-p", help="Policy file (YAML or JSON)")
    ] = ...,  # type: ignore[assignment]
    catalog_uri: Annotated[
        str | None,
        typer.Option(
            "--catalog-uri",
            envvar="PRIVCHECK_ICEBERG_URI",
            help="The catalog: a SQLAlchemy URL (SQL catalog) or an http(s):// REST catalog "
            "(token from PRIVCHECK_ICEBERG_TOKEN). Default: $PRIVCHECK_ICEBERG_URI, else "
            "sqlite:///<home>/iceberg/catalog.db, <home> being $PRIVCHECK_HOME or ~/.privcheck",
        ),
    ] = None,
    warehouse: Annotated[
        str | None,
        typer.Option(
            "--warehouse",
            envvar="PRIVCHECK_ICEBERG_WAREHOUSE",
            help="Where new tables' files go (SQL catalog: an existing folder; default "
            "$PRIVCHECK_ICEBERG_WAREHOUSE, else <home>/iceberg/warehouse); a REST catalog's "
            "warehouse name",
        ),
    ] = None,
    anonymize: Annotated[
        bool,
        typer.Option(
            "--anonymize",
            help="Anonymize the batch first (algorithm auto) and publish the release, which "
            "must pass the same policy",
        ),
    ] = False,
    fmt: Annotated[
        PublishFormat,
        typer.Option("--format", "-f", help="text, or json (the Verdict)"),
    ] = PublishFormat.text,
    engine: Annotated[
        Engine,
        typer.Option(
            help="Where the table's rows are checked (main's with the batch, the audited "
            "snapshot): pandas reads them into memory, the others read the snapshot's Parquet "
            "files",
        ),
    ] = Engine.pandas,
    spark_master: SparkMaster = "local[*]",
    allow_draft: AllowDraft = False,
    encoding: Encoding = "utf-8",
) -> None:
    """Publish DATA to an Iceberg table only if it passes the policy: exit 0 published, 1
    rejected (main untouched), 2 bad input or main moved meanwhile (nothing published)."""
    from privcheck.catalogs.iceberg import publish as run_publish

    refuse_draft(policy, allow_draft)
    try:
        result = run_publish(
            data,
            table,
            policy,
            catalog_uri=catalog_uri,
            warehouse=warehouse,
            anonymize=anonymize,
            allow_draft=allow_draft,
            engine=engine.value,
            spark_master=spark_master,
        )
    except Exception as exc:  # the catalog's own refusals: one line, exit 2, as every refusal
        if not type(exc).__module__.startswith("pyiceberg"):
            raise
        from privcheck.errors import DataError

        problem = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise DataError(f"the Iceberg catalog refused: {problem}") from None
    if fmt is PublishFormat.json:
        typer.echo(result.verdict.to_json())
    else:
        typer.echo(_text(result))
    raise typer.Exit(0 if result.published else 1)


def _text(result) -> str:
    """What happened, then one line per model."""
    verdict = result.verdict
    main = "empty" if result.main_snapshot_id is None else f"snapshot {result.main_snapshot_id}"
    if result.published:
        head = (
            f"published {result.batch_records} records to {result.table}: main is now {main} "
            f"({verdict.n_records} records)"
        )
    elif result.reason == "audit failed":
        head = (
            f"rejected: the batch read back from the audit branch of {result.table} fails the "
            f"policy; it was removed and main is unchanged ({main})"
        )
    else:
        head = (
            f"rejected: the batch ({result.batch_records} records) fails the policy; nothing of "
            f"it was written and main of {result.table} is unchanged ({main})"
        )
    lines = [head, f"policy {verdict.policy_digest}"]
    for m in verdict.models:
        value = "unbounded" if m.unbounded else m.value
        bound = "" if m.required is None else f" (required {m.comparison} {m.required})"
        lines.append(f"  {'PASS' if m.passed else 'FAIL'} {m.model}: {value}{bound}")
    if verdict.identifiers_present:
        lines.append(f"  FAIL identifiers present: {', '.join(verdict.identifiers_present)}")
    if not verdict.suppression_ok:
        lines.append(f"  FAIL suppression: {verdict.n_suppressed} records over the limit")
    return "\n".join(lines)
