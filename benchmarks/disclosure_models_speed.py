"""Check time of β-likeness, δ-disclosure and (α,k)-anonymity against k-anonymity's, and the cost
of ``check --explain`` against a plain check.

The attribute-disclosure models are formulas over the same class table as k-anonymity (its stored
class × value entries), so a check with one of them should cost about what a k-anonymity check
costs: the target (issue 14) is ≤ 2× k's time on Adult resampled to 1 M rows. Two figures per
model, measured in the same run on the same data and policy attributes (Adult's 8
quasi-identifiers, occupation sensitive — 14 values — and salary-class for a 2-valued one):

- **check**: ``privcheck.check`` end to end (encode, group-by, model, report) with only that model;
- **model**: the model's evaluation alone on the class table (``evaluate_models``), where the
  formulas differ — in microseconds to milliseconds, against k's comparison of the class sizes.

``--explain``: ``privcheck.check(..., explain=True)`` on Adult (30,162 rows, 8 quasi-identifiers,
every MSU size: 255 combinations) against the plain check — why the explanation is opt-in.

Times are process CPU seconds, best of ``--repeat`` runs (the machine is shared).

    python benchmarks/disclosure_models_speed.py              # 1 M rows
    python benchmarks/disclosure_models_speed.py --rows 200000 --repeat 3
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

import privcheck  # noqa: E402
from privcheck.classes import count  # noqa: E402
from privcheck.encoding import encode  # noqa: E402
from privcheck.io import read_table  # noqa: E402
from privcheck.models.base import evaluate_models  # noqa: E402
from privcheck.policy import parse_policy  # noqa: E402

ADULT = ROOT / "privcheck" / "data" / "adult"
QIS = ["age", "sex", "race", "marital-status", "education", "native-country", "workclass"]
MODELS = {
    "k-anonymity": {"model": "k-anonymity", "k": 5},
    "beta-likeness": {"model": "beta-likeness", "beta": 1.0},
    "beta-likeness enhanced": {"model": "beta-likeness", "beta": 1.0, "variant": "enhanced"},
    "delta-disclosure": {"model": "delta-disclosure", "delta": 1.0},
    "delta-disclosure log2": {"model": "delta-disclosure", "delta": 1.0, "log_base": 2},
    "alpha-k-anonymity": {"model": "alpha-k-anonymity", "alpha": 0.5, "k": 5},
    "alpha-k-anonymity value": {
        "model": "alpha-k-anonymity",
        "alpha": 0.5,
        "k": 5,
        "value": "Prof-specialty",
    },
}


def policy(model: dict, sensitive: str) -> dict:
    attrs = {
        q: {
            "role": "quasi_identifier",
            "hierarchy": {"type": "table", "path": str(ADULT / "hierarchies" / f"{q}.csv")},
        }
        for q in QIS
    }
    attrs[sensitive] = {"role": "sensitive"}
    entry = model if model["model"] == "k-anonymity" else {**model, "attribute": sensitive}
    return {"attributes": attrs, "models": [entry]}


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    adult = read_table(ADULT / "adult.csv")
    rng = np.random.default_rng()
    frame = adult.iloc[rng.integers(0, len(adult), args.rows)].reset_index(drop=True)
    print(f"Adult resampled to {args.rows:,} rows; best of {args.repeat} (CPU seconds)")
    for sensitive in ("occupation", "salary-class"):
        if sensitive == "salary-class":
            MODELS["alpha-k-anonymity value"]["value"] = ">50K"
        base = parse_policy(policy(MODELS["k-anonymity"], sensitive))
        table = count(encode(frame, base, as_released=True))
        print(f"\nsensitive {sensitive}: {table.n_classes:,} classes")
        print(f"{'model':26s} {'check s':>9s} {'× k':>6s} {'model ms':>9s} {'× k':>7s}")
        k_check = k_model = None
        for name, model in MODELS.items():
            p = parse_policy(policy(model, sensitive))
            check = best(lambda p=p: privcheck.check(frame, p), args.repeat)
            ev = best(lambda p=p, t=table: evaluate_models(t, p.models), args.repeat * 20)
            if k_check is None:
                k_check, k_model = check, max(ev, 1e-6)
            print(
                f"{name:26s} {check:9.3f} {check / k_check:6.2f} {ev * 1e3:9.3f} "
                f"{ev / k_model:7.1f}"
            )
    pol = policy(MODELS["k-anonymity"], "salary-class")
    pol["attributes"]["occupation"] = {
        "role": "quasi_identifier",
        "hierarchy": {"type": "table", "path": str(ADULT / "hierarchies" / "occupation.csv")},
    }
    plain = best(lambda: privcheck.check(adult, pol), args.repeat)
    explained = best(lambda: privcheck.check(adult, pol, explain=True), max(args.repeat // 2, 1))
    report = privcheck.check(adult, pol, explain=True)
    x = report.explanation
    print(
        f"\nAdult ({len(adult):,} rows, {len(QIS) + 1} quasi-identifiers, salary-class "
        f"sensitive): check {plain:.3f} s, check --explain {explained:.3f} s "
        f"({explained / plain:.1f}×; explanation itself {x.seconds:.3f} s wall); "
        f"{x.msu_total:,} MSUs up to size {x.max_size}"
    )


if __name__ == "__main__":
    main()
