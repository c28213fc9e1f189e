"""The loss of any release (docs/anonymization.md, "Metrics": the one definition every
anonymizer reports): a released cell whose cover holds ``m`` of the ``D`` ground values of its
quasi-identifier costs ``(m − 1)/(D − 1)`` — a value released as itself 0, ``*`` 1 — and the
loss is the mean over the cells of every input record (a record the release leaves out is read
as ``*``: 1 per cell). The covers are ``recoding``'s, over the ground domain as privcheck
resolves it (a table hierarchy's rows, else the original's distinct values), so on an
anonymizer's release this equals the ``loss`` of its report. 0 = nothing lost; lower is better.
"""

from __future__ import annotations

import numpy as np

from privcheck.utility.recoding import Recoding


def loss(rec: Recoding) -> float:
    """Mean over cells of (ground values covered − 1) / (ground values − 1)."""
    if rec.n_records == 0 or not rec.columns:
        return 0.0
    total = 0.0
    for c in rec.columns:
        domain = c.cover.shape[1]
        if domain <= 1:
            continue
        share = (c.cover.sum(axis=1) - 1) / (domain - 1)
        total += float(np.bincount(c.item, minlength=c.n_items) @ share)
    return total / (rec.n_records * len(rec.columns))
