"""How each released quasi-identifier cell relates to the original cell it replaces.

Every utility measure of ``privcheck compare`` works on ANY release of a table — a full-domain
generalization, cells blanked by local suppression, Mondrian's ranges and hierarchy ancestors —
so none of them may assume a lattice node. Instead each released cell is resolved against the
original cell of the same row (the rows must be aligned: same count, same order, as
``--keep-order`` with ``suppressed_records: star`` writes them) into a *released item*: the set of
original ground values it stands for (its cover). For a cell reading ``r`` whose original is
``o``, the first rule that applies wins:

1. ``r`` spells ``o`` → unchanged (level 0; its cover is ``{o}``).
2. ``r`` is the label of ``o``'s ancestor at some level ``l ≥ 1`` of the attribute's hierarchy
   (the lowest such level) → a generalized value; cover = the ground values under that node.
3. ``r`` is the suppression marker ``*`` → suppressed; cover = the whole domain.
4. ``r`` is a numeric range that contains ``o`` → a range; cover = the ground values inside.
   Accepted spellings: ``lo-hi`` (both ends included, as the intervals hierarchy writes them),
   ``[lo, hi]``, ``[lo, hi)``, ``(lo, hi]``, ``(lo, hi)``.
5. anything else → an input error naming the row and column: the release does not contain its
   original, which almost always means its rows are not in the original's order.

An item is identified by (released string, level), so the same label meaning different nodes at
different levels stays apart. All of this runs on the distinct (original value, released string)
pairs of a column, not on rows.

A release whose rows cannot be matched to the original's — shuffled (written without
``--keep-order``), or leaving its suppressed records out — is read from its labels alone
(``resolve_labels``): each distinct released string by the same rules without an original (a
value of the attribute as itself, a hierarchy label at the lowest level that spells it, ``*``, a
range), and every record the release leaves out as a row of ``*``. The items and the original's
values are then two multisets of the same size, which is all every measure but the
classification needs (``Recoding.aligned`` is False).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import pandas as pd

from privcheck.classes import first_rows, group
from privcheck.encoding import EncodedColumn, string_labels
from privcheck.errors import DataError
from privcheck.hierarchy import TOP, parse_numbers


class Misaligned(DataError):
    """A released cell does not contain the original cell of its row: the rows are not in the
    original's order (``compare`` then reads the release from its labels alone)."""


#: the kind of a released item
UNCHANGED, GENERALIZED, SUPPRESSED, RANGE = 0, 1, 2, 3

_NUM = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_DASH = re.compile(rf"^\s*({_NUM})\s*-\s*({_NUM})\s*$")
_BRACKET = re.compile(rf"^\s*([\[(])\s*({_NUM})\s*[,;]\s*({_NUM})\s*([\])])\s*$")


@dataclass(eq=False)
class ColumnRecoding:
    """One quasi-identifier of a release resolved against the original.

    ``item[i]`` is the released item of row ``i``; per item: ``kind``, ``level`` (hierarchy level,
    -1 for ranges and ``*``), ``label`` (the released string), ``cover`` (items × ground values,
    True where the item contains the value) and ``prec_cost`` (level/height, range width/domain
    width, 1 for ``*``). ``ground`` are the original's ground codes per row, ``freq`` the
    original's count of every ground value, ``numbers`` the ground values as numbers (NaN when
    not numeric).
    """

    name: str
    ground: np.ndarray
    freq: np.ndarray
    numbers: np.ndarray
    item: np.ndarray
    kind: np.ndarray
    level: np.ndarray
    label: np.ndarray
    cover: np.ndarray
    prec_cost: np.ndarray

    @property
    def n_items(self) -> int:
        return len(self.kind)

    @property
    def cover_count(self) -> np.ndarray:
        """How many ground values present in the original each item covers."""
        return self.cover.astype(np.int64) @ (self.freq > 0).astype(np.int64)


@lru_cache(maxsize=1 << 16)
def _parse_range(text: str) -> tuple[float, float, bool, bool] | None:
    """(lo, hi, lo_closed, hi_closed) of one label read as a range, or None (memoised: the
    releases of one table spell the same few hundred labels)."""
    if text.lstrip()[:1] in ("[", "("):
        m = _BRACKET.match(text)
        if m is None:
            return None
        a, b, closed = float(m.group(2)), float(m.group(3)), (m.group(1) == "[", m.group(4) == "]")
    else:
        m = _DASH.match(text)
        if m is None:
            return None
        a, b, closed = float(m.group(1)), float(m.group(2)), (True, True)
    # a range needs finite bounds: '1e999-2e999' parses as inf-inf, which covers nothing
    return (a, b, *closed) if a <= b and math.isfinite(a) and math.isfinite(b) else None


