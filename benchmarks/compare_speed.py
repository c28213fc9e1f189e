"""``privcheck compare`` and ``anonymize`` with a ``utility`` section, against their baselines,
measured in one run (issue 24).

Run from the repository root::

    PYTHONPATH=. python benchmarks/compare_speed.py [--runs 3] [--cli]

Adult (30,162 rows, the 8 usual quasi-identifiers, k = 5, suppression limit 1 %, suppressed
records written as ``*``, target salary-class). Three releases are made first (MinGen, Mondrian,
local suppression — local suppression only when the code base registers it — in input order).

1. **compare** of the three releases — reading the four files, every measure, the
   classification (the original's model fit once), the risk block and the check of each release
   — against reading the same four files plus one ``privcheck.check`` of each release. Target:
   ratio ≤ 3.
2. **anonymize** with ``utility: {target: salary-class}`` in the policy against the same call
   without it, MinGen and Mondrian. Target: ratio ≤ 1.5.

Both sides run in one process, alternated, best of ``--runs`` each, after one untimed warm-up
of each (so library imports are paid before timing; scikit-learn's import alone is ~1 s cold).
Times are CPU seconds of the process (``time.process_time``: the machine is shared; CPU time is
what an idle core would take), wall-clock seconds alongside. ``--cli`` also times the cold
command lines ``privcheck compare`` and ``privcheck check`` ×3 as a user runs them (imports
included), wall clock, once each.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ADULT = ROOT / "privcheck" / "data" / "adult"


def policy_spec(utility: bool) -> dict:
    spec = yaml.safe_load((ADULT / "policy.yaml").read_text())
    for attr in spec["attributes"].values():
        if "hierarchy" in attr:
            attr["hierarchy"]["path"] = str(ADULT / attr["hierarchy"]["path"])
    spec["models"] = [{"model": "k-anonymity", "k": 5}]
    spec["suppressed_records"] = "star"
    if utility:
        spec["utility"] = {"target": "salary-class"}
    return spec


def best(fn: Callable[[], object], runs: int) -> tuple[float, float]:
    """(best CPU seconds, best wall seconds) of ``runs`` calls."""
    cpu = wall = float("inf")
    for _ in range(runs):
        c, w = time.process_time(), time.perf_counter()
        fn()
        cpu = min(cpu, time.process_time() - c)
        wall = min(wall, time.perf_counter() - w)
    return cpu, wall


def alternate(a: Callable[[], object], b: Callable[[], object], runs: int):
    """Best (CPU, wall) of ``a`` and of ``b``, run alternately after one warm-up each."""
    a()
    b()
    ta = [float("inf")] * 2
    tb = [float("inf")] * 2
    for _ in range(runs):
        ta = [min(x, y) for x, y in zip(ta, best(a, 1), strict=True)]
        tb = [min(x, y) for x, y in zip(tb, best(b, 1), strict=True)]
    return ta, tb


def line(what: str, base: list[float], test: list[float], target: float) -> None:
    ratio_cpu, ratio_wall = test[0] / base[0], test[1] / base[1]
    print(f"  {what}")
    print(f"    baseline {base[0]:7.3f} s CPU ({base[1]:.3f} s wall)")
    print(f"    measured {test[0]:7.3f} s CPU ({test[1]:.3f} s wall)")
    print(
        f"    ratio {ratio_cpu:.2f} CPU, {ratio_wall:.2f} wall (target ≤ {target:g}): "
        f"{'met' if ratio_cpu <= target else 'NOT met'}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cli", action="store_true", help="also time the cold command lines")
    args = ap.parse_args()

    import privcheck
    from privcheck.io import read_table
    from privcheck.pipeline.anonymize import anonymize
    from privcheck.plugins import anonymizer_registry
    from privcheck.policy import parse_policy
    from privcheck.utility.compare import compare_releases

    tmp = Path(tempfile.mkdtemp(prefix="compare_speed_"))
    plain = parse_policy(policy_spec(False))
    with_utility = parse_policy(policy_spec(True))
    (tmp / "policy.yaml").write_text(yaml.safe_dump(policy_spec(True)))
    data = read_table(ADULT / "adult.csv")
    algorithms = ["mingen", "mondrian"]
    if "local-suppression" in anonymizer_registry():
        algorithms.append("local-suppression")
    paths = []
    for algorithm in algorithms:
        release, _ = anonymize(data, plain, algorithm, seed=0, keep_order=True)
        path = tmp / f"{algorithm}.csv"
        release.to_csv(path, index=False)
        paths.append(path)
    original = ADULT / "adult.csv"
    print(f"Adult, {len(data):,} rows, 8 QIs, k = 5, 1 % suppression; releases: {algorithms}")

    def baseline() -> None:
        read_table(original)
        for p in paths:
            read_table(p)
        for p in paths:
            privcheck.check(p, with_utility)

    def compare() -> None:
        frame = read_table(original)
        frames = [(str(p), read_table(p)) for p in paths]
        compare_releases(frame, frames, with_utility)

    base, test = alternate(baseline, compare, args.runs)
    line(f"compare of {len(paths)} releases vs reading the files + one check each", base, test, 3)

    for algorithm in ("mingen", "mondrian"):
        base, test = alternate(
            lambda a=algorithm: anonymize(data, plain, a, seed=0),
            lambda a=algorithm: anonymize(data, with_utility, a, seed=0),
            args.runs,
        )
        line(f"anonymize {algorithm} with a utility section vs without", base, test, 1.5)

    if args.cli:
        cmd = [sys.executable, "-m", "privcheck.cli"]
        pol = str(tmp / "policy.yaml")
        t = time.perf_counter()
        subprocess.run(
            [*cmd, "compare", original, *paths, "-p", pol], check=True, capture_output=True
        )
        cold_compare = time.perf_counter() - t
        t = time.perf_counter()
        for p in paths:
            subprocess.run([*cmd, "check", p, "-p", pol], capture_output=True)
        cold_checks = time.perf_counter() - t
        print("  command lines, cold (imports included), wall clock")
        print(f"    privcheck compare of {len(paths)} releases: {cold_compare:.2f} s")
        print(f"    privcheck check × {len(paths)}: {cold_checks:.2f} s")


if __name__ == "__main__":
    main()
