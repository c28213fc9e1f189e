"""Information loss of a numerically masked file: SSE/SST, IL1s and moment divergences.

All measures compare an original file X (n × p) with its masked version X' (same shape, rows
aligned: row i of X' is the masked record i). They are what statistical agencies report for
microaggregation, noise and swapping (sdcMicro, μ-Argus), so that figures can be compared with the
literature:

* SSE/SST (%) = 100 · Σ_ij (z_ij − z'_ij)² / Σ_ij (z_ij − z̄_j)², with z = (x − x̄_j)/s_j and the
  SAME transformation (the original's mean and population sd) applied to X'. For
  microaggregation with the mean this is the within-group SSE of the classical papers (see
  `within_group_sse_sst`, which takes group labels instead of a masked file).
* IL1s = 1/(n·p) · Σ_ij |x_ij − x'_ij| / (√2 · S_j), S_j the sample sd (ddof = 1) of original
  column j (Mateo-Sanz, Sebé & Domingo-Ferrer 2004, as documented by sdcMicro's ``dUtility``).
  sdcMicro's code computes |x − x'| / S_j · √2, twice the documented value; pass
  ``convention="sdcmicro"`` to get that number for comparison.
* Divergences of the first two moments, on the original's z-scale (so they are unit free):
  mean: avg_j |x̄'_j − x̄_j| / s_j; variance: avg_j |var'_j − var_j| / var_j; covariance:
  avg_{j<l} |cov'_jl − cov_jl| / (s_j s_l); correlation: avg_{j<l} |r'_jl − r_jl| (a correlation
  with a constant column counts as 0). Population moments (ddof = 0) throughout.

A constant original column gets scale 1 wherever a standard deviation divides, instead of a
division by zero.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, Field

from privcheck.errors import DataError, PolicyError

ArrayLike = np.ndarray | pd.DataFrame


class InformationLoss(BaseModel):
    """Information-loss figures of one release (see the module docstring for the formulas)."""

    sse_sst: float = Field(description="100·SSE/SST on the original's z-scale (%)")
    il1s: float = Field(description="IL1s: mean |x − x'| / (√2·S_j), published definition")
    mean_divergence: float = Field(description="avg_j |Δ mean_j| / s_j")
    variance_divergence: float = Field(description="avg_j |Δ var_j| / var_j")
    covariance_divergence: float | None = Field(
        description="avg_{j<l} |Δ cov_jl| / (s_j s_l); null with one attribute"
    )
    correlation_divergence: float | None = Field(
        description="avg_{j<l} |Δ r_jl|; null with one attribute"
    )


def _as_matrix(a: ArrayLike, what: str) -> np.ndarray:
    m = a.to_numpy(dtype=np.float64) if isinstance(a, pd.DataFrame) else np.asarray(a, float)
    if m.ndim == 1:
        m = m[:, None]
    if m.ndim != 2:
        raise DataError(f"{what} must be a 1-D or 2-D table; got {m.ndim} dimensions")
    if not np.isfinite(m).all():
        raise DataError(f"{what} has missing or infinite values; information loss needs numbers")
    return m


def _pair(original: ArrayLike, masked: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    x = _as_matrix(original, "the original file")
    y = _as_matrix(masked, "the masked file")
    if x.shape != y.shape:
        raise DataError(
            f"the original {x.shape} and masked {y.shape} files must have the same shape, "
            "with rows aligned (keep the record order when masking)"
        )
    if x.shape[0] == 0:
        raise DataError("the files have no records")
    return x, y


def _scale(x: np.ndarray, ddof: int = 0) -> np.ndarray:
    sd = x.std(axis=0, ddof=ddof) if x.shape[0] > ddof else np.zeros(x.shape[1])
    return np.where(sd > 0, sd, 1.0)


def sse_sst(original: ArrayLike, masked: ArrayLike) -> float:
    """100·SSE/SST (%) of the masked file on the original's z-scale (0 = nothing lost)."""
    x, y = _pair(original, masked)
    mu, sd = x.mean(axis=0), _scale(x)
    zx, zy = (x - mu) / sd, (y - mu) / sd
    sst = float(np.sum(zx * zx))
    if sst == 0.0:
        raise DataError("every attribute is constant in the original file; SSE/SST is undefined")
    return 100.0 * float(np.sum((zx - zy) ** 2)) / sst


