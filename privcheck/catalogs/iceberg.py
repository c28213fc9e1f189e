"""The ``iceberg`` catalog back-end and the publication gate (``privcheck publish``).

Lakehouse teams validate a batch before readers see it by write–audit–publish: the batch is
written to a branch, validated there, and main is moved to it only if it passes. privcheck is
that validation, with the policy as the only authority:

1. **Check before anything is written.** The batch, and the table as main would show it after
   publication (main's rows + the batch), are checked in memory. Both must pass: main's
   readers see the union, and anyone who can time-travel sees the batch alone as the
   difference of two snapshots. A failing batch is never written: no data file, manifest or
   snapshot of it is ever created, so no rejected value can linger in a file, a column
   statistic or a metadata file. Only the verdict is recorded, in the table's properties.
2. **Write.** A passing batch is appended to a private audit branch that starts at main's head,
   with the verdict in the snapshot summary (the snapshot is what main will point to).
3. **Audit.** The branch is read back from its Parquet files and checked again: what is
   published is what was written, not what was meant to be written.
4. **Publish.** main is moved to the audited snapshot only if main's head is still an ancestor
   of it (pyiceberg has no fast-forward: moving main past a concurrent writer's commit would
   silently drop it). The move asserts main's head in the same commit (the catalog's
   compare-and-swap), so a writer that slips in between is caught too. Otherwise the gate
   refuses (``PublishConflict``, exit 2: nothing was published, run again) — as when someone
   else committed on the audit branch: only the audited snapshot is ever published.

When the audit fails or publication is refused, the staged batch is removed for real: the
branch, the snapshot and anything committed on top of it leave the table metadata, their data
files, manifests and manifest lists are deleted, and every metadata file written since the
staging (they list the snapshot in their history) is rewritten without them — or deleted when
it was never the table's state.

The verdict (the ``privcheck.api.Verdict`` JSON) is kept in the table properties
``privcheck.passed``, ``privcheck.policy-digest`` and ``privcheck.verdict`` (the latest gate
run) and in the published snapshot's summary (the verdict of the data it holds).
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from privcheck import hookspecs
from privcheck.catalogs.base import Catalog, CatalogDataset, missing_extra
from privcheck.errors import DataError

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

    from privcheck.api import Verdict
    from privcheck.policy import Policy

#: where the embedded catalog lives when nothing is configured: ``$PRIVCHECK_HOME`` or this
HOME_ENV = "PRIVCHECK_HOME"
DEFAULT_HOME = "~/.privcheck"
#: a REST catalog's bearer token (``--catalog-uri https://…``)
TOKEN_ENV = "PRIVCHECK_ICEBERG_TOKEN"

PASSED = "privcheck.passed"
DIGEST = "privcheck.policy-digest"
VERDICT = "privcheck.verdict"
MAIN = "main"
#: where the checks of the table's rows can run (``snapshot_frame``)
ENGINES = ("pandas", "polars", "duckdb", "spark")
AUDIT_PREFIX = "privcheck-audit-"

#: NS.TABLE, nested namespaces allowed (a.b.table); parts as SQL and REST catalogs accept them
_TABLE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_-]*(\.[A-Za-z0-9_][A-Za-z0-9_-]*)+$")
_METADATA_FILE = re.compile(r"^(\d+)-[^/]*\.metadata\.json$")


class PublishConflict(DataError):
    """main moved while the batch was audited: nothing was published (run again)."""


def home() -> Path:
    """privcheck's own folder for embedded back-ends: ``$PRIVCHECK_HOME`` or ``~/.privcheck``."""
    return Path(os.environ.get(HOME_ENV) or DEFAULT_HOME).expanduser()


def default_catalog_uri() -> str:
    return f"sqlite:///{home() / 'iceberg' / 'catalog.db'}"


def default_warehouse() -> Path:
    return home() / "iceberg" / "warehouse"


