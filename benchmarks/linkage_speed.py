"""Distance-based record linkage at scale: privcheck's DBRL against scipy's cKDTree.

    python benchmarks/linkage_speed.py            # 100 000 intruder records × 100 000 released
    python benchmarks/linkage_speed.py --quick    # 5 000 × 5 000 smoke run

The goal: linking 100 k intruder records to a 100 k release without ever building the
100 k × 100 k distance matrix (80 GB in float64), at a cost comparable to a plain
nearest-neighbour query. Every method runs in its own subprocess on the same generated data, so
its time and its peak memory (resident set size above the process's level after loading the
data, which counts C++ allocations too) are measured alike:

- ``privcheck brute``: ``dbrl(engine="brute")`` — blocked matrix products over chunks of
  intruder records, exact anonymity sets (all masked records at the minimal distance);
- ``privcheck kdtree``: ``dbrl(engine="kdtree")`` — a k-d tree query plus a ball count at the
  nearest distance for the anonymity sets;
- ``cKDTree NN``: the baseline, ``scipy.spatial.cKDTree(masked).query(intruder, k=1)`` — the
  nearest neighbour only (no tie sets, no per-attribute figures).

Both privcheck engines also compute the per-attribute univariate rates; the baseline does not.
Ratios > 1 mean privcheck is slower than the baseline in the same run.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def make_data(n: int, dims: int, noise: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Correlated Gaussian originals and a release masked by additive noise."""
    rng = np.random.default_rng(seed)
    mix = rng.normal(size=(dims, dims)) / np.sqrt(dims) + np.eye(dims)
    x = rng.normal(size=(n, dims)) @ mix
    xm = x + rng.normal(scale=noise, size=x.shape) * x.std(axis=0)
    return x, xm


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: kB


def worker(method: str, n: int, dims: int, noise: float, seed: int) -> dict:
    x, xm = make_data(n, dims, noise, seed)
    from privcheck.risk.linkage.distance import dbrl

    if method == "ckdtree":
        from scipy.spatial import cKDTree

        # the same standardisation DBRL applies, done before the clock starts
        za = (x - x.mean(0)) / x.std(0, ddof=1)
        zb = (xm - xm.mean(0)) / xm.std(0, ddof=1)
        base = _rss_mb()
        t0 = time.perf_counter()
        _, idx = cKDTree(zb).query(za, k=1, workers=-1)
        seconds = time.perf_counter() - t0
        rate = float(np.mean(idx == np.arange(n)))
    else:
        base = _rss_mb()
        t0 = time.perf_counter()
        res = dbrl(x, xm, engine=method)
        seconds = time.perf_counter() - t0
        rate = res.reidentification_rate
    return {"seconds": seconds, "peak_mb": max(_rss_mb() - base, 0.0), "rate": rate}


def run(method: str, args: argparse.Namespace) -> dict:
    cmd = [
        sys.executable,
        __file__,
        "--worker",
        method,
        "--n",
        str(args.n),
        "--dims",
        str(args.dims),
        "--noise",
        str(args.noise),
        "--seed",
        str(args.seed),
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="5 000 × 5 000 smoke run")
    ap.add_argument("--n", type=int, default=100_000, help="records in each file")
    ap.add_argument("--dims", type=int, default=6, help="attributes")
    ap.add_argument("--noise", type=float, default=0.5, help="noise sd as a share of each sd")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--methods", default="brute,kdtree,ckdtree")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.quick:
        args.n = 5_000
    if args.worker:
        print(json.dumps(worker(args.worker, args.n, args.dims, args.noise, args.seed)))
        return

    full_gb = args.n * args.n * 8 / 2**30
    print(
        f"DBRL {args.n:,} intruder records × {args.n:,} released, {args.dims} attributes "
        f"(a full distance matrix would take {full_gb:,.1f} GiB)"
    )
    results = {m: run(m, args) for m in args.methods.split(",")}
    base = results.get("ckdtree")
    names = {"brute": "privcheck brute", "kdtree": "privcheck kdtree", "ckdtree": "cKDTree NN"}
    print(f"{'method':<18}{'seconds':>10}{'peak MB':>10}{'rate':>9}{'× baseline':>12}")
    for m, r in results.items():
        ratio = f"{r['seconds'] / base['seconds']:.2f}" if base else "-"
        print(
            f"{names.get(m, m):<18}{r['seconds']:>10.2f}{r['peak_mb']:>10.0f}"
            f"{r['rate']:>9.4f}{ratio:>12}"
        )
    if base:
        agree = all(abs(r["rate"] - base["rate"]) < 1e-9 for r in results.values())
        print(f"re-identification rates agree with the baseline: {agree}")


if __name__ == "__main__":
    main()
