"""k-neighbourhood anonymity check (Zhou & Pei 2008).

The adversary knows a target's neighbours and the ties among them. Following Zhou & Pei, the
neighbourhood of u is the subgraph induced by u's neighbours, Neighbor(u) = G[N(u)], u itself
excluded; with node labels, isomorphisms must preserve them. u is k-anonymous when at least k−1
other nodes have a neighbourhood isomorphic to u's, and the graph when every node is.

Excluding u loses nothing for unlabelled graphs: the "ego network" G[N(u) ∪ {u}] is the cone over
Neighbor(u) (u joined to every vertex), and two cones are isomorphic iff their bases are (any two
universal vertices are swapped by an automorphism, so deleting one gives the same graph). With
labels, u's own label is not part of its neighbourhood, as in the paper.

Exact isomorphism is expensive, so nodes are refined in stages and only ambiguous groups reach
the next, costlier stage:
1. exact invariants, vectorised: neighbourhood size, edge count (triangles at u) and the sorted
   sequence of degrees inside the neighbourhood (with labels: sorted (label, inner degree) pairs).
   A bucket of one node is a class of one; no hashing needed.
2. buckets whose invariants provably determine the isomorphism class form one class each
   (see `_invariants_decide`), with no graph built at all — this covers almost all low-degree
   nodes of sparse graphs.
3. the remaining buckets with more than one member are split by networkx's Weisfeiler–Lehman
   hash (with labels) and then into isomorphism classes with networkx isomorphism, comparing each
   node with one representative per class found so far.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd

from privcheck.errors import DataError, listing
from privcheck.graph.arrays import edge_triangle_counts, graph_arrays, validate_k
from privcheck.graph.result import MAX_VIOLATORS, GraphModelResult, build_result
from privcheck.limits import ISOMORPHISM_STEPS

MODEL = "k-neighbourhood"


def neighbourhood_classes(graph: nx.Graph, label: str | None = None) -> np.ndarray:
    """Isomorphism class id (0..c-1) of every node's neighbourhood, in `graph`'s node order.

    Two nodes get the same id iff the subgraphs induced by their neighbours are isomorphic
    (preserving the node attribute `label` when given).
    """
    ga = graph_arrays(graph)
    n = ga.n
    adj = ga.adjacency
    codes = _label_codes(graph, ga.nodes, label)

    # inner degree of each neighbour v of u = |N(u) ∩ N(v)|, aligned with adj's CSR layout:
    # (A + support) has A's sparsity pattern, its values are 1 + common-neighbour count
    support = edge_triangle_counts(adj)
    aligned = (adj + support).tocsr()
    aligned.sort_indices()
    inner = aligned.data - 1
    row = np.repeat(np.arange(n), ga.degrees)
    size = ga.degrees
    n_edges = np.bincount(row, weights=inner, minlength=n).astype(np.int64) // 2

    if codes is None:
        vals = inner
    else:  # one integer per (label, inner degree) pair
        vals = codes[aligned.indices] * (int(inner.max(initial=0)) + 1) + inner
    order = np.lexsort((vals, row))  # row segments stay where CSR has them, sorted inside
    vals = vals[order]
    max_inner = np.zeros(n, np.int64)
    min_inner = np.zeros(n, np.int64)
    has = size > 0
    if inner.size:
        starts = aligned.indptr[:-1][has]
        max_inner[has] = np.maximum.reduceat(inner, starts)
        min_inner[has] = np.minimum.reduceat(inner, starts)

    bucket = _exact_buckets(size, n_edges, vals, aligned.indptr)
    steps = _Steps(ISOMORPHISM_STEPS.value())
    bucket_size = np.bincount(bucket)
    decided = _invariants_decide(size, n_edges, max_inner, min_inner, labelled=codes is not None)
    # a bucket is ambiguous if it has several members whose invariants do not settle isomorphism
    # (all members of a bucket share the invariants, so `decided` is constant per bucket)
    ambiguous = (bucket_size[bucket] > 1) & ~decided
    classes = bucket.copy()
    if ambiguous.any():
        next_id = int(bucket.max()) + 1
        todo = np.flatnonzero(ambiguous)
        todo = todo[np.argsort(bucket[todo], kind="stable")]
        groups = np.split(todo, np.flatnonzero(np.diff(bucket[todo])) + 1)
        for members in groups:
            next_id = _refine_bucket(graph, ga.nodes, members, label, classes, next_id, steps)
    return np.unique(classes, return_inverse=True)[1]


def check_k_neighbourhood(
    graph: nx.Graph,
    k: int,
    *,
    label: str | None = None,
    max_violators: int = MAX_VIOLATORS,
) -> GraphModelResult:
    """Check k-neighbourhood anonymity (Zhou & Pei 2008) of an undirected graph.

    `label` names a node attribute the adversary also sees on the neighbours (e.g. "label" as set
    by `read_graph(..., labels=...)`); None checks structure only. Returns the achieved k (the
    smallest isomorphism class), the classes smaller than k with their nodes; each violator's
    `values` give the neighbourhood's node and edge counts.
    """
    k = validate_k(k, graph.number_of_nodes(), at_most_n=False)
    classes = neighbourhood_classes(graph, label)
    degrees = np.fromiter((d for _, d in graph.degree()), np.int64, count=len(graph))
    nodes = list(graph)
    first = np.full(int(classes.max()) + 1, -1, np.int64)
    first[classes[::-1]] = np.arange(len(nodes))[::-1]  # first member of each class

    def describe(c: int) -> dict[str, Any]:
        u = nodes[int(first[c])]
        sub = graph.subgraph(graph[u])
        return {"neighbourhood_nodes": int(degrees[first[c]]), "neighbourhood_edges": sub.size()}

    result = build_result(MODEL, k, classes, nodes, describe, max_violators=max_violators)
    if label is not None:
        result.params["label"] = label
    return result


def _label_codes(graph: nx.Graph, nodes: list[Any], label: str | None) -> np.ndarray | None:
    """Integer code of each node's label (factorised), or None when unlabelled."""
    if label is None:
        return None
    values = [graph.nodes[u].get(label) for u in nodes]
    missing = [u for u, v in zip(nodes, values, strict=True) if v is None or v != v]
    if missing:
        raise DataError(
            f"{len(missing)} node(s) have no {label!r} attribute "
            f"({listing(missing, 5, fmt=repr)}); give every "
            "node a label, or check without labels (label=None)"
        )
    unhashable = [u for u, v in zip(nodes, values, strict=True) if not isinstance(v, Hashable)]
    if unhashable:
        raise DataError(
            f"node label {label!r} must be a hashable value (str, int, ...); nodes "
            f"{listing(unhashable, 5, fmt=repr)} have unhashable labels"
        )
    return pd.factorize(pd.Series(values, dtype=object))[0].astype(np.int64)


