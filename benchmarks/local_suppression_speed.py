"""Local suppression on Adult: the blanking of issue 24 (partial padding, refinement, exact
neighbourhoods) against today's routine alone, measured in the same run (target: at most ~2×
the time of a whole ``anonymize``).

Run from the repository root::

    python benchmarks/local_suppression_speed.py [--runs R]

The demo policy's k-anonymity model only (k = 5, suppression limit 1 %; local suppression
enforces no other model), 8 quasi-identifiers, ``generalize_first=true`` (start one level below
the MinGen optimum), ``keep_order``. Both sides run the whole ``anonymize`` (encoding, the
MinGen search for the starting node, the blanking, the release, its re-check, the report); the
baseline swaps the blanking for today's routine (``today(first_stage(...))``, the fallback
candidate the new blanking also evaluates); a third side adds ``polish=12``. Wall-clock and
process CPU seconds, best of ``--runs`` runs each, alternated; the machine may be shared, so CPU
time is the steadier figure.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from privcheck.anonymizers import local_suppression as ls  # noqa: E402
from privcheck.classes import ClassTable  # noqa: E402
from privcheck.io import read_table  # noqa: E402
from privcheck.pipeline.anonymize import anonymize  # noqa: E402
from privcheck.policy import load_policy  # noqa: E402

ADULT = ROOT / "privcheck" / "data" / "adult"


def todays_solve(
    table: ClassTable,
    k: int,
    importance: np.ndarray,
    *,
    star_mode: bool,
    limit: int = 0,
    polish_rounds: int = 0,
    exact_seconds: float | None = None,
) -> tuple[ls.Problem, ls.Units, ls.Optimality]:
    prob = ls.problem(table, k, importance, star_mode=star_mode, limit=limit)
    return prob, ls.whole_row_routine(prob, ls.first_stage(prob)), ls.Optimality(False, None)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    data = read_table(ADULT / "adult.csv")
    policy = load_policy(ADULT / "policy.yaml")
    base = policy.base_dir
    policy = policy.model_copy(update={"models": [policy.models[0]]})
    policy._base_dir = base
    new_solve = ls.solve
    sides = {"today": (todays_solve, 0), "new": (new_solve, 0), "polish=12": (new_solve, 12)}
    best = {name: [float("inf")] * 2 for name in sides}
    reports = {}
    for _ in range(args.runs):
        for name, (solve, rounds) in sides.items():
            ls.solve = solve
            try:
                wall, cpu = time.perf_counter(), time.process_time()
                _, report = anonymize(
                    data,
                    policy,
                    "local-suppression",
                    keep_order=True,
                    generalize_first=True,
                    polish=rounds,
                )
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            finally:
                ls.solve = new_solve
            best[name] = [min(best[name][0], wall), min(best[name][1], cpu)]
            reports[name] = report
    print(
        "Adult, 8 QIs, k = 5, 1 % suppression, local suppression one level below MinGen's optimum"
    )
    for name in sides:
        r = reports[name]
        print(
            f"  {name:9}: {best[name][0]:6.3f} s wall {best[name][1]:6.3f} s CPU   "
            f"{r.suppressed_cells['total']} cells blanked, {r.changed_cells} changed, "
            f"{int(r.metrics['n_classes'])} classes, loss {r.metrics['loss']:.4f}"
        )
    for name in ("new", "polish=12"):
        print(
            f"  ratio {name} / today: {best[name][0] / best['today'][0]:.2f} wall, "
            f"{best[name][1] / best['today'][1]:.2f} CPU (target for the default: ≤ ~2)"
        )
    print("  (polish imports scipy.optimize, ~0.6 s CPU once per process: not in these figures)")


if __name__ == "__main__":
    main()
