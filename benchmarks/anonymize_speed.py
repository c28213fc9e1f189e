"""Speed of the generalization anonymizers on Adult, against ARX and anjana, measured in one run.

Run from the repository root::

    python benchmarks/anonymize_speed.py [--quick] [--arx DIR] [--only-arx]

1. ARX's benchmark set-up, the one ``../shared/tools/arx/Bench.java`` runs (8 QIs including
   salary-class, occupation insensitive, 5-anonymity, ARX's loss metric, 0 % and 1 %
   suppression): MinGen against ARX's Flash. ``--arx DIR`` names ARX built from its public
   source by ``../shared/tools/arx/build.sh ARX_GIT DIR``; the script checks that ARX's copy of
   Adult and of the hierarchies is byte-identical to privcheck's, runs ``Bench`` in a JVM
   (``java -cp "$(cat DIR/classpath)" Bench DIR/src/data 5 SUPPRESSION loss RUNS``) between two
   halves of privcheck's runs, and prints both sides, the ratio, and stops with an error unless
   both find the same optimum (node and suppressed records). Both sides are wall-clock seconds of
   repeated runs in one process (the first cold, the others warm), from the data in memory to the
   optimum: ARX's ``anonymize`` (encoding and Flash), privcheck's encoding and MinGen. Without
   ``--arx`` the ARX rows print "ARX: not measured" — no other figure stands in for them.
2. The same set-up with occupation sensitive and Prec: Incognito and the exhaustive search
   (every node evaluated), privcheck alone.
3. Adult, salary-class sensitive, the 8 usual quasi-identifiers, k-anonymity for k = 2, 5, 10 with
   0 % and 1 % suppression: Incognito, MinGen and DataFly — search time, nodes evaluated and nodes
   per second, Prec, suppressed records — and anjana (a DataFly-like greedy loop checked with
   pyCANON) on the same hierarchies and policy: the ratio of times, Prec and suppression. With
   1 % suppression also MinGen with ``tradeoff=True`` (the Pareto front of Prec and suppressed
   records): whether the front holds a release that beats anjana's on both counts.
4. All nine attributes as quasi-identifiers (12,960 nodes): the lattice searched exhaustively
   (every node evaluated) and by Incognito.

Times in 2.-4. are CPU seconds of the process (``time.process_time``) — the machine these run on
is shared, and CPU time is what an idle core would take — with wall-clock seconds alongside; each
is the best of a few runs. The search time excludes reading and encoding the data and
materialising the release; the end-to-end time of ``anonymize`` is printed as well.

anjana pins old numpy / pandas / pyCANON versions, so it runs in its own virtual environment,
through a subprocess::

    python -m venv /tmp/anjana-venv && /tmp/anjana-venv/bin/pip install anjana

(set ``ANJANA_PYTHON`` to use another interpreter). Without it the anjana rows print
"anjana: skipped (no venv; see docstring)".
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from privcheck.anonymizers.problem import SearchProblem  # noqa: E402
from privcheck.encoding import encode  # noqa: E402
from privcheck.io import read_table  # noqa: E402
from privcheck.metrics.generalization import get_metric, precision  # noqa: E402
from privcheck.pipeline.anonymize import anonymize  # noqa: E402
from privcheck.plugins import anonymizer_registry  # noqa: E402
from privcheck.policy import load_policy  # noqa: E402

ADULT = ROOT / "privcheck" / "data" / "adult"
HIERARCHIES = ADULT / "hierarchies"
SALARY_QIS = [
    "age",
    "sex",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
]
ARX_QIS = [
    "age",
    "sex",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "salary-class",
]
ALL_QIS = [*SALARY_QIS, "salary-class"]
ANJANA_PYTHON = Path(os.environ.get("ANJANA_PYTHON", "/tmp/anjana-venv/bin/python"))

ANJANA_RUNNER = r"""
import json, sys, time
import numpy as np, pandas as pd
from anjana.anonymity._k_anonymity import k_anonymity_inner
cfg = json.loads(sys.argv[1])
data = pd.read_csv(cfg["data"], sep=";", dtype=str)
hier = {}
for q in cfg["qis"]:
    text = open(f"{cfg['hierarchies']}/{q}.csv", encoding="utf-8").read()
    rows = [line.rstrip("\r").split(";") for line in text.splitlines() if line.strip()]
    hier[q] = {i: np.array([r[i] for r in rows], dtype=object) for i in range(len(rows[0]))}
