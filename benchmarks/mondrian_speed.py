"""Mondrian on 1 M resampled Adult rows against one full check of the same table (issue 15:
at most 5× the check's time).

Run from the repository root::

    python benchmarks/mondrian_speed.py [--rows N] [--runs R] [--policy full|k5] [--relaxed]

Adult (30,162 rows) is resampled with replacement to ``--rows`` rows (seed 0), so the rows
have Adult's distinct quasi-identifier combinations and their frequencies. ``k5`` is the 8
usual quasi-identifiers with 5-anonymity (salary-class sensitive); ``full`` is the demo policy
(k = 5, distinct 2-diversity and 0.2-closeness of salary-class). Both sides start from the
DataFrame in memory: ``privcheck.check`` (encoding, class table, every model, the report) and
``anonymize(..., "mondrian")`` (encoding, class table, partitioning, the release of every row
with its labels, the release's re-check, the report). Times are wall-clock seconds, best of
``--runs`` runs each, alternated; the ratio is printed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import privcheck  # noqa: E402
from privcheck.io import read_table  # noqa: E402
from privcheck.pipeline.anonymize import anonymize  # noqa: E402
from privcheck.policy import load_policy  # noqa: E402

ADULT = ROOT / "privcheck" / "data" / "adult"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--policy", choices=["full", "k5"], default="k5")
    ap.add_argument("--relaxed", action="store_true", help="Mondrian's relaxed partitioning")
    args = ap.parse_args()
    adult = read_table(ADULT / "adult.csv")
    rng = np.random.default_rng(0)
    frame = adult.iloc[rng.integers(0, len(adult), args.rows)].reset_index(drop=True)
    policy = load_policy(ADULT / "policy.yaml")
    if args.policy == "k5":
        base = policy.base_dir
        policy = policy.model_copy(update={"models": [policy.models[0]]})
        policy._base_dir = base
    check_best = mondrian_best = float("inf")
    report = None
    for _ in range(args.runs):
        t = time.perf_counter()
        verdict = privcheck.check(frame, policy)
        check_best = min(check_best, time.perf_counter() - t)
        t = time.perf_counter()
        _, report = anonymize(frame, policy, "mondrian", seed=0, relaxed=args.relaxed)
        mondrian_best = min(mondrian_best, time.perf_counter() - t)
    assert report is not None and report.check.passed
    models = ", ".join(m.model for m in policy.models)
    kind = "relaxed" if args.relaxed else "strict"
    print(f"Adult resampled to {args.rows:,} rows, 8 QIs, {models}; {kind} Mondrian")
    print(f"  check (input):        {check_best:7.3f} s   {verdict.n_classes} classes")
    print(
        f"  mondrian (anonymize): {mondrian_best:7.3f} s   {report.check.n_classes} classes "
        f"(partitioning {report.search_seconds:.3f} s, {report.nodes_evaluated} splits tried)"
    )
    print(f"  ratio mondrian / check: {mondrian_best / check_best:.2f} (target ≤ 5)")


if __name__ == "__main__":
    main()