def within_group_sse_sst(original: ArrayLike, labels: np.ndarray) -> float:
    """100·SSE/SST (%) of a grouping: SSE about each group's centroid of the z-scored data.

    This is the information-loss figure of the microaggregation literature (the golden CASC
    values); it does not depend on how a group's released value is chosen.
    """
    x = _as_matrix(original, "the original file")
    lab = np.asarray(labels)
    if lab.shape != (x.shape[0],):
        raise DataError(f"labels must have one entry per record ({x.shape[0]}); got {lab.shape}")
    z = (x - x.mean(axis=0)) / _scale(x)
    _, inv = np.unique(lab, return_inverse=True)
    sizes = np.bincount(inv).astype(np.float64)
    sst = float(np.sum(z * z))
    if sst == 0.0:
        raise DataError("every attribute is constant in the original file; SSE/SST is undefined")
    sums = np.stack([np.bincount(inv, weights=z[:, j]) for j in range(z.shape[1])], axis=1)
    centroids = sums / sizes[:, None]
    return 100.0 * float(np.sum((z - centroids[inv]) ** 2)) / sst


def il1s(
    original: ArrayLike,
    masked: ArrayLike,
    convention: Literal["published", "sdcmicro"] = "published",
) -> float:
    """IL1s: mean over cells of |x − x'| / (√2·S_j), S_j the original column's sample sd.

    ``convention="sdcmicro"`` returns what sdcMicro's ``dUtility(method="IL1")`` code computes,
    |x − x'| / S_j · √2 (twice the published value), for comparisons with that tool.
    """
    if convention not in ("published", "sdcmicro"):
        raise PolicyError(f"convention must be 'published' or 'sdcmicro'; got {convention!r}")
    x, y = _pair(original, masked)
    cells = np.abs(x - y) / _scale(x, ddof=1)
    factor = np.sqrt(2.0) if convention == "sdcmicro" else 1.0 / np.sqrt(2.0)
    return float(cells.mean() * factor)


def _corr(cov: np.ndarray) -> np.ndarray:
    d = np.sqrt(np.diag(cov))
    with np.errstate(divide="ignore", invalid="ignore"):
        r = cov / np.outer(d, d)
    return np.where(np.outer(d, d) > 0, r, 0.0)


def moment_divergences(original: ArrayLike, masked: ArrayLike) -> dict[str, float | None]:
    """Divergences of means, variances, covariances and correlations (module docstring)."""
    x, y = _pair(original, masked)
    mu, sd = x.mean(axis=0), _scale(x)
    zx, zy = (x - mu) / sd, (y - mu) / sd
    cx = np.cov(zx, rowvar=False, ddof=0).reshape(x.shape[1], x.shape[1])
    cy = np.cov(zy, rowvar=False, ddof=0).reshape(x.shape[1], x.shape[1])
    out: dict[str, float | None] = {
        "mean_divergence": float(np.mean(np.abs(zy.mean(axis=0)))),
        "variance_divergence": float(np.mean(np.abs(np.diag(cy) - np.diag(cx)))),
        "covariance_divergence": None,
        "correlation_divergence": None,
    }
    if x.shape[1] > 1:
        iu = np.triu_indices(x.shape[1], k=1)
        out["covariance_divergence"] = float(np.mean(np.abs(cy[iu] - cx[iu])))
        out["correlation_divergence"] = float(np.mean(np.abs(_corr(cy)[iu] - _corr(cx)[iu])))
    return out


def information_loss(original: ArrayLike, masked: ArrayLike) -> InformationLoss:
    """All the figures above for one release."""
    return InformationLoss(
        sse_sst=sse_sst(original, masked),
        il1s=il1s(original, masked),
        **moment_divergences(original, masked),
    )
