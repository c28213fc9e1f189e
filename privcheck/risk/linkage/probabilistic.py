"""Probabilistic record linkage (Fellegi–Sunter) with m/u probabilities estimated by EM.

Each candidate pair (b, a) of an intruder record and a masked record is reduced to its agreement
pattern γ ∈ {0, 1}^m: γ_j = 1 when the pair agrees on attribute j (equal categories, or numeric
values within ``tolerance``). Under the conditional-independence model a true pair agrees on j
with probability m_j, a false pair with probability u_j, and the linkage weight of a pattern is

    w(γ) = Σ_j γ_j·log2(m_j/u_j) + (1 − γ_j)·log2((1 − m_j)/(1 − u_j)).

The m_j, u_j and the share p of true pairs are estimated by EM on the patterns of all candidate
pairs without using the truth (as an intruder would). Pairs are bit-packed into one integer per
pair, so the data reduce to a count per distinct pattern (at most 2^m of them): EM then runs over
the pattern counts and costs nothing per pair.

Fellegi and Sunter's decision rule links the pairs with w ≥ T_upper, leaves those with
w ≤ T_lower unlinked, and sends the rest to clerical review. T_upper is the lowest weight such
that the model's false-match rate P(link | non-match) = Σ_{w(γ) ≥ T_upper} u(γ) stays within the
target; T_lower the highest weight with P(non-link | match) = Σ_{w(γ) ≤ T_lower} m(γ) within its
target. Whole weight levels are kept together, so the achieved rates never exceed the targets
(no randomisation at the boundary).

For re-identification each intruder record links to its best-weighted masked records (ties form
the anonymity set, as in distance-based linkage). Candidate pairs are all pairs, or — with
``block_on`` — only pairs that agree exactly on the blocking attributes, which is what makes
large files tractable (pairs are generated vectorised, block by block of intruder records).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from privcheck.errors import DataError, PolicyError
from privcheck.limits import ITERATIONS
from privcheck.risk.linkage.inputs import TableLike, exact_floats, numeric_column, true_index_for
from privcheck.risk.linkage.links import Links
from privcheck.risk.results import LinkageResult, RecordRiskSummary

MAX_ATTRIBUTES = 20
DEFAULT_PAIR_BUDGET = 4_000_000
_CLIP = 1e-9


# ---------------------------------------------------------------------------- EM
@dataclass
class EMResult:
    """Fitted two-class latent model: m, u per attribute and the share of true pairs p."""

    m: np.ndarray
    u: np.ndarray
    p: float
    iterations: int
    converged: bool
    log_likelihood: float


def pattern_bits(codes: np.ndarray, n_attributes: int) -> np.ndarray:
    """Unpack integer patterns into a (patterns × attributes) 0/1 matrix (bit j = attribute j)."""
    return ((codes[:, None] >> np.arange(n_attributes)) & 1).astype(np.float64)


def estimate_m_u(
    patterns: np.ndarray,
    counts: np.ndarray,
    *,
    p0: float = 0.01,
    m0: float | np.ndarray = 0.9,
    u0: float | np.ndarray | None = None,
    max_iter: int = 1000,
    tol: float = 1e-9,
) -> EMResult:
    """EM for the conditional-independence mixture over distinct agreement patterns.

    ``patterns``: (K × m) 0/1 matrix of the distinct patterns; ``counts``: how many pairs show
    each. The fitted class with the higher agreement probabilities is labelled "match".
    """
    ITERATIONS.check(max_iter, "max_iter asks for", "use the default (1,000) and a larger tol")
    g = np.asarray(patterns, dtype=np.float64)
    c = np.asarray(counts, dtype=np.float64)
    if g.ndim != 2 or len(g) != len(c) or c.sum() <= 0:
        raise DataError("estimate_m_u needs a (patterns × attributes) matrix and its counts")
    total = c.sum()
    if u0 is None:
        u0 = (c @ g) / total  # almost every pair is a non-match: the agreement rate ≈ u
    m = np.clip(np.broadcast_to(np.asarray(m0, dtype=float), g.shape[1]).copy(), _CLIP, 1 - _CLIP)
    u = np.clip(np.broadcast_to(np.asarray(u0, dtype=float), g.shape[1]).copy(), _CLIP, 1 - _CLIP)
    p = float(np.clip(p0, _CLIP, 1 - _CLIP))
    converged = False
    it = 0
    ll = -np.inf
    for it in range(1, max_iter + 1):  # noqa: B007 - the count is reported
        lm = np.log(p) + g @ np.log(m) + (1 - g) @ np.log1p(-m)
        lu = np.log1p(-p) + g @ np.log(u) + (1 - g) @ np.log1p(-u)
        top = np.maximum(lm, lu)
        ll = float(c @ (top + np.log(np.exp(lm - top) + np.exp(lu - top))))
        post = 1.0 / (1.0 + np.exp(lu - lm))  # P(match | pattern)
        wm = c * post
        wu = c - wm
        new_p = float(np.clip(wm.sum() / total, _CLIP, 1 - _CLIP))
        new_m = np.clip((wm @ g) / max(wm.sum(), 1e-300), _CLIP, 1 - _CLIP)
        new_u = np.clip((wu @ g) / max(wu.sum(), 1e-300), _CLIP, 1 - _CLIP)
        delta = max(abs(new_p - p), np.abs(new_m - m).max(), np.abs(new_u - u).max())
        p, m, u = new_p, new_m, new_u
        if delta < tol:
            converged = True
            break
    if np.sum(np.log(m / u)) < 0:  # label switching: "match" is the class that agrees more
        m, u, p = u, m, 1.0 - p
    return EMResult(m=m, u=u, p=p, iterations=it, converged=converged, log_likelihood=ll)


def _pattern_sums(when_agree: np.ndarray, when_disagree: np.ndarray) -> np.ndarray:
    """Σ_j (γ_j ? when_agree_j : when_disagree_j) for every pattern code 0 … 2^n − 1.

    One pass per attribute over a 2^n vector, instead of a (2^n × n) bit matrix.
    """
    n = len(when_agree)
    codes = np.arange(2**n, dtype=np.int64)
    out = np.full(codes.size, float(np.sum(when_disagree)))
    for j in range(n):
        out += ((codes >> j) & 1) * float(when_agree[j] - when_disagree[j])
    return out


def pattern_weights(m: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Linkage weight of every pattern code 0 … 2^n − 1 (log2 likelihood ratio)."""
    return _pattern_sums(np.log2(m / u), np.log2((1 - m) / (1 - u)))


