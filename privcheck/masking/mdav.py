"""MDAV multivariate microaggregation (Domingo-Ferrer & Mateo-Sanz 2002) and its partitioned form.

The algorithm, on the z-scored attributes (population sd; a constant attribute gets scale 1):

    while at least 3k records remain:
        c = centroid of the remaining records
        r = the remaining record farthest from c
        r's group = r + its k−1 nearest remaining records          (removed)
        s = the remaining record farthest from r
        s's group = s + its k−1 nearest remaining records          (removed)
    if 2k ≤ remaining < 3k: one more group around the record farthest from the centroid,
                            then the rest is the last group
    if k ≤ remaining < 2k:  the rest is one group

Each record is then released as its group's mean (or median) attribute by attribute.

Tie-breaking is deterministic and matches a straightforward implementation that scans the
records in input order: the farthest record is the first one (lowest input row) among equally
far records; "r + its k−1 nearest" always contains r and takes equally near records by lowest
input row. s is looked for after r's group is removed; this is the same record as "the record
farthest from r" unless every remaining record is equidistant from r (a degenerate file), where
it keeps s out of r's group.

Speed (the rounds are sequential, so the work is in each round's passes over the records):
distances come from ‖x‖² − 2x·y + ‖y‖² with precomputed norms, as matrix-vector products over
the remaining rows; there is no n×n matrix (memory O(n·d)). A round makes two such passes, for r
(its k−1 nearest and the farthest record s) and for s (its k−1 nearest), on a float32 copy of the
rows, which halves their memory traffic. The farthest record from the centroid needs no pass in
most rounds: distances to a reference centroid c0 are kept for the outermost rows, and by the
triangle inequality only rows within 2‖c − c0‖ of the largest can be the farthest; the reference
is refreshed (one pass) when that set grows. Products run on one BLAS thread (see `run`).
Removed rows are masked with ±inf in the norm vectors and squeezed out when they exceed a
quarter of the copy; the centroid is a running sum, recomputed exactly at each compaction. The
k nearest are selected among the rows below a threshold taken from a strided sample, so the
O(n) selection runs on a few hundred values. The fast formula rounds differently from
Σ(x − y)² (float32 even more); whenever candidates are closer than a bound on that rounding
error, they are re-ranked with Σ(x − y)² in float64, so the groups are the same as those of the
direct computation.

The partitioned variant (for millions of records, in the spirit of data-oriented fast
microaggregation, Solé, Muntés-Mulero & Nin 2012) halves the file recursively at the median of
each part's first principal axis until every block has at most ``block_size`` records, then runs
MDAV per block. Blocks are independent, so an engine can run them in parallel; the price is a
higher SSE/SST than whole-file MDAV (measured in ``benchmarks/microaggregation_speed.py``).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Literal

import numpy as np
from threadpoolctl import threadpool_limits

from privcheck.errors import DataError, PolicyError
from privcheck.masking._table import Data, NumericTable, check_k, numeric_table, standardize
from privcheck.masking.exact import group_means
from privcheck.masking.result import MaskingResult
from privcheck.metrics.information_loss import information_loss

Aggregate = Literal["mean", "median"]

_EPS = float(np.finfo(np.float64).eps)
_EPS32 = float(np.finfo(np.float32).eps)
_SAMPLE_STRIDE = 32  # 1 row in 32 sets the threshold for the k-nearest search
_SMALL = 4096  # below this many rows, select the k nearest directly
_REF_TOP = 1024  # about this many rows are kept sorted by distance to the reference centroid
_REF_CANDIDATES = 64  # more candidates than this: refresh the reference centroid


class _Mdav:
    """The state of one MDAV run on a standardised matrix; see the module docstring."""

    def __init__(self, z: np.ndarray, k: int, compact_fraction: float = 0.25) -> None:
        self.k = k
        self.x = np.array(z, dtype=np.float64, order="C", copy=True)
        n, d = self.x.shape
        self.idx = np.arange(n)
        self.sq = np.einsum("ij,ij->i", self.x, self.x)
        self.max_sq = float(self.sq.max()) if n else 0.0
        # Rounding-error bound of ‖x‖² − 2x·y (+‖y‖²) relative to ‖x‖² + ‖y‖², with margin.
        self.tol_factor = 16.0 * (d + 2) * _EPS
        # r's and s's distances come from a float32 copy (half the memory traffic of the two
        # passes that dominate); their bound uses float32's epsilon (inputs rounded too).
        self.x32 = self.x.astype(np.float32)
        self.tol_factor32 = 16.0 * (d + 2) * _EPS32
        self.labels = np.full(n, -1, dtype=np.int64)
        self.compact_fraction = compact_fraction
        self._buf_t = np.empty(n)
        self._buf_t32 = np.empty(n, dtype=np.float32)
        self._buf_d = np.empty(n)
        self._reset_views()
        self.next_label = 0

    def _reset_views(self) -> None:
        """(Re)build the per-row vectors after a compaction: every current row is alive."""
        size = self.x.shape[0]
        self.near = self.sq.copy()  # +inf once removed: never among the nearest
        self.far = self.sq.copy()  # -inf once removed: never the farthest
        self.alive = np.ones(size, dtype=bool)
        self.total = self.x.sum(axis=0)
        self.remaining = size
        self.dead = 0
        self.t = self._buf_t[:size]
        self.t32 = self._buf_t32[:size]
        self.dist = self._buf_d[:size]
        self.ref_centre: np.ndarray | None = None  # positions changed: no valid reference

    def _tol(self, point_sq: float) -> float:
        return self.tol_factor * (self.max_sq + point_sq)

    def _tol32(self, point_sq: float) -> float:
        return self.tol_factor32 * (self.max_sq + point_sq)

    def _exact(self, rows: np.ndarray, point: np.ndarray) -> np.ndarray:
        diff = self.x[rows] - point
        return (diff * diff).sum(axis=1)

    def _farthest(self, point: np.ndarray, dots: np.ndarray | None = None) -> int:
        """Row farthest from ``point`` among the alive rows (lowest row on ties).

        ``dots`` are float32 products x·point from `_group_around` when given.
        """
        if dots is None:
            dots = np.dot(self.x, point, out=self.t)
            tol = self._tol(float(point @ point))
        else:
            tol = self._tol32(float(point @ point))
        f = self.dist
        np.multiply(dots, -2.0, out=f)
        f += self.far
        best = int(np.argmax(f))
        floor = f[best] - tol
        if np.count_nonzero(f >= floor) > 1:
            cand = np.flatnonzero(f >= floor)
            best = int(cand[np.argmax(self._exact(cand, point))])
        return best

    def _refresh_reference(self, centre: np.ndarray) -> None:
        """Distances of the outermost rows to ``centre``, kept for the following rounds.

        Stores ~_REF_TOP alive rows with the largest distance to the centre (descending, ties by
        row) and a floor: every other alive row is at most that far (as computed).
        """
        d2 = self.dist
        np.multiply(np.dot(self.x, centre, out=self.t), -2.0, out=d2)
        d2 += self.far  # removed rows: -inf
        d2 += float(centre @ centre)
        size = d2.shape[0]
        if self.remaining > 4 * _REF_TOP and size > _SMALL:
            sample = np.sort(d2[::_SAMPLE_STRIDE])
            floor = sample[max(0, sample.shape[0] - _REF_TOP // _SAMPLE_STRIDE)]
        else:
            floor = -np.inf
        top = np.flatnonzero(d2 >= floor) if np.isfinite(floor) else np.flatnonzero(self.alive)
        dist = np.sqrt(np.maximum(d2[top], 0.0))
        order = np.lexsort((top, -dist))
        self.ref_top, self.ref_dist = top[order], dist[order]
        self.ref_floor = float(np.sqrt(max(floor, 0.0))) if np.isfinite(floor) else -np.inf
        self.ref_centre = centre.copy()
        # bound on the error of a computed distance (|√a − √b| ≤ √|a − b|), twice, plus slack
        self.ref_margin = 2.0 * np.sqrt(self._tol(float(centre @ centre)))

    def _farthest_from_centre(self, centre: np.ndarray) -> int:
        """Row farthest from the centroid, without a pass over all rows in most rounds.

        With d0 = distances to a reference centroid c0 and δ = ‖c − c0‖, the triangle
        inequality gives |‖x − c‖ − d0(x)| ≤ δ, so only rows with d0 ≥ max d0 − 2δ (minus the
        rounding margin) can be the farthest; those few are ranked with Σ(x − c)², ties by
        row. The reference is refreshed (one pass) when that set gets large or runs out.
        """
        for attempt in range(3):
            if self.ref_centre is None or attempt:
                self._refresh_reference(centre)
            delta = float(np.sqrt(((centre - self.ref_centre) ** 2).sum()))
            keep = self.alive[self.ref_top]
            rows, dist = self.ref_top[keep], self.ref_dist[keep]
            if rows.shape[0] == 0:
                continue
            threshold = dist[0] - 2.0 * delta - self.ref_margin - 1e-12 * dist[0]
            if self.ref_floor >= threshold:
                continue  # rows outside the kept list could be the farthest
            cand = rows[dist >= threshold]
            if cand.shape[0] > _REF_CANDIDATES and attempt == 0:
                continue
            exact = self._exact(cand, centre)
            return int(cand[exact == exact.max()].min())
        return self._farthest(centre)

    def _group_around(self, r: int) -> tuple[np.ndarray, np.ndarray]:
        """r and its k−1 nearest alive rows; also returns x·x_r for every row (reused for s)."""
        k = self.k
        point = self.x[r]
        dots = np.dot(self.x32, self.x32[r], out=self.t32)
        dn = self.dist
        np.multiply(dots, -2.0, out=dn)
        dn += self.near
        dn[r] = -np.inf
        if dn.shape[0] > _SMALL:
            sample = np.partition(dn[::_SAMPLE_STRIDE], k)
            threshold = sample[k]
        else:
            threshold = np.inf
        if np.isfinite(threshold):
            # The sample's (k+1)-th smallest bounds the full (k+1)-th smallest from above.
            cand = np.flatnonzero(dn <= threshold)
        else:
            cand = np.flatnonzero(dn < np.inf)
        vals = dn[cand]
        order = np.argpartition(vals, (k - 1, k)) if cand.shape[0] > k else np.argsort(vals)
        kth = vals[order[k - 1]]
        nxt = vals[order[k]] if cand.shape[0] > k else np.inf
        tol = self._tol32(float(self.sq[r]))
        if nxt - kth > tol:
            return cand[order[:k]], dots
        # Near-tie at the boundary: re-rank everything that could be in the group exactly.
        cand = np.flatnonzero(dn <= kth + tol)
        exact = self._exact(cand, point)
        exact[cand == r] = -np.inf
        return cand[np.lexsort((cand, exact))[:k]], dots

    def _remove(self, rows: np.ndarray) -> None:
        self.labels[self.idx[rows]] = self.next_label
        self.next_label += 1
        self.total -= self.x[rows].sum(axis=0)
        self.remaining -= rows.shape[0]
        self.dead += rows.shape[0]
        self.near[rows] = np.inf
        self.far[rows] = -np.inf
        self.alive[rows] = False

    def _maybe_compact(self) -> None:
        if self.dead <= self.compact_fraction * self.x.shape[0]:
            return
        keep = self.alive
        self.x = np.ascontiguousarray(self.x[keep])
        self.x32 = np.ascontiguousarray(self.x32[keep])
        self.idx = self.idx[keep]
        self.sq = self.sq[keep]
        self._reset_views()

    def run(self) -> np.ndarray:
        # One BLAS thread: the products are memory-bound matrix-vector products, where a
        # second thread gains little and, on a busy machine, OpenBLAS's thread hand-offs made
        # 100 k × 10 run 30× slower (measured). Parallelism belongs one level up (per block).
        with threadpool_limits(limits=1, user_api="blas"):
            return self._run()

    def _run(self) -> np.ndarray:
        k = self.k
        while self.remaining >= 3 * k:
            r = self._farthest_from_centre(self.total / self.remaining)
            group, dots_r = self._group_around(r)
            self._remove(group)
            s = self._farthest(self.x[r], dots=dots_r)
            group, _ = self._group_around(s)
            self._remove(group)
            self._maybe_compact()
        if self.remaining >= 2 * k:
            r = self._farthest(self.total / self.remaining)
            group, _ = self._group_around(r)
            self._remove(group)
        if self.remaining:
            self.labels[self.idx[self.alive]] = self.next_label
        return self.labels


def mdav_groups(z: np.ndarray, k: int) -> np.ndarray:
    """MDAV group labels (0, 1, … in creation order) for the rows of a standardised matrix.

    ``z`` is used as given (standardise first, e.g. with z-scores); requires 2 ≤ k ≤ n and
    finite values. Every group has between k and 2k−1 rows.
    """
    z = _checked_matrix(z)
    k = check_k(k, z.shape[0])
    return _Mdav(z, k).run()


def _checked_matrix(z: np.ndarray) -> np.ndarray:
    z = np.asarray(z, dtype=np.float64)
    if z.ndim != 2:
        raise DataError(f"MDAV needs a 2-D matrix (records × attributes); got {z.ndim}-D")
    if not np.isfinite(z).all():
        raise DataError("the matrix has missing or infinite values; MDAV needs finite numbers")
    return z


def _first_axis(z: np.ndarray) -> np.ndarray:
    """First principal axis of z's rows, sign fixed so the largest component is positive."""
    centred = z - z.mean(axis=0)
    cov = centred.T @ centred
    _, vecs = np.linalg.eigh(cov)
    axis = vecs[:, -1]
    return axis if axis[np.argmax(np.abs(axis))] >= 0 else -axis


