"""Scale: the same check in process (pandas fast path) and on Spark, at several sizes.

    python benchmarks/scale.py                          # 20 M rows
    python benchmarks/scale.py --rows 5000000,20000000  # side by side
    python benchmarks/scale.py --quick                  # 200 k rows, a smoke run

For each N, the script resamples the embedded Adult records (30,162 rows) to N rows, writes them
to Parquet, then runs in separate child processes (so each peak memory is its own):

* in-process: the Parquet read into pandas (timed apart), the numpy floor — factorize every
  policy column, combine the codes into one int64 key, factorize that key and bincount it: the
  group counts an engine computes, no less — and ``privcheck.check`` on the frame;
* Spark ``local[*]``: session start (timed apart) and ``privcheck.check`` on
  ``spark.read.parquet``, with the peak memory of the Python driver and of the JVM;
* Incognito at k = 5 (the policy's hierarchies, no suppression) in process and on Spark (class
  table from Spark, search on the driver, release mapped in Spark and re-checked there), timed
  after the checks, with whether both chose the same node.

It prints rows per second, peak memories and the class-table size, and whether Spark's report
equals the in-process one (record numbers aside: an engine cannot name them). Targets: the
in-process check within 3x the numpy floor; Spark identical; the driver's memory set by the class
table, not by N (compare the columns).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ADULT = ROOT / "privcheck" / "data" / "adult"
POLICY = ADULT / "policy.yaml"
CHUNK = 1_000_000


def k5_policy():
    """The demo policy's attributes and hierarchies with k-anonymity (k = 5) alone."""
    from privcheck.policy import load_policy

    base = load_policy(POLICY)
    models = load_policy(
        {
            "attributes": {"x": {"role": "quasi_identifier"}},
            "models": [{"model": "k-anonymity", "k": 5}],
        }
    ).models
    out = base.model_copy(update={"models": models, "suppression_limit": 0.0})
    out._base_dir = base.base_dir
    return out


def peak_rss_mb() -> float:
    """Peak resident memory of this process (ru_maxrss is in kB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_rss_mb() -> float:
    """Resident memory now (psutil if present, else the peak so far)."""
    try:
        import psutil
    except ImportError:
        return peak_rss_mb()
    return psutil.Process().memory_info().rss / 2**20


def write_parquet(n: int, path: Path, seed: int = 0, row_group_size: int = CHUNK) -> None:
    """N rows resampled from Adult, written in 1 M-row groups (plain strings, no dictionary
    types, so neither reader gets categories for free); ``row_group_size`` smaller for more."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from privcheck.io import read_table

    adult = pa.Table.from_pandas(read_table(ADULT / "adult.csv"), preserve_index=False)
    adult = adult.cast(pa.schema([(name, pa.string()) for name in adult.column_names]))
    rng = np.random.default_rng(seed)
    with pq.ParquetWriter(path, adult.schema) as writer:
        for start in range(0, n, CHUNK):
            take = rng.integers(0, adult.num_rows, min(CHUNK, n - start))
            writer.write_table(adult.take(pa.array(take)), row_group_size=row_group_size)


def comparable(report: dict) -> dict:
    report = {k: v for k, v in report.items() if k not in ("elapsed_seconds", "source")}
    for m in report["models"]:
        for v in m["violators"]:
            v["records"] = []
    return report


# ----------------------------------------------------------------------------- workers


def numpy_floor(frame, columns: list[str]) -> int:
    """Group counts of the combined key: the least any check has to compute."""
    import numpy as np
    import pandas as pd

    key = np.zeros(len(frame), dtype=np.int64)
    space = 1
    for name in columns:
        codes, uniques = pd.factorize(frame[name])
        card = len(uniques) + 1
        if space * card >= 1 << 62:  # keep the key in int64 (never for Adult)
            key, u = pd.factorize(key)
            space = len(u)
        key = key * card + (codes + 1)
        space *= card
    inverse, groups = pd.factorize(key)
    np.bincount(inverse, minlength=len(groups))
    return len(groups)


