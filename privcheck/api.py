"""The calls a data catalog (or any host system) makes: dataset + policy → Verdict.

A catalog does not want privcheck's full report; it records one result per dataset and policy,
shows it next to the dataset and keeps its history. The ``Verdict`` is that result: small, with
a stable JSON form (``schemas/verdict.schema.json``, ``schema_version`` bumped on any breaking
change), naming the policy by digest so that a changed policy is visibly a different check.

Catalogs that only know column tags get a policy from ``policy_from_tags``; adapters that turn a
Verdict into a catalog's own assertion/test-result payload live in ``privcheck.catalog``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import pandas as pd
from pydantic import BaseModel, Field

from privcheck.checker import check
from privcheck.errors import PolicyError
from privcheck.policy import Policy, Role, load_policy, parse_policy
from privcheck.profiling.tags import (
    DEFAULT_TAG_ROLES,
    REVIEW,
    normalise_tag,
    roles_of,
    tag_role,
)
from privcheck.report import Report, mark_draft, requirement
from privcheck.version import __version__

VERDICT_SCHEMA_VERSION = "1"


class ModelVerdict(BaseModel):
    """One privacy model's outcome: what was required, what the data achieves."""

    model: str = Field(description="Model name, e.g. k-anonymity")
    params: dict[str, Any] = Field(description="The model's parameters from the policy")
    passed: bool
    value: float | list[float] | None = Field(
        description="The level the data achieves; null when unbounded or when there is no "
        "class; a [min, max] pair for delta-presence"
    )
    unbounded: bool = Field(
        False, description="The worst class's statistic is infinite (value is then null)"
    )
    statistic: str = Field(description="What value measures: class size, distinct values, EMD …")
    required: float | None = Field(
        description="The bound value is compared with (k, l, c, t, β, δ or α); null for plugin "
        "models"
    )
    comparison: Literal[">=", "<=", "<"] | None = Field(
        description="value <comparison> required must hold; null for plugin models"
    )
    violating_classes: int = Field(ge=0)
    violating_records: int = Field(ge=0)


class Verdict(BaseModel):
    """A dataset's compliance with a policy, as a catalog records it."""

    schema_version: Literal["1"] = VERDICT_SCHEMA_VERSION
    dataset: str = Field(description="Dataset name or URN, as the caller identifies it")
    policy_digest: str = Field(
        pattern=r"^sha256:[0-9a-f]{64}$",
        description="sha256 of the policy's canonical JSON: equal digests, same policy",
    )
    policy_version: str | None = Field(None, description="The caller's own policy version label")
    passed: bool
    n_records: int = Field(ge=0)
    n_individuals: int | None = Field(
        None,
        ge=0,
        description="Distinct people (the policy's individual column); null when the policy "
        "names no individual and classes count records",
    )
    n_classes: int = Field(ge=0)
    quasi_identifiers: list[str]
    models: list[ModelVerdict]
    identifiers_present: list[str] = Field(
        default_factory=list,
        description="Identifier columns the dataset still holds: the verdict fails (a release "
        "must not carry them)",
    )
    n_suppressed: int = Field(
        0, ge=0, description="Records written as suppressed ('*' rows, suppressed_records: star)"
    )
    suppression_ok: bool = Field(
        True, description="The suppressed records are within the policy's suppression limit"
    )
    draft: bool = Field(
        False,
        description="The policy was a draft (columns still marked review:) evaluated with "
        "allow_draft=True: this verdict does not mean the release is safe",
    )
    open_reviews: list[str] = Field(
        default_factory=list,
        description="The columns whose role is still to be decided (the policy's review: "
        "entries); empty unless draft",
    )
    evaluated_at: datetime = Field(description="When the check ran (UTC)")
    privcheck_version: str = __version__

    def to_json(self) -> str:
        return self.model_dump_json(indent=2)


