"""Singling-out, linkability and inference risk of a synthetic table: privcheck against
Anonymeter 1.1.0 (the peer tool, Giomi et al. PETS 2023), same inputs, same run.

    python benchmarks/synthetic_risk_speed.py            # Adult: 3,000 members, 3,000 controls
    python benchmarks/synthetic_risk_speed.py --quick    # 1,000 each, 200 attacks

Adult (the embedded extract) is split into the members (a generator's training rows), a control
set it never saw and the rest of the population; two synthetic tables: ``leak`` (the members
with 5 % of their cells shuffled — it leaks every person) and ``independent`` (rows of the rest
of Adult — it leaks nobody). Both tools attack every column (singling out), the eight
quasi-identifiers split in two halves (linkability) and salary-class from the
quasi-identifiers (inference), with the same number of attacks. Anonymeter runs with one job
(as privcheck does) after a warm-up call that compiles its numba kernel, so neither time holds
an import or a compilation. Printed: each risk with its 95 % interval from both tools, whether
the intervals overlap, the seconds of each and the ratio Anonymeter / privcheck (> 1: privcheck
is faster).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from privcheck.risk.synthetic.inference import inference  # noqa: E402
from privcheck.risk.synthetic.linkability import default_halves, linkability  # noqa: E402
from privcheck.risk.synthetic.singling_out import singling_out  # noqa: E402

ADULT = ROOT / "privcheck" / "data" / "adult" / "adult.csv"
QIS = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
]
SECRET = "salary-class"


def scenario(n: int, seed: int) -> dict[str, pd.DataFrame]:
    adult = pd.read_csv(ADULT, sep=";")
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(adult))
    members = adult.iloc[order[:n]].reset_index(drop=True)
    control = adult.iloc[order[n : 2 * n]].reset_index(drop=True)
    population = adult.iloc[order[2 * n :]].reset_index(drop=True)
    leak = members.copy()
    for c in leak.columns:
        hit = rng.random(n) < 0.05
        leak.loc[hit, c] = rng.permutation(leak[c].to_numpy())[hit]
    return {
        "members": members,
        "control": control,
        "leak": leak,
        "independent": population.sample(n, random_state=seed).reset_index(drop=True),
    }


def run_privcheck(d, synthetic, n_attacks, seed):
    members, control = d["members"], d["control"]
    out, times = {}, {}
    t = time.perf_counter()
    out["singling-out"] = singling_out(
        members,
        synthetic,
        control,
        attributes=[*QIS, SECRET],
        n_attacks=n_attacks,
        random_state=seed,
    )
    times["singling-out"] = time.perf_counter() - t
    t = time.perf_counter()
    out["linkability"] = linkability(
        members,
        synthetic,
        control,
        aux_cols=default_halves(QIS),
        n_attacks=n_attacks,
        random_state=seed,
    )
    times["linkability"] = time.perf_counter() - t
    t = time.perf_counter()
    out["inference"] = inference(
        members,
        synthetic,
        control,
        [SECRET],
        attributes=QIS,
        n_attacks=n_attacks,
        random_state=seed,
    )
    times["inference"] = time.perf_counter() - t
    return out, times


def run_anonymeter(d, synthetic, n_attacks, seed):
    import logging
    import warnings

    from anonymeter.evaluators import (
        InferenceEvaluator,
        LinkabilityEvaluator,
        SinglingOutEvaluator,
    )

    logging.getLogger("anonymeter").setLevel(logging.ERROR)
    members, control = d["members"], d["control"]
    cols = [*QIS, SECRET]
    halves = default_halves(QIS)
    np.random.seed(seed)
    out, times = {}, {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = time.perf_counter()
        ev = SinglingOutEvaluator(
            ori=members[cols],
            syn=synthetic[cols],
            control=control[cols],
            n_attacks=n_attacks,
            seed=seed,
        ).evaluate()
        times["singling-out"] = time.perf_counter() - t
        out["singling-out"] = ev.results()
        t = time.perf_counter()
        ev = LinkabilityEvaluator(
            ori=members,
            syn=synthetic,
            control=control,
            n_attacks=n_attacks,
            aux_cols=(halves[0], halves[1]),
        ).evaluate(n_jobs=1)
        times["linkability"] = time.perf_counter() - t
        out["linkability"] = ev.results()
        t = time.perf_counter()
        ev = InferenceEvaluator(
            ori=members,
            syn=synthetic,
            control=control,
            aux_cols=QIS,
            secret=SECRET,
            n_attacks=n_attacks,
        ).evaluate(n_jobs=1)
        times["inference"] = time.perf_counter() - t
        out["inference"] = ev.results()
    figures = {}
    for name, res in out.items():
        risk = res.risk()
        figures[name] = {"risk": float(risk.value), "risk_ci": [float(x) for x in risk.ci]}
    return figures, times


def warm_up(d) -> None:
    """One tiny Anonymeter linkability run: numba compiles its distance kernel here."""
    small = {k: v.iloc[:50] for k, v in d.items()}
    run_anonymeter(small, small["leak"], 10, 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1,000 rows each, 200 attacks")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    n, n_attacks = (1000, 200) if args.quick else (3000, 500)
    d = scenario(n, 2024)
    warm_up(d)
    print(f"Adult: {n:,} members, {n:,} controls, {n:,} synthetic rows; {n_attacks} attacks\n")
    header = (
        f"{'release':<12} {'attack':<13} {'privcheck risk [95 % CI]':<26} "
        f"{'Anonymeter risk [95 % CI]':<26} {'overlap':<8} {'privcheck s':>11} "
        f"{'Anonymeter s':>12} {'ratio':>6}"
    )
    print(header)
    print("-" * len(header))
    total_p = total_a = 0.0
    for release in ("leak", "independent"):
        ours, t_ours = run_privcheck(d, d[release], n_attacks, args.seed)
        theirs, t_theirs = run_anonymeter(d, d[release], n_attacks, args.seed)
        for attack in ("singling-out", "linkability", "inference"):
            a, b = ours[attack], theirs[attack]
            overlap = a["risk_ci"][0] <= b["risk_ci"][1] and b["risk_ci"][0] <= a["risk_ci"][1]
            total_p += t_ours[attack]
            total_a += t_theirs[attack]
            print(
                f"{release:<12} {attack:<13} "
                f"{a['risk']:.3f} [{a['risk_ci'][0]:.3f}, {a['risk_ci'][1]:.3f}]{'':<5} "
                f"{b['risk']:.3f} [{b['risk_ci'][0]:.3f}, {b['risk_ci'][1]:.3f}]{'':<5} "
                f"{'yes' if overlap else 'NO':<8} {t_ours[attack]:>11.2f} "
                f"{t_theirs[attack]:>12.2f} {t_theirs[attack] / t_ours[attack]:>6.1f}"
            )
    print(
        f"\ntotal: privcheck {total_p:.2f} s, Anonymeter {total_a:.2f} s, "
        f"ratio {total_a / total_p:.1f}"
    )


if __name__ == "__main__":
    main()
