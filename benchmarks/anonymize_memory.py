"""Peak memory of ``privcheck anonymize`` on 5 M rows, against the pandas frame of the same rows.

    python benchmarks/anonymize_memory.py                 # 5,000,000 rows
    python benchmarks/anonymize_memory.py --quick         # 200,000 rows, a smoke run
    python benchmarks/anonymize_memory.py --rows 1000000 --only mondrian

Target (issue 33): the peak resident memory of ``anonymize`` is at most 2× the size of the same
rows as a pandas DataFrame, for ``auto`` and for every candidate ``auto`` runs
(``privcheck.anonymizers.auto.CANDIDATES``: mingen, mondrian, local-suppression, safepub).

How: the embedded Adult (``privcheck/data/adult/adult.csv``, 30,162 records) is resampled
(seeded) to N rows and written to Parquet. Three policies, each with the demo policy's
attributes and hierarchies (``privcheck/data/adult/policy.yaml``: 8 quasi-identifiers with
ARX's hierarchies, salary-class sensitive, 1 % suppression), so that every candidate is run on
a policy ``auto`` would run it for:

- ``demo``: the demo policy itself (k = 5, distinct 2-diversity, t = 0.2) — ``auto`` runs
  mingen and mondrian on it (local suppression enforces k-anonymity only);
- ``k5``: its k-anonymity model alone — ``auto`` runs mingen, mondrian and local-suppression;
- ``dp``: (ε = 2, δ = 1e-6)-differential privacy — ``auto`` runs safepub.

Every measurement is its own child process, so each peak is that process's alone
(``os.wait4``'s ``ru_maxrss`` of the child):

- the frame: ``pd.read_parquet(file).memory_usage(deep=True).sum()`` — the denominator;
- the baseline: Python with the imports ``anonymize`` needs and nothing read (what every run
  pays whatever N);
- each run: the whole command, ``python -m privcheck.cli anonymize FILE -p POLICY -o OUT.parquet
  --algorithm X --seed 1`` (read, encode, plan, release, re-check, write).

Printed: one row per run with its peak RSS, the ratio peak / frame, whether it meets ≤ 2×, wall
seconds (load-sensitive on a shared machine; the peaks are not) and what was released.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT / "privcheck" / "data" / "adult"
TARGET = 2.0

#: (policy, algorithm) runs: auto on each policy, and every candidate auto runs on it
RUNS = (
    ("demo", "auto"),
    ("demo", "mingen"),
    ("demo", "mondrian"),
    ("k5", "auto"),
    ("k5", "local-suppression"),
    ("dp", "auto"),
    ("dp", "safepub"),
)

FRAME_SIZE = """
import sys, pandas as pd
frame = pd.read_parquet(sys.argv[1])
print(int(frame.memory_usage(deep=True).sum()))
"""

BASELINE = """
import numpy, pandas, pyarrow, pyarrow.parquet
import privcheck.cli.anonymize, privcheck.pipeline.anonymize, privcheck.plugins
privcheck.plugins.anonymizer_registry()
"""


def policies(folder: Path) -> dict[str, Path]:
    """The three policies, written to ``folder`` with the demo policy's hierarchies."""
    spec = yaml.safe_load((ADULT / "policy.yaml").read_text())
    for attr in spec["attributes"].values():
        hierarchy = attr.get("hierarchy") or {}
        if "path" in hierarchy:
            hierarchy["path"] = str(ADULT / hierarchy["path"])
    variants = {
        "demo": spec["models"],
        "k5": [m for m in spec["models"] if m["model"] == "k-anonymity"],
        "dp": [{"model": "differential-privacy", "epsilon": 2.0, "delta": 1e-6}],
    }
    out = {}
    for name, models in variants.items():
        path = folder / f"{name}.yaml"
        path.write_text(yaml.safe_dump({**spec, "models": models}, sort_keys=False))
        out[name] = path
    return out


