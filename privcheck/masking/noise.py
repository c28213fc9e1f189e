"""Additive noise masking: uncorrelated and correlated Gaussian noise (Brand 2002's two basics).

* uncorrelated: x'_j = x_j + ε_j, ε_j ~ N(0, a·Var(X_j)) independently per attribute. Means are
  kept in expectation, variances are inflated by (1 + a), correlations shrink by 1/(1 + a).
* correlated:   x' = x + ε, ε ~ N(0, a·Σ) with Σ the covariance matrix of X. The covariance of
  the release is (1 + a)·Σ, so correlations are kept in expectation.

Var and Σ are sample moments (ddof = 1) of the original file. ``a`` > 0 is the noise level as a
fraction of the variance (a = 0.1 adds noise with 10 % of each attribute's variance). The
correlated noise is drawn through an eigendecomposition of Σ, so a singular Σ (collinear or
constant attributes) is fine.

An integer column gets integer noise: x' = x + round_half_even(ε), in exact int64 arithmetic
(float64 would round values beyond 2^53); noise that would carry a value out of the int64 range is
refused, naming the column.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Literal

import numpy as np

from privcheck.errors import DataError, PolicyError
from privcheck.masking._table import Data, numeric_table
from privcheck.masking.exact import add_int
from privcheck.masking.result import MaskingResult
from privcheck.metrics.information_loss import information_loss

SeedLike = int | np.random.Generator | None


def _check_level(a: object) -> float:
    if isinstance(a, bool) or not isinstance(a, int | float | np.integer | np.floating):
        raise PolicyError(f"the noise level a must be a positive number; got {a!r}")
    if not (math.isfinite(float(a)) and float(a) > 0):
        raise PolicyError(
            f"the noise level a (noise variance as a fraction of the attribute's variance) "
            f"must be a positive finite number; got a={a}"
        )
    return float(a)


def noise_matrix(
    values: np.ndarray, a: float, correlated: bool, rng: np.random.Generator
) -> np.ndarray:
    """The noise ε (n × p) for ``values``: N(0, a·diag Var) or N(0, a·Σ), sample moments."""
    n, p = values.shape
    if n < 2:
        raise PolicyError("noise needs at least two records to estimate the variance")
    if not correlated:
        sd = values.std(axis=0, ddof=1)
        return rng.standard_normal((n, p)) * (math.sqrt(a) * sd)
    cov = np.cov(values, rowvar=False, ddof=1).reshape(p, p)
    vals, vecs = np.linalg.eigh(a * cov)
    root = vecs * np.sqrt(np.clip(vals, 0.0, None))  # root @ root.T == a·Σ
    return rng.standard_normal((n, p)) @ root.T


def add_noise(
    data: Data,
    a: float,
    *,
    kind: Literal["uncorrelated", "correlated"] = "uncorrelated",
    seed: SeedLike = None,
    columns: Sequence[Hashable] | None = None,
) -> MaskingResult:
    """Add Gaussian noise with variance a·Var(X_j) per attribute (``kind="uncorrelated"``) or
    covariance a·Σ (``kind="correlated"``). ``seed`` is not published in ``params``.
    """
    if kind not in ("uncorrelated", "correlated"):
        raise PolicyError(f"kind must be 'uncorrelated' or 'correlated'; got {kind!r}")
    a = _check_level(a)
    table = numeric_table(data, columns)
    rng = np.random.default_rng(seed)
    noise = noise_matrix(table.values, a, kind == "correlated", rng)
    masked = table.values + noise
    integers = {}
    for j in table.integer_columns():  # an integer column gets the noise rounded to an integer
        step = np.rint(noise[:, j])
        if np.any(np.abs(step) >= 2.0**63):
            raise DataError(
                f"column {table.columns[j]!r}: the noise exceeds the 64-bit integer range, so it "
                "cannot be released as an exact integer; rescale the column or lower a"
            )
        integers[j] = add_int(table.exact[j], step.astype(np.int64), table.columns[j])
        masked[:, j] = table.shifted(j, integers[j])
    return MaskingResult(
        method="noise",
        params={
            "a": a,
            "kind": kind,
            "columns": list(table.columns),
            "moments": "sample",
            **({"integer_columns": "value + noise rounded half to even"} if integers else {}),
        },
        masked=table.rebuild(masked, integers),
        information_loss=information_loss(table.values, masked),
        integers={table.columns[j]: v for j, v in integers.items()},
    )
