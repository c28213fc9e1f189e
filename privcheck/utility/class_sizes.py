"""The classes of a release, their discernibility and AECS (the formulas of
``privcheck.metrics.generalization.discernibility`` / ``average_class_size``).

Where the release file and its policy are at hand (``privcheck compare``), the classes are the
ones ``privcheck check`` forms (``class_counts``): ``privcheck.checker.released_rows`` decides
which rows are suppressed records — under ``suppressed_records: star`` the all-``*`` rows, under
``remove`` none, an all-``*`` row being one more class (local suppression's all-``*`` class) —
and the records a release leaves out are suppressed records too, as the anonymizer that left
them out counts them. A class's size is read as the policy's ``suppressed_cells`` reads it: its
records under ``category``, its compatible records under ``wildcard`` (``*`` matches every
value) — as local suppression's own metrics read it, so that ``compare`` ranks releases by the
figures ``--algorithm auto`` ranked them by.

A recoding without a policy (the anonymization report's ``utility`` block, fed the release in
input order with every suppressed record written as ``*``) falls back to reading each all-``*``
row as a suppressed record and ``*`` as one more value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privcheck.metrics.generalization import average_class_size, discernibility
from privcheck.utility.recoding import Recoding


@dataclass(frozen=True)
class ClassCounts:
    """A release's classes as a check forms them, over the original's ``n_records``."""

    #: records of each class
    sizes: np.ndarray
    #: the size the policy reads for each class (``sizes`` under ``category``)
    effective: np.ndarray
    #: suppressed records: the ``*`` rows a check counts plus the records left out
    n_suppressed: int
    #: the original's records (N of the formulas)
    n_records: int

    @property
    def n_classes(self) -> int:
        return len(self.sizes)

    def discernibility(self) -> float:
        """Σ records × the size of their class + suppressed · N (Σ size² under ``category``)."""
        if np.array_equal(self.sizes, self.effective):
            return discernibility(self.sizes, self.n_records, self.n_suppressed)
        s, e = self.sizes.astype(np.float64), self.effective.astype(np.float64)
        return float(s @ e) + self.n_suppressed * self.n_records

    def aecs(self) -> float:
        """Σ class sizes / classes, the suppressed records one more class of their number
        (N / classes under ``category``)."""
        if np.array_equal(self.sizes, self.effective):
            return average_class_size(self.sizes, self.n_records, self.n_suppressed)
        groups = self.n_classes + (self.n_suppressed > 0)
        total = float(self.effective.sum()) + self.n_suppressed
        return total / groups if groups else 0.0


def class_counts(
    sizes: np.ndarray, effective: np.ndarray, n_suppressed: int, n_records: int
) -> ClassCounts:
    """The counts of a checked release (``privcheck.utility.risk.release_verdict`` makes them
    from the class table ``check`` forms)."""
    return ClassCounts(
        np.asarray(sizes, dtype=np.int64),
        np.asarray(effective, dtype=np.int64),
        int(n_suppressed),
        int(n_records),
    )


def released_classes(rec: Recoding) -> ClassCounts:
    """The release's classes: the check's (``compare`` seeds ``rec.cache["classes"]``), else
    read from the recoding alone (the fallback of the module docstring). Computed once per
    recoding (several measures read it)."""
    if "classes" not in rec.cache:
        rec.cache["classes"] = _recoded_classes(rec)
    return rec.cache["classes"]


def _recoded_classes(rec: Recoding) -> ClassCounts:
    suppressed = rec.all_suppressed()
    if rec.n_records == 0:
        return class_counts(np.zeros(0), np.zeros(0), 0, 0)
    _, _, tuple_of_row = rec.distinct("items")
    kept = ~suppressed
    sizes = np.bincount(tuple_of_row[kept], minlength=int(tuple_of_row.max()) + 1)
    sizes = sizes[sizes > 0]  # (the all-'*' tuple, if any, drops out)
    return class_counts(sizes, sizes, int(suppressed.sum()), rec.n_records)


def n_classes(rec: Recoding) -> int:
    """Equivalence classes of kept rows (the suppressed rows, if any, not counted)."""
    return released_classes(rec).n_classes


def release_discernibility(rec: Recoding) -> float:
    """Σ class size² over kept classes + suppressed · N (``ClassCounts.discernibility``)."""
    return released_classes(rec).discernibility()


def release_aecs(rec: Recoding) -> float:
    """N over the number of classes, the suppressed rows forming one more class."""
    return released_classes(rec).aecs()


def suppressed_records(rec: Recoding) -> float:
    """Share of the original's records suppressed: left out, or counted as suppressed records
    by the classes' reading (``released_classes``)."""
    if rec.n_records == 0:
        return 0.0
    return released_classes(rec).n_suppressed / rec.n_records
