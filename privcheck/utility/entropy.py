"""Non-uniform entropy (ARX's "non-uniform entropy", de Waal & Willenborg 1999; Prasser et al.):
the information an analyst lacks to recover each original cell from its released cell,

    NUE = Σ_records Σ_QIs −log2 P(original value | released value),

with ``P(o | r) = f(o) / Σ_{v ∈ cover(r)} f(v)`` estimated from the original's frequencies ``f`` of
that attribute (``cover(r)``: the original values the released cell stands for, see
``recoding``). An unchanged cell costs 0 bits, a ``*`` cell ``−log2 f(o)/N``. Unlike Prec it
charges generalizing a rare value into a common group little and splitting a common group a lot,
which is what an analyst loses. In bits; lower is better. ``normalised_entropy`` divides by the
entropy of the release where every cell is ``*`` (0 = nothing lost, 1 = everything).
"""

from __future__ import annotations

import numpy as np

from privcheck.utility.recoding import Recoding


def _column_bits(
    freq: np.ndarray, cover: np.ndarray, ground: np.ndarray, item: np.ndarray
) -> float:
    mass = cover @ freq.astype(np.float64)  # records of the original each item stands for
    per_pair = np.log2(mass[item]) - np.log2(freq[ground].astype(np.float64))
    return float(per_pair.sum())


def non_uniform_entropy(rec: Recoding) -> float:
    """Σ over cells of −log2 P(original | released), in bits."""
    return sum(_column_bits(c.freq, c.cover, c.ground, c.item) for c in rec.columns)


def maximum_entropy(rec: Recoding) -> float:
    """The non-uniform entropy of the release that writes ``*`` in every cell."""
    total = 0.0
    for c in rec.columns:
        n = float(c.freq.sum())
        total += float(np.sum(np.log2(n) - np.log2(c.freq[c.ground].astype(np.float64))))
    return total


def normalised_entropy(rec: Recoding) -> float:
    """Non-uniform entropy over its maximum (0 when the maximum is 0: nothing to lose)."""
    top = maximum_entropy(rec)
    return non_uniform_entropy(rec) / top if top > 0 else 0.0