def worker_pandas(data: str) -> dict:
    import pandas as pd

    from privcheck import check
    from privcheck.engines import key_columns
    from privcheck.policy import load_policy

    policy = load_policy(POLICY)
    t = time.perf_counter()
    frame = pd.read_parquet(data)
    read = time.perf_counter() - t
    # best of two, alternating, so that neither gains from running second (warm allocator)
    floor = elapsed = float("inf")
    for _ in range(2):
        t = time.perf_counter()
        groups = numpy_floor(frame, key_columns(policy))
        floor = min(floor, time.perf_counter() - t)
        t = time.perf_counter()
        report = check(frame, policy)
        elapsed = min(elapsed, time.perf_counter() - t)
    from privcheck.pipeline.anonymize import anonymize

    t = time.perf_counter()
    _, anon = anonymize(frame, k5_policy(), "incognito")
    incognito = time.perf_counter() - t
    return {
        "incognito": incognito,
        "node": anon.node,
        "read": read,
        "floor": floor,
        "check": elapsed,
        "groups": groups,
        "rss": peak_rss_mb(),
        "report": json.loads(report.to_json()),
    }


class ChildMemory:
    """Peak RSS of this process's children (the JVM in local mode), sampled in a thread."""

    def __init__(self, every: float = 0.2) -> None:
        self.peak = 0.0
        self._stop = threading.Event()
        self._every = every
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        import psutil

        me = psutil.Process()
        while not self._stop.is_set():
            total = 0
            for child in me.children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    total += child.memory_info().rss
            self.peak = max(self.peak, total / 2**20)
            self._stop.wait(self._every)

    def __enter__(self) -> ChildMemory:
        try:
            import psutil  # noqa: F401
        except ImportError:
            self.peak = float("nan")
            return self
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()


def worker_spark(data: str, master: str) -> dict:
    from privcheck import check
    from privcheck.engines.spark_engine import get_spark

    with ChildMemory() as jvm:
        t = time.perf_counter()
        spark = get_spark(master)
        start = time.perf_counter() - t
        rss_before = current_rss_mb()
        t = time.perf_counter()
        report = check(spark.read.parquet(data), POLICY)
        elapsed = time.perf_counter() - t
        # a second run: the first pays the JVM's warm-up (class loading, code generation)
        t = time.perf_counter()
        again = check(spark.read.parquet(data), POLICY)
        warm = time.perf_counter() - t
        assert again.model_dump(exclude={"elapsed_seconds"}) == report.model_dump(
            exclude={"elapsed_seconds"}
        )
        from privcheck.pipeline.anonymize import anonymize

        t = time.perf_counter()
        _, anon = anonymize(spark.read.parquet(data), k5_policy(), "incognito")
        incognito = time.perf_counter() - t
        spark.stop()
    return {
        "incognito": incognito,
        "node": anon.node,
        "start": start,
        "check": elapsed,
        "warm": warm,
        "rss": peak_rss_mb(),
        "rss_before_check": rss_before,
        "jvm": jvm.peak,
        "report": json.loads(report.to_json()),
    }


def run_worker(kind: str, data: Path, master: str) -> dict:
    cmd = [
        sys.executable,
        __file__,
        "--worker",
        kind,
        "--data",
        str(data),
        "--spark-master",
        master,
    ]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        sys.stderr.write(res.stderr[-4000:])
        raise SystemExit(f"{kind} worker failed (exit {res.returncode})")
    return json.loads(res.stdout.strip().splitlines()[-1])


# ----------------------------------------------------------------------------- driver