def partition_blocks(z: np.ndarray, block_size: int) -> list[np.ndarray]:
    """Split the rows of z into blocks of at most ``block_size`` rows (row-index arrays).

    A block larger than ``block_size`` is cut in two halves (sizes ⌊m/2⌋ and ⌈m/2⌉) at the median
    of its projection on its own first principal axis (ties by row order), recursively. Blocks
    come out in a fixed order; every block has more than ``block_size``/2 − 1 rows.
    """
    blocks: list[np.ndarray] = []
    stack = [np.arange(z.shape[0])]
    while stack:
        rows = stack.pop()
        if rows.shape[0] <= block_size:
            blocks.append(rows)
            continue
        part = z[rows]
        proj = part @ _first_axis(part)
        order = np.argsort(proj, kind="stable")
        half = rows.shape[0] // 2
        stack.append(rows[np.sort(order[half:])])
        stack.append(rows[np.sort(order[:half])])
    return blocks


def mdav_partitioned_groups(z: np.ndarray, k: int, block_size: int = 20_000) -> np.ndarray:
    """Labels of MDAV run separately on each block of `partition_blocks` (labels are global)."""
    z = _checked_matrix(z)
    k = check_k(k, z.shape[0])
    block_size = _check_block_size(block_size, k)
    labels = np.empty(z.shape[0], dtype=np.int64)
    offset = 0
    for rows in partition_blocks(z, block_size):
        lab = _Mdav(z[rows], k).run() if rows.shape[0] >= k else np.zeros(rows.shape[0], int)
        labels[rows] = lab + offset
        offset += int(lab.max()) + 1
    return labels


