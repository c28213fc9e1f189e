"""Transparency attacks: the intruder knows the masking method and its parameters.

Publishing the method and its parameters (good practice for the data's users) tells the intruder
where the masked version of a known value can lie. For each intruder record and attribute j that
gives a set B_j of masked records that can be its image; the record's candidates are ∩_j B_j.
A singleton is a certain re-identification; otherwise the intruder runs distance-based linkage
restricted to the candidates (Nin, Herranz & Torra 2008, "Rethinking rank swapping to decrease
disclosure risk": the RSLD linkage).

Rank swapping with parameter p swaps each value with one whose rank differs by at most
w = ⌊p·n/100⌋ and so keeps every marginal: the intruder reads the original marginal off the
release and knows that the masked value of a record lies within w ranks of its original value.
The intruder also knows the variant (plain, p-buckets, p-distribution: it is in the release's
parameters). The variants' displacement law has unbounded support, so the window that CERTAINLY
holds the masked value is the whole file (`privcheck.masking.rank_swapping.certain_window`);
a relaxed intruder who accepts missing the true value now and then searches a window covering
a share ``coverage`` of the law (`intruder_window`), and a naive one keeps plain's ±w.

Univariate microaggregation (optimal, or MDAV run on one attribute) replaces each value by the
mean of a group of k…2k−1 values that are contiguous in sorted order. Two levels of knowledge:

- ``original=None`` — the intruder knows only its own values. The release shows the group means
  c_1 < … < c_G and how many records carry each (the group size s). A value v can come from group
  g only if c_{g−1} ≤ v ≤ c_{g+1} (groups are ordered, so neighbouring groups' members bound v)
  and, because the other s − 1 members of g lie in [c_{g−1}, c_{g+1}] and average with v to c_g,
  c_g − (s−1)(c_{g+1} − c_g) ≤ v ≤ c_g + (s−1)(c_g − c_{g−1}).
- ``original`` given (the worst case: the intruder holds the whole original attribute) — sorted
  original and sorted masked values align position by position, so a value's group is known up
  to ties (Nin & Torra 2009, "Analysis of the univariate microaggregation disclosure risk").

Both attacks are vectorised per chunk of intruder records: one boolean (chunk × n) mask per
attribute, AND-ed, then the restricted distances of that chunk.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from privcheck.errors import DataError, PolicyError
from privcheck.masking.rank_swapping import check_coverage, check_variant, intruder_window
from privcheck.risk.linkage.distance import DEFAULT_MEMORY, EXPANSION_RTOL, squared_distances
from privcheck.risk.linkage.inputs import (
    TableLike,
    chunk_rows,
    paired_matrices,
    standardise_pair,
    true_index_for,
)
from privcheck.risk.linkage.links import Links, resolve
from privcheck.risk.results import LinkageResult, RecordRiskSummary

#: displacements the intruder replays to find a variant's window (see `variant_window`)
LAW_SAMPLES = 25_000


# ---------------------------------------------------------------------------- B_j bounds
def rank_interval(
    reference_sorted: np.ndarray, target_sorted: np.ndarray, values: np.ndarray, window: int
) -> tuple[np.ndarray, np.ndarray]:
    """Value interval [lo, hi] of ``target`` within ``window`` ranks of each value's rank.

    The rank of v is its position (or block of tied positions) in ``reference_sorted``; the
    interval spans ``target_sorted`` from ``window`` positions below the first to ``window``
    above the last. A value absent from the reference sits between two positions and takes both.
    Masked records whose value lies in [lo, hi] form B_j; ties at the ends are all included, since
    the rank order among equal values is unknown.
    """
    n = len(reference_sorted)
    first = np.searchsorted(reference_sorted, values, "left")
    last = np.searchsorted(reference_sorted, values, "right") - 1
    absent = last < first
    first = np.where(absent, first - 1, first)
    last = np.where(absent, last + 1, last)
    lo = target_sorted[np.clip(first - window, 0, n - 1)]
    hi = target_sorted[np.clip(last + window, 0, n - 1)]
    return lo, hi


def rank_swap_window(p: float, n: int) -> int:
    """Swap window in ranks for rank swapping with parameter p (a percentage of n records)."""
    if not 0 < p < 100:
        raise PolicyError(
            f"p is the rank-swapping percentage and must lie in (0, 100); got p={p} "
            "(p=5 means partners within 5 % of the records)"
        )
    return int(np.floor(p * n / 100.0 + 1e-9))


def variant_window(p: float, n: int, variant: str = "plain", coverage: float = 1.0) -> int:
    """Window in ranks of an intruder who knows p, the rank-swapping ``variant`` and n.

    ``coverage=1`` is the certain intruder (the support of the displacement law: w for plain,
    n − 1 for the unbounded variants); below 1 the window covering that share of the law,
    replayed on n ranks (`intruder_window`). Plain's window is w either way. The law is replayed
    often enough for ≥ 25,000 displacements (20 replays up to 1,250 records, 1 from 25,000):
    each replay costs as much as swapping one attribute, and a 99.9 % quantile needs no more.
    """
    w = rank_swap_window(p, n)  # p's range and messages as for plain rank swapping
    if check_variant(variant) == "plain":
        return w
    trials = min(20, max(1, -(-LAW_SAMPLES // max(n, 1))))
    # checks coverage; 1: certain
    return intruder_window(n, p, variant, coverage=coverage, trials=trials)


def microaggregation_group_bounds(
    masked_column: np.ndarray, k: int, tolerance: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """For each masked record, the interval of original values its group could contain.

    See the module docstring for the derivation. A released value carried by more than 2k − 1
    records holds several groups with the same mean; the bound then uses the largest size one of
    them can have (a larger size only loosens the bound, so it stays valid). ``tolerance`` widens
    every interval (for centroids rounded on release).
    """
    values, inverse, counts = np.unique(masked_column, return_inverse=True, return_counts=True)
    if counts.min() < k:
        v = values[np.argmin(counts)]
        raise DataError(
            f"the masked value {v!r} occurs {counts.min()} time(s), fewer than k={k}: the "
            "column was not microaggregated with this k (check k and the attribute)"
        )
    size = np.where(counts <= 2 * k - 1, counts, np.minimum(2 * k - 1, counts - k)).astype(float)
    prev = np.concatenate(([-np.inf], values[:-1]))
    nxt = np.concatenate((values[1:], [np.inf]))
    with np.errstate(invalid="ignore"):
        from_next = np.where(np.isfinite(nxt), values - (size - 1) * (nxt - values), -np.inf)
        from_prev = np.where(np.isfinite(prev), values + (size - 1) * (values - prev), np.inf)
    lower = np.maximum(prev, from_next) - tolerance
    upper = np.minimum(nxt, from_prev) + tolerance
    return lower[inverse], upper[inverse]


# ---------------------------------------------------------------------------- the attack core
def _intersection_attack(
    a: np.ndarray,
    b: np.ndarray,
    t: np.ndarray,
    za: np.ndarray,
    zb: np.ndarray,
    intruder_bounds: list[tuple[np.ndarray, np.ndarray] | None],
    masked_bounds: list[tuple[np.ndarray, np.ndarray] | None],
    random_state: int | None,
    chunk_size: int | None,
    memory_limit: int,
) -> tuple[Links, dict, np.ndarray, np.ndarray]:
    """Candidates ∩_j B_j per intruder record, then DBRL restricted to them.

    Per attribute j either ``intruder_bounds[j] = (lo, hi)`` (B_j = masked records with value in
    [lo_b, hi_b]) or ``masked_bounds[j] = (L, U)`` (B_j = masked records r with L_r ≤ a_bj ≤ U_r).
    """
    rng = np.random.default_rng(random_state)
    n_a, n_b = len(a), len(b)
    m = a.shape[1]
    rows = chunk_rows(n_b, 19, memory_limit, chunk_size)
    links = Links.empty(n_a)
    cand_size = np.zeros(n_a, dtype=np.int64)
    true_in_cand = np.zeros(n_a, dtype=bool)
    kept = np.zeros(m)  # Σ over intruder records of |B_j|
    sq_b = np.einsum("ij,ij->i", zb, zb)
    max_sq_b = float(sq_b.max())
    for start in range(0, n_a, rows):
        stop = min(start + rows, n_a)
        sl = slice(start, stop)
        cand = np.ones((stop - start, n_b), dtype=bool)
        for j in range(m):
            if intruder_bounds[j] is not None:
                lo, hi = intruder_bounds[j]
                bj = (b[None, :, j] >= lo[sl, None]) & (b[None, :, j] <= hi[sl, None])
            else:
                low, up = masked_bounds[j]
                v = a[sl, j][:, None]
                bj = (low[None, :] <= v) & (v <= up[None, :])
            kept[j] += bj.sum()
            cand &= bj
        size = cand.sum(axis=1)
        cand_size[sl] = size
        true_in_cand[sl] = cand[np.arange(stop - start), t[sl]]
        d = squared_distances(za[sl], zb, sq_b)
        empty = size == 0
        # no candidate means the release contradicts the assumed method: fall back to plain DBRL
        cand[empty] = True
        d[~cand] = np.inf
        tol = EXPANSION_RTOL * (np.einsum("ij,ij->i", za[sl], za[sl]) + max_sq_b) + 1e-300
        links.put(sl, resolve(d, t[sl], tol, rng))
    figures = candidate_figures(cand_size, true_in_cand)
    selectivity = 1.0 - kept / (n_a * n_b)
    return links, figures, cand_size, selectivity


def candidate_figures(cand_size: np.ndarray, true_in_cand: np.ndarray) -> dict[str, Any]:
    """What the candidate sets of an intersection attack say (shared by every transparency attack:
    a singleton set holding the true record is a certain link)."""
    singleton = cand_size == 1
    return {
        "certain_links": int(np.sum(singleton & true_in_cand)),
        "singleton_rate": float(singleton.mean()),
        "false_certain": int(np.sum(singleton & ~true_in_cand)),
        "mean_candidate_set_size": float(cand_size.mean()),
        "median_candidate_set_size": float(np.median(cand_size)),
        "empty_candidate_sets": int(np.sum(cand_size == 0)),
        "true_in_candidates_rate": float(true_in_cand.mean()),
    }


def _result(
    attack: str,
    params: dict,
    names: list[str],
    a: np.ndarray,
    b: np.ndarray,
    t: np.ndarray,
    links: Links,
    figures: dict,
    cand_size: np.ndarray,
    selectivity: np.ndarray,
) -> LinkageResult:
    rates = links.rates(t)
    singleton_true = (cand_size == 1) & links.true_in
    rates["certain_rate"] = float(singleton_true.mean())
    # a singleton candidate set is certain: its record carries risk 1, whatever DBRL would say
    risk = np.where(cand_size == 1, links.true_in.astype(float), links.credit())
    return LinkageResult(
        attack=attack,
        params=params,
        attributes=names,
        n_intruder_records=len(a),
        n_masked_records=len(b),
        **rates,
        record_risk_summary=RecordRiskSummary.of(risk),
        attribute_contribution=dict(zip(names, selectivity.tolist(), strict=True)),
        attribute_contribution_kind="mean share of the masked records that the attribute's "
        "B_j excludes",
        figures=figures,
        record_risk=risk,
        linked_index=links.link,
        anonymity_set_size=links.set_size,
        true_in_set=links.true_in,
        candidate_set_size=cand_size,
    )


# ---------------------------------------------------------------------------- public attacks
def rank_swap_transparency(
    intruder: TableLike,
    masked: TableLike,
    p: float | None = None,
    *,
    variant: str = "plain",
    coverage: float = 1.0,
    window: int | None = None,
    attributes: Sequence[str] | None = None,
    true_index: Sequence[int] | np.ndarray | None = None,
    standardisation: str = "masked",
    random_state: int | None = 0,
    chunk_size: int | None = None,
    memory_limit: int = DEFAULT_MEMORY,
) -> LinkageResult:
    """Rank-swapping-specific linkage (RSLD) of ``intruder`` against a rank-swapped release.

    ``p`` is the percentage of the release's records within which values were swapped and
    ``variant`` the rank-swapping variant (``plain``, ``buckets``, ``distribution``); the window
    in ranks follows from them (`variant_window`). ``coverage=1`` (default) is the certain
    intruder of the transparency attack: plain → w = ⌊p·n/100⌋, the variants → n − 1 (their law
    reaches every rank, so no smaller window surely holds the true value); ``coverage < 1`` the
    intruder who searches the window covering that share of the variant's displacement law.
    An explicit ``window`` in ranks overrides all that (e.g. plain's w against a variant: the
    naive intruder). Within the candidate set the
    intruder links by Euclidean distance, standardised by the release's mean and standard
    deviation (``standardisation='masked'``: rank swapping keeps them, and it works for a
    single intruder record).

    Figures: ``singleton_rate`` (share of candidate sets of size 1), ``certain_links``,
    ``mean_candidate_set_size``, ``true_in_candidates_rate`` (1.0 when the release really is a
    rank swap with this window), ``false_certain`` / ``empty_candidate_sets`` (evidence that it
    is not).
    """
    variant = check_variant(variant)
    coverage = check_coverage(coverage)
    a, b, names = paired_matrices(intruder, masked, attributes)
    t = true_index_for(true_index, len(a), len(b))
    if window is None:
        if p is None:
            raise PolicyError("give the rank-swapping percentage p (or the window in ranks)")
        window = variant_window(p, len(b), variant, coverage)
        rule = "certain" if variant == "plain" or coverage == 1.0 else f"{coverage:g} of the law"
    elif window < 0:
        raise PolicyError(f"window must be a non-negative number of ranks; got {window}")
    else:
        rule = "given"
    bounds = []
    for j in range(a.shape[1]):
        s = np.sort(b[:, j])
        bounds.append(rank_interval(s, s, a[:, j], window))
    za, zb = standardise_pair(a, b, standardisation)
    links, figures, cand_size, sel = _intersection_attack(
        a, b, t, za, zb, bounds, [None] * len(bounds), random_state, chunk_size, memory_limit
    )
    figures.update(window=int(window), window_rule=rule, variant=variant, coverage=coverage)
    params = {
        "p": p,
        "variant": variant,
        "coverage": coverage,
        "window": int(window),
        "window_rule": rule,
        "standardisation": standardisation,
    }
    return _result("rank-swap-transparency", params, names, a, b, t, links, figures, cand_size, sel)


def microaggregation_transparency(
    intruder: TableLike,
    masked: TableLike,
    k: int,
    *,
    original: TableLike | None = None,
    attributes: Sequence[str] | None = None,
    true_index: Sequence[int] | np.ndarray | None = None,
    tolerance: float = 0.0,
    standardisation: str = "masked",
    random_state: int | None = 0,
    chunk_size: int | None = None,
    memory_limit: int = DEFAULT_MEMORY,
) -> LinkageResult:
    """Transparency attack on a release microaggregated attribute by attribute with parameter k.

    Without ``original`` the intruder uses only its own values and the released group means and
    sizes; with ``original`` (the full original file on the same attributes, the worst case) it
    aligns the sorted original and masked marginals. See the module docstring.
    """
    if not isinstance(k, int | np.integer) or k < 1:
        raise PolicyError(
            f"k must be a positive integer (the microaggregation group size); got {k}"
        )
    if original is None:
        a, b, names = paired_matrices(intruder, masked, attributes)
    else:  # (one exact shift of an integer column across the three files)
        a, b, o, names = paired_matrices(intruder, masked, attributes, original)
    t = true_index_for(true_index, len(a), len(b))
    intruder_bounds: list = [None] * a.shape[1]
    masked_bounds: list = [None] * a.shape[1]
    if original is None:
        for j in range(a.shape[1]):
            masked_bounds[j] = microaggregation_group_bounds(b[:, j], int(k), tolerance)
    else:
        if o.shape != b.shape:
            raise DataError(
                f"the original file is {o.shape[0]} × {o.shape[1]} but the masked file is "
                f"{b.shape[0]} × {b.shape[1]}; they must hold the same records and attributes"
            )
        for j in range(a.shape[1]):
            lo, hi = rank_interval(np.sort(o[:, j]), np.sort(b[:, j]), a[:, j], 0)
            intruder_bounds[j] = (lo - tolerance, hi + tolerance)
    za, zb = standardise_pair(a, b, standardisation)
    links, figures, cand_size, sel = _intersection_attack(
        a, b, t, za, zb, intruder_bounds, masked_bounds, random_state, chunk_size, memory_limit
    )
    params = {
        "k": int(k),
        "knowledge": "original marginals" if original is not None else "own values",
        "tolerance": tolerance,
        "standardisation": standardisation,
    }
    return _result(
        "microaggregation-transparency", params, names, a, b, t, links, figures, cand_size, sel
    )