def fellegi_sunter_thresholds(
    m: np.ndarray, u: np.ndarray, false_match_rate: float, false_non_match_rate: float
) -> dict[str, Any]:
    """Upper and lower weight thresholds meeting the target error rates under the model."""
    for name, v in (
        ("false_match_rate", false_match_rate),
        ("false_non_match_rate", false_non_match_rate),
    ):
        if not 0 <= v < 1:
            raise PolicyError(f"{name} is a probability in [0, 1); got {v}")
    w = pattern_weights(m, u)
    pm = np.exp(_pattern_sums(np.log(m), np.log1p(-m)))
    pu = np.exp(_pattern_sums(np.log(u), np.log1p(-u)))
    levels, inv = np.unique(np.round(w, 9), return_inverse=True)
    lm = np.bincount(inv, weights=pm, minlength=len(levels))
    lu = np.bincount(inv, weights=pu, minlength=len(levels))
    # link the highest levels while their u-mass stays within the target
    cum_u_top = np.cumsum(lu[::-1])[::-1]  # u-mass of the levels ≥ this one
    ok_up = np.flatnonzero(cum_u_top <= false_match_rate + 1e-15)
    upper_idx = int(ok_up[0]) if ok_up.size else len(levels)
    cum_m_bottom = np.cumsum(lm)  # m-mass of the levels ≤ this one
    ok_low = np.flatnonzero(cum_m_bottom <= false_non_match_rate + 1e-15)
    lower_idx = int(ok_low[-1]) if ok_low.size else -1
    overlap = lower_idx >= upper_idx
    if overlap:  # targets loose enough to decide every pair: no clerical region
        lower_idx = upper_idx - 1
    upper = float(levels[upper_idx]) if upper_idx < len(levels) else np.inf
    lower = float(levels[lower_idx]) if lower_idx >= 0 else -np.inf
    return {
        "upper": upper,
        "lower": lower,
        "false_match_rate": float(lu[upper_idx:].sum()),
        "false_non_match_rate": float(lm[: lower_idx + 1].sum()),
        "clerical_match_share": float(lm[lower_idx + 1 : upper_idx].sum()),
        "clerical_non_match_share": float(lu[lower_idx + 1 : upper_idx].sum()),
        "targets_overlap": bool(overlap),
    }


