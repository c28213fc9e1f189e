"""What the exposure attack costs inside ``privcheck anonymize``, measured in the same run.

For every masking method, on the CASC Census file (1,080 × 13) and on a Gaussian-mixture table
of N records × 8 attributes, prints the anonymizer's elapsed time, the exposure attack's time
(``report.exposure.seconds``), their ratio, whether the attack sampled and the share it found.
The attack runs inside the anonymizer, so the ratio is attack / whole job of the same call.

Usage: python benchmarks/exposure_cost.py [--n 100000] [--quick]
(--quick: N = 20,000 and the Census file only for the slow fuzzy microaggregation)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from privcheck.pipeline.anonymize import anonymize

CENSUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "casc" / "census.csv"
METHODS = [
    ("mdav", {}),
    ("mdav-partitioned", {}),
    ("optimal-univariate", {}),
    ("fuzzy-microaggregation", {}),
    ("rank-swapping", {"p": 5}),
    ("rank-swapping-buckets", {"p": 5}),
    ("rank-swapping-distribution", {"p": 5}),
    ("noise", {"a": 0.1}),
]


def mixture(n: int, d: int = 8, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 5.0, size=(20, d))
    comp = rng.choice(20, size=n)
    x = centres[comp] + rng.normal(size=(n, d))
    return pd.DataFrame(np.round(x * 1000).astype(np.int64), columns=[f"x{j}" for j in range(d)])


def run(name: str, data: pd.DataFrame, skip: set[str]) -> None:
    policy = {
        "attributes": {c: {"role": "quasi_identifier"} for c in data.columns},
        "models": [{"model": "k-anonymity", "k": 3}],
    }
    print(f"\n{name}: {len(data):,} records × {data.shape[1]} attributes")
    head = f"{'anonymize s':>12}{'attack s':>10}{'ratio':>8}{'attacked':>11}{'share':>9}"
    print(f"{'method':<28}{head}")
    for method, params in METHODS:
        if method in skip:
            print(f"{method:<28}{'skipped':>12}")
            continue
        started = time.perf_counter()
        _, report = anonymize(data, policy, method, seed=1, **params)
        total = time.perf_counter() - started
        x = report.exposure
        print(
            f"{method:<28}{total:>12.2f}{x.seconds:>10.2f}{x.seconds / total:>8.2f}"
            f"{x.n_attacked:>11,}{x.reidentified_share:>9.3f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n = 20_000 if args.quick else args.n
    run("CASC Census", pd.read_csv(CENSUS), set())
    # fuzzy c-means costs O(n · n/k) per round: minutes at 100 k
    run("Gaussian mixture", mixture(n), {"fuzzy-microaggregation", "mdav"})


if __name__ == "__main__":
    main()
