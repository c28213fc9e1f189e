"""KL divergence of the quasi-identifier joint distribution (LeFevre, DeWitt & Ramakrishnan,
"Mondrian Multidimensional K-Anonymity", ICDE 2006, §5):

    KL = Σ_x p1(x) · ln(p1(x) / p2(x)),

``p1`` the original's joint distribution over the distinct quasi-identifier tuples ``x``, ``p2``
what an analyst reconstructs from the release: every released row spreads its mass uniformly
over its *box* — the product of its cells' covers, the original values each cell stands for
(``recoding``) — so ``p2(x) = Σ_rows [x ∈ box] / (N · |box|)``, ``|box|`` the number of tuples of
original values in it. Each row's box contains its own original, so ``p2 > 0`` wherever
``p1 > 0``. 0 = the release keeps the joint distribution; natural log (nats); lower is better.

Boxes may overlap (a ``*`` cell covers every value; Mondrian's relaxed ranges), so containment is
tested, not assumed, between the distinct released tuples and the distinct original tuples with
bitsets: per quasi-identifier and ground value, the set of boxes whose cell covers it, 64 boxes a
word. A point's containing boxes are the AND of its values' sets over the quasi-identifiers,
taken along a prefix tree of the points — the quasi-identifiers in order of fewer distinct
values first, each distinct prefix ANDed once — so the word operations number
Σ (distinct prefixes) × boxes/64, vectorised, never a loop over rows or pairs. The (box,
point) pairs are computed once per release and shared with the classification measure
(``heaviest_boxes``: which box of the release an original record falls in).
"""

from __future__ import annotations

import numpy as np

from privcheck.errors import DataError
from privcheck.utility.recoding import Recoding

#: most words (64 boxes each) the prefix tree holds at once: the boxes are taken in blocks
#: so that (distinct points) × (words of a block) stays below it
_BLOCK_WORDS = 1 << 22


def _bitsets(cover: np.ndarray, box_items: np.ndarray) -> np.ndarray:
    """Ground values × words: bit b of word w set when box 64·w + b's item covers the value."""
    covers = cover[box_items].T  # ground values × boxes
    pad = (-covers.shape[1]) % 64
    if pad:
        covers = np.concatenate([covers, np.zeros((covers.shape[0], pad), dtype=bool)], axis=1)
    packed = np.packbits(covers, axis=1, bitorder="little")
    return np.ascontiguousarray(packed).view("<u8")


def prefix_tree(points: np.ndarray) -> tuple[np.ndarray, list, np.ndarray, int]:
    """The points' prefix tree: the columns in order of fewer distinct values first; per column
    in that order, (parent group of each group, its value); the last group of every point; the
    number of last groups (= points, which are distinct). Sorted by the columns in that order,
    each prefix's points are one run: a group starts where the prefix changes from the row
    before — one lexsort, no hashing."""
    distinct = [int(np.count_nonzero(np.bincount(points[:, j]))) for j in range(points.shape[1])]
    order = np.argsort(distinct, kind="stable")
    rows = np.lexsort(tuple(points[:, j] for j in order[::-1]))
    sorted_points = points[rows]
    levels = []
    change = np.zeros(len(points), dtype=bool)
    change[0] = True
    group_of = np.zeros(len(points), dtype=np.int64)
    for j in order:
        values = sorted_points[:, j].astype(np.int64)
        change[1:] |= values[1:] != values[:-1]
        starts = np.flatnonzero(change)
        levels.append((group_of[starts], values[starts]))
        group_of = np.cumsum(change) - 1
    n_groups = int(group_of[-1]) + 1
    return order, levels, group_of[np.argsort(rows)], n_groups