def policy_digest(policy: Policy) -> str:
    """sha256 over the policy's canonical JSON (sorted keys, defaults included, no whitespace).

    Hierarchies given by path are identified by the path, not the file's content. An
    attribute's open decision (``review``) is part of the policy; its absence is not written,
    so a decided policy keeps the digest it had before open decisions were data.
    """
    dumped = policy.model_dump(mode="json")
    # fields added later are left out at their defaults: a policy that does not use them keeps
    # the digest it always had
    for attr in dumped.get("attributes", {}).values():
        if attr.get("review") is None:
            attr.pop("review", None)
    for key, default in (("individual", None), ("pseudonymize_individual", False)):
        if dumped.get(key, default) == default:
            dumped.pop(key, None)
    canonical = json.dumps(dumped, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def verdict_from_report(
    report: Report, policy: Policy, dataset: str, policy_version: str | None = None
) -> Verdict:
    """Condense a check report into a Verdict."""
    models = []
    for m in report.models:
        req = requirement(m.model, m.params)
        models.append(
            ModelVerdict(
                model=m.model,
                params=m.params,
                passed=m.passed,
                value=m.value,
                unbounded=m.unbounded,
                statistic=m.statistic,
                required=None if req is None else req[0],
                comparison=None if req is None else req[1],
                violating_classes=m.violating_classes,
                violating_records=m.violating_records,
            )
        )
    verdict = Verdict(
        dataset=dataset,
        policy_digest=policy_digest(policy),
        policy_version=policy_version,
        passed=report.passed,
        n_records=report.n_records,
        n_individuals=report.n_individuals,
        n_classes=report.n_classes,
        quasi_identifiers=report.quasi_identifiers,
        models=models,
        identifiers_present=report.identifiers_present,
        n_suppressed=report.n_suppressed,
        suppression_ok=report.suppression_ok,
        evaluated_at=datetime.now(UTC),
    )
    return mark_draft(verdict, policy)


def _dataset_name(dataset: pd.DataFrame | str | Path, name: str | None) -> str:
    if name is not None:
        return name
    if isinstance(dataset, pd.DataFrame):
        return str(dataset.attrs.get("name", "dataframe"))
    return Path(dataset).name


def evaluate(
    dataset: pd.DataFrame | str | Path,
    policy: Policy | dict | str | Path,
    *,
    name: str | None = None,
    policy_version: str | None = None,
    allow_empty: bool = False,
    allow_draft: bool = False,
) -> Verdict:
    """Check ``dataset`` against ``policy`` and return the catalog's Verdict.

    ``name`` identifies the dataset in the Verdict (default: the file name, or the DataFrame's
    ``attrs["name"]``); ``policy_version`` is recorded as given. A dataset without records is
    refused (``DataError``) unless ``allow_empty``; a draft policy (columns still marked
    ``review:``) is refused (``PolicyError``) unless ``allow_draft``, and the Verdict then says
    ``draft: true``.
    """
    policy = load_policy(policy)
    policy.require_decided(allow_draft=allow_draft)
    report = check(dataset, policy, details=False, allow_empty=allow_empty, allow_draft=True)
    return verdict_from_report(report, policy, _dataset_name(dataset, name), policy_version)


#: the attacks ``evaluate_synthetic`` runs by default: the three risks of the Article 29 Working
#: Party's opinion and membership inference
SYNTHETIC_ATTACKS = ("membership-inference", "singling-out", "linkability", "inference")

#: what each attack's value in a synthetic table's Verdict measures
_SYNTHETIC_STATISTIC = {
    "membership-inference": "membership-inference advantage (TPR − FPR) over the control set",
    "singling-out": "singling-out risk over the control set (Anonymeter's definition)",
    "linkability": "linkability risk over the control set (Anonymeter's definition)",
    "inference": "inference risk over the control set (Anonymeter's definition)",
}


def evaluate_synthetic(
    original: pd.DataFrame | str | Path,
    synthetic: pd.DataFrame | str | Path,
    control: pd.DataFrame | str | Path,
    policy: Policy | dict | str | Path,
    *,
    attacks: Sequence[str] = SYNTHETIC_ATTACKS,
    name: str | None = None,
    policy_version: str | None = None,
    seed: int | None = None,
    params: Mapping[str, Mapping[str, Any]] | None = None,
    allow_draft: bool = False,
) -> Verdict:
    """The Verdict of a synthetic table: one entry per attack (inference: per sensitive
    attribute), its value the risk (membership inference: the advantage) over what the control
    set gives, bounded by the policy's ``synthetic_risk.max_risk``.

    ``original`` holds the generator's training rows, ``control`` records of the same
    population it never saw (`privcheck.risk.synthetic`). Without ``synthetic_risk`` in the
    policy every entry passes and carries its value (``required`` null). ``params`` gives an
    attack's parameters by name (``{"linkability": {"n_attacks": 1000}}``); ``seed`` makes the
    run reproducible and is not written into the Verdict. A draft policy is refused unless
    ``allow_draft`` (as ``evaluate``).
    """
    from privcheck.io import read_table
    from privcheck.plugins import risk_registry
    from privcheck.risk.assess import assess

    policy = load_policy(policy)
    policy.require_decided(allow_draft=allow_draft)
    frames = [read_table(x) for x in (original, synthetic, control)]
    registry = risk_registry()
    bound = policy.synthetic_risk.max_risk if policy.synthetic_risk is not None else None
    models: list[ModelVerdict] = []
    for attack in attacks:
        measure = registry.get(attack)
        if measure is None or not getattr(measure, "takes_control", False):
            raise PolicyError(
                f"{attack!r} is not an attack on a synthetic table; choose from "
                f"{', '.join(SYNTHETIC_ATTACKS)}"
            )
        report = assess(
            frames[0],
            frames[1],
            policy.quasi_identifiers,
            measure,
            dict((params or {}).get(attack, {})),
            seed=seed,
            policy=policy,
            control=frames[2],
        )
        key = "advantage" if attack == "membership-inference" else "risk"
        entries = (
            report.figures["attributes"].items()
            if attack == "inference"
            else [(None, report.figures)]
        )
        for attribute, fig in entries:
            value = float(fig[key])
            models.append(
                ModelVerdict(
                    model=attack,
                    params={"attribute": attribute} if attribute else {},
                    passed=bound is None or value <= bound,
                    value=value,
                    statistic=_SYNTHETIC_STATISTIC[attack],
                    required=bound,
                    comparison="<=" if bound is not None else None,
                    violating_classes=0,
                    violating_records=0,
                )
            )
    verdict = Verdict(
        dataset=_dataset_name(synthetic, name),
        policy_digest=policy_digest(policy),
        policy_version=policy_version,
        passed=all(m.passed for m in models),
        n_records=len(frames[1]),
        n_classes=0,
        quasi_identifiers=policy.quasi_identifiers,
        models=models,
        evaluated_at=datetime.now(UTC),
    )
    return mark_draft(verdict, policy)


def verdict_json_schema() -> dict[str, Any]:
    """JSON Schema of the Verdict (committed as ``schemas/verdict.schema.json``)."""
    schema = Verdict.model_json_schema(mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "privcheck verdict"
    return schema


# --------------------------------------------------------------------------- remediation


def remediate(
    dataset: pd.DataFrame | str | Path,
    policy: Policy | dict | str | Path,
    algorithm: str = "mingen",
    *,
    name: str | None = None,
    policy_version: str | None = None,
    allow_draft: bool = False,
    **options: Any,
) -> tuple[pd.DataFrame, Verdict]:
    """Anonymize ``dataset`` so that ``policy`` holds; return the release and its Verdict.

    The Verdict comes from an independent check of the release with the same policy (not from
    the anonymizer's own bookkeeping) — exactly what ``evaluate`` or ``privcheck check`` says of
    the written release — so what the catalog records is what the released rows satisfy.
    Every random choice draws from the operating system's entropy unless ``seed=`` is given
    (tests); the seed is in neither the release nor the Verdict. A draft policy (columns
    still marked ``review:``) is refused (``PolicyError``) unless ``allow_draft``; the Verdict
    then says ``draft: true``.
    """
    from privcheck.anonymizers.api import anonymize

    policy = load_policy(policy)
    policy.require_decided(allow_draft=allow_draft)
    release, _ = anonymize(dataset, policy, algorithm=algorithm, allow_draft=True, **options)
    # a release whose every record was suppressed is what the policy allowed: a vacuous pass
    report = check(release, policy, details=False, allow_empty=True, allow_draft=True)
    name = name or _dataset_name(dataset, None)
    return release, verdict_from_report(report, policy, name, policy_version)


# --------------------------------------------------------------------------- tags → policy


def policy_from_tags(
    columns: Mapping[str, Sequence[str]],
    *,
    models: Sequence[Mapping[str, Any]],
    mapping: Mapping[str, str] | None = None,
    default_hierarchies: Mapping[str, Mapping[str, Any]] | None = None,
    untagged: Literal["insensitive", "ignore"] = "insensitive",
    suppression_limit: float = 0.0,
) -> Policy:
    """A policy from a catalog's column tags: ``{"age": ["pii:quasi-identifier"], ...}``.

    ``mapping`` (tag → role; default ``DEFAULT_TAG_ROLES``: privcheck's ``PII:…`` tags and
    OpenMetadata's ``PII`` and ``PersonalData`` classifications) is how a catalog's own tag
    names — a custom OpenMetadata classification such as ``Privacy.QuasiIdentifier``, a DataHub
    tag URN — map to roles; a role may be ``"review"``: personal data whose role the tag does
    not say (OpenMetadata's ``PersonalData.Personal``) becomes an insensitive attribute with an
    open ``review:`` decision, so every gate refuses the policy until a person decides it.
    ``default_hierarchies`` gives a hierarchy spec per column (the policy's ``hierarchy``
    field); ``models`` the privacy models, as in a policy file. Columns without a role tag
    become insensitive (or are left out with ``untagged="ignore"``); a column with two role
    tags is an error.
    """
    roles = {normalise_tag(t): r for t, r in (mapping or DEFAULT_TAG_ROLES).items()}
    bad = sorted({r for r in roles.values() if r not in Role.__members__ and r != REVIEW})
    if bad:
        raise PolicyError(
            f"tag mapping names unknown role {bad[0]!r}; roles are "
            f"{', '.join(Role.__members__)} (or {REVIEW!r}: a person decides)"
        )
    hierarchies = dict(default_hierarchies or {})
    attributes: dict[str, dict[str, Any]] = {}
    for column, tags in columns.items():
        if isinstance(tags, str):
            tags = [tags]
        found = roles_of(tags, roles)
        if len(found) > 1:
            raise PolicyError(
                f"column {column!r} carries tags for several roles ({', '.join(found)}); "
                "keep one role tag per column"
            )
        if not found and untagged == "ignore":
            continue
        entry: dict[str, Any] = {"role": found[0] if found else "insensitive"}
        if entry["role"] == REVIEW:
            said = ", ".join(t for t in tags if tag_role(t, roles) == REVIEW)
            entry = {
                "role": "insensitive",
                "review": f"tagged {said} in the catalog: personal data whose role the tag "
                "does not say — set its role (identifier, quasi_identifier, sensitive or "
                "insensitive), then delete this review entry",
            }
        if column in hierarchies and entry["role"] in ("quasi_identifier", "sensitive"):
            entry["hierarchy"] = dict(hierarchies[column])
        attributes[column] = entry
    unknown = sorted(set(hierarchies) - set(columns))
    if unknown:
        raise PolicyError(
            f"default_hierarchies names column {unknown[0]!r}, which is not among the tagged "
            "columns; fix the column name"
        )
    if not any(a["role"] == "quasi_identifier" for a in attributes.values()):
        raise PolicyError(
            "no column is tagged as a quasi-identifier (tags: "
            + ", ".join(sorted(roles))
            + "); tag the columns an intruder could link on"
        )
    return parse_policy(
        {
            "attributes": attributes,
            "models": [dict(m) for m in models],
            "suppression_limit": suppression_limit,
        }
    )
