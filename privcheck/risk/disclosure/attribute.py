"""Attribute disclosure: how much the release tells about a record's original values.

Identity disclosure asks "which released record is Alice's?"; attribute disclosure asks "what is
Alice's income?", which a release can answer even when no record can be linked. Measures here
compare the original file X and the release X' record by record (rows aligned by position):

- Interval disclosure for numeric attributes (Domingo-Ferrer, Mateo-Sanz & Torra 2001, restated
  in Torra's "A Guide to Data Privacy", ch. 3). Around each masked value v' an interval is built;
  the original value is disclosed when it falls inside, i.e. an intruder who reads v' learns an
  interval that contains the truth.
    * rank-based: the interval spans the values whose ranks in the attribute's (masked) marginal
      differ from the rank of v' by at most w = ⌊p·n/100⌋;
    * standard-deviation-based (SDID, Mateo-Sanz, Sebé & Domingo-Ferrer 2004):
      [v' − p/100·σ, v' + p/100·σ] with σ the original attribute's standard deviation.
  The usual score averages the disclosed share over attributes and over p = 1 … 10
  (``average_interval_disclosure``). ``sdcmicro_drisk`` reproduces sdcMicro's ``dRisk`` exactly
  (σ of the masked attribute, interval ±k·σ, a record counts when at most one attribute falls
  outside), for comparison with that package.
- SADR for categorical attributes: the share of records whose released category equals the
  original one (the categorical counterpart of interval disclosure), with the agreement an
  independent shuffle of the release would leave as the baseline.
- Model-based disclosure: a scikit-learn learner trained on the release predicts the original
  target from the original values of the other attributes (what an intruder who knows them would
  do), evaluated by k-fold cross-validation so a record's own masked row is never in the
  training fold that predicts it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from privcheck.errors import DataError, PolicyError
from privcheck.risk.linkage.inputs import TableLike, exact_floats, numeric_columns
from privcheck.risk.results import (
    CategoricalDisclosureResult,
    IntervalDisclosureResult,
    ModelDisclosureResult,
    RecordRiskSummary,
)
from privcheck.risk.transparency.univariate import rank_interval


def _aligned_numeric(
    original: TableLike, masked: TableLike, attributes: Sequence[str] | None
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    if attributes is None and isinstance(original, pd.DataFrame):
        attributes = [str(c) for c in original.columns]
    cols, names = numeric_columns(original, "the original file", attributes)
    cols_m, _ = numeric_columns(
        masked, "the masked file", attributes if isinstance(masked, pd.DataFrame) else None
    )
    if len(cols) != len(cols_m):
        raise DataError(
            f"the original file has {len(cols)} attributes and the masked file {len(cols_m)}; "
            "attribute disclosure compares them attribute by attribute"
        )
    # one exact shift of an integer column in both files (values near 2^60 stay apart)
    x, xm = exact_floats([cols, cols_m], names)
    if x.shape != xm.shape:
        raise DataError(
            f"the original file is {x.shape[0]} × {x.shape[1]} and the masked file "
            f"{xm.shape[0]} × {xm.shape[1]}; attribute disclosure compares them row by row, "
            "so they must hold the same records (aligned by position) and attributes"
        )
    return x, xm, names


def _check_p(p: float) -> None:
    if not 0 < p <= 100:
        raise PolicyError(f"p is a percentage in (0, 100]; got p={p}")


def _interval_result(
    method: str, params: dict, names: list[str], disclosed: np.ndarray
) -> IntervalDisclosureResult:
    per_attr = disclosed.mean(axis=0)
    record = disclosed.mean(axis=1)
    return IntervalDisclosureResult(
        method=method,
        params=params,
        attributes=names,
        n_records=len(disclosed),
        rate=float(per_attr.mean()),
        record_rate=float(disclosed.all(axis=1).mean()),
        per_attribute=dict(zip(names, per_attr.tolist(), strict=True)),
        record_risk_summary=RecordRiskSummary.of(record),
        record_risk=record,
        disclosed=disclosed,
    )


def rank_interval_disclosure(
    original: TableLike,
    masked: TableLike,
    p: float = 10.0,
    *,
    attributes: Sequence[str] | None = None,
    centre: Literal["masked", "original"] = "masked",
) -> IntervalDisclosureResult:
    """Rank-based interval disclosure with window p % of the records.

    ``centre='masked'`` (the definition of Domingo-Ferrer et al.): the interval is centred on the
    masked value's rank in the masked marginal and the original value is tested;
    ``centre='original'``: centred on the original value's rank in the original marginal, the
    masked value tested. Tied values share a rank block, and the window extends from both ends.
    """
    _check_p(p)
    x, xm, names = _aligned_numeric(original, masked, attributes)
    if centre not in ("masked", "original"):
        raise PolicyError(f"centre must be 'masked' or 'original'; got {centre!r}")
    w = int(np.floor(p * len(x) / 100.0 + 1e-9))
    centre_vals, tested = (xm, x) if centre == "masked" else (x, xm)
    disclosed = np.empty(x.shape, dtype=bool)
    for j in range(x.shape[1]):
        s = np.sort(centre_vals[:, j])
        lo, hi = rank_interval(s, s, centre_vals[:, j], w)
        disclosed[:, j] = (lo <= tested[:, j]) & (tested[:, j] <= hi)
    return _interval_result("rank", {"p": p, "window": w, "centre": centre}, names, disclosed)


def sd_interval_disclosure(
    original: TableLike,
    masked: TableLike,
    p: float = 10.0,
    *,
    attributes: Sequence[str] | None = None,
    sd_of: Literal["original", "masked"] = "original",
) -> IntervalDisclosureResult:
    """Standard-deviation-based interval disclosure: |x − x'| ≤ p/100 · σ."""
    _check_p(p)
    if sd_of not in ("original", "masked"):
        raise PolicyError(f"sd_of must be 'original' or 'masked'; got {sd_of!r}")
    x, xm, names = _aligned_numeric(original, masked, attributes)
    sd = (x if sd_of == "original" else xm).std(axis=0, ddof=1)
    disclosed = np.abs(x - xm) <= (p / 100.0) * sd[None, :]
    return _interval_result("sd", {"p": p, "sd_of": sd_of}, names, disclosed)


