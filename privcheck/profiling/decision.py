"""What a role rule returns — the role, its reason, whether a person must review it, the
concept — and how a reason says a share of the values (``pct``, ``sampled``).
"""

from __future__ import annotations

from dataclasses import dataclass

from privcheck.profiling.columns import ColumnData


@dataclass
class Decision:
    """A column's drafted role."""

    role: str
    reason: str
    review: bool = False
    #: what the column is (age, sex, postal, birth, date, health …): the hierarchy builder's cue
    concept: str | None = None
    #: the first detected pattern (the profile's ``pattern``)
    pattern: str | None = None


def pct(share: float) -> str:
    """A share as a percentage the way a reader says it (99 %, 0.4 %, 100 % only when all)."""
    value = 100.0 * share
    if value == 0 or value >= 99.95:
        return f"{value:.0f} %"
    if value >= 10:
        return f"{min(round(value), 99)} %"
    return f"{value:.1f} %"


def sampled(col: ColumnData) -> str:
    """How a reason names the values it read: the sample's size when only a sample was read."""
    return f"{col.sample_size:,} sampled values" if col.sample_size < col.n_present else "values"
