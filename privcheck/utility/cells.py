"""What an analyst sees first when opening the file: the quasi-identifier cells a release
changed, the cells reading ``*``, and the records it suppressed.

``changed``: cells whose released string is not the original's (any generalization, range or
``*``); ``generalized_cells`` is its share — the cells not released as their original value
(read from the labels alone when the rows are not aligned: a released value of the attribute
is its own original). ``suppressed``: cells reading the marker ``*`` (local suppression's blanks,
suppressed records written as stars, and a hierarchy's top ``*`` — a column generalized to its
top counts every cell). Cells over N · N_A, N the original's records (a record left out counts
as a row of ``*``). Lower is better. (The share of RECORDS suppressed reads the classes a check
forms: ``class_sizes.suppressed_records``.)
"""

from __future__ import annotations

import numpy as np

from privcheck.hierarchy import TOP
from privcheck.utility.recoding import UNCHANGED, Recoding


def changed_cells(rec: Recoding) -> int:
    return sum(int(np.count_nonzero(c.kind[c.item] != UNCHANGED)) for c in rec.columns)


def suppressed_cells(rec: Recoding) -> int:
    return sum(int(np.count_nonzero((c.label == TOP)[c.item])) for c in rec.columns)


def _share(count: int, rec: Recoding) -> float:
    cells = rec.n_records * len(rec.columns)
    return count / cells if cells else 0.0


def changed_share(rec: Recoding) -> float:
    return _share(changed_cells(rec), rec)


def suppressed_share(rec: Recoding) -> float:
    return _share(suppressed_cells(rec), rec)


def generalized_cells(rec: Recoding) -> float:
    """Share of quasi-identifier cells not released as their original value."""
    return _share(changed_cells(rec), rec)
