"""k-degree anonymity check (Liu & Terzi 2008).

An adversary who knows a target's number of contacts picks, in the released graph, the nodes with
that degree. The graph is k-degree anonymous when every degree value that occurs is shared by at
least k nodes, so the target hides among at least k candidates. The equivalence classes are the
degree values: one `np.bincount` over the degree array gives every class size.
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from privcheck.graph.arrays import require_simple_graph, validate_k
from privcheck.graph.result import MAX_VIOLATORS, GraphModelResult, build_result

MODEL = "k-degree"


def degree_array(graph: nx.Graph) -> np.ndarray:
    """Degrees in `graph`'s node order as an int64 array."""
    return np.fromiter((d for _, d in graph.degree()), dtype=np.int64, count=len(graph))


def check_k_degree(
    graph: nx.Graph, k: int, *, max_violators: int = MAX_VIOLATORS
) -> GraphModelResult:
    """Check k-degree anonymity of an undirected graph.

    Returns the achieved k (the fewest nodes sharing a degree value), the degree values shared by
    fewer than k nodes (`violators[i].values == {"degree": d}`) and their nodes, smallest classes
    first.
    """
    require_simple_graph(graph)
    k = validate_k(k, graph.number_of_nodes(), at_most_n=False)
    degrees = degree_array(graph)
    # class id = degree value itself: bincount sizes are the class sizes, absent degrees are 0
    return build_result(
        MODEL,
        k,
        degrees,
        list(graph),
        lambda d: {"degree": int(d)},
        max_violators=max_violators,
    )


def achieved_k_degree(degrees: np.ndarray) -> int:
    """Smallest number of nodes sharing a degree value (the k the degree sequence achieves)."""
    counts = np.bincount(np.asarray(degrees, dtype=np.int64))
    return int(counts[counts > 0].min())
