"""Integer-indexed views of a networkx graph, shared by the graph checks and anonymizers.

networkx stores adjacency as dicts of dicts keyed by arbitrary hashable node ids, which is the
right interface for users but the wrong one for vectorised work. Every algorithm here converts the
graph once into node positions 0..n-1, an edge array and a CSR adjacency matrix, does its numeric
work on those, and maps positions back to node ids only for the few records it reports.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np
import scipy.sparse as sp

from privcheck.errors import DataError, PolicyError, listing


@dataclass(frozen=True)
class GraphArrays:
    """A simple undirected graph as arrays.

    `nodes[i]` is the node id at position i; `edges` holds each undirected edge once as a pair of
    positions (u < v); `adjacency` is the symmetric 0/1 CSR matrix; `degrees` its row sums.
    """

    nodes: list[Any]
    edges: np.ndarray
    adjacency: sp.csr_array
    degrees: np.ndarray

    @property
    def n(self) -> int:
        return len(self.nodes)


def graph_arrays(graph: nx.Graph) -> GraphArrays:
    """Convert a simple undirected networkx graph to `GraphArrays` (positions in `graph` order)."""
    require_simple_graph(graph)
    nodes = list(graph)
    n = len(nodes)
    index = {node: i for i, node in enumerate(nodes)}
    m = graph.number_of_edges()
    flat = np.fromiter(
        (index[x] for edge in graph.edges() for x in edge), dtype=np.int64, count=2 * m
    )
    edges = flat.reshape(m, 2)
    edges = np.sort(edges, axis=1)
    adjacency = adjacency_from_edges(edges, n)
    degrees = np.bincount(edges.ravel(), minlength=n).astype(np.int64)
    return GraphArrays(nodes=nodes, edges=edges, adjacency=adjacency, degrees=degrees)


def require_simple_graph(graph: nx.Graph) -> None:
    """Raise DataError unless `graph` is a simple undirected graph (no self-loops)."""
    if graph.is_directed() or graph.is_multigraph():
        raise DataError(
            "graph checks need a simple undirected graph; got a "
            f"{type(graph).__name__}. Load it with privcheck.graph.io.read_graph (which treats "
            "directed input as undirected and reports what it merged) or pass "
            "nx.Graph(graph.to_undirected())"
        )
    loops = list(nx.nodes_with_selfloops(graph))
    if loops:
        raise DataError(
            f"graph has {len(loops)} self-loop(s) (at nodes {listing(loops, 5, fmt=repr)}); "
            "remove them, or load "
            "it with read_graph(..., normalise=True), which drops and counts them"
        )


def adjacency_from_edges(edges: np.ndarray, n: int) -> sp.csr_array:
    """Symmetric 0/1 CSR adjacency (int64) from an (m, 2) array of distinct undirected edges."""
    rows = np.concatenate([edges[:, 0], edges[:, 1]])
    cols = np.concatenate([edges[:, 1], edges[:, 0]])
    data = np.ones(rows.size, dtype=np.int64)
    adj = sp.csr_array((data, (rows, cols)), shape=(n, n))
    adj.sort_indices()
    return adj


def edge_triangle_counts(adjacency: sp.csr_array) -> sp.csr_array:
    """Per-edge common-neighbour counts: entry (u, v) = |N(u) ∩ N(v)| for every edge (u, v).

    This is the degree of u inside the neighbourhood of v (and vice versa), the building block of
    both the k-neighbourhood invariants and the clustering coefficient. Computed as (A·A) ∘ A,
    one sparse product; entries of edges with no common neighbour are explicit zeros removed.
    """
    support = (adjacency @ adjacency).multiply(adjacency).tocsr()
    support.eliminate_zeros()
    support.sort_indices()
    return support


def validate_k(k: object, n: int, what: str = "nodes", *, at_most_n: bool = True) -> int:
    """Check that k is an integer in [2, n] and return it; PolicyError otherwise.

    A check passes ``at_most_n=False``: a graph too small for k is a failed check, not bad input.
    """
    if isinstance(k, bool) or not isinstance(k, int | np.integer):
        raise PolicyError(f"k must be an integer; got k={k!r}")
    if n < 2:
        raise DataError(f"graph has {n} {what}; k-anonymity needs at least 2")
    if int(k) < 2 or (at_most_n and int(k) > n):
        raise PolicyError(f"k must be between 2 and the number of {what} ({n}); got k={k}")
    return int(k)
