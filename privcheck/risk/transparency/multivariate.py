"""Transparency attacks on multivariate microaggregation (MDAV, whole-file or partitioned).

Multivariate microaggregation splits the attributes into groups (one group: all of them) and, per
group, partitions the records into clusters of k … 2k − 1 and releases every record as its
cluster's centroid. A released value vector shared by a set of records is therefore one cluster
(or, rarely, several clusters with the same centroid). Two intruders know the method and its
published parameters (k, the attribute groups, the aggregate):

**Whole original file** — `microaggregation_replay`, the transparency attack proper. MDAV is
deterministic, so an intruder who holds the whole original file on the microaggregated
attributes (the worst case of the disclosure-risk literature, B = X) replays the method with the
published parameters, recovers every record's cluster per group and matches each replayed
centroid to a released one. A record's candidates are then exactly the released records with
the same value vector on every group. No attack on a shuffled release can separate identical
rows, so this reaches the ceiling of any linkage: the anonymity-set rate is
Σ_b 1/|class of b| / n = #released classes / n, the prosecutor risk of the release's classes.
With one attribute group that is about 1/k; with several groups microaggregated independently
the intersections are small and most records are re-identified with certainty. Replayed
centroids are matched to released ones by nearest neighbour within a relative 1e-9, so a release
written through a text file still matches; a centroid with no match means the release was not
made by this method with these parameters (its records get empty candidate sets, counted in
``empty_candidate_sets``).

**Own values** — `multivariate_microaggregation_transparency`, the microaggregation-specific
record linkage of Nin, Herranz & Torra (2008, "On the disclosure risk of multivariate
microaggregation", Data & Knowledge Engineering 67(3), 399–412) as far as its published
description goes (the full text was not available to us; this is derived from the abstract and
the principle the authors' transparency attacks share). The intruder holds some original records
on some attributes. For every attribute group it reads the released clusters (distinct value
vectors) off the release and takes, for its record x, the cluster(s) whose centroid is nearest
to x on the group's attributes: the masked records of those clusters form B_g. The candidates
are ∩_g B_g; within them the intruder links by distance-based record linkage (DBRL), and where
the intersection is empty it falls back to DBRL over the whole release.

What is implemented, and where it may depart from the paper:

- clusters are read from the release as the sets of records with identical values on a group's
  attributes (the paper works from the protection's cluster assignment; identical here unless
  two clusters of a group share a centroid, which merges them — a larger, still correct set);
- "nearest" uses the release's mean and standard deviation to standardise (the intruder does
  not have the original moments; MDAV keeps the means, and its shrinkage of the standard
  deviations is close to uniform across attributes); ties within rounding are all kept;
- with the same standardisation its links are DBRL's: a record in a non-empty ∩_g B_g attains
  Σ_g min d_g, a lower bound of every masked record's distance, so ∩_g B_g is exactly DBRL's
  nearest set. What it adds is the candidate-set figures (``true_in_candidates_rate``: how
  often the nearest clusters hold the true one — MDAV's clusters are not Voronoi cells;
  ``singleton_rate``, ``false_certain``), not more links. The paper reports more links than
  its standard linkage; the departure may lie in its fallback or its standardisation, which
  its abstract does not give. The replay above is the stronger attack and the one
  ``privcheck anonymize`` reports;
- the paper's two projection-based microaggregation methods (which privcheck does not provide)
  are not attacked here.

Both are vectorised: the own-values attack per chunk of intruder records (one chunk × clusters
distance matrix per group and a chunk × release boolean mask), the replay by grouping keys.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from privcheck.errors import DataError, PolicyError
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
from privcheck.risk.transparency.univariate import candidate_figures

ATTACK = "microaggregation-multivariate-transparency"
#: relative distance under which a replayed centroid is the released one
MATCH_RTOL = 1e-9


# ---------------------------------------------------------------------------- shared pieces
def attribute_blocks(
    groups: Sequence[Sequence[str]] | None, names: list[str]
) -> tuple[list[np.ndarray], list[str]]:
    """Column positions of each attribute group among ``names``, and a label per group.

    ``groups`` is the release's published ``attribute_groups`` (None: one group of all the
    attributes). Attributes the intruder does not know are dropped from their group (a group's
    released clusters are still visible on the attributes it knows); every attacked attribute
    must belong to exactly one group.
    """
    if groups is None:
        return [np.arange(len(names))], ["all attributes"]
    if isinstance(groups, str) or not all(
        isinstance(g, list | tuple) and not isinstance(g, str) for g in groups
    ):
        raise PolicyError(
            f"groups must be a list of attribute lists, e.g. groups=[[AGI,FEDTAX],[PTOTVAL]]; "
            f"got {groups!r}"
        )
    position = {n: i for i, n in enumerate(names)}
    blocks, labels, seen = [], [], set()
    for g in groups:
        cols = [str(c) for c in g if str(c) in position]
        for c in cols:
            if c in seen:
                raise PolicyError(f"groups puts {c!r} in two groups; each attribute is in one")
            seen.add(c)
        if cols:
            blocks.append(np.array([position[c] for c in cols], dtype=np.int64))
            labels.append(", ".join(cols))
    left = [n for n in names if n not in seen]
    if left:
        raise PolicyError(
            f"groups leaves the attacked attribute {left[0]!r} out; give the release's attribute "
            "groups (its report's attribute_groups), every attribute in one group"
        )
    return blocks, labels


def released_clusters(block: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct released vectors of one attribute group: first row of each, row labels, sizes."""
    _, first, labels, sizes = np.unique(
        block, axis=0, return_index=True, return_inverse=True, return_counts=True
    )
    return first, labels.reshape(-1), sizes


