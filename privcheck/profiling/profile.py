"""The profile of a table, column by column, and the figures of its draft: what
``privcheck init --format json`` prints and what the draft's steps fill in (``draft``,
``individual``, ``age_like``, ``postcodes``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from privcheck.profiling import hierarchies
from privcheck.profiling.preview import Preview


@dataclass
class ColumnProfile:
    """What the profile says of one column (the keys of ``privcheck init --format json``)."""

    name: str
    type: str
    distinct: int
    missing_share: float
    unique_share: float
    pattern: str | None
    role: str
    reason: str
    review: bool
    hierarchy: dict[str, Any] | None = None
    #: the built hierarchy (table rows, file separator), for ``write_draft``
    built: hierarchies.Built | None = field(default=None, repr=False)
    #: the column's missing values (``missing: own_class`` when it is a QI or sensitive)
    n_missing: int = field(default=0, repr=False)
    #: what the rules read the column as (age, birth, postal …) and whether a catalog tag set
    #: its role
    concept: str | None = field(default=None, repr=False)
    tagged: bool = field(default=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "distinct": self.distinct,
            "missing_share": round(self.missing_share, 6),
            "unique_share": round(self.unique_share, 6),
            "pattern": self.pattern,
            "role": self.role,
            "reason": self.reason,
            "review": self.review,
            "hierarchy": self.hierarchy,
        }


@dataclass
class Profile:
    """The profile of a table and the draft's figures."""

    source: str | None
    rows: int
    columns: list[ColumnProfile]
    sample_size: int
    k: int
    l: int  # noqa: E741
    suppression_limit: float
    missing: str | None
    #: records unique on the drafted quasi-identifiers (None: the check was not run)
    unique_records: int | None = None
    #: what ``privcheck check`` says of the table under the draft
    check: dict[str, Any] | None = None
    #: what ``privcheck anonymize`` will cost: ``auto`` on a row sample (None: not run)
    preview: Preview | None = None
    seconds: float = 0.0
    #: what the draft changed from what was asked (a k lowered to the records there are), and
    #: the warnings
    notes: list[str] = field(default_factory=list)
    #: what the user must hear even with --quiet (tags of columns the data does not have);
    #: each is also one of the notes
    warnings: list[str] = field(default_factory=list)
    #: the policy file and hierarchy files written (``write_draft``)
    policy_path: str | None = None
    hierarchy_files: list[str] = field(default_factory=list)
    #: the column that identifies the person when people have several rows (``individual``)
    individual: str | None = None
    #: why it was drafted (the policy line's comment)
    individual_reason: str | None = None

    @property
    def quasi_identifiers(self) -> list[str]:
        return [c.name for c in self.columns if c.role == "quasi_identifier"]

    def column(self, name: str) -> ColumnProfile:
        return next(c for c in self.columns if c.name == name)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "rows": self.rows,
            "sample_size": self.sample_size,
            "policy": self.policy_path,
            "hierarchy_files": self.hierarchy_files,
            "k": self.k,
            "l": self.l,
            "suppression_limit": self.suppression_limit,
            "missing": self.missing or "error",
            "quasi_identifiers": self.quasi_identifiers,
            "individual": self.individual,
            "unique_records": self.unique_records,
            "check": self.check,
            "preview": None if self.preview is None else self.preview.to_dict(),
            "notes": self.notes,
            "seconds": round(self.seconds, 4),
            "columns": [c.to_dict() for c in self.columns],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False)
