"""How long does ``privcheck init`` take against one full check of the policy it drafts?

The table: Adult's rows resampled to 1 M (9 columns: age, sex, race, marital status,
education, native country, workclass, occupation, salary class) plus three synthetic direct
identifiers a real extract carries — a customer code, an e-mail address and a phone number,
distinct in every row — written as a CSV file. ``init`` is what the command does: read the
file, profile every column (distinct values, missing, uniqueness, type, value patterns on a
10,000-row sample), decide roles, build hierarchies, check the table against the draft (the
closing summary), preview ``anonymize`` (``auto`` on a 2,000-row sample) and write the policy
and its table hierarchies. The baseline is one full
``privcheck check`` of that file against the drafted policy (k-anonymity and distinct
l-diversity of salary-class on the eight quasi-identifiers), measured in the same process and
run, after one warm-up of each.

Times are the best of ``--repeats`` runs, wall clock and process CPU (the CPU ratio is the one
to read on a shared machine: both read the CSV with Arrow's threads). Target (issue 23): init ≤
2 × the check.

    python benchmarks/init_speed.py                 # 1 M rows
    python benchmarks/init_speed.py --rows 200000   # a quick run
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

import privcheck  # noqa: E402
from privcheck.profiling.draft import draft_policy, write_draft  # noqa: E402

ADULT = ROOT / "privcheck" / "data" / "adult" / "adult.csv"


def make_table(rows: int, path: Path, seed: int = 0) -> None:
    """Adult resampled to ``rows`` rows plus a customer code, an e-mail and a phone number."""
    rng = np.random.default_rng(seed)
    adult = pd.read_csv(ADULT, sep=";", dtype=str)
    frame = adult.iloc[rng.integers(0, len(adult), rows)].reset_index(drop=True)
    ids = rng.permutation(rows)
    frame.insert(0, "customer", [f"C{i:08d}" for i in ids])
    frame["contact"] = [f"user{i}@example.org" for i in ids]
    frame["phone"] = [f"+44 20 {i // 10_000:04d} {i % 10_000:04d}" for i in ids]
    frame.to_csv(path, index=False)


def timed(fn) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def best(fn, repeats: int) -> tuple[float, float]:
    runs = [timed(fn) for _ in range(repeats)]
    return min(r[0] for r in runs), min(r[1] for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="privcheck-init-bench-"))
    try:
        data = work / "table.csv"
        make_table(args.rows, data)
        size = data.stat().st_size / 1e6
        counter = iter(range(10_000))

        def init() -> None:
            folder = work / f"draft{next(counter)}"
            folder.mkdir()
            draft = draft_policy(data)
            write_draft(draft.profile, folder / "policy.yaml", inputs=[data])

        init()  # warm-up (imports), and the policy the check reads
        policy = work / "draft0" / "policy.yaml"
        # (a draft: its review items are open, and the benchmark times the check all the same)
        report = privcheck.check(data, policy, allow_draft=True)
        roles = {c: a.role.value for c, a in privcheck.load_policy(policy).attributes.items()}
        init_wall, init_cpu = best(init, args.repeats)
        check_wall, check_cpu = best(
            lambda: privcheck.check(data, policy, allow_draft=True), args.repeats
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"table: {args.rows:,} rows x 12 columns, {size:.0f} MB CSV")
    print("drafted roles: " + ", ".join(f"{c}={r}" for c, r in roles.items()))
    print(f"check of the draft: passed={report.passed}, {report.n_classes:,} classes")
    print(f"{'':24}{'wall s':>10}{'cpu s':>10}")
    print(f"{'init (profile + write)':24}{init_wall:10.3f}{init_cpu:10.3f}")
    print(f"{'check (full)':24}{check_wall:10.3f}{check_cpu:10.3f}")
    print(
        f"ratio init / check: wall {init_wall / check_wall:.2f}, cpu {init_cpu / check_cpu:.2f} "
        "(target <= 2)"
    )


if __name__ == "__main__":
    main()
