"""The share of quasi-identifier cells a release changed, and of those it suppressed.

``changed``: cells whose released string is not the original's (any generalization, range or
``*``); ``suppressed``: cells reading the marker ``*`` (local suppression's blanks, suppressed
records written as stars, and a hierarchy's top ``*``). Both over N · N_A cells; what an analyst
sees first when opening the file. Lower is better.
"""

from __future__ import annotations

import numpy as np

from privcheck.hierarchy import TOP
from privcheck.utility.recoding import UNCHANGED, Recoding


def changed_cells(rec: Recoding) -> int:
    return sum(int(np.count_nonzero(c.kind[c.item] != UNCHANGED)) for c in rec.columns)


def suppressed_cells(rec: Recoding) -> int:
    return sum(int(np.count_nonzero(c.label[c.item] == TOP)) for c in rec.columns)


def _share(count: int, rec: Recoding) -> float:
    cells = rec.n_records * len(rec.columns)
    return count / cells if cells else 0.0


def changed_share(rec: Recoding) -> float:
    return _share(changed_cells(rec), rec)


def suppressed_share(rec: Recoding) -> float:
    return _share(suppressed_cells(rec), rec)
