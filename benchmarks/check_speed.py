"""How fast is a full check, against pyCANON and against the floor of any group-by check?

A full check is k-anonymity, distinct / entropy / recursive (c,l)-diversity and t-closeness with
equal and ordered distance, on Adult's 8 quasi-identifiers with salary-class sensitive (ARX's
hierarchies in the policy, as in ``privcheck demo``), through ``privcheck.check`` on a pandas frame
of string columns. Sizes: Adult itself (30,162 rows) and Adult rows resampled to 1 M and 10 M.

Baselines, measured in the same run:
- **pyCANON** (per-class Python loops): the same six figures (and a check that k, distinct l and
  both t agree with privcheck's). It is run on the ``--pycanon-rows`` sizes only (default Adult
  and 1 M, a few minutes); no figure is extrapolated to sizes it was not run on.
- **floor**: the least any exact check does — ``pd.factorize`` of each quasi-identifier and of the
  sensitive column, one combined key, one ``np.bincount``: a single group-by computing no model.

Typed input (issue 13): the same rows as a frame of pandas **categoricals** and as a **Parquet**
file (written from the frame; privcheck reads its string columns as dictionaries). Their floor
is the group-by on the codes the input already carries — the categoricals' codes, and for
Parquet reading the policy's columns as dictionaries plus that group-by — one combined key and
one ``np.bincount``, no factorization. Each typed row prints the full check and k-anonymity
alone (the policy's attributes, one model) against that floor (the k floor leaves out the
sensitive column).

Times are process CPU seconds, best of several repeats (``--wall`` for wall-clock): on a shared
machine wall time mostly measures the neighbours, and every contender here is single-threaded.

Memory (in a fresh interpreter per size, after a warm-up check): extra peak over the frame
already in memory, against ``frame.memory_usage(deep=True)``: the tracked peak — tracemalloc's
(Python objects, numpy/pandas buffers) plus Arrow's (a proxy memory pool) — and, as a
cross-check, the growth of the peak RSS (``/proc/self/clear_refs`` resets the high-water mark).

Targets (issue 3): ≥ 50× faster than pyCANON, ≤ 3× the floor, extra peak memory ≤ the frame.
Targets (issue 13, typed input): k-anonymity alone ≤ 2× and the full check ≤ 3× the floor on
the codes, at 2 M and 10 M rows.

    python benchmarks/check_speed.py                  # Adult, 1 M, 10 M; pyCANON on Adult, 1 M
    python benchmarks/check_speed.py --quick          # smoke run: Adult, 200 k; pyCANON on 1-2 k
    python benchmarks/check_speed.py --rows adult,2m --pycanon-rows adult,1m
    python benchmarks/check_speed.py --rows 2m,10m --no-pycanon --no-memory   # typed-input targets
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import subprocess
import sys
import tempfile
import time
import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

import privcheck  # noqa: E402
from privcheck.policy import parse_policy  # noqa: E402

ADULT = ROOT / "privcheck" / "data" / "adult"
QIS = [
    "age",
    "sex",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
]
SENSITIVE = "salary-class"
MODELS = [
    {"model": "k-anonymity", "k": 5},
    {"model": "l-diversity", "variant": "distinct", "l": 2},
    {"model": "l-diversity", "variant": "entropy", "l": 2},
    {"model": "l-diversity", "variant": "recursive", "l": 2, "c": 3},
    {"model": "t-closeness", "t": 0.2, "distance": "equal"},
    {"model": "t-closeness", "t": 0.2, "distance": "ordered"},
]


def policy() -> privcheck.Policy:
    """The demo policy's attributes (ARX hierarchies) with the six models of a full check."""
    base = privcheck.load_policy(ADULT / "policy.yaml")
    data = base.model_dump(mode="json", exclude={"models"})
    data["models"] = [
        {**m, "attribute": SENSITIVE} if m["model"] != "k-anonymity" else m for m in MODELS
    ]
    return parse_policy(data, base_dir=base.base_dir)


def k_policy() -> privcheck.Policy:
    """The same attributes with k-anonymity alone (no model reads the sensitive column)."""
    base = privcheck.load_policy(ADULT / "policy.yaml")
    data = base.model_dump(mode="json", exclude={"models"})
    data["models"] = [MODELS[0]]
    return parse_policy(data, base_dir=base.base_dir)


