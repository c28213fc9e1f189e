"""Distance-based record linkage (DBRL): the standard re-identification attack on a release.

The intruder holds B (some records, some attributes of the original file) and links each of its
records to the closest record of the release A. Both files are standardised, each by its own
mean and standard deviation, so the per-attribute difference is

    diff_i(a, b) = ((a_i − ā_i)/σ(a_i) − (b_i − b̄_i)/σ(b_i))²

and the Euclidean distance is Σ_i diff_i. The Mahalanobis distance replaces the identity by the
inverse of a covariance matrix of the standardised attributes (see ``covariance``).

Why two engines: the exact answer needs, for each intruder record, every masked record at the
minimal distance (the anonymity set), which a k-d tree gives with one k = 1 query plus a ball
count at that radius — fast in a few dimensions — while a chunked brute force (a BLAS matrix
product per block of intruder records) never builds the full n_B × n_A matrix and does not
degrade with the dimension. ``engine='auto'`` picks the tree for up to
``KDTREE_MAX_DIM`` attributes.

The one-to-one variant (each masked record used at most once, the assignment of minimal total
distance, as sdcMicro's Hungarian linkage) needs the whole cost matrix, so it is limited to
``max_cells`` = n_B · n_A and raises a PolicyError above that.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Literal

import numpy as np

from privcheck.errors import DataError, PolicyError
from privcheck.risk.linkage.inputs import (
    TableLike,
    chunk_rows,
    paired_matrices,
    standardise_pair,
    true_index_for,
)
from privcheck.risk.linkage.links import Links, resolve
from privcheck.risk.results import LinkageResult, RecordRiskSummary

Metric = Literal["euclidean", "mahalanobis"]
Covariance = Literal["difference", "pooled", "intruder", "masked"]
Engine = Literal["auto", "brute", "kdtree"]

#: k-d trees beat the blocked matrix product up to about this many attributes
KDTREE_MAX_DIM = 8
#: relative tolerance under which two distances count as a tie (k-d tree, per-attribute sort)
TIE_RTOL = 1e-9
#: the same for squared distances by the matrix-product expansion, relative to ‖a‖² + max‖b‖²
#: (its rounding error is a few ulps of that scale, not of the distance)
EXPANSION_RTOL = 1e-12
DEFAULT_MEMORY = 256 * 2**20
DEFAULT_MAX_CELLS = 25_000_000


# ---------------------------------------------------------------------------- metric space
def covariance_matrix(
    za: np.ndarray, zb: np.ndarray, true_index: np.ndarray, kind: Covariance
) -> np.ndarray:
    """Covariance of the standardised attributes that defines the Mahalanobis distance.

    ``difference`` (default): Var(A) + Var(B) − 2·Cov(A, B) over the true pairs, i.e. the
    covariance of the differences a − b — Torra's choice, the right metric when the masking
    noise is Gaussian, and the worst case because it uses the true pairing (which an evaluator
    has and a real intruder has not). ``pooled``: the pooled within-file covariance of the two
    files (what an intruder without the pairing would use). ``intruder`` / ``masked``: one file's.
    """
    if kind == "difference":
        diff = za - zb[true_index]
        if len(diff) < 2:
            raise DataError("covariance='difference' needs at least 2 intruder records")
        return np.atleast_2d(np.cov(diff, rowvar=False))
    if kind == "pooled":
        ca = np.atleast_2d(np.cov(za, rowvar=False)) if len(za) > 1 else 0.0
        cb = np.atleast_2d(np.cov(zb, rowvar=False))
        return ((len(za) - 1) * ca + (len(zb) - 1) * cb) / max(len(za) + len(zb) - 2, 1)
    if kind == "intruder":
        return np.atleast_2d(np.cov(za, rowvar=False))
    if kind == "masked":
        return np.atleast_2d(np.cov(zb, rowvar=False))
    raise PolicyError(
        f"covariance must be 'difference', 'pooled', 'intruder' or 'masked'; got {kind!r}"
    )


def whitening(cov: np.ndarray, ridge: float = 1e-6) -> np.ndarray:
    """Matrix W with ‖(a − b)·W‖² = (a − b)ᵀ (Σ + λI)⁻¹ (a − b).

    The small ridge λ = ``ridge``·trace(Σ)/m keeps an attribute that the masking left untouched
    (zero variance of the differences) usable: it gets a very large weight, as it should, instead
    of an infinite one.
    """
    m = cov.shape[0]
    trace = float(np.trace(cov))
    if not np.isfinite(trace) or trace <= 0:
        raise DataError(
            "the covariance for the Mahalanobis distance is zero (are the masked and intruder "
            "files identical on these attributes?); use metric='euclidean' or "
            "covariance='pooled'"
        )
    reg = cov + ridge * trace / m * np.eye(m)
    vals, vecs = np.linalg.eigh(reg)
    vals = np.maximum(vals, ridge * trace / m)
    return (vecs / np.sqrt(vals)) @ vecs.T


def metric_space(
    za: np.ndarray,
    zb: np.ndarray,
    true_index: np.ndarray,
    metric: Metric,
    covariance: Covariance,
) -> tuple[np.ndarray, np.ndarray]:
    """Map both standardised files so that the metric becomes the Euclidean distance."""
    if metric == "euclidean":
        return za, zb
    if metric == "mahalanobis":
        w = whitening(covariance_matrix(za, zb, true_index, covariance))
        return za @ w, zb @ w
    raise PolicyError(f"metric must be 'euclidean' or 'mahalanobis'; got {metric!r}")


# ---------------------------------------------------------------------------- engines
def squared_distances(a: np.ndarray, b: np.ndarray, sq_b: np.ndarray | None = None) -> np.ndarray:
    """‖a_i − b_j‖² for a block of rows, by one matrix product (clipped at 0 against rounding)."""
    if sq_b is None:
        sq_b = np.einsum("ij,ij->i", b, b)
    sq_a = np.einsum("ij,ij->i", a, a)
    d = a @ b.T
    d *= -2.0
    d += sq_a[:, None]
    d += sq_b[None, :]
    np.maximum(d, 0.0, out=d)
    return d


def _brute_links(
    xa: np.ndarray,
    xb: np.ndarray,
    true_index: np.ndarray,
    random_state: int | None,
    chunk_size: int | None,
    memory_limit: int,
    workers: int,
) -> Links:
    """Blocked brute force: per block of intruder rows, one matrix product and a few passes.

    Ranking needs only ‖b‖² − 2a·b (‖a‖² is the same along a row), which one GEMM of [a, 1]
    with [−2b, ‖b‖²]ᵀ yields directly; each block then costs one argmin, one comparison and one
    count. Blocks run on ``workers`` threads (numpy and BLAS release the GIL); each block draws
    its tie-breaks from its own seed, so the result does not depend on the number of workers.
    """
    sq_b = np.einsum("ij,ij->i", xb, xb)
    max_sq_b = float(sq_b.max()) if len(sq_b) else 0.0
    b_aug = np.ascontiguousarray(np.vstack([-2.0 * xb.T, sq_b[None, :]]))
    # working set per row and worker: scores (8 B), tie mask (1 B), cumulative ties (8 B)
    rows = min(chunk_rows(len(xb), 17 * max(workers, 1), memory_limit, chunk_size), len(xa))
    out = Links.empty(len(xa))
    entropy = np.random.SeedSequence(random_state).entropy

    local = threading.local()

    def block(start: int) -> None:
        stop = min(start + rows, len(xa))
        a = xa[start:stop]
        if not hasattr(local, "g"):  # per-thread buffers: no 100 MB allocation per block
            local.g = np.empty((rows, len(xb)))
            local.ties = np.empty((rows, len(xb)), dtype=bool)
        g = local.g[: stop - start]
        np.dot(np.hstack([a, np.ones((stop - start, 1))]), b_aug, out=g)
        tol = EXPANSION_RTOL * (np.einsum("ij,ij->i", a, a) + max_sq_b) + 1e-300
        rng = np.random.default_rng([entropy, start])
        out.put(slice(start, stop), resolve(g, true_index[start:stop], tol, rng, work=local.ties))

    starts = range(0, len(xa), rows)
    if workers > 1 and len(starts) > 1:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(block, starts))
    else:
        for start in starts:
            block(start)
    return out


def _kdtree_links(
    xa: np.ndarray, xb: np.ndarray, true_index: np.ndarray, rng: np.random.Generator
) -> Links:
    from scipy.spatial import cKDTree  # (imported when used: scipy is slow to import)

    tree = cKDTree(xb)
    dist, idx = tree.query(xa, k=1, workers=-1)
    radius = dist * (1.0 + TIE_RTOL) + TIE_RTOL * 1e-3
    size = np.asarray(tree.query_ball_point(xa, radius, return_length=True, workers=-1))
    size = np.maximum(size.astype(np.int64), 1)
    true_d = np.sqrt(np.einsum("ij,ij->i", xa - xb[true_index], xa - xb[true_index]))
    true_in = true_d <= radius
    link = idx.astype(np.int64)
    multi = np.flatnonzero(size > 1)
    if multi.size:
        members = tree.query_ball_point(xa[multi], radius[multi], return_sorted=True, workers=-1)
        counts = np.fromiter((len(m) for m in members), dtype=np.int64, count=multi.size)
        flat = np.fromiter(
            itertools.chain.from_iterable(members), dtype=np.int64, count=int(counts.sum())
        )
        offsets = np.concatenate(([0], np.cumsum(counts)[:-1]))
        link[multi] = flat[offsets + rng.integers(0, counts)]
        size[multi] = counts
    return Links(link, size, true_in)


def nearest_links(
    xa: np.ndarray,
    xb: np.ndarray,
    true_index: np.ndarray,
    *,
    engine: Engine = "auto",
    random_state: int | None = 0,
    chunk_size: int | None = None,
    memory_limit: int = DEFAULT_MEMORY,
    workers: int | None = None,
) -> Links:
    """Nearest-neighbour links of every row of ``xa`` among the rows of ``xb`` (Euclidean).

    Returns, per intruder record, the anonymity set size |A_b| (masked records at minimal
    distance, ties within a relative 1e-9), whether the true record is in it, and one member
    drawn uniformly at random as the single link.
    """
    if engine == "auto":
        engine = "kdtree" if xa.shape[1] <= KDTREE_MAX_DIM else "brute"
    if engine == "kdtree":
        return _kdtree_links(xa, xb, true_index, np.random.default_rng(random_state))
    if engine == "brute":
        n_workers = (os.cpu_count() or 1) if workers is None else workers
        return _brute_links(
            xa, xb, true_index, random_state, chunk_size, memory_limit, max(1, n_workers)
        )
    raise PolicyError(f"engine must be 'auto', 'brute' or 'kdtree'; got {engine!r}")


def one_to_one_links(
    xa: np.ndarray, xb: np.ndarray, max_cells: int = DEFAULT_MAX_CELLS
) -> np.ndarray:
    """Masked record assigned to each intruder record by the optimal one-to-one assignment.

    Minimises the total squared Euclidean distance (scipy's linear_sum_assignment). With more
    intruder than masked records, the surplus intruder records get -1.
    """
    cells = len(xa) * len(xb)
    if cells > max_cells:
        raise PolicyError(
            f"one-to-one linkage needs the full {len(xa)} × {len(xb)} cost matrix "
            f"({cells:,} cells, {cells * 8 / 2**30:.1f} GiB), above max_cells={max_cells:,}; "
            "link fewer intruder records, use assignment='nearest', or raise max_cells"
        )
    cost = squared_distances(xa, xb)
    from scipy.optimize import linear_sum_assignment

    rows, cols = linear_sum_assignment(cost)
    link = np.full(len(xa), -1, dtype=np.int64)
    link[rows] = cols
    return link


# ---------------------------------------------------------------------------- per attribute
def _count_equal(sorted_values: np.ndarray, values: np.ndarray) -> np.ndarray:
    """How many entries of ``sorted_values`` equal each of ``values``."""
    return np.searchsorted(sorted_values, values, "right") - np.searchsorted(
        sorted_values, values, "left"
    )


def univariate_rates(za: np.ndarray, zb: np.ndarray, true_index: np.ndarray) -> np.ndarray:
    """Anonymity-set re-identification rate of linking on each attribute alone.

    One sort per attribute: the nearest masked values of v are its neighbours in the sorted
    marginal, and the anonymity set is every masked record holding one of the (at most two)
    values at the minimal distance. Shows which attributes carry the risk.
    """
    n_b, m = za.shape
    rates = np.zeros(m)
    for j in range(m):
        s = np.sort(zb[:, j])
        v = za[:, j]
        idx = np.searchsorted(s, v)
        left = s[np.clip(idx - 1, 0, len(s) - 1)]
        right = s[np.clip(idx, 0, len(s) - 1)]
        dl = np.where(idx > 0, v - left, np.inf)
        dr = np.where(idx < len(s), right - v, np.inf)
        d = np.minimum(dl, dr)
        tol = TIE_RTOL * (1.0 + np.abs(v))
        take_l = dl <= d + tol
        take_r = (dr <= d + tol) & ~(take_l & (right == left))
        size = np.where(take_l, _count_equal(s, left), 0) + np.where(
            take_r, _count_equal(s, right), 0
        )
        true_in = np.abs(zb[true_index, j] - v) <= d + tol
        rates[j] = float(np.sum(np.where(true_in, 1.0 / np.maximum(size, 1), 0.0)) / n_b)
    return rates


# ---------------------------------------------------------------------------- the attack
def dbrl(
    intruder: TableLike,
    masked: TableLike,
    *,
    attributes: Sequence[str] | None = None,
    true_index: Sequence[int] | np.ndarray | None = None,
    metric: Metric = "euclidean",
    covariance: Covariance = "difference",
    standardisation: Literal["each", "masked", "none"] = "each",
    assignment: Literal["nearest", "one_to_one"] = "nearest",
    engine: Engine = "auto",
    random_state: int | None = 0,
    chunk_size: int | None = None,
    memory_limit: int = DEFAULT_MEMORY,
    workers: int | None = None,
    max_cells: int = DEFAULT_MAX_CELLS,
) -> LinkageResult:
    """Distance-based record linkage of ``intruder`` (B) against the release ``masked`` (A).

    Parameters
    ----------
    intruder, masked
        DataFrames (columns picked by ``attributes``, default all of the intruder's) or numeric
        arrays with the same columns.
    true_index
        The masked row of each intruder record; default: aligned by position.
    metric, covariance
        ``euclidean`` or ``mahalanobis`` (covariance of the standardised attributes, see
        ``covariance_matrix``).
    assignment
        ``nearest`` (each intruder record to its closest masked record) or ``one_to_one`` (the
        optimal assignment; ``reidentification_rate`` is then its share of true links, the
        anonymity-set and certain rates still come from the nearest-neighbour sets).
    engine, chunk_size, memory_limit, workers
        ``brute`` (blocked matrix products, ``chunk_size`` intruder rows per block or as many
        as ``memory_limit`` bytes allow, on ``workers`` threads) or ``kdtree``; ``auto`` takes
        the tree up to ``KDTREE_MAX_DIM`` attributes. Both give the same anonymity sets.

    The result's ``attribute_contribution`` is the anonymity-set rate of linking on each
    attribute alone (standardised the same way).
    """
    a, b, names = paired_matrices(intruder, masked, attributes)
    t = true_index_for(true_index, len(a), len(b))
    za, zb = standardise_pair(a, b, standardisation)
    xa, xb = metric_space(za, zb, t, metric, covariance)
    links = nearest_links(
        xa,
        xb,
        t,
        engine=engine,
        random_state=random_state,
        chunk_size=chunk_size,
        memory_limit=memory_limit,
        workers=workers,
    )
    rates = links.rates(t)
    figures: dict[str, float] = {"nearest_neighbour_rate": rates["reidentification_rate"]}
    linked = links.link
    if assignment == "one_to_one":
        linked = one_to_one_links(xa, xb, max_cells)
        rates["reidentification_rate"] = float(np.mean(linked == t))
        figures["one_to_one_rate"] = rates["reidentification_rate"]
    elif assignment != "nearest":
        raise PolicyError(f"assignment must be 'nearest' or 'one_to_one'; got {assignment!r}")
    contrib = univariate_rates(za, zb, t)
    risk = links.credit()
    return LinkageResult(
        attack="mahalanobis" if metric == "mahalanobis" else "dbrl",
        params={
            "metric": metric,
            "covariance": covariance if metric == "mahalanobis" else None,
            "standardisation": standardisation,
            "assignment": assignment,
            "random_state": random_state,
        },
        attributes=names,
        n_intruder_records=len(a),
        n_masked_records=len(b),
        **rates,
        record_risk_summary=RecordRiskSummary.of(risk),
        attribute_contribution=dict(zip(names, contrib.tolist(), strict=True)),
        attribute_contribution_kind="anonymity-set re-identification rate linking on the "
        "attribute alone",
        figures=figures,
        record_risk=risk,
        linked_index=linked,
        anonymity_set_size=links.set_size,
        true_in_set=links.true_in,
    )
