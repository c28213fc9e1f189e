"""Turning a block of scores into links: best set, tie handling, summary rates.

Every linkage attack (distance-based, probabilistic, learned, transparency) ends the same way:
for each intruder record a row of scores over the masked records (lower is better, ``inf`` =
not a candidate), from which we take the anonymity set A_b (all masked records whose score is
within a tolerance of the best), the single link (one member of A_b drawn uniformly at random)
and whether the true record is in A_b. Sharing this step keeps the tie semantics identical
across attacks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Links:
    """Per intruder record: chosen link, |A_b| and whether the true masked record is in A_b."""

    link: np.ndarray  # int64, -1 when the record has no candidate at all
    set_size: np.ndarray  # int64, 0 when no candidate
    true_in: np.ndarray  # bool

    @classmethod
    def empty(cls, n: int) -> Links:
        return cls(
            np.full(n, -1, dtype=np.int64),
            np.zeros(n, dtype=np.int64),
            np.zeros(n, dtype=bool),
        )

    def put(self, rows: slice | np.ndarray, other: Links) -> None:
        self.link[rows] = other.link
        self.set_size[rows] = other.set_size
        self.true_in[rows] = other.true_in

    def credit(self) -> np.ndarray:
        """1/|A_b| when the true record is in A_b, else 0 (the anonymity-set credit)."""
        size = np.maximum(self.set_size, 1)
        return np.where(self.true_in, 1.0 / size, 0.0)

    def rates(self, true_index: np.ndarray) -> dict[str, float]:
        n = max(len(self.link), 1)
        correct = self.link == true_index
        return {
            "reidentification_rate": float(correct.sum() / n),
            "anonymity_set_rate": float(self.credit().sum() / n),
            "certain_rate": float(np.sum(self.true_in & (self.set_size == 1)) / n),
            "mean_anonymity_set_size": float(self.set_size[self.set_size > 0].mean())
            if np.any(self.set_size > 0)
            else 0.0,
        }


def resolve(
    scores: np.ndarray,
    true_cols: np.ndarray,
    tol: np.ndarray | float,
    rng: np.random.Generator,
    work: np.ndarray | None = None,
) -> Links:
    """Best set per row of ``scores`` (rows = intruder records, columns = masked records).

    A masked record is in A_b when its score is ≤ best + ``tol`` (per row or scalar): scores
    computed in floating point differ by rounding for records that are equally close, and an
    exact comparison would split such ties arbitrarily. ``inf`` marks non-candidates.
    ``work``: an optional boolean buffer of at least the scores' shape, reused for the tie mask
    (saves a large allocation per block on a hot path).
    """
    n_rows = scores.shape[0]
    out = Links.empty(n_rows)
    if n_rows == 0 or scores.shape[1] == 0:
        return out
    rows = np.arange(n_rows)
    link = scores.argmin(axis=1).astype(np.int64)
    best = scores[rows, link]
    thr = best + tol
    if work is None:
        ties = scores <= thr[:, None]
    else:
        ties = work.reshape(-1)[: scores.size].reshape(scores.shape)
        np.less_equal(scores, thr[:, None], out=ties)
    has = np.isfinite(best)
    if not has.all():  # rows without any candidate: no set, no link
        ties[~has] = False
        link[~has] = -1
    size = np.count_nonzero(ties, axis=1)
    true_in = ties[rows, true_cols]
    multi = np.flatnonzero(size > 1)
    if multi.size:
        # draw the u-th member of A_b (u uniform in [0, |A_b|)) for the tied rows only
        u = rng.integers(0, size[multi])
        cs = np.cumsum(ties[multi], axis=1)
        link[multi] = np.argmax(cs > u[:, None], axis=1)
    out.link[:] = link
    out.set_size[:] = size
    out.true_in[:] = true_in
    return out
