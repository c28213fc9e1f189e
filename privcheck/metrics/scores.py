"""SafePub's utility scores: data-dependent quality of a generalization, with bounded sensitivity.

The exponential mechanism selects a node with probability ∝ exp(ε · s(D, node) / (2Δ)), where Δ
bounds how much one record can change the score ``s``. SafePub (Bild, Kuhn & Prasser, PoPETs 2018)
turns the usual quality models into such scores for the output of its sampling-and-suppression
step (every class of fewer than k records suppressed): each function here returns the score
already divided by its sensitivity, higher is better, so the mechanism draws with
exp(ε · score / 2). The forms and bounds are those of ARX's implementation of SafePub
(``org.deidentifier.arx.metric.v2``, ``getScore``); tests check every bound by brute force over
all neighbouring datasets of tiny tables.

A score is computed on the class table of the *sample* (one class per combination of released
values at the node). Records of the input that were not sampled count as suppressed, as in ARX:
that adds the same amount to every node's score (so the selection probabilities do not change),
and keeps the scores comparable with ARX's. With N the input's records, q the columns of the
released tuple, s the sampled records in classes smaller than k and u the records not sampled:

- **prec** (ARX "precision", the paper's intensity):
  −(kept · Σ_j h_j/H_j + (s + u) · q) / (q · max(k − 1, 1)). One record can turn a suppressed
  class of k − 1 records into a kept one: at most (k − 1) · q of change.
- **loss** (ARX "loss", the paper's granularity): the same with each kept cell costing the share
  of the hierarchy's leaves its value covers, (leaves − 1)/(domain − 1).
- **discernibility**: −(Σ_kept |C|² + N · (s + u)) / (N · c_k), c_k = k²/(k − 1) + 1 (5 for k = 1).
- **entropy** (ARX's score for non-uniform entropy): −(Σ_j Σ_v n_{j,v}² + N · m) / (N · q · c_k),
  n_{j,v} the kept records whose column j reads v (not the root "*"), m the cells suppressed or
  generalized to the root.
- **aecs** (group size): the number of kept classes, plus one when anything is suppressed — the
  fewer records per class on average the better; one record changes it by at most one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from privcheck.classes import ClassTable
from privcheck.metrics.generalization import _value_shares


@dataclass(frozen=True)
class Score:
    """A utility score as the exponential mechanism uses it."""

    name: str
    summary: str
    #: (class table of the sample at a node, k, records in the input) → score / sensitivity
    score: Callable[[ClassTable, int, int], float]


def _parts(table: ClassTable, k: int, n_input: int) -> tuple[np.ndarray, int, int, int]:
    """Kept-class mask, kept records, suppressed records (sampled + not sampled), columns."""
    kept = table.sizes >= k
    n_kept = int(table.sizes[kept].sum())
    return kept, n_kept, n_input - n_kept, len(table.encoded.quasi_identifiers)


def _c(k: int) -> float:
    """The sensitivity factor of the squared-size scores: k²/(k − 1) + 1, or 5 for k = 1."""
    return 5.0 if k <= 1 else k * k / (k - 1) + 1.0


def prec_score(table: ClassTable, k: int, n_input: int) -> float:
    _, n_kept, suppressed, q = _parts(table, k, n_input)
    if q == 0:
        return 0.0
    heights = table.encoded.heights
    cost = sum(h / H for h, H in zip(table.node, heights, strict=True) if H > 0)
    return -(n_kept * cost + suppressed * q) / (q * max(k - 1, 1))


def loss_score(table: ClassTable, k: int, n_input: int) -> float:
    kept, _, suppressed, q = _parts(table, k, n_input)
    if q == 0:
        return 0.0
    sizes = table.sizes[kept].astype(np.float64)
    total = float(suppressed * q)
    for j, col in enumerate(table.encoded.quasi_identifiers):
        total += float(_value_shares(col.levels, table.node[j])[table.keys[kept, j]] @ sizes)
    return -total / (q * max(k - 1, 1))


def discernibility_score(table: ClassTable, k: int, n_input: int) -> float:
    kept, _, suppressed, _ = _parts(table, k, n_input)
    sizes = table.sizes[kept].astype(np.float64)
    n = max(n_input, 1)
    return -(float(sizes @ sizes) + n * suppressed) / (n * _c(k))


def entropy_score(table: ClassTable, k: int, n_input: int) -> float:
    kept, n_kept, suppressed, q = _parts(table, k, n_input)
    if q == 0:
        return 0.0
    n = max(n_input, 1)
    sizes = table.sizes[kept]
    total = float(n) * suppressed * q
    for j, col in enumerate(table.encoded.quasi_identifiers):
        level = table.node[j]
        if level == col.height and col.cardinality(level) == 1:  # every cell reads the root
            total += float(n) * n_kept
            continue
        counts = np.bincount(table.keys[kept, j], weights=sizes, minlength=col.cardinality(level))
        total += float(counts @ counts)
    return -total / (n * q * _c(k))


def aecs_score(table: ClassTable, k: int, n_input: int) -> float:
    kept, _, suppressed, _ = _parts(table, k, n_input)
    return float(np.count_nonzero(kept) + (1 if suppressed > 0 else 0))


SCORES: dict[str, Score] = {
    "prec": Score("prec", "precision (the paper's intensity)", prec_score),
    "loss": Score("loss", "ARX's loss (the paper's granularity)", loss_score),
    "discernibility": Score("discernibility", "discernibility", discernibility_score),
    "entropy": Score("entropy", "non-uniform entropy (ARX's score)", entropy_score),
    "aecs": Score("aecs", "average class size (the paper's group size)", aecs_score),
}