# --------------------------------------------------------------------------- the floor


def floor_check(frame: pd.DataFrame, columns: list[str] | None = None) -> np.ndarray:
    """One group-by of the QIs and the sensitive value: factorize + combined key + bincount."""
    key = np.zeros(len(frame), dtype=np.int64)
    space = 1
    for name in columns or [*QIS, SENSITIVE]:
        codes, uniques = pd.factorize(frame[name])
        card = max(len(uniques), 1)
        if space * card >= 1 << 62:  # keep the key in int64: renumber what we have so far
            key, space = _renumber(key)
        key *= card
        key += codes
        space *= card
    if space > 4 * len(frame):  # too sparse for a dense count: renumber (hash) first
        key, space = _renumber(key)
    return np.bincount(key, minlength=space)


def codes_floor(frame: pd.DataFrame, columns: list[str]) -> np.ndarray:
    """The group-by on codes a typed frame already carries: combined key + bincount (the
    benchmark's rows have no missing value, so every code is ≥ 0)."""
    key = np.zeros(len(frame), dtype=np.int64)
    space = 1
    for name in columns:
        cat = frame[name].cat
        card = max(len(cat.categories), 1)
        if space * card >= 1 << 62:
            key, space = _renumber(key)
        key *= card
        key += cat.codes.to_numpy()
        space *= card
    if space > 4 * len(frame):
        key, space = _renumber(key)
    return np.bincount(key, minlength=space)


def time_typed(
    data: pd.DataFrame | Path, pol: privcheck.Policy, kpol: privcheck.Policy, reps: int
) -> tuple[float, float, float, float]:
    """(full check, its floor, k alone, its floor) on a categorical frame or a Parquet file."""
    privcheck.check(data, pol)  # warm-up
    t_full = best_time(lambda: privcheck.check(data, pol), reps)
    t_k = best_time(lambda: privcheck.check(data, kpol), reps)
    if isinstance(data, Path):
        columns = list(pol.attributes)  # what the check reads
        t_fl = best_time(lambda: codes_floor(read_parquet_codes(data, columns), columns), reps)
        t_kfl = best_time(lambda: codes_floor(read_parquet_codes(data, QIS), QIS), reps)
    else:
        t_fl = best_time(lambda: codes_floor(data, [*QIS, SENSITIVE]), reps)
        t_kfl = best_time(lambda: codes_floor(data, QIS), reps)
    return t_full, t_fl, t_k, t_kfl


def read_parquet_codes(path: Path, columns: list[str]) -> pd.DataFrame:
    """The policy's columns of a Parquet file, string columns as dictionaries (categoricals)."""
    import pyarrow.parquet as pq

    return pq.read_table(path, columns=columns, read_dictionary=columns).to_pandas()


def _renumber(key: np.ndarray) -> tuple[np.ndarray, int]:
    # a small initial hash table, as privcheck uses: sized to the rows, pandas' default is slower
    codes, seen = pd.factorize(key, size_hint=min(len(key), 1 << 16))
    return codes.astype(np.int64, copy=False), len(seen)


# --------------------------------------------------------------------------- pyCANON


def pycanon_check(frame: pd.DataFrame, numeric: pd.DataFrame) -> list:
    """pyCANON's six figures; ``numeric`` has salary-class as 0/1, for its ordered distance."""
    from pycanon import anonymity

    sa = [SENSITIVE]
    return [
        anonymity.k_anonymity(frame, QIS),
        anonymity.l_diversity(frame, QIS, sa),
        anonymity.entropy_l_diversity(frame, QIS, sa),
        anonymity.recursive_c_l_diversity(frame, QIS, sa),
        anonymity.t_closeness(frame, QIS, sa),  # strings: equal distance
        anonymity.t_closeness(numeric, QIS, sa),  # numbers: ordered distance
    ]


def have_pycanon() -> bool:
    try:
        import pycanon  # noqa: F401
    except ImportError:
        return False
    return True


# --------------------------------------------------------------------------- measuring


