"""Made-up tables for the ``privcheck init`` tests: patients, customers, an HR extract.

Values come from Faker (seeded: the same tables every run) — an independent generator of
e-mail addresses, phone numbers, IBANs, card numbers and national identifiers with valid check
digits. Each table hides what real extracts hide: identifiers in innocuously named columns
(``contact``, ``ref``, ``code``, ``x1``, ``token``), misleading names, dates in several formats
(ISO, DD/MM/YYYY, MM/DD/YYYY, YYYYMMDD, DD.MM.YYYY, and one column mixing two), codes with
leading zeros, missing values. ``EXPECTED`` holds the role each column should get (None: the
profile cannot know; it must mark the column for review).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from faker import Faker

ICD10 = ["E11.9", "I10", "J45.909", "C50.9", "F32.9", "M54.5", "K21.9", "N39.0", "J18.9",
         "I25.10", "E78.5", "F41.1", "G43.909", "L40.0", "B20"]  # fmt: skip


def _faker(locale: str, seed: int) -> Faker:
    fake = Faker(locale)
    fake.seed_instance(seed)
    return fake


def _with_missing(values: list, share: float, rng: np.random.Generator) -> list:
    out = list(values)
    for i in np.flatnonzero(rng.random(len(out)) < share):
        out[i] = None
    return out


def _dates(rng: np.random.Generator, n: int, start: str, end: str) -> pd.Series:
    lo, hi = (
        pd.Timestamp(start).value // 86_400_000_000_000,
        pd.Timestamp(end).value // 86_400_000_000_000,
    )
    days = rng.integers(lo, hi, n)
    return pd.to_datetime(days, unit="D").to_series(index=range(n))


def patients(n: int = 1500, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    us, gb = _faker("en_US", seed), _faker("en_GB", seed + 1)
    de = _faker("de_DE", seed + 2)
    zips = [f"{z:05d}" for z in rng.choice(np.arange(1000, 99999), 120, replace=False)]
    zips[:10] = [f"0{z % 10000:04d}" for z in range(2101, 2111)]  # leading zeros
    notes = [us.sentence(nb_words=10) for _ in range(n)]
    for i in rng.choice(n, n // 8, replace=False):
        notes[i] = f"call back, wrote from {us.email()} about the bill"
    return pd.DataFrame(
        {
            "patient_id": [f"P{i:06d}" for i in rng.permutation(n) + 1000],
            "full_name": [us.name() for _ in range(n)],
            "contact": [us.email() for _ in range(n)],  # e-mails under a vague name
            "tel": [gb.phone_number() for _ in range(n)],
            "dob": _dates(rng, n, "1930-01-01", "2010-12-31").dt.strftime("%d/%m/%Y"),
            "admission": _dates(rng, n, "2023-01-01", "2024-12-31").dt.strftime("%Y-%m-%d"),
            "discharge": _dates(rng, n, "2023-01-01", "2024-12-31").dt.strftime("%m/%d/%Y"),
            "zip": _with_missing(list(rng.choice(zips, n)), 0.03, rng),
            "sex": rng.choice(["M", "F"], n),
            "diagnosis": _with_missing(list(rng.choice(ICD10, n)), 0.02, rng),
            "weight_kg": np.round(rng.normal(75, 15, n), 1),
            "notes": notes,
            "ref": [de.iban() for _ in range(n)],  # IBANs under a vague name
            "code": [us.ssn() for _ in range(n)],  # SSNs under a vague name
            "ward": rng.choice(["A1", "A2", "B1", "C3", "ICU"], n),
        }
    )


def customers(n: int = 2000, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    us, gb = _faker("en_US", seed), _faker("en_GB", seed + 1)
    cities = [gb.city() for _ in range(40)]
    countries = ["United Kingdom", "Ireland", "France", "Germany", "Spain", "Poland", "India",
                 "Nigeria", "United States", "Italy"]  # fmt: skip
    return pd.DataFrame(
        {
            "customer_number": rng.choice(np.arange(100_000, 999_999), n, replace=False),
            "first_name": [us.first_name() for _ in range(n)],
            "surname": [us.last_name() for _ in range(n)],
            "mail": [us.email() for _ in range(n)],
            "payment_ref": [gb.iban() for _ in range(n)],
            "x1": [us.credit_card_number() for _ in range(n)],  # cards, innocuously named
            "source": [us.ipv4() for _ in range(n)],  # IP addresses
            "homepage": [us.url() for _ in range(n)],
            "token": [us.uuid4() for _ in range(n)],
            "signup": _dates(rng, n, "2015-01-01", "2024-12-31").dt.strftime("%m/%d/%Y"),
            "birth_year": rng.integers(1940, 2006, n),
            "city": rng.choice(cities, n),
            "postcode": [gb.postcode() for _ in range(n)],
            "nationality": rng.choice(countries, n, p=[0.6] + [0.4 / 9] * 9),
            "income": np.round(rng.lognormal(10.3, 0.5, n), 2),
            "segment": rng.choice(["gold", "silver", "bronze"], n),
            "channel": rng.choice(["web", "app", "store"], n),
        }
    )


def hr(n: int = 1200, seed: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    gb, nl, ch = _faker("en_GB", seed), _faker("nl_NL", seed + 1), _faker("de_CH", seed + 2)
    it, es, fr = _faker("it_IT", seed + 3), _faker("es_ES", seed + 4), _faker("fr_FR", seed + 5)
    de = _faker("de_DE", seed + 6)
    dob = _dates(rng, n, "1960-01-01", "2004-12-31")
    review = _dates(rng, n, "2022-01-01", "2024-12-31")
    mixed = np.where(
        rng.random(n) < 0.5, review.dt.strftime("%Y-%m-%d"), review.dt.strftime("%d/%m/%Y")
    )
    departments = ["Finance", "Sales", "IT", "HR", "Legal", "Operations", "Marketing"]
    titles = ["Analyst", "Manager", "Engineer", "Clerk", "Director", "Assistant", "Consultant"]
    return pd.DataFrame(
        {
            "emp_no": [f"E{i:05d}" for i in rng.permutation(n) + 100],
            "employee": [gb.name() for _ in range(n)],
            "staff_ref": [gb.ssn() for _ in range(n)],  # UK NINOs
            "nr": [nl.ssn() for _ in range(n)],  # Dutch BSNs
            "sv": [ch.ssn() for _ in range(n)],  # Swiss AHV numbers
            "cf": [it.ssn() for _ in range(n)],  # codici fiscali
            "doc": [es.nif() for _ in range(n)],  # Spanish DNI
            "secu": [fr.ssn() for _ in range(n)],  # French NIR
            "bank": [de.iban() for _ in range(n)],
            "department": rng.choice(departments, n),
            "job_title": rng.choice(titles, n),
            "salary": rng.integers(28_000, 140_000, n) // 100 * 100,
            "start_date": _dates(rng, n, "2000-01-01", "2024-12-31").dt.strftime("%Y%m%d"),
            "gender": rng.choice(["Male", "Female", "Other"], n, p=[0.48, 0.48, 0.04]),
            "age": ((pd.Timestamp("2025-01-01") - dob).dt.days // 365).astype(int),
            "date_of_birth": _with_missing(list(dob.dt.strftime("%d.%m.%Y")), 0.05, rng),
            "marital_status": rng.choice(["single", "married", "divorced", "widowed"], n),
            "ethnicity": rng.choice(["White", "Black", "Asian", "Mixed", "Other"], n),
            "performance_rating": rng.integers(1, 6, n),
            "remote": rng.choice(["yes", "no"], n),
            "last_review": mixed,  # two date formats in one column
            "badge": [f"{i:06d}" for i in rng.permutation(n)],  # a key with leading zeros
        }
    )


#: the role each column should get; None: undecidable from name and values (review expected)
EXPECTED: dict[str, dict[str, str | None]] = {
    "patients": {
        "patient_id": "identifier", "full_name": "identifier", "contact": "identifier",
        "tel": "identifier", "dob": "quasi_identifier", "admission": "quasi_identifier",
        "discharge": "quasi_identifier", "zip": "quasi_identifier", "sex": "quasi_identifier",
        "diagnosis": "sensitive", "weight_kg": None, "notes": "identifier",
        "ref": "identifier", "code": "identifier", "ward": None,
    },
    "customers": {
        "customer_number": "identifier", "first_name": "identifier", "surname": "identifier",
        "mail": "identifier", "payment_ref": "identifier", "x1": "identifier",
        "source": "identifier", "homepage": "identifier", "token": "identifier",
        "signup": "quasi_identifier", "birth_year": "quasi_identifier",
        "city": "quasi_identifier", "postcode": "quasi_identifier",
        "nationality": "quasi_identifier", "income": "sensitive", "segment": None,
        "channel": None,
    },
    "hr": {
        "emp_no": "identifier", "employee": "identifier", "staff_ref": "identifier",
        "nr": "identifier", "sv": "identifier", "cf": "identifier", "doc": "identifier",
        "secu": "identifier", "bank": "identifier", "department": "quasi_identifier",
        "job_title": "quasi_identifier", "salary": "sensitive", "start_date": "quasi_identifier",
        "gender": "quasi_identifier", "age": "quasi_identifier",
        "date_of_birth": "identifier", "marital_status": "quasi_identifier",
        "ethnicity": "quasi_identifier", "performance_rating": "sensitive", "remote": None,
        "last_review": "quasi_identifier", "badge": "identifier",
    },
}  # fmt: skip

TABLES = {"patients": patients, "customers": customers, "hr": hr}