def _check_k(sizes: np.ndarray, k: int | None, label: str) -> None:
    if k is None:
        return
    k = _positive_k(k)
    if sizes.min() < k:
        raise DataError(
            f"a released value vector on {label} is shared by {int(sizes.min())} record(s), "
            f"fewer than k={k}: the release was not microaggregated with this k on these "
            "attributes (check k and groups)"
        )


def _linkage_result(
    attack: str,
    params: dict[str, Any],
    names: list[str],
    n_a: int,
    n_b: int,
    t: np.ndarray,
    links: Links,
    figures: dict[str, Any],
    cand_size: np.ndarray,
    contribution: dict[str, float],
    contribution_kind: str,
) -> LinkageResult:
    rates = links.rates(t)
    rates["certain_rate"] = float(np.mean((cand_size == 1) & links.true_in)) if n_a else 0.0
    risk = np.where(cand_size == 1, links.true_in.astype(float), links.credit())
    return LinkageResult(
        attack=attack,
        params=params,
        attributes=names,
        n_intruder_records=n_a,
        n_masked_records=n_b,
        **rates,
        record_risk_summary=RecordRiskSummary.of(risk),
        attribute_contribution=contribution,
        attribute_contribution_kind=contribution_kind,
        figures=figures,
        record_risk=risk,
        linked_index=links.link,
        anonymity_set_size=links.set_size,
        true_in_set=links.true_in,
        candidate_set_size=cand_size,
    )


