"""Uniqueness and the prosecutor / journalist / marketer re-identification risks.

These are functions of the equivalence-class sizes only: f_k, the number of released records in
class k (records sharing their quasi-identifier values), and optionally F_k, the size of the same
class in the population (or identification database). They take numpy arrays so they plug
straight onto a class table's size column.

Definitions follow El Emam ("Guide to the De-Identification of Personal Health Information") as
ARX implements them (``RiskModelSampleSummary``), all record-weighted:

- prosecutor (the intruder knows the target is in the release): record risk 1/f_k; highest risk
  1/min f; average risk Σ_records (1/f_k) / n = #classes / n; records at risk = share of records
  whose risk exceeds the threshold.
- journalist (the target is in the population, the release is a sample of it): record risk
  1/F_k; highest 1/min F over the released classes; records at risk likewise; average risk
  max(#classes / Σ_k F_k, Σ_k (f_k/F_k) / n).
- marketer (re-identify as many records as possible): Σ_k (f_k/F_k) / n.

Without population sizes F = f (the release is the population), so journalist = prosecutor and
marketer = #classes / n. Note pyCANON averages 1/|class| over classes instead of records, which
overstates the risk of a release whose few classes are small; that is not what these tools mean.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from privcheck.errors import DataError, PolicyError
from privcheck.risk.results import RecordRiskSummary, UniquenessResult


def _sizes(values: Any, name: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1 or arr.size == 0:
        raise DataError(f"{name} must be a non-empty 1-D array of class sizes")
    if not np.issubdtype(arr.dtype, np.number) or not np.all(np.isfinite(arr)):
        raise DataError(f"{name} must hold finite numbers")
    if np.any(arr < 1) or np.any(arr != np.round(arr)):
        raise DataError(f"{name} must be positive integers (records per class)")
    return arr.astype(np.int64)


def class_sizes_of(keys: Any) -> tuple[np.ndarray, np.ndarray]:
    """Class sizes and each record's class from per-record keys.

    ``keys`` is a 1-D array of class labels or a DataFrame of quasi-identifier columns (a class
    is a distinct row). Returns ``(class_sizes, class_of_record)``. Missing values form their own
    class rather than vanishing (a record is never dropped).
    """
    if isinstance(keys, pd.DataFrame):
        if keys.shape[1] == 0:
            raise PolicyError("give at least one quasi-identifier column")
        codes = [pd.factorize(keys[c], use_na_sentinel=False)[0] for c in keys.columns]
        inverse, _ = pd.factorize(
            pd.MultiIndex.from_arrays(codes) if len(codes) > 1 else codes[0], sort=True
        )
    else:
        inverse, _ = pd.factorize(pd.Series(np.asarray(keys)), sort=True, use_na_sentinel=False)
    inverse = np.asarray(inverse, dtype=np.int64)
    return np.bincount(inverse), inverse


def record_risks(
    class_sizes: Any, class_of_record: Any, population_sizes: Any | None = None
) -> dict[str, np.ndarray]:
    """Per-record prosecutor risk 1/f and journalist risk 1/F (F = f without a population)."""
    f = _sizes(class_sizes, "class_sizes")
    idx = np.asarray(class_of_record, dtype=np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= len(f)):
        raise DataError(f"class_of_record must index the {len(f)} classes")
    big_f = f if population_sizes is None else _sizes(population_sizes, "population_sizes")
    return {"prosecutor": 1.0 / f[idx], "journalist": 1.0 / big_f[idx]}


def uniqueness_risk(
    class_sizes: Any, population_sizes: Any | None = None, *, threshold: float = 0.2
) -> UniquenessResult:
    """Sample uniques and the prosecutor, journalist and marketer risks of a release.

    ``class_sizes``: f_k per class (records of the release); ``population_sizes``: F_k for the
    same classes, F_k ≥ f_k. ``threshold``: a record is at risk when its risk exceeds it (ARX's
    default 0.2 corresponds to k = 5). With population sizes the result also gives P(PU | SU),
    the share of sample uniques that are unique in the population.
    """
    if not 0 < threshold <= 1:
        raise PolicyError(f"threshold is a probability in (0, 1]; got {threshold}")
    f = _sizes(class_sizes, "class_sizes")
    has_pop = population_sizes is not None
    big_f = _sizes(population_sizes, "population_sizes") if has_pop else f
    if len(big_f) != len(f):
        raise DataError(
            f"population_sizes has {len(big_f)} classes but class_sizes {len(f)}; give F_k for "
            "each released class, in the same order"
        )
    if np.any(big_f < f):
        k = int(np.argmax(big_f < f))
        raise DataError(
            f"class {k} has {f[k]} released records but a population size of {big_f[k]}; the "
            "population must contain the release"
        )
    n = int(f.sum())
    n_classes = len(f)
    su = f == 1
    prosecutor_avg = n_classes / n
    journalist_avg = max(n_classes / float(big_f.sum()), float(np.sum(f / big_f)) / n)
    pu_given_su = None
    population_uniques = None
    if has_pop:
        population_uniques = int(np.sum(big_f == 1))
        pu_given_su = float(np.sum(su & (big_f == 1)) / su.sum()) if su.any() else 0.0
    return UniquenessResult(
        n_records=n,
        n_classes=n_classes,
        sample_uniques=int(su.sum()),
        sample_uniqueness=float(su.sum() / n),
        threshold=threshold,
        prosecutor_records_at_risk=float(f[1.0 / f > threshold].sum() / n),
        prosecutor_highest_risk=float(1.0 / f.min()),
        prosecutor_average_risk=prosecutor_avg,
        journalist_records_at_risk=float(f[1.0 / big_f > threshold].sum() / n),
        journalist_highest_risk=float(1.0 / big_f.min()),
        journalist_average_risk=journalist_avg,
        marketer_average_risk=float(np.sum(f / big_f)) / n,
        population_uniques=population_uniques,
        population_uniqueness_of_sample_uniques=pu_given_su,
        has_population=has_pop,
        prosecutor_record_risk_summary=RecordRiskSummary.of(np.repeat(1.0 / f, f)),
    )
