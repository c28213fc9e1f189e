"""Reference adapters: a Verdict → the payload a data catalog records as a quality result.

Plain dicts, no SDK needed (the shapes are checked against the catalogs' own models in the
tests): a catalog plugin serialises them as JSON and sends them with its usual client.

- DataHub: one *assertion* per privacy model (``assertionInfo``: a dataset assertion whose
  native type is the model and whose operator and parameter carry the bound), plus one
  ``assertionRunEvent`` per evaluation (SUCCESS/FAILURE, the achieved value as
  ``actualAggValue``, violating records as ``unexpectedCount``) — metadata change proposals in
  the JSON form ``datahub put`` and the file source read.
- OpenMetadata: one *test case result* per privacy model (``CreateTestCaseResult``, the body of
  ``POST /v1/dataQuality/testCases/testCaseResults/{fqn}``), for table test cases named
  ``privcheck_<model>[_<attribute>]``.

docs/integrations.md documents the field-by-field mapping.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from privcheck.api import ModelVerdict, Verdict
from privcheck.report import draft_note

_DATAHUB_OPERATOR = {
    ">=": "GREATER_THAN_OR_EQUAL_TO",
    "<=": "LESS_THAN_OR_EQUAL_TO",
    "<": "LESS_THAN",
    None: "_NATIVE_",
}
_OPS = {">=": "≥", "<=": "≤", "<": "<"}


def _params_text(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())


def _num(value: float | list[float] | None, unbounded: bool = False) -> str:
    """A figure as catalogs show it: 'unbounded' for an infinite statistic, 'n/a' for none; a
    [min, max] pair (delta-presence) as both figures."""
    if isinstance(value, list):
        return "[" + ", ".join(_num(v, unbounded) for v in value) + "]"
    if value is None:
        return "unbounded" if unbounded else "n/a"
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.6g}"


def describe(m: ModelVerdict) -> str:
    """One line a person reads in the catalog: outcome, achieved vs required, who violates."""
    head = f"{m.model} ({_params_text(m.params)})"
    bound = f" (required {_OPS[m.comparison]} {_num(m.required)})" if m.comparison else ""
    outcome = "holds" if m.passed else "violated"
    tail = (
        ""
        if m.passed
        else f"; {m.violating_classes:,} classes ({m.violating_records:,} records) violate it"
    )
    return f"{head} {outcome}: {m.statistic} {_num(m.value, m.unbounded)}{bound}{tail}"


def _summary(verdict: Verdict, m: ModelVerdict) -> str:
    """``describe(m)``, led by the draft warning when the policy was a draft (allow_draft):
    a catalog shows the result without the Verdict around it."""
    if not verdict.draft:
        return describe(m)
    return f"{draft_note(verdict.open_reviews)}. {describe(m)}"


def _native(m: ModelVerdict) -> dict[str, str]:
    return {k: json.dumps(v) if not isinstance(v, str) else v for k, v in m.params.items()}


# --------------------------------------------------------------------------- DataHub


def assertion_urn(dataset_urn: str, model: str, params: dict[str, Any]) -> str:
    """privcheck's one DataHub assertion URN scheme: ``urn:li:assertion:privcheck-`` + the
    first 32 hex digits of sha256 over the JSON of ``[dataset URN, model name, model
    parameters]`` (keys sorted). Every writer uses it — ``to_datahub``, ``privcheck catalog
    check`` and the GX plugin's ``privcheck_gx.datahub`` — so one check of one dataset is one
    assertion whoever records it, and a rerun adds a run event to its history."""
    key = json.dumps([dataset_urn, model, params], sort_keys=True)
    return "urn:li:assertion:privcheck-" + hashlib.sha256(key.encode()).hexdigest()[:32]


def datahub_assertion_urn(dataset_urn: str, m: ModelVerdict) -> str:
    """A stable assertion URN per (dataset, model, parameters): reruns update the same one
    (``assertion_urn``)."""
    return assertion_urn(dataset_urn, m.model, m.params)


def _mcp(urn: str, aspect_name: str, aspect: dict[str, Any]) -> dict[str, Any]:
    return {
        "entityType": "assertion",
        "entityUrn": urn,
        "changeType": "UPSERT",
        "aspectName": aspect_name,
        "aspect": {"json": aspect},
    }


def to_datahub(
    verdict: Verdict,
    dataset_urn: str,
    *,
    run_id: str | None = None,
    external_url: str | None = None,
) -> list[dict[str, Any]]:
    """DataHub metadata change proposals: ``assertionInfo`` + ``assertionRunEvent`` per model."""
    ts = int(verdict.evaluated_at.timestamp() * 1000)
    run_id = run_id or f"privcheck-{ts}"
    fields = [f"urn:li:schemaField:({dataset_urn},{c})" for c in verdict.quasi_identifiers]
    out = []
    for m in verdict.models:
        urn = datahub_assertion_urn(dataset_urn, m)
        dataset_assertion: dict[str, Any] = {
            "dataset": dataset_urn,
            "scope": "DATASET_ROWS",
            "fields": fields,
            "aggregation": "_NATIVE_",
            "operator": _DATAHUB_OPERATOR[m.comparison],
            "nativeType": m.model,
            "nativeParameters": _native(m),
            "logic": f"privcheck: {m.model} ({_params_text(m.params)}) over the "
            f"quasi-identifiers {', '.join(verdict.quasi_identifiers)}",
        }
        if m.required is not None:
            dataset_assertion["parameters"] = {
                "value": {"value": _num(m.required), "type": "NUMBER"}
            }
        info: dict[str, Any] = {
            "type": "DATASET",
            "datasetAssertion": dataset_assertion,
            "source": {"type": "EXTERNAL"},
            "description": f"{m.model} ({_params_text(m.params)})",
            "customProperties": {
                "privcheck.policy_digest": verdict.policy_digest,
                **(
                    {"privcheck.policy_version": verdict.policy_version}
                    if verdict.policy_version
                    else {}
                ),
            },
        }
        if external_url:
            info["externalUrl"] = external_url
        result: dict[str, Any] = {
            "type": "SUCCESS" if m.passed else "FAILURE",
            "rowCount": verdict.n_records,
            "unexpectedCount": m.violating_records,
            "nativeResults": {
                "statistic": m.statistic,
                "value": _num(m.value, m.unbounded),
                "unbounded": "true" if m.unbounded else "false",
                "violating_classes": str(m.violating_classes),
                "violating_records": str(m.violating_records),
                "n_classes": str(verdict.n_classes),
                "summary": _summary(verdict, m),
                "draft": "true" if verdict.draft else "false",
                "privcheck_version": verdict.privcheck_version,
                # the whole verdict, which also fails on identifier columns left in the data
                # or too many suppressed records: no model's assertion says that on its own
                "verdict_passed": "true" if verdict.passed else "false",
                "identifiers_present": ",".join(verdict.identifiers_present),
                "suppression_ok": "true" if verdict.suppression_ok else "false",
            },
        }
        if isinstance(m.value, int | float):  # (a [min, max] pair has no single aggregate)
            result["actualAggValue"] = float(m.value)
        if external_url:
            result["externalUrl"] = external_url
        event = {
            "timestampMillis": ts,
            "runId": run_id,
            "asserteeUrn": dataset_urn,
            "assertionUrn": urn,
            "status": "COMPLETE",
            "result": result,
        }
        out += [_mcp(urn, "assertionInfo", info), _mcp(urn, "assertionRunEvent", event)]
    return out


# --------------------------------------------------------------------------- OpenMetadata


def openmetadata_test_case_names(verdict: Verdict) -> list[str]:
    """Test case names, one per model: ``privcheck_<model>[_<attribute>]``, made unique."""
    names: list[str] = []
    for m in verdict.models:
        base = "privcheck_" + re.sub(r"[^0-9A-Za-z]+", "_", m.model).strip("_")
        attr = m.params.get("attribute")
        if attr:
            base += "_" + re.sub(r"[^0-9A-Za-z]+", "_", str(attr)).strip("_")
        name, n = base, 2
        while name in names:
            name, n = f"{base}_{n}", n + 1
        names.append(name)
    return names


def to_openmetadata(verdict: Verdict, table_fqn: str) -> list[dict[str, Any]]:
    """OpenMetadata ``CreateTestCaseResult`` bodies, one per model, for table ``table_fqn``.

    The test case ``<table_fqn>.<name>`` must exist (created once with a custom test definition,
    see docs/integrations.md); ``fqn`` says which one each result belongs to.
    """
    ts = int(verdict.evaluated_at.timestamp() * 1000)
    n = verdict.n_records
    out = []
    for m, name in zip(verdict.models, openmetadata_test_case_names(verdict), strict=True):
        values = [
            {"name": "value", "value": _num(m.value, m.unbounded)},
            {"name": "statistic", "value": m.statistic},
            {"name": "violatingClasses", "value": str(m.violating_classes)},
            {"name": "violatingRecords", "value": str(m.violating_records)},
            {"name": "classes", "value": str(verdict.n_classes)},
        ]
        if m.comparison:
            values.insert(1, {"name": "required", "value": f"{m.comparison} {_num(m.required)}"})
        if verdict.draft:
            values.append({"name": "draft", "value": "true"})
        body: dict[str, Any] = {
            "fqn": f"{table_fqn}.{name}",
            "timestamp": ts,
            "testCaseStatus": "Success" if m.passed else "Failed",
            "result": _summary(verdict, m),
            "testResultValue": values,
            "passedRows": n - m.violating_records,
            "failedRows": m.violating_records,
            "passedRowsPercentage": round(100.0 * (n - m.violating_records) / n, 4) if n else 100.0,
            "failedRowsPercentage": round(100.0 * m.violating_records / n, 4) if n else 0.0,
        }
        if m.required is not None and m.comparison in (">=",):
            body["minBound"] = float(m.required)
        elif m.required is not None:
            body["maxBound"] = float(m.required)
        out.append(body)
    return out