def run_child(argv: list[str], stdout: Path) -> tuple[int, float, float]:
    """Run ``argv`` as a child; its exit code, peak RSS (bytes) and wall seconds."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    started = time.perf_counter()
    with stdout.open("wb") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)  # (reaped here, not by Popen)
    return proc.returncode, usage.ru_maxrss * 1024.0, time.perf_counter() - started  # kB


def make_input(rows: int, path: Path) -> None:
    """Adult resampled (seeded) to ``rows`` rows, as Parquet, written by a child (so that this
    process stays small)."""
    code = (
        "import sys, numpy as np, pyarrow.parquet as pq, pyarrow as pa\n"
        "from privcheck.io import read_table\n"
        f"adult = read_table({str(ADULT / 'adult.csv')!r})\n"
        "rng = np.random.default_rng(1)\n"
        f"frame = adult.iloc[rng.integers(0, len(adult), {rows})].reset_index(drop=True)\n"
        f"pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), {str(path)!r})\n"
    )
    rc, _, _ = run_child([sys.executable, "-c", code], path.with_suffix(".log"))
    if rc:
        sys.exit(f"could not write the input: {path.with_suffix('.log').read_text()}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=5_000_000)
    ap.add_argument("--quick", action="store_true", help="200,000 rows")
    ap.add_argument("--only", help="comma-separated algorithms to run (default: all)")
    args = ap.parse_args()
    rows = 200_000 if args.quick else args.rows
    only = set(args.only.split(",")) if args.only else None

    with tempfile.TemporaryDirectory(prefix="anonymize-memory-") as tmp:
        folder = Path(tmp)
        data = folder / "adult.parquet"
        make_input(rows, data)
        paths = policies(folder)
        log = folder / "child.log"

        rc, _, _ = run_child([sys.executable, "-c", FRAME_SIZE, str(data)], log)
        if rc:
            sys.exit(f"could not read the input: {log.read_text()}")
        frame = float(log.read_text().split()[-1])
        rc, base, _ = run_child([sys.executable, "-c", BASELINE], log)
        if rc:
            sys.exit(f"could not import privcheck: {log.read_text()}")
        print(
            f"{rows:,} Adult-like rows, Parquet {data.stat().st_size / 1e6:.0f} MB; "
            f"{os.cpu_count()} cores"
        )
        print(f"pandas frame (memory_usage(deep=True)): {frame / 1e9:.3f} GB")
        print(f"Python + imports, nothing read (baseline RSS): {base / 1e9:.3f} GB")
        print(
            f"{'policy':<6} {'algorithm':<18} {'peak RSS':>9} {'/ frame':>8} "
            f"{'≤ 2×':>5} {'seconds':>8}  released"
        )
        worst = 0.0
        for policy, algorithm in RUNS:
            if only is not None and algorithm not in only:
                continue
            out, report = folder / "out.parquet", folder / "report.json"
            argv = [
                sys.executable, "-m", "privcheck.cli", "--quiet", "anonymize", str(data),
                "-p", str(paths[policy]), "-o", str(out), "--report", str(report),
                "--algorithm", algorithm, "--seed", "1",
            ]  # fmt: skip
            rc, peak, seconds = run_child(argv, log)
            if rc:
                print(f"{policy:<6} {algorithm:<18} failed (exit {rc}): {log.read_text()[-500:]}")
                continue
            result = json.loads(report.read_text())
            chosen = result.get("chosen") or algorithm
            released = f"{chosen}: {result['n_released_rows']:,} records"
            ratio = peak / frame
            worst = max(worst, ratio)
            print(
                f"{policy:<6} {algorithm:<18} {peak / 1e9:7.3f} GB {ratio:7.2f}× "
                f"{'yes' if ratio <= TARGET else 'NO':>5} {seconds:8.1f}  {released}"
            )
            out.unlink(missing_ok=True)
            report.unlink(missing_ok=True)
        verdict = "met" if worst <= TARGET else "NOT met"
        print(f"highest peak / frame: {worst:.2f}× (target ≤ {TARGET:g}×: {verdict})")


if __name__ == "__main__":
    main()