# ---------------------------------------------------------------------------- own values
def multivariate_microaggregation_transparency(
    intruder: TableLike,
    masked: TableLike,
    k: int | None = None,
    *,
    groups: Sequence[Sequence[str]] | None = None,
    attributes: Sequence[str] | None = None,
    true_index: Sequence[int] | np.ndarray | None = None,
    standardisation: Literal["each", "masked", "none"] = "masked",
    random_state: int | None = None,
    chunk_size: int | None = None,
    memory_limit: int = DEFAULT_MEMORY,
) -> LinkageResult:
    """Nin–Herranz–Torra microaggregation-specific linkage of ``intruder`` against a release.

    ``groups`` are the release's attribute groups (its report publishes them as
    ``attribute_groups``; None: the attributes were microaggregated together). ``k``, when
    given, is checked against the release: every released value vector of a group must be
    shared by ≥ k records. See the module docstring for the attack and its departures from the
    paper. ``random_state`` only breaks ties for the single link (None: fresh entropy); the
    anonymity-set rate and the candidate sets do not depend on it.

    Figures: ``singleton_rate``, ``certain_links``, ``false_certain``,
    ``mean_candidate_set_size``, ``median_candidate_set_size``, ``empty_candidate_sets`` (the
    groups' nearest clusters do not intersect: DBRL over the release decides) and
    ``true_in_candidates_rate`` (how often the nearest clusters hold the true record).
    """
    a, b, names = paired_matrices(intruder, masked, attributes)
    t = true_index_for(true_index, len(a), len(b))
    blocks, labels = attribute_blocks(groups, names)
    za, zb = standardise_pair(a, b, standardisation)
    clusters = []
    for cols, label in zip(blocks, labels, strict=True):
        first, lab, sizes = released_clusters(b[:, cols])
        _check_k(sizes, k, label)
        centres = zb[np.ix_(first, cols)]
        clusters.append((cols, lab, centres, np.einsum("ij,ij->i", centres, centres)))
    rng = np.random.default_rng(random_state)
    n_a, n_b = len(a), len(b)
    biggest = max(len(c[2]) for c in clusters)
    rows = chunk_rows(n_b + biggest, 19, memory_limit, chunk_size)
    links = Links.empty(n_a)
    cand_size = np.zeros(n_a, dtype=np.int64)
    true_in_cand = np.zeros(n_a, dtype=bool)
    kept = np.zeros(len(blocks))
    sq_b = np.einsum("ij,ij->i", zb, zb)
    max_sq_b = float(sq_b.max())
    for start in range(0, n_a, rows):
        stop = min(start + rows, n_a)
        sl = slice(start, stop)
        cand = np.ones((stop - start, n_b), dtype=bool)
        for g, (cols, lab, centres, sq_c) in enumerate(clusters):
            part = za[sl][:, cols]
            d = squared_distances(part, centres, sq_c)
            tol = EXPANSION_RTOL * (np.einsum("ij,ij->i", part, part) + float(sq_c.max()))
            near = d <= (d.min(axis=1) + tol + 1e-300)[:, None]
            bg = near[:, lab]  # masked records whose cluster is one of the nearest
            kept[g] += bg.sum()
            cand &= bg
        size = cand.sum(axis=1)
        cand_size[sl] = size
        true_in_cand[sl] = cand[np.arange(stop - start), t[sl]]
        d = squared_distances(za[sl], zb, sq_b)
        cand[size == 0] = True  # the nearest clusters do not intersect: DBRL over the release
        d[~cand] = np.inf
        tol = EXPANSION_RTOL * (np.einsum("ij,ij->i", za[sl], za[sl]) + max_sq_b) + 1e-300
        links.put(sl, resolve(d, t[sl], tol, rng))
    selectivity = 1.0 - kept / (n_a * n_b)
    params = {
        "k": None if k is None else int(k),
        "groups": [[names[i] for i in cols] for cols in blocks],
        "knowledge": "own values",
        "standardisation": standardisation,
    }
    return _linkage_result(
        ATTACK,
        params,
        names,
        n_a,
        n_b,
        t,
        links,
        candidate_figures(cand_size, true_in_cand),
        cand_size,
        dict(zip(labels, selectivity.tolist(), strict=True)),
        "mean share of the masked records that the attribute group's nearest released "
        "clusters exclude",
    )


# ---------------------------------------------------------------------------- replay
def replay_labels(
    original: np.ndarray, k: int, blocks: list[np.ndarray], method: str, block_size: int
) -> list[np.ndarray]:
    """Cluster labels per attribute group from replaying the published method on ``original``.

    The same steps as `privcheck.masking.mdav` (z-scores per group, then MDAV or its
    partitioned form), without the aggregation the intruder does not need.
    """
    from privcheck.masking._table import standardize
    from privcheck.masking.mdav import mdav_groups, mdav_partitioned_groups

    if method not in ("mdav", "mdav-partitioned"):
        raise PolicyError(
            f"method must be 'mdav' or 'mdav-partitioned' (the deterministic microaggregations "
            f"an intruder can replay); got {method!r}"
        )
    out = []
    for cols in blocks:
        z = standardize(original[:, cols])
        if method == "mdav":
            out.append(mdav_groups(z, k))
        else:
            out.append(mdav_partitioned_groups(z, k, block_size))
    return out


