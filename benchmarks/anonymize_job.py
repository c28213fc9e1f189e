"""The whole anonymization job on 1 M Adult-like rows: where the time goes besides the search.

    python benchmarks/anonymize_job.py                       # 1 M rows, DataFly, demo policy
    python benchmarks/anonymize_job.py --rows 200000 --algorithm mingen

The rows are Adult's 30,162 records resampled (seeded) to N, in memory as ``read_table`` gives
them (reading the file is timed apart: it is the same for every tool). The demo policy
(``privcheck/data/adult/policy.yaml``: 8 quasi-identifiers with ARX's hierarchies, salary-class
sensitive, k-anonymity, distinct l-diversity and t-closeness, 1 % suppression).

Printed, each phase timed on its own (wall seconds, one run on a shared machine):

- encode: the DataFrame to integer codes against the hierarchies;
- search: the algorithm's lattice search (``report.search_seconds``);
- chosen node: the class table of the chosen node counted from the rows, and its verdict;
- release: the kept rows chosen and shuffled as row numbers, then each column built once;
- re-check: the release checked from codes (its distinct rows with their counts);
- write: the release to CSV and to Parquet.

Then ``anonymize()`` end to end (one call: encode, search, release, re-check, report) plus the
write, and its ratio to search + write — the target is at most 3×: the job should cost little
beyond the search and the unavoidable write. For comparison, in the same run, what the release
and re-check cost the old way (strings materialised in input order and then shuffled; the release's
strings re-encoded for the re-check).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from privcheck.encoding import encode  # noqa: E402
from privcheck.engines.pandas_engine import materialise  # noqa: E402
from privcheck.engines.recheck import recheck, recheck_codes  # noqa: E402
from privcheck.io import read_table, write_table  # noqa: E402
from privcheck.pipeline.anonymize import anonymize  # noqa: E402
from privcheck.plugins import anonymizer_registry  # noqa: E402
from privcheck.policy import load_policy  # noqa: E402

ADULT = ROOT / "privcheck" / "data" / "adult"


def clock(fn, *args, **kwargs):
    t = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t


def old_release(data, encoded, node, kept, policy, seed: int):
    """The release as materialised before: every row's strings in input order, then the rows
    permuted (for the same-run comparison only)."""
    release, _ = materialise(
        data, encoded, node, np.ones(len(data), dtype=bool), policy, keep_order=True
    )
    rows = np.random.default_rng(seed).permutation(np.flatnonzero(kept))
    return release.iloc[rows].reset_index(drop=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--algorithm", default="datafly")
    parser.add_argument("--policy", type=Path, default=ADULT / "policy.yaml")
    args = parser.parse_args()

    adult = read_table(ADULT / "adult.csv")
    rng = np.random.default_rng(1)
    frame = adult.iloc[rng.integers(0, len(adult), args.rows)].reset_index(drop=True)
    policy = load_policy(args.policy)
    algorithm = anonymizer_registry()[args.algorithm]()
    print(
        f"{args.rows:,} Adult-like rows, {args.algorithm}, {args.policy.name}; "
        f"{os.cpu_count()} cores; wall seconds"
    )
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "input.csv"
        write_table(frame, source)
        _, t_read = clock(read_table, source)
        print(f"  (reading the input CSV: {t_read:.2f} s — not part of the job below)")

        encoded, t_encode = clock(encode, frame, policy)
        choice, t_choose = clock(algorithm.choose, encoded, policy)
        t_search = choice.search_seconds
        kept = choice.kept_classes[choice.table.record_class]
        (release, _), t_release = clock(
            materialise, frame, encoded, choice.node, kept, policy, seed=0
        )
        _, t_check = clock(recheck_codes, frame, encoded, choice.table, kept, policy)
        _, t_csv = clock(write_table, release, Path(tmp) / "release.csv")
        _, t_parquet = clock(write_table, release, Path(tmp) / "release.parquet")
        phases = {
            "encode": t_encode,
            "search": t_search,
            "chosen node (count + verdict)": t_choose - t_search,
            "release (shuffle + materialise)": t_release,
            "re-check (from codes)": t_check,
            "write CSV": t_csv,
            "write Parquet": t_parquet,
        }
        for name, seconds in phases.items():
            print(f"  {name:34s} {seconds:6.2f} s")
        print(
            f"  node {dict(zip(encoded.qi_names, choice.node, strict=True))}, "
            f"{len(release):,} rows released"
        )

        (release2, report), t_job = clock(anonymize, frame, policy, args.algorithm)
        for fmt in ("csv", "parquet"):
            _, t_w = clock(write_table, release2, Path(tmp) / f"job.{fmt}")
            total, essential = t_job + t_w, report.search_seconds + t_w
            print(
                f"  end to end, {fmt}: anonymize() {t_job:.2f} s (its search "
                f"{report.search_seconds:.2f} s) + write {t_w:.2f} s = {total:.2f} s; "
                f"search + write {essential:.2f} s → {total / essential:.1f}× (target ≤ 3×)"
            )

        print("  same run, the old way (for comparison):")
        old, t_old = clock(old_release, frame, encoded, choice.node, kept, policy, seed=0)
        print(f"    release: strings in input order, then shuffled  {t_old:6.2f} s")
        suppressed = np.zeros(len(old), dtype=bool)
        _, t_old_check = clock(recheck, old, suppressed, policy)
        print(f"    re-check: the release's strings re-encoded      {t_old_check:6.2f} s")


if __name__ == "__main__":
    main()