def parse_table_name(name: str) -> tuple[str, ...]:
    """``NS.TABLE`` → the catalog's identifier; a malformed name is refused before any I/O."""
    if not _TABLE_NAME.match(name):
        raise DataError(
            f"bad table name {name!r}: give NAMESPACE.TABLE (letters, digits, _ and -; "
            "e.g. --table census.adult)"
        )
    return tuple(name.split("."))


def open_catalog(catalog_uri: str | None = None, warehouse: str | Path | None = None) -> Any:
    """The pyiceberg catalog: a SQL catalog (SQLite file by default, any SQLAlchemy URL) or a
    REST catalog for an ``http(s)://`` URI (Polaris, Unity, Glue, Nessie …; the token from
    ``PRIVCHECK_ICEBERG_TOKEN``). Unreachable → ``DataError``, one line."""
    try:
        import pyarrow  # noqa: F401
        import pyiceberg  # noqa: F401
    except ImportError:
        raise missing_extra("pyiceberg", "iceberg") from None
    embedded = catalog_uri is None
    if embedded:
        catalog_uri = default_catalog_uri()
        (home() / "iceberg").mkdir(parents=True, exist_ok=True)
    assert catalog_uri is not None
    try:
        if catalog_uri.startswith(("http://", "https://")):
            from pyiceberg.catalog.rest import RestCatalog

            props = {"uri": catalog_uri}
            if warehouse is not None:
                props["warehouse"] = str(warehouse)
            if os.environ.get(TOKEN_ENV):
                props["token"] = os.environ[TOKEN_ENV]
            return RestCatalog("privcheck", **props)
        try:
            from pyiceberg.catalog.sql import SqlCatalog
        except ImportError:
            raise missing_extra("sqlalchemy", "iceberg") from None
        chosen = warehouse is not None
        folder = Path(warehouse if chosen else default_warehouse()).expanduser().resolve()
        if chosen and not folder.is_dir():
            raise DataError(
                f"warehouse folder {folder} does not exist; create it or give another --warehouse"
            )
        catalog = SqlCatalog("privcheck", uri=catalog_uri, warehouse=folder.as_uri())
        if not chosen:  # (privcheck's own folder, once the catalog answered)
            folder.mkdir(parents=True, exist_ok=True)
        return catalog
    except DataError:
        raise
    except Exception as exc:  # (SQLAlchemy, HTTP: each its own exception types)
        problem = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataError(
            f"cannot reach the Iceberg catalog {catalog_uri}: {problem}; check --catalog-uri"
        ) from None


def _load_table(catalog: Any, ident: tuple[str, ...]) -> Any | None:
    from pyiceberg.exceptions import NoSuchNamespaceError, NoSuchTableError

    try:
        return catalog.load_table(ident)
    except (NoSuchTableError, NoSuchNamespaceError):
        return None


def _create_table(catalog: Any, ident: tuple[str, ...], schema: pa.Schema) -> Any:
    from pyiceberg.exceptions import TableAlreadyExistsError

    catalog.create_namespace_if_not_exists(ident[:-1])
    try:
        return catalog.create_table(ident, schema=schema)
    except TableAlreadyExistsError:  # created by another writer meanwhile
        return catalog.load_table(ident)
    except (ValueError, TypeError, NotImplementedError) as exc:  # a type Iceberg has not
        raise DataError(
            f"cannot create table {'.'.join(ident)} from the batch's columns: "
            f"{str(exc).splitlines()[0]}; convert that column (e.g. to text) first"
        ) from None


def _policy_columns(policy: Policy) -> list[str]:
    """The columns a check reads: a table without one of them cannot be checked."""
    needed = [*policy.quasi_identifiers, *policy.sensitive_attributes]
    if policy.individual:
        needed.append(policy.individual)
    return needed


def _require_columns(columns: list[str], policy: Policy, what: str) -> None:
    missing = [c for c in _policy_columns(policy) if c not in columns]
    if missing:
        raise DataError(
            f"{what} lacks the policy's column(s) {', '.join(missing)}; publish a table that "
            "has every quasi-identifier and sensitive attribute of the policy"
        )


