"""What the attacks on a synthetic table share: the control set, one encoding, nearest
neighbours and the success-rate statistics.

A synthetic table leaks the people it was made from when an attack succeeds more often on them
(the generator's training rows, the *members*) than on people of the same population the
generator never saw (the *control set*). Every attack here therefore runs twice, on the members
and on the controls, and reports the difference; what the attack achieves on the controls is
what knowledge of the population gives anyway (Giomi et al., "A Unified Framework for
Quantifying Privacy Risk in Synthetic Data", PETS 2023 — Anonymeter).

- ``split_control`` holds out a seeded share of a table before a generator is trained on the
  rest (``--param control_share=F``); ``control_set`` checks a given control set: same columns
  as the members, and not more rows identical to member rows than chance gives in that
  population (``overlap_limit``).
- ``MixedEncoding`` encodes the members, the synthetic table and the control set together, once:
  a column is numeric when every value of it in all three files is a number, else categorical
  (integer codes over the union, a missing value its own category). The distance between two
  records is Anonymeter's Gower-like one: Σ |x − y| / range over the numeric columns (range
  over the three files together) plus the number of categorical columns that differ.
- ``nearest`` finds nearest synthetic records with scipy's ``cdist`` in blocks of query rows and
  breaks ties uniformly at random (the first of the tied records — an argsort's choice — would
  make both halves of a linkability attack pick the same record when they tie and inflate it).
- ``success_rate`` / ``risk_figures``: Wilson-score rates and the residual risk
  (attack − control) / (1 − control) with its propagated error, bounded to [0, 1] — Anonymeter's
  definitions, so the figures of both tools compare within their intervals.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from math import sqrt
from typing import Any

import numpy as np
import pandas as pd

from privcheck.errors import DataError, PolicyError
from privcheck.limits import FLOAT_MAGNITUDE
from privcheck.risk.linkage.inputs import too_large

#: control rows identical to a member row beyond what chance gives (share of the control set)
OVERLAP_MARGIN = 0.05
#: the smallest control set an attack's baseline can be estimated from: with fewer records the
#: 95 % Wilson interval of a control success rate of 0 reaches above 10 % (its upper end is
#: z² / (m + z²) ≤ 0.1 from m = 9·z² = 34.6), so the baseline — what population knowledge
#: gives — cannot be told from a tenth of the attacks succeeding
MIN_CONTROL = 35
#: query rows × candidate rows × columns per block of a nearest-neighbour search
_BLOCK_CELLS = 4_000_000
#: distances that differ by less than this are ties (floating-point rounding of equal sums)
TIE_TOLERANCE = 1e-9


# --------------------------------------------------------------------------- the control set


def split_control(
    table: pd.DataFrame, share: float, seed: int
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(members, control)``: a seeded random share of ``table``'s rows held out as the control.

    Call it before training the generator, train on ``members`` only, and give privcheck the
    same table, share and seed (``--param control_share=F --seed N``): it draws the same split.
    """
    if isinstance(share, bool) or not isinstance(share, int | float) or not 0 < share < 1:
        raise PolicyError(f"control_share must be a share strictly between 0 and 1; got {share!r}")
    n = len(table)
    n_control = round(share * n)
    if n_control < 1 or n_control >= n:
        raise DataError(
            f"control_share={share} of {n} rows leaves no control set or no members; give a "
            "larger table or another share"
        )
    rng = np.random.default_rng(seed)
    held = np.zeros(n, dtype=bool)
    held[rng.choice(n, size=n_control, replace=False)] = True
    return (
        table.iloc[np.flatnonzero(~held)].reset_index(drop=True),
        table.iloc[np.flatnonzero(held)].reset_index(drop=True),
    )


def _row_keys(frame: pd.DataFrame, columns: list[str]) -> np.ndarray:
    """One 64-bit hash per row over ``columns``, values compared as text (a CSV's ``39`` and a
    Parquet's 39 are one value)."""
    return pd.util.hash_pandas_object(frame[columns].astype(str).fillna(""), index=False).to_numpy()