wall, cpu = time.perf_counter(), time.process_time()
anon, supp, levels = k_anonymity_inner(data, [], cfg["qis"], cfg["k"], cfg["supp"] * 100, hier)
cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
print(json.dumps({"cpu": cpu, "wall": wall, "suppressed": int(supp), "rows": len(anon),
                  "levels": {k: int(v) for k, v in levels.items()}}))
"""


def policy(qis: list[str], sensitive: str, k: int, limit: float) -> dict:
    attrs = {
        q: {
            "role": "quasi_identifier",
            "hierarchy": {"type": "table", "path": str(HIERARCHIES / f"{q}.csv")},
        }
        for q in qis
    }
    if sensitive:
        attrs[sensitive] = {"role": "sensitive"}
    return {
        "attributes": attrs,
        "models": [{"model": "k-anonymity", "k": k}],
        "suppression_limit": limit,
    }


def timed(frame, pol: dict, algorithm: str, runs: int, **params) -> dict:
    """Best-of-``runs`` search time (CPU and wall) of ``algorithm`` on the encoded table, and one
    end-to-end ``anonymize`` (encode, search, release, re-check) for its report."""
    policy_ = load_policy(pol)
    encoded = encode(frame, policy_)
    limit = int(policy_.suppression_limit * encoded.n_records + 1e-9)
    cls = anonymizer_registry()[algorithm]
    cpu_best = wall_best = float("inf")
    for _ in range(runs):
        cpu, wall = time.process_time(), time.perf_counter()
        problem = SearchProblem(encoded, policy_.models, limit, get_metric(policy_.metric))
        cls(**params).search(problem)
        cpu_best = min(cpu_best, time.process_time() - cpu)
        wall_best = min(wall_best, time.perf_counter() - wall)
    cpu, wall = time.process_time(), time.perf_counter()
    _, report = anonymize(frame, pol, algorithm, **params)
    return {
        "report": report,
        "search_cpu": cpu_best,
        "search_wall": wall_best,
        "total_cpu": time.process_time() - cpu,
        "total_wall": time.perf_counter() - wall,
    }


def run(frame, qis, sensitive, k, limit, algorithm, runs=3, **params):
    return timed(frame, policy(qis, sensitive, k, limit), algorithm, runs, **params)


def anjana(qis: list[str], k: int, limit: float) -> dict | None:
    if not ANJANA_PYTHON.exists():
        return None
    cfg = {
        "data": str(ADULT / "adult.csv"),
        "hierarchies": str(HIERARCHIES),
        "qis": qis,
        "k": k,
        "supp": limit,
    }
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(ANJANA_RUNNER)
    try:
        out = subprocess.run(
            [str(ANJANA_PYTHON), fh.name, json.dumps(cfg)],
            capture_output=True,
            text=True,
            timeout=3600,
            check=True,
        ).stdout
    finally:
        Path(fh.name).unlink(missing_ok=True)
    return json.loads(out.strip().splitlines()[-1])


def fmt_row(name: str, row: dict) -> str:
    r = row["report"]
    rate = r.nodes_evaluated / max(row["search_cpu"], 1e-9)
    search = (
        f"search {row['search_cpu'] * 1000:8.1f} ms cpu ({row['search_wall'] * 1000:7.1f} wall)"
    )
    total = f"anonymize {row['total_cpu']:5.2f} s cpu"
    nodes = f"nodes {r.nodes_evaluated:5d} ({rate:5.0f}/s)"
    result = f"Prec {r.metrics['prec']:.4f}  suppressed {r.n_suppressed:4d}"
    return f"  {name:10s} {search}  {total}  {nodes}  {result}  node {list(r.node.values())}"


def section_adult(frame, quick: bool) -> None:
    print("\n== Adult, salary-class sensitive, 8 QIs (6,480 nodes): k-anonymity ==")
    heights = [4, 1, 1, 2, 3, 2, 2, 2]  # age, sex, race, marital, education, country, work, occ.
    worst = worst_fly = worst_front = float("inf")
    dominated = 0
    for k in (2, 5, 10):
        for limit in (0.0, 0.01):
            print(f"k={k}, suppression {limit:.0%}:")
            rows = {
                algorithm: run(
                    frame, SALARY_QIS, "salary-class", k, limit, algorithm, runs=1 if quick else 3
                )
                for algorithm in ("incognito", "mingen", "datafly")
            }
            if limit > 0:  # the optimum and the whole generalization / suppression front
                rows["mingen+front"] = run(
                    frame,
                    SALARY_QIS,
                    "salary-class",
                    k,
                    limit,
                    "mingen",
                    runs=1 if quick else 3,
                    tradeoff=True,
                )
            for algorithm, row in rows.items():
                print(fmt_row(algorithm, row))
            res = None if quick else anjana(SALARY_QIS, k, limit)
            if res is None:
                print(
                    "  anjana: skipped (--quick)"
                    if quick
                    else "  anjana: skipped (no venv; see docstring)"
                )
                continue
            node = [res["levels"].get(q, 0) for q in SALARY_QIS]
            prec = precision(node, heights, len(frame), res["suppressed"])
            opt = rows["mingen"]
            print(
                f"  {'anjana':10s} run {res['cpu']:8.2f} s cpu ({res['wall']:.2f} wall)"
                f"  Prec {prec:.4f}  suppressed {res['suppressed']:4d}  node {node}"
            )
            ratio = res["cpu"] / opt["total_cpu"]
            worst = min(worst, ratio)
            print(
                f"  → optimal MinGen end to end is {ratio:.0f}× faster than anjana (cpu; "
                f"{res['wall'] / opt['total_wall']:.0f}× wall) with Prec "
                f"{opt['report'].metrics['prec']:.4f} vs {prec:.4f} and "
                f"{opt['report'].n_suppressed} vs {res['suppressed']} suppressed records"
            )
            if "mingen+front" in rows:
                front_row = rows["mingen+front"]
                front = front_row["report"].tradeoff
                better = [
                    p
                    for p in front
                    if p["value"] >= prec - 1e-12 and p["suppressed"] < res["suppressed"]
                ]
                ratio = res["cpu"] / front_row["total_cpu"]
                worst_front = min(worst_front, ratio)
                if better:
                    p = max(better, key=lambda p: p["value"])
                    print(
                        f"  → the front ({len(front)} releases, {ratio:.0f}× faster than anjana "
                        f"end to end) holds Prec {p['value']:.4f} ≥ {prec:.4f} with "
                        f"{p['suppressed']} < {res['suppressed']} suppressed records: node "
                        f"{list(p['node'].values())}"
                    )
                    dominated += 1
                else:
                    print(
                        f"  → no release on the front ({len(front)}) has Prec ≥ {prec:.4f} and "
                        f"fewer than {res['suppressed']} suppressed records"
                    )
            fly = rows["datafly"]
            same = list(fly["report"].node.values()) == node
            fly_ratio = res["cpu"] / fly["total_cpu"]
            worst_fly = min(worst_fly, fly_ratio)
            print(
                f"  → DataFly {'finds the same node as' if same else 'differs from'} anjana, "
                f"{fly_ratio:.0f}× faster (cpu)"
            )
    if worst < float("inf"):
        print(
            f"smallest speed-up over anjana: optimal search {worst:.0f}×, DataFly "
            f"{worst_fly:.0f}× (target ≥ 10×)"
        )
        print(
            f"with 1 % suppression, the generalization / suppression front beats anjana on both "
            f"Prec and suppression in {dominated} of 3 cases; smallest speed-up with the front "
            f"{worst_front:.0f}×"
        )


def arx_policy(limit: float) -> dict:
    """ARX's benchmark set-up as ``Bench.java`` configures it: the 8 QIs incl. salary-class,
    occupation insensitive, 5-anonymity, the loss metric."""
    pol = policy(ARX_QIS, "", 5, limit)
    pol["attributes"]["occupation"] = {"role": "insensitive"}
    pol["metric"] = "loss"
    return pol


def privcheck_runs(
    frame, limit: float, runs: int, algorithm: str = "mingen", params: dict | None = None
) -> dict:
    """``runs`` anonymization searches in this process, each timed (wall, like ARX's
    ``System.nanoTime``) from the data in memory to the optimum: encoding (ARX's ``anonymize``
    encodes its data too, and privcheck's encoding also resolves the hierarchy files, which ARX
    reads before its clock starts) and the search. The first run is the cold one; the others
    are warm, as ARX's are."""
    pol = load_policy(arx_policy(limit))
    cls = anonymizer_registry()[algorithm]
    times, search = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        encoded = encode(frame, pol)
        t1 = time.perf_counter()
        n_limit = int(pol.suppression_limit * encoded.n_records + 1e-9)
        problem = SearchProblem(encoded, pol.models, n_limit, get_metric(pol.metric))
        result = cls(**{**cls.defaults(), **(params or {})}).search(problem)
        t2 = time.perf_counter()
        times.append(t2 - t0)
        search.append(t2 - t1)
    node = dict(zip(encoded.qi_names, result.optimum, strict=True))
    return {
        "first": times[0],
        "warm": sorted(times[1:]) or times,
        "search": sorted(search[1:]) or search,
        "node": node,
        "suppressed": result.optimum_outcome.suppressed,
        "evaluations": problem.evaluations,
    }


