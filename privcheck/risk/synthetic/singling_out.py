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
smaller one by Anonymeter's model of successes against table size, n·w·(1 − w)^(n − 1)
integrated over the predicate weight w, fitted to those exact expectations at sizes up to m and
extrapolated to n.

Predicates are evaluated as boolean (predicates × records) matrices on the encoded table, one
column at a time (``MixedEncoding``): no per-record or per-predicate Python loop.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pandas as pd

from privcheck.errors import PolicyError
from privcheck.limits import ATTACK_QUERIES, ATTACKS
from privcheck.risk.synthetic.control import (
    MixedEncoding,
    known_columns,
    require_records,
    risk_figures,
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


def _control_successes(counts: np.ndarray, m: int, n: int) -> tuple[float, str]:
    """The control set's singling-out count at the members' size ``n`` (module docstring)."""
    counts = np.asarray(counts, dtype=np.int64)
    if m == n:
        return float((counts == 1).sum()), "none (equal sizes)"
    if m > n:
        return float(one_match(m, counts, n).sum()), "exact expectation over subsets"
    from scipy.optimize import curve_fit

    sizes = np.unique(np.linspace(min(1000, m), m, 10).astype(int))
    expected = np.array([one_match(m, counts, int(x)).sum() for x in sizes])

    def integral(x, w):
        return ((x * 0 + 1) - (x * w + 1) * (1 - w) ** x) / (x + 1)

    def model(x, w, norm):
        return norm * integral(x, w)

    observed = float((counts == 1).sum())
    if observed == 0 or len(sizes) < 2:
        return observed, "none (nothing to extrapolate)"
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
        return observed, "none (extrapolation did not converge)"
    ratio = model(float(n), w, norm) / max(model(float(m), w, norm), 1e-300)
    return observed * float(ratio), "extrapolated (Anonymeter's model)"


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

    ``attributes`` are the columns predicates may use (default: every column). Returns
    ``risk``, ``risk_ci``, ``attack_rate``, ``control_rate``, ``baseline_rate``, ``n_attacks``
    (predicates that single out a synthetic record, at most the requested number) and how the
    control count was brought to the members' size.
    """
    require_records(original=original, synthetic=synthetic, control=control)
    if mode not in ("multivariate", "univariate"):
        raise PolicyError(f"mode must be 'multivariate' or 'univariate'; got {mode!r}")
    if n_attacks < 1 or max_attempts < 1:
        raise PolicyError("n_attacks and max_attempts must be at least 1")
    ATTACKS.check(n_attacks, "n_attacks asks for", "give a smaller n_attacks")
    ATTACK_QUERIES.check(max_attempts, "max_attempts asks for", "give a smaller max_attempts")
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
    if mode == "univariate":
        ops, values = _univariate(syn, numeric)
        order = rng.permutation(len(ops))
        ops, values = ops[order], values[order]
        keep = match_counts(syn, ops, values) == 1
        ops, values = ops[keep][:n_attacks], values[keep][:n_attacks]
        attempts = len(order)
    else:
        found_o, found_v = np.zeros((0, syn.shape[1]), np.int64), np.zeros((0, syn.shape[1]))
        attempts = 0
        while len(found_o) < n_attacks and attempts < max_attempts:
            size = min(BATCH, max_attempts - attempts)
            o, v = _multivariate(syn, numeric, n_cols, size, rng)
            attempts += size
            single = match_counts(syn, o, v) == 1
            found_o = np.vstack([found_o, o[single]])
            found_v = np.vstack([found_v, v[single]])
            first = _distinct_first(found_o, found_v, n_attacks)
            found_o, found_v = found_o[first], found_v[first]
        ops, values = found_o, found_v
    n_queries = len(ops)
    success = int((match_counts(ori, ops, values) == 1).sum()) if n_queries else 0
    ctl_counts = match_counts(ctl, ops, values) if n_queries else np.zeros(0, np.int64)
    n_control, correction = _control_successes(ctl_counts, len(ctl), len(ori))
    b_ops, b_values = _random_predicates(
        syn, numeric, n_cols if mode == "multivariate" else 1, n_attacks, rng
    )
    baseline = int((match_counts(ori, b_ops, b_values) == 1).sum())
    out = risk_figures(
        success, n_queries, n_control, n_queries, baseline, n_attacks, confidence=confidence
    )
    out.update(
        {
            "mode": mode,
            "n_cols": n_cols if mode == "multivariate" else 1,
            "n_requested": int(n_attacks),
            "attempts": int(attempts),
            "n_members": len(ori),
            "n_controls": len(ctl),
            "n_synthetic": len(syn),
            "control_size_correction": correction,
            "columns": cols,
        }
    )
    return out
