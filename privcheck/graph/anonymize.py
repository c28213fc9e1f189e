"""k-degree anonymization of a graph (Liu & Terzi 2008).

Two phases:
1. degree-sequence anonymization: the minimal-L1 k-anonymous target degrees, by the O(n·k)
   dynamic programme in `degree_dp.py`;
2. realisation: change edges so every node reaches its target (`realise.py`) — by edge additions
   only (the output is a supergraph of the input, Liu & Terzi's SuperGraph), or, with
   `deletions=True`, by additions and deletions around the median targets of §8.

The greedy realisation can get stuck (the residual degrees are not realisable around the existing
edges, or their sum is odd). Liu & Terzi's probing scheme then adds a little noise to the degree
sequence — it raises the degree of a few random low-degree nodes by one — re-runs the DP and
tries again; low-degree nodes are plentiful in social graphs, so the noise costs little and gives
the stuck nodes partners. The output is re-checked with `check_k_degree`; a failure would be a
bug and raises.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import networkx as nx
import numpy as np
import scipy.sparse as sp
from pydantic import BaseModel, Field

from privcheck.errors import DataError, PolicyError
from privcheck.graph.arrays import GraphArrays, graph_arrays, validate_k
from privcheck.graph.degree_dp import anonymize_degree_sequence
from privcheck.graph.kdegree import check_k_degree
from privcheck.graph.realise import EdgeEdits, add_edges_greedy, remove_then_add
from privcheck.graph.result import GraphModelResult
from privcheck.graph.utility import UtilityReport, utility_report


class AnonymizationReport(BaseModel):
    """What the anonymizer changed, what it cost, and the re-check of its output."""

    algorithm: str = "liu-terzi"
    k: int
    mode: Literal["additions", "additions_deletions"]
    n_nodes: int
    n_edges_before: int
    n_edges_after: int
    edges_added: int
    edges_removed: int
    l1_degree_change: int = Field(description="Σ |degree after − degree before| over nodes")
    optimal_l1_degree_change: int = Field(
        description="the DP's minimal L1 change before probing (a lower bound for this mode)"
    )
    probes: int = Field(description="probing rounds needed (0: the optimal sequence was realised)")
    utility: UtilityReport | None
    check: GraphModelResult = Field(description="k-degree check of the output")


@dataclass(frozen=True)
class AnonymizedGraph:
    """The anonymized graph (a modified copy of the input), its report and the edge edits."""

    graph: nx.Graph
    report: AnonymizationReport
    added: list[tuple[Any, Any]]
    removed: list[tuple[Any, Any]]


def k_degree_anonymize(
    graph: nx.Graph,
    k: int,
    *,
    deletions: bool = False,
    seed: int | None = None,
    max_probes: int = 200,
    probe_size: int = 1,
    utility: bool = True,
    path_sources: int = 64,
) -> AnonymizedGraph:
    """Make `graph` k-degree anonymous with few edge changes.

    deletions: False adds edges only (the result contains every input edge); True may also
      delete edges, reaching targets closer to the input degrees (group medians).
    seed: seeds the probing noise and the path-length sample (None: the operating system's
      entropy; a seed is for reproducible tests and is not reported).
    max_probes / probe_size: probing rounds before giving up, and the least number of low-degree
      nodes each round raises by one (a round raises as many as the greedy lacked partners).
    utility / path_sources: compute the utility figures, from this many BFS sources.
    Node and edge attributes of the input are kept; added edges carry no attributes.
    """
    ga = graph_arrays(graph)
    k = validate_k(k, ga.n)
    if probe_size < 1 or max_probes < 0:
        raise PolicyError(
            f"probe_size must be ≥ 1 and max_probes ≥ 0; got {probe_size} and {max_probes}"
        )
    edits, optimal, target, probes = _plan(ga, k, deletions, seed, max_probes, probe_size)

    out = graph.copy()
    added = [(ga.nodes[u], ga.nodes[v]) for u, v in edits.added.tolist()]
    removed = [(ga.nodes[u], ga.nodes[v]) for u, v in edits.removed.tolist()]
    out.remove_edges_from(removed)
    out.add_edges_from(added)

    check = check_k_degree(out, k)
    if not check.passed:  # the DP's sequence is k-anonymous and was realised exactly
        raise RuntimeError(f"bug: k-degree anonymization output fails the check (k={check.value})")
    after = _edited_adjacency(ga, edits)
    report = AnonymizationReport(
        k=k,
        mode="additions_deletions" if deletions else "additions",
        n_nodes=ga.n,
        n_edges_before=len(ga.edges),
        n_edges_after=out.number_of_edges(),
        edges_added=len(added),
        edges_removed=len(removed),
        l1_degree_change=int(np.abs(target - ga.degrees).sum()),
        optimal_l1_degree_change=optimal,
        probes=probes,
        utility=(
            utility_report(ga.adjacency, after, path_sources=path_sources, seed=seed)
            if utility
            else None
        ),
        check=check,
    )
    return AnonymizedGraph(graph=out, report=report, added=added, removed=removed)


def _plan(
    ga: GraphArrays, k: int, deletions: bool, seed: int | None, max_probes: int, probe_size: int
) -> tuple[EdgeEdits, int, np.ndarray, int]:
    """DP + realisation with probing; returns (edits, optimal L1, realised targets, probes)."""
    d = ga.degrees
    n = ga.n
    rng = np.random.default_rng(seed)
    noisy = d.copy()
    optimal = None
    for probe in range(max_probes + 1):
        plan = anonymize_degree_sequence(noisy, k, allow_decrease=deletions)
        if optimal is None:
            optimal = plan.cost
        target = plan.target  # ≤ n − 1: the DP only picks values present in `noisy`
        residual = target - d
        if deletions:
            edits = remove_then_add(ga.adjacency, residual)
        else:
            edits = add_edges_greedy(ga.adjacency, residual)
        if not edits.shortfall:
            return edits, optimal, target, probe
        # probing: raise low-degree nodes (that can still take an edge) by one — as many as
        # partners were missing, at least probe_size
        room = np.flatnonzero(noisy < n - 1)
        if room.size == 0:
            break
        low = room[noisy[room] <= np.median(noisy[room])]
        size = min(max(probe_size, edits.shortfall), low.size)
        noisy[rng.choice(low, size=size, replace=False)] += 1
    raise DataError(
        f"could not realise a {k}-degree anonymous graph after {max_probes} probing rounds "
        f"({'additions and deletions' if deletions else 'additions only'}); try "
        f"{'deletions=True, ' if not deletions else ''}a larger max_probes or probe_size, "
        "or a smaller k"
    )


def _edited_adjacency(ga: GraphArrays, edits: EdgeEdits) -> sp.csr_array:
    """Adjacency of the anonymized graph on the input's node positions."""
    n = ga.n

    def sym(edges: np.ndarray) -> sp.csr_array:
        rows = np.concatenate([edges[:, 0], edges[:, 1]])
        cols = np.concatenate([edges[:, 1], edges[:, 0]])
        return sp.csr_array((np.ones(rows.size, np.int64), (rows, cols)), shape=(n, n))

    after = (ga.adjacency + sym(edits.added) - sym(edits.removed)).tocsr()
    after.eliminate_zeros()
    after.sort_indices()
    return after
