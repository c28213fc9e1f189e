"""The DataHub back-end: column tags read from DataHub, the Verdict written back as assertions.

Two stores, one code path:

- **DataHub Lite** (the default): the embedded store that ships with ``acryl-datahub`` (SQLite;
  DuckDB for a ``.duckdb`` file), opened with ``datahub.lite.lite_util.get_datahub_lite`` to
  read and written through the real ``datahub-lite`` sink. Its default location is the DataHub
  CLI's own (``lite.config.file`` of ``~/.datahubenv``, else ``~/.datahub/lite/datahub.db``),
  so ``datahub lite get --urn …`` shows what privcheck wrote; ``$PRIVCHECK_DATAHUB_STORE`` or
  ``--store`` point elsewhere.
- **A DataHub server (GMS)**: ``--gms URL`` (or ``$PRIVCHECK_DATAHUB_GMS``), the token from
  ``$DATAHUB_GMS_TOKEN``; read with ``DataHubGraph`` and written with its
  ``DatahubRestEmitter``.

Roles come from the field tags of the dataset's ``schemaMetadata`` and ``editableSchemaMetadata``
(the tags a person adds in the UI land in the latter). The Verdict becomes one assertion per
privacy model (``assertionInfo``) and one run event per evaluation (``assertionRunEvent``),
built by ``privcheck.catalog.to_datahub``: the assertion URN is stable per (dataset, model,
parameters) (``privcheck.catalog.datahub_assertion_urn``), so a rerun adds a run event to the
assertion's history and never a second assertion. In Lite a run event is a new version of the
assertion's ``assertionRunEvent`` aspect (version 0 is the latest; ``datahub lite get --asof``
walks back).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from privcheck.catalogs.base import Catalog, CatalogDataset, RunResult, missing_extra
from privcheck.errors import DataError, PrivcheckError
from privcheck.hookspecs import hookimpl

if TYPE_CHECKING:
    from privcheck.api import Verdict

#: environment: the Lite store file, a GMS URL, the GMS token (the DataHub CLI's own variable)
STORE_ENV = "PRIVCHECK_DATAHUB_STORE"
GMS_ENV = "PRIVCHECK_DATAHUB_GMS"
TOKEN_ENV = "DATAHUB_GMS_TOKEN"
#: the URN prefix of the assertions privcheck writes (``privcheck.catalog``)
ASSERTION_PREFIX = "urn:li:assertion:privcheck-"
#: seconds a GMS request may take (the check waits on it once, before anything is written)
GMS_TIMEOUT = 10.0


def _sdk() -> None:
    """Import the DataHub SDK, or one line naming the extra that installs it."""
    try:
        import datahub.emitter.mcp
        import datahub.lite.lite_util  # noqa: F401
    except ImportError:
        raise missing_extra("acryl-datahub", "datahub") from None


def default_store() -> tuple[str, Path]:
    """The DataHub CLI's own Lite store: ``(type, file)``: ``$PRIVCHECK_DATAHUB_STORE`` when
    set, else the ``lite`` section of ``~/.datahubenv``, else ``~/.datahub/lite/datahub.db``
    (what ``datahub lite`` opens)."""
    if os.environ.get(STORE_ENV):
        return _store_type(Path(os.environ[STORE_ENV]))
    _sdk()
    import yaml
    from datahub.cli import config_utils
    from datahub.cli.lite_cli import LiteCliConfig
    from datahub.lite.lite_util import LiteLocalConfig

    config = LiteCliConfig.model_fields["lite"].default
    if os.path.isfile(config_utils.DATAHUB_CONFIG_PATH):
        try:
            with open(config_utils.DATAHUB_CONFIG_PATH) as stream:
                raw = yaml.safe_load(stream)
            if isinstance(raw, dict) and raw.get("lite"):
                config = LiteLocalConfig.model_validate(raw["lite"])
        except Exception:  # a malformed ~/.datahubenv: the DataHub CLI's default store
            pass
    return config.type, Path(os.path.expanduser(config.config["file"]))


def _short(exc: BaseException) -> str:
    """An SDK or HTTP failure in a few words (urllib3 nests the cause in a long repr)."""
    text = " ".join(str(exc).split())
    for cause in ("Connection refused", "Name or service not known", "timed out", "401", "403"):
        if cause in text:
            return {"401": "401 Unauthorized", "403": "403 Forbidden"}.get(cause, cause)
    return text[:160] + ("…" if len(text) > 160 else "") or type(exc).__name__


def _store_type(path: Path) -> tuple[str, Path]:
    """The Lite implementation of a store file: by its header when it exists (an SQLite file
    starts with ``SQLite format 3``, a DuckDB file carries ``DUCK`` at byte 8), else by its
    suffix (``.duckdb``: DuckDB). A folder names the store inside it, as the DataHub CLI lays
    it out (``datahub.db``, or ``datahub.duckdb`` when only that exists)."""
    if path.is_dir():
        duck = path / "datahub.duckdb"
        path = (
            duck if duck.is_file() and not (path / "datahub.db").is_file() else path / "datahub.db"
        )
    try:
        with path.open("rb") as fh:
            head = fh.read(16)
    except OSError:
        head = b""
    if head.startswith(b"SQLite format 3"):
        return "sqlite", path
    if head[8:12] == b"DUCK":
        return "duckdb", path
    return ("duckdb" if path.suffix.lower() == ".duckdb" else "sqlite"), path


def _simple_field(path: str) -> str:
    """A DataHub field path as a column name (v2 paths carry ``[version=2.0].[type=…]``)."""
    from datahub.utilities.urns.field_paths import get_simple_field_path_from_v2_field_path

    return get_simple_field_path_from_v2_field_path(path)


def _tags(global_tags: Any) -> list[str]:
    return [t.tag for t in (global_tags.tags if global_tags is not None else [])]


def _names_role(tag: str) -> bool:
    from privcheck.profiling.tags import DEFAULT_TAG_ROLES, normalise_tag, tag_role

    return tag_role(tag, {normalise_tag(t): r for t, r in DEFAULT_TAG_ROLES.items()}) is not None


def dataset_from_aspects(reference: str, schema: Any, editable: Any) -> CatalogDataset:
    """A dataset's columns (``schemaMetadata``) and the tags of each, from both the schema and
    the editable schema (tags added in the UI). A role tag added in the UI replaces the role
    tags ingested with the schema: it is a person's decision about the column."""
    if schema is None:
        raise DataError(
            f"DataHub has no schema for {reference} (no schemaMetadata aspect): ingest the "
            "dataset's schema first, or check the URN"
        )
    columns: list[str] = []
    tags: dict[str, list[str]] = {}
    for field in schema.fields:
        name = _simple_field(field.fieldPath)
        columns.append(name)
        tags.setdefault(name, []).extend(_tags(field.globalTags))
    for info in editable.editableSchemaFieldInfo if editable is not None else []:
        name = _simple_field(info.fieldPath)
        if name not in tags:  # (an edit of a field the schema no longer has is stale)
            continue
        edited = _tags(info.globalTags)
        if any(_names_role(t) for t in edited):  # a person's role tag beats the ingested one
            tags[name] = [t for t in tags[name] if not _names_role(t)]
        tags[name].extend(t for t in edited if t not in tags[name])
    return CatalogDataset(reference, columns, {c: t for c, t in tags.items() if t})


