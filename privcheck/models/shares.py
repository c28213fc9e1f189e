"""What the attribute-disclosure models share: each class's share q of a sensitive value against
the table's share p, per stored entry of the sparse class × value matrix.

β-likeness, δ-disclosure and (α,k)-anonymity are formulas over the pairs (q, p) of the values a
class holds; values a class does not hold (q = 0) never decide any of them (β-likeness bounds the
values with q > p, δ-disclosure the values present, (α,k) the largest share). So they run on the
stored entries only, with integer numerators: q/p = c·N / (n·T) and (q − p)/p = (c·N − n·T) /
(n·T), where c is the entry's count, n the class size, T the value's count in the table and N the
table's records. A quotient of exact integers rounds to the same double as the threshold the
user wrote when the two are equal, so a class exactly at β passes without any tolerance.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privcheck.classes import ClassTable, SensitiveCounts


@dataclass(eq=False)
class EntryShares:
    """Per stored entry: its class, count c, class size n, the value's table count T; and N."""

    entry_class: np.ndarray
    count: np.ndarray
    class_size: np.ndarray
    value_total: np.ndarray
    n_records: int

    def relative_gain(self) -> np.ndarray:
        """(q − p)/p = (c·N − n·T) / (n·T) per entry."""
        num = self.count * self.n_records - self.class_size * self.value_total
        return num / (self.class_size * self.value_total)

    def ratio(self) -> np.ndarray:
        """q/p = c·N / (n·T) per entry."""
        return (self.count * self.n_records) / (self.class_size * self.value_total)

    def table_share(self) -> np.ndarray:
        """p = T / N per entry."""
        return self.value_total / self.n_records


def entry_shares(s: SensitiveCounts, sizes: np.ndarray) -> EntryShares:
    """The integer ingredients of q and p for every stored entry of ``s``.

    Counts are integers (record counts, or an engine's weights summed); they stay int64 so the
    numerators above are exact up to N ≈ 9·10^7 records (c·N < 2^53 as a double afterwards).
    """
    cls = s.entry_class()
    counts = np.asarray(s.counts, dtype=np.int64)
    totals = np.bincount(s.values, weights=counts, minlength=s.n_values)
    totals = np.rint(totals).astype(np.int64)
    sizes = np.asarray(sizes, dtype=np.int64)
    return EntryShares(cls, counts, sizes[cls], totals[s.values], int(sizes.sum()))


def table_shares(table: ClassTable, name: str) -> EntryShares:
    """``entry_shares`` of attribute ``name`` of a class table: counted in records as above; in
    people, c is the class's people holding the value, n its people, T the table's people
    holding the value and N the table's people (so q and p are the chances that a person of the
    class, or of the table, holds it)."""
    s = table.sensitive[name]
    if table.members is None:
        return entry_shares(s, table.sizes)
    cls = s.entry_class()
    holders = np.rint(table.value_totals(name)).astype(np.int64)
    people = np.asarray(table.subjects, dtype=np.int64)
    return EntryShares(
        cls,
        np.asarray(s.counts, dtype=np.int64),
        people[cls],
        holders[s.values],
        int(table.n_individuals or 0),
    )


def class_max(values: np.ndarray, s: SensitiveCounts, empty: float = 0.0) -> np.ndarray:
    """The largest entry value of each class (``empty`` for a class without entries).

    Entries are grouped by class (CSR), so one ``maximum.reduceat`` over the class starts does it;
    reduceat misreads empty segments, which are patched afterwards.
    """
    out = np.full(s.n_classes, empty, dtype=float)
    lengths = np.diff(s.indptr)
    has = lengths > 0
    if len(values) and has.any():
        starts = s.indptr[:-1][has]
        out[has] = np.maximum.reduceat(np.asarray(values, dtype=float), starts)
    return out


def class_all(flags: np.ndarray, s: SensitiveCounts) -> np.ndarray:
    """Whether every entry of each class is true (true for a class without entries)."""
    bad = np.bincount(s.entry_class()[~flags], minlength=s.n_classes)
    return bad == 0
