"""What does a new user's first release cost? init → (resolve review marks) → anonymize → check
on generated patient and HR tables in several locales.

Each table is written as a CSV file and taken through the documented flow, in process:
``draft_policy`` on the file (what ``privcheck init`` runs), the review marks resolved the way a
user who accepts the draft resolves them (each column keeps the drafted role; a ``review:``
entry, when the policy carries one, is deleted), ``anonymize`` with the default ``auto``, and a
``check`` of the release. Printed per table: the drafted quasi-identifiers, the age-like ones
among them, the preview ``init`` printed (loss per quasi-identifier of ``auto`` on a row
sample), the release's loss (``loss``: the mean of ``loss_by_attribute``, ARX's loss) and per
quasi-identifier, and the interval notations seen in the release.

The tables (Faker, seeded: the same tables every run), person-level and visit-level:

- patients: name, sex, date of birth, age, postcode, city, job, ICD-10 diagnosis, admission
  date, ward (visit-level: a patient key and several admissions per patient);
- HR: employee, gender, year of birth, department, job title, salary, hire date, postcode.

Postcodes and cities come either from a pool of places (a hospital's catchment area: a few
hundred postcodes, each in one city) or straight from Faker (every row its own random
postcode and city): both are printed.

    python benchmarks/first_release.py                    # every table
    python benchmarks/first_release.py --locales de_DE    # one locale
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from faker import Faker

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT))

import privcheck  # noqa: E402
from privcheck.profiling.draft import draft_policy, policy_dict, write_draft  # noqa: E402

LOCALES = ("en_US", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "pt_BR", "pl_PL", "en_GB")
#: ICD-10 codes a hospital sees often, with sub-codes (chapters: E, I, J, C, F, M, K, N …)
ICD10 = tuple(
    [
        "E11.9",
        "E11.65",
        "E10.9",
        "E78.5",
        "E66.9",
        "I10",
        "I25.10",
        "I48.91",
        "I50.9",
        "I63.9",
        "J45.909",
        "J44.9",
        "J18.9",
        "J06.9",
        "C50.9",
        "C34.90",
        "C18.9",
        "C61",
        "F32.9",
        "F41.1",
        "F10.20",
        "F20.9",
        "M54.5",
        "M17.11",
        "M81.0",
        "K21.9",
        "K35.80",
        "K80.20",
        "N39.0",
        "N18.3",
        "G43.909",
        "G40.909",
        "G30.9",
        "L40.0",
        "B20",
        "A41.9",
        "O80",
        "S72.001A",
        "S06.0X0A",
        "R07.9",
        "R10.9",
        "Z00.00",
    ]
)
WARDS = tuple(
    [
        "Cardiology",
        "Oncology",
        "Maternity",
        "Orthopaedics",
        "Neurology",
        "Paediatrics",
        "Geriatrics",
        "Surgery",
        "Emergency",
        "Intensive care",
    ]
)
DEPARTMENTS = (
    "Finance",
    "Human Resources",
    "Sales",
    "Marketing",
    "Engineering",
    "Customer Service",
    "Legal",
    "Operations",
    "IT",
    "Research and Development",
    "Procurement",
    "Facilities",
)
INTERVAL = {
    "dash": re.compile(r"^-?\d+(\.\d+)?--?\d+(\.\d+)?$"),
    "half-open": re.compile(r"^\[-?[\d.]+, -?[\d.]+\)$"),
    "closed": re.compile(r"^\[-?[\d.]+, -?[\d.]+\]$"),
}


def _faker(locale: str, seed: int) -> Faker:
    fake = Faker(locale)
    fake.seed_instance(seed)
    return fake


def _zipf(rng: np.random.Generator, n_values: int, size: int, a: float = 1.1) -> np.ndarray:
    """Indices 0..n_values−1, the first most frequent (a catchment area, a common job)."""
    p = 1.0 / np.arange(1, n_values + 1) ** a
    return rng.choice(n_values, size=size, p=p / p.sum())


def _places(fake: Faker, rng: np.random.Generator, pooled: bool, size: int) -> tuple[list, list]:
    if not pooled:
        return [fake.postcode() for _ in range(size)], [fake.city() for _ in range(size)]
    cities = [fake.city() for _ in range(40)]
    pool = [(fake.postcode(), cities[i % len(cities)]) for i in range(300)]
    picks = _zipf(rng, len(pool), size, 0.8)
    return [pool[i][0] for i in picks], [pool[i][1] for i in picks]


def _days(rng: np.random.Generator, size: int, start: str, end: str) -> pd.DatetimeIndex:
    lo = pd.Timestamp(start).value // 86_400_000_000_000
    hi = pd.Timestamp(end).value // 86_400_000_000_000
    return pd.to_datetime(rng.integers(lo, hi, size), unit="D")


def patients(locale: str, n: int, visits: bool, pooled: bool, seed: int = 0) -> pd.DataFrame:
    """Patients (one row each), or their visits (1–6 rows per patient, ``patient_id``)."""
    rng = np.random.default_rng(seed)
    fake = _faker(locale, seed)
    sex = rng.choice(["M", "F"], n)
    names = [fake.name_male() if s == "M" else fake.name_female() for s in sex]
    born = _days(rng, n, "1935-01-01", "2015-12-31")
    zips, cities = _places(fake, rng, pooled, n)
    jobs = [fake.job() for _ in range(n)]
    person = pd.DataFrame(
        {
            "patient_id": [f"P{i:07d}" for i in rng.permutation(n) + 100_000],
            "name": names,
            "sex": sex,
            "date_of_birth": born,
            "zip": zips,
            "city": cities,
            "job": jobs,
        }
    )
    rows = np.repeat(np.arange(n), rng.integers(1, 7, n) if visits else 1)
    out = person.iloc[rows].reset_index(drop=True)
    admitted = _days(rng, len(out), "2022-01-01", "2024-12-31")
    age = admitted.year - out["date_of_birth"].dt.year
    before = (admitted.month < out["date_of_birth"].dt.month) | (
        (admitted.month == out["date_of_birth"].dt.month)
        & (admitted.day < out["date_of_birth"].dt.day)
    )
    out.insert(4, "age", np.asarray(age) - np.asarray(before, dtype=int))
    out["diagnosis"] = [ICD10[i] for i in _zipf(rng, len(ICD10), len(out))]
    out["admission_date"] = admitted.strftime("%Y-%m-%d")
    out["ward"] = [WARDS[i] for i in _zipf(rng, len(WARDS), len(out), 0.6)]
    out["date_of_birth"] = out["date_of_birth"].dt.strftime("%Y-%m-%d")
    if not visits:
        out = out.drop(columns="patient_id")
    return out


def hr(locale: str, n: int, pooled: bool, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    fake = _faker(locale, seed)
    gender = rng.choice(["female", "male"], n)
    zips, _ = _places(fake, rng, pooled, n)
    dept = _zipf(rng, len(DEPARTMENTS), n, 0.7)
    return pd.DataFrame(
        {
            "employee": [fake.name_male() if g == "male" else fake.name_female() for g in gender],
            "gender": gender,
            "birth_year": rng.integers(1960, 2004, n),
            "department": [DEPARTMENTS[d] for d in dept],
            "job_title": [fake.job() for _ in range(n)],
            "salary": (rng.lognormal(10.6, 0.35, n) + 2_000 * dept).round(-2).astype(int),
            "hire_date": _days(rng, n, "1995-01-01", "2024-12-31").strftime("%Y-%m-%d"),
            "postcode": zips,
        }
    )


def notations(release: pd.DataFrame, original: pd.DataFrame) -> set[str]:
    """The interval notations of the released values that are no value of the original (a
    Brazilian CEP ``87647-593`` kept as it is is a postcode, not an interval)."""
    seen = set()
    for column in release.columns:
        own = set(original[column].astype(str)) if column in original else set()
        for value in set(pd.unique(release[column].astype(str))) - own:
            for name, pattern in INTERVAL.items():
                if pattern.match(value):
                    seen.add(name)
    return seen


def resolved(policy_path: Path) -> dict[str, Any]:
    """The written policy with every open decision settled as drafted (``review:`` deleted)."""
    from privcheck.limits import load_yaml

    data = load_yaml(policy_path.read_text(encoding="utf-8"))
    for entry in data["attributes"].values():
        entry.pop("review", None)
    return data


def run(title: str, frame: pd.DataFrame, work: Path) -> dict[str, Any]:
    data = work / f"{title}.csv"
    frame.to_csv(data, index=False)
    started = time.perf_counter()
    draft = draft_policy(data)
    init_seconds = time.perf_counter() - started
    folder = work / title
    folder.mkdir()
    write_draft(draft.profile, folder / "policy.yaml", inputs=[data])
    policy = privcheck.load_policy(resolved(folder / "policy.yaml"))
    policy._base_dir = folder
    release, report = privcheck.anonymize(data, policy, "auto", seed=0)
    after = privcheck.check(release, policy)
    profile = draft.profile
    preview = getattr(profile, "preview", None)
    return {
        "table": title,
        "rows": len(frame),
        "qis": profile.quasi_identifiers,
        "policy_dict": policy_dict(profile),
        "preview": preview,
        "chosen": report.chosen,
        "loss": report.metrics.get("loss"),
        "loss_by_attribute": report.loss_by_attribute,
        "suppressed": report.n_suppressed,
        "passed": after.passed,
        "notations": sorted(notations(release, pd.read_csv(data, dtype=str))),
        "init_seconds": init_seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locales", nargs="*", default=list(LOCALES))
    parser.add_argument("--patients", type=int, default=3000)
    parser.add_argument("--employees", type=int, default=3000)
    parser.add_argument("--kinds", nargs="*", default=["patients", "visits", "hr"])
    args = parser.parse_args()
    results = []
    with tempfile.TemporaryDirectory(prefix="privcheck-first-release-") as tmp:
        work = Path(tmp)
        for i, locale in enumerate(args.locales):
            pooled = i % 2 == 0
            where = "pooled" if pooled else "faker"
            for kind in args.kinds:
                title = f"{kind}-{locale}-{where}"
                if kind == "hr":
                    frame = hr(locale, args.employees, pooled, seed=i)
                else:
                    size = args.patients // 3 if kind == "visits" else args.patients
                    frame = patients(locale, size, kind == "visits", pooled, seed=i)
                result = run(title, frame, work)
                results.append(result)
                loss = result["loss"]
                per = ", ".join(f"{q} {v:.2f}" for q, v in result["loss_by_attribute"].items())
                print(
                    f"{title:28} rows {result['rows']:5}  loss {loss:.3f}  "
                    f"({result['chosen']}, {result['suppressed']} suppressed, "
                    f"passed={result['passed']}, notations {result['notations'] or '-'}, "
                    f"init {result['init_seconds']:.2f} s)"
                )
                print(f"    {per}")
                if result["preview"]:
                    print(f"    preview: {result['preview']}")
    losses = [r["loss"] for r in results]
    print(f"\nmean loss {np.mean(losses):.3f}, range {min(losses):.3f}–{max(losses):.3f}")


if __name__ == "__main__":
    main()