def _exact_buckets(
    size: np.ndarray, n_edges: np.ndarray, vals: np.ndarray, indptr: np.ndarray
) -> np.ndarray:
    """Bucket id per node: equal iff (size, edge count, sorted neighbour values) are equal.

    Nodes are taken one neighbourhood size at a time (a loop over distinct degrees, not nodes):
    all nodes of size s have exactly s sorted values, so they form an (count × s+1) matrix whose
    distinct rows are the buckets. When a row fits a mixed-radix int64 key, a 1-D np.unique on
    the keys replaces the much slower row-wise unique.
    """
    n = size.size
    bucket = np.empty(n, np.int64)
    offset = 0
    by_size = np.argsort(size, kind="stable")
    sizes, starts = np.unique(size[by_size], return_index=True)
    ends = np.append(starts[1:], n)
    for s, lo, hi in zip(sizes.tolist(), starts.tolist(), ends.tolist(), strict=True):
        members = by_size[lo:hi]
        rows = np.empty((members.size, s + 1), np.int64)
        rows[:, 0] = n_edges[members]
        if s:
            rows[:, 1:] = vals[indptr[members][:, None] + np.arange(s)]
        base = int(rows.max(initial=0)) + 1
        if (s + 1) * np.log2(max(base, 2)) < 62:
            key = rows @ (base ** np.arange(s, -1, -1, dtype=np.int64))
            inverse = np.unique(key, return_inverse=True)[1]
        else:
            inverse = np.unique(rows, axis=0, return_inverse=True)[1].ravel()
        bucket[members] = offset + inverse
        offset += int(inverse.max()) + 1
    return bucket


