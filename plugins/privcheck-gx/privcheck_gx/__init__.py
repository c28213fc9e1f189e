"""Great Expectations (GX Core 1.x) expectations for privacy models, computed by privcheck.

Importing this package registers the expectations and their metrics with GX::

    import great_expectations as gx
    import privcheck_gx

    suite.add_expectation(
        privcheck_gx.ExpectTableToBeKAnonymous(quasi_identifiers=["age", "zip"], k=5)
    )

Import it in every process that loads a saved suite *before* loading it: GX drops expectations of
unregistered types with only a log message, so a suite loaded without the import validates
nothing and "passes". ``get_suite`` loads a suite and refuses to hand back one that lost
expectations that way.
"""

from __future__ import annotations

import json
from typing import Any

from privcheck_gx.expectations import (
    EXPECTATIONS,
    ExpectTableToBeKAnonymous,
    ExpectTableToBeLDiverse,
    ExpectTableToBeTClose,
    ExpectTableToSatisfyPrivacyPolicy,
    PrivacyExpectation,
)

__version__ = "0.1.0"

__all__ = [
    "EXPECTATIONS",
    "ExpectTableToBeKAnonymous",
    "ExpectTableToBeLDiverse",
    "ExpectTableToBeTClose",
    "ExpectTableToSatisfyPrivacyPolicy",
    "PrivacyExpectation",
    "SuiteIncompleteError",
    "get_suite",
]


class SuiteIncompleteError(RuntimeError):
    """A stored suite came back with fewer expectations than it holds."""


def _stored_expectation_types(context: Any, name: str) -> list[str] | None:
    """Expectation types as stored (before GX drops unknown ones), when the store can tell."""
    store = getattr(context, "expectations_store", None)
    if store is None:
        return None
    try:
        key = store.get_key(name=name, id=None)
        raw = store._store_backend.get(key.to_tuple())
    except Exception:
        return None
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8")
    if isinstance(raw, str):
        raw = json.loads(raw)
    if not isinstance(raw, dict):
        return None
    return [e.get("type") for e in raw.get("expectations", [])]


def get_suite(context: Any, name: str, expected: int | None = None):
    """``context.suites.get(name)``, checked: no expectation may have been dropped on load.

    Compares the loaded suite with the stored one (and with ``expected``, when given) and
    raises ``SuiteIncompleteError`` naming the missing expectation types, instead of letting a
    suite that lost its privacy expectations validate nothing.
    """
    suite = context.suites.get(name)
    loaded = len(suite.expectations)
    stored = _stored_expectation_types(context, name)
    want = expected if expected is not None else (len(stored) if stored is not None else loaded)
    if loaded != want:
        have = {e.expectation_type for e in suite.expectations}
        missing = sorted({t for t in (stored or []) if t not in have})
        raise SuiteIncompleteError(
            f"suite {name!r} loaded {loaded} of {want} expectations"
            + (f"; missing types: {', '.join(missing)}" if missing else "")
            + " — import the package that defines them (e.g. privcheck_gx) before loading"
        )
    return suite
