"""The OpenMetadata back-end, payload-only: no OpenMetadata server runs here, so the catalog is a
folder holding what the server would answer and what privcheck would send it.

- Read: ``<folder>/<table FQN>.table.json``, the table entity as OpenMetadata's API returns it
  (``GET /api/v1/tables/name/{fqn}?fields=columns,tags``): its ``columns`` (nested ``children``
  flattened to dotted names) and each column's ``tags[].tagFQN`` (``PII.Sensitive``,
  ``PersonalData.Personal`` …, the vocabulary of ``privcheck.api.policy_from_tags``).
- Write: ``<folder>/<table FQN>.results.json``, the ``CreateTestCaseResult`` bodies of
  ``privcheck.catalog.to_openmetadata`` (one per model; POST each to
  ``/api/v1/dataQuality/testCases/testCaseResults/{fqn}``) beside the Verdict, written
  atomically; it holds the latest run (the history is the server's).

It goes through the same interface as DataHub (``privcheck.catalogs.tagged.check_in_catalog``),
so the tags win, hierarchies are drafted and drafts refused the same way.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from privcheck.catalogs.base import Catalog, CatalogDataset, RunResult
from privcheck.errors import DataError
from privcheck.hookspecs import hookimpl

if TYPE_CHECKING:
    from privcheck.api import Verdict


def _columns(columns: list[Any], prefix: str = "") -> list[tuple[str, list[str]]]:
    out = []
    for column in columns:
        if not isinstance(column, dict) or not isinstance(column.get("name"), str):
            raise DataError("an OpenMetadata table entity's columns each need a name")
        name = prefix + column["name"]
        tags = [
            t["tagFQN"] for t in column.get("tags") or [] if isinstance(t, dict) and "tagFQN" in t
        ]
        out.append((name, tags))
        out += _columns(column.get("children") or [], name + ".")
    return out


class OpenMetadataCatalog(Catalog):
    """OpenMetadata without a server: table entities in a folder, test case results out."""

    name = "openmetadata"
    description = (
        "OpenMetadata, payload-only: table entity JSON in, CreateTestCaseResult bodies out"
    )

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)

    def entity_path(self, fqn: str) -> Path:
        return self.folder / f"{fqn}.table.json"

    def results_path(self, fqn: str) -> Path:
        return self.folder / f"{fqn}.results.json"

    def read_dataset(self, reference: str) -> CatalogDataset:
        from privcheck.io import read_json_file

        path = self.entity_path(reference)
        if not path.is_file():
            raise DataError(
                f"no OpenMetadata table entity for {reference} in {self.folder} (expected "
                f"{path.name}: the answer of GET /api/v1/tables/name/{reference}"
                "?fields=columns,tags)"
            )
        entity = read_json_file(path, "OpenMetadata table entity")
        if not isinstance(entity, dict) or not isinstance(entity.get("columns"), list):
            raise DataError(f"{path} is not an OpenMetadata table entity (no columns list)")
        found = entity.get("fullyQualifiedName")
        if found is not None and found != reference:
            raise DataError(f"{path} describes {found!r}, not {reference!r}")
        columns = _columns(entity["columns"])
        return CatalogDataset(reference, [c for c, _ in columns], {c: t for c, t in columns if t})

    def write_verdict(self, reference: str, verdict: Verdict) -> None:
        from privcheck.catalog import to_openmetadata
        from privcheck.io import write_text_atomic

        document = {
            "table": reference,
            "testCaseResults": to_openmetadata(verdict, reference),
            "verdict": json.loads(verdict.to_json()),
        }
        write_text_atomic(self.results_path(reference), json.dumps(document, indent=2) + "\n")

    def latest_results(self, reference: str) -> list[RunResult]:
        from privcheck.catalog import _summary
        from privcheck.io import read_json_file

        path = self.results_path(reference)
        if not path.is_file():
            raise DataError(f"no privcheck result for {reference} in {self.folder}")
        document = read_json_file(path, "privcheck results")
        from privcheck.api import Verdict

        verdict = Verdict.model_validate(document["verdict"])
        ts = int(verdict.evaluated_at.timestamp() * 1000)
        return [
            RunResult(
                assertion=body["fqn"],
                model=m.model,
                params=m.params,
                passed=m.passed,
                value=str(m.value),
                summary=_summary(verdict, m),
                evaluated_at=ts,
                run_id=f"privcheck-{ts}",
                policy_digest=verdict.policy_digest,
                verdict_passed=verdict.passed,
                identifiers_present=tuple(verdict.identifiers_present),
            )
            for body, m in zip(document["testCaseResults"], verdict.models, strict=True)
        ]


@hookimpl
def privcheck_catalogs() -> list[type]:
    return [OpenMetadataCatalog]
