"""The DataHub assertions a privcheck expectation's result stands for.

privcheck records a check in DataHub as one assertion per privacy model, under one URN scheme
(``privcheck.catalog.assertion_urn``: dataset URN, model, parameters). A GX result of a
privcheck expectation carries the models it evaluated and their parameters, so its assertions
are the same ones ``privcheck catalog check`` writes for the same dataset and policy: a pipeline
that validates with GX and records with privcheck's DataHub back-end (or ``to_datahub``) never
creates two assertions for one check.

(DataHub's own GX action, ``acryl-datahub-gx-plugin``'s ``DataHubValidationAction``, names its
assertions by a guid of the expectation's configuration instead: use one or the other for a
dataset, not both — docs/integrations.md says which when.)
"""

from __future__ import annotations

from typing import Any

from privcheck.catalog import assertion_urn


def _details(result: Any) -> dict[str, Any]:
    """The ``result.details`` of an ExpectationValidationResult (or of its JSON dict)."""
    if not isinstance(result, dict):
        result = result.to_json_dict()
    return dict((result.get("result") or {}).get("details") or {})


def models_of(result: Any) -> list[tuple[str, dict[str, Any]]]:
    """(model, parameters) of every privacy model a privcheck expectation's result evaluated."""
    details = _details(result)
    if "models" in details:
        return [(m["model"], dict(m["params"])) for m in details["models"]]
    if "model" in details:
        return [(details["model"], dict(details["params"]))]
    raise ValueError("not the result of a privcheck expectation (no models in its details)")


def assertion_urns(result: Any, dataset_urn: str) -> list[str]:
    """The DataHub assertion URN of each model of ``result`` for the dataset ``dataset_urn``:
    the URNs ``privcheck catalog check`` uses for the same models and parameters."""
    return [assertion_urn(dataset_urn, model, params) for model, params in models_of(result)]
