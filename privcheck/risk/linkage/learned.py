"""Worst-case learned distances for record linkage (Abril, Navarro-Arribas & Torra).

An evaluator who holds the original file A and the release B aligned record by record can ask
how many records *any* distance of a family would re-identify: the best parameters p of an
aggregation C_p(diff_1, …, diff_n) of the per-attribute differences give an upper bound of the
risk that plain Euclidean DBRL underestimates. The parameters solve the mixed-integer programme

    min Σ_i K_i   s.t.   C_p(d(a_i, b_j)) − C_p(d(a_i, b_i)) + C_i·K_i ≥ ε   for all j ≠ i,
                         K_i ∈ {0, 1},  p in the family's feasible set,

where K_i = 1 gives up record i and ε > 0 replaces the strict inequality (a link must beat every
other masked record by at least ε; ties count as failures). C_p is linear in p for every family:

- ``weighted_mean``: Σ_k p_k·diff_k, p ≥ 0, Σ p = 1 (diff_k = squared standardised difference);
- ``owa``: Σ_k p_k·diff_(k) over the differences sorted in decreasing order, same constraints;
- ``bilinear``: δᵀWδ with δ = a − b standardised and W symmetric (a generalised Mahalanobis
  distance). Positive semidefiniteness of W is not a linear constraint; like the papers we keep
  the programme linear and impose what linear constraints can: trace(W) = 1, W_kk ≥ 0,
  |W_kl| ≤ (W_kk + W_ll)/2 (implied by PSD through the 2 × 2 minors), and δᵀWδ ≥ 0 on every
  difference vector the programme sees — the form is non-negative on the observed data, which is
  all a linkage needs. The result reports W's smallest eigenvalue;
- ``choquet``: the Choquet integral of the differences with respect to a fuzzy measure μ
  (2^n − 2 free values, μ(∅) = 0, μ(X) = 1, monotone: μ(S) ≤ μ(S ∪ {k})), for n ≤ 6.

Every family contains the arithmetic mean (equal weights; W = I/n; μ(S) = |S|/n), and the
bilinear family contains every weighted mean, so at the optimum arithmetic ≤ weighted mean ≤
bilinear in linked records. C_i is the smallest valid big-M per record: C_p(d_ii) minus a lower
bound of C_p(d_ij) plus ε, from the normalisation above.

There are n(n − 1) constraints; constraint generation keeps only the ones that matter: start
with the ``n_initial`` nearest j of each i, solve with HiGHS (scipy.optimize.milp), evaluate the
parameters on all pairs, add the most violated j of the records the solution claims to link,
and repeat until none is violated — then the solution is optimal for the full programme. Under a
time limit the best incumbent found so far (by its linkage on all pairs) is reported, with
``time_limit_reached``.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Sequence
from math import factorial
from typing import Literal

import numpy as np
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp

from privcheck.errors import DataError, PolicyError
from privcheck.risk.linkage.distance import squared_distances, univariate_rates
from privcheck.risk.linkage.inputs import TableLike, paired_matrices, standardise_pair
from privcheck.risk.linkage.links import resolve
from privcheck.risk.results import LinkageResult, RecordRiskSummary

Family = Literal["weighted_mean", "owa", "bilinear", "choquet"]
FAMILIES = ("weighted_mean", "owa", "bilinear", "choquet")
MAX_CHOQUET_ATTRIBUTES = 6
_EVAL_CELLS = 4_000_000  # pairs × attributes per evaluation block


# ---------------------------------------------------------------------------- families
class _Family:
    """Linear parameterisation of one aggregation family over a pair's differences."""

    def __init__(self, family: str, m: int):
        self.family = family
        self.m = m
        if family in ("weighted_mean", "owa"):
            self.n_params = m
        elif family == "bilinear":
            self.tri = np.triu_indices(m)
            self.n_params = len(self.tri[0])
        elif family == "choquet":
            if m > MAX_CHOQUET_ATTRIBUTES:
                raise PolicyError(
                    f"the Choquet family has 2^n − 2 parameters; it is limited to "
                    f"{MAX_CHOQUET_ATTRIBUTES} attributes, got {m}"
                )
            self.n_params = 2**m - 2  # μ(S) for S = 1 … 2^m − 2 (bit masks), index S − 1
        else:
            raise PolicyError(f"family must be one of {', '.join(FAMILIES)}; got {family!r}")

    # --- features: C_p(pair) = const + features · p
    def features(self, delta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(const, F) for pairs given their standardised differences δ (pairs × m)."""
        d = delta**2
        zero = np.zeros(len(delta))
        if self.family == "weighted_mean":
            return zero, d
        if self.family == "owa":
            return zero, -np.sort(-d, axis=1)
        if self.family == "bilinear":
            k, l_ = self.tri
            return zero, delta[:, k] * delta[:, l_] * np.where(k == l_, 1.0, 2.0)
        order = np.argsort(d, axis=1, kind="stable")
        ds = np.take_along_axis(d, order, axis=1)
        inc = np.diff(ds, axis=1, prepend=0.0)
        masks = np.cumsum((1 << order)[:, ::-1], axis=1)[:, ::-1]  # A_(k) = {σ(k), …, σ(m)}
        feats = np.zeros((len(d), self.n_params))
        rows = np.repeat(np.arange(len(d)), self.m - 1)
        feats[rows, masks[:, 1:].ravel() - 1] = inc[:, 1:].ravel()
        return inc[:, 0], feats  # μ(X) = 1 multiplies the smallest difference

    def arithmetic(self) -> np.ndarray:
        """Parameters of the arithmetic mean, contained in every family."""
        if self.family in ("weighted_mean", "owa"):
            return np.full(self.m, 1.0 / self.m)
        if self.family == "bilinear":
            k, l_ = self.tri
            return np.where(k == l_, 1.0 / self.m, 0.0)
        masks = np.arange(1, 2**self.m - 1)
        return np.array([bin(s).count("1") / self.m for s in masks])

    def from_weights(self, p: np.ndarray) -> np.ndarray:
        """The family's parameters for the weighted mean with weights ``p``."""
        if self.family == "weighted_mean":
            return p.copy()
        if self.family == "bilinear":
            k, l_ = self.tri
            return np.where(k == l_, p[k], 0.0)
        if self.family == "choquet":
            masks = np.arange(1, 2**self.m - 1)
            return ((masks[:, None] >> np.arange(self.m)) & 1) @ p
        raise PolicyError("an OWA operator is not a weighted mean in general")

    def constraints(self) -> tuple[list[LinearConstraint], np.ndarray, np.ndarray]:
        """Constraints and bounds of the family's own parameters."""
        p = self.n_params
        if self.family in ("weighted_mean", "owa"):
            return [LinearConstraint(np.ones((1, p)), 1.0, 1.0)], np.zeros(p), np.ones(p)
        if self.family == "bilinear":
            k, l_ = self.tri
            diag = np.flatnonzero(k == l_)
            pos = {(int(a), int(b)): i for i, (a, b) in enumerate(zip(k, l_, strict=True))}
            rows, cols, vals = [], [], []
            r = 0
            for i, (a, b) in enumerate(zip(k, l_, strict=True)):
                if a == b:
                    continue
                for sign in (1.0, -1.0):  # ±W_ab − (W_aa + W_bb)/2 ≤ 0
                    rows += [r, r, r]
                    cols += [i, pos[(int(a), int(a))], pos[(int(b), int(b))]]
                    vals += [sign, -0.5, -0.5]
                    r += 1
            cons = [
                LinearConstraint(
                    sparse.csr_array(
                        (np.ones(len(diag)), (np.zeros(len(diag), dtype=int), diag)), shape=(1, p)
                    ),
                    1.0,
                    1.0,
                )
            ]
            if r:
                cons.append(
                    LinearConstraint(
                        sparse.csr_array((vals, (rows, cols)), shape=(r, p)), -np.inf, 0.0
                    )
                )
            lower = np.where(k == l_, 0.0, -0.5)
            upper = np.where(k == l_, 1.0, 0.5)
            return cons, lower, upper
        # Choquet: μ(S) ≤ μ(S ∪ {k}) for proper non-empty S and S ∪ {k}
        full = 2**self.m - 1
        rows, cols, vals = [], [], []
        r = 0
        for s in range(1, full):
            for k in range(self.m):
                t = s | (1 << k)
                if t != s and t != full:
                    rows += [r, r]
                    cols += [s - 1, t - 1]
                    vals += [1.0, -1.0]
                    r += 1
        cons = []
        if r:
            cons.append(
                LinearConstraint(sparse.csr_array((vals, (rows, cols)), shape=(r, p)), -np.inf, 0.0)
            )
        return cons, np.zeros(p), np.ones(p)

    def gap_bound(self, delta_x: np.ndarray, delta_y: np.ndarray) -> np.ndarray:
        """Upper bound of C_p(x) − C_p(y) over the feasible p, for pairs of difference vectors.

        ``delta_x``, ``delta_y``: signed standardised differences, shape (..., m). Weighted mean
        and OWA are linear over the simplex, so the maximum sits at a vertex: the largest
        coordinate of x − y (sorted first, for OWA) — exact. A Choquet integral with μ(X) = 1 is
        monotone and translation invariant, so C(x) − C(y) ≤ max_k (x_k − y_k)⁺. For the
        bilinear form, W·(xxᵀ − yyᵀ) over trace(W) = 1, W_kk ≥ 0, |W_kl| ≤ (W_kk + W_ll)/2 is
        at most max_k (D_kk + Σ_{l≠k} |D_kl|) with D = xxᵀ − yyᵀ.
        """
        if self.family == "bilinear":
            d = delta_x[..., :, None] * delta_x[..., None, :]
            d -= delta_y[..., :, None] * delta_y[..., None, :]
            diag = np.diagonal(d, axis1=-2, axis2=-1)
            return (diag + np.abs(d).sum(axis=-1) - np.abs(diag)).max(axis=-1)
        dx, dy = delta_x**2, delta_y**2
        if self.family == "owa":
            return (np.sort(dx, axis=-1) - np.sort(dy, axis=-1)).max(axis=-1)
        gap = (dx - dy).max(axis=-1)
        return np.maximum(gap, 0.0) if self.family == "choquet" else gap

    # --- evaluation on all pairs
    def scores(self, params: np.ndarray, za: np.ndarray, zb: np.ndarray) -> np.ndarray:
        """C_p(d(a_i, b_j)) for all i, j (n_a × n_b)."""
        if self.family == "weighted_mean":
            w = np.sqrt(np.maximum(params, 0.0))
            return squared_distances(za * w, zb * w)
        if self.family == "bilinear":
            mat = self.matrix(params)
            qa = np.einsum("ij,jk,ik->i", za, mat, za)
            qb = np.einsum("ij,jk,ik->i", zb, mat, zb)
            return qa[:, None] + qb[None, :] - 2.0 * (za @ mat) @ zb.T
        out = np.empty((len(za), len(zb)))
        rows = max(1, _EVAL_CELLS // max(1, len(zb) * self.m))
        mu = np.concatenate(([0.0], params, [1.0])) if self.family == "choquet" else None
        for start in range(0, len(za), rows):
            d = (za[start : start + rows, None, :] - zb[None, :, :]) ** 2
            if self.family == "owa":
                out[start : start + rows] = -np.sort(-d, axis=2) @ params
            else:
                order = np.argsort(d, axis=2, kind="stable")
                ds = np.take_along_axis(d, order, axis=2)
                inc = np.diff(ds, axis=2, prepend=0.0)
                masks = np.cumsum((1 << order)[..., ::-1], axis=2)[..., ::-1]
                out[start : start + rows] = np.sum(inc * mu[masks], axis=2)
        return out

    def matrix(self, params: np.ndarray) -> np.ndarray:
        mat = np.zeros((self.m, self.m))
        mat[self.tri] = params
        return mat + np.triu(mat, 1).T

    def describe(self, params: np.ndarray, names: list[str]) -> dict:
        if self.family == "weighted_mean":
            return {"weights": dict(zip(names, params.tolist(), strict=True))}
        if self.family == "owa":
            return {"owa_weights": params.tolist()}
        if self.family == "bilinear":
            mat = self.matrix(params)
            return {
                "matrix": mat.tolist(),
                "min_eigenvalue": float(np.linalg.eigvalsh(mat).min()),
            }
        return {
            "measure": {
                ",".join(names[k] for k in range(self.m) if (s >> k) & 1): float(v)
                for s, v in zip(range(1, 2**self.m - 1), params, strict=True)
            }
        }

    def attribute_weights(self, params: np.ndarray) -> np.ndarray | None:
        """Per-attribute importance: weights, W's diagonal, or the Shapley value of μ."""
        if self.family == "weighted_mean":
            return params
        if self.family == "bilinear":
            return np.diag(self.matrix(params))
        if self.family == "choquet":
            mu = np.concatenate(([0.0], params, [1.0]))
            phi = np.zeros(self.m)
            for k in range(self.m):
                for s in range(2**self.m):
                    if (s >> k) & 1:
                        continue
                    size = bin(s).count("1")
                    coef = factorial(size) * factorial(self.m - size - 1) / factorial(self.m)
                    phi[k] += coef * (mu[s | (1 << k)] - mu[s])
            return phi
        return None


# ---------------------------------------------------------------------------- solver loop
def _violations(
    scores: np.ndarray, eps: float, rows: np.ndarray, limit: int
) -> tuple[np.ndarray, np.ndarray]:
    """The ``limit`` most violated (i, j) of each record in ``rows``: S_ij − S_ii < ε, j ≠ i."""
    if rows.size == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    diag = scores[rows, rows]
    gap = scores[rows] - diag[:, None]
    gap[np.arange(rows.size), rows] = np.inf
    k = min(limit, gap.shape[1] - 1)
    cand = np.argpartition(gap, k - 1, axis=1)[:, :k] if k < gap.shape[1] else np.argsort(gap, 1)
    cg = np.take_along_axis(gap, cand, axis=1)
    bad = cg < eps
    return np.repeat(rows, k)[bad.ravel()], cand[bad]


def _hopeless(fam: _Family, za: np.ndarray, zb: np.ndarray, eps: float) -> np.ndarray:
    """Records i with a j ≠ i that no feasible p can rank at least ε behind the true pair.

    For them every p violates a constraint (for monotone families: j is at least as close on
    every attribute), so K_i is fixed to 1 before solving — fewer binaries for HiGHS.
    """
    n, m = za.shape
    out = np.zeros(n, dtype=bool)
    d_true = za - zb
    per_pair = m * m if fam.family == "bilinear" else m
    rows = max(1, _EVAL_CELLS // max(1, n * per_pair))
    for start in range(0, n, rows):
        stop = min(start + rows, n)
        delta = za[start:stop, None, :] - zb[None, :, :]
        best_gap = fam.gap_bound(delta, np.broadcast_to(d_true[start:stop, None, :], delta.shape))
        best_gap[np.arange(stop - start), np.arange(start, stop)] = np.inf
        out[start:stop] = (best_gap < eps).any(axis=1)
    return out


@contextlib.contextmanager
def _quiet_stdout():
    """Silence HiGHS's C-level progress lines on file descriptor 1 during a solve.

    Some HiGHS builds print debugging lines from C++ regardless of ``disp``; they would flood a
    CLI's JSON output. The redirection is process-wide for the solve's duration.
    """
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        yield
        return
    sys.stdout.flush()
    saved = os.dup(fd)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), fd)
            yield
    finally:
        os.dup2(saved, fd)
        os.close(saved)


def _polish(
    x: np.ndarray,
    keep: np.ndarray,
    own_cons: list[LinearConstraint],
    nonneg: list[np.ndarray],
    rows_i: list[np.ndarray],
    rows_f: list[np.ndarray],
    rows_rhs: list[np.ndarray],
    eps: float,
    p_lo: np.ndarray,
    p_hi: np.ndarray,
) -> np.ndarray:
    """Largest-margin parameters that keep the MILP's chosen records linked (an LP).

    HiGHS accepts a solution within its feasibility and integrality tolerances (K_i ≈ 1e-6
    times a big-M can exceed ε), so the MILP's own parameters may miss some of the links it
    claims by a hair. With the set of linked records fixed, maximising the smallest margin t
    over their working-set rows is a plain LP, and its parameters link them robustly.
    """
    ii = np.concatenate(rows_i)
    sel = keep[ii]
    if not sel.any():
        return np.clip(x, p_lo, p_hi)
    f = np.vstack(rows_f)[sel]
    shift = np.concatenate(rows_rhs)[sel] - eps  # = −(const_ij − const_ii)
    n_par = len(x)
    cons = [
        LinearConstraint(
            sparse.hstack([sparse.csr_array(con.A), np.zeros((con.A.shape[0], 1))]), con.lb, con.ub
        )
        for con in own_cons
    ]
    cons.append(LinearConstraint(np.hstack([f, -np.ones((len(f), 1))]), shift, np.inf))
    if nonneg:
        g = np.vstack(nonneg)
        cons.append(LinearConstraint(np.hstack([g, np.zeros((len(g), 1))]), 0.0, np.inf))
    obj = np.zeros(n_par + 1)
    obj[-1] = -1.0
    bounds = Bounds(np.concatenate((p_lo, [-np.inf])), np.concatenate((p_hi, [np.inf])))
    with _quiet_stdout():
        res = milp(obj, bounds=bounds, constraints=cons)
    if res.x is None or -res.fun < eps:
        return np.clip(x, p_lo, p_hi)
    return np.clip(res.x[:n_par], p_lo, p_hi)


def _negative_forms(scores: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``limit`` most negative pairs per record of a bilinear form (it must be ≥ 0)."""
    rows = np.flatnonzero((scores < 0).any(axis=1))
    if rows.size == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    k = min(limit, scores.shape[1])
    cand = np.argpartition(scores[rows], k - 1, axis=1)[:, :k]
    neg = np.take_along_axis(scores[rows], cand, axis=1) < 0
    return np.repeat(rows, k)[neg.ravel()], cand[neg]


def _linked(scores: np.ndarray, eps: float) -> np.ndarray:
    """Records whose true pair beats every other masked record by at least ε."""
    n = len(scores)
    gap = scores - np.diag(scores)[:, None]
    gap[np.arange(n), np.arange(n)] = np.inf
    return gap.min(axis=1) >= eps


def learned_distance(
    original: TableLike,
    masked: TableLike,
    family: Family = "weighted_mean",
    *,
    attributes: Sequence[str] | None = None,
    standardisation: Literal["each", "masked", "none"] = "each",
    epsilon: float = 1e-5,
    n_initial: int = 3,
    add_per_round: int = 3,
    max_rounds: int = 100,
    time_limit: float = 60.0,
    seed_with_weighted_mean: bool = True,
    random_state: int | None = 0,
) -> LinkageResult:
    """Learn the family's parameters that link the most records of ``original`` to ``masked``.

    ``seed_with_weighted_mean``: for the bilinear and Choquet families, first learn the best
    weighted mean (fast) and start from it — both families contain every weighted mean
    (W = diag(p); the additive measure μ(S) = Σ_{k∈S} p_k), so even a run stopped by the time
    limit links at least as many records as the weighted mean.

    The two files must be aligned by position (supervised learning: record i of each is the same
    individual). Returns a LinkageResult whose figures hold the ``parameters``, the number of
    records the programme links (``milp_linked``), ``solve_seconds``, ``rounds``,
    ``constraints``, ``optimal`` and ``time_limit_reached``; the rates are those of linking with
    the learned distance on all pairs (ties as in DBRL).
    """
    a, b, names = paired_matrices(original, masked, attributes)
    if len(a) != len(b):
        raise DataError(
            f"learned distances are supervised: the original ({len(a)} records) and masked "
            f"({len(b)}) files must hold the same records, aligned by position"
        )
    if len(a) < 3:
        raise DataError("learned distances need at least 3 records")
    if epsilon <= 0:
        raise PolicyError(
            f"epsilon must be positive (it makes the inequality strict); got {epsilon}"
        )
    if n_initial < 1 or add_per_round < 1 or max_rounds < 1 or time_limit <= 0:
        raise PolicyError("n_initial, add_per_round, max_rounds and time_limit must be positive")
    fam = _Family(family, a.shape[1])
    za, zb = standardise_pair(a, b, standardisation)
    n = len(za)
    t_start = time.perf_counter()

    forced = _hopeless(fam, za, zb, epsilon)

    # working set: the n_initial nearest j of each i under the arithmetic mean
    dist = squared_distances(za, zb)
    dist[np.arange(n), np.arange(n)] = np.inf
    k0 = min(n_initial, n - 1)
    near = np.argpartition(dist, k0 - 1, axis=1)[:, :k0]
    in_ws = np.zeros((n, n), dtype=bool)
    wi, wj = np.repeat(np.arange(n), k0), near.ravel()
    in_ws[wi, wj] = True

    const_t, feat_t = fam.features(za - zb)
    own_cons, p_lo, p_hi = fam.constraints()
    n_par = fam.n_params
    c = np.concatenate((np.zeros(n_par), np.ones(n)))
    integrality = np.concatenate((np.zeros(n_par), np.ones(n)))
    k_lo = forced.astype(float)
    bounds = Bounds(np.concatenate((p_lo, k_lo)), np.concatenate((p_hi, np.ones(n))))

    def lift(rows: sparse.csr_array | np.ndarray) -> sparse.csr_array:
        block = sparse.csr_array(rows)
        return sparse.hstack([block, sparse.csr_array((block.shape[0], n))], format="csr")

    base_cons = [LinearConstraint(lift(con.A), con.lb, con.ub) for con in own_cons]
    if fam.family == "bilinear":  # the form is non-negative on the true pairs' differences
        base_cons.append(LinearConstraint(lift(feat_t), 0.0, np.inf))

    # working-set rows: (F_ij − F_ii)·p + M_ij·K_i ≥ ε − (const_ij − const_ii)
    rows_i: list[np.ndarray] = []
    rows_f: list[np.ndarray] = []
    nonneg: list[np.ndarray] = []  # bilinear: pairs (as features) whose form must be ≥ 0
    rows_rhs: list[np.ndarray] = []
    rows_m: list[np.ndarray] = []

    def add_pairs(i: np.ndarray, j: np.ndarray) -> None:
        keep = ~forced[i]  # a given-up record needs no constraint
        i, j = i[keep], j[keep]
        delta_ij = za[i] - zb[j]
        m_ij = fam.gap_bound(za[i] - zb[i], delta_ij) + epsilon
        live = m_ij > 0  # otherwise every feasible p satisfies the row: leave it out
        i, j, m_ij, delta_ij = i[live], j[live], m_ij[live], delta_ij[live]
        const_ij, feat_ij = fam.features(delta_ij)
        rows_i.append(i)
        rows_f.append(feat_ij - feat_t[i])
        rows_rhs.append(epsilon - (const_ij - const_t[i]))
        rows_m.append(m_ij * (1.0 + 1e-9) + 1e-12)

    add_pairs(wi, wj)
    best = fam.arithmetic()
    best_scores = fam.scores(best, za, zb)
    best_linked = int(_linked(best_scores, epsilon).sum())
    seed_linked = None
    if seed_with_weighted_mean and fam.family in ("bilinear", "choquet"):
        seed = learned_distance(
            a,
            b,
            "weighted_mean",
            standardisation=standardisation,
            epsilon=epsilon,
            n_initial=n_initial,
            add_per_round=add_per_round,
            max_rounds=max_rounds,
            time_limit=time_limit / 4,
        )
        p = np.array(list(seed.figures["parameters"]["weights"].values()))
        cand = fam.from_weights(p)
        cand_scores = fam.scores(cand, za, zb)
        seed_linked = int(_linked(cand_scores, epsilon).sum())
        if seed_linked > best_linked:
            best, best_scores, best_linked = cand, cand_scores, seed_linked
    rounds = 0
    time_hit = False
    optimal = False
    status = None
    milp_linked = None
    for rounds in range(1, max_rounds + 1):  # noqa: B007 - reported
        remaining = time_limit - (time.perf_counter() - t_start)
        if remaining <= 0:
            time_hit = True
            break
        ii = np.concatenate(rows_i)
        kpart = sparse.csr_array(
            (np.concatenate(rows_m), (np.arange(ii.size), ii)), shape=(ii.size, n)
        )
        a_mat = sparse.hstack([sparse.csr_array(np.vstack(rows_f)), kpart], format="csr")
        cons = [*base_cons, LinearConstraint(a_mat, np.concatenate(rows_rhs), np.inf)]
        if nonneg:
            cons.append(LinearConstraint(lift(np.vstack(nonneg)), 0.0, np.inf))
        # the incumbent is feasible for the full programme, hence for this relaxation too
        cutoff = np.concatenate((np.zeros(n_par), np.ones(n)))[None, :]
        cons.append(LinearConstraint(cutoff, -np.inf, n - best_linked + 0.5))
        with _quiet_stdout():
            res = milp(
                c,
                integrality=integrality,
                bounds=bounds,
                constraints=cons,
                options={"time_limit": max(remaining, 1e-3), "presolve": True},
            )
        status = int(res.status)
        if res.x is None:
            time_hit = status == 1
            break
        k_vals = res.x[n_par:] > 0.5
        milp_linked = int(n - k_vals.sum())
        forms = [feat_t, *nonneg] if fam.family == "bilinear" else []
        params = _polish(
            res.x[:n_par], ~k_vals, own_cons, forms, rows_i, rows_f, rows_rhs, epsilon, p_lo, p_hi
        )
        scores = fam.scores(params, za, zb)
        linked = int(_linked(scores, epsilon).sum())
        if linked > best_linked:
            best, best_scores, best_linked = params, scores, linked
        if status == 1:
            time_hit = True
            break
        vi, vj = _violations(scores, epsilon, np.flatnonzero(~k_vals), add_per_round)
        fresh = ~in_ws[vi, vj]
        vi, vj = vi[fresh], vj[fresh]
        ni, nj = _negative_forms(scores, add_per_round) if fam.family == "bilinear" else ((), ())
        if vi.size == 0 and len(ni) == 0:
            optimal = status == 0
            if linked >= best_linked:
                best, best_scores, best_linked = params, scores, linked
            break
        in_ws[vi, vj] = True
        add_pairs(vi, vj)
        if len(ni):
            nonneg.append(fam.features(za[ni] - zb[nj])[1])
    seconds = time.perf_counter() - t_start

    t = np.arange(n)
    tol = 1e-12 * (np.abs(best_scores).max() + 1.0)
    links = resolve(best_scores, t, tol, np.random.default_rng(random_state))
    rates = links.rates(t)
    risk = links.credit()
    weights = fam.attribute_weights(best)
    if weights is None:
        contrib = univariate_rates(za, zb, t)
        kind = "anonymity-set re-identification rate linking on the attribute alone"
    else:
        contrib = weights
        kind = {
            "weighted_mean": "learned weight of the attribute",
            "bilinear": "diagonal entry of the learned matrix W",
            "choquet": "Shapley value of the attribute under the learned fuzzy measure",
        }[fam.family]
    figures = {
        "family": fam.family,
        "parameters": fam.describe(best, names),
        "linked_records": best_linked,
        "milp_linked": milp_linked,
        "weighted_mean_seed_linked": seed_linked,
        "given_up_before_solving": int(forced.sum()),
        "arithmetic_mean_linked": int(_linked(fam.scores(fam.arithmetic(), za, zb), epsilon).sum()),
        "solve_seconds": seconds,
        "rounds": rounds,
        "constraints": int(sum(x.size for x in rows_i)),
        "milp_status": status,
        "optimal": optimal,
        "time_limit_reached": time_hit,
        "epsilon": epsilon,
    }
    return LinkageResult(
        attack=f"learned-{fam.family.replace('_', '-')}",
        params={
            "family": fam.family,
            "standardisation": standardisation,
            "epsilon": epsilon,
            "n_initial": n_initial,
            "add_per_round": add_per_round,
            "time_limit": time_limit,
            "random_state": random_state,
        },
        attributes=names,
        n_intruder_records=n,
        n_masked_records=n,
        **rates,
        record_risk_summary=RecordRiskSummary.of(risk),
        attribute_contribution=dict(zip(names, np.asarray(contrib).tolist(), strict=True)),
        attribute_contribution_kind=kind,
        figures=figures,
        record_risk=risk,
        linked_index=links.link,
        anonymity_set_size=links.set_size,
        true_in_set=links.true_in,
    )