def _check_block_size(block_size: object, k: int) -> int:
    if isinstance(block_size, bool) or not isinstance(block_size, int | np.integer):
        raise PolicyError(f"block_size must be an integer; got {block_size!r}")
    if block_size < 2 * k:
        raise PolicyError(
            f"block_size must be at least 2k = {2 * k} so that every block holds a group; "
            f"got block_size={block_size}"
        )
    return int(block_size)


def aggregate_groups(values: np.ndarray, labels: np.ndarray, how: Aggregate) -> np.ndarray:
    """Replace each row by its group's per-column mean or median (n × p in, n × p out).

    The median of an even-sized group is the mean of its two middle values. Vectorised per
    column: one sort by (label, value), then the middle positions of each group.
    """
    if how not in ("mean", "median"):
        raise PolicyError(f"aggregate must be 'mean' or 'median'; got {how!r}")
    _, inv = np.unique(labels, return_inverse=True)
    sizes = np.bincount(inv)
    out = np.empty_like(values, dtype=np.float64)
    if how == "mean":
        for j in range(values.shape[1]):
            out[:, j] = (np.bincount(inv, weights=values[:, j]) / sizes)[inv]
        return out
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    lo, hi = starts + (sizes - 1) // 2, starts + sizes // 2
    for j in range(values.shape[1]):
        sorted_vals = values[np.lexsort((values[:, j], inv)), j]
        out[:, j] = ((sorted_vals[lo] + sorted_vals[hi]) / 2.0)[inv]
    return out