def _result(urn: str, info: Any, event: Any) -> RunResult:
    native = event.result.nativeResults or {}
    assertion = info.datasetAssertion
    params: dict[str, Any] = {}
    import json

    for key, value in (assertion.nativeParameters or {}).items():
        try:
            params[key] = json.loads(value)
        except ValueError:
            params[key] = value
    return RunResult(
        assertion=urn,
        model=assertion.nativeType or "",
        params=params,
        passed=event.result.type == "SUCCESS",
        value=native.get("value", ""),
        summary=native.get("summary", ""),
        evaluated_at=int(event.timestampMillis),
        run_id=event.runId,
        policy_digest=(info.customProperties or {}).get("privcheck.policy_digest"),
        verdict_passed=native.get("verdict_passed", "true") == "true",
        identifiers_present=tuple(i for i in native.get("identifiers_present", "").split(",") if i),
    )


def latest_run(results: list[RunResult], reference: str) -> list[RunResult]:
    """The results of the latest run among ``results`` (a policy that changed leaves the
    assertions of its old parameters behind: they are history, not the current verdict)."""
    if not results:
        raise DataError(
            f"DataHub holds no privcheck result for {reference}; run "
            f"privcheck catalog check {reference} DATA --policy POLICY first"
        )
    last = max(results, key=lambda r: r.evaluated_at)
    current = [r for r in results if r.run_id == last.run_id]
    return sorted(current, key=lambda r: (r.model, json_key(r.params)))


