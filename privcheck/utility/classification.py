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
heaviest_boxes``) — for a full-domain release that is its value's ancestor at the node, for
local suppression and Mondrian the class it would have joined. Features are the quasi-identifiers
only: the other columns are released unchanged and would dilute the loss.

Model: scikit-learn's ``LogisticRegression`` (L2, C = 1; liblinear for two classes,
multinomial L-BFGS for more) on the sparse one-hot features — one of the classifiers ARX's
utility analysis offers; deterministic with the seed, and as accurate as a 50-tree forest on
Adult's quasi-identifiers (0.838 against 0.834 predicting salary-class). Identical training
rows are fit once with their count as weight (the same objective), so a release's few hundred
distinct rows fit in milliseconds. The original's
model depends on the original, the split and the seed only: ``original_accuracy`` fits it once
and ``compare`` shares it between every release of the same original. scikit-learn is the
``risk`` extra.
Reported: both accuracies and the loss in percentage points (original − release).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from privcheck.classes import first_rows, group
from privcheck.errors import PolicyError
from privcheck.utility.kl_divergence import heaviest_boxes
from privcheck.utility.recoding import Recoding

#: inverse regularisation strength of the logistic regression (scikit-learn's default)
C = 1.0
MAX_ITER = 1_000
#: most rows trained on / evaluated on (seeded uniform samples beyond)
MAX_TRAIN = 50_000
MAX_TEST = 50_000


@dataclass(frozen=True)
class ClassificationResult:
    accuracy_original: float
    accuracy_release: float

    @property
    def loss_points(self) -> float:
        """Accuracy lost by training on the release, in percentage points."""
        return 100.0 * (self.accuracy_original - self.accuracy_release)


def _one_hot(codes: np.ndarray, widths: list[int]):
    """One indicator per (column, code): a sparse matrix with one entry per cell."""
    from scipy import sparse

    n, q = codes.shape
    offsets = np.r_[0, np.cumsum(widths)[:-1]].astype(np.int64)
    cols = (codes + offsets[None, :]).reshape(-1)
    rows = np.repeat(np.arange(n), q)
    width = int(sum(widths))
    return sparse.csr_matrix((np.ones(n * q, dtype=np.float64), (rows, cols)), shape=(n, width))


def _model(seed: int, n_classes: int):
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError:
        raise PolicyError(
            "classification utility needs scikit-learn: pip install 'privcheck[risk]'"
        ) from None
    solver = "liblinear" if n_classes == 2 else "lbfgs"
    return LogisticRegression(C=C, solver=solver, max_iter=MAX_ITER, random_state=seed)


def _distinct_rows(columns: list[np.ndarray], cards: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(group of every row, first row of every group) of the rows' value tuples."""
    if not columns:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    inverse, n_groups = group(columns, cards)
    return inverse, first_rows(inverse, n_groups)


def fit_predict(
    train: np.ndarray, y: np.ndarray, test: np.ndarray, widths: list[int], seed: int
) -> np.ndarray:
    """Class codes predicted for the ``test`` rows (codes per feature column) by a logistic
    regression on the one-hot ``train`` rows with targets ``y`` (a single class: that class).

    Identical rows carry the same loss, so the model is fit on the distinct (row, target)
    pairs weighted by their counts — the same objective, a fraction of the rows — and
    predicts each distinct test row once."""
    classes = np.unique(y)
    if len(classes) == 1:
        return np.full(len(test), classes[0], dtype=y.dtype)
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    q = train.shape[1]
    cards = [*widths, int(y.max()) + 1]
    pair, first = _distinct_rows([train[:, j] for j in range(q)] + [y], cards)
    weight = np.bincount(pair, minlength=len(first)).astype(np.float64)
    model = _model(seed, len(classes))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(_one_hot(train[first], widths), y[first], sample_weight=weight)
    rows, first = _distinct_rows([test[:, j] for j in range(q)], widths)
    return model.predict(_one_hot(test[first], widths))[rows]


def _codes(*targets: pd.Series) -> list[np.ndarray]:
    """The targets as integer codes of one shared factorization of their spellings."""
    joined = pd.concat([t.astype(str).reset_index(drop=True) for t in targets], ignore_index=True)
    codes, _ = pd.factorize(joined)
    out, start = [], 0
    for t in targets:
        out.append(np.asarray(codes[start : start + len(t)], dtype=np.int64))
        start += len(t)
    return out


def split(n: int, test_share: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Training and held-out row numbers (a seeded permutation); on a large table at most
    ``MAX_TRAIN`` / ``MAX_TEST`` of each, a uniform sample (the forest on 700 k rows takes
    minutes; the accuracies of 50 k are within a fraction of a point)."""
    perm = np.random.default_rng(seed).permutation(n)
    n_test = min(max(1, round(n * test_share)), MAX_TEST)
    n_train = min(n - n_test, MAX_TRAIN)
    return np.sort(perm[n_test : n_test + n_train]), np.sort(perm[:n_test])


def original_accuracy(
    rec: Recoding, original_target: pd.Series, *, test_share: float = 0.3, seed: int = 0
) -> float:
    """Accuracy on the held-out original rows of the model trained on the original's training
    rows (features: one indicator per original value present)."""
    train, test = split(rec.n_records, test_share, seed)
    if len(train) == 0:
        raise PolicyError("classification utility needs at least two records")
    (y,) = _codes(original_target)
    grounds = rec.grounds
    present = [np.cumsum(c.freq > 0) - 1 for c in rec.columns]
    x = np.stack([p[grounds[:, j]] for j, p in enumerate(present)], axis=1)
    widths = [int(p[-1]) + 1 for p in present]
    predicted = fit_predict(x[train], y[train], x[test], widths, seed)
    return float(np.mean(predicted == y[test]))


def classification_utility(
    rec: Recoding,
    original_target: pd.Series,
    released_target: pd.Series,
    *,
    test_share: float = 0.3,
    seed: int = 0,
    accuracy_original: float | None = None,
) -> ClassificationResult:
    """Accuracy on held-out original rows of the model trained on the original and on the
    release (module docstring). ``accuracy_original``: the original's figure when the caller
    has it already (``original_accuracy`` of the same original, split and seed)."""
    if not rec.aligned:
        raise PolicyError("classification utility needs the release's rows in the original's order")
    n = rec.n_records
    train, test = split(n, test_share, seed)
    if len(train) == 0:
        raise PolicyError("classification utility needs at least two records")
    if accuracy_original is None:
        accuracy_original = original_accuracy(
            rec, original_target, test_share=test_share, seed=seed
        )
    y_orig, y_rel = _codes(original_target, released_target)
    items = rec.items
    # release model: one indicator per released item; held-out originals in the release's terms
    i_widths = [c.n_items for c in rec.columns]
    # the held-out records' distinct original tuples, each mapped once
    points, _, point_of_row = rec.distinct("grounds")
    wanted = np.unique(point_of_row[test])
    mapped = heaviest_boxes(rec, wanted)
    slot = np.zeros(len(points), dtype=np.int64)
    slot[wanted] = np.arange(len(mapped))
    x_test = mapped[slot[point_of_row[test]]]
    predicted = fit_predict(items[train], y_rel[train], x_test, i_widths, seed)
    acc_rel = float(np.mean(predicted == y_orig[test]))
    return ClassificationResult(accuracy_original, acc_rel)
