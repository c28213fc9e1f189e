"""Sweeney's Prec of any release: 1 − mean cell cost, the cost of a released cell being

- unchanged: 0;
- a hierarchy value at level ``l`` of a hierarchy of height ``H``: ``l/H`` (Sweeney 2002);
- a numeric range: its width over the width of the original's domain (max − min), capped at 1 —
  the normalised certainty penalty Mondrian's authors use for ranges;
- ``*``: 1.

On a full-domain release with suppressed records written as stars this is exactly
``privcheck.metrics.generalization.precision`` of the node (every kept cell costs its level
share, every suppressed record ``N_A``), so the numbers of ``compare`` and of the anonymization
report agree. 1 = nothing lost; higher is better.
"""

from __future__ import annotations

import numpy as np

from privcheck.utility.recoding import Recoding


def precision(rec: Recoding) -> float:
    """1 − Σ cell costs / (N · N_A)."""
    if rec.n_records == 0 or not rec.columns:
        return 1.0
    total = sum(float(np.sum(c.prec_cost[c.item])) for c in rec.columns)
    return 1.0 - total / (rec.n_records * len(rec.columns))