def same_data(arx_data: Path) -> str | None:
    """Why ARX's copy of Adult differs from privcheck's (None: byte-identical files)."""
    pairs = [(arx_data / "adult.csv", ADULT / "adult.csv")] + [
        (arx_data / f"adult_hierarchy_{q}.csv", HIERARCHIES / f"{q}.csv") for q in ARX_QIS
    ]
    for theirs, ours in pairs:
        if not theirs.is_file() or theirs.read_bytes() != ours.read_bytes():
            return f"{theirs} differs from {ours}"
    return None


def arx_runs(arx: Path, limit: float, runs: int) -> dict:
    """Run ARX's Flash through ``Bench.java`` (built by ../shared/tools/arx/build.sh) and parse
    what it prints: the first run, the warm median and minimum, the optimum and its suppressed
    records."""
    classpath = (arx / "classpath").read_text().strip()
    cmd = ["java", "-cp", classpath, "Bench", str(arx / "src" / "data"), "5", str(limit)]
    out = subprocess.run(
        [*cmd, "loss", str(runs)], capture_output=True, text=True, timeout=1800, check=True
    ).stdout
    first = re.search(r"first=([0-9.]+)s", out)
    warm = re.search(r"warm median=([0-9.]+)s min=([0-9.]+)s", out)
    node = re.search(r"node: (.*?) \| classes=(\d+) suppressed=(\d+)", out)
    if not (first and warm and node):
        raise RuntimeError(f"unexpected output from ARX's Bench: {out!r}")
    levels = dict(part.split("=") for part in node.group(1).split())
    return {
        "first": float(first.group(1)),
        "median": float(warm.group(1)),
        "min": float(warm.group(2)),
        "node": {q: int(levels[q]) for q in ARX_QIS},
        "suppressed": int(node.group(3)),
    }


