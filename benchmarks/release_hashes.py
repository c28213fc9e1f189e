"""Fingerprints of every release privcheck writes, to prove a refactoring changed no byte.

Run from the repository root::

    python benchmarks/release_hashes.py --out before.json [--spark] [--only NAME]
    python benchmarks/release_hashes.py --out after.json --compare before.json

Every algorithm (auto, mingen, incognito, datafly, mondrian strict and relaxed, local
suppression, safepub, the masking methods) runs with a fixed seed on Adult (``privcheck/data/
adult`` and its policy), Race/ZIP, the CASC census extract (numeric quasi-identifiers, for the
masking methods) and a generated visit table that counts people (``individual``), each under
``suppressed_records`` remove and star and with ``keep_order`` on and off; ``apply`` re-applies
one transformation to a batch. Each release is written as CSV and as Parquet (``privcheck.io.
write_table``, what ``privcheck anonymize -o`` writes) and the sha256 of both files is stored,
with the sha256 of the anonymization report's JSON minus its timings (every key ending in
``seconds``). ``--spark`` adds the Spark releases (not shuffled: their rows are sorted before
hashing) of the algorithms that run there.

With ``--compare`` the script prints every fingerprint that differs from the earlier run and
exits 1 if any does.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import privcheck  # noqa: E402
from privcheck.io import write_table  # noqa: E402

ADULT = ROOT / "privcheck" / "data" / "adult"
EXAMPLES = ROOT / "tests" / "data" / "examples"
CASC = ROOT / "tests" / "data" / "casc"
SEED = 20261129


def adult_policy(**extra) -> dict:
    """The demo policy (k = 5, distinct 2-diversity, 0.2-closeness, 1 % suppression)."""
    import yaml

    policy = yaml.safe_load((ADULT / "policy.yaml").read_text())
    for attr in policy["attributes"].values():
        spec = attr.get("hierarchy")
        if spec and "path" in spec:
            spec["path"] = str(ADULT / spec["path"])
    policy.update(extra)
    return policy


def race_zip_policy() -> dict:
    def table(name: str) -> dict:
        path = EXAMPLES / "race_zip_hierarchies" / f"{name}.csv"
        return {"role": "quasi_identifier", "hierarchy": {"type": "table", "path": str(path)}}

    return {
        "attributes": {"race": table("race"), "zip": table("zip")},
        "models": [{"model": "k-anonymity", "k": 2}],
        "suppression_limit": 0.2,
    }


def visits(n_people: int = 1500, seed: int = 0) -> pd.DataFrame:
    """A visit table: person attributes constant per person, a few visits each."""
    rng = np.random.default_rng(seed)
    per_person = rng.integers(1, 5, n_people)
    pid = np.repeat(np.arange(n_people), per_person)
    birth = rng.integers(1940, 2005, n_people)
    zips = np.array([f"{z:05d}" for z in rng.integers(10000, 99999, 25)])
    n = len(pid)
    year = rng.integers(2015, 2024, n)
    return pd.DataFrame(
        {
            "patient_id": np.array([f"P{p:06d}" for p in range(n_people)], dtype=object)[pid],
            "sex": rng.choice(np.array(["F", "M"], dtype=object), n_people)[pid],
            "birth_year": birth[pid].astype(str).astype(object),
            "zip": rng.choice(zips, n_people)[pid].astype(object),
            "age": (year - birth[pid]).astype(str).astype(object),
            "ward": rng.choice(np.array(["A", "B", "C"], dtype=object), n),
            "diagnosis": rng.choice(np.array(["I10", "E11", "J45", "C50"], dtype=object), n),
        }
    )


INTERVALS = {"type": "intervals", "widths": [5, 10, 20]}
VISIT_POLICY = {
    "individual": "patient_id",
    "attributes": {
        "sex": {"role": "quasi_identifier"},
        "birth_year": {"role": "quasi_identifier", "hierarchy": INTERVALS},
        "zip": {"role": "quasi_identifier", "hierarchy": {"type": "masking"}},
        "age": {"role": "quasi_identifier", "hierarchy": INTERVALS},
        "ward": {"role": "quasi_identifier"},
        "diagnosis": {"role": "sensitive"},
    },
    "models": [{"model": "k-anonymity", "k": 3}],
    "suppression_limit": 0.1,
}

CASC_QIS = ["AFNLWGT", "AGI", "EMCONTRB", "FEDTAX"]


def casc_policy() -> dict:
    return {
        "attributes": {
            **{q: {"role": "quasi_identifier"} for q in CASC_QIS},
            "PTOTVAL": {"role": "sensitive"},
            "STATETAX": {"role": "insensitive"},
        },
        "models": [{"model": "k-anonymity", "k": 3}],
    }


def runs(spark: bool) -> list[tuple[str, object, dict, str, dict]]:
    """(name, data, policy, algorithm, params) of every release fingerprinted."""
    adult = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    out: list[tuple[str, object, dict, str, dict]] = []
    k_only = adult_policy(models=[{"model": "k-anonymity", "k": 5}])
    utility = adult_policy(utility={"target": None})
    k_utility = adult_policy(models=[{"model": "k-anonymity", "k": 5}], utility={"target": None})
    dp = adult_policy(
        models=[{"model": "differential-privacy", "epsilon": 2.0, "delta": 1e-5}],
        suppression_limit=0.0,
    )
    race_zip = pd.read_csv(EXAMPLES / "race_zip.csv", dtype=str, keep_default_na=False)
    casc = pd.read_csv(CASC / "census.csv")
    people = visits()
    tables = [
        ("adult", adult, adult_policy(), ["auto", "mingen", "incognito", "datafly"]),
        ("adult-mondrian", adult, adult_policy(), ["mondrian", ("mondrian", {"relaxed": True})]),
        ("adult-k", adult, k_only, ["local-suppression", ("local-suppression", {"polish": 2})]),
        ("adult-k-gen", adult.head(6000), k_only,
         [("local-suppression", {"generalize_first": True}), "auto"]),
        ("adult-utility", adult.head(4000), utility, ["mingen", "mondrian", "auto"]),
        ("adult-k-utility", adult.head(3000), k_utility, ["local-suppression"]),
        ("visits-utility", people, {**VISIT_POLICY, "utility": {"target": None}},
         ["local-suppression", "mondrian"]),
        ("adult-dp", adult.head(8000), dp, ["safepub", "auto"]),
        ("race-zip", race_zip, race_zip_policy(),
         ["auto", "mingen", "incognito", "datafly", "mondrian", "local-suppression"]),
        ("casc", casc, casc_policy(),
         ["mdav", "mdav-partitioned", "optimal-univariate", "fuzzy-microaggregation",
          ("rank-swapping", {"p": 5}), ("rank-swapping-buckets", {"p": 5}),
          ("rank-swapping-distribution", {"p": 5}), ("noise", {"a": 0.1}),
          ("noise", {"a": 0.1, "kind": "correlated"}), "mondrian", "auto"]),
        ("visits", people, VISIT_POLICY,
         ["auto", "mingen", "incognito", "datafly", "mondrian", "local-suppression"]),
    ]  # fmt: skip
    for name, data, policy, algorithms in tables:
        for algorithm in algorithms:
            algorithm, params = algorithm if isinstance(algorithm, tuple) else (algorithm, {})
            for records in ("remove", "star"):
                p = copy.deepcopy(policy)
                p["suppressed_records"] = records
                label = "-".join([name, algorithm, *(f"{k}={v}" for k, v in params.items())])
                out.append((f"{label}-{records}", data, p, algorithm, params))
    if spark:
        from pyspark.sql import SparkSession

        session = (
            SparkSession.builder.master("local[2]")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "4")
            .getOrCreate()
        )
        frame = session.createDataFrame(adult.head(5000))
        for algorithm in ("auto", "mingen", "incognito", "datafly", "mondrian"):
            for records in ("remove", "star"):
                p = adult_policy(suppressed_records=records)
                out.append((f"spark-adult-{algorithm}-{records}", frame, p, algorithm, {}))
        for records in ("remove", "star"):
            p = copy.deepcopy(k_only)
            p["suppressed_records"] = records
            out.append(
                (f"spark-adult-local-suppression-{records}", frame, p, "local-suppression", {})
            )
    return out


def without_timings(value):
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if not k.endswith("seconds")}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def report_digest(report) -> str:
    data = without_timings(json.loads(report.to_json()))  # (key order kept: it is written)
    return digest(json.dumps(data).encode())


def release_digests(release, folder: Path) -> dict[str, str]:
    if release is None:
        return {"release": "none"}
    if not isinstance(release, pd.DataFrame):  # Spark: no row order; sort, then hash
        frame = release.toPandas()
        frame = frame.sort_values(list(frame.columns), kind="stable").reset_index(drop=True)
        return {"rows": digest(frame.to_csv(index=False).encode())}
    out = {}
    for suffix in ("csv", "parquet"):
        path = folder / f"release.{suffix}"
        write_table(release, path)
        out[suffix] = digest(path.read_bytes())
    return out


def fingerprint(only: str | None, spark: bool) -> dict[str, dict[str, str]]:
    results: dict[str, dict[str, str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for name, data, policy, algorithm, params in runs(spark):
            for keep_order in (False, True):
                label = f"{name}-{'kept' if keep_order else 'shuffled'}"
                if only and only not in label:
                    continue
                if keep_order and not isinstance(data, pd.DataFrame):
                    continue  # (Spark releases are never shuffled)
                started = time.perf_counter()
                try:
                    release, report = privcheck.anonymize(
                        data, policy, algorithm, seed=SEED, keep_order=keep_order, **params
                    )
                except privcheck.PrivcheckError as exc:
                    results[label] = {"refused": digest(str(exc).encode())}
                else:
                    results[label] = {
                        **release_digests(release, folder),
                        "report": report_digest(report),
                    }
                    if algorithm in ("mingen", "incognito") and isinstance(data, pd.DataFrame):
                        batch = data.iloc[::2].reset_index(drop=True)
                        applied, check = privcheck.apply(
                            batch, report, policy, keep_order=keep_order, seed=SEED
                        )
                        results[label]["apply"] = release_digests(applied, folder).get(
                            "csv", "none"
                        )
                        results[label]["apply-check"] = report_digest(check)
                print(f"{label:70s} {time.perf_counter() - started:7.2f} s", flush=True)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--compare", type=Path)
    parser.add_argument("--spark", action="store_true")
    parser.add_argument("--only", help="run the releases whose label contains this text")
    args = parser.parse_args()
    results = fingerprint(args.only, args.spark)
    args.out.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    print(f"{len(results)} releases fingerprinted into {args.out}")
    if args.compare is None:
        return 0
    before = json.loads(args.compare.read_text())
    differ = [label for label in results if label in before and results[label] != before[label]]
    missing = [label for label in before if label not in results and not args.only]
    for label in differ:
        print(f"DIFFERS {label}: {before[label]} -> {results[label]}")
    for label in missing:
        print(f"MISSING {label}")
    same = sum(1 for label in results if label in before and results[label] == before[label])
    print(f"{same} identical, {len(differ)} differ, {len(missing)} missing")
    return 1 if differ or missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