def exact_means(
    table: NumericTable,
    cols: Sequence[int],
    labels: np.ndarray,
    how: Aggregate,
    masked: np.ndarray,
    integers: dict[int, np.ndarray],
    absolute: dict[int, np.ndarray],
) -> None:
    """Recompute the group means (medians) of the integer columns among ``cols`` exactly.

    ``absolute`` gets the float64 mean correctly rounded from the exact sum (float sums of values
    beyond 2^53 are off, and may overflow), ``masked`` the same minus the column's offset (the
    frame of ``table.values``), ``integers`` the released integer: the exact mean rounded half
    to even (see `privcheck.masking.exact`).
    """
    for j in cols:
        if j < len(table.exact) and table.exact[j] is not None:
            integers[j], absolute[j], masked[:, j] = group_means(
                table.exact[j], labels, how, table.offset(j)
            )


def _attribute_groups(
    table: NumericTable, attribute_groups: Sequence[Sequence[Hashable]] | None
) -> list[list[int]]:
    """Column positions of each attribute group (default: all masked columns in one group)."""
    if attribute_groups is None:
        return [list(range(len(table.columns)))]
    groups = [list(g) for g in attribute_groups]
    if not groups or any(not g for g in groups):
        raise PolicyError("attribute_groups must be a non-empty list of non-empty column lists")
    positions = [[table.column_index(c) for c in g] for g in groups]
    flat = [p for g in positions for p in g]
    if len(set(flat)) != len(flat):
        raise PolicyError(
            f"attribute_groups {groups} put a column in two groups; each column belongs to one"
        )
    return positions