def json_key(params: dict[str, Any]) -> str:
    import json

    return json.dumps(params, sort_keys=True)


class DataHubCatalog(Catalog):
    """DataHub: Lite by default, a GMS server when ``gms`` is given."""

    name = "datahub"
    description = "DataHub (Lite, or a GMS server): field tags in, assertions and run events out"

    def __init__(self, store: str | Path | None = None, gms: str | None = None) -> None:
        _sdk()
        if store is not None and gms is not None:
            raise DataError("give either --store (DataHub Lite) or --gms (a server), not both")
        self.gms = gms if gms is not None or store is not None else os.environ.get(GMS_ENV)
        if self.gms is None:
            self.lite_type, self.store = (
                _store_type(Path(store)) if store is not None else default_store()
            )

    # ------------------------------------------------------------------ where

    def location(self) -> str:
        return self.gms if self.gms is not None else str(self.store)

    def _lite_config(self, read_only: bool) -> dict[str, Any]:
        config = {"file": str(self.store)}
        if read_only:
            config["read_only"] = True
        return {"type": self.lite_type, "config": config}

    def _open_lite(self) -> Any:
        """The Lite store, read-only: reading never creates or changes a store."""
        from datahub.lite.lite_util import get_datahub_lite

        if not self.store.is_file():
            raise DataError(
                f"no DataHub Lite store at {self.store}: ingest the dataset into it first "
                f"(datahub ingest … with the datahub-lite sink), or give --store PATH"
            )
        try:
            return get_datahub_lite(self._lite_config(read_only=True), read_only=True)
        except Exception as exc:
            raise DataError(f"cannot open the DataHub Lite store {self.store}: {exc}") from None

    def _graph(self) -> Any:
        """A client of the GMS server, its connection tested (an unreachable server is one
        line, before anything is read or written)."""
        from datahub.ingestion.graph.client import DataHubGraph
        from datahub.ingestion.graph.config import DatahubClientConfig

        assert self.gms is not None
        try:
            graph = DataHubGraph(
                DatahubClientConfig(
                    server=self.gms,
                    token=os.environ.get(TOKEN_ENV) or None,
                    timeout_sec=GMS_TIMEOUT,
                    retry_max_times=1,
                )
            )
            graph.test_connection()
            return graph
        except Exception as exc:
            raise DataError(
                f"cannot reach the DataHub server at {self.gms} ({_short(exc)}); check the "
                f"URL and ${TOKEN_ENV}"
            ) from None

    # ------------------------------------------------------------------ read

    def read_dataset(self, reference: str) -> CatalogDataset:
        with self._reading():
            return self._read_dataset(reference)

    def latest_results(self, reference: str) -> list[RunResult]:
        with self._reading():
            return self._latest_results(reference)

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """A store that is not a DataHub Lite database, a server that refuses the token: one
        line naming the catalog, never the SDK's traceback."""
        try:
            yield
        except PrivcheckError:
            raise
        except Exception as exc:
            raise DataError(f"cannot read DataHub at {self.location()}: {_short(exc)}") from None

    def _read_dataset(self, reference: str) -> CatalogDataset:
        from datahub.metadata.schema_classes import (
            EditableSchemaMetadataClass,
            SchemaMetadataClass,
        )

        if not reference.startswith("urn:li:dataset:"):
            raise DataError(
                f"{reference!r} is not a DataHub dataset URN; give one such as "
                "urn:li:dataset:(urn:li:dataPlatform:hive,db.table,PROD)"
            )
        if self.gms is not None:
            graph = self._graph()
            schema = graph.get_aspect(reference, SchemaMetadataClass)
            editable = graph.get_aspect(reference, EditableSchemaMetadataClass)
            if schema is None and not graph.exists(reference):
                raise DataError(f"the DataHub server at {self.gms} does not know {reference}")
            return dataset_from_aspects(reference, schema, editable)
        lite = self._open_lite()
        try:
            found = lite.get(reference, ["schemaMetadata", "editableSchemaMetadata"], typed=True)
            if found is None and lite.get(reference, None) is None:
                raise DataError(
                    f"the DataHub Lite store {self.store} does not know {reference}; check the "
                    "URN (datahub lite ls / datahub lite search)"
                )
        finally:
            lite.close()
        found = found or {}
        return dataset_from_aspects(
            reference, found.get("schemaMetadata"), found.get("editableSchemaMetadata")
        )

    def _latest_results(self, reference: str) -> list[RunResult]:
        if self.gms is not None:
            return latest_run(self._gms_results(reference), reference)
        lite = self._open_lite()
        results = []
        try:
            if lite.get(reference, None) is None:
                raise DataError(
                    f"the DataHub Lite store {self.store} does not know {reference}; check the "
                    "URN (datahub lite ls / datahub lite search)"
                )
            for urn in lite.list_ids():
                if not urn.startswith(ASSERTION_PREFIX):
                    continue
                found = lite.get(urn, ["assertionInfo", "assertionRunEvent"], typed=True) or {}
                info, event = found.get("assertionInfo"), found.get("assertionRunEvent")
                if info is None or event is None or info.datasetAssertion is None:
                    continue
                if info.datasetAssertion.dataset == reference:
                    results.append(_result(urn, info, event))
        finally:
            lite.close()
        return latest_run(results, reference)

    def _gms_results(self, reference: str) -> list[RunResult]:
        """The privcheck assertions of ``reference`` on a server and their latest run events
        (GraphQL: the dataset's assertions, as the UI's Quality tab lists them)."""
        from datahub.metadata.schema_classes import AssertionInfoClass, AssertionRunEventClass

        graph = self._graph()
        if not graph.exists(reference):
            raise DataError(f"the DataHub server at {self.gms} does not know {reference}")
        query = """query($urn: String!) { dataset(urn: $urn) {
            assertions(start: 0, count: 1000) { assertions { urn } } } }"""
        answer = graph.execute_graphql(query, variables={"urn": reference})
        urns = [
            a["urn"]
            for a in ((answer.get("dataset") or {}).get("assertions") or {}).get("assertions", [])
            if a["urn"].startswith(ASSERTION_PREFIX)
        ]
        results = []
        for urn in urns:
            info = graph.get_aspect(urn, AssertionInfoClass)
            event = graph.get_latest_timeseries_value(urn, AssertionRunEventClass, {})
            if info is not None and event is not None and info.datasetAssertion is not None:
                results.append(_result(urn, info, event))
        return results

    # ------------------------------------------------------------------ write

    def proposals(self, reference: str, verdict: Verdict) -> list[Any]:
        """The Verdict as the SDK's change proposals (``privcheck.catalog.to_datahub``), each
        observed at the check's time (Lite dates each version of an aspect by it)."""
        from datahub.emitter.mcp import MetadataChangeProposalWrapper
        from datahub.metadata.schema_classes import SystemMetadataClass

        from privcheck.catalog import to_datahub

        ts = int(verdict.evaluated_at.timestamp() * 1000)
        out = []
        for payload in to_datahub(verdict, reference):
            mcp = MetadataChangeProposalWrapper.from_obj(payload)
            mcp.systemMetadata = SystemMetadataClass(lastObserved=ts, runId=f"privcheck-{ts}")
            out.append(mcp)
        return out

    def write_verdict(self, reference: str, verdict: Verdict) -> None:
        mcps = self.proposals(reference, verdict)
        if self.gms is not None:
            graph = self._graph()
            try:
                for mcp in mcps:
                    graph.emit_mcp(mcp)
            except Exception as exc:
                raise DataError(
                    f"the DataHub server at {self.gms} refused the verdict: {_short(exc)}"
                ) from None
            return
        from datahub.ingestion.api.common import PipelineContext, RecordEnvelope
        from datahub.ingestion.sink.datahub_lite import DataHubLiteSink

        ts = int(verdict.evaluated_at.timestamp() * 1000)
        self.store.parent.mkdir(parents=True, exist_ok=True)
        sink = DataHubLiteSink.create(
            self._lite_config(read_only=False), PipelineContext(run_id=f"privcheck-{ts}")
        )
        try:
            for mcp in mcps:
                sink.write_record_async(RecordEnvelope(mcp, metadata={}), write_callback=None)
        finally:
            sink.close()
        failures = list(sink.get_report().failures)
        if failures:
            raise DataError(
                f"the DataHub Lite store {self.store} refused the verdict: {failures[0]}"
            )


@hookimpl
def privcheck_catalogs() -> list[type]:
    return [DataHubCatalog]
