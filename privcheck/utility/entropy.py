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


def _original_bits(freq: np.ndarray) -> float:
    """Σ over the original's records of log2 f(value): Σ_v f(v) log2 f(v)."""
    f = freq[freq > 0].astype(np.float64)
    return float(f @ np.log2(f))


def _column_bits(freq: np.ndarray, cover: np.ndarray, item: np.ndarray) -> float:
    """Σ over rows of log2 mass(item) − log2 f(original): the two sums taken apart, each over
    its distinct values (the items a row reads, the original's values) instead of the rows."""
    mass = cover @ freq.astype(np.float64)  # records of the original each item stands for
    uses = np.bincount(item, minlength=len(mass)).astype(np.float64)
    used = uses > 0
    return float(uses[used] @ np.log2(mass[used])) - _original_bits(freq)


def non_uniform_entropy(rec: Recoding) -> float:
    """Σ over cells of −log2 P(original | released), in bits."""
    return sum(_column_bits(c.freq, c.cover, c.item) for c in rec.columns)


def maximum_entropy(rec: Recoding) -> float:
    """The non-uniform entropy of the release that writes ``*`` in every cell."""
    total = 0.0
    for c in rec.columns:
        n = float(c.freq.sum())
        total += n * np.log2(n) - _original_bits(c.freq) if n > 0 else 0.0
    return total


def normalised_entropy(rec: Recoding) -> float:
    """Non-uniform entropy over its maximum (0 when the maximum is 0: nothing to lose)."""
    top = maximum_entropy(rec)
    return non_uniform_entropy(rec) / top if top > 0 else 0.0
