"""Check time of the re-identification risk and population models (issue 14 items 1-2) against
k-anonymity's, on the same class table: Adult resampled to 1 M rows (7 quasi-identifiers), its
population a table of Adult's combination counts resampled 4.6× (a Poisson draw per combination,
added to the data's own counts so that it contains every record).

Three figures per model, best of ``--repeat`` runs, process CPU seconds: the model's evaluation
alone on the class table (``evaluate_models``: microseconds for k's comparison of the sizes,
milliseconds for a population group-by or an estimator's fit); the check of the encoded data —
the group-by into the class table plus that evaluation; and ``privcheck.check`` end to end on the
DataFrame (encode, group-by, model, report; the release's values matched with the population as
they stand). The ratios of the last two to k-anonymity's are the target (≤ 2×). The population
models' per-table match cache is cleared before every run so each pays its population group-by
(the population file is read and encoded once, timed separately).

    python benchmarks/risk_models_speed.py                # 1 M rows
    python benchmarks/risk_models_speed.py --rows 200000 --repeat 3
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

import privcheck  # noqa: E402
from privcheck import population  # noqa: E402
from privcheck.classes import count  # noqa: E402
from privcheck.encoding import encode  # noqa: E402
from privcheck.io import read_table  # noqa: E402
from privcheck.models.base import evaluate_models  # noqa: E402
from privcheck.policy import parse_policy  # noqa: E402

ADULT = ROOT / "privcheck" / "data" / "adult"
QIS = ["age", "sex", "race", "marital-status", "education", "native-country", "workclass"]
MODELS = {
    "k-anonymity": {"model": "k-anonymity", "k": 5},
    "average-risk": {"model": "average-risk", "threshold": 0.05},
    "average-risk journalist": {
        "model": "average-risk",
        "threshold": 0.05,
        "attacker": "journalist",
    },
    "record-risk": {"model": "record-risk", "threshold": 0.2, "max_share": 0.01},
    "record-risk marketer": {"model": "record-risk", "threshold": 0.2, "attacker": "marketer"},
    "k-map (table)": {"model": "k-map", "k": 5},
    "delta-presence": {"model": "delta-presence", "delta_min": 0.0, "delta_max": 0.5},
    "population-uniqueness zayatz": {
        "model": "population-uniqueness",
        "threshold": 0.01,
        "estimator": "zayatz",
    },
    "population-uniqueness dankar": {"model": "population-uniqueness", "threshold": 0.01},
}


def cpu_best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        population._sizes.clear()
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    rng = np.random.default_rng(14)
    adult = read_table(ADULT / "adult.csv")
    data = adult.iloc[rng.integers(0, len(adult), args.rows)].reset_index(drop=True)
    pop = data.groupby(QIS).size().rename("n").reset_index()
    pop["n"] += rng.poisson(3.6 * pop["n"].to_numpy())
    tmp = Path(tempfile.mkdtemp())
    pop.to_csv(tmp / "population.csv", index=False)
    attrs = {
        q: {"role": "quasi_identifier", "hierarchy": {"type": "table", "path": str(h)}}
        for q in QIS
        if (h := ADULT / "hierarchies" / f"{q}.csv")
    }
    attrs["salary-class"] = {"role": "sensitive"}
    policy = parse_policy(
        {
            "attributes": attrs,
            "population": {"path": str(tmp / "population.csv"), "count_column": "n"},
            "models": list(MODELS.values()),
        }
    )
    encoded = encode(data, policy)
    table = count(encoded, track_records=False)
    t = time.process_time()
    population.load_population(policy)
    load = time.process_time() - t
    print(
        f"{args.rows:,} rows, {table.n_classes:,} classes; population {len(pop):,} rows "
        f"({int(pop['n'].sum()):,} people), read + encoded once in {load:.3f} s"
    )
    base_check = base_e2e = None
    print(
        f"{'model':30} {'model s':>9} {'count+model s':>14} {'× k':>6} {'check() s':>10} {'× k':>6}"
    )
    for name, config in zip(MODELS, policy.models, strict=True):
        seconds = cpu_best(lambda c=config: evaluate_models(table, [c]), args.repeat)
        checked = cpu_best(
            lambda c=config: evaluate_models(count(encoded, track_records=False), [c]),
            args.repeat,
        )
        one = policy.model_copy(update={"models": [config]})
        e2e = cpu_best(lambda p=one: privcheck.check(data, p), args.repeat)
        base_check = checked if base_check is None else base_check
        base_e2e = e2e if base_e2e is None else base_e2e
        print(
            f"{name:30} {seconds:9.5f} {checked:14.4f} {checked / base_check:6.2f} "
            f"{e2e:10.3f} {e2e / base_e2e:6.2f}"
        )


if __name__ == "__main__":
    main()