def containing_pairs(
    rec: Recoding, boxes: np.ndarray, points: np.ndarray, tree: tuple | None = None
):
    """Yield (box ids, point ids) blocks of every (box, point) with the point inside the box.

    ``boxes``: distinct rows of item ids; ``points``: distinct rows of ground codes; ``tree``:
    their ``prefix_tree`` when the caller has it.
    """
    cols = rec.columns
    if not len(boxes) or not len(points) or not cols:
        return
    order, levels, group_of, n_groups = tree if tree is not None else prefix_tree(points)
    box_block = 64 * max(1, _BLOCK_WORDS // max(n_groups, 1))
    # the last level's groups are the (distinct) points; each group's point
    point_of_group = np.empty(n_groups, dtype=np.int64)
    point_of_group[group_of] = np.arange(len(points))
    for b0 in range(0, len(boxes), box_block):
        bsel = boxes[b0 : b0 + box_block]
        acc = None
        for j, (parent, values) in zip(order, levels, strict=True):
            table = _bitsets(cols[j].cover, bsel[:, j])
            acc = table[values] if acc is None else acc[parent] & table[values]
        assert acc is not None
        gi, wi = np.nonzero(acc)
        if not len(gi):
            continue
        bits = np.unpackbits(acc[gi, wi].view(np.uint8).reshape(-1, 8), axis=1, bitorder="little")
        k, bit = np.nonzero(bits)
        yield b0 + wi[k] * 64 + bit, point_of_group[gi[k]]


def all_pairs(rec: Recoding) -> tuple[np.ndarray, np.ndarray]:
    """Every (distinct released tuple, distinct original tuple) pair with the original inside,
    as two id arrays into ``rec.distinct("items")`` and ``rec.distinct("grounds")``; once per
    recoding (KL and the classification both read them)."""
    if "pairs" not in rec.cache:
        boxes, _, _ = rec.distinct("items")
        points, _, _ = rec.distinct("grounds")
        if "prefix_tree" not in rec.cache and len(points) and rec.columns:
            rec.cache["prefix_tree"] = prefix_tree(points)  # the original's: shared by releases
        found = list(containing_pairs(rec, boxes, points, rec.cache.get("prefix_tree")))
        if found:
            rec.cache["pairs"] = (
                np.concatenate([b for b, _ in found]),
                np.concatenate([p for _, p in found]),
            )
        else:
            rec.cache["pairs"] = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    return rec.cache["pairs"]


def kl_divergence(rec: Recoding) -> float:
    """KL(original joint ‖ release's uniform-in-box reconstruction), in nats."""
    n = rec.n_records
    if n == 0 or not rec.columns:
        return 0.0
    boxes, box_w, _ = rec.distinct("items")
    points, p1_counts, _ = rec.distinct("grounds")
    size = np.ones(len(boxes))
    for j, c in enumerate(rec.columns):
        size *= c.cover_count[boxes[:, j]]
    mass = box_w / size  # records per tuple each box spreads (× 1/N below)
    bi, pi = all_pairs(rec)
    p2 = np.bincount(pi, weights=mass[bi], minlength=len(points))
    if not (p2 > 0).all():
        raise DataError(
            "an original record lies in no released box: the release does not contain every "
            "record of the original; compare a release of this original"
        )
    p1 = p1_counts / n
    return float(np.sum(p1 * (np.log(p1_counts) - np.log(p2))))


def heaviest_boxes(rec: Recoding, point_ids: np.ndarray) -> np.ndarray:
    """For each of the distinct original tuples ``point_ids`` (ids into
    ``rec.distinct("grounds")``): the released tuple (row of item ids) of the largest released
    class containing it (ties: the first in sorted order)."""
    boxes, box_w, _ = rec.distinct("items")
    bi, pi = all_pairs(rec)
    n_points = len(rec.distinct("grounds")[0])
    # per point, the heaviest box (lowest id on ties)
    order = np.lexsort((bi, -box_w[bi], pi))
    bi, pi = bi[order], pi[order]
    head = np.r_[True, pi[1:] != pi[:-1]] if len(pi) else np.zeros(0, dtype=bool)
    best = np.full(n_points, -1, dtype=np.int64)
    best[pi[head]] = bi[head]
    chosen = best[point_ids]
    if (chosen < 0).any():  # pragma: no cover - each original lies in its own row's box
        raise RuntimeError("an original record lies in no released box")
    return boxes[chosen]