def _conform(batch: pa.Table, table: Any, name: str) -> pa.Table:
    """The batch in the table's column order and types; refused (nothing written) when its
    columns are not the table's or a value does not fit the column's type."""
    import pyarrow as pa

    target = table.schema().as_arrow()
    have, want = set(batch.column_names), set(target.names)
    if have != want:
        extra = sorted(have - want)
        absent = sorted(want - have)
        parts = [f"not in the table: {', '.join(extra)}"] if extra else []
        parts += [f"missing: {', '.join(absent)}"] if absent else []
        raise DataError(
            f"the batch's columns do not match table {name} ({'; '.join(parts)}); give a "
            "batch with the table's columns"
        )
    try:
        return batch.select(target.names).cast(target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        problem = str(exc).splitlines()[0]
        raise DataError(f"the batch does not fit table {name}'s column types: {problem}") from None


def _to_arrow(frame: pd.DataFrame) -> pa.Table:
    """The batch as Arrow in types Iceberg has: categoricals (how privcheck reads text) as
    their values, large strings as strings, unsigned and small integers as Iceberg's int or
    long, nanosecond timestamps as microseconds (Iceberg's precision before format v3). A
    value that does not fit is refused, one line."""
    import pyarrow as pa

    table = pa.Table.from_pandas(frame, preserve_index=False)
    columns = []
    try:
        for column in table.columns:
            target = _iceberg_type(column.type)
            # (nanoseconds truncate to microseconds; every other cast must be exact)
            exact = not (pa.types.is_timestamp(target) and column.type != target)
            columns.append(column.cast(target, safe=exact) if column.type != target else column)
        names = table.column_names
        fields = [pa.field(n, c.type, nullable=True) for n, c in zip(names, columns, strict=True)]
        return pa.table(columns, schema=pa.schema(fields))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise DataError(
            f"the batch has a value Iceberg cannot store: {str(exc).splitlines()[0]}"
        ) from None


def _iceberg_type(arrow_type: pa.DataType) -> pa.DataType:
    import pyarrow as pa

    t = arrow_type
    if pa.types.is_dictionary(t):
        return _iceberg_type(t.value_type)
    if pa.types.is_large_string(t) or getattr(pa.types, "is_string_view", bool)(t):
        return pa.string()
    if pa.types.is_large_binary(t):
        return pa.binary()
    if pa.types.is_int8(t) or pa.types.is_int16(t) or pa.types.is_uint8(t):
        return pa.int32()
    if pa.types.is_uint16(t):
        return pa.int32()
    if pa.types.is_uint32(t) or pa.types.is_uint64(t):
        return pa.int64()
    if pa.types.is_float16(t):
        return pa.float32()
    if pa.types.is_timestamp(t) and t.unit == "ns":
        return pa.timestamp("us", tz=t.tz)
    return t


def snapshot_frame(
    table: Any,
    snapshot_id: int,
    engine: str = "pandas",
    spark_master: str = "local[*]",
    extra: pa.Table | None = None,
) -> Any:
    """The rows of a snapshot (plus ``extra``, rows not written yet) as a frame of ``engine``:
    pandas reads them through pyiceberg into memory; polars, DuckDB and Spark read the
    snapshot's Parquet data files themselves (the check then runs in the engine, as ``check
    --engine``). The engines read files by column name, so a table whose schema changed or
    that has delete files is refused for them (pyiceberg resolves both; use pandas)."""
    import pyarrow as pa

    scan = table.scan(snapshot_id=snapshot_id)
    if engine == "pandas":
        rows = scan.to_arrow()
        if extra is not None:
            rows = pa.concat_tables([rows.cast(extra.schema), extra])
        return rows.to_pandas()
    name = ".".join(table.name())
    tasks = list(scan.plan_files())
    if len(table.metadata.schemas) > 1 or any(t.delete_files for t in tasks):
        raise DataError(
            f"--engine {engine} reads the Parquet files of {name} by column name, but the table's "
            "schema changed or it has delete files; use --engine pandas"
        )
    columns = table.schema().as_arrow().names
    paths = [t.file.file_path for t in tasks]
    local = [p.removeprefix("file://") for p in paths]
    if engine == "spark":
        from privcheck.engines.spark_engine import get_spark

        spark = get_spark(spark_master)
        if not paths:
            empty = table.schema().as_arrow().empty_table()
            frame = spark.createDataFrame(empty.to_pandas())
        else:
            frame = spark.read.parquet(*paths).select(*columns)
        if extra is not None:
            frame = frame.unionByName(spark.createDataFrame(extra.to_pandas(), frame.schema))
        return frame
    if engine == "duckdb":
        import duckdb

        parts = [duckdb.read_parquet(local).select(*columns)] if local else []
        parts += [duckdb.from_arrow(extra)] if extra is not None else []
        if not parts:
            return duckdb.from_arrow(table.schema().as_arrow().empty_table())
        frame = parts[0]
        for part in parts[1:]:
            frame = frame.union(part)
        return frame
    if engine == "polars":
        import polars as pl

        parts = [pl.scan_parquet(local).select(columns)] if local else []
        parts += [pl.from_arrow(extra).lazy()] if extra is not None else []
        if not parts:
            return pl.from_arrow(table.schema().as_arrow().empty_table()).lazy()
        return pl.concat(parts, how="vertical_relaxed")
    raise DataError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")


def _evaluate(frame: Any, policy: Policy, dataset: str, allow_draft: bool) -> Verdict:
    from privcheck.api import verdict_from_report
    from privcheck.pipeline.check import check

    report = check(frame, policy, details=False, allow_draft=allow_draft)
    return verdict_from_report(report, policy, dataset)


def verdict_properties(verdict: Verdict) -> dict[str, str]:
    """The verdict as Iceberg string properties (table properties and snapshot summary)."""
    return {
        PASSED: "true" if verdict.passed else "false",
        DIGEST: verdict.policy_digest,
        VERDICT: verdict.model_dump_json(),
    }


def _same_outcome(a: Verdict, b: Verdict) -> bool:
    """Two checks of the same rows agree model by model: the same counts, outcomes and
    values — up to rounding, since rows read back in another order may sum in another order
    (the time of the check aside)."""
    keep = {"passed", "n_records", "n_classes", "n_suppressed", "identifiers_present"}
    if a.model_dump(include=keep) != b.model_dump(include=keep) or len(a.models) != len(b.models):
        return False
    exact = {"model", "params", "passed", "violating_classes", "violating_records", "unbounded"}
    for x, y in zip(a.models, b.models, strict=True):
        if x.model_dump(include=exact) != y.model_dump(include=exact):
            return False
        values = [x.value, y.value]
        if any(v is None for v in values):
            if values[0] != values[1]:
                return False
            continue
        pairs = zip(*[v if isinstance(v, list) else [v] for v in values], strict=True)
        if not all(math.isclose(p, q, rel_tol=1e-9, abs_tol=1e-12) for p, q in pairs):
            return False
    return True


def set_verdict(table: Any, verdict: Verdict) -> Any:
    """The verdict in the table properties (a commit of its own; retried over concurrent
    commits, which it does not conflict with)."""
    from pyiceberg.exceptions import CommitFailedException

    for _attempt in range(5):
        try:
            txn = table.transaction().set_properties(verdict_properties(verdict))
            return txn.commit_transaction()
        except CommitFailedException:
            table = table.refresh()
    raise DataError(
        f"could not record the verdict on {'.'.join(table.name())}: the table kept changing; "
        "run again"
    )


def is_ancestor(metadata: Any, ancestor_id: int | None, snapshot_id: int) -> bool:
    """Whether ``ancestor_id`` is ``snapshot_id`` or one of its ancestors (None, an empty
    main, precedes everything)."""
    if ancestor_id is None:
        return True
    seen: set[int] = set()
    current: int | None = snapshot_id
    while current is not None and current not in seen:
        if current == ancestor_id:
            return True
        seen.add(current)
        snapshot = metadata.snapshot_by_id(current)
        current = None if snapshot is None else snapshot.parent_snapshot_id
    return False


def _head(table: Any, ref: str = MAIN) -> int | None:
    found = table.metadata.refs.get(ref)
    return None if found is None else found.snapshot_id


@dataclass
class StagedBatch:
    """What staging a batch wrote: everything removing it must undo."""

    branch: str
    snapshot_id: int
    metadata_version: int
    manifest_list: str
    manifests: list[str] = field(default_factory=list)
    data_files: list[str] = field(default_factory=list)


@dataclass
class PublishResult:
    """The gate's outcome: published or not, the deciding verdict, main's head afterwards."""

    table: str
    published: bool
    verdict: Verdict
    main_snapshot_id: int | None
    batch_records: int
    reason: str = ""


def _metadata_version(location: str) -> int:
    match = _METADATA_FILE.match(location.rsplit("/", 1)[-1])
    return int(match.group(1)) if match else -1


def stage(table: Any, batch: pa.Table, summary: dict[str, str]) -> StagedBatch:
    """Append ``batch`` to a new audit branch starting at main's head (one commit)."""
    from pyiceberg.exceptions import CommitFailedException
    from pyiceberg.table.update.snapshot import ManageSnapshots

    branch = AUDIT_PREFIX + uuid.uuid4().hex[:16]
    if _head(table) is None:
        # Iceberg branches start from a snapshot: a new table's main gets an empty one first
        # (main then shows the table with no rows, which is what it had)
        table.append(batch.schema.empty_table(), snapshot_properties={"privcheck.empty": "true"})
    txn = table.transaction()
    head = _head(table)
    if head is not None:
        with ManageSnapshots(txn) as refs:
            refs.create_branch(head, branch)
    txn.append(batch, snapshot_properties=summary, branch=branch)
    try:
        table = txn.commit_transaction()
    except CommitFailedException as exc:  # (the files it wrote hold a batch that passed)
        raise PublishConflict(
            f"not published: the catalog refused to stage the batch on an audit branch of "
            f"{'.'.join(table.name())} ({str(exc).splitlines()[0]}); nothing changed — run "
            "publish again"
        ) from None
    snapshot_id = _head(table, branch)
    assert snapshot_id is not None
    return _staged_files(table, branch, snapshot_id)


def _staged_files(table: Any, branch: str, snapshot_id: int) -> StagedBatch:
    """The files the snapshot added: its manifest list, the manifests it wrote and the data
    files they add."""
    from pyiceberg.manifest import ManifestEntryStatus

    snapshot = table.metadata.snapshot_by_id(snapshot_id)
    staged = StagedBatch(
        branch=branch,
        snapshot_id=snapshot_id,
        metadata_version=_metadata_version(table.metadata_location),
        manifest_list=snapshot.manifest_list,
    )
    for manifest in snapshot.manifests(table.io):
        if manifest.added_snapshot_id != snapshot_id:
            continue  # (main's manifests, carried over)
        staged.manifests.append(manifest.manifest_path)
        for entry in manifest.fetch_manifest_entry(table.io, discard_deleted=False):
            if entry.status == ManifestEntryStatus.ADDED:
                staged.data_files.append(entry.data_file.file_path)
    return staged


def remove_staged(table: Any, staged: StagedBatch, properties: dict[str, str] | None = None) -> Any:
    """Remove a staged batch for real: the branch, the snapshot and any snapshot committed on
    top of it out of the table metadata (with ``properties`` set in the same commit), their
    files deleted, and the metadata files written since the staging rewritten without them
    (deleted when they never were the table's state). Returns the refreshed table."""
    from pyiceberg.exceptions import CommitFailedException
    from pyiceberg.table.update.snapshot import ExpireSnapshots, ManageSnapshots

    name = ".".join(table.name())
    for _attempt in range(5):  # concurrent writers: retry on a fresh view
        table = table.refresh()
        meta = table.metadata
        # what was committed on the audit branch after the staging goes with it
        later = [
            s.snapshot_id
            for s in meta.snapshots
            if s.snapshot_id != staged.snapshot_id
            and is_ancestor(meta, staged.snapshot_id, s.snapshot_id)
        ]
        doomed = {staged.snapshot_id, *later}
        refs_now = meta.refs.items()
        held = [r for r, ref in refs_now if r != staged.branch and ref.snapshot_id in doomed]
        if held:
            raise DataError(
                f"cannot remove the staged batch from {name}: {', '.join(held)} points at it "
                f"(snapshot {staged.snapshot_id}); remove that reference and expire the snapshot"
            )
        removed = [_staged_files(table, staged.branch, sid) for sid in later]
        txn = table.transaction()
        if staged.branch in meta.refs:
            with ManageSnapshots(txn) as refs:
                refs.remove_branch(staged.branch)
        present = [sid for sid in doomed if meta.snapshot_by_id(sid) is not None]
        if present:
            ExpireSnapshots(txn).by_ids(present).commit()
        if properties:
            txn.set_properties(properties)
        try:
            table = txn.commit_transaction()
            break
        except CommitFailedException:
            continue
    else:
        raise DataError(
            f"could not remove the staged batch (snapshot {staged.snapshot_id}) from {name}: "
            f"the table kept changing; remove branch {staged.branch} and expire its snapshot"
        )
    for batch in [staged, *removed]:
        for path in [*batch.data_files, *batch.manifests, batch.manifest_list]:
            _delete(table.io, path)
    _scrub_metadata(table, staged, doomed)
    return table.refresh()


def _delete(io: Any, path: str) -> None:
    with contextlib.suppress(FileNotFoundError):  # (removed already: a retried removal)
        io.delete(path)


def _metadata_files(table: Any) -> list[str]:
    """Every metadata file of the table: listed from its folder (orphans of failed commits
    included), else the ones the current metadata logs."""
    folder = table.metadata_location.rsplit("/", 1)[0]
    try:
        from pyarrow.fs import FileSelector, FileSystem

        fs, path = FileSystem.from_uri(folder)
        infos = fs.get_file_info(FileSelector(path))
        scheme = folder.split("://", 1)[0] + "://" if "://" in folder else ""
        prefix = folder[: len(folder) - len(path)] if scheme and folder.endswith(path) else scheme
        names = [info.path for info in infos if _METADATA_FILE.match(info.base_name)]
        return [n if "://" in n else prefix + n for n in names]
    except Exception:  # an object store pyarrow cannot list: the logged files
        logged = [entry.metadata_file for entry in table.metadata.metadata_log]
        return [*logged, table.metadata_location]


def _scrub_metadata(table: Any, staged: StagedBatch, doomed: set[int]) -> None:
    """Rewrite every metadata file since the staging that still lists a removed snapshot."""
    from pyiceberg.serializers import FromInputFile

    for location in _metadata_files(table):
        if location == table.metadata_location:
            continue  # (the removal's own commit: already without them)
        if _metadata_version(location) < staged.metadata_version:
            continue
        try:
            meta = FromInputFile.table_metadata(table.io.new_input(location))
        except FileNotFoundError:
            continue
        if not any(meta.snapshot_by_id(sid) for sid in doomed) and staged.branch not in meta.refs:
            continue
        if meta.current_snapshot_id in doomed:  # our failed publish commit: never the state
            _delete(table.io, location)
            continue
        scrubbed = meta.model_copy(
            update={
                "snapshots": [
                    # (a snapshot whose parent is removed keeps no dangling parent)
                    s.model_copy(update={"parent_snapshot_id": None})
                    if s.parent_snapshot_id in doomed
                    else s
                    for s in meta.snapshots
                    if s.snapshot_id not in doomed
                ],
                "refs": {
                    name: ref
                    for name, ref in meta.refs.items()
                    if ref.snapshot_id not in doomed and name != staged.branch
                },
                "snapshot_log": [e for e in meta.snapshot_log if e.snapshot_id not in doomed],
                "statistics": [s for s in meta.statistics if s.snapshot_id not in doomed],
                "partition_statistics": [
                    s for s in meta.partition_statistics if s.snapshot_id not in doomed
                ],
            }
        )
        _rewrite(table.io, location, scrubbed)


def _rewrite(io: Any, location: str, metadata: Any) -> None:
    """Overwrite a metadata file; a local one atomically (temporary file, then rename)."""
    from pyiceberg.serializers import ToOutputFile

    if location.startswith("file://") or "://" not in location:
        local = Path(location.removeprefix("file://"))
        temporary = local.with_name(f".{local.name}.{uuid.uuid4().hex}.tmp")
        ToOutputFile.table_metadata(metadata, io.new_output(str(temporary)), overwrite=True)
        os.replace(temporary, local)
    else:
        ToOutputFile.table_metadata(metadata, io.new_output(location), overwrite=True)


def _read_batch(data: str | Path, policy: Policy, anonymize: bool, allow_draft: bool):
    """DATA as a DataFrame, or its anonymized release."""
    from privcheck.io import read_table

    frame = read_table(data)
    _require_columns(list(frame.columns), policy, f"data file {data}")
    if anonymize:
        from privcheck.pipeline.anonymize import anonymize as run_anonymize

        frame, _report = run_anonymize(frame, policy, allow_draft=allow_draft)
    return frame


def publish(
    data: str | Path,
    table_name: str,
    policy: Policy | dict | str | Path,
    *,
    catalog_uri: str | None = None,
    warehouse: str | Path | None = None,
    anonymize: bool = False,
    allow_draft: bool = False,
    engine: str = "pandas",
    spark_master: str = "local[*]",
    after_staging: Any = None,
) -> PublishResult:
    """Publish DATA to ``table_name`` through the gate (see the module's docstring).

    ``engine`` runs the checks of the table's rows (main's with the batch, the audit's read-back)
    in polars, DuckDB or Spark over the snapshot's Parquet files instead of pandas
    (``snapshot_frame``); the batch itself is checked in memory, where it is written from.
    Bad input (table name, policy, data, a table without the policy's columns, an unreachable
    catalog) is refused with ``DataError``/``PolicyError`` before anything is written.
    ``after_staging(table, staged)`` runs between staging and publishing (for tests: a
    concurrent writer). A conflict raises ``PublishConflict`` after the staged batch was
    removed."""
    import pyarrow as pa

    from privcheck.policy import load_policy

    ident = parse_table_name(table_name)
    if engine not in ENGINES:
        raise DataError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    policy = load_policy(policy)
    policy.require_decided(allow_draft=allow_draft)
    frame = _read_batch(data, policy, anonymize, allow_draft)
    batch = _to_arrow(frame)
    if batch.num_rows == 0:
        raise DataError(f"{data} has no records: nothing to publish")
    catalog = open_catalog(catalog_uri, warehouse)
    table = _load_table(catalog, ident)
    leaked: list[str] = []  # identifier columns the batch has and the table has not
    if table is not None:
        names = table.schema().as_arrow().names
        _require_columns(names, policy, f"table {table_name}")
        leaked = [c for c in policy.identifiers if c in batch.column_names and c not in names]
        if not leaked:  # (with them the check fails: exit 1, not a schema refusal)
            batch = _conform(batch, table, table_name)
    main = None if table is None else _head(table)
    # 1. check before anything is written: the batch, and the table main would show
    verdict = _evaluate(batch.to_pandas(), policy, table_name, allow_draft)
    if verdict.passed and leaked:  # (a policy's identifier always fails a check)
        batch = _conform(batch, table, table_name)
    if verdict.passed and main is not None:
        published = snapshot_frame(table, main, engine, spark_master, extra=batch)
        verdict = _evaluate(published, policy, table_name, allow_draft)
    if table is None:
        # a release never carries the policy's identifiers: nor does the table's schema
        kept = [f for f in batch.schema if f.name not in policy.identifiers]
        table = _create_table(catalog, ident, pa.schema(kept))
        if verdict.passed:
            batch = _conform(batch, table, table_name)
    if not verdict.passed:
        table = set_verdict(table, verdict)
        return PublishResult(table_name, False, verdict, main, batch.num_rows, "rejected")
    # 2. write the batch to an audit branch, the verdict in its snapshot summary
    staged = stage(table, batch, verdict_properties(verdict))
    table = table.refresh()
    try:
        # 3. audit: what was written, read back, passes the same check
        branch_rows = snapshot_frame(table, staged.snapshot_id, engine, spark_master)
        audited = _evaluate(branch_rows, policy, table_name, allow_draft)
        if not (audited.passed and _same_outcome(audited, verdict)):
            failed = audited if not audited.passed else verdict.model_copy(update={"passed": False})
            table = remove_staged(table, staged, verdict_properties(failed))
            return PublishResult(
                table_name, False, failed, _head(table), batch.num_rows, "audit failed"
            )
        if after_staging is not None:
            after_staging(table, staged)
        # 4. publish: main moves to the audited snapshot only if that loses nothing
        return _move_main(table, staged, audited, table_name, batch.num_rows)
    except BaseException:
        remove_staged(table, staged)
        raise


def _move_main(
    table: Any, staged: StagedBatch, verdict: Verdict, name: str, n_batch: int
) -> PublishResult:
    from pyiceberg.exceptions import CommitFailedException
    from pyiceberg.table.update.snapshot import ManageSnapshots

    table = table.refresh()
    if _head(table, staged.branch) != staged.snapshot_id:
        raise PublishConflict(
            f"not published: someone else committed on the audit branch {staged.branch} of "
            f"{name}; what was not audited is not published — the branch was removed, run "
            "publish again"
        )
    head = _head(table)
    if not is_ancestor(table.metadata, head, staged.snapshot_id):
        raise _conflict(name, head)
    txn = table.transaction()
    # main first: of two ref assertions in one transaction pyiceberg keeps the first, and the
    # one that matters is that main is still where the ancestry was checked
    with ManageSnapshots(txn) as refs:
        refs.set_current_snapshot(snapshot_id=staged.snapshot_id)
        refs.remove_branch(staged.branch)
    txn.set_properties(verdict_properties(verdict))
    try:
        table = txn.commit_transaction()
    except CommitFailedException:
        raise _conflict(name, _head(table.refresh())) from None
    return PublishResult(name, True, verdict, _head(table), n_batch, "published")


def _conflict(name: str, head: int | None) -> PublishConflict:
    return PublishConflict(
        f"not published: main of {name} moved to snapshot {head} while the batch was audited "
        "(another writer committed); moving main now would drop that commit, so the staged "
        "batch was removed and nothing changed — run publish again"
    )


class IcebergCatalog(Catalog):
    """An Iceberg table through pyiceberg (SQL catalog by default, REST by URI)."""

    name: ClassVar[str] = "iceberg"
    description: ClassVar[str] = (
        "Apache Iceberg through pyiceberg: the publication gate (privcheck publish), the "
        "verdict in the table properties"
    )

    def __init__(self, catalog_uri: str | None = None, warehouse: str | Path | None = None):
        self.catalog_uri = catalog_uri
        self.warehouse = warehouse

    def _table(self, reference: str) -> Any:
        ident = parse_table_name(reference)
        table = _load_table(open_catalog(self.catalog_uri, self.warehouse), ident)
        if table is None:
            raise DataError(f"the Iceberg catalog has no table {reference}")
        return table

    def read_dataset(self, reference: str) -> CatalogDataset:
        """The table's columns; Iceberg has no column tags (roles come from the policy)."""
        table = self._table(reference)
        return CatalogDataset(reference, list(table.schema().as_arrow().names), {})

    def write_verdict(self, reference: str, verdict: Verdict) -> None:
        """The verdict in the table properties (``privcheck.passed``, ``…policy-digest``,
        ``…verdict``)."""
        set_verdict(self._table(reference), verdict)


@hookspecs.hookimpl
def privcheck_catalogs() -> list[type]:
    return [IcebergCatalog]


__all__ = [
    "IcebergCatalog",
    "PublishConflict",
    "PublishResult",
    "publish",
]
