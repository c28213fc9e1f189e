"""SafePub's time and utility on Adult for ε ∈ {0.5, 1, 2}, δ = 1e-6 — and ARX's, measured.

Run from the repository root::

    python benchmarks/safepub.py [--quick] [--runs N] [--steps S] [--arx DIR]

Set-up: privcheck's Adult (30,162 records), the 8 usual quasi-identifiers with ARX's hierarchies,
salary-class released as it stands (so the classes are formed over 9 columns — see
``privcheck/anonymizers/safepub.py``), ``loss`` as the score, a tenth of ε for the search (ARX's
default), ``--steps`` (default 100) search steps. Each ε is run ``--runs`` times (default 5) with
fresh randomness: the mechanism is random, so utility is a mean with its spread.

Utility is computed the same way for both tools, from the released rows: ARX's loss and Sweeney's
Prec over the 8 quasi-identifiers with every input record that is not released (not sampled, or
suppressed) counted as suppressed (it releases nothing), and the records kept.

ARX: ``--arx DIR`` names a directory with ARX built from its public source
(``../shared/tools/arx/build.sh ARX_GIT OUT`` writes OUT/classpath);
``benchmarks/SafePubBench.java`` (a harness calling ARX's public API, not ARX code) is then
compiled against it into a temporary directory and run in one JVM per ε on the same set-up
(``EDDifferentialPrivacy(ε, δ)`` without a generalization scheme, search budget 0.1·ε, the same
number of expansions; salary-class a quasi-identifier held at level 0). Its time is the
``anonymize`` call of the warm runs (the first run of each JVM warms it up and is left out).
Without ``--arx`` the ARX rows say "not measured".

Published figures: the SafePub paper (Bild, Kuhn & Prasser, PoPETs 2018) evaluates Adult among
other data sets, but its full text was not reachable from the machine this was written on, so no
published figure is printed — none is made up.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from privcheck.io import read_table  # noqa: E402
from privcheck.metrics.generalization import precision  # noqa: E402
from privcheck.models.differential_privacy import derive_parameters  # noqa: E402
from privcheck.pipeline.anonymize import anonymize  # noqa: E402

ADULT = ROOT / "privcheck" / "data" / "adult"
QIS = ["age", "sex", "race", "marital-status", "education", "native-country", "workclass"]
QIS += ["occupation"]
EPSILONS = (0.5, 1.0, 2.0)
DELTA = 1e-6
FRACTION = 0.1


def policy(eps: float) -> dict:
    attrs = {
        q: {"role": "quasi_identifier", "hierarchy": {"type": "table", "path": str(h)}}
        for q, h in ((q, ADULT / "hierarchies" / f"{q}.csv") for q in QIS)
    }
    attrs["salary-class"] = {"role": "sensitive"}
    dp = {"model": "differential-privacy", "epsilon": eps, "delta": DELTA}
    return {"attributes": attrs, "models": [dp], "metric": "loss"}


class Hierarchies:
    """Leaves under each label of each level, from the hierarchy files (for the loss)."""

    def __init__(self) -> None:
        self.tables = {
            q: pd.read_csv(ADULT / "hierarchies" / f"{q}.csv", sep=";", header=None, dtype=str)
            for q in QIS
        }

    def heights(self) -> list[int]:
        return [self.tables[q].shape[1] - 1 for q in QIS]

    def share(self, q: str, level: int) -> dict[str, float]:
        t = self.tables[q]
        leaves = t[level].value_counts()
        return ((leaves - 1) / max(len(t) - 1, 1)).to_dict()


def utility(release: pd.DataFrame, node: list[int], n_input: int, h: Hierarchies) -> dict:
    """Loss and Prec of a release over the 8 quasi-identifiers, every unreleased record counted
    as suppressed; rows of '*' in every quasi-identifier are suppressed records."""
    qi = release[QIS].astype(str)
    kept_rows = qi[~(qi == "*").all(axis=1)]
    n_kept = len(kept_rows)
    suppressed = n_input - n_kept
    total = float(suppressed * len(QIS))
    for q, level in zip(QIS, node, strict=True):
        total += float(kept_rows[q].map(h.share(q, level)).sum())
    return {
        "loss": total / (n_input * len(QIS)),
        "prec": precision(node, h.heights(), n_input, suppressed),
        "kept": n_kept,
    }


def run_privcheck(data: pd.DataFrame, eps: float, runs: int, steps: int, h: Hierarchies):
    times, utils = [], []
    for _ in range(runs):
        started = time.perf_counter()
        release, report = anonymize(data, policy(eps), "safepub", steps=steps)
        times.append(time.perf_counter() - started)
        node = [report.node[q] for q in QIS]
        utils.append(utility(release, node, len(data), h))
    return times, utils, report


def compile_harness(arx: Path, into: Path) -> str:
    classpath = (arx / "classpath").read_text().strip()
    subprocess.run(
        [
            "javac",
            "-nowarn",
            "-cp",
            classpath,
            "-d",
            str(into),
            str(ROOT / "benchmarks" / "SafePubBench.java"),
        ],
        check=True,
    )
    return f"{classpath}:{into}"


def run_arx(classpath: str, tmp: Path, eps: float, runs: int, steps: int, h: Hierarchies, n: int):
    out = tmp / f"arx-{eps}"
    args = [
        str(ADULT),
        str(eps),
        str(DELTA),
        str(steps),
        str(FRACTION),
        "loss",
        str(out),
        str(runs + 1),
    ]
    proc = subprocess.run(
        ["java", "-cp", classpath, "SafePubBench", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    times, utils, ks = [], [], set()
    for r, line in enumerate(proc.stdout.strip().splitlines()):
        fields = dict(part.split("=", 1) for part in line.split())
        ks.add(int(fields["k"]))
        if r == 0:
            continue  # JVM warm-up
        levels = dict(p.split("=") for p in fields["node"].strip(",").split(","))
        release = pd.read_csv(f"{out}-{r}.csv", sep=";", dtype=str)
        times.append(float(fields["seconds"]))
        utils.append(utility(release, [int(levels[q]) for q in QIS], n, h))
    return times, utils, ks


def summary(times: list[float], utils: list[dict]) -> str:
    loss = np.array([u["loss"] for u in utils])
    prec = np.array([u["prec"] for u in utils])
    kept = np.array([u["kept"] for u in utils])
    return (
        f"{statistics.median(times):7.3f} s  loss {loss.mean():.3f}±{loss.std():.3f}  "
        f"prec {prec.mean():.3f}±{prec.std():.3f}  kept {kept.mean():7.0f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 runs per ε")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--arx", type=Path, help="a directory with ARX built (OUT of build.sh)")
    args = parser.parse_args()
    runs = 2 if args.quick else args.runs
    data = read_table(ADULT / "adult.csv")
    h = Hierarchies()
    print(
        f"SafePub on Adult: {len(data):,} records, 8 quasi-identifiers + salary-class released as "
        f"is, δ = {DELTA:g}, {args.steps} steps, ε_search = {FRACTION}·ε, score loss, {runs} runs"
    )
    classpath = None
    with tempfile.TemporaryDirectory() as tmp:
        if args.arx is not None:
            try:
                classpath = compile_harness(args.arx, Path(tmp))
            except (OSError, subprocess.CalledProcessError) as exc:
                print(f"ARX: not measured (the harness did not compile: {exc})")
        for eps in EPSILONS:
            p = derive_parameters((1 - FRACTION) * eps, DELTA)
            times, utils, _ = run_privcheck(data, eps, runs, args.steps, h)
            print(f"\nε = {eps:g}: ε_anon = {p.epsilon:g}, β = {p.beta:.4f}, k = {p.k}")
            print(f"  privcheck  {summary(times, utils)}")
            if classpath is None:
                print("  ARX        not measured (give --arx DIR with ARX built by build.sh)")
                continue
            arx_times, arx_utils, ks = run_arx(
                classpath, Path(tmp), eps, runs, args.steps, h, len(data)
            )
            print(f"  ARX        {summary(arx_times, arx_utils)}  (k = {', '.join(map(str, ks))})")
            ratio = statistics.median(arx_times) / statistics.median(times)
            print(f"  time ARX / privcheck: {ratio:.1f}×")
    print(
        "\npublished (Bild et al. 2018): not printed — the paper's text was not available here; "
        "ARX above is measured, not published"
    )


if __name__ == "__main__":
    main()