#: the clock: process CPU time by default (on a shared machine wall time mostly measures the
#: neighbours; every contender here is single-threaded), wall time with --wall
CLOCK: Callable[[], float] = time.process_time


def best_time(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        start = CLOCK()
        fn()
        times.append(CLOCK() - start)
    return min(times)


def _release_free_memory() -> None:
    """Hand freed heap back to the OS so the RSS growth of the next call is its own."""
    gc.collect()
    try:
        import pyarrow

        pyarrow.default_memory_pool().release_unused()
    except (ImportError, AttributeError):
        pass
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def _status_kb(field: str) -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def extra_peak(fn: Callable[[], object]) -> tuple[float | None, float]:
    """(peak RSS growth, tracked peak) of one call, in bytes (RSS None if unavailable).

    The tracked peak is tracemalloc's (Python objects, numpy and pandas buffers) plus Arrow's
    own (a proxy pool with separate statistics): every byte the call allocates, whatever the
    allocator's granularity — an upper bound, as the two peaks need not coincide. RSS growth is
    the cross-check; Arrow allocates from the system allocator meanwhile, since its default
    (mimalloc) reserves segments of a few MB, most of the RSS growth of one 30 k-row factorize.
    """
    try:
        import pyarrow

        previous = pyarrow.default_memory_pool()
        counted = pyarrow.proxy_memory_pool(pyarrow.system_memory_pool())
        pyarrow.set_memory_pool(counted)
    except ImportError:
        previous = counted = None
    try:
        rss, traced = _extra_peak(fn)
    finally:
        if previous is not None:
            pyarrow.set_memory_pool(previous)
    return rss, traced + (float(counted.max_memory()) if counted is not None else 0.0)


def _extra_peak(fn: Callable[[], object]) -> tuple[float | None, float]:
    _release_free_memory()
    rss_delta = None
    try:
        Path("/proc/self/clear_refs").write_text("5")  # reset the RSS high-water mark
        before = _status_kb("VmRSS")
    except OSError:
        before = None
    tracemalloc.start()
    fn()
    _, traced = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    peak = _status_kb("VmHWM")
    if before is not None and peak is not None:
        rss_delta = max(peak - before, 0) * 1024.0
    return rss_delta, float(traced)


def n_classes(frame: pd.DataFrame) -> int:
    return int(frame.groupby(QIS, sort=False, dropna=False, observed=True).ngroups)


# --------------------------------------------------------------------------- main


def parse_rows(text: str, adult_rows: int) -> list[int]:
    out = []
    for part in text.split(","):
        part = part.strip().lower()
        if part in ("adult", ""):
            out.append(adult_rows)
        else:
            out.append(int(float(part.replace("m", "e6").replace("k", "e3"))))
    return out


def _numeric(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.assign(**{SENSITIVE: (frame[SENSITIVE] == ">50K").astype(int)})


def _resample(adult: pd.DataFrame, n: int, rng: np.random.Generator) -> pd.DataFrame:
    if n == len(adult):
        return adult
    if n < len(adult):
        return adult.sample(n, random_state=int(rng.integers(2**31))).reset_index(drop=True)
    return adult.iloc[rng.integers(0, len(adult), n)].reset_index(drop=True)


class PyCanonTimes:
    """pyCANON's measured times, on the sizes it is run on (nothing is extrapolated)."""

    def __init__(self) -> None:
        self.measured: dict[int, float] = {}

    def run(self, frame: pd.DataFrame) -> tuple[float, list]:
        numeric = _numeric(frame)
        start = CLOCK()
        figures = pycanon_check(frame, numeric)
        self.measured[len(frame)] = CLOCK() - start
        return self.measured[len(frame)], figures


def memory_in_child(n: int, seed: int) -> tuple[float | None, float]:
    """Extra peak of a check on the same frame, measured in a fresh interpreter: after pyCANON
    and the timing loops, this process's heap would blur a 30 k-row measurement."""
    out = subprocess.run(
        [sys.executable, __file__, "--memory-child", str(n), "--seed", str(seed)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return (None if out[0] == "None" else float(out[0])), float(out[1])


def _memory_child(n: int, seed: int) -> None:
    adult = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str)
    frame = _resample(adult, n, np.random.default_rng([seed, n]))
    del adult
    pol = policy()
    privcheck.check(frame, pol)  # warm-up: imports and lazy caches are not the check's
    rss, traced = extra_peak(lambda: privcheck.check(frame, pol))
    print(rss, traced)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rows", help="comma-separated sizes (adult, 1m, 10m, …)")
    ap.add_argument("--quick", action="store_true", help="smoke run: small sizes, few repeats")
    ap.add_argument(
        "--pycanon-rows",
        default=None,
        help="comma-separated sizes pyCANON is run on (default: adult,1m; --quick: 1k,2k); "
        "nothing is extrapolated to other sizes",
    )
    ap.add_argument("--no-pycanon", action="store_true", help="skip pyCANON")
    ap.add_argument("--no-memory", action="store_true", help="skip the memory measurement")
    ap.add_argument("--repeat", type=int, default=None, help="timing repeats (best is kept)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--wall", action="store_true", help="wall-clock time instead of CPU time")
    ap.add_argument("--memory-child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.memory_child:
        _memory_child(args.memory_child, args.seed)
        return 0
    global CLOCK
    CLOCK = time.perf_counter if args.wall else time.process_time
    warnings.simplefilter("ignore")

    adult = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str)
    sizes = parse_rows(args.rows or ("adult,200k" if args.quick else "adult,1m,10m"), len(adult))
    calibration = parse_rows(
        args.pycanon_rows or ("1k,2k" if args.quick else "adult,1m"), len(adult)
    )
    pol, kpol = policy(), k_policy()
    rng = np.random.default_rng(args.seed)

    print(
        f"privcheck {privcheck.__version__}: full check (k, distinct/entropy/recursive l, "
        f"t equal + ordered) on Adult's 8 QIs, {SENSITIVE} sensitive"
    )
    print(
        f"numpy {np.__version__}, pandas {pd.__version__}, python {sys.version.split()[0]}; "
        f"times are {'wall-clock' if args.wall else 'process CPU'} seconds, best of repeats"
    )

    pycanon: PyCanonTimes | None = None
    if args.no_pycanon:
        print("pyCANON skipped (--no-pycanon)")
    elif have_pycanon():
        pycanon = PyCanonTimes()
        for n in calibration:
            frame = _resample(adult, n, rng)
            seconds, figures = pycanon.run(frame)
            mine = [m.value for m in privcheck.check(frame, pol).models]
            agree = (
                figures[0] == mine[0]
                and figures[1] == mine[1]
                and abs(figures[4] - mine[4]) < 1e-9
                and abs(figures[5] - mine[5]) < 1e-9
            )
            print(
                f"pyCANON on {n:,} rows: {seconds:.1f} s; k, distinct l, t equal, t ordered "
                f"{'agree' if agree else 'DISAGREE'} with privcheck "
                f"({figures[0]}, {figures[1]}, {float(figures[4]):.6f}, {float(figures[5]):.6f}); "
                f"entropy l {figures[2]} vs {mine[2]:.6g}, recursive c {figures[3]} vs "
                f"ratio {mine[3]} (pyCANON's known errors)"
            )
    else:
        print("pyCANON not installed (pip install --no-deps pycanon): its column is skipped")

    header = (
        f"{'rows':>11} {'input':>11} {'classes':>8} {'privcheck s':>12} {'floor s':>8} "
        f"{'×floor':>7} {'k alone s':>10} {'k floor s':>10} {'×k floor':>9} {'pyCANON s':>10} "
        f"{'speed-up':>9} {'extra peak MB (RSS/tracked)':>28} {'×frame':>7}"
    )
    print("\n" + header)
    print("-" * len(header))
    verdicts = []
    typed_verdicts = []
    tmp = Path(tempfile.mkdtemp(prefix="check_speed_"))
    for n in sizes:
        frame = _resample(adult, n, np.random.default_rng([args.seed, n]))
        frame_bytes = float(frame.memory_usage(deep=True).sum())
        classes = n_classes(frame)
        privcheck.check(frame, pol)  # warm-up (imports, caches)
        reps = args.repeat or int(np.clip(3e6 // n, 2, 15 if not args.quick else 5))
        t_priv = best_time(lambda f=frame: privcheck.check(f, pol), reps)
        t_floor = best_time(lambda f=frame: floor_check(f), reps)
        t_k = best_time(lambda f=frame: privcheck.check(f, kpol), reps)
        t_kfloor = best_time(lambda f=frame: floor_check(f, QIS), reps)
        rss, traced = (None, float("nan")) if args.no_memory else memory_in_child(n, args.seed)

        pyc_text, speedup = "—", None
        if pycanon is not None and n in pycanon.measured:
            t_p = pycanon.measured[n]
            pyc_text = f"{t_p:.2f}"
            speedup = t_p / t_priv
        ratio_floor = t_priv / t_floor
        ratio_mem = traced / frame_bytes
        rss_text = f"{rss / 1e6:.1f}" if rss is not None else "n/a"
        mem_text = "—" if args.no_memory else rss_text + " / " + f"{traced / 1e6:.1f}"
        print(
            f"{n:>11,} {'strings':>11} {classes:>8,} {t_priv:>12.3f} {t_floor:>8.3f} "
            f"{ratio_floor:>7.2f} {t_k:>10.3f} {t_kfloor:>10.3f} {t_k / t_kfloor:>9.2f} "
            f"{pyc_text:>10} {(f'{speedup:.0f}×' if speedup else '—'):>9} "
            f"{mem_text:>28} {('—' if args.no_memory else f'{ratio_mem:.2f}'):>7}"
        )
        verdicts.append((n, speedup, ratio_floor, None if args.no_memory else ratio_mem))

        # typed input: the same rows as categoricals, and as a Parquet file read as dictionaries
        cat = frame.astype("category")
        del frame
        _release_free_memory()
        parquet = tmp / f"rows{n}.parquet"
        cat.to_parquet(parquet)
        for label, data in (("categorical", cat), ("Parquet", parquet)):
            t_full, t_fl, t_k, t_kfl = time_typed(data, pol, kpol, reps)
            print(
                f"{n:>11,} {label:>11} {classes:>8,} {t_full:>12.3f} {t_fl:>8.3f} "
                f"{t_full / t_fl:>7.2f} {t_k:>10.3f} {t_kfl:>10.3f} {t_k / t_kfl:>9.2f} "
                f"{'—':>10} {'—':>9} {'—':>28} {'—':>7}"
            )
            typed_verdicts.append((n, label, t_full / t_fl, t_k / t_kfl))
        del cat
        parquet.unlink()
        _release_free_memory()

    if pycanon is not None and any(n not in pycanon.measured for n in sizes):
        runs = ", ".join(f"{n:,}" for n in sorted(pycanon.measured))
        print(f"\npyCANON was run on {runs} rows only (--pycanon-rows to run it on others)")
    print(
        "floor: strings — factorize + combined key + bincount; categorical — combined key + "
        "bincount on the categoricals' codes; Parquet — reading the policy's columns as "
        "dictionaries + the same; k floor: the quasi-identifiers only"
    )
    print(
        "extra peak: growth of the peak RSS / tracked allocations (tracemalloc + Arrow's pool),"
        " in a fresh interpreter; ×frame uses the tracked figure"
    )
    print(
        "targets: ≥ 50× faster than pyCANON, ≤ 3× the floor, extra peak ≤ 1× the frame; "
        "typed input: full ≤ 3× and k alone ≤ 2× its floor"
    )
    missed = []
    for n, speedup, rf, rm in verdicts:
        if speedup is not None and speedup < 50:
            missed.append(f"{n:,} rows: only {speedup:.0f}× faster than pyCANON")
        if rf > 3:
            missed.append(f"{n:,} rows: {rf:.2f}× the floor")
        if rm is not None and rm > 1:
            missed.append(f"{n:,} rows: extra peak {rm:.2f}× the frame")
    for n, label, rf, rk in typed_verdicts:
        if rf > 3:
            missed.append(f"{n:,} rows, {label}: full check {rf:.2f}× its floor")
        if rk > 2:
            missed.append(f"{n:,} rows, {label}: k alone {rk:.2f}× its floor")
    print("all targets met" if not missed else "MISSED: " + "; ".join(missed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
