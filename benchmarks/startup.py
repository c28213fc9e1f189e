"""How long does the ``privcheck`` command take to start, against the interpreter itself?

A pre-commit hook runs ``privcheck`` on every commit, so its start-up is paid again and again.
This prints, in one run, the wall-clock time of fresh processes:

- ``python -c pass`` — the interpreter's own start-up (site packages, editable installs …);
- ``python -c "import pandas"`` — what any command that reads a table must pay anyway;
- ``privcheck --help`` — building the command list (must import no pandas, scipy, plugin);
- ``privcheck check`` on the first 1,000 rows of Adult with the demo policy (exit 1: the demo
  policy is violated on 1,000 rows; the time is what counts).

``privcheck`` runs as ``python -m privcheck`` from this checkout. Each command is run
``--repeat`` times, interleaved (so a burst of load on a shared machine hits all alike); the
best and the median are printed. Targets (issue 13): ``--help`` ≤ 0.4 s and the 1,000-row check
≤ 0.8 s wall.

    python benchmarks/startup.py             # 7 runs each
    python benchmarks/startup.py --repeat 15
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ADULT = ROOT / "privcheck" / "data" / "adult"

TARGETS = {"privcheck --help": 0.4, "privcheck check (1,000 rows)": 0.8}


def run(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repeat", type=int, default=7, help="runs of each command")
    args = ap.parse_args(argv)

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        sample = Path(tmp) / "adult-1000.csv"
        with (ADULT / "adult.csv").open(encoding="utf-8") as fh:
            sample.write_text("".join(line for _, line in zip(range(1001), fh, strict=False)))
        commands = {
            "python -c pass": [py, "-c", "pass"],
            'python -c "import pandas"': [py, "-c", "import pandas"],
            "privcheck --help": [py, "-m", "privcheck", "--help"],
            "privcheck check (1,000 rows)": [
                py,
                "-m",
                "privcheck",
                "check",
                str(sample),
                "--policy",
                str(ADULT / "policy.yaml"),
            ],
        }
        for cmd in commands.values():  # warm the file cache (.pyc files, the data)
            run(cmd, env)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, cmd in commands.items():
                times[name].append(run(cmd, env))

    base = min(times["python -c pass"])
    pandas = min(times['python -c "import pandas"'])
    print(f"python {sys.version.split()[0]}; wall seconds of fresh processes, {args.repeat} runs")
    header = (
        f"{'command':<30} {'best s':>7} {'median s':>9} {'− python':>9} {'×pandas':>8} "
        f"{'target':>7}"
    )
    print(header)
    print("-" * len(header))
    missed = []
    for name, values in times.items():
        best = min(values)
        target = TARGETS.get(name)
        print(
            f"{name:<30} {best:>7.3f} {statistics.median(values):>9.3f} {best - base:>9.3f} "
            f"{best / pandas:>8.2f} {(f'≤ {target}' if target else ''):>7}"
        )
        if target is not None and best > target:
            missed.append(f"{name} {best:.2f} s > {target} s")
    print(
        "− python: the best time less the interpreter's own start-up; ×pandas: against "
        '`python -c "import pandas"`'
    )
    print("all targets met" if not missed else "MISSED: " + "; ".join(missed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