def _invariants_decide(
    size: np.ndarray,
    n_edges: np.ndarray,
    max_inner: np.ndarray,
    min_inner: np.ndarray,
    *,
    labelled: bool,
) -> np.ndarray:
    """True where (size, edge count, sorted degree sequence) fixes the isomorphism class.

    Unlabelled, the degree sequence determines the graph up to isomorphism when
    - it has at most 4 vertices (the 11 graphs on 4 vertices have 11 distinct degree sequences),
    - it has at most 3 edges (the graphs with ≤ 3 edges — K3, P4, K1,3, P3+K2, 3K2, P3, 2K2, K2 —
      have distinct degree sequences, isolated vertices being the zeros),
    - every degree is ≤ 1 (a matching plus isolated vertices),
    - or the same holds for the complement (≤ 3 missing edges, or every degree ≥ size − 2),
      since complementation is a bijection on isomorphism classes.
    With labels the invariant carries the multiset of labels, which fixes the labelled graph only
    when it is empty or complete. tests/graph/test_kneighbourhood.py checks these rules against
    every graph of networkx's graph atlas.
    """
    full = size * (size - 1) // 2
    if labelled:
        return (n_edges == 0) | (n_edges == full)
    return (
        (size <= 4)
        | (n_edges <= 3)
        | (max_inner <= 1)
        | (full - n_edges <= 3)
        | (min_inner >= size - 2)
    )


class _Steps:
    """The isomorphism tests' budget (``ISOMORPHISM_STEPS``; 0: none): VF2 is exponential in
    the worst case, and neighbourhoods that simple invariants and the Weisfeiler–Lehman hash
    cannot tell apart (random regular graphs of one size and degree) are exactly that case — 20
    nodes, each joined to its own random 3-regular graph on 40 nodes (2,000 edges), took 19 s of
    CPU. Candidate pairs are counted as VF2 tries them, so the check stops within the budget."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.used = 0

    def spend(self) -> None:
        self.used += 1
        if self.budget and self.used > self.budget:
            ISOMORPHISM_STEPS.stop(
                "telling the graph's neighbourhoods apart (alike but for their wiring, as "
                "regular graphs of one size are) takes",
                "check a smaller graph",
            )

    def isomorphic(self, g1: nx.Graph, g2: nx.Graph, node_match: Any) -> bool:
        self.spend()
        return _CountingMatcher(g1, g2, node_match, self).is_isomorphic()


class _CountingMatcher(nx.isomorphism.GraphMatcher):
    """networkx's VF2 matcher, spending one step per candidate pair it considers."""

    def __init__(self, g1: nx.Graph, g2: nx.Graph, node_match: Any, steps: _Steps) -> None:
        super().__init__(g1, g2, node_match=node_match)
        self._steps = steps

    def syntactic_feasibility(self, g1_node: Any, g2_node: Any) -> bool:
        self._steps.spend()
        return super().syntactic_feasibility(g1_node, g2_node)


def _refine_bucket(
    graph: nx.Graph,
    nodes: list[Any],
    members: np.ndarray,
    label: str | None,
    classes: np.ndarray,
    next_id: int,
    steps: _Steps,
) -> int:
    """Split one invariant bucket into isomorphism classes, writing ids into `classes`; each
    comparison and each candidate pair it tries is a step of ``steps``."""
    subs = [nx.Graph(graph.subgraph(graph[nodes[i]])) for i in members.tolist()]
    with warnings.catch_warnings():
        # networkx warns that unlabelled hashes changed in 3.5; they are only compared within
        # this call, so the version does not matter
        warnings.simplefilter("ignore", UserWarning)
        hashes = [nx.weisfeiler_lehman_graph_hash(h, node_attr=label) for h in subs]
    node_match = None if label is None else nx.isomorphism.categorical_node_match(label, None)
    by_hash: dict[str, list[tuple[nx.Graph, int]]] = {}
    for i, (h, key) in enumerate(zip(subs, hashes, strict=True)):
        reps = by_hash.setdefault(key, [])
        for rep, cid in reps:
            if steps.isomorphic(h, rep, node_match):
                classes[members[i]] = cid
                break
        else:
            reps.append((h, next_id))
            classes[members[i]] = next_id
            next_id += 1
    return next_id
