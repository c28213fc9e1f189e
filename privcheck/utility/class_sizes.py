"""Discernibility and AECS of any release, through the existing formulas
(``privcheck.metrics.generalization.discernibility`` / ``average_class_size``).

The equivalence classes are the groups of identical released quasi-identifier tuples — a ``*``
cell is one more value (ARX's "category" reading of a blanked cell; an intruder who reads ``*``
as a wildcard sees larger groups, so these figures are the conservative utility side). A row
whose every quasi-identifier reads ``*`` is a suppressed record: charged ``N`` by
discernibility and counted in one extra class by AECS, exactly as for a full-domain release.
"""

from __future__ import annotations

import numpy as np

from privcheck.metrics.generalization import average_class_size, discernibility
from privcheck.utility.recoding import Recoding


def released_classes(rec: Recoding) -> tuple[np.ndarray, np.ndarray, int]:
    """(class of every row, size of every class of kept rows, suppressed rows); suppressed rows
    get class -1. Computed once per recoding (three measures read it)."""
    if "classes" not in rec.cache:
        rec.cache["classes"] = _released_classes(rec)
    return rec.cache["classes"]


def _released_classes(rec: Recoding) -> tuple[np.ndarray, np.ndarray, int]:
    suppressed = rec.all_suppressed()
    cls = np.full(rec.n_records, -1, dtype=np.int64)
    if rec.n_records == 0:
        return cls, np.zeros(0, dtype=np.int64), 0
    _, _, tuple_of_row = rec.distinct("items")
    kept = ~suppressed
    # the all-'*' tuple (if any) drops out: renumber the tuples kept rows use
    used = np.zeros(int(tuple_of_row.max()) + 1, dtype=bool)
    used[tuple_of_row[kept]] = True
    renumber = np.cumsum(used) - 1
    cls[kept] = renumber[tuple_of_row[kept]]
    sizes = np.bincount(cls[kept], minlength=int(used.sum()))
    return cls, sizes, int(suppressed.sum())


def n_classes(rec: Recoding) -> int:
    """Equivalence classes of kept rows (the suppressed rows, if any, not counted)."""
    return len(released_classes(rec)[1])


def release_discernibility(rec: Recoding) -> float:
    """Σ class size² over kept classes + suppressed · N."""
    _, sizes, suppressed = released_classes(rec)
    return discernibility(sizes, rec.n_records, suppressed)


def release_aecs(rec: Recoding) -> float:
    """N over the number of classes, the suppressed rows forming one more class."""
    _, sizes, suppressed = released_classes(rec)
    return average_class_size(sizes, rec.n_records, suppressed)