# ---------------------------------------------------------------------------- comparison data
def _comparison_arrays(
    intruder: TableLike,
    masked: TableLike,
    attributes: Sequence[str] | None,
    tolerance: float | Sequence[float] | Mapping[str, float],
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """Both files as float matrices (categories as joint codes, missing as NaN) + tolerances."""
    fa = intruder if isinstance(intruder, pd.DataFrame) else pd.DataFrame(np.asarray(intruder))
    fb = masked if isinstance(masked, pd.DataFrame) else pd.DataFrame(np.asarray(masked))
    if not isinstance(intruder, pd.DataFrame):
        fa.columns = [f"x{j}" for j in range(fa.shape[1])]
    if not isinstance(masked, pd.DataFrame):
        if fb.shape[1] != fa.shape[1]:
            raise DataError(
                f"the intruder file has {fa.shape[1]} attributes and the masked file "
                f"{fb.shape[1]}; select the same attributes in both"
            )
        fb.columns = list(fa.columns)
    names = [str(c) for c in (attributes if attributes is not None else fa.columns)]
    if not names:
        raise PolicyError("give at least one attribute to compare")
    if len(names) > MAX_ATTRIBUTES:
        raise PolicyError(
            f"probabilistic linkage compares at most {MAX_ATTRIBUTES} attributes "
            f"(2^m agreement patterns); got {len(names)}"
        )
    for frame, label in ((fa, "intruder"), (fb, "masked")):
        missing = [c for c in names if c not in frame.columns]
        if missing:
            raise DataError(f"the {label} file has no column {missing[0]!r}")
    if isinstance(tolerance, Mapping):
        unknown = set(tolerance) - set(names)
        if unknown:
            raise PolicyError(f"tolerance given for unknown attribute {sorted(unknown)[0]!r}")
        tol = np.array([float(tolerance.get(c, 0.0)) for c in names])
    else:
        try:
            tol = np.broadcast_to(np.asarray(tolerance, dtype=float), (len(names),)).copy()
        except (TypeError, ValueError):  # a list of another length, or not numbers
            raise PolicyError(
                f"tolerance must be one number, one per attribute ({len(names)}: "
                f"{', '.join(names)}), or a mapping attribute → number; got {tolerance!r}"
            ) from None
    if not np.all(tol >= 0):  # (NaN too: a NaN tolerance would make nothing agree)
        raise PolicyError("tolerances must be non-negative numbers")
    a = np.empty((len(fa), len(names)))
    b = np.empty((len(fb), len(names)))
    for j, c in enumerate(names):
        ca, cb = fa[c], fb[c]
        if pd.api.types.is_numeric_dtype(ca) and pd.api.types.is_numeric_dtype(cb):
            # integer columns exactly: one shift for both files before float64 (values near
            # 2^60 that differ must not agree), missing values as NaN
            xa = numeric_column(ca, c, "the intruder file")
            xb = numeric_column(cb, c, "the masked file")
            ma, mb = exact_floats([[xa], [xb]], [c])
            for x, label in ((ma, "intruder"), (mb, "masked")):
                if np.isinf(x).any():  # (inf − inf is nan: equal values would disagree)
                    raise DataError(
                        f"column {c!r} of the {label} file has infinite values; probabilistic "
                        "linkage compares finite numbers (a missing value is allowed: it agrees "
                        "with nothing)"
                    )
            a[:, j], b[:, j] = ma[:, 0], mb[:, 0]
        else:
            if tol[j] > 0:
                raise PolicyError(f"attribute {c!r} is categorical: its tolerance must be 0")
            codes, _ = pd.factorize(pd.concat([ca, cb], ignore_index=True))
            codes = codes.astype(np.float64)
            codes[codes < 0] = np.nan  # a missing value agrees with nothing
            a[:, j], b[:, j] = codes[: len(fa)], codes[len(fa) :]
    return a, b, tol, names


def _block_keys(
    intruder: TableLike, masked: TableLike, block_on: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    if not isinstance(intruder, pd.DataFrame) or not isinstance(masked, pd.DataFrame):
        raise PolicyError("block_on needs the intruder and masked files as DataFrames")
    both = pd.concat([intruder[list(block_on)], masked[list(block_on)]], ignore_index=True)
    key, _ = pd.factorize(pd.MultiIndex.from_frame(both.astype(str)))
    return key[: len(intruder)].astype(np.int64), key[len(intruder) :].astype(np.int64)


def _pair_chunks(
    n_a: int,
    n_b: int,
    keys: tuple[np.ndarray, np.ndarray] | None,
    budget: int,
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Candidate pairs (intruder row, masked row), grouped by intruder row, ≤ ``budget`` each."""
    if keys is None:
        rows = max(1, budget // max(n_b, 1))
        for start in range(0, n_a, rows):
            stop = min(start + rows, n_a)
            ia = np.repeat(np.arange(start, stop), n_b)
            ib = np.tile(np.arange(n_b), stop - start)
            yield ia, ib
        return
    ka, kb = keys
    order = np.argsort(kb, kind="stable")
    n_keys = int(max(ka.max(initial=-1), kb.max(initial=-1))) + 1
    count = np.bincount(kb, minlength=n_keys)
    first = np.concatenate(([0], np.cumsum(count)[:-1]))
    per_row = count[ka]
    cum = np.cumsum(per_row)
    start = 0
    while start < n_a:
        base = cum[start - 1] if start else 0
        stop = int(np.searchsorted(cum, base + budget, "right"))
        stop = max(stop, start + 1)
        rows = np.arange(start, stop)
        sizes = per_row[rows]
        ia = np.repeat(rows, sizes)
        offsets = np.arange(ia.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        ib = order[first[ka[ia]] + offsets]
        yield ia, ib
        start = stop


def _codes(a: np.ndarray, b: np.ndarray, tol: np.ndarray, ia, ib) -> np.ndarray:
    code = np.zeros(ia.size, dtype=np.int64)
    for j in range(a.shape[1]):
        code |= _agree(a[ia, j], b[ib, j], tol[j]).astype(np.int64) << j
    return code


def _agree(x: np.ndarray, y: np.ndarray, tolerance: float) -> np.ndarray:
    """|x − y| ≤ tolerance, exactly (as in rational arithmetic), pair by pair.

    The float difference is rounded: a true difference just above the tolerance can round onto
    it (−1e308 against 5e-324 under a tolerance of 1e308). Rounding is monotone, so only pairs
    whose rounded gap equals the tolerance can be wrong; for those the rounding error of the
    subtraction (Knuth's TwoSum, exact when nothing overflows) decides. Finite values whose
    difference is beyond float64 (1e308 and −1e308) give inf: a disagreement under any finite
    tolerance, exactly so. Missing values (nan) agree with nothing."""
    with np.errstate(over="ignore", invalid="ignore"):
        d = x - y
        gap = np.abs(d)
        if np.isinf(tolerance):  # (everything finite agrees; an overflowed gap too)
            return ~np.isnan(d)
        agree = gap < tolerance
        edge = np.flatnonzero(gap == tolerance)
        if edge.size:
            xe, ye, de = x[edge], y[edge], d[edge]
            back = de - xe
            error = (xe - (de - back)) + (-ye - back)  # (x − y) − d, exactly
            # the true gap is |d + error|: within the tolerance when error pulls d towards 0
            agree[edge] = np.sign(de) * np.sign(error) <= 0
    return agree


def _count_patterns(a, b, tol, keys, budget) -> np.ndarray:
    counts = np.zeros(2 ** a.shape[1], dtype=np.int64)
    for ia, ib in _pair_chunks(len(a), len(b), keys, budget):
        counts += np.bincount(_codes(a, b, tol, ia, ib), minlength=counts.size)
    return counts


def agreement_pattern_counts(
    intruder: TableLike,
    masked: TableLike,
    *,
    attributes: Sequence[str] | None = None,
    tolerance: float | Sequence[float] | Mapping[str, float] = 0.0,
    block_on: Sequence[str] | None = None,
    pair_budget: int = DEFAULT_PAIR_BUDGET,
) -> np.ndarray:
    """How many candidate pairs show each agreement pattern (index = Σ_j γ_j·2^j)."""
    a, b, tol, _ = _comparison_arrays(intruder, masked, attributes, tolerance)
    keys = _block_keys(intruder, masked, block_on) if block_on else None
    return _count_patterns(a, b, tol, keys, pair_budget)


# ---------------------------------------------------------------------------- the attack
def prl(
    intruder: TableLike,
    masked: TableLike,
    *,
    attributes: Sequence[str] | None = None,
    true_index: Sequence[int] | np.ndarray | None = None,
    tolerance: float | Sequence[float] | Mapping[str, float] = 0.0,
    block_on: Sequence[str] | None = None,
    false_match_rate: float = 1e-4,
    false_non_match_rate: float = 0.05,
    max_iter: int = 1000,
    random_state: int | None = 0,
    pair_budget: int = DEFAULT_PAIR_BUDGET,
) -> LinkageResult:
    """Fellegi–Sunter probabilistic linkage of ``intruder`` against the release ``masked``.

    ``tolerance``: numeric agreement |a − b| ≤ tolerance, in the attribute's units (a scalar, one
    per attribute, or a mapping by name; categorical attributes agree only when equal).
    ``block_on``: only pairs equal on these columns are compared (and the true pair is missed
    when masking changed a blocking value — the result then shows it in ``true_in_set``); by
    default the blocking columns are left out of the compared attributes.

    ``false_match_rate`` is P(link | non-match) *per pair*: with n_B·n_A candidate pairs almost
    all of which are non-matches, it must be small (default 10⁻⁴) for the links to be mostly
    true ones. ``false_non_match_rate`` is P(non-link | match).

    Figures: ``m``, ``u``, ``p`` (fitted), ``thresholds`` (upper / lower weight and the error
    rates they achieve under the model), pair counts per region, and the evaluator's
    ``link_precision`` / ``link_recall`` of the linked region against the truth.
    """
    if attributes is None and block_on and isinstance(intruder, pd.DataFrame):
        # blocking attributes agree on every compared pair: they carry no evidence
        attributes = [str(c) for c in intruder.columns if c not in set(block_on)]
    a, b, tol, names = _comparison_arrays(intruder, masked, attributes, tolerance)
    t = true_index_for(true_index, len(a), len(b))
    if pair_budget < 1:
        raise PolicyError("pair_budget must be positive")
    keys = _block_keys(intruder, masked, block_on) if block_on else None
    m_attr = len(names)
    counts = _count_patterns(a, b, tol, keys, pair_budget)
    n_pairs = int(counts.sum())
    if n_pairs == 0:
        raise DataError("no candidate pairs: no intruder record shares a block with the release")
    seen = np.flatnonzero(counts)
    em = estimate_m_u(
        pattern_bits(seen, m_attr),
        counts[seen],
        p0=min(min(len(a), len(b)) / n_pairs, 0.5),
        max_iter=max_iter,
    )
    weights = pattern_weights(em.m, em.u)
    thr = fellegi_sunter_thresholds(em.m, em.u, false_match_rate, false_non_match_rate)

    # pass 2: best-weighted masked records per intruder record, regions, truth. Every chunk
    # holds whole intruder records (pairs grouped by intruder row), so per-record reductions
    # are segment reductions within the chunk.
    rng = np.random.default_rng(random_state)
    best = np.full(len(a), -np.inf)
    true_w = np.full(len(a), -np.inf)
    links = Links.empty(len(a))
    region = {"linked": 0, "clerical": 0, "non_linked": 0}
    true_region = dict.fromkeys(region, 0)
    for ia, ib in _pair_chunks(len(a), len(b), keys, pair_budget):
        w = weights[_codes(a, b, tol, ia, ib)]
        starts = np.flatnonzero(np.r_[True, ia[1:] != ia[:-1]])
        rows = ia[starts]
        seg = np.repeat(np.arange(starts.size), np.diff(np.r_[starts, ia.size]))
        seg_best = np.maximum.reduceat(w, starts)
        best[rows] = seg_best
        tie = w >= seg_best[seg] - 1e-9
        links.set_size[rows] = np.add.reduceat(tie.astype(np.int64), starts)
        key = np.where(tie, rng.random(ia.size), -1.0)  # one uniform draw among the ties
        win = key == np.maximum.reduceat(key, starts)[seg]
        links.link[ia[win]] = ib[win]
        is_true = ib == t[ia]
        true_w[ia[is_true]] = w[is_true]
        for name, sel in (("linked", w >= thr["upper"]), ("non_linked", w <= thr["lower"])):
            region[name] += int(sel.sum())
            true_region[name] += int((sel & is_true).sum())
    region["clerical"] = n_pairs - region["linked"] - region["non_linked"]
    n_true_pairs = int(np.isfinite(true_w).sum())
    true_region["clerical"] = n_true_pairs - true_region["linked"] - true_region["non_linked"]
    links.true_in[:] = np.isfinite(true_w) & (true_w >= best - 1e-9)
    links.link[~np.isfinite(best)] = -1
    rates = links.rates(t)
    certain = (links.set_size == 1) & links.true_in & (best >= thr["upper"])
    rates["certain_rate"] = float(certain.mean())
    risk = links.credit()
    agree_w = np.log2(em.m / em.u)
    figures = {
        "m": dict(zip(names, em.m.tolist(), strict=True)),
        "u": dict(zip(names, em.u.tolist(), strict=True)),
        "p": em.p,
        "em_iterations": em.iterations,
        "em_converged": em.converged,
        "n_pairs": n_pairs,
        "n_patterns_observed": int(seen.size),
        "true_pairs_compared": n_true_pairs,
        "thresholds": thr,
        "pairs_per_region": region,
        "true_pairs_per_region": true_region,
        "link_precision": true_region["linked"] / region["linked"] if region["linked"] else None,
        "link_recall": true_region["linked"] / len(a),
        "agreement_weight": dict(zip(names, agree_w.tolist(), strict=True)),
        "disagreement_weight": dict(
            zip(names, np.log2((1 - em.m) / (1 - em.u)).tolist(), strict=True)
        ),
    }
    return LinkageResult(
        attack="prl",
        params={
            "tolerance": tol.tolist(),
            "block_on": list(block_on) if block_on else None,
            "false_match_rate": false_match_rate,
            "false_non_match_rate": false_non_match_rate,
            "random_state": random_state,
        },
        attributes=names,
        n_intruder_records=len(a),
        n_masked_records=len(b),
        **rates,
        record_risk_summary=RecordRiskSummary.of(risk),
        attribute_contribution=dict(zip(names, agree_w.tolist(), strict=True)),
        attribute_contribution_kind="agreement weight log2(m/u) of the attribute",
        figures=figures,
        record_risk=risk,
        linked_index=links.link,
        anonymity_set_size=links.set_size,
        true_in_set=links.true_in,
    )