def parse_ranges(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(lo, hi, lo_closed, hi_closed) of each label read as a numeric range; NaN bounds where a
    label is not a range. Over the distinct labels of a column (tens to thousands), one regular
    expression match each."""
    n = len(labels)
    lo = np.full(n, np.nan)
    hi = np.full(n, np.nan)
    lo_closed = np.ones(n, dtype=bool)
    hi_closed = np.ones(n, dtype=bool)
    for i, label in enumerate(np.asarray(labels, dtype=object)):
        parsed = _parse_range(str(label))
        if parsed is not None:
            lo[i], hi[i], lo_closed[i], hi_closed[i] = parsed
    return lo, hi, lo_closed, hi_closed


def _in_range(x: np.ndarray, lo, hi, lo_closed, hi_closed) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        above = np.where(lo_closed, x >= lo, x > lo)
        below = np.where(hi_closed, x <= hi, x < hi)
    return above & below & ~np.isnan(x)


def _hierarchy_reading(levels, ground_codes: np.ndarray, labels: np.ndarray):
    """(kind, level, node) of each (ground code, released label) pair by rules 1–2: the lowest
    level whose label of the ground value spells the released string; -1 where none does."""
    n = len(labels)
    kind = np.full(n, -1, dtype=np.int64)
    level = np.full(n, -1, dtype=np.int64)
    node = np.full(n, -1, dtype=np.int64)
    for lv in range(levels.height + 1):
        lab = string_labels(levels.labels[lv])
        hit = (kind < 0) & (lab[levels.maps[lv][ground_codes]] == labels)
        kind[hit] = UNCHANGED if lv == 0 else GENERALIZED
        level[hit] = lv
        node[hit] = levels.maps[lv][ground_codes[hit]]
    return kind, level, node


def _distinct(keys: np.ndarray, space: int) -> tuple[np.ndarray, np.ndarray]:
    """(sorted distinct keys, index of every key among them), as ``np.unique(...,
    return_inverse=True)``: a dense table over the key space when it is small (no sort)."""
    if space > 4 * len(keys) + (1 << 16):
        return np.unique(keys, return_inverse=True)
    present = np.zeros(space, dtype=bool)
    present[keys] = True
    distinct = np.flatnonzero(present)
    rank = np.cumsum(present) - 1
    return distinct, rank[keys]


def _released_strings(released: np.ndarray | pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """(code of every row, distinct released strings): the raw values factorized first (a
    pandas column as it is: an Arrow-backed one by Arrow's dictionary encoding), then only the
    distinct ones spelled (39 and "39" are one value)."""
    column = released if isinstance(released, pd.Series) else pd.Series(released, dtype=object)
    if isinstance(column.dtype, pd.CategoricalDtype) and not column.isna().any():
        raw_codes = column.cat.codes.to_numpy().astype(np.int64)
        raw_uniq = column.cat.categories
    else:
        raw_codes, raw_uniq = pd.factorize(column, use_na_sentinel=False)
    # the distinct values spelled and matched up (a dict over them: few, no pandas overhead)
    index: dict[str, int] = {}
    spelled = [str(v) for v in string_labels(np.asarray(raw_uniq, dtype=object))]
    uniq_codes = np.array([index.setdefault(v, len(index)) for v in spelled], dtype=np.int64)
    rel_uniq = np.empty(len(index), dtype=object)
    rel_uniq[:] = list(index)
    return (uniq_codes[raw_codes] if len(uniq_codes) else raw_codes), rel_uniq


def original_values(col: EncodedColumn) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(ground code of every original row, count of every ground value, ground values as
    numbers — NaN when not numeric —, ground values spelled)."""
    levels = col.levels
    ground_str = string_labels(levels.ground)
    g = np.asarray(col.codes, dtype=np.int64)
    if (g < 0).any():
        raise DataError(
            f"column {col.name!r} of the original has missing values; compare needs a value in "
            "every quasi-identifier cell (or the policy's missing: own_class)"
        )
    freq = np.bincount(g, minlength=len(ground_str))
    numbers = parse_numbers(ground_str)  # (pd.to_numeric(errors="coerce") on few values)
    return g, freq, numbers, ground_str


def resolve_column(
    col: EncodedColumn, released: np.ndarray | pd.Series, original: tuple | None = None
) -> ColumnRecoding:
    """Resolve one column's released strings (one per row, aligned with ``col.codes``); raise
    ``Misaligned`` at the first cell that does not contain its original. ``original``: the
    column's ``original_values`` when the caller has them."""
    levels = col.levels
    g, freq, numbers, ground_str = original or original_values(col)
    rel_codes, rel_uniq = _released_strings(released)
    # distinct (ground, released) pairs: every rule below runs on these
    pair_key = g * len(rel_uniq) + rel_codes
    pairs, pair_of_row = _distinct(pair_key, len(freq) * len(rel_uniq))
    pg, pr = pairs // len(rel_uniq), pairs % len(rel_uniq)
    plab = rel_uniq[pr]
    kind, level, node = _hierarchy_reading(levels, pg, plab)
    star = (kind < 0) & (plab == TOP)
    kind[star] = SUPPRESSED
    todo = np.flatnonzero(kind < 0)
    if len(todo) and not np.isnan(numbers).all():  # ranges: only the labels still unread
        labels_left, at = np.unique(pr[todo], return_inverse=True)
        lo, hi, loc, hic = parse_ranges(rel_uniq[labels_left])
        inside = _in_range(numbers[pg[todo]], lo[at], hi[at], loc[at], hic[at])
        kind[todo[inside]] = RANGE
    if (kind < 0).any():
        bad = np.flatnonzero(kind < 0)[0]
        row = int(np.flatnonzero(pair_of_row == bad)[0])
        raise Misaligned(
            f"row {row + 1}, column {col.name!r}: the released {plab[bad]!r} does not contain the "
            f"original {ground_str[pg[bad]]!r}; compare needs the release's rows in the "
            "original's order (anonymize with --keep-order and suppressed_records: star)"
        )
    # items: (released string, level) for hierarchy values; the string alone otherwise
    item_key = np.where(kind <= GENERALIZED, pr * (levels.height + 2) + level, -1 - pr)
    items, item_of_pair = np.unique(item_key, return_inverse=True)
    first = np.zeros(len(items), dtype=np.int64)
    first[item_of_pair[::-1]] = np.arange(len(pairs))[::-1]
    return _column(
        col,
        g,
        freq,
        numbers,
        item_of_pair[pair_of_row],
        (kind[first], level[first], node[first], rel_uniq[pr[first]]),
    )


def resolve_labels(
    col: EncodedColumn,
    released: np.ndarray | pd.Series,
    n_records: int,
    original: tuple | None = None,
) -> ColumnRecoding:
    """Resolve one column of a release whose rows are not the original's, from its labels
    alone: each distinct string is a value of the attribute (as itself), the label of a
    hierarchy node (the lowest level that spells it), ``*``, or a numeric range; rows
    ``len(released) … n_records − 1`` are the records the release left out, read as ``*``.

    A string that is none of these, or covers no value the original holds, is an input error:
    the file is not a release of this original under this policy."""
    levels = col.levels
    g, freq, numbers, _ = original or original_values(col)
    rel_codes, rel_uniq = _released_strings(released)
    left_out = n_records - len(rel_codes)
    if left_out > 0 and TOP not in set(rel_uniq.tolist()):
        rel_uniq = np.append(rel_uniq, TOP).astype(object)
    star_code = int(np.flatnonzero(rel_uniq == TOP)[0]) if left_out > 0 else -1
    n = len(rel_uniq)
    kind = np.full(n, -1, dtype=np.int64)
    level = np.full(n, -1, dtype=np.int64)
    node = np.full(n, -1, dtype=np.int64)
    for lv in range(levels.height + 1):
        lab = pd.Index(string_labels(levels.labels[lv]))
        at = lab.get_indexer(rel_uniq)
        hit = (kind < 0) & (at >= 0)
        kind[hit] = UNCHANGED if lv == 0 else GENERALIZED
        level[hit] = lv
        node[hit] = at[hit]
    kind[(kind < 0) & (rel_uniq == TOP)] = SUPPRESSED
    left = np.flatnonzero(kind < 0)
    kind[left[~np.isnan(parse_ranges(rel_uniq[left])[0])]] = RANGE
    if (kind < 0).any():
        bad = rel_uniq[np.flatnonzero(kind < 0)[0]]
        raise DataError(
            f"column {col.name!r} of the release holds {bad!r}, which is no value of the "
            "original, no label of its hierarchy, not '*' and not a range: compare a release "
            "of this original made under this policy"
        )
    item = np.concatenate([rel_codes, np.full(max(left_out, 0), star_code, dtype=np.int64)])
    out = _column(col, g, freq, numbers, item, (kind, level, node, rel_uniq))
    empty = ~(out.cover & (freq > 0)[None, :]).any(axis=1)
    if empty.any():
        raise DataError(
            f"column {col.name!r} of the release holds {out.label[np.flatnonzero(empty)[0]]!r}, "
            "which covers no value of the original: compare a release of this original"
        )
    return out


def _column(
    col: EncodedColumn,
    g: np.ndarray,
    freq: np.ndarray,
    numbers: np.ndarray,
    item_of_row: np.ndarray,
    items: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
) -> ColumnRecoding:
    """The column's items — (kind, level, node, label) each — with their covers and Prec costs,
    in canonical order, and the item of every row."""
    levels = col.levels
    n_ground = len(freq)
    ikind, ilevel, inode, ilabel = items
    cover = np.zeros((len(ikind), n_ground), dtype=bool)
    for lv in np.unique(ilevel[ikind <= GENERALIZED]):
        at = np.flatnonzero((ikind <= GENERALIZED) & (ilevel == lv))
        cover[at] = levels.maps[lv][None, :] == inode[at, None]
    cover[ikind == SUPPRESSED] = True
    rng = np.flatnonzero(ikind == RANGE)
    lo, hi, loc, hic = parse_ranges(ilabel[rng])
    cover[rng] = _in_range(numbers[None, :], lo[:, None], hi[:, None], loc[:, None], hic[:, None])
    cost = np.zeros(len(ikind))
    if levels.height > 0:
        cost = np.where(ikind <= GENERALIZED, ilevel / levels.height, cost)
    cost[ikind == SUPPRESSED] = 1.0
    present = numbers[freq > 0]
    width = float(np.nanmax(present) - np.nanmin(present)) if np.isfinite(present).any() else 0.0
    if len(rng):
        with np.errstate(over="ignore"):  # a range as wide as float64 allows: cost 1
            cost[rng] = np.minimum(1.0, (hi - lo) / width) if width > 0 else 0.0
    # canonical item order: by the first original value covered, then narrower first, then
    # label — an unchanged column's items are then its values in ground order (so the
    # classification features of an identity release are the original's, column for column)
    covered = cover & (freq > 0)[None, :]
    first_value = np.where(covered.any(axis=1), covered.argmax(axis=1), n_ground)
    order = np.lexsort((ilabel, covered.sum(axis=1), first_value))
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return ColumnRecoding(
        name=col.name,
        ground=g,
        freq=freq,
        numbers=numbers,
        item=rank[item_of_row],
        kind=ikind[order],
        level=ilevel[order],
        label=ilabel[order],
        cover=cover[order],
        prec_cost=cost[order],
    )


#: the cache entries of a ``Recoding`` that depend on the original alone
ORIGINAL_KEYS = ("grounds", "distinct:grounds", "prefix_tree")


@dataclass(eq=False)
class Recoding:
    """A whole release resolved against the original: one ``ColumnRecoding`` per quasi-identifier
    (policy order), plus the original rows and the released rows as read."""

    columns: list[ColumnRecoding]
    n_records: int
    #: memo of computations several measures share (the released classes); the entries that
    #: depend on the original alone (``ORIGINAL_KEYS``) may be seeded from another recoding of
    #: the same original
    cache: dict = field(default_factory=dict, repr=False)
    #: whether row i of the release is the release of original row i (else the release was
    #: read from its labels alone, ``resolve_labels``, and ``unaligned`` says why)
    aligned: bool = True
    unaligned: str | None = None
    #: rows of the release as read (``n_records`` minus the records it left out)
    n_released: int | None = None

    @property
    def items(self) -> np.ndarray:
        """Rows × quasi-identifiers matrix of released item ids (made once)."""
        if not self.columns:
            return np.zeros((self.n_records, 0), dtype=np.int64)
        if "items" not in self.cache:
            self.cache["items"] = np.stack([c.item for c in self.columns], axis=1)
        return self.cache["items"]

    @property
    def grounds(self) -> np.ndarray:
        """Rows × quasi-identifiers matrix of the original's ground codes (made once)."""
        if not self.columns:
            return np.zeros((self.n_records, 0), dtype=np.int64)
        if "grounds" not in self.cache:
            self.cache["grounds"] = np.stack([c.ground for c in self.columns], axis=1)
        return self.cache["grounds"]

    def distinct(self, which: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(distinct rows, count of each, distinct row of every row) of the released item
        tuples (``"items"``) or the original's ground tuples (``"grounds"``), in lexicographic
        order — the project's group-by over combined integer keys, memoised."""
        key = f"distinct:{which}"
        if key not in self.cache:
            matrix = self.items if which == "items" else self.grounds
            cards = [c.n_items if which == "items" else len(c.freq) for c in self.columns]
            if matrix.shape[1] == 0 or len(matrix) == 0:
                inv = np.zeros(len(matrix), dtype=np.int64)
                self.cache[key] = (matrix[:1], np.array([len(matrix)])[: len(matrix[:1])], inv)
            else:
                inv, n_groups = group([matrix[:, j] for j in range(matrix.shape[1])], cards)
                self.cache[key] = (
                    matrix[first_rows(inv, n_groups)],
                    np.bincount(inv, minlength=n_groups),
                    inv,
                )
        return self.cache[key]

    def all_suppressed(self) -> np.ndarray:
        """Rows whose every quasi-identifier reads ``*`` (a suppressed record written as stars,
        or generalized to every hierarchy's top ``*``): counted as suppressed records."""
        out = np.ones(self.n_records, dtype=bool)
        for c in self.columns:
            out &= (c.label == TOP)[c.item]
        return out & (len(self.columns) > 0)