def section_arx(frame, quick: bool, arx: Path | None) -> None:
    print(
        "\n== ARX benchmark set-up: 8 QIs incl. salary-class, occupation insensitive, "
        "5-anonymity, loss metric (4,320 nodes); wall seconds, this machine, this run =="
    )
    runs = 3 if quick else 9
    if arx is not None:
        if not (arx / "classpath").is_file():
            raise SystemExit(f"{arx} is not an ARX build: run ../shared/tools/arx/build.sh first")
        if shutil.which("java") is None:
            raise SystemExit("java is not installed: apt-get install -y openjdk-17-jdk-headless")
        why = same_data(arx / "src" / "data")
        if why:
            raise SystemExit(f"ARX's data is not privcheck's ({why}); rebuild ARX with build.sh")
    # Flash finds the optimum and nothing else; MinGen by default also scores the nodes of the
    # generalization / suppression trade-off front (the report's front, ~0.03 s more at 1 %).
    # The ratio compares like with like — the optimum alone (``tradeoff=False``) — and the
    # default's time is printed beside it.
    alone = {"tradeoff": False}
    for limit in (0.0, 0.01):
        # privcheck's runs are split around ARX's, so both sides share the machine's load
        ours = privcheck_runs(frame, limit, (runs + 1) // 2, params=alone)
        theirs = arx_runs(arx, limit, runs) if arx is not None else None
        late = privcheck_runs(frame, limit, runs - (runs + 1) // 2 + 1, params=alone)
        front = privcheck_runs(frame, limit, (runs + 1) // 2)
        with_front = sorted(front["warm"])[len(front["warm"]) // 2]
        warm = sorted(ours["warm"] + late["warm"])
        search = sorted(ours["search"] + late["search"])
        med, low = warm[len(warm) // 2], warm[0]
        print(f"suppression {limit:.0%}:")
        print(
            f"  MinGen  first {ours['first']:.3f} s  warm median {med:.3f} s  min {low:.3f} s "
            f"(n={len(warm)}; search alone: median {search[len(search) // 2]:.3f} s)  "
            f"{ours['evaluations']} nodes evaluated  node {ours['node']}  "
            f"suppressed {ours['suppressed']}"
        )
        print(
            f"  MinGen with its trade-off front (the default): warm median {with_front:.3f} s, "
            f"{front['evaluations']} nodes evaluated"
        )
        if theirs is None:
            print("  ARX: not measured (give --arx DIR: ARX built by ../shared/tools/arx/build.sh)")
            continue
        print(
            f"  ARX     first {theirs['first']:.3f} s  warm median {theirs['median']:.3f} s  "
            f"min {theirs['min']:.3f} s (n={runs - 1})  Flash  node {theirs['node']}  "
            f"suppressed {theirs['suppressed']}"
        )
        if theirs["node"] != ours["node"] or theirs["suppressed"] != ours["suppressed"]:
            raise SystemExit(
                f"different optima: ARX {theirs['node']} ({theirs['suppressed']} suppressed), "
                f"privcheck {ours['node']} ({ours['suppressed']} suppressed)"
            )
        print(
            f"  → same optimum; MinGen is {theirs['median'] / med:.1f}× faster than ARX's warm "
            f"Flash (median / median; {theirs['min'] / low:.1f}× min / min); with its "
            f"trade-off front {theirs['median'] / with_front:.1f}×"
        )


def section_other_searches(frame, quick: bool) -> None:
    print(
        "\n== ARX's set-up, other searches (privcheck only; occupation sensitive, Prec, "
        "0 % suppression) =="
    )
    runs = 1 if quick else 5
    inc = run(frame, ARX_QIS, "occupation", 5, 0.0, "incognito", runs=runs)
    bfs = run(frame, ARX_QIS, "occupation", 5, 0.0, "mingen", runs=1 if quick else 2, tagging=False)
    print(fmt_row("incognito", inc))
    print(fmt_row("exhaustive", bfs))


def section_full(frame, quick: bool) -> None:
    print("\n== All 9 attributes as QIs, 5-anonymity, 0 % suppression (12,960 nodes) ==")
    for name, algorithm, params in (
        ("exhaustive", "mingen", {"tagging": False}),
        ("incognito", "incognito", {}),
        ("mingen", "mingen", {}),
    ):
        print(fmt_row(name, run(frame, ALL_QIS, "", 5, 0.0, algorithm, runs=1, **params)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs, no anjana")
    parser.add_argument("--arx", type=Path, help="ARX built by ../shared/tools/arx/build.sh")
    parser.add_argument("--only-arx", action="store_true", help="the ARX comparison alone")
    args = parser.parse_args()
    frame = read_table(ADULT / "adult.csv")
    print(f"Adult: {len(frame)} records; {os.cpu_count()} cores")
    section_arx(frame, args.quick, args.arx)
    if args.only_arx:
        return
    print("\nsearch times below: best of several runs, CPU seconds")
    section_other_searches(frame, args.quick)
    section_adult(frame, args.quick)
    section_full(frame, args.quick)


if __name__ == "__main__":
    main()
