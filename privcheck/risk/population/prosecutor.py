"""Prosecutor re-identification risk of a table of classes: the figures a release is signed off on.

The prosecutor knows the target is in the table and its quasi-identifier values: the target is one
of the records of its equivalence class, each as likely, so a record's risk is ``1 / size`` of its
class (El Emam; ARX's and sdcMicro's risk views). Three figures summarise a table:

- ``highest`` — the largest record risk (1 / the smallest class);
- ``average`` — the mean over records (#classes / n when every class counts its own records);
- ``records_above`` — the share of records whose risk exceeds a threshold: ``1/k`` for the
  policy's k-anonymity (the largest k when several), else ``DEFAULT_THRESHOLD`` (ARX's 0.2).

Computed from a class table (one size per class, never a pass over records), so that an
anonymization report (before: the input's classes at ground values; after: the release's classes
as ``privcheck check`` forms them) and ``privcheck compare`` give the same figures. ``sizes`` is
the class size the intruder faces — under ``suppressed_cells: wildcard`` each class's effective
size (``privcheck.wildcard``) — and ``weights`` the records each class holds (default: ``sizes``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

#: the threshold of ``records_above`` when the policy has no k-anonymity model (ARX's default
#: highest acceptable risk)
DEFAULT_THRESHOLD = 0.2

#: bin edges of the record-risk distribution (bins (lo, hi]), as ARX's risk view draws it
RISK_BINS: tuple[float, ...] = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)


def policy_k(models: Iterable[Any]) -> int | None:
    """The largest k of the policy's k-anonymity models, or None when it has none."""
    ks = [int(m.k) for m in models if getattr(m, "model", None) == "k-anonymity"]
    return max(ks) if ks else None


def threshold(k: int | None) -> float:
    """The risk above which a record counts in ``records_above``: 1/k, or 0.2 without a k."""
    return 1.0 / k if k else DEFAULT_THRESHOLD


def _arrays(sizes: Any, weights: Any | None) -> tuple[np.ndarray, np.ndarray]:
    s = np.asarray(sizes, dtype=np.float64)
    w = s if weights is None else np.asarray(weights, dtype=np.float64)
    if s.shape != w.shape:
        raise ValueError("sizes and weights must have one entry per class")
    held = w > 0  # a class of no records (weighted input) carries no risk
    return s[held], w[held]


def prosecutor_risk(
    sizes: Any, weights: Any | None = None, k: int | None = None
) -> dict[str, float]:
    """``{highest, average, records_above}`` of classes of ``sizes`` holding ``weights`` records.

    ``records_above`` counts records whose risk ``1/size`` exceeds ``threshold(k)``; with a k the
    comparison is ``size < k`` in integers (1/size > 1/k without rounding). A table without
    records has no risk: every figure 0.
    """
    s, w = _arrays(sizes, weights)
    n = float(w.sum())
    if n == 0 or len(s) == 0:
        return {"highest": 0.0, "average": 0.0, "records_above": 0.0}
    risk = 1.0 / s
    above = s < k if k else risk > DEFAULT_THRESHOLD
    return {
        "highest": float(risk.max()),
        "average": float((w * risk).sum() / n),
        "records_above": float(w[above].sum() / n),
    }


def risk_histogram(
    sizes: Any, weights: Any | None = None, edges: tuple[float, ...] = RISK_BINS
) -> list[int]:
    """Records per record-risk bin ``(edges[i], edges[i+1]]`` (risk 1/size ∈ (0, 1])."""
    s, w = _arrays(sizes, weights)
    risk = 1.0 / s if len(s) else np.zeros(0)
    which = np.searchsorted(np.asarray(edges, dtype=np.float64), risk, side="left") - 1
    which = np.clip(which, 0, len(edges) - 2)
    counts = np.bincount(which, weights=w, minlength=len(edges) - 1)
    return np.rint(counts).astype(np.int64).tolist()


def size_distribution(sizes: Any, weights: Any | None = None) -> dict[str, list[int]]:
    """Per distinct class size (ascending): the classes of that size and the records in them."""
    s, w = _arrays(sizes, weights)
    uniq, inverse = np.unique(s.astype(np.int64), return_inverse=True)
    classes = np.bincount(inverse, minlength=len(uniq))
    records = np.bincount(inverse, weights=w, minlength=len(uniq))
    return {
        "sizes": uniq.tolist(),
        "classes": classes.astype(np.int64).tolist(),
        "records": np.rint(records).astype(np.int64).tolist(),
    }