def fmt_rate(n: int, seconds: float) -> str:
    return f"{n / seconds / 1e6:.1f} M/s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default="20000000", help="N, or several: 5000000,20000000")
    ap.add_argument("--quick", action="store_true", help="200 k rows (a smoke run)")
    ap.add_argument("--spark-master", default="local[*]")
    ap.add_argument("--no-spark", action="store_true", help="in-process figures only")
    ap.add_argument("--worker", choices=["pandas", "spark"], help=argparse.SUPPRESS)
    ap.add_argument("--data", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.worker:
        out = worker_pandas(args.data) if args.worker == "pandas" else None
        if args.worker == "spark":
            out = worker_spark(args.data, args.spark_master)
        print(json.dumps(out))
        return

    sizes = [200_000] if args.quick else [int(float(x)) for x in args.rows.split(",")]
    results = []
    with tempfile.TemporaryDirectory(prefix="privcheck-scale-") as tmp:
        for n in sizes:
            path = Path(tmp) / f"adult_{n}.parquet"
            t = time.perf_counter()
            write_parquet(n, path)
            wrote = time.perf_counter() - t
            print(
                f"N = {n:,}: wrote {path.stat().st_size / 2**20:.0f} MiB of Parquet in "
                f"{wrote:.1f} s",
                flush=True,
            )
            pandas_r = run_worker("pandas", path, args.spark_master)
            spark_r = None if args.no_spark else run_worker("spark", path, args.spark_master)
            results.append((n, pandas_r, spark_r))
            os.unlink(path)

    rows: list[tuple[str, ...]] = [("N", *tuple(f"{n:,}" for n, _, _ in results))]

    def add(label: str, cell) -> None:
        rows.append((label, *tuple(cell(n, p, s) for n, p, s in results)))

    add("in-process: read Parquet → pandas", lambda n, p, s: f"{p['read']:.2f} s")
    add("numpy floor (factorize + bincount), best of 2", lambda n, p, s: f"{p['floor']:.2f} s")
    add("in-process check (pandas path), best of 2", lambda n, p, s: f"{p['check']:.2f} s")
    add("  ratio check / floor (target ≤ 3)", lambda n, p, s: f"{p['check'] / p['floor']:.2f}")
    add("  rows per second", lambda n, p, s: fmt_rate(n, p["check"]))
    add("  peak memory (process)", lambda n, p, s: f"{p['rss']:.0f} MiB")
    if not args.no_spark:
        add(f"Spark {args.spark_master}: session start", lambda n, p, s: f"{s['start']:.1f} s")
        add("Spark check, 1st (read + group-by + models)", lambda n, p, s: f"{s['check']:.2f} s")
        add("Spark check, 2nd (JVM warm)", lambda n, p, s: f"{s['warm']:.2f} s")
        add("  rows per second (warm)", lambda n, p, s: fmt_rate(n, s["warm"]))
        add("  driver peak memory (Python, whole run)", lambda n, p, s: f"{s['rss']:.0f} MiB")
        add(
            "  driver memory before the checks",
            lambda n, p, s: f"{s['rss_before_check']:.0f} MiB",
        )
        add("  JVM peak memory (local mode)", lambda n, p, s: f"{s['jvm']:.0f} MiB")
        add(
            "  report identical to in-process",
            lambda n, p, s: str(comparable(s["report"]) == comparable(p["report"])),
        )
    add("Incognito k=5, in process (search + release)", lambda n, p, s: f"{p['incognito']:.2f} s")
    if not args.no_spark:
        add(
            "Incognito k=5 on Spark (+ re-check in Spark)",
            lambda n, p, s: f"{s['incognito']:.2f} s",
        )
        add("  same node as in process", lambda n, p, s: str(s["node"] == p["node"]))
    add("class table: classes (QIs)", lambda n, p, s: f"{p['report']['n_classes']:,}")
    add("rows sent back: (QI, sensitive) groups", lambda n, p, s: f"{p['groups']:,}")
    add("verdict", lambda n, p, s: "PASSED" if p["report"]["passed"] else "FAILED")

    width = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    print()
    for r in rows:
        print(
            "  ".join(c.ljust(width[0]) if i == 0 else c.rjust(width[i]) for i, c in enumerate(r))
        )
    print(f"\nIncognito node (in process): {results[-1][1]['node']}")


if __name__ == "__main__":
    main()