def overlap_limit(members: pd.DataFrame, control: pd.DataFrame, columns: list[str]) -> dict:
    """How many control rows are exact copies of a member row, against what chance gives.

    In a population whose records often coincide (Adult: 18 % of the rows of a 3,000-row sample
    have an identical other row) an honest control set shares rows with the members by chance.
    That chance rate is read off the members themselves — the share of member rows with an
    identical *other* member row — and a control set is refused when its share of rows identical
    to a member row exceeds it by more than ``OVERLAP_MARGIN`` plus three standard errors.
    """
    key_m = _row_keys(members, columns)
    key_c = _row_keys(control, columns)
    shared = float(np.isin(key_c, key_m).mean()) if len(key_c) else 0.0
    _, inverse, counts = np.unique(key_m, return_inverse=True, return_counts=True)
    chance = float((counts[inverse] > 1).mean()) if len(key_m) else 0.0
    se = sqrt(chance * (1 - chance) / max(len(key_c), 1))
    limit = chance + OVERLAP_MARGIN + 3 * se
    return {"shared": shared, "chance": chance, "limit": limit, "overlaps": shared > limit}


def control_set(
    members: pd.DataFrame,
    control: pd.DataFrame | None,
    *,
    control_share: float | None,
    seed: int,
    seed_given: bool,
    split_from: pd.DataFrame | None = None,
    what: str = "a synthetic table",
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(members, control)`` after the checks every attack with a control set makes.

    ``control`` is the given control set; else ``control_share`` splits ``split_from`` (default
    ``members``) with ``split_control`` — which needs the seed the generator's training data was
    split with. Neither: a PolicyError naming both options.
    """
    if control is not None and control_share is not None:
        raise PolicyError("give either --control or --param control_share=F, not both")
    if control is None:
        if control_share is None:
            raise PolicyError(
                f"membership and disclosure attacks on {what} need a control set of records "
                "from the same population that the generator never saw: --control PATH, or "
                "--param control_share=F with the --seed of privcheck.risk.synthetic.control."
                "split_control if that share was held out before generating"
            )
        if not seed_given:
            raise PolicyError(
                "control_share=F splits the original with a seed: give the --seed N (Python: "
                "seed=N) that privcheck.risk.split_control held the share out with"
            )
        table = members if split_from is None else split_from
        kept, control = split_control(table, control_share, seed)
        if split_from is None:
            members = kept
    missing = [c for c in members.columns if c not in control.columns]
    extra = [c for c in control.columns if c not in members.columns]
    if missing or extra:
        parts = ([f"lacks {missing}"] if missing else []) + (
            [f"has extra {extra}"] if extra else []
        )
        raise DataError(
            f"the control set's columns differ from the original's: it {' and '.join(parts)}; "
            "both must hold the same columns"
        )
    if len(control) == 0 or len(members) == 0:
        raise DataError("the original and the control set must each have at least one record")
    ov = overlap_limit(members, control, [str(c) for c in members.columns])
    if ov["overlaps"]:
        raise DataError(
            f"the control set overlaps the members: {ov['shared']:.1%} of its rows are identical "
            f"to a member row, where chance gives {ov['chance']:.1%} in this population (limit "
            f"{ov['limit']:.1%}); the control set must be records the generator never saw"
        )
    return members.reset_index(drop=True), control.reset_index(drop=True)


def require_control_size(control: pd.DataFrame) -> None:
    """A control set of at least ``MIN_CONTROL`` records: below that the attack's baseline
    cannot be estimated. Each attack checks it after its parameters (a bad parameter or a
    limit is named first)."""
    if len(control) < MIN_CONTROL:
        raise DataError(
            f"the control set has {len(control)} records; the attacks' baseline needs at least "
            f"{MIN_CONTROL} (below that a control success rate of 0 cannot be told from 10 %): "
            "give a larger control set"
        )


def require_records(**tables: pd.DataFrame | None) -> None:
    """Each named table (``original``, ``synthetic``, ``control`` …) holds at least one record:
    an attack on an empty table measures nothing (its rates would be 0/0, its nearest
    neighbours none), and a risk of 0 from it would read as safe."""
    words = {
        "original": "the original (--original)",
        "synthetic": "the synthetic table (--masked)",
        "control": "the control set (--control)",
        "release": "the release (--masked)",
    }
    for key, table in tables.items():
        if table is not None and len(table) == 0:
            raise DataError(
                f"{words.get(key, key)} has no records: there is nothing to attack; give the "
                "file with its rows (a header alone is no table)"
            )


def same_columns(original: pd.DataFrame, release: pd.DataFrame, what: str) -> None:
    """The synthetic table must have the original's columns (no more, no fewer)."""
    missing = [c for c in original.columns if c not in release.columns]
    extra = [c for c in release.columns if c not in original.columns]
    if missing or extra:
        parts = ([f"lacks {missing}"] if missing else []) + (
            [f"has extra {extra}"] if extra else []
        )
        raise DataError(
            f"the {what}'s columns differ from the original's: it {' and '.join(parts)}; both "
            "must hold the same columns"
        )


def known_columns(columns: list[str], table: pd.DataFrame, what: str = "attribute") -> list[str]:
    """``columns``, each checked to be a column of ``table``."""
    if not columns:
        raise PolicyError(
            "no attributes to attack: the policy has no quasi-identifiers; give "
            "--intruder-attributes a,b,…"
        )
    for c in columns:
        if c not in table.columns:
            from privcheck.messages import shown_columns

            raise DataError(
                f"{what} {c!r} is not a column of the data; columns: {shown_columns(table.columns)}"
            )
    return list(columns)


# --------------------------------------------------------------------------- encoding


def _as_numbers(s: pd.Series) -> np.ndarray | None:
    """The column as float64 when every value is a number (missing allowed), else None."""
    if pd.api.types.is_bool_dtype(s):
        return None
    if pd.api.types.is_numeric_dtype(s):
        return s.to_numpy(dtype=np.float64, na_value=np.nan)
    try:  # stops at the first value that is not a number (most text columns: the first)
        out = pd.to_numeric(s.dropna(), errors="raise")
    except (ValueError, TypeError):
        return None
    out = pd.to_numeric(s, errors="coerce")
    if (out.isna() & s.notna()).any():
        return None
    return out.to_numpy(dtype=np.float64, na_value=np.nan)


@dataclass
class MixedEncoding:
    """Several frames on the same columns, encoded together (see the module docstring).

    ``numeric[i]`` is frame i's (rows × numeric columns) float64 matrix, ``codes[i]`` its
    (rows × categorical columns) integer codes; ``weights`` are 1 / range of each numeric
    column over all frames (1 for a constant column).
    """

    columns: list[str]
    numeric_columns: list[str]
    categorical_columns: list[str]
    numeric: list[np.ndarray]
    codes: list[np.ndarray]
    weights: np.ndarray
    labels: dict[str, np.ndarray]

    @classmethod
    def of(cls, frames: list[pd.DataFrame], columns: list[str]) -> MixedEncoding:
        num_cols, cat_cols, num, cat, labels = [], [], [], [], {}
        sizes = [len(f) for f in frames]
        for c in columns:
            parts = [_as_numbers(f[c]) for f in frames]
            if all(p is not None for p in parts):
                values = np.concatenate(parts)  # type: ignore[arg-type]
                if not np.isfinite(values).all():
                    raise DataError(
                        f"numeric column {c!r} has missing values (or infinite ones); impute "
                        "them or drop those records before assessing a synthetic table"
                    )
                if len(values) and float(np.abs(values).max()) > FLOAT_MAGNITUDE:
                    raise DataError(too_large(c, "the tables", "a synthetic-data attack"))
                num_cols.append(c)
                num.append(values)
            else:
                text = pd.concat([f[c].astype(object) for f in frames], ignore_index=True)
                codes, uniques = pd.factorize(text.where(text.notna(), None), use_na_sentinel=False)
                cat_cols.append(c)
                cat.append(codes.astype(np.int64))
                labels[c] = np.asarray(uniques, dtype=object)
        total = sum(sizes)
        num_m = np.column_stack(num) if num else np.zeros((total, 0))
        cat_m = np.column_stack(cat) if cat else np.zeros((total, 0), dtype=np.int64)
        if num:
            span = num_m.max(axis=0) - num_m.min(axis=0)
            weights = np.where(span > 0, 1.0 / np.where(span > 0, span, 1.0), 1.0)
        else:
            weights = np.zeros(0)
        bounds = np.cumsum([0, *sizes])
        return cls(
            columns=list(columns),
            numeric_columns=num_cols,
            categorical_columns=cat_cols,
            numeric=[num_m[a:b] for a, b in itertools.pairwise(bounds)],
            codes=[cat_m[a:b] for a, b in itertools.pairwise(bounds)],
            weights=weights,
            labels=labels,
        )

    def select(self, columns: list[str]) -> MixedEncoding:
        """The same encoding restricted to ``columns`` (a subset of its columns)."""
        ni = [self.numeric_columns.index(c) for c in columns if c in self.numeric_columns]
        ci = [self.categorical_columns.index(c) for c in columns if c in self.categorical_columns]
        return MixedEncoding(
            columns=list(columns),
            numeric_columns=[self.numeric_columns[i] for i in ni],
            categorical_columns=[self.categorical_columns[i] for i in ci],
            numeric=[m[:, ni] for m in self.numeric],
            codes=[m[:, ci] for m in self.codes],
            weights=self.weights[ni],
            labels={c: self.labels[c] for c in columns if c in self.labels},
        )

    def take(self, frame: int, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.numeric[frame][rows], self.codes[frame][rows]


def distances(
    q_num: np.ndarray, q_cat: np.ndarray, c_num: np.ndarray, c_cat: np.ndarray, w: np.ndarray
) -> np.ndarray:
    """The (queries × candidates) mixed distances: weighted L1 on the numeric columns (scipy's
    ``cdist``, exact differences before the weight) plus the count of differing categories."""
    from scipy.spatial.distance import cdist

    d = None
    if q_num.shape[1]:
        d = cdist(q_num, c_num, "minkowski", p=1, w=w)
    if q_cat.shape[1]:
        h = cdist(q_cat.astype(np.float64), c_cat.astype(np.float64), "hamming")
        h *= q_cat.shape[1]
        np.rint(h, out=h)  # a count of differing columns, exactly
        d = h if d is None else np.add(d, h, out=d)
    return d if d is not None else np.zeros((len(q_num), len(c_num)))


def _blocks(n_query: int, n_cand: int, n_cols: int):
    step = max(1, _BLOCK_CELLS // max(1, n_cand * max(1, n_cols)))
    for start in range(0, n_query, step):
        yield start, min(n_query, start + step)


def nearest(
    enc: MixedEncoding,
    query: tuple[np.ndarray, np.ndarray],
    candidates: tuple[np.ndarray, np.ndarray],
    *,
    k: int = 1,
    rng: np.random.Generator | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(index, distance)``: each query row's ``k`` nearest candidates, nearest first.

    Ties (distances within ``TIE_TOLERANCE``) are ordered uniformly at random with ``rng``; with
    ``rng=None`` only the distances are meaningful (the distance to the closest record).
    """
    q_num, q_cat = query
    c_num, c_cat = candidates
    n_q, n_c = len(q_num), len(c_num)
    k = min(k, n_c)
    index = np.empty((n_q, k), dtype=np.int64)
    dist = np.empty((n_q, k))
    ncols = q_num.shape[1] + q_cat.shape[1]
    for a, b in _blocks(n_q, n_c, ncols):
        d = distances(q_num[a:b], q_cat[a:b], c_num, c_cat, enc.weights)
        if rng is None and k == 1:
            at = d.argmin(axis=1)[:, None]
        else:
            key = np.rint(d / TIE_TOLERANCE) if ncols else d
            noise = (rng or np.random.default_rng(0)).random(d.shape)
            if k == 1:
                low = key.min(axis=1, keepdims=True)
                at = np.where(key == low, noise, -1.0).argmax(axis=1)[:, None]
            else:
                at = np.lexsort((noise, key), axis=1)[:, :k]
        index[a:b] = at
        dist[a:b] = np.take_along_axis(d, at, axis=1)
    return index, dist


# --------------------------------------------------------------------------- statistics


def _probit(confidence: float) -> float:
    from scipy.special import ndtri  # (scipy.stats takes seconds to import)

    if not 0.0 < confidence < 1.0:
        raise PolicyError(f"confidence must lie strictly between 0 and 1; got {confidence!r}")
    return float(ndtri(0.5 * (1.0 + confidence)))


def success_rate(n_total: int, n_success: float, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson-score estimate of a success rate: ``(rate, error)`` (Wilson 1927; Anonymeter)."""
    if n_total <= 0:
        return 0.0, 1.0
    z = _probit(confidence)
    z2 = z * z
    var = n_success * (n_total - n_success) / n_total
    den = n_total + z2
    return (n_success + 0.5 * z2) / den, (z / den) * sqrt(max(var, 0.0) + 0.25 * z2)


def _bound(value: float, error: float) -> tuple[float, list[float]]:
    def clip(x: float) -> float:
        return min(max(x, 0.0), 1.0)

    return clip(value), [clip(value - error), clip(value + error)]


def risk_figures(
    n_success: float,
    n_attacks: int,
    n_control: float,
    n_control_attacks: int,
    n_baseline: float,
    n_baseline_attacks: int,
    confidence: float = 0.95,
) -> dict[str, Any]:
    """The risk of one attack from its successes on the members, the controls and a random
    guesser: ``risk`` = (attack − control) / (1 − control) of the Wilson rates (Anonymeter's
    definition), bounded to [0, 1].

    Its interval is not Anonymeter's linear error propagation, which treats the ratio as
    normal and is too narrow on its upper side when the control rate is high (inference on
    Adult's salary class: 0.75; 200 controls gave 6 % of independent tables a lower end above
    0.05 at 95 %). 1 − risk = (1 − attack) / (1 − control) is a ratio of two failure rates:
    the interval is the MOVER one for a ratio of proportions from the two Wilson intervals
    (Donner & Zou 2012), which keeps its level down to a few dozen controls (simulated: a
    lower end above 0 in 2.0–2.7 % of leak-free draws at 95 %, where Katz's log interval gave
    6 % with 50 controls)."""
    attack, e_a = success_rate(n_attacks, n_success, confidence)
    control, e_c = success_rate(n_control_attacks, n_control, confidence)
    baseline, _ = success_rate(n_baseline_attacks, n_baseline, confidence)
    if control >= 1.0:
        residual = 0.0
        ci = [0.0, 1.0]
    else:
        residual = (attack - control) / (1.0 - control)
        ci = _ratio_interval(n_success, n_attacks, n_control, n_control_attacks, confidence)
    risk = min(max(residual, ci[0]), ci[1])
    return {
        "risk": risk,
        "risk_ci": ci,
        "attack_rate": attack,
        "attack_rate_error": e_a,
        "control_rate": control,
        "control_rate_error": e_c,
        "baseline_rate": baseline,
        "n_attacks": int(n_attacks),
        "n_control_attacks": int(n_control_attacks),
        "n_success": float(n_success),
        "n_control_success": float(n_control),
        "better_than_baseline": bool(attack > baseline),
        "confidence": float(confidence),
    }


def _wilson_bounds(x: float, n: float, z: float) -> tuple[float, float]:
    """The Wilson score interval of the proportion x / n."""
    p = x / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * sqrt(max(p * (1 - p) / n + z * z / (4 * n * n), 0.0)) / den
    return max(centre - half, 0.0), min(centre + half, 1.0)


def _ratio_interval(
    n_success: float, n_attacks: int, n_control: float, n_control_attacks: int, confidence: float
) -> list[float]:
    """1 − the MOVER interval of the ratio of failure rates (attack / control), from each
    rate's Wilson interval (Donner & Zou 2012, "Closed-form confidence intervals for functions
    of the normal mean and standard deviation", eq. for a ratio of proportions)."""
    z = _probit(confidence)
    f1 = (n_attacks - n_success) / n_attacks
    f2 = (n_control_attacks - n_control) / n_control_attacks
    if f2 <= 0:  # the control never fails: no ratio
        return [0.0, 1.0]
    l1, u1 = _wilson_bounds(n_attacks - n_success, n_attacks, z)
    l2, u2 = _wilson_bounds(n_control_attacks - n_control, n_control_attacks, z)
    prod = f1 * f2
    low_den = u2 * (2 * f2 - u2)
    low = (prod - sqrt(max(prod * prod - l1 * u2 * (2 * f1 - l1) * (2 * f2 - u2), 0.0))) / (
        low_den if low_den > 0 else float("inf")
    )
    high_den = l2 * (2 * f2 - l2)
    spread = sqrt(max(prod * prod - u1 * l2 * (2 * f1 - u1) * (2 * f2 - l2), 0.0))
    high = (prod + spread) / high_den if high_den > 0 else float("inf")

    def clip(x: float) -> float:
        return min(max(x, 0.0), 1.0)

    return [clip(1.0 - high), clip(1.0 - low)]


def rng_of(seed: int | None) -> np.random.Generator:
    return np.random.default_rng(seed)
