"""Expectation parameters → a privcheck Policy, and a check's outcome → a GX result.

Nothing here imports Great Expectations: the expectations only translate their parameters into
the policy privcheck already understands, so every number comes from the one engine
(``privcheck.check``) and the validation rules (ranges, required combinations) are privcheck's
own, reported under the expectation's parameter names.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from privcheck.errors import PolicyError
from privcheck.models.kanonymity import KAnonymityConfig
from privcheck.models.ldiversity import LDiversityConfig
from privcheck.models.tcloseness import TClosenessConfig
from privcheck.pipeline.check import check
from privcheck.policy import Policy, load_policy, parse_policy
from privcheck.report import Report, requirement

#: violating classes listed per model in a result (counts are always complete)
DEFAULT_MAX_VIOLATORS = 10
#: record numbers listed per violating class
MAX_RECORDS = 20


def _config(cls: type, entry: dict[str, Any]) -> None:
    """Validate one model entry, naming the offending parameter as the expectation spells it."""
    try:
        cls.model_validate(entry)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        given = err.get("input")
        if loc and not isinstance(given, dict):
            msg = f"{loc}: {msg}; got {given!r}"
        raise PolicyError(msg) from None


def _qis(quasi_identifiers: list[str], sensitive: str | None = None) -> dict[str, Any]:
    if not quasi_identifiers:
        raise PolicyError("quasi_identifiers: name at least one column")
    dupes = sorted({q for q in quasi_identifiers if quasi_identifiers.count(q) > 1})
    if dupes:
        raise PolicyError(f"quasi_identifiers: column {dupes[0]!r} is listed twice")
    if sensitive is not None and sensitive in quasi_identifiers:
        raise PolicyError(
            f"attribute: {sensitive!r} is also a quasi-identifier; a column has one role"
        )
    return {q: {"role": "quasi_identifier"} for q in quasi_identifiers}


def k_anonymity_policy(quasi_identifiers: list[str], k: int) -> Policy:
    entry = {"model": "k-anonymity", "k": k}
    _config(KAnonymityConfig, entry)
    return parse_policy({"attributes": _qis(quasi_identifiers), "models": [entry]})


def l_diversity_policy(
    quasi_identifiers: list[str],
    attribute: str,
    l: float,  # noqa: E741
    variant: str = "distinct",
    c: float | None = None,
) -> Policy:
    if variant == "recursive" and c is None:
        raise PolicyError("c: recursive (c,l)-diversity needs the parameter c (> 0)")
    if variant != "recursive" and c is not None:
        raise PolicyError(f"c: applies to recursive l-diversity only, not to {variant}")
    if variant in ("distinct", "recursive") and not float(l).is_integer():
        raise PolicyError(f"l: must be a whole number for {variant} l-diversity; got {l}")
    entry = {"model": "l-diversity", "attribute": attribute, "l": l, "variant": variant}
    if c is not None:
        entry["c"] = c
    _config(LDiversityConfig, entry)
    attributes = {**_qis(quasi_identifiers, attribute), attribute: {"role": "sensitive"}}
    return parse_policy({"attributes": attributes, "models": [entry]})


def t_closeness_policy(
    quasi_identifiers: list[str],
    attribute: str,
    t: float,
    distance: str = "equal",
    hierarchy: str | list[list[str]] | None = None,
) -> Policy:
    entry = {"model": "t-closeness", "attribute": attribute, "t": t, "distance": distance}
    _config(TClosenessConfig, entry)
    sensitive: dict[str, Any] = {"role": "sensitive"}
    if hierarchy is not None:
        if isinstance(hierarchy, str):
            path = Path(hierarchy)
            if not path.is_file():
                raise PolicyError(f"hierarchy: file not found: {hierarchy}")
            sensitive["hierarchy"] = {"type": "table", "path": str(path.resolve())}
        else:
            rows = [[str(v) for v in row] for row in hierarchy]
            if not rows or any(len(r) != len(rows[0]) or not r for r in rows):
                raise PolicyError(
                    "hierarchy: give one row per value, every row with the same number of levels"
                )
            sensitive["hierarchy"] = {"type": "table", "rows": rows}
    elif distance == "hierarchical":
        raise PolicyError(
            "hierarchy: hierarchical distance needs the attribute's hierarchy (rows of "
            "value;level1;… or the path of an ARX-style CSV file)"
        )
    attributes = {**_qis(quasi_identifiers, attribute), attribute: sensitive}
    return parse_policy({"attributes": attributes, "models": [entry]})


def policy_param(policy: str | dict[str, Any], allow_draft: bool = False) -> Policy:
    """The ``policy`` parameter: a policy file path, or the policy as a mapping. A draft (columns
    still marked ``review:``) is refused unless ``allow_draft`` — when the expectation is
    written, and again when it runs (the file may have changed since)."""
    try:
        if isinstance(policy, str | Path):
            loaded = load_policy(policy)
        elif isinstance(policy, dict):
            loaded = parse_policy(policy)
        else:
            raise PolicyError(f"give a policy file path or a mapping; got {type(policy).__name__}")
        loaded.require_decided(allow_draft=bool(allow_draft))
    except PolicyError as exc:
        raise PolicyError(f"policy: {exc}") from None
    return loaded


def summarise(report: Report, max_violators: int = DEFAULT_MAX_VIOLATORS) -> dict[str, Any]:
    """The JSON-able outcome a metric hands to its expectation (violators capped)."""
    models = []
    for m in report.models:
        req = requirement(m.model, m.params)
        models.append(
            {
                "model": m.model,
                "params": m.params,
                "passed": m.passed,
                "value": m.value,
                "unbounded": m.unbounded,
                "statistic": m.statistic,
                "required": None if req is None else req[0],
                "comparison": None if req is None else req[1],
                "violating_classes": m.violating_classes,
                "violating_records": m.violating_records,
                "violators": [
                    {**v.model_dump(exclude={"records"}), "records": v.records[:MAX_RECORDS]}
                    for v in m.violators[:max_violators]
                ],
            }
        )
    return {
        "passed": report.passed,
        "n_records": report.n_records,
        "n_classes": report.n_classes,
        "quasi_identifiers": report.quasi_identifiers,
        "models": models,
        "identifiers_present": report.identifiers_present,
        "n_suppressed": report.n_suppressed,
        "suppression_ok": report.suppression_ok,
        "findings": report.findings(),
        "draft": report.draft,
        "open_reviews": report.open_reviews,
    }


def evaluate_frame(
    frame: Any,
    policy: Policy,
    max_violators: int = DEFAULT_MAX_VIOLATORS,
    allow_draft: bool = False,
) -> dict[str, Any]:
    """Check a frame (pandas in process; a Spark DataFrame through its engine): the summary.
    A draft policy is refused unless ``allow_draft`` (the summary then says ``draft``)."""
    report = check(
        frame, policy, max_violators=max_violators, details=False, allow_draft=allow_draft
    )
    return summarise(report, max_violators)
