"""How long does the ``privcheck`` command take to start, against the interpreter itself?

A pre-commit hook runs ``privcheck`` on every commit, so its start-up is paid again and again.
This prints, in one run, the wall-clock time and the processor time (user + system, of the
process and its children, from ``os.wait4``) of fresh processes:

- ``python -c pass`` — the interpreter's own start-up (site packages, editable installs …);
- ``python -c "import pandas"`` — what any command that reads a table must pay anyway;
- ``privcheck --help`` — building the command list (must import no pandas, scipy, plugin);
- ``privcheck check`` on the first 1,000 rows of Adult with the demo policy (exit 1: the demo
  policy is violated on 1,000 rows; the time is what counts);
- ``privcheck check`` on the whole of Adult (30,162 rows, exit 0).

``privcheck`` runs as ``python -m privcheck`` from this checkout, its bytecode compiled first
(as ``pip install`` does; with ``PYTHONDONTWRITEBYTECODE`` set an editable checkout would
otherwise compile every module in every run). Each command is run ``--repeat`` times,
interleaved (so a burst of load on a shared machine hits all alike); the best and the median
are printed. Targets: issue 13, ``--help`` ≤ 0.4 s and the 1,000-row check ≤ 0.8 s wall;
issue 33, processor time against ``import pandas``: the 1,000-row check ≤ 1.0×, Adult ≤ 1.1×.

    python benchmarks/startup.py             # 7 runs each
    python benchmarks/startup.py --repeat 15
"""

from __future__ import annotations

import argparse
import compileall
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
#: processor time against ``python -c "import pandas"`` (issue 33)
CPU_TARGETS = {"privcheck check (1,000 rows)": 1.0, "privcheck check (Adult)": 1.1}


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and processor seconds (user + system) of one fresh process."""
    start = time.perf_counter()
    child = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(child.pid, 0)
    child.returncode = 0  # (reaped by wait4)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


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
            "privcheck check (Adult)": [
                py,
                "-m",
                "privcheck",
                "check",
                str(ADULT / "adult.csv"),
                "--policy",
                str(ADULT / "policy.yaml"),
            ],
        }
        compileall.compile_dir(ROOT / "privcheck", quiet=1)
        for cmd in commands.values():  # warm the file cache (.pyc files, the data)
            run(cmd, env)
        times: dict[str, list[float]] = {name: [] for name in commands}
        cpu: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, cmd in commands.items():
                wall, used = run(cmd, env)
                times[name].append(wall)
                cpu[name].append(used)

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
    pandas_cpu = min(cpu['python -c "import pandas"'])
    print(f"\nprocessor seconds (user + system), {args.repeat} runs")
    header = f"{'command':<30} {'best s':>7} {'median s':>9} {'×pandas':>8} {'target':>7}"
    print(header)
    print("-" * len(header))
    for name, values in cpu.items():
        best = min(values)
        ratio = best / pandas_cpu
        target = CPU_TARGETS.get(name)
        print(
            f"{name:<30} {best:>7.3f} {statistics.median(values):>9.3f} {ratio:>8.2f} "
            f"{(f'≤ {target}' if target else ''):>7}"
        )
        if target is not None and ratio > target:
            missed.append(f"{name} {ratio:.2f}× import pandas's processor time > {target}×")
    print("all targets met" if not missed else "MISSED: " + "; ".join(missed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
