"""Structural re-identification risk: seed-and-propagate (Narayanan & Shmatikov 2009).

An intruder holds an auxiliary graph with real identities (another social network, a crawl) and
knows who a few released nodes are (the seeds). Starting from the seeds, it repeatedly maps an
auxiliary node l to the released node r whose neighbours best match the images of l's mapped
neighbours. Following the paper:
- score(l, r) = Σ over mapped neighbours i of l whose image μ(i) is adjacent to r of
  1/√deg(r) (degree-normalised, so hubs do not win by default); released nodes already mapped
  are not candidates;
- eccentricity = (best − second best) / standard deviation of the scores over all released
  nodes; a match needs eccentricity ≥ θ, so it must stand out;
- reverse match: scoring the other way, from r back to the auxiliary graph with μ⁻¹, must pick l
  again, with eccentricity ≥ θ.

The share of nodes it re-identifies correctly (ground truth known to the assessor) is the risk.

Implementation: all scores of a round come from sparse products, S = A_aux · M · A_released with
M the current mapping as a 0/1 matrix, and the reverse scores likewise; a round accepts every
match that passes both tests (the paper updates the mapping node by node, which needs fewer
rounds but one Python step per node). Rounds repeat until none adds a match. Mapped auxiliary
nodes are not revisited.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import networkx as nx
import numpy as np
import scipy.sparse as sp
from pydantic import BaseModel, Field

from privcheck.errors import DataError, PolicyError
from privcheck.graph.arrays import graph_arrays


class ReidentificationResult(BaseModel):
    """Outcome of the seed-and-propagate attack against one released graph."""

    theta: float
    rounds: int = Field(description="propagation rounds until no new match")
    n_seeds: int
    n_targets: int = Field(description="non-seed nodes with a known true image")
    mapped: int = Field(description="targets the attack mapped to some released node")
    correct: int = Field(description="targets mapped to their true image")
    reidentified_share: float = Field(description="correct / n_targets: the re-identification risk")
    precision: float = Field(description="correct / mapped (1.0 when nothing was mapped)")


def seed_and_propagate(
    aux: nx.Graph,
    released: nx.Graph,
    seeds: Mapping[Any, Any],
    *,
    theta: float = 0.5,
    max_rounds: int = 100,
) -> tuple[dict[Any, Any], int]:
    """Map auxiliary nodes to released nodes from `seeds` (aux node → released node).

    Returns the mapping (seeds included) and the number of propagation rounds run.
    """
    if not theta >= 0:
        raise PolicyError(f"theta must be a non-negative number; got {theta}")
    a = graph_arrays(aux)
    b = graph_arrays(released)
    ia = {u: i for i, u in enumerate(a.nodes)}
    ib = {u: i for i, u in enumerate(b.nodes)}
    fwd = np.full(a.n, -1, np.int64)  # aux position → released position
    bwd = np.full(b.n, -1, np.int64)
    for u, v in seeds.items():
        if u not in ia or v not in ib:
            where = "auxiliary" if u not in ia else "released"
            raise DataError(f"seed {u!r} → {v!r}: node not in the {where} graph; fix the seeds")
        if bwd[ib[v]] >= 0:
            raise DataError(f"seeds map two auxiliary nodes to released node {v!r}")
        fwd[ia[u]], bwd[ib[v]] = ib[v], ia[u]
    inv_sqrt_b = 1.0 / np.sqrt(np.maximum(b.degrees, 1))
    inv_sqrt_a = 1.0 / np.sqrt(np.maximum(a.degrees, 1))
    rounds = 0
    while rounds < max_rounds:
        rounds += 1
        todo = np.flatnonzero(fwd < 0)
        if todo.size == 0:
            break
        # forward: candidates r for every unmapped l
        best, ecc = _best_matches(a.adjacency, b.adjacency, fwd, todo, bwd >= 0, inv_sqrt_b)
        ok = (best >= 0) & (ecc >= theta)
        lnodes, rnodes = todo[ok], best[ok]
        if lnodes.size == 0:
            break
        # reverse: from each candidate r back to the auxiliary graph
        back, recc = _best_matches(b.adjacency, a.adjacency, bwd, rnodes, fwd >= 0, inv_sqrt_a)
        ok = (back == lnodes) & (recc >= theta)
        lnodes, rnodes = lnodes[ok], rnodes[ok]
        if lnodes.size == 0:
            break
        # distinct l's have distinct reverse argmaxes only if their r's differ; keep one per r
        rnodes, first = np.unique(rnodes, return_index=True)
        lnodes = lnodes[first]
        fwd[lnodes], bwd[rnodes] = rnodes, lnodes
    mapping = {a.nodes[i]: b.nodes[j] for i, j in enumerate(fwd.tolist()) if j >= 0}
    return mapping, rounds


def reidentification_risk(
    aux: nx.Graph,
    released: nx.Graph,
    seeds: Mapping[Any, Any],
    truth: Mapping[Any, Any],
    *,
    theta: float = 0.5,
    max_rounds: int = 100,
) -> ReidentificationResult:
    """Run the attack and score it against the true aux → released correspondence `truth`.

    Nodes of `truth` that are seeds are not counted; a target counts as re-identified when the
    attack maps it to its true image.
    """
    mapping, rounds = seed_and_propagate(aux, released, seeds, theta=theta, max_rounds=max_rounds)
    targets = [u for u in truth if u not in seeds]
    mapped = [u for u in targets if u in mapping]
    correct = sum(1 for u in mapped if mapping[u] == truth[u])
    return ReidentificationResult(
        theta=theta,
        rounds=rounds,
        n_seeds=len(seeds),
        n_targets=len(targets),
        mapped=len(mapped),
        correct=correct,
        reidentified_share=correct / len(targets) if targets else 0.0,
        precision=correct / len(mapped) if mapped else 1.0,
    )


def _best_matches(
    adj_from: sp.csr_array,
    adj_to: sp.csr_array,
    mapping: np.ndarray,
    rows: np.ndarray,
    taken: np.ndarray,
    inv_sqrt_deg_to: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Best candidate and its eccentricity for each node in `rows` (−1 / 0 when no score).

    Scores of row l over all target nodes r: Σ_{i ∈ N(l), mapped} [μ(i) ~ r] / √deg(r), with
    already-mapped targets (`taken`) excluded.
    """
    n_from, n_to = adj_from.shape[0], adj_to.shape[0]
    src = np.flatnonzero(mapping >= 0)
    m = sp.csr_array(
        (np.ones(src.size), (src, mapping[src])), shape=(n_from, n_to)
    )  # current mapping as a 0/1 matrix
    scores = (adj_from[rows] @ m @ adj_to).tocsr()
    scores = (scores @ sp.diags_array(inv_sqrt_deg_to * ~taken)).tocsr()
    scores.eliminate_zeros()
    n_rows = rows.size
    best = np.full(n_rows, -1, np.int64)
    ecc = np.zeros(n_rows)
    if scores.nnz == 0:
        return best, ecc
    counts = np.diff(scores.indptr)
    row_of = np.repeat(np.arange(n_rows), counts)
    order = np.lexsort((-scores.data, row_of))  # per row, descending score
    data, cols = scores.data[order], scores.indices[order]
    has = counts > 0
    start = scores.indptr[:-1]
    top = np.zeros(n_rows)
    second = np.zeros(n_rows)
    top[has] = data[start[has]]
    two = counts > 1
    second[two] = data[start[two] + 1]
    best[has] = cols[start[has]]
    sums = np.bincount(row_of, weights=scores.data, minlength=n_rows)
    sumsq = np.bincount(row_of, weights=scores.data**2, minlength=n_rows)
    mean = sums / n_to
    std = np.sqrt(np.maximum(sumsq / n_to - mean**2, 0.0))
    np.divide(top - second, std, out=ecc, where=std > 0)
    best[~(std > 0)] = -1
    return best, ecc