def average_interval_disclosure(
    original: TableLike,
    masked: TableLike,
    method: Literal["rank", "sd"] = "rank",
    ps: Iterable[float] = range(1, 11),
    *,
    attributes: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The interval-disclosure score: the mean disclosed share over attributes and p ∈ ``ps``."""
    fn = {"rank": rank_interval_disclosure, "sd": sd_interval_disclosure}.get(method)
    if fn is None:
        raise PolicyError(f"method must be 'rank' or 'sd'; got {method!r}")
    per_p = {float(p): fn(original, masked, p, attributes=attributes).rate for p in ps}
    if not per_p:
        raise PolicyError("give at least one p")
    return {"method": method, "score": float(np.mean(list(per_p.values()))), "per_p": per_p}


def sdcmicro_drisk(
    original: TableLike,
    masked: TableLike,
    k: float = 0.05,
    *,
    attributes: Sequence[str] | None = None,
) -> float:
    """sdcMicro's ``dRisk``: share of records with at most one attribute outside xm ± k·sd(xm).

    Kept for comparison with sdcMicro only; ``sd_interval_disclosure`` is the SDID measure.
    """
    if k <= 0:
        raise PolicyError(f"k is a fraction of the standard deviation and must be > 0; got {k}")
    x, xm, _ = _aligned_numeric(original, masked, attributes)
    sd = xm.std(axis=0, ddof=1)
    outside = (x < xm - k * sd) | (x > xm + k * sd)
    return float(np.mean(outside.sum(axis=1) <= 1))


def categorical_disclosure(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    attributes: Sequence[str] | None = None,
) -> CategoricalDisclosureResult:
    """SADR: share of records whose released category equals the original, per attribute.

    Missing values compare equal to each other (a missing value released as missing discloses
    that it is missing).
    """
    if not isinstance(original, pd.DataFrame) or not isinstance(masked, pd.DataFrame):
        raise DataError("categorical disclosure needs the original and masked files as DataFrames")
    names = [str(c) for c in (attributes if attributes is not None else original.columns)]
    for frame, label in ((original, "original"), (masked, "masked")):
        missing = [c for c in names if c not in frame.columns]
        if missing:
            raise DataError(f"the {label} file has no column {missing[0]!r}")
    if len(original) != len(masked):
        raise DataError(
            f"the original file has {len(original)} records and the masked file {len(masked)}; "
            "attribute disclosure compares them row by row (aligned by position)"
        )
    disclosed = np.empty((len(original), len(names)), dtype=bool)
    baseline = {}
    for j, c in enumerate(names):
        o = original[c].reset_index(drop=True)
        m = masked[c].reset_index(drop=True)
        disclosed[:, j] = (o == m).to_numpy() | (o.isna() & m.isna()).to_numpy()
        po = o.value_counts(normalize=True, dropna=False)
        pm = m.value_counts(normalize=True, dropna=False)
        baseline[c] = float((po * pm.reindex(po.index, fill_value=0.0)).sum())
    per_attr = disclosed.mean(axis=0)
    record = disclosed.mean(axis=1)
    return CategoricalDisclosureResult(
        method="sadr",
        attributes=names,
        n_records=len(original),
        rate=float(per_attr.mean()),
        record_rate=float(disclosed.all(axis=1).mean()),
        per_attribute=dict(zip(names, per_attr.tolist(), strict=True)),
        baseline_per_attribute=baseline,
        record_risk_summary=RecordRiskSummary.of(record),
        record_risk=record,
        disclosed=disclosed,
    )


def _design(original: pd.DataFrame, masked: pd.DataFrame, features: list[str]):
    """One-hot encode the features of both files together, so their columns agree."""
    both = pd.concat([masked[features], original[features]], ignore_index=True)
    enc = pd.get_dummies(both, dummy_na=True, dtype=np.float64)
    if enc.isna().any().any():
        bad = enc.columns[enc.isna().any()][0]
        raise DataError(f"feature {bad!r} has missing numeric values; impute them first")
    arr = enc.to_numpy(dtype=np.float64)
    return arr[: len(masked)], arr[len(masked) :]


def model_disclosure(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    target: str,
    features: Sequence[str] | None = None,
    *,
    task: Literal["auto", "classification", "regression"] = "auto",
    estimator: Any | None = None,
    n_folds: int = 5,
    tolerance: float = 0.1,
    random_state: int | None = 0,
) -> ModelDisclosureResult:
    """Model-based attribute disclosure of ``target``.

    For each of ``n_folds`` folds a clone of ``estimator`` (default: a random forest) is fitted on
    the release's other folds — masked features → masked target — and predicts the held-out
    records' target from their *original* feature values. The rate is the share of records whose
    original target is predicted exactly (classification) or within ``tolerance`` standard
    deviations of the original target (regression). ``baseline_rate``: the same for the guess
    that ignores the features (the training fold's majority class or mean).
    """
    try:
        from sklearn.base import clone
        from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor
        from sklearn.model_selection import KFold
    except ImportError:
        raise PolicyError(
            "model-based disclosure needs scikit-learn, which is not installed: "
            "pip install 'privcheck[risk]' (or pip install scikit-learn)"
        ) from None

    if not isinstance(original, pd.DataFrame) or not isinstance(masked, pd.DataFrame):
        raise DataError("model-based disclosure needs the original and masked files as DataFrames")
    if len(original) != len(masked):
        raise DataError(
            f"the original file has {len(original)} records and the masked file {len(masked)}; "
            "they must be aligned by position"
        )
    for frame, label in ((original, "original"), (masked, "masked")):
        if target not in frame.columns:
            raise DataError(f"the {label} file has no target column {target!r}")
    feats = [str(c) for c in (features if features is not None else original.columns)]
    feats = [c for c in feats if c != target]
    if not feats:
        raise PolicyError("give at least one feature attribute besides the target")
    for c in feats:
        if c not in original.columns or c not in masked.columns:
            raise DataError(f"feature {c!r} is missing from the original or the masked file")
    if not 2 <= n_folds <= len(original):
        raise PolicyError(
            f"n_folds must be between 2 and the number of records ({len(original)}); got {n_folds}"
        )
    y_orig = original[target].reset_index(drop=True)
    y_mask = masked[target].reset_index(drop=True)
    if y_orig.isna().any() or y_mask.isna().any():
        raise DataError(f"the target {target!r} has missing values; drop or impute them first")
    numeric = pd.api.types.is_numeric_dtype(y_orig) and pd.api.types.is_numeric_dtype(y_mask)
    if task == "auto":
        task = "regression" if numeric and y_orig.nunique() > 20 else "classification"
    if task not in ("classification", "regression"):
        raise PolicyError(f"task must be 'auto', 'classification' or 'regression'; got {task!r}")
    if task == "regression" and not numeric:
        raise DataError(f"target {target!r} is not numeric; use task='classification'")
    if estimator is None:
        estimator = (
            RandomForestRegressor(n_estimators=100, random_state=random_state, n_jobs=-1)
            if task == "regression"
            else RandomForestClassifier(n_estimators=100, random_state=random_state, n_jobs=-1)
        )
    x_train_all, x_attack_all = _design(original, masked, feats)
    if task == "classification":
        y_m = y_mask.astype(str).to_numpy()
        y_o = y_orig.astype(str).to_numpy()
        preds = np.empty(len(y_o), dtype=object)
        base = np.empty(len(y_o), dtype=object)
    else:
        y_m = y_mask.to_numpy(dtype=np.float64)
        y_o = y_orig.to_numpy(dtype=np.float64)
        preds = np.empty(len(y_o))
        base = np.empty(len(y_o))
    folds = KFold(n_splits=n_folds, shuffle=True, random_state=random_state)
    for train, test in folds.split(x_train_all):
        model = clone(estimator).fit(x_train_all[train], y_m[train])
        preds[test] = model.predict(x_attack_all[test])
        if task == "classification":
            vals, counts = np.unique(y_m[train], return_counts=True)
            base[test] = vals[np.argmax(counts)]
        else:
            base[test] = y_m[train].mean()
    r2 = None
    tol = None
    if task == "classification":
        disclosed = preds == y_o
        base_ok = base == y_o
    else:
        tol = tolerance
        scale = tolerance * y_o.std(ddof=1)
        disclosed = np.abs(preds - y_o) <= scale
        base_ok = np.abs(base - y_o) <= scale
        ss_res = float(np.sum((y_o - preds) ** 2))
        ss_tot = float(np.sum((y_o - y_o.mean()) ** 2))
        r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else None
    disclosed = np.asarray(disclosed, dtype=bool)
    return ModelDisclosureResult(
        target=target,
        features=feats,
        task=task,
        estimator=type(estimator).__name__,
        n_records=len(y_o),
        n_folds=n_folds,
        rate=float(disclosed.mean()),
        baseline_rate=float(np.mean(base_ok)),
        r2=r2,
        tolerance=tol,
        record_risk_summary=RecordRiskSummary.of(disclosed.astype(float)),
        disclosed=disclosed,
        predictions=preds,
    )