def _microaggregate(
    method: str,
    data: Data,
    k: int,
    columns: Sequence[Hashable] | None,
    attribute_groups: Sequence[Sequence[Hashable]] | None,
    aggregate: Aggregate,
    block_size: int | None,
) -> MaskingResult:
    if aggregate not in ("mean", "median"):
        raise PolicyError(f"aggregate must be 'mean' or 'median'; got {aggregate!r}")
    if attribute_groups is not None and columns is None:
        columns = list(dict.fromkeys(c for g in attribute_groups for c in g))
    table = numeric_table(data, columns)
    k = check_k(k, table.n)
    if block_size is not None:
        block_size = _check_block_size(block_size, k)
    positions = _attribute_groups(table, attribute_groups)
    masked = table.values.copy()
    labels_per_group = []
    integers: dict[int, np.ndarray] = {}
    absolute: dict[int, np.ndarray] = {}
    for cols in positions:
        z = standardize(table.values[:, cols])
        if block_size is None:
            labels = _Mdav(z, k).run()
        else:
            labels = mdav_partitioned_groups(z, k, block_size)
        masked[:, cols] = aggregate_groups(table.values[:, cols], labels, aggregate)
        exact_means(table, cols, labels, aggregate, masked, integers, absolute)
        labels_per_group.append(labels)
    params: dict[str, object] = {
        "k": k,
        "aggregate": aggregate,
        "columns": list(table.columns),
        "attribute_groups": [[table.columns[p] for p in g] for g in positions],
        "standardization": "z-score (population sd)",
    }
    if block_size is not None:
        params["block_size"] = block_size
    return MaskingResult(
        method=method,
        params=params,
        masked=table.rebuild(masked, absolute=absolute),
        information_loss=information_loss(table.values, masked),
        groups=tuple(labels_per_group),
        integers={table.columns[j]: v for j, v in integers.items()},
    )


def mdav(
    data: Data,
    k: int,
    *,
    columns: Sequence[Hashable] | None = None,
    attribute_groups: Sequence[Sequence[Hashable]] | None = None,
    aggregate: Aggregate = "mean",
) -> MaskingResult:
    """Microaggregate ``data`` with MDAV so that every released combination is shared by ≥ k rows.

    ``columns`` are the numeric columns to mask (default: all; others are kept as they are).
    ``attribute_groups`` splits them into groups microaggregated independently (e.g.
    ``[["a", "b"], ["c", "d"]]``): each group is then k-anonymous on its own attributes only.
    ``aggregate`` is the released value of a group: its mean (default) or its median.
    """
    return _microaggregate("mdav", data, k, columns, attribute_groups, aggregate, None)


def mdav_partitioned(
    data: Data,
    k: int,
    *,
    block_size: int = 20_000,
    columns: Sequence[Hashable] | None = None,
    attribute_groups: Sequence[Sequence[Hashable]] | None = None,
    aggregate: Aggregate = "mean",
) -> MaskingResult:
    """MDAV per block of at most ``block_size`` records (principal-axis halving), for big files.

    Same options as `mdav`. With ``block_size`` ≥ n it is exactly `mdav`.
    """
    return _microaggregate(
        "mdav-partitioned", data, k, columns, attribute_groups, aggregate, block_size
    )