def _integral(values: np.ndarray) -> np.ndarray:
    """Which columns hold only whole numbers."""
    return np.all(values == np.round(values), axis=0)


def _match_centroids(released: np.ndarray, replayed: np.ndarray) -> np.ndarray:
    """Index of the released centroid each replayed centroid equals (−1: none within rounding).

    The nearest released centroid within ``MATCH_RTOL`` (relative). Matches are exact up to
    rounding, so a sort along one projection finds them (``_match_by_projection``) without
    scipy's KD-tree, whose import (~0.3 s) would cost an anonymizer's exposure replay more than
    the match itself; the KD-tree answers when that shortcut cannot decide alone.
    """
    scale = 1.0 + np.sqrt(np.einsum("ij,ij->i", replayed, replayed))
    tol = MATCH_RTOL * scale
    idx = _match_by_projection(released, replayed, tol)
    if idx is not None:
        return idx
    from scipy.spatial import cKDTree  # (imported when used: scipy is slow to import)

    dist, idx = cKDTree(released).query(replayed, k=1)
    return np.where(dist <= tol, idx, -1).astype(np.int64)


#: widest window of projection neighbours ``_match_by_projection`` scans before giving up
_MAX_WINDOW = 32


def _match_by_projection(
    released: np.ndarray, replayed: np.ndarray, tol: np.ndarray
) -> np.ndarray | None:
    """The released centroid within ``tol`` of each replayed one (−1: none), or None when that
    is not decided by this route alone (more than one within ``tol``, or wide windows).

    Two points within distance t project, on any unit vector, within t of each other (plus
    rounding): sorting the released centroids by a fixed generic projection, each replayed
    centroid's candidates are the few in a window of its projection, and each candidate's full
    distance decides. A replayed centroid with exactly one released centroid within ``tol``
    has it as its nearest, as a KD-tree query would say; two or more (duplicate centroids)
    leave the choice to the KD-tree.
    """
    m = len(released)
    out = np.full(len(replayed), -1, dtype=np.int64)
    if m == 0 or len(replayed) == 0:
        return out
    direction = np.random.default_rng(0).normal(size=released.shape[1])
    direction /= np.linalg.norm(direction)
    proj = released @ direction
    order = np.argsort(proj, kind="stable")
    sorted_proj = proj[order]
    q = replayed @ direction
    slack = 2.0 * tol + 1e-12 * (1.0 + np.abs(q))  # the projections' own rounding
    lo = np.searchsorted(sorted_proj, q - slack, side="left")
    hi = np.searchsorted(sorted_proj, q + slack, side="right")
    width = hi - lo
    widest = int(width.max(initial=0))
    if widest > _MAX_WINDOW:
        return None
    within_count = np.zeros(len(replayed), dtype=np.int64)
    for j in range(widest):  # over window offsets (a handful), not over records
        rows = np.flatnonzero(width > j)
        cand = order[lo[rows] + j]
        diff = replayed[rows] - released[cand]
        dist = np.sqrt(np.einsum("ij,ij->i", diff, diff))
        within = dist <= tol[rows]
        within_count[rows] += within
        out[rows[within]] = cand[within]
    if (within_count > 1).any():
        return None
    return out


def _positive_k(k: Any) -> int:
    if not isinstance(k, int | np.integer) or isinstance(k, bool) or k < 1:
        raise PolicyError(f"k must be a positive integer (the microaggregation k); got {k!r}")
    return int(k)


