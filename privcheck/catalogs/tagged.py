"""The policy a catalog check runs: a base policy whose roles the catalog's column tags override.

``privcheck catalog check`` takes the models, suppression and hierarchies from a base policy
file and the roles from the tags the data's owners put on the columns in the catalog (the tag
vocabulary of ``privcheck.api.policy_from_tags``: ``PII:Quasi-Identifier`` …, OpenMetadata's
classifications, DataHub tag URNs as they are). The tags win: a column tagged sensitive is
sensitive whatever the base says. A quasi-identifier left without a hierarchy gets the one
``privcheck init`` would draft for it (the same profile, the same roles), and a column tagged as
personal data of an unsaid role gets an open ``review:`` entry — a draft, which is refused as
``privcheck check`` refuses it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from privcheck.errors import DataError, PolicyError
from privcheck.policy import Policy, load_policy, parse_policy
from privcheck.profiling.tags import DEFAULT_TAG_ROLES, REVIEW, normalise_tag, roles_of

if TYPE_CHECKING:
    from privcheck.api import Verdict
    from privcheck.catalogs.base import Catalog, CatalogDataset

#: the tag of privcheck's own vocabulary that names each role (how a role is handed to the
#: profile of ``init`` when it drafts a hierarchy)
ROLE_TAGS = {
    "identifier": "PII:Identifier",
    "quasi_identifier": "PII:Quasi-Identifier",
    "sensitive": "PII:Sensitive",
    "insensitive": "PII:Insensitive",
}
#: the fields of an attribute that only a quasi-identifier or sensitive attribute carries
_GENERALISING = ("hierarchy", "top_coding", "bottom_coding", "order")


def tag_roles(dataset: CatalogDataset) -> dict[str, str]:
    """Column → the role its catalog tags name (``review`` for personal data of an unsaid
    role); columns without a role tag are left out. Two role tags on one column: one line."""
    roles = {normalise_tag(t): r for t, r in DEFAULT_TAG_ROLES.items()}
    out = {}
    for column, tags in dataset.tags.items():
        found = roles_of(tags, roles)
        if len(found) > 1:
            raise PolicyError(
                f"column {column!r} of {dataset.reference} carries tags for several roles "
                f"({', '.join(found)}) in the catalog; keep one role tag per column"
            )
        if found:
            out[column] = found[0]
    return out


def _require_columns(dataset: CatalogDataset, base: Policy) -> None:
    """Every column the base policy names is in the catalog's schema of the dataset."""
    known = set(dataset.columns)
    named = [*base.attributes, *([base.individual] if base.individual else [])]
    absent = [c for c in named if c not in known]
    if absent:
        raise DataError(
            f"the catalog's schema of {dataset.reference} has no column {absent[0]!r}, which "
            f"the policy names{f' (nor {len(absent) - 1} more)' if len(absent) > 1 else ''}; "
            "check that the URN names the right dataset, or fix the policy's column names"
        )


def tagged_policy(
    dataset: CatalogDataset,
    base: Policy,
    data_columns: Sequence[str],
) -> tuple[Policy, list[str]]:
    """The base policy with the roles of ``dataset``'s tags (hierarchies not yet drafted) and
    the notes to print: a tagged column the data does not hold is left out (the catalog
    describes the table; an extract may leave columns out)."""
    _require_columns(dataset, base)
    data = base.model_dump(mode="json")
    attributes: dict[str, dict[str, Any]] = data["attributes"]
    present = set(data_columns)
    notes = []
    for column, role in tag_roles(dataset).items():
        if column not in present and column not in attributes:
            notes.append(
                f"column {column!r} is tagged {role} in the catalog but the data has no such "
                "column: left out of the check"
            )
            continue
        if column == base.individual:
            continue  # (the person key is counted, never an attribute)
        entry = dict(attributes.get(column) or {"role": "insensitive"})
        if role == REVIEW:
            tags = ", ".join(dataset.tags[column])
            entry["review"] = (
                f"tagged {tags} in the catalog: personal data whose role the tag does not say "
                "— tag the column with its role (PII:Identifier, PII:Quasi-Identifier, "
                "PII:Sensitive or PII:Insensitive)"
            )
        elif entry["role"] != role:
            entry["role"] = role
            if role in ("identifier", "insensitive"):
                for key in _GENERALISING:
                    entry.pop(key, None)
        attributes[column] = entry
    return parse_policy(data, base_dir=base.base_dir), notes


def with_drafted_hierarchies(policy: Policy, source: str | Path) -> Policy:
    """``policy`` with a hierarchy for every quasi-identifier that has none: the one
    ``privcheck init`` drafts for the column when its roles are the policy's."""
    bare = [
        name
        for name, attr in policy.attributes.items()
        if attr.role == "quasi_identifier" and attr.hierarchy is None
    ]
    if not bare:
        return policy
    from privcheck.io import read_table
    from privcheck.profiling.columns import plain_columns
    from privcheck.profiling.draft import draft_policy

    table = read_table(source, dictionary=True, arrow=True, plain=plain_columns(source))
    tags = {
        name: [ROLE_TAGS[attr.role]]
        for name, attr in policy.attributes.items()
        if attr.review is None and name in table.column_names
    }
    k = next((m.k for m in policy.models if m.model == "k-anonymity"), None)
    k = None if k is None else max(1, min(int(k), table.num_rows))
    try:
        draft = draft_policy(table, k=k, tags=tags, check=False, preview_rows=0)
    except PolicyError as exc:
        raise PolicyError(f"drafting a hierarchy for {bare[0]!r}: {exc}") from None
    drafted = {c.name: c.hierarchy for c in draft.profile.columns if c.hierarchy is not None}
    data = policy.model_dump(mode="json")
    for name in bare:
        if name in drafted:
            data["attributes"][name]["hierarchy"] = drafted[name]
    return parse_policy(data, base_dir=policy.base_dir)


def data_columns(source: str | Path) -> list[str]:
    """The columns of a CSV/TSV or Parquet file, read from its header alone."""
    from privcheck.io import csv_header, encoding_for, require_regular_file, sniff_delimiter

    path = require_regular_file(source, "data file")
    if path.suffix.lower() in (".parquet", ".pq"):
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            return list(pq.read_schema(path).names)
        except (OSError, pa.ArrowException) as exc:
            raise DataError(f"cannot read {path} as Parquet: {exc}") from None
    encoding = encoding_for(path)
    return csv_header(path, sniff_delimiter(path, encoding), encoding)


def check_in_catalog(
    catalog: Catalog,
    reference: str,
    data: str | Path,
    base_policy: str | Path | Policy,
    *,
    allow_draft: bool = False,
    write: bool = True,
) -> tuple[Verdict, list[str]]:
    """Read ``reference``'s tags from ``catalog``, check ``data`` against the tagged policy and
    write the Verdict back: ``(verdict, notes)``. Everything that can be refused is refused
    before anything is written (an unknown dataset, a schema without the policy's columns, a
    draft, data the check refuses)."""
    from privcheck.api import evaluate

    base = load_policy(base_policy)
    columns = data_columns(data)
    dataset = catalog.read_dataset(reference)
    policy, notes = tagged_policy(dataset, base, columns)
    policy.require_decided(allow_draft=allow_draft, where=f"the tags of {reference}")
    policy = with_drafted_hierarchies(policy, data)
    verdict = evaluate(data, policy, name=reference, allow_draft=allow_draft)
    if write:
        catalog.write_verdict(reference, verdict)
    return verdict, notes
