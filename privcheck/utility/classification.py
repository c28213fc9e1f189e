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
#: stopping tolerance of the solver: LIBLINEAR's own default for L2-regularised logistic
#: regression (scikit-learn passes 1e-4, which costs twice the time on Adult's original model
#: and moves its held-out accuracy by less than 0.001)
TOL = 1e-2
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
    # row i holds its q indicators at increasing columns: the CSR arrays directly
    cols = (codes + offsets[None, :]).reshape(-1).astype(np.int32)
    indptr = np.arange(0, n * q + 1, q, dtype=np.int32)
    width = int(sum(widths))
    return sparse.csr_matrix((np.ones(n * q, dtype=np.float64), cols, indptr), shape=(n, width))


def _model(seed: int, n_classes: int):
    try:
        from sklearn.linear_model import LogisticRegression
    except ImportError:
        raise PolicyError(
            "classification utility needs scikit-learn: pip install 'privcheck[risk]'"
        ) from None
    solver = "liblinear" if n_classes == 2 else "lbfgs"
    return LogisticRegression(C=C, solver=solver, tol=TOL, max_iter=MAX_ITER, random_state=seed)


def _distinct_rows(columns: list[np.ndarray], cards: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(group of every row, first row of every group) of the rows' value tuples: one sort of
    the combined key when the key space fits an int64, the project's group-by otherwise."""
    if not columns:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if float(np.prod([max(c, 1) for c in cards], dtype=np.float64)) < 2.0**62:
        key = np.ravel_multi_index(tuple(np.asarray(c, dtype=np.int64) for c in columns), cards)
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        return inverse.reshape(-1), first
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
    """The targets as integer codes of one shared factorization of their spellings (each
    column factorized on its own, then only the distinct spellings matched up)."""
    out: list[np.ndarray] = []
    index: dict[str, int] = {}
    for t in targets:
        codes, uniques = pd.factorize(t, use_na_sentinel=False)
        spelled = pd.Series(np.asarray(uniques, dtype=object)).astype(str)
        shared = np.array([index.setdefault(v, len(index)) for v in spelled], dtype=np.int64)
        out.append(shared[codes] if len(shared) else np.zeros(len(t), dtype=np.int64))
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
