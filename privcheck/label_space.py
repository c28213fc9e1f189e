"""Released labels placed in their hierarchy, without the original data.

A check of one release treats its values as opaque labels. Comparing *several* releases — which
value of one release can be the same person as which value of another — needs to know how labels
of different levels nest: ``[30, 39]`` holds ``[30, 34]``, ``021**`` holds ``0213*``. This module
resolves a quasi-identifier's hierarchy over a ground domain rebuilt from the labels themselves —
one representative ground value per label (the table's own leaves for a table hierarchy; for
computed hierarchies the low end of an interval, a masked ZIP with its mask filled, a date inside
a week, month, quarter, year or decade) — so that each label gets its level and its code, and the
hierarchy's ``up`` maps say which labels of two releases overlap: a label at level ``a`` and one
at level ``b ≥ a`` overlap exactly when the first generalizes to the second (hierarchies are
trees, checked when resolved).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from privcheck.errors import DataError
from privcheck.hierarchy import TOP, LevelArrays
from privcheck.policy import DatesHierarchy, IntervalsHierarchy, MaskingHierarchy, TableHierarchy

#: a bin of integers: ``[30, 39]`` (and ``30-39``, as releases before one notation wrote it)
_CLOSED = re.compile(r"^\[\s*([+-]?\d+)\s*,\s*([+-]?\d+)\s*\]$")
_INTEGER_BIN = re.compile(r"^([+-]?\d+)-([+-]?\d+)$")
_HALF_OPEN = re.compile(r"^\[\s*([^,\s]+)\s*,\s*([^)\s]+)\s*\)$")
_WEEK = re.compile(r"^(\d{4})-W(\d{2})$")
_MONTH = re.compile(r"^(\d{4})-(\d{2})$")
_QUARTER = re.compile(r"^(\d{4})-Q([1-4])$")
_YEAR = re.compile(r"^(\d{4})s?$")


def representative(label: str, spec: Any) -> str | None:
    """A ground value under ``label`` (None for ``*``: it holds every value)."""
    if label == TOP:
        return None
    if isinstance(spec, IntervalsHierarchy):
        m = _CLOSED.match(label) or _INTEGER_BIN.match(label) or _HALF_OPEN.match(label)
        return m.group(1) if m else label
    if isinstance(spec, MaskingHierarchy):
        return label.replace(spec.char, "0")
    if isinstance(spec, DatesHierarchy):
        return _date_representative(label, spec.format)
    return label


def _date_representative(label: str, fmt: str | None) -> str:
    import pandas as pd

    if m := _WEEK.match(label):
        day = pd.Timestamp.fromisocalendar(int(m.group(1)), int(m.group(2)), 4)
    elif m := _MONTH.match(label):
        day = pd.Timestamp(int(m.group(1)), int(m.group(2)), 15)
    elif m := _QUARTER.match(label):
        day = pd.Timestamp(int(m.group(1)), 3 * int(m.group(2)) - 1, 15)
    elif m := _YEAR.match(label):  # a year, decade or century: mid-June of its first year
        day = pd.Timestamp(int(m.group(1)), 6, 15)
    else:
        return label  # a ground date as released
    return day.strftime(fmt) if fmt else day.strftime("%Y-%m-%d")


def resolve_labels(policy: Any, name: str, labels: np.ndarray) -> LevelArrays:
    """The hierarchy of quasi-identifier ``name`` over a ground domain that places every label
    of ``labels`` (strings, ``*`` aside)."""
    from privcheck.encoding import _resolve

    attr = policy.attributes[name]
    spec = attr.hierarchy
    if isinstance(spec, TableHierarchy):
        return _resolve(name, attr, np.asarray([], dtype=object), policy)
    reps = {representative(str(v), spec) for v in np.unique(np.asarray(labels, dtype=object))}
    reps.discard(None)
    ground = np.asarray(sorted(reps), dtype=object)
    try:
        return _resolve(name, attr, ground, policy)
    except DataError as exc:
        raise DataError(
            f"the released values of {name!r} do not read as labels of its hierarchy ({exc})"
        ) from None


def level_of(levels: LevelArrays, labels: np.ndarray, name: str, where: str) -> int:
    """The lowest hierarchy level holding every label of ``labels`` (``*`` aside): the level a
    full-domain release generalized ``name`` to. The hierarchy's top when every label is ``*``."""
    from privcheck.encoding import _string_labels

    wanted = set(np.unique(np.asarray(labels, dtype=object)).tolist()) - {TOP}
    if not wanted:
        return levels.height
    for level in range(levels.height + 1):
        if wanted <= set(_string_labels(levels.labels[level]).tolist()):
            return level
    raise DataError(
        f"{where}: the values of {name!r} are not all labels of one level of its hierarchy; "
        "k-anonymity-across-releases compares full-domain releases (one level per "
        "quasi-identifier, as incognito, mingen and datafly write them)"
    )


def codes_at(levels: LevelArrays, labels: np.ndarray, level: int) -> np.ndarray:
    """The level-``level`` code of each label (−1 for ``*`` or a label not at that level)."""
    import pandas as pd

    from privcheck.encoding import _string_labels

    index = pd.Index(_string_labels(levels.labels[level]))
    return index.get_indexer(np.asarray(labels, dtype=object)).astype(np.int64)
