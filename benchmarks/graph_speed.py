"""Speed of the graph privacy checks and the k-degree anonymizer on Barabási–Albert graphs.

Prints, in one run, for BA graphs with 10 000 and 100 000 nodes (m = 3):
- the k-neighbourhood and k-degree check times,
- the k-degree anonymization time (additions only, and additions + deletions),
and the naive baseline the k-neighbourhood check replaces: networkx isomorphism tests between
the neighbourhoods of all pairs of a 2 000-node sample, timed here and extrapolated to all
pairs of the full graph (n(n−1)/2 tests), with the ratio to the measured check. The sample's
isomorphism classes from the baseline are also compared with the check's classes.

    python benchmarks/graph_speed.py            # full run (a few minutes: the baseline is slow)
    python benchmarks/graph_speed.py --quick    # smoke run, seconds
"""

from __future__ import annotations

import argparse
import itertools
import time

import networkx as nx
import numpy as np

from privcheck.graph import (
    check_k_degree,
    check_k_neighbourhood,
    k_degree_anonymize,
    neighbourhood_classes,
)


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


def naive_pair_cost(graph: nx.Graph, sample: int, seed: int) -> tuple[float, bool, int, float]:
    """Per-pair seconds of all-pairs isomorphism on a node sample, class agreement, size, total."""
    rng = np.random.default_rng(seed)
    nodes = list(graph)
    picked = rng.choice(len(nodes), size=min(sample, len(nodes)), replace=False)
    start = time.perf_counter()
    subs = [nx.Graph(graph.subgraph(graph[nodes[i]])) for i in picked.tolist()]
    same = np.eye(len(subs), dtype=bool)
    for i, j in itertools.combinations(range(len(subs)), 2):
        same[i, j] = same[j, i] = nx.is_isomorphic(subs[i], subs[j])
    elapsed = time.perf_counter() - start
    pairs = len(subs) * (len(subs) - 1) / 2
    ours = neighbourhood_classes(graph)[picked]
    agree = bool((same == (ours[:, None] == ours[None, :])).all())
    return elapsed / pairs, agree, len(subs), elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small graphs, small sample")
    parser.add_argument("--sample", type=int, default=None, help="baseline sample size")
    parser.add_argument("--k", type=int, default=10, help="k for checks and anonymization")
    args = parser.parse_args()
    sizes = (2_000, 5_000) if args.quick else (10_000, 100_000)
    sample = args.sample or (200 if args.quick else 2_000)
    k = args.k

    graphs = {n: nx.barabasi_albert_graph(n, 3, seed=1) for n in sizes}
    per_pair, agree, s, spent = naive_pair_cost(graphs[sizes[0]], sample, seed=0)
    print(
        f"naive baseline: all pairs of a {s}-node sample of BA({sizes[0]}, 3): "
        f"{s * (s - 1) // 2} isomorphism tests in {spent:.1f} s = {per_pair * 1e6:.1f} µs/pair; "
        f"classes agree with the check: {agree}"
    )
    header = (
        f"{'nodes':>8} {'edges':>8} {'k-nbhd':>8} {'achieved':>8} {'k-degree':>9} "
        f"{'anon+':>7} {'added':>6} {'anon±':>7} {'±edits':>7} {'naive all-pairs (extrap.)':>26} "
        f"{'extrap. ratio':>13}"
    )
    print(header)
    for n, g in graphs.items():
        nb, t_nb = timed(check_k_neighbourhood, g, k)
        _, t_deg = timed(check_k_degree, g, k)
        add, t_add = timed(k_degree_anonymize, g, k, utility=False)
        both, t_both = timed(k_degree_anonymize, g, k, deletions=True, utility=False)
        naive = per_pair * n * (n - 1) / 2
        edits = both.report.edges_added + both.report.edges_removed
        print(
            f"{n:>8} {g.number_of_edges():>8} {t_nb:>7.2f}s {nb.value:>8} {t_deg:>8.2f}s "
            f"{t_add:>6.2f}s {add.report.edges_added:>6} {t_both:>6.2f}s {edits:>7} "
            f"{naive:>25.0f}s {naive / t_nb:>12.0f}×"
        )
    print(
        "k-nbhd: k-neighbourhood check; achieved: its achieved k; anon+: k-degree anonymization "
        "by additions (edges added); anon±: by additions and deletions (edges changed); "
        "extrap. ratio: the naive time extrapolated from the sample's measured per-pair cost "
        "(not measured on the whole graph) / the measured k-nbhd time."
    )


if __name__ == "__main__":
    main()
