"""Fuzzy (FCM-based) microaggregation (Torra 2015), resistant to the transparency attack.

MDAV releases each record as the centroid of a crisp group; knowing the method, an intruder can
re-run the partition on the centroids and link records to groups. Here the link is random:

1. Fuzzy c-means with fuzziness m1 finds c = ⌈n/k⌉ centres v_1 … v_c on the z-scored attributes.
2. Each record's memberships are recomputed on those centres with fuzziness m2:
   μ_i(x) = ( Σ_j (‖x − v_i‖² / ‖x − v_j‖²)^(1/(m2 − 1)) )^(−1).
3. Each record is replaced by one centre drawn from its membership distribution μ(x).

Limits (tested): with m1 = m2 large every membership tends to 1/c and FCM's centres collapse on
the mean, so every record becomes the mean; with c = n and m1 = m2 → 1⁺ the memberships become
crisp, each record is its own centre and the original file comes back. The first limit needs the
mean to be a stable FCM solution: Yu, Cheng & Huang (2004) show it is one only when the largest
eigenvalue of the normalised scatter (1/n)·Σ (x − x̄)(x − x̄)ᵀ/‖x − x̄‖² is below 1/2 (0.41 for
three independent attributes; 0.52 for the CASC Census file, where FCM did not collapse on the
mean even with m = 1000).

FCM here: centres initialised at c distinct records drawn with the generator (the first step
softened, see `fuzzy_c_means`, so that no centre stays stuck on its record), then the usual
alternation (memberships from centres, centres = Σ μ^m x / Σ μ^m) until no centre moves more than
``tol`` (in sd units) or ``max_iter`` rounds. Memberships are computed in the log domain
(log μ_i = −log d_i/(m−1) − logsumexp_j(−log d_j/(m−1))), so m close to 1 (hard assignments)
and large m (μ^m underflowing) stay exact; a record sitting on a centre belongs to it fully.
Rows are processed in chunks, so memory is O(chunk·c), not O(n·c).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterator, Sequence

import numpy as np

from privcheck.errors import PolicyError
from privcheck.limits import ITERATIONS
from privcheck.masking._table import Data, check_k, numeric_table
from privcheck.masking.exact import float_to_int
from privcheck.masking.result import MaskingResult
from privcheck.metrics.information_loss import information_loss

SeedLike = int | np.random.Generator | None

_CHUNK_CELLS = 1 << 15  # rows per chunk × centres: 256 KB temporaries stay in cache


def _chunks(n: int, c: int) -> Iterator[slice]:
    step = max(1, _CHUNK_CELLS // max(c, 1))
    for lo in range(0, n, step):
        yield slice(lo, min(n, lo + step))


def _sq_dists(x: np.ndarray, centres: np.ndarray, centre_sq: np.ndarray) -> np.ndarray:
    d2 = np.einsum("ij,ij->i", x, x)[:, None] - 2.0 * (x @ centres.T) + centre_sq[None, :]
    return np.maximum(d2, 0.0)


def log_memberships(
    x: np.ndarray, centres: np.ndarray, m: float, soften: float = 0.0
) -> np.ndarray:
    """log μ_i(x) for the rows of x (rows × c), fuzziness m > 1 (formula in the module doc).

    A row at distance 0 from some centres shares its membership equally among them.
    ``soften`` is added to every squared distance (used only for FCM's first step).
    """
    d2 = _sq_dists(x, centres, np.einsum("ij,ij->i", centres, centres)) + soften
    zero = d2 == 0.0
    with np.errstate(divide="ignore"):
        logits = -np.log(d2) / (m - 1.0)
    logits[zero] = 0.0
    top = logits.max(axis=1, keepdims=True)
    out = logits - top - np.log(np.exp(logits - top).sum(axis=1, keepdims=True))
    hit = zero.any(axis=1)
    if hit.any():
        z = zero[hit]
        out[hit] = np.where(z, -np.log(z.sum(axis=1, keepdims=True)), -np.inf)
    return out


def _update_centres(
    x: np.ndarray, centres: np.ndarray, m: float, soften: float = 0.0
) -> np.ndarray:
    """Σ μ^m x / Σ μ^m per centre, accumulated over row chunks with a running log-scale."""
    c, d = centres.shape
    num = np.zeros((c, d))
    den = np.zeros(c)
    scale = np.full(c, -np.inf)  # log of the factor num and den are divided by
    for rows in _chunks(x.shape[0], c):
        logw = m * log_memberships(x[rows], centres, m, soften)
        new_scale = np.maximum(scale, logw.max(axis=0))
        finite = np.isfinite(new_scale)
        shrink = np.where(finite & np.isfinite(scale), np.exp(scale - new_scale), 0.0)
        num *= shrink[:, None]
        den *= shrink
        w = np.exp(logw - np.where(finite, new_scale, 0.0)[None, :])
        num += w.T @ x[rows]
        den += w.sum(axis=0)
        scale = new_scale
    out = centres.copy()
    ok = den > 0
    out[ok] = num[ok] / den[ok, None]
    return out


def fuzzy_c_means(
    x: np.ndarray,
    c: int,
    m: float,
    rng: np.random.Generator,
    *,
    max_iter: int = 300,
    tol: float = 1e-5,
) -> tuple[np.ndarray, int]:
    """FCM centres (c × d) of the rows of x and the number of rounds run.

    Start: c distinct records drawn with ``rng``. A centre sitting exactly on a record is a
    fixed point of FCM (that record's membership is 1, and for large m its weight μ^m swamps all
    others), so the first step adds h² = the mean squared distance of the records to their
    nearest starting centre to every squared distance. That keeps the order of the distances
    (hard assignments for m → 1⁺ are unchanged) and is 0 when every record is a centre (c = n).
    """
    centres = x[np.sort(rng.choice(x.shape[0], size=c, replace=False))].copy()
    centre_sq = np.einsum("ij,ij->i", centres, centres)
    h2 = float(
        np.mean(
            np.concatenate(
                [_sq_dists(x[r], centres, centre_sq).min(axis=1) for r in _chunks(len(x), c)]
            )
        )
    )
    for it in range(1, max_iter + 1):
        new = _update_centres(x, centres, m, h2 if it == 1 else 0.0)
        moved = float(np.max(np.abs(new - centres))) if c else 0.0
        centres = new
        if moved < tol:
            return centres, it
    return centres, max_iter


def _draw_centres(
    x: np.ndarray, centres: np.ndarray, m: float, rng: np.random.Generator
) -> np.ndarray:
    """For each row, a centre index drawn from its m-memberships (inverse CDF, one uniform/row)."""
    u = rng.random(x.shape[0])
    out = np.empty(x.shape[0], dtype=np.int64)
    c = centres.shape[0]
    for rows in _chunks(x.shape[0], c):
        cdf = np.cumsum(np.exp(log_memberships(x[rows], centres, m)), axis=1)
        cdf /= cdf[:, -1:]
        out[rows] = np.minimum((cdf < u[rows, None]).sum(axis=1), c - 1)
    return out


def _check_m(name: str, m: object) -> float:
    if isinstance(m, bool) or not isinstance(m, int | float | np.floating | np.integer):
        raise PolicyError(f"{name} must be a number greater than 1; got {m!r}")
    if not (math.isfinite(float(m)) and float(m) > 1.0):
        raise PolicyError(f"{name} must be a finite number greater than 1; got {name}={m}")
    return float(m)


def fuzzy_microaggregation(
    data: Data,
    k: int | None = None,
    *,
    n_clusters: int | None = None,
    m1: float = 2.0,
    m2: float = 2.0,
    seed: SeedLike = None,
    columns: Sequence[Hashable] | None = None,
    max_iter: int = 300,
    tol: float = 1e-5,
) -> MaskingResult:
    """Replace each record by an FCM centre drawn from its fuzzy memberships (Torra 2015).

    Give ``k`` (c = ⌈n/k⌉ centres) or ``n_clusters`` (c directly, 1 ≤ c ≤ n). ``m1`` is FCM's
    fuzziness, ``m2`` the fuzziness of the memberships the centre is drawn from (both > 1).
    ``seed`` (int or numpy Generator) makes the run reproducible; it is not published in
    ``params``. ``groups[0]`` holds the drawn centre of each record.
    """
    table = numeric_table(data, columns)
    n = table.n
    if (k is None) == (n_clusters is None):
        raise PolicyError("give exactly one of k (c = ⌈n/k⌉ centres) or n_clusters")
    if k is not None:
        k = check_k(k, n)
        c = -(-n // k)
    else:
        if isinstance(n_clusters, bool) or not isinstance(n_clusters, int | np.integer):
            raise PolicyError(f"n_clusters must be an integer; got {n_clusters!r}")
        if not 1 <= n_clusters <= n:
            raise PolicyError(
                f"n_clusters must be between 1 and the number of records ({n}); "
                f"got n_clusters={n_clusters}"
            )
        c = int(n_clusters)
    m1, m2 = _check_m("m1", m1), _check_m("m2", m2)
    if not isinstance(max_iter, int) or max_iter < 1:
        raise PolicyError(f"max_iter must be a positive integer; got {max_iter!r}")
    ITERATIONS.check(max_iter, "max_iter asks for", "use the default (300) and a larger tol")
    if not tol > 0:
        raise PolicyError(f"tol must be positive; got {tol!r}")
    rng = np.random.default_rng(seed)

    mean = table.values.mean(axis=0)
    sd = table.values.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    z = (table.values - mean) / sd
    centres, rounds = fuzzy_c_means(z, c, m1, rng, max_iter=max_iter, tol=tol)
    choice = _draw_centres(z, centres, m2, rng)
    masked = centres[choice] * sd + mean
    # an FCM centre is a membership-weighted mean (real weights, no exact rational): an integer
    # column releases it rounded half to even, kept within the column's range (no overflow)
    integers = {}
    for j in table.integer_columns():  # masked is relative to the column's offset
        off, col = table.offset(j), table.exact[j]
        integers[j] = float_to_int(masked[:, j], int(col.min()) - off, int(col.max()) - off) + off
        masked[:, j] = table.shifted(j, integers[j])
    params: dict[str, object] = {
        "n_clusters": c,
        "m1": m1,
        "m2": m2,
        "columns": list(table.columns),
        "standardization": "z-score (population sd)",
        "fcm_rounds": rounds,
    }
    if k is not None:
        params["k"] = k
    return MaskingResult(
        method="fuzzy-microaggregation",
        params=params,
        masked=table.rebuild(masked, integers),
        information_loss=information_loss(table.values, masked),
        groups=(choice,),
        integers={table.columns[j]: v for j, v in integers.items()},
    )
