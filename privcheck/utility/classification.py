"""Classification utility: does a model trained on the release predict as well as one trained
on the original?

The rows are split once (seeded) into a training part and a held-out part (``test_share``; on a
large table at most 50,000 rows of each, a uniform sample).

- *release model*: trained on the release's training rows — features the released
  quasi-identifier values, target the release's ``target`` column;
- *original model*: the same pipeline trained on the original's training rows;
- both are evaluated on the held-out rows of the ORIGINAL: that is the analyst's question (what
  the model will meet in the world), the release being only the training material.

Encoding: every quasi-identifier is one-hot encoded by its released items (a hierarchy value at
its level, a range, ``*``: one indicator each; the original model: one per original value). A
held-out original record must be written in the release's recoding: it is mapped to the
released tuple of the largest released class whose box contains it (``kl_divergence.
containing_boxes``) — for a full-domain release that is its value's ancestor at the node, for
local suppression and Mondrian the class it would have joined. Features are the quasi-identifiers
only: the other columns are released unchanged and would dilute the loss.

Model: scikit-learn's ``RandomForestClassifier`` with a fixed small size (50 trees, leaves of at
least 2 records, one thread) and the seed, so the figures repeat exactly. scikit-learn is the
``risk`` extra. Reported: both accuracies and the loss in percentage points (original − release).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from privcheck.errors import PolicyError
from privcheck.utility.kl_divergence import containing_boxes
from privcheck.utility.recoding import Recoding

N_TREES = 50
MIN_LEAF = 2
#: most rows trained on / evaluated on (seeded uniform samples beyond)
MAX_TRAIN = 50_000
MAX_TEST = 50_000
#: largest one-hot matrix built dense (float32 cells); larger ones are sparse
DENSE_CELLS = 20_000_000


@dataclass(frozen=True)
class ClassificationResult:
    accuracy_original: float
    accuracy_release: float

    @property
    def loss_points(self) -> float:
        """Accuracy lost by training on the release, in percentage points."""
        return 100.0 * (self.accuracy_original - self.accuracy_release)


def _one_hot(codes: np.ndarray, widths: list[int]):
    from scipy import sparse

    n, q = codes.shape
    offsets = np.r_[0, np.cumsum(widths)[:-1]].astype(np.int64)
    cols = (codes + offsets[None, :]).reshape(-1)
    rows = np.repeat(np.arange(n), q)
    width = int(sum(widths))
    if n * width <= DENSE_CELLS:  # the forest fits dense input ~2.5× faster than sparse
        dense = np.zeros((n, width), dtype=np.float32)
        dense[rows, cols] = 1.0
        return dense
    return sparse.csr_matrix((np.ones(n * q, dtype=np.float32), (rows, cols)), shape=(n, width))


def _model(seed: int):
    try:
        from sklearn.ensemble import RandomForestClassifier
    except ImportError:
        raise PolicyError(
            "classification utility needs scikit-learn: pip install 'privcheck[risk]'"
        ) from None
    return RandomForestClassifier(
        n_estimators=N_TREES, min_samples_leaf=MIN_LEAF, random_state=seed, n_jobs=1
    )


def split(n: int, test_share: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Training and held-out row numbers (a seeded permutation); on a large table at most
    ``MAX_TRAIN`` / ``MAX_TEST`` of each, a uniform sample (the forest on 700 k rows takes
    minutes; the accuracies of 50 k are within a fraction of a point)."""
    perm = np.random.default_rng(seed).permutation(n)
    n_test = min(max(1, round(n * test_share)), MAX_TEST)
    n_train = min(n - n_test, MAX_TRAIN)
    return np.sort(perm[n_test : n_test + n_train]), np.sort(perm[:n_test])


def classification_utility(
    rec: Recoding,
    original_target: pd.Series,
    released_target: pd.Series,
    *,
    test_share: float = 0.3,
    seed: int = 0,
) -> ClassificationResult:
    """Accuracy on held-out original rows of the model trained on the original and on the
    release (module docstring)."""
    n = rec.n_records
    train, test = split(n, test_share, seed)
    if len(train) == 0:
        raise PolicyError("classification utility needs at least two records")
    y_orig = original_target.astype(str).to_numpy()
    y_rel = released_target.astype(str).to_numpy()
    grounds, items = rec.grounds, rec.items
    # original model: one indicator per value present in the original
    present = [np.cumsum(c.freq > 0) - 1 for c in rec.columns]
    x_orig = _one_hot(
        np.stack([p[grounds[:, j]] for j, p in enumerate(present)], axis=1),
        [int(p[-1]) + 1 for p in present],
    )
    m_orig = _model(seed).fit(x_orig[train], y_orig[train])
    acc_orig = float(np.mean(m_orig.predict(x_orig[test]) == y_orig[test]))
    # release model: one indicator per released item; held-out originals in the release's terms
    i_widths = [c.n_items for c in rec.columns]
    m_rel = _model(seed).fit(_one_hot(items[train], i_widths), y_rel[train])
    # the held-out records' distinct original tuples, each mapped once
    points, _, point_of_row = rec.distinct("grounds")
    mapped, _ = containing_boxes(rec, points[np.unique(point_of_row[test])])
    slot = np.zeros(len(points), dtype=np.int64)
    slot[np.unique(point_of_row[test])] = np.arange(len(mapped))
    x_test = _one_hot(mapped[slot[point_of_row[test]]], i_widths)
    acc_rel = float(np.mean(m_rel.predict(x_test) == y_orig[test]))
    return ClassificationResult(acc_orig, acc_rel)
