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
word; a point's containing boxes are the AND of its values' sets over the quasi-identifiers —
points × quasi-identifiers × boxes/64 word operations, vectorised over blocks of points, never a
loop over rows or pairs. ``containing_boxes`` exposes the same join for the classification
measure (which box of the release an original record falls in).
"""

from __future__ import annotations

import numpy as np

from privcheck.utility.recoding import Recoding

#: words (64 boxes each) × points ANDed per block, and boxes per block (bitset tables of
#: ground values × words stay small)
_BLOCK_WORDS = 1 << 21
_BOX_BLOCK = 64 * 256


def _bitsets(cover: np.ndarray, box_items: np.ndarray) -> np.ndarray:
    """Ground values × words: bit b of word w set when box 64·w + b's item covers the value."""
    covers = cover[box_items].T  # ground values × boxes
    pad = (-covers.shape[1]) % 64
    if pad:
        covers = np.concatenate([covers, np.zeros((covers.shape[0], pad), dtype=bool)], axis=1)
    packed = np.packbits(covers, axis=1, bitorder="little")
    return np.ascontiguousarray(packed).view("<u8")


def containing_pairs(rec: Recoding, boxes: np.ndarray, points: np.ndarray):
    """Yield (box ids, point ids) blocks of every (box, point) with the point inside the box.

    ``boxes``: distinct rows of item ids; ``points``: distinct rows of ground codes.
    """
    cols = rec.columns
    if not len(boxes) or not len(points):
        return
    for b0 in range(0, len(boxes), _BOX_BLOCK):
        bsel = boxes[b0 : b0 + _BOX_BLOCK]
        tables = [_bitsets(c.cover, bsel[:, j]) for j, c in enumerate(cols)]
        n_words = tables[0].shape[1]
        step = max(1, _BLOCK_WORDS // n_words)
        for p0 in range(0, len(points), step):
            pts = points[p0 : p0 + step]
            acc = tables[0][pts[:, 0]]
            for j in range(1, len(cols)):
                acc &= tables[j][pts[:, j]]
            pi, wi = np.nonzero(acc)
            if not len(pi):
                continue
            bits = np.unpackbits(
                acc[pi, wi].view(np.uint8).reshape(-1, 8), axis=1, bitorder="little"
            )
            k, bit = np.nonzero(bits)
            yield b0 + wi[k] * 64 + bit, p0 + pi[k]


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
    p2 = np.zeros(len(points))
    for bi, pi in containing_pairs(rec, boxes, points):
        p2 += np.bincount(pi, weights=mass[bi], minlength=len(points))
    p1 = p1_counts / n
    return float(np.sum(p1 * (np.log(p1_counts) - np.log(p2))))


def containing_boxes(rec: Recoding, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each row of ``points`` (ground codes): the released tuple (row of item ids) of the
    largest released class containing it (ties: the first in sorted order), and the distinct
    released tuples. Every original point of the table lies in its own row's box."""
    boxes, box_w, _ = rec.distinct("items")
    best_w = np.full(len(points), -1, dtype=np.int64)
    best = np.zeros(len(points), dtype=np.int64)
    for bi, pi in containing_pairs(rec, boxes, points):
        if len(bi) == 0:
            continue
        # per point, the heaviest box of this block (lowest id on ties)
        order = np.lexsort((bi, -box_w[bi], pi))
        bi, pi = bi[order], pi[order]
        head = np.r_[True, pi[1:] != pi[:-1]]
        bi, pi = bi[head], pi[head]
        better = box_w[bi] > best_w[pi]
        best_w[pi[better]] = box_w[bi[better]]
        best[pi[better]] = bi[better]
    if (best_w < 0).any():  # pragma: no cover - each original lies in its own row's box
        raise RuntimeError("an original record lies in no released box")
    return boxes[best], boxes
