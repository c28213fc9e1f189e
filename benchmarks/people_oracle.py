"""People per class in releases made with ``individual:``, counted by an independent script.

For each anonymizer, a release of (a) a generated visit-level table (``--people`` patients with
1–8 visits each: sex, birth year and zip constant per patient; age at the visit, ward and
diagnosis varying) and (b) Adult with a synthetic person key grouping its rows (about 2.5 rows
per person, nothing constant), both with ``pseudonymize_individual: true`` so that the release
itself says whose record each row is. The people of every released class are then counted with
one pandas ``groupby(...).nunique()`` — none of privcheck's code — and printed: the people in the
smallest class and the classes holding fewer than k people (must be 0), beside the same release
counted in rows.

    python benchmarks/people_oracle.py                 # 5,000 patients; Adult's 30,162 rows
    python benchmarks/people_oracle.py --people 2000 --adult-rows 6000 --algorithms mingen,auto
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

import privcheck  # noqa: E402

ADULT = ROOT / "privcheck" / "data" / "adult"
ALGORITHMS = ("mingen", "incognito", "datafly", "mondrian", "local-suppression", "auto")


def helpers():
    """``tests/people_helpers.py`` loaded from its file (a ``tests`` package installed by some
    other distribution would shadow the repository's)."""
    spec = importlib.util.spec_from_file_location(
        "people_helpers", ROOT / "tests/people_helpers.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def adult_people(rows: int | None, seed: int = 0) -> tuple[pd.DataFrame, dict, list[str]]:
    """Adult (its first ``rows`` rows) with ``pid``: rows grouped at random into people."""
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str)
    if rows is not None:
        frame = frame.head(rows)
    rng = np.random.default_rng(seed)
    frame["pid"] = rng.integers(0, len(frame) * 2 // 5, len(frame)).astype(str)
    policy = privcheck.load_policy(ADULT / "policy.yaml").model_dump(mode="json")
    for attr in policy["attributes"].values():
        hierarchy = attr.get("hierarchy")
        if hierarchy and hierarchy.get("path"):
            hierarchy["path"] = str(ADULT / hierarchy["path"])
    policy.update(
        individual="pid",
        pseudonymize_individual=True,
        models=[{"model": "k-anonymity", "k": 5}],
        suppression_limit=0.05,
    )
    qis = [n for n, a in policy["attributes"].items() if a["role"] == "quasi_identifier"]
    return frame, policy, qis


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--people", type=int, default=5000, help="patients of the visit table")
    ap.add_argument("--adult-rows", type=int, default=None, help="Adult's first N rows (all)")
    ap.add_argument("--algorithms", default=",".join(ALGORITHMS))
    ap.add_argument("--k", type=int, default=5)
    args = ap.parse_args()
    h = helpers()
    visits = h.visits(args.people, seed=7)
    visit_policy = {
        **h.VISIT_POLICY,
        "pseudonymize_individual": True,
        "models": [{"model": "k-anonymity", "k": args.k}],
    }
    adult, adult_policy, adult_qis = adult_people(args.adult_rows)
    adult_policy["models"] = [{"model": "k-anonymity", "k": args.k}]
    tables = [
        (f"visits ({args.people:,} patients, {len(visits):,} rows)", visits, visit_policy, h.QIS,
         "patient_id"),
        (f"Adult ({len(adult):,} rows, {adult['pid'].nunique():,} people)", adult, adult_policy,
         adult_qis, "pid"),
    ]  # fmt: skip
    k = args.k
    print(f"privcheck {privcheck.__version__}: k = {k}, people counted by pandas nunique")
    head = f"{'table':44} {'algorithm':18} {'s':>7} {'people':>7} {'smallest':>8} {'< k':>10}"
    print(head + f" {'rows: smallest':>15} {'< k':>6} {'suppressed rec/people':>22}")
    print("-" * (len(head) + 45))
    failed = False
    for label, frame, policy, qis, person in tables:
        for algorithm in args.algorithms.split(","):
            started = time.perf_counter()
            release, report = privcheck.anonymize(frame, policy, algorithm, seed=0)
            seconds = time.perf_counter() - started
            people = release.groupby(qis, dropna=False)[person].nunique()
            rows = release.groupby(qis, dropna=False).size()
            below = int((people < k).sum())
            failed |= below > 0 or not report.check.passed
            print(
                f"{label:44} {algorithm:18} {seconds:7.2f} {release[person].nunique():7,} "
                f"{int(people.min()):8} {below:>4} of {len(people):<4} "
                f"{int(rows.min()):15} {int((rows < k).sum()):6} "
                f"{report.n_suppressed:>12,}/{report.n_suppressed_individuals:<9,}"
            )
        # the same table released counting records (the person column kept as an insensitive
        # column, to count them): how many people end in classes of fewer than k people
        by_rows = {key: value for key, value in policy.items() if key != "individual"}
        by_rows["pseudonymize_individual"] = False
        by_rows["attributes"] = {**policy["attributes"], person: {"role": "insensitive"}}
        release, report = privcheck.anonymize(frame, by_rows, "mingen", seed=0)
        people = release.groupby(qis, dropna=False)[person].nunique()
        small = people[people < k].index
        in_small = release.set_index(qis).loc[small, person].nunique() if len(small) else 0
        print(
            f"{label:44} {'mingen (records)':18} {'':7} {release[person].nunique():7,} "
            f"{int(people.min()):8} {int((people < k).sum()):>4} of {len(people):<4} "
            f"{int(release.groupby(qis).size().min()):15} {0:6}   "
            f"{in_small:,} people in classes of < {k} people"
        )
    print("FAILED: a class with fewer than k people" if failed else "every class: ≥ k people")
    if failed:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
