"""Synthetic spatial graphs for a k-degree anonymous degree sequence (Torra, Jonsson,
Navarro-Arribas & Salas).

Instead of editing the input graph, release a synthetic one that keeps only its (anonymized)
degree sequence: an intruder who knows a node's degree finds at least k candidates, and no edge
of the release is an edge of the input by construction — edges come from geography, not from
the original ties. Steps:

1. target degrees: the minimal-L1 k-anonymous sequence (Liu & Terzi's DP, group medians), with a
   parity fix (one group of odd size and odd value moves by one, so the stubs pair up) and a
   fallback to the additions-only DP when the median sequence is not graphical;
2. positions: every node gets a point on the unit square drawn from a density — uniform, or a
   Gaussian mixture (cities) — so nearby nodes are likely neighbours, as in spatial networks;
3. edges by nearness (the lecture's heuristic): nodes in decreasing target degree join their
   nearest nodes that still have free stubs. Late nodes may find only partners they already
   have, or none but themselves: that makes multi-edges and self-loops, and the degrees are met
   exactly in the multigraph;
4. correction: each surplus copy of a multi-edge or self-loop (u, v) is rewired with an edge
   (x, y) taken near u — (u, v), (x, y) become (u, x), (v, y) — which keeps all four degrees;
   copies that cannot be rewired are dropped, and the L1 gap to the target is reported.

The release is re-checked for k-degree anonymity; with a non-zero gap it may fail (exit 1).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Literal

import networkx as nx
import numpy as np
from pydantic import BaseModel, Field
from scipy.spatial import cKDTree

from privcheck.errors import DataError, PolicyError
from privcheck.graph.arrays import adjacency_from_edges, graph_arrays, validate_k
from privcheck.graph.deanonymize import ReidentificationResult, reidentification_risk
from privcheck.graph.degree_dp import anonymize_degree_sequence
from privcheck.graph.kdegree import check_k_degree
from privcheck.graph.result import GraphModelResult
from privcheck.graph.utility import UtilityReport, utility_report

Density = Literal["uniform", "gaussian-mixture"]


class SyntheticSpatialReport(BaseModel):
    """What the synthetic spatial release is, how close it came to its target, and its risk."""

    algorithm: str = "synthetic-spatial"
    k: int
    density: str
    n_nodes: int
    n_edges_before: int
    n_edges_after: int
    target_l1_change: int = Field(description="Σ |target degree − input degree| over nodes")
    multi_edges_created: int = Field(description="surplus edge copies the nearness step made")
    self_loops_created: int = Field(description="self-loops the nearness step made")
    rewired: int = Field(description="surplus copies and loops fixed by an endpoint swap")
    dropped: int = Field(description="surplus copies and loops that could not be rewired")
    degree_sequence_matched: bool
    l1_degree_gap: int = Field(description="Σ |output degree − target degree| over nodes")
    shared_edges: int = Field(description="edges of the release that are also input edges")
    utility: UtilityReport | None
    reidentification: ReidentificationResult | None = Field(
        description="seed-and-propagate attack with the input as auxiliary graph"
    )
    check: GraphModelResult = Field(description="k-degree check of the output")


@dataclass(frozen=True)
class SyntheticGraph:
    """The synthetic graph (same node ids as the input), node positions and the report."""

    graph: nx.Graph
    positions: np.ndarray
    target: np.ndarray
    report: SyntheticSpatialReport


def synthetic_spatial_graph(
    graph: nx.Graph,
    k: int,
    *,
    density: str = "uniform",
    components: int = 3,
    spread: float = 0.1,
    seed: int | None = None,
    utility: bool = True,
    path_sources: int = 64,
    attack: bool = True,
    attack_seeds: int = 10,
) -> SyntheticGraph:
    """A synthetic spatial graph on `graph`'s nodes whose degrees are k-degree anonymous.

    density: "uniform" on the unit square, or "gaussian-mixture" of `components` equally
      weighted isotropic Gaussians (standard deviation `spread`) with uniform centres.
    seed: all random choices (None: the operating system's entropy; not reported).
    attack: run the seed-and-propagate attack with the input as the intruder's graph and
      `attack_seeds` random known nodes (cheap: sparse products).
    """
    ga = graph_arrays(graph)
    n = ga.n
    k = validate_k(k, n)
    if density not in ("uniform", "gaussian-mixture"):
        raise PolicyError(f"density must be 'uniform' or 'gaussian-mixture'; got {density!r}")
    if int(components) < 1 or not float(spread) > 0:
        raise PolicyError(f"components must be ≥ 1 and spread > 0; got {components}, {spread}")
    if int(attack_seeds) < 1 or int(path_sources) < 1:
        raise PolicyError(
            f"attack_seeds and path_sources must be ≥ 1; got {attack_seeds}, {path_sources}"
        )
    rng = np.random.default_rng(seed)
    target = k_anonymous_target(ga.degrees, k)
    pos = sample_positions(n, density, rng, components=int(components), spread=float(spread))
    multi = nearness_multigraph(pos, target)
    loops = sum(c for (u, v), c in multi.items() if u == v)
    surplus = sum(c - 1 for (u, v), c in multi.items() if u != v)
    edges, rewired, dropped = correct_multigraph(multi, pos)

    out = nx.Graph()
    out.add_nodes_from(graph.nodes(data=True))
    out.add_edges_from((ga.nodes[u], ga.nodes[v]) for u, v in edges.tolist())
    after = np.bincount(edges.ravel(), minlength=n) if edges.size else np.zeros(n, np.int64)
    gap = int(np.abs(after - target).sum())
    check = check_k_degree(out, k)
    shared = len({(u, v) for u, v in edges.tolist()} & {(u, v) for u, v in ga.edges.tolist()})
    risk = None
    if attack and ga.edges.size:
        picks = rng.choice(n, size=min(attack_seeds, n), replace=False)
        seeds = {ga.nodes[i]: ga.nodes[i] for i in picks.tolist()}
        risk = reidentification_risk(graph, out, seeds, {u: u for u in ga.nodes})
    report = SyntheticSpatialReport(
        k=k,
        density=density,
        n_nodes=n,
        n_edges_before=len(ga.edges),
        n_edges_after=out.number_of_edges(),
        target_l1_change=int(np.abs(target - ga.degrees).sum()),
        multi_edges_created=surplus,
        self_loops_created=loops,
        rewired=rewired,
        dropped=dropped,
        degree_sequence_matched=gap == 0,
        l1_degree_gap=gap,
        shared_edges=shared,
        utility=(
            utility_report(
                ga.adjacency,
                adjacency_from_edges(edges.reshape(-1, 2), n),
                path_sources=path_sources,
                seed=seed,
            )
            if utility
            else None
        ),
        reidentification=risk,
        check=check,
    )
    return SyntheticGraph(graph=out, positions=pos, target=target, report=report)


def k_anonymous_target(degrees: np.ndarray, k: int) -> np.ndarray:
    """A graphical k-anonymous degree sequence close (L1) to `degrees`.

    The median DP first (closest), then the additions-only DP; a sequence with an odd sum is
    fixed by moving one whole group of odd size and odd value by one (it exists: the sum is odd),
    which keeps every group ≥ k. DataError when neither candidate is graphical.
    """
    n = degrees.size
    for allow_decrease in (True, False):
        t = anonymize_degree_sequence(degrees, k, allow_decrease=allow_decrease).target.copy()
        if t.sum() % 2:
            values, sizes = np.unique(t, return_counts=True)
            odd = values[(sizes % 2 == 1) & (values % 2 == 1)]
            # prefer +1 (as the additions DP would); a value at n − 1 must go down
            v = int(odd[0])
            t[t == v] += 1 if v + 1 <= n - 1 else -1
        if nx.is_graphical(t.tolist(), method="eg"):
            return t
    raise DataError(
        f"no graphical {k}-degree anonymous degree sequence near the input's; try a smaller k"
    )


def sample_positions(
    n: int, density: str, rng: np.random.Generator, *, components: int = 3, spread: float = 0.1
) -> np.ndarray:
    """n points on the plane from the density (uniform square or Gaussian mixture)."""
    if density == "uniform":
        return rng.random((n, 2))
    centres = rng.random((components, 2))
    which = rng.integers(components, size=n)
    return centres[which] + rng.normal(0.0, spread, size=(n, 2))


def nearness_multigraph(pos: np.ndarray, target: np.ndarray) -> Counter[tuple[int, int]]:
    """The lecture's heuristic: by decreasing target, join each node to its nearest nodes with
    free stubs (one edge each); stubs left with no partner become self-loops.

    Returns edge multiplicities keyed by (u, v) with u ≤ v; every node's degree (a loop
    counting 2) equals its target when the target sum is even.
    """
    n = target.size
    free = target.astype(np.int64).copy()
    tree = cKDTree(pos)
    multi: Counter[tuple[int, int]] = Counter()
    for u in np.lexsort((np.arange(n), -target)).tolist():  # one step per node, not per record
        need = int(free[u])
        if need <= 0:
            continue
        m = min(n, 4 * need + 8)
        while True:  # widen the k-NN query until enough nodes with free stubs show up
            _, idx = tree.query(pos[u], k=m)
            idx = np.atleast_1d(idx)
            cand = idx[(idx != u) & (free[idx] > 0)]
            if cand.size >= need or m == n:
                break
            m = min(n, 2 * m)
        cand = cand[:need]
        for v in cand.tolist():
            multi[(min(u, v), max(u, v))] += 1
        free[cand] -= 1
        free[u] -= cand.size
        if free[u] > 0:  # nobody else has stubs left: pair u's stubs with each other
            multi[(u, u)] += int(free[u]) // 2
            free[u] -= 2 * (int(free[u]) // 2)
    return multi


def correct_multigraph(
    multi: Counter[tuple[int, int]], pos: np.ndarray, *, max_partners: int = 64
) -> tuple[np.ndarray, int, int]:
    """Rewire surplus multi-edge copies and self-loops by degree-preserving endpoint swaps.

    For a bad copy (u, v), take an edge (x, y) with x among the nodes nearest to u such that
    (u, x) and (v, y) are new, distinct-endpoint edges, and replace the two by them. Returns the
    simple edge array (u < v), the number of rewired copies and the number dropped.
    """
    n = pos.shape[0]
    adj: dict[int, Counter[int]] = {i: Counter() for i in range(n)}
    bad: list[tuple[int, int]] = []
    for (u, v), c in multi.items():
        if u == v:
            bad.extend([(u, u)] * c)
            continue
        adj[u][v] += 1
        adj[v][u] += 1
        bad.extend([(u, v)] * (c - 1))  # adj keeps one copy; the surplus waits in `bad`
    tree = cKDTree(pos)
    rewired = dropped = 0
    for u, v in bad:
        done = False
        _, near = tree.query(pos[u], k=min(n, max_partners))
        for x in np.atleast_1d(near).tolist():
            if x in (u, v) or x in adj[u]:
                continue
            for y in list(adj[x]):
                if y in (u, v) or y in adj[v] or (u == v and y == x):
                    continue
                _drop(adj, x, y)
                _add(adj, u, x)
                _add(adj, v, y)
                done = True
                break
            if done:
                break
        if done:
            rewired += 1
        else:
            dropped += 1
    edges = [(u, v) for u in range(n) for v in adj[u] if u < v]
    arr = np.array(sorted(edges), dtype=np.int64).reshape(-1, 2)
    return arr, rewired, dropped


def _add(adj: dict[int, Counter[int]], u: int, v: int) -> None:
    adj[u][v] += 1
    adj[v][u] += 1


def _drop(adj: dict[int, Counter[int]], u: int, v: int) -> None:
    del adj[u][v], adj[v][u]


def synthetic_spatial_options(options: dict[str, Any]) -> dict[str, Any]:
    """Coerce CLI `--param` strings for `synthetic_spatial_graph` (unknown keys: PolicyError)."""
    casts: dict[str, Any] = {
        "density": str,
        "components": int,
        "spread": float,
        "path_sources": int,
        "attack_seeds": int,
        "utility": _bool,
        "attack": _bool,
    }
    out: dict[str, Any] = {}
    for key, value in options.items():
        if key not in casts:
            raise PolicyError(
                f"unknown synthetic-spatial parameter {key!r}; known: {', '.join(sorted(casts))}"
            )
        try:
            out[key] = casts[key](value) if isinstance(value, str) else value
        except ValueError as exc:
            raise PolicyError(f"synthetic-spatial parameter {key}={value!r}: {exc}") from exc
    return out


def _bool(value: str) -> bool:
    from privcheck.limits import as_bool

    return as_bool(value, "synthetic-spatial parameter")
