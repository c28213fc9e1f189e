"""The disclosure-risk experiments of the risk issue on the CASC Census file (1080 × 13).

    python benchmarks/risk_experiments.py            # both tables, bilinear on 400 records
    python benchmarks/risk_experiments.py --quick    # bilinear on 150 records
    python benchmarks/risk_experiments.py --seeds 3  # rank swapping averaged over 3 masks

1. Rank swapping (plain, p = 2 … 20 %) on all 13 attributes (then on 4); the intruder holds
   the whole original file (the worst case). RSLD = the transparency attack (the intruder knows p),
   against plain Euclidean DBRL, beside Nin, Herranz & Torra 2008's RSLD on Census (77.7 % at
   p = 2, 10.9 % at p = 20; their intermediate values are not reproduced here). Absolute
   figures differ with the random swaps and the attribute set.
2. "M4-33": the first 400 records of 4 attributes microaggregated by MDAV in 2 groups of 2
   attributes with k = 3; DBRL (Euclidean, Mahalanobis) against the worst-case learned distances
   (MILP, scipy/HiGHS), with solve times. Rates are the anonymity-set form (deterministic).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from privcheck.masking import mdav, rank_swap
from privcheck.risk import dbrl, learned_distance, rank_swap_transparency

CENSUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "casc" / "census.csv"
PUBLISHED_RSLD = {2: 77.7, 20: 10.9}
M4 = ["AFNLWGT", "AGI", "EMCONTRB", "FEDTAX"]


def rank_swap_table(census: pd.DataFrame, seeds: int) -> None:
    n_attr = census.shape[1]
    print(f"\nRank swapping on Census ({n_attr} attributes, B = X), % of records re-identified")
    print(
        f"{'p':>3}  {'RSLD':>6}  {'certain':>7}  {'|cand|':>6}  {'DBRL':>6}  {'published RSLD':>14}"
    )
    for p in range(2, 21, 2):
        rows = []
        for seed in range(seeds):
            masked = rank_swap(census, p, seed=seed).masked
            t = rank_swap_transparency(census, masked, p=p)
            d = dbrl(census, masked)
            rows.append(
                (
                    t.reidentification_rate,
                    t.certain_rate,
                    t.figures["mean_candidate_set_size"],
                    d.reidentification_rate,
                )
            )
        r, c, size, d = np.mean(rows, axis=0)
        pub = PUBLISHED_RSLD.get(p)
        print(
            f"{p:>3}  {100 * r:>6.1f}  {100 * c:>7.1f}  {size:>6.2f}  {100 * d:>6.1f}  "
            f"{'' if pub is None else f'{pub:.1f}':>14}"
        )


def m4_33_table(census: pd.DataFrame, n_bilinear: int) -> None:
    x = census[M4].iloc[:400].reset_index(drop=True)
    masked = mdav(x, 3, attribute_groups=[M4[:2], M4[2:]]).masked
    print(f"\nM4-33 on Census: {M4}, groups {M4[:2]} / {M4[2:]}, k = 3, 400 records")
    print(
        f"{'method':<24} {'records':>7} {'linked %':>9} {'certain %':>9} {'optimal':>7} "
        f"{'seconds':>8}"
    )

    def row(name, fn, n=400):
        t0 = time.perf_counter()
        res = fn()
        sec = time.perf_counter() - t0
        opt = res.figures.get("optimal", "")
        print(
            f"{name:<24} {n:>7} {100 * res.anonymity_set_rate:>9.2f} "
            f"{100 * res.certain_rate:>9.2f} {opt!s:>7} {sec:>8.2f}"
        )

    row("DBRL Euclidean", lambda: dbrl(x, masked))
    row("DBRL Mahalanobis", lambda: dbrl(x, masked, metric="mahalanobis"))
    for fam in ("weighted_mean", "owa", "choquet"):
        row(f"learned {fam}", lambda fam=fam: learned_distance(x, masked, fam, time_limit=300))
    xb, mb = x.iloc[:n_bilinear], None
    if n_bilinear < 400:
        mb = mdav(xb, 3, attribute_groups=[M4[:2], M4[2:]]).masked
        print(f"(bilinear and its comparators on the first {n_bilinear} records, masked alone)")
        row("DBRL Euclidean", lambda: dbrl(xb, mb), n_bilinear)
        row("DBRL Mahalanobis", lambda: dbrl(xb, mb, metric="mahalanobis"), n_bilinear)
        row("learned weighted_mean", lambda: learned_distance(xb, mb, "weighted_mean"), n_bilinear)
    else:
        mb = masked
    row(
        "learned bilinear",
        lambda: learned_distance(xb, mb, "bilinear", time_limit=300),
        n_bilinear,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="bilinear on 150 records only")
    ap.add_argument("--seeds", type=int, default=1, help="rank-swap masks averaged per p")
    args = ap.parse_args()
    census = pd.read_csv(CENSUS)
    rank_swap_table(census, args.seeds)
    rank_swap_table(census[M4], args.seeds)  # an intruder knowing 4 attributes
    m4_33_table(census, 150 if args.quick else 400)


if __name__ == "__main__":
    main()
