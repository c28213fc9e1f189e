"""Realise target degrees on top of an existing graph (Liu & Terzi 2008, §6 and §8).

`anonymize_degree_sequence` says which degree each node should have; these functions change
edges so that it does. They work on node positions (see `arrays.py`) and return the edges they
add and remove, or None when their greedy choice gets stuck — the caller then probes (perturbs
the degree sequence and tries again).

The loops here run over the nodes whose degree must change (one round per such node), which are
few: the anonymization cost concentrates in the sparse high-degree tail. Each round is a
vectorised step over the candidate set.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True)
class EdgeEdits:
    """Edges (as position pairs, shape (m, 2)) to add to and remove from the graph.

    `shortfall` > 0 means the greedy got stuck: in total that many edge ends found no partner
    (an odd residual sum always leaves one); the edits are then unusable.
    """

    added: np.ndarray
    removed: np.ndarray
    shortfall: int = 0


def _row(adj: sp.csr_array, v: int) -> np.ndarray:
    return adj.indices[adj.indptr[v] : adj.indptr[v + 1]]


def add_edges_greedy(
    adj: sp.csr_array,
    residual: np.ndarray,
    forbidden: dict[int, list[int]] | None = None,
) -> EdgeEdits:
    """Liu & Terzi's SuperGraph step: add edges so node v gains exactly residual[v] ≥ 0 edges.

    Havel–Hakimi on the residuals, restricted to pairs not already adjacent: repeatedly take the
    node with the largest residual and join it to the nodes with the next largest residuals
    that are not yet its neighbours. Returns the added edges, or a `shortfall` when some node
    cannot find enough partners (the residuals are not realisable greedily around the graph).
    `forbidden[v]` lists further nodes v must not be joined to (e.g. edges just deleted).
    """
    none = np.empty((0, 2), np.int64)
    extra: dict[int, list[int]] = defaultdict(list)
    if forbidden:
        for v, ws in forbidden.items():
            extra[v].extend(ws)
    pos = np.flatnonzero(residual > 0)
    res = residual[pos].astype(np.int64)
    added: list[np.ndarray] = []
    shortfall = 0
    while pos.size:
        j = int(np.argmax(res))
        v = int(pos[j])
        need = int(res[j])
        blocked = np.concatenate([_row(adj, v), np.asarray(extra[v], np.int64), [v]])
        cand = np.flatnonzero(~np.isin(pos, blocked))
        # when stuck, keep going with what is available: the total shortfall tells the caller
        # how much to probe for in one round instead of one stuck node per round
        shortfall += max(0, need - int(cand.size))
        need = min(need, int(cand.size))
        take = cand[np.argsort(-res[cand], kind="stable")[:need]]
        partners = pos[take]
        added.append(np.column_stack([np.full(need, v), partners]))
        for w in partners.tolist():
            extra[w].append(v)
        res[take] -= 1
        res[j] = 0
        keep = res > 0
        pos, res = pos[keep], res[keep]
    if shortfall:
        return EdgeEdits(none, none, shortfall=shortfall)
    if not added:
        return EdgeEdits(none, none)
    return EdgeEdits(np.sort(np.concatenate(added), axis=1), none)


def remove_then_add(adj: sp.csr_array, residual: np.ndarray) -> EdgeEdits:
    """Realise residuals of both signs by edge deletions followed by greedy additions.

    Every node v with residual[v] < 0 drops −residual[v] of its edges, preferring neighbours
    that must lose degree too (one deletion serves both), then neighbours already on target,
    which thereby need one edge back; the additions then fill all positive residuals with
    `add_edges_greedy`, never re-adding a deleted edge. A `shortfall` says the additions got stuck.
    """
    r = residual.astype(np.int64).copy()
    removed: list[tuple[int, int]] = []
    gone: dict[int, list[int]] = defaultdict(list)
    negatives = np.flatnonzero(r < 0)
    for v in negatives[np.argsort(r[negatives], kind="stable")].tolist():
        drop = -int(r[v])
        if drop <= 0:  # already served as the partner of an earlier deletion
            continue
        nbrs = _row(adj, v)
        if gone[v]:
            nbrs = nbrs[~np.isin(nbrs, gone[v])]
        chosen = nbrs[np.argsort(r[nbrs], kind="stable")[:drop]]
        for w in chosen.tolist():
            removed.append((min(v, w), max(v, w)))
            gone[v].append(w)
            gone[w].append(v)
        r[chosen] += 1
        r[v] += chosen.size
    removed_arr = np.array(removed, np.int64).reshape(-1, 2)
    current = adj
    if removed:
        n = adj.shape[0]
        rows = np.concatenate([removed_arr[:, 0], removed_arr[:, 1]])
        cols = np.concatenate([removed_arr[:, 1], removed_arr[:, 0]])
        drop_m = sp.csr_array((np.ones(rows.size, np.int64), (rows, cols)), shape=(n, n))
        current = (adj - drop_m).tocsr()
        current.eliminate_zeros()
    adds = add_edges_greedy(current, r, forbidden=gone)
    return EdgeEdits(added=adds.added, removed=removed_arr, shortfall=adds.shortfall)
