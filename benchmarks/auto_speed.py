"""``--algorithm auto`` on Adult against its candidates run alone, measured in the same run.

Target (issue 24): ``auto`` takes at most the sum of its candidates run alone — it encodes the
table once, plans every candidate on that encoding and materialises only the chosen release.

Run from the repository root::

    python benchmarks/auto_speed.py [--runs R]

Two policies: the demo policy (8 quasi-identifiers, k = 5, distinct 2-diversity, t = 0.2, 1 %;
candidates MinGen and Mondrian — local suppression enforces k-anonymity only) and its
k-anonymity model alone (all three candidates). Each side is the whole library call
(``privcheck.pipeline.anonymize.anonymize``: encoding, search, release, re-check, report) on the
DataFrame already read; best wall-clock and process-CPU seconds of ``--runs`` alternated runs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from privcheck.io import read_table  # noqa: E402
from privcheck.pipeline.anonymize import anonymize  # noqa: E402
from privcheck.policy import load_policy  # noqa: E402

ADULT = ROOT / "privcheck" / "data" / "adult"


def timed(fn) -> tuple[float, float, object]:
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    data = read_table(ADULT / "adult.csv")
    demo = load_policy(ADULT / "policy.yaml")
    k_only = demo.model_copy(update={"models": [demo.models[0]]})
    k_only._base_dir = demo.base_dir
    for title, policy in (("demo policy (k, l, t)", demo), ("k-anonymity only", k_only)):
        _, report = anonymize(data, policy, "auto", seed=1)
        alone = [c["algorithm"] for c in report.candidates if c["passed"]]
        # each candidate alone as auto runs it: optimising the metric auto compares
        by_metric = policy.model_copy(update={"metric": report.metric})
        by_metric._base_dir = demo.base_dir
        best: dict[str, list[float]] = {}
        for _ in range(args.runs):
            for name in ["auto", *alone]:
                p = policy if name == "auto" else by_metric
                wall, cpu, _ = timed(lambda n=name, p=p: anonymize(data, p, n, seed=1))
                prev = best.setdefault(name, [wall, cpu])
                best[name] = [min(prev[0], wall), min(prev[1], cpu)]
        total = [sum(best[n][i] for n in alone) for i in (0, 1)]
        print(f"\n{title}: chose {report.chosen} ({report.metric})")
        for c in report.candidates:
            value = "excluded" if not c["passed"] else f"{c['metric_value']:.4f}"
            print(f"  {c['algorithm']:<18} {report.metric} {value}")
        for name in alone:
            print(f"  {name:<18} alone  {best[name][0]:6.2f} s wall  {best[name][1]:6.2f} s CPU")
        print(f"  {'sum of candidates':<18}        {total[0]:6.2f} s wall  {total[1]:6.2f} s CPU")
        print(f"  {'auto':<18}        {best['auto'][0]:6.2f} s wall  {best['auto'][1]:6.2f} s CPU")
        ratio = best["auto"][1] / total[1]
        verdict = "met" if ratio <= 1.0 else "NOT met"
        print(f"  auto / sum of candidates (CPU): {ratio:.2f} (target ≤ 1: {verdict})")


if __name__ == "__main__":
    main()
