"""Singling out: does the synthetic table let an attacker isolate one of the people it was made
from? (Article 29 Working Party, opinion 05/2014; measured as Giomi et al., PETS 2023, do in
Anonymeter.)

The attacker reads *predicates* off the synthetic table that match exactly one synthetic record
— "age ≥ 67 and sex = Female and native-country = Peru" — and claims each singles out one
person of the original data. A predicate succeeds when it matches exactly one original record.

- **multivariate** (default): a predicate is built from a random synthetic record on ``n_cols``
  random columns: equality on a categorical column; on a numeric one ``≥`` the value when it lies
  above the column's synthetic median, else ``≤`` (towards the rarer tail). Predicates that match
  exactly one synthetic record are kept (distinct ones, up to ``n_attacks``).
- **univariate**: one column each — a value that occurs once in the synthetic table, or
  ``≤`` its minimum / ``≥`` its maximum.
- **baseline**: ``n_attacks`` random predicates (random columns, values from the synthetic
  table, random operators), not filtered — the guesser who learns nothing from the records.

The same predicates are run on the control set: what they single out there, population
knowledge gives without the release. Rows are deduplicated first (a predicate matching two
identical records singles out that profile), as Anonymeter does. A predicate's chance to single
out depends on the size of the table it runs on, so the control count is compared at the
members' size n: a larger control set (m > n) by the exact expectation over its n-row subsets
(hypergeometric: the predicate's k control matches, exactly one of them among n of m rows); a
smaller one is *bounded* — n/m times its count above, a Jensen bound below — and the risk's
interval spans the bounds (``control_at_size``): a small control set gives a wide interval, not a
confident false alarm. Rates are over the ``n_attacks`` requested, as Anonymeter counts; fewer
than half found is a warning.

Predicates are counted by sorting and hashing (``PredicateIndex``): one sort of the table per
set of constrained columns, a binary search per predicate — O(Q log N + Σ run), not O(Q · N).
The baseline's random predicates (which may say ≠) are evaluated as boolean
(predicates × records) matrices (``match_counts``), n_attacks of them once.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pandas as pd

from privcheck.errors import PolicyError
from privcheck.limits import ATTACK_QUERIES, ATTACKS
from privcheck.risk.synthetic.control import (
    MixedEncoding,
    _ratio_interval,
    known_columns,
    require_control_size,
    require_records,
    risk_figures,
    success_rate,
)

#: operator codes of a predicate's column condition
EQ, NE, GT, LT, GE, LE = 0, 1, 2, 3, 4, 5
UNUSED = -1
#: predicates per generation batch, and predicate × record cells per evaluation block
BATCH = 1000
_BLOCK = 8_000_000


def _table(enc: MixedEncoding, i: int) -> np.ndarray:
    """Frame i of the encoding as one float matrix: numeric columns, then categorical codes."""
    return np.column_stack([enc.numeric[i], enc.codes[i].astype(np.float64)])


def match_counts(x: np.ndarray, ops: np.ndarray, values: np.ndarray) -> np.ndarray:
    """How many rows of ``x`` each predicate matches (a conjunction of per-column conditions)."""
    n_q = len(ops)
    out = np.empty(n_q, dtype=np.int64)
    step = max(1, _BLOCK // max(1, len(x)))
    for a in range(0, n_q, step):
        o, v = ops[a : a + step], values[a : a + step]
        m = np.ones((len(o), len(x)), dtype=bool)
        for j in range(x.shape[1]):
            col = x[:, j][None, :]
            for code, test in (
                (EQ, np.equal),
                (NE, np.not_equal),
                (GT, np.greater),
                (LT, np.less),
                (GE, np.greater_equal),
                (LE, np.less_equal),
            ):
                sel = o[:, j] == code
                if sel.any():
                    m[sel] &= test(col, v[sel, j][:, None])
        out[a : a + step] = m.sum(axis=1)
    return out


class PredicateIndex:
    """One table prepared for counting the rows that predicates match, by sorting and hashing
    instead of a (predicates × rows) scan.

    Every column is replaced by the dense rank of its value among the table's values, so an
    equality is a rank equality and ``≥ v`` / ``≤ v`` / ``> v`` / ``< v`` a rank threshold. The
    predicates that constrain the same columns share a *signature*: their equality columns
    form one mixed-radix key per row, and the rows sorted by (key, rank of one range column)
    put every predicate's matches on that column in one contiguous run, found by binary search.
    A predicate with no range column, or one, is counted exactly by the run's length; with
    more, the rows of its shortest run (of its range columns') are checked against the others.
    Sorted orders are cached per signature, so a batch of predicates costs a binary search each
    plus the rows of its shortest run: O(Q log N + Σ run) rather than O(Q · N).
    Predicates with ``≠`` (the baseline's) go to ``match_counts``.
    """

    def __init__(self, x: np.ndarray) -> None:
        self.x = x
        self.n, self.p = x.shape
        self.uniques = [np.unique(x[:, j]) for j in range(self.p)]
        self.ranks = (
            np.column_stack(
                [np.searchsorted(u, x[:, j]) for j, u in enumerate(self.uniques)]
            ).astype(np.int64)
            if self.p
            else np.zeros((self.n, 0), np.int64)
        )
        self._orders: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self._keys: dict[tuple, tuple[np.ndarray, np.ndarray] | None] = {}

    # ranks of predicate values: for EQ the value's rank (or −1 when absent); for thresholds
    # the first/last rank that satisfies the condition
    def _eq_rank(self, j: int, v: np.ndarray) -> np.ndarray:
        u = self.uniques[j]
        at = np.searchsorted(u, v)
        ok = at < len(u)
        hit = np.zeros(len(v), dtype=bool)
        hit[ok] = u[at[ok]] == v[ok]
        return np.where(hit, at, -1)

    def _radix_key(self, eq_cols: tuple[int, ...], ranks: np.ndarray) -> np.ndarray | None:
        """One int64 key per row of ``ranks`` (rows × eq_cols), or None when the mixed radix
        would overflow (then every condition is checked row by row on the run)."""
        key = np.zeros(len(ranks), dtype=np.int64)
        size = 1
        for i, j in enumerate(eq_cols):
            card = len(self.uniques[j])
            if size > (2**62) // max(card, 1):
                return None
            key = key * card + ranks[:, i]
            size *= card
        return key

    def _group_keys(self, eq_cols: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray] | None:
        """The table's sorted distinct keys on ``eq_cols`` and each row's dense group id."""
        if eq_cols not in self._keys:
            key = self._radix_key(eq_cols, self.ranks[:, list(eq_cols)])
            if key is None:
                self._keys[eq_cols] = None
            else:
                distinct, group = np.unique(key, return_inverse=True)
                self._keys[eq_cols] = (distinct, group.astype(np.int64))
        return self._keys[eq_cols]

    def _order(self, eq_cols: tuple[int, ...], col: int | None) -> tuple[np.ndarray, np.ndarray]:
        """Rows sorted by (group on eq_cols, rank on col): the row order and the composite key."""
        cache = (eq_cols, col)
        if cache not in self._orders:
            grouped = self._group_keys(eq_cols)
            group = grouped[1] if grouped is not None else np.zeros(self.n, np.int64)
            r = self.ranks[:, col] if col is not None else np.zeros(self.n, np.int64)
            composite = group * (self.n + 1) + r
            order = np.argsort(composite)
            self._orders[cache] = (order, composite[order])
        return self._orders[cache]

    def counts(self, ops: np.ndarray, values: np.ndarray) -> np.ndarray:
        """How many rows each predicate matches (rows of ``ops``/``values`` as in
        ``match_counts``); predicates with ``≠`` are counted by ``match_counts``."""
        out = np.zeros(len(ops), dtype=np.int64)
        if not len(ops):
            return out
        slow = (ops == NE).any(axis=1)
        if slow.any():
            out[slow] = match_counts(self.x, ops[slow], values[slow])
        fast = np.flatnonzero(~slow)
        if not len(fast):
            return out
        o, v = ops[fast], values[fast]
        eq_mask = o == EQ
        rng_mask = (o != UNUSED) & ~eq_mask
        # one signature per distinct (equality columns, range columns) pattern, any width
        patterns, which = np.unique(
            np.concatenate([eq_mask, rng_mask], axis=1), axis=0, return_inverse=True
        )
        which = which.reshape(-1)
        for s, pattern in enumerate(patterns):
            sel = np.flatnonzero(which == s)
            out[fast[sel]] = self._count_signature(
                o[sel], v[sel], pattern[: self.p], pattern[self.p :]
            )
        return out

    def _count_signature(
        self, ops: np.ndarray, values: np.ndarray, eq_row: np.ndarray, range_row: np.ndarray
    ) -> np.ndarray:
        """Counts of predicates that share their equality and range columns."""
        out = np.zeros(len(ops), dtype=np.int64)
        eq_cols = tuple(int(j) for j in np.flatnonzero(eq_row))
        range_cols = [int(j) for j in np.flatnonzero(range_row)]
        grouped = self._group_keys(eq_cols)
        if grouped is None:  # keys too wide for one integer: the scan
            return match_counts(self.x, ops, values)
        distinct, _ = grouped
        eq_ranks = np.column_stack(
            [self._eq_rank(j, values[:, j]) for j in eq_cols] or [np.zeros(len(ops), np.int64)]
        )
        valid = (eq_ranks >= 0).all(axis=1)
        key = self._radix_key(eq_cols, np.maximum(eq_ranks[:, : len(eq_cols)], 0))
        gid = np.searchsorted(distinct, key)
        gid = np.minimum(gid, len(distinct) - 1)
        valid &= distinct[gid] == key
        base = gid * (self.n + 1)
        if not range_cols:
            _, comp = self._order(eq_cols, None)
            n_run = np.searchsorted(comp, base, "right") - np.searchsorted(comp, base, "left")
            return np.where(valid, n_run, 0)
        lo = np.empty((len(ops), len(range_cols)), np.int64)
        hi = np.empty_like(lo)
        start = np.empty_like(lo)
        length = np.empty_like(lo)
        for i, j in enumerate(range_cols):
            u, op, v = self.uniques[j], ops[:, j], values[:, j]
            lo[:, i] = np.where(
                op == GE,
                np.searchsorted(u, v, "left"),
                np.where(op == GT, np.searchsorted(u, v, "right"), 0),
            )
            hi[:, i] = np.where(
                op == LE,
                np.searchsorted(u, v, "right") - 1,
                np.where(op == LT, np.searchsorted(u, v, "left") - 1, len(u) - 1),
            )
            _, comp = self._order(eq_cols, j)
            a = np.searchsorted(comp, base + lo[:, i], "left")
            b = np.searchsorted(comp, base + hi[:, i], "right")
            start[:, i] = a
            length[:, i] = np.where(hi[:, i] >= lo[:, i], np.maximum(b - a, 0), 0)
        length[~valid] = 0
        if len(range_cols) == 1:
            return length[:, 0]
        best = length.argmin(axis=1)
        for i, j in enumerate(range_cols):
            sel = np.flatnonzero((best == i) & (length[:, i] > 0))
            if not len(sel):
                continue
            order, _ = self._order(eq_cols, j)
            others = [(ii, jj) for ii, jj in enumerate(range_cols) if ii != i]
            run = length[sel, i]
            # predicates in chunks of at most _BLOCK rows to check
            ends = np.cumsum(run)
            cuts = np.searchsorted(ends, np.arange(_BLOCK, ends[-1] + _BLOCK, _BLOCK), "left")
            a0 = 0
            for a1 in np.unique(np.minimum(np.append(cuts + 1, len(sel)), len(sel))):
                if a1 <= a0:
                    continue
                part = sel[a0:a1]
                r = length[part, i]
                which = np.repeat(np.arange(len(part)), r)
                offset = np.arange(len(which)) - np.repeat(np.cumsum(r) - r, r)
                rows = order[start[part, i][which] + offset]
                ok = np.ones(len(rows), dtype=bool)
                for ii, jj in others:
                    rank = self.ranks[rows, jj]
                    ok &= (rank >= lo[part, ii][which]) & (rank <= hi[part, ii][which])
                out[part] = np.bincount(which[ok], minlength=len(part))
                a0 = a1
        return out


def _multivariate(
    syn: np.ndarray, numeric: int, n_cols: int, batch: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """One batch of predicates from random synthetic records on ``n_cols`` random columns."""
    p = syn.shape[1]
    rows = rng.integers(0, len(syn), size=batch)
    chosen = np.argsort(rng.random((batch, p)), axis=1)[:, :n_cols]
    used = np.zeros((batch, p), dtype=bool)
    np.put_along_axis(used, chosen, True, axis=1)
    values = syn[rows]
    ops = np.full((batch, p), UNUSED, dtype=np.int64)
    median = np.median(syn[:, :numeric], axis=0) if numeric else np.zeros(0)
    num_op = np.where(values[:, :numeric] > median[None, :], GE, LE)
    ops[:, :numeric] = np.where(used[:, :numeric], num_op, UNUSED)
    ops[:, numeric:] = np.where(used[:, numeric:], EQ, UNUSED)
    return ops, np.where(used, values, 0.0)


def _univariate(syn: np.ndarray, numeric: int) -> tuple[np.ndarray, np.ndarray]:
    """Every one-column predicate: ≤ min and ≥ max of a numeric column, each value seen once."""
    p = syn.shape[1]
    ops, values = [], []
    for j in range(p):
        col = syn[:, j]
        if j < numeric:
            for code, v in ((LE, col.min()), (GE, col.max())):
                o = np.full(p, UNUSED)
                o[j] = code
                val = np.zeros(p)
                val[j] = v
                ops.append(o)
                values.append(val)
        uniq, counts = np.unique(col, return_counts=True)
        rare = uniq[counts == 1]
        o = np.full((len(rare), p), UNUSED)
        o[:, j] = EQ
        val = np.zeros((len(rare), p))
        val[:, j] = rare
        ops.extend(o)
        values.extend(val)
    if not ops:
        return np.zeros((0, p), dtype=np.int64), np.zeros((0, p))
    return np.asarray(ops, dtype=np.int64), np.asarray(values)


def _random_predicates(
    syn: np.ndarray, numeric: int, n_cols: int, n: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The baseline's predicates: random columns, random synthetic values, random operators."""
    p = syn.shape[1]
    chosen = np.argsort(rng.random((n, p)), axis=1)[:, :n_cols]
    used = np.zeros((n, p), dtype=bool)
    np.put_along_axis(used, chosen, True, axis=1)
    values = np.zeros((n, p))
    for j in range(p):
        uniq = np.unique(syn[:, j])
        values[:, j] = uniq[rng.integers(0, len(uniq), size=n)]
    num_ops = rng.integers(0, 6, size=(n, p))  # =, ≠, >, <, ≥, ≤
    cat_ops = rng.integers(0, 2, size=(n, p))  # =, ≠
    ops = np.where(np.arange(p)[None, :] < numeric, num_ops, cat_ops)
    return np.where(used, ops, UNUSED), values


def _distinct_first(ops: np.ndarray, values: np.ndarray, limit: int) -> np.ndarray:
    """Rows of the first ``limit`` distinct predicates, in order."""
    key = np.column_stack([ops.astype(np.float64), np.where(ops == UNUSED, 0.0, values)])
    _, first = np.unique(key, axis=0, return_index=True)
    return np.sort(first)[:limit]


def one_match(m: int, k: np.ndarray, x: int) -> np.ndarray:
    """P(exactly one of the k matching rows among x rows drawn from m without replacement):
    k·C(m − k, x − 1) / C(m, x), in logarithms (the hypergeometric probability of 1)."""
    from scipy.special import gammaln

    k = np.asarray(k, dtype=np.float64)

    def log_comb(a, b):
        return gammaln(a + 1) - gammaln(b + 1) - gammaln(a - b + 1)

    ok = (k >= 1) & (m - k >= x - 1)
    safe_k = np.where(ok, k, 1.0)
    logp = np.log(safe_k) + log_comb(m - safe_k, x - 1) - log_comb(float(m), float(x))
    return np.where(ok, np.exp(logp), 0.0)


#: the names of the control-size corrections a report can carry (``control_size_correction``)
EQUAL_SIZES = "none (equal sizes)"
SUBSETS = "exact expectation over subsets"
EXTRAPOLATED = (
    "extrapolated: bounded by n/m above and by Jensen's inequality below, point by "
    "Anonymeter's model"
)


def _expected_at(counts: np.ndarray, m: int, x: int) -> float:
    """Expected singling-out successes of the predicates on an ``x``-row subset of the ``m``
    rows their ``counts`` were taken on."""
    return float(one_match(m, counts, x).sum())


def control_at_size(
    counts: np.ndarray, m: int, n: int, n_attacks: int | None = None, confidence: float = 0.95
) -> dict[str, Any]:
    """The control set's singling-out successes brought to the members' size ``n``.

    ``point`` is the estimate, ``low`` and ``high`` bound it (as counts, with the control
    set's sampling error at ``confidence`` over ``n_attacks`` attacks) and ``how`` names the
    correction:

    - m = n: the observed count (``low = high = point``: the sampling error is the rate's);
    - m > n: the exact expectation over the control set's n-row subsets (hypergeometric), an
      unbiased estimate of what a population sample of n rows gives (``low = high = point``);
    - m < n: no estimate is exact, since a predicate's chance to single out one of n rows,
      f_n(w) = n·w·(1 − w)^(n − 1), depends on its weight w at a scale (1/n) that m rows do
      not resolve. It is bounded instead. Per predicate f_n(w) = (n/m)(1 − w)^(n − m) f_m(w):
      **high** is n/m times the upper end of the count at m (G1, predicates matching exactly
      one control row), capped by the most any predicate can give, (1 − 1/n)^(n − 1) each.
      **low**: over the predicates weighted by f_m, Jensen's inequality gives
      E[(1 − w)^(n − m)] ≥ (1 − E[w])^(n − m), and E[w] ≤ 2·G2 / ((m − 1)·G1) (G2: predicates
      matching exactly two control rows), so low = (n/m)·G1·(1 − 2·G2/((m − 1)·G1))^(n − m)
      with G1 at its lower end and G2 at its upper one. A small control set thus gives a wide
      interval (low near 0), never a confident one. ``point`` is Anonymeter's model (weights
      spread uniformly over [0, w_eff], Cohen & Nissim 2020) fitted to the exact expectations
      on subsets of m/10 … m rows, extrapolated to n and kept within the same bounds without
      the sampling error.
    """
    counts = np.asarray(counts, dtype=np.int64)
    observed = float((counts == 1).sum())
    if m == n:
        return {"point": observed, "low": observed, "high": observed, "how": EQUAL_SIZES}
    if m > n:
        value = _expected_at(counts, m, n)
        return {"point": value, "low": value, "high": value, "how": SUBSETS}
    total = max(int(n_attacks if n_attacks is not None else len(counts)), 1)

    def bounds(count: float) -> tuple[float, float]:
        rate, error = success_rate(total, count, confidence)
        return total * max(rate - error, 0.0), total * min(rate + error, 1.0)

    scale = n / m
    cap = ((1.0 - 1.0 / n) ** (n - 1) if n > 1 else 1.0) * len(counts)
    g1, g2 = observed, float((counts == 2).sum())
    g1_low, g1_high = bounds(g1)
    _, g2_high = bounds(g2)

    def jensen(ones: float, twos: float) -> float:
        if ones <= 0 or m < 2:
            return 0.0
        weight = min(2.0 * twos / ((m - 1) * ones), 1.0)
        return scale * ones * (1.0 - weight) ** (n - m)

    high = min(scale * g1_high, cap)
    low = min(jensen(g1_low, g2_high), high)
    fitted = _anonymeter_model(counts, m, n)
    top, bottom = min(scale * g1, cap), min(jensen(g1, g2), cap)
    point = min(max(fitted if fitted is not None else bottom, bottom), top)
    return {
        "point": point,
        "low": low,
        "high": max(high, point),
        "how": EXTRAPOLATED,
        # the bounds before the control's sampling error (G2 at its upper end, which the
        # lower bound needs: with no pair matched the weights are not bounded away from 0)
        "top": top,
        "bottom": min(jensen(g1, g2_high), top),
        "scale": scale,
    }


def _anonymeter_model(counts: np.ndarray, m: int, n: int) -> float | None:
    """Anonymeter's size model fitted to the exact expectations at m/10 … m rows, at n."""
    from scipy.optimize import curve_fit

    sizes = np.unique(np.linspace(max(1, m // 10), m, 10).astype(int))
    expected = np.array([_expected_at(counts, m, int(x)) for x in sizes])
    if len(sizes) < 2 or expected[-1] <= 0:
        return None

    def integral(x, w):
        return (1.0 - (x * w + 1.0) * (1.0 - w) ** x) / (x + 1.0)

    def model(x, w, norm):
        return norm * integral(x, w)

    w0 = 1.0 / m
    try:
        (w, norm), _ = curve_fit(
            model,
            sizes.astype(float),
            expected,
            p0=(w0, expected[-1] / max(integral(float(m), w0), 1e-12)),
            bounds=(0, (1, np.inf)),
        )
    except (RuntimeError, ValueError):
        return None
    return float(model(float(n), w, norm))


def _control_successes(counts: np.ndarray, m: int, n: int) -> tuple[float, str]:
    """The control set's singling-out count at the members' size ``n`` and the correction's
    name (``control_at_size``'s point)."""
    at = control_at_size(counts, m, n)
    return at["point"], at["how"]


def _extrapolated_figures(
    n_success: int,
    at: dict[str, Any],
    n_attacks: int,
    n_baseline: int,
    confidence: float,
) -> dict[str, Any]:
    """``risk_figures`` for a control count known only within bounds (a control set smaller
    than the members, ``control_at_size``): the risk's lower end is the ratio interval's
    (``risk_figures``) against the upper bound, its upper end against the lower bound. The
    control's rate is n/m times a count on m rows, so its sampling error is that of
    N·m/n attacks (a Poisson count scaled by n/m has the variance of a rate over N·m/n):
    the interval narrows smoothly to the exact one as m reaches n."""
    out = risk_figures(
        n_success, n_attacks, at["point"], n_attacks, n_baseline, n_attacks, confidence
    )
    n_eff = max(n_attacks / at["scale"], 1.0)
    top, bottom = at["top"] / n_attacks, at["bottom"] / n_attacks
    low = _ratio_interval(n_success, n_attacks, top * n_eff, n_eff, confidence)[0]
    high = _ratio_interval(n_success, n_attacks, bottom * n_eff, n_eff, confidence)[1]
    out["risk_ci"] = [low, max(high, low)]
    out["risk"] = min(max(out["risk"], low), high)
    out["control_rate_bounds"] = [at["low"] / n_attacks, at["high"] / n_attacks]
    return out


def singling_out(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    control: pd.DataFrame,
    *,
    attributes: list[str] | None = None,
    n_attacks: int = 500,
    n_cols: int = 3,
    mode: Literal["multivariate", "univariate"] = "multivariate",
    max_attempts: int = 1_000_000,
    confidence: float = 0.95,
    random_state: int | None = None,
) -> dict[str, Any]:
    """Singling-out risk of ``synthetic`` for the people of ``original`` against ``control``.

    ``attributes`` are the columns predicates may use (default: every column). Rates are over
    the ``n_attacks`` requested, as Anonymeter counts: a predicate the attacker could not find
    is a failed attack on members and controls alike. Returns ``risk``, ``risk_ci``,
    ``attack_rate``, ``control_rate``, ``baseline_rate``, ``n_attacks`` (requested),
    ``n_predicates`` (found), ``warnings`` (fewer than half found) and how the control count
    was brought to the members' size (``control_size_correction``).
    """
    require_records(original=original, synthetic=synthetic, control=control)
    if mode not in ("multivariate", "univariate"):
        raise PolicyError(f"mode must be 'multivariate' or 'univariate'; got {mode!r}")
    if n_attacks < 1 or max_attempts < 1:
        raise PolicyError("n_attacks and max_attempts must be at least 1")
    ATTACKS.check(n_attacks, "n_attacks asks for", "give a smaller n_attacks")
    ATTACK_QUERIES.check(max_attempts, "max_attempts asks for", "give a smaller max_attempts")
    require_control_size(control)
    cols = known_columns(list(attributes or original.columns), original)
    if mode == "multivariate" and not 1 <= n_cols <= len(cols):
        raise PolicyError(
            f"n_cols must lie between 1 and {len(cols)} (the attributes); got {n_cols}"
        )
    rng = np.random.default_rng(random_state)
    frames = [f[cols].drop_duplicates(ignore_index=True) for f in (synthetic, original, control)]
    enc = MixedEncoding.of(frames, cols)
    syn, ori, ctl = (_table(enc, i) for i in range(3))
    numeric = len(enc.numeric_columns)
    syn_index = PredicateIndex(syn)
    if mode == "univariate":
        ops, values = _univariate(syn, numeric)
        order = rng.permutation(len(ops))
        ops, values = ops[order], values[order]
        keep = syn_index.counts(ops, values) == 1
        ops, values = ops[keep][:n_attacks], values[keep][:n_attacks]
        attempts = len(order)
    else:
        found_o, found_v = np.zeros((0, syn.shape[1]), np.int64), np.zeros((0, syn.shape[1]))
        attempts, batch = 0, BATCH
        while len(found_o) < n_attacks and attempts < max_attempts:
            size = min(batch, max_attempts - attempts)
            o, v = _multivariate(syn, numeric, n_cols, size, rng)
            attempts += size
            single = syn_index.counts(o, v) == 1
            found_o = np.vstack([found_o, o[single]])
            found_v = np.vstack([found_v, v[single]])
            first = _distinct_first(found_o, found_v, n_attacks)
            found_o, found_v = found_o[first], found_v[first]
            if len(found_o) < n_attacks // 10:  # a rare find: larger batches, same draws
                batch = min(batch * 2, 64 * BATCH)
        ops, values = found_o, found_v
    n_found = len(ops)
    ori_counts = PredicateIndex(ori).counts(ops, values)
    success = int((ori_counts == 1).sum())
    ctl_counts = PredicateIndex(ctl).counts(ops, values)
    at = control_at_size(ctl_counts, len(ctl), len(ori), n_attacks, confidence)
    b_ops, b_values = _random_predicates(
        syn, numeric, n_cols if mode == "multivariate" else 1, n_attacks, rng
    )
    baseline = int((match_counts(ori, b_ops, b_values) == 1).sum())
    if at["how"] == EXTRAPOLATED:
        out = _extrapolated_figures(success, at, n_attacks, baseline, confidence)
    else:
        out = risk_figures(
            success, n_attacks, at["point"], n_attacks, baseline, n_attacks, confidence
        )
    warnings = []
    if n_found < n_attacks / 2:
        warnings.append(
            f"singling out found only {n_found} of the {n_attacks} predicates requested "
            f"(in {attempts:,} attempts): each missing one counts as a failed attack, so the "
            "risk may be underestimated; give more attributes or a larger max_attempts"
        )
    out.update(
        {
            "mode": mode,
            "n_cols": n_cols if mode == "multivariate" else 1,
            "n_requested": int(n_attacks),
            "n_predicates": int(n_found),
            "attempts": int(attempts),
            "n_members": len(ori),
            "n_controls": len(ctl),
            "n_synthetic": len(syn),
            "control_size_correction": at["how"],
            "columns": cols,
            "warnings": warnings,
        }
    )
    return out