def microaggregation_replay(
    original: TableLike,
    masked: TableLike,
    k: int,
    *,
    groups: Sequence[Sequence[str]] | None = None,
    method: Literal["mdav", "mdav-partitioned"] = "mdav",
    block_size: int = 20_000,
    aggregate: Literal["mean", "median"] = "mean",
    attributes: Sequence[str] | None = None,
    rows: Sequence[int] | np.ndarray | None = None,
    true_index: Sequence[int] | np.ndarray | None = None,
    random_state: int | None = None,
    labels: Sequence[np.ndarray] | None = None,
) -> LinkageResult:
    """The intruder who holds the whole ``original`` file replays MDAV (see the module docstring).

    ``original`` is the whole original file (n records) on the microaggregated attributes and
    ``masked`` the release; ``true_index`` gives the masked row of every original record
    (default: aligned by position). ``rows`` are the original records whose re-identification
    is scored (default all). ``k``, ``groups``, ``method``, ``block_size`` and ``aggregate`` are
    the release's published parameters. ``labels`` (one array per group) skips the replay when
    the caller already holds the clusters it would find — the anonymizer that made the release.
    """
    k = _positive_k(k)
    o, b, names = paired_matrices(original, masked, attributes)
    t_all = true_index_for(true_index, len(o), len(b))
    r = np.arange(len(o)) if rows is None else np.asarray(rows, dtype=np.int64)
    if len(r) == 0 or r.min() < 0 or r.max() >= len(o):
        raise DataError(f"rows must be a non-empty list of original records in [0, {len(o) - 1}]")
    if aggregate not in ("mean", "median"):
        raise PolicyError(f"aggregate must be 'mean' or 'median'; got {aggregate!r}")
    blocks, block_labels = attribute_blocks(groups, names)
    if labels is None:
        labels = replay_labels(o, k, blocks, method, block_size)
    if len(labels) != len(blocks):
        raise PolicyError(
            f"{len(labels)} cluster labellings were given for {len(blocks)} attribute groups"
        )
    from privcheck.masking.mdav import aggregate_groups

    keys_o = np.empty((len(o), len(blocks)), dtype=np.int64)
    keys_b = np.empty((len(b), len(blocks)), dtype=np.int64)
    excluded = np.zeros(len(blocks))
    for g, (cols, lab) in enumerate(zip(blocks, labels, strict=True)):
        first, released_lab, sizes = released_clusters(b[:, cols])
        _check_k(sizes, k, block_labels[g])
        lab = np.asarray(lab).reshape(-1)
        _, head, inv = np.unique(lab, return_index=True, return_inverse=True)
        centres = aggregate_groups(o[:, cols], lab, aggregate)[head]
        # an integer column is released as its group means rounded half to even (published with
        # the method), so the intruder rounds the replayed means the same way
        whole = _integral(o[:, cols]) & _integral(b[:, cols])
        centres[:, whole] = np.rint(centres[:, whole])
        matched = _match_centroids(b[np.ix_(first, cols)], centres)
        keys_o[:, g] = matched[inv.reshape(-1)]
        keys_b[:, g] = released_lab
        excluded[g] = 1.0 - float(np.mean(sizes[released_lab[t_all[r]]])) / len(b)
    # the candidates of original record i: masked records whose key is i's replayed key
    _, key = np.unique(np.vstack([keys_b, keys_o]), axis=0, return_inverse=True)
    key = key.reshape(-1)
    key_b = key[: len(b)]
    key_o = np.where((keys_o < 0).any(axis=1), -1, key[len(b) :])  # unmatched: no candidate
    count_b = np.bincount(key_b, minlength=int(key.max()) + 1)
    mine = key_o[r]
    size = np.where(mine >= 0, count_b[np.maximum(mine, 0)], 0).astype(np.int64)
    true_in = (mine >= 0) & (key_b[t_all[r]] == mine)
    # the single link: a member of the candidate set drawn uniformly (they are identical rows)
    rng = np.random.default_rng(random_state)
    order = np.argsort(key_b, kind="stable")
    offsets = np.searchsorted(key_b[order], np.maximum(mine, 0))
    pick = np.minimum(offsets + rng.integers(0, np.maximum(size, 1)), len(b) - 1)
    link = np.where(size > 0, order[pick], -1).astype(np.int64)
    params = {
        "k": k,
        "groups": [[names[i] for i in cols] for cols in blocks],
        "method": method,
        "aggregate": aggregate,
        "knowledge": "the whole original file (replay)",
        **({"block_size": int(block_size)} if method == "mdav-partitioned" else {}),
    }
    return _linkage_result(
        ATTACK,
        params,
        names,
        len(r),
        len(b),
        t_all[r],
        Links(link, size.copy(), true_in),
        candidate_figures(size, true_in),
        size,
        dict(zip(block_labels, excluded.tolist(), strict=True)),
        "mean share of the masked records that the attribute group's replayed cluster excludes",
    )
