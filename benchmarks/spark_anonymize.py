"""Anonymizing on Spark against pandas: the same release, and what each costs.

    python benchmarks/spark_anonymize.py                     # 300,000 rows, local[2]
    python benchmarks/spark_anonymize.py --rows 1000000 --master 'local[*]'
    python benchmarks/spark_anonymize.py --quick             # 30,000 rows, a smoke run

Adult's 30,162 records are resampled (seeded) to N rows and written to one Parquet file in
row groups of 50,000 (``benchmarks/scale.py``'s writer), read by Spark in partitions of at most
256 kB (a row group each), so that the release is made over several partitions and the records
of a divided combination are ranked across them. For each algorithm — auto, Mondrian
strict and relaxed (the demo policy: k = 5, distinct 2-diversity, t = 0.2), local suppression
with suppressed records left out and written as ``*`` (k = 5 alone, 0.1 % suppression) — it runs

* pandas: ``read_table`` of the file, ``anonymize``, the release written to Parquet;
* Spark: ``spark.read.parquet``, ``anonymize`` (class table from Spark, plan on the driver,
  mapping joined back in Spark, re-check in Spark), the release written as a folder of Parquet
  parts (``write_release``);

then reads both written releases back and compares them as multisets of rows (every value as
text), and compares the report figures (suppressed records, loss, classes, chosen algorithm,
changed cells). Printed: how many combinations the release divides between several released
rows (ranked in Spark by read order), seconds of each side (wall, one run on a shared machine;
Spark's session start and a first check, which warms the JVM up, are timed apart), their
ratio, and whether release and figures are equal. The target is equality everywhere; the times
show what Spark's job overhead costs on one machine, where the rows fit in memory anyway (on a
cluster the rows never leave the executors).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from scale import ADULT, POLICY, write_parquet  # noqa: E402


def policies():
    from privcheck.policy import load_policy

    base = load_policy(POLICY)
    k5 = load_policy(
        {
            "attributes": {"x": {"role": "quasi_identifier"}},
            "models": [{"model": "k-anonymity", "k": 5}],
        }
    ).models

    def with_(**update):
        out = base.model_copy(update=update)
        out._base_dir = base.base_dir
        return out

    return {
        "demo": base,
        "k5": with_(models=k5, suppression_limit=0.001),
        "k5-star": with_(models=k5, suppression_limit=0.001, suppressed_records="star"),
    }


CASES = [
    ("auto", "demo", {}),
    ("mondrian", "demo", {}),
    ("mondrian", "demo", {"relaxed": True}),
    ("local-suppression", "k5", {}),
    ("local-suppression", "k5-star", {}),
    ("auto", "k5", {}),
]


def rows(path: Path):
    """A written release as a multiset of rows (value → count), every value as text."""
    import pandas as pd

    frame = pd.read_parquet(path)
    frame = frame[sorted(frame.columns)].astype(str)
    return frame.value_counts().sort_index()


def figures(report) -> dict:
    return {
        "n_suppressed": report.n_suppressed,
        "loss": round(report.metrics["loss"], 12),
        "n_classes": report.check.n_classes,
        "chosen": report.chosen,
        "changed_cells": report.changed_cells,
        "n_released_rows": report.n_released_rows,
    }


def divided_groups() -> list[int]:
    """Record, for each release Spark writes, the groups its mapping releases as several
    units (0 for a full-domain node): the combinations whose records are ranked."""
    import privcheck.engines.spark as generalize  # (the Spark engine joins the mapping back)
    from privcheck.engines.mapping import GROUP, CombinationMapping

    seen: list[int] = []
    apply = generalize.apply_mapping

    def recording(frame, policy, mapping):
        n = 0
        if isinstance(mapping, CombinationMapping):
            n = int((mapping.units[GROUP].value_counts() > 1).sum())
        seen.append(n)
        return apply(frame, policy, mapping)

    generalize.apply_mapping = recording
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--quick", action="store_true", help="30,000 rows")
    args = parser.parse_args()
    n = 30_000 if args.quick else args.rows

    from privcheck.engines.output import write_release
    from privcheck.engines.spark_engine import get_spark
    from privcheck.io import read_table, write_table
    from privcheck.pipeline.anonymize import anonymize

    pols = policies()
    divided = divided_groups()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        data = tmp / "adult.parquet"
        write_parquet(n, data, seed=0, row_group_size=50_000)
        t = time.perf_counter()
        spark = get_spark(
            args.master,
            conf={
                "spark.sql.files.maxPartitionBytes": "256k",
                "spark.sql.shuffle.partitions": "8",
            },
        )
        spark.range(1).count()
        print(f"{n:,} rows resampled from {ADULT.name}; Spark {args.master} started in "
              f"{time.perf_counter() - t:.1f} s")  # fmt: skip
        partitions = spark.read.parquet(str(data)).rdd.getNumPartitions()
        t = time.perf_counter()  # the JVM's first queries are slow: warm it up, timed apart
        from privcheck import check

        check(spark.read.parquet(str(data)), pols["demo"])
        print(f"Spark reads the file in {partitions} partitions; a first check (warm-up) took "
              f"{time.perf_counter() - t:.1f} s\n")  # fmt: skip
        header = (
            f"{'algorithm':<28}{'divided':>8}{'pandas s':>9}{'spark s':>9}{'ratio':>7}"
            "  same rows  same figures"
        )
        print(header)
        print("-" * len(header))
        for i, (algorithm, policy_name, params) in enumerate(CASES):
            policy = pols[policy_name]
            name = algorithm + ("-relaxed" if params.get("relaxed") else "") + f" ({policy_name})"
            t = time.perf_counter()
            frame = read_table(data)
            release, report = anonymize(frame, policy, algorithm, seed=i, **params)
            pandas_out = tmp / f"pandas{i}.parquet"
            write_table(release, pandas_out)
            pandas_s = time.perf_counter() - t
            t = time.perf_counter()
            got, got_report = anonymize(spark.read.parquet(str(data)), policy, algorithm, **params)
            spark_out = tmp / f"spark{i}"
            write_release(got, spark_out)
            spark_s = time.perf_counter() - t
            same = rows(pandas_out).equals(rows(spark_out))
            figs = figures(report) == figures(got_report)
            print(f"{name:<28}{divided[-1]:>8}{pandas_s:>9.1f}{spark_s:>9.1f}"
                  f"{spark_s / pandas_s:>7.1f}  "
                  f"{same!s:<9}  {figs}  {figures(got_report)}", flush=True)  # fmt: skip
            if not figs:
                print("    pandas:", figures(report))


if __name__ == "__main__":
    main()
