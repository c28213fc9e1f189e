"""Patient and HR tables in eleven locales, identifiers under misleading column names, for the
evaluation of ``privcheck init`` (``test_names.py``) — and real tables shipped in packages.

Each locale's table is made twice: by Faker and by Mimesis. privcheck's name lexicon is built
from both generators' name lists, so neither is an independent test of the lexicon's *content*;
what they test is the reading (scripts, titles, particles, order, repetition) and the rules.
The independent evidence is ``real_tables``: people's names nobody generated (Titanic
passengers, the résumés of Bertrand & Mullainathan, US presidents, the victims of the 1992 Los
Angeles riots), with places, car models and utilities that are not names. ``cross_lexicon`` in
the test measures how the reading does on names *outside* its lexicon (a lexicon of one
generator, the tables of the other).

A table is person-level (one row per person) or visit-level (each person's rows repeated over
1–8 visits, the person's identifiers on every row). ``IDENTIFIERS`` names the columns that are
identifiers; every other column is a quasi-identifier, a sensitive attribute or insensitive and
must not be drafted as an identifier.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

LOCALES = ("en_US", "de_DE", "fr_FR", "es_ES", "it_IT", "pt_BR", "nl_NL", "ja_JP", "zh_CN",
           "ru_RU", "pl_PL")  # fmt: skip
MIMESIS = {"en_US": "EN", "de_DE": "DE", "fr_FR": "FR", "es_ES": "ES", "it_IT": "IT",
           "pt_BR": "PT_BR", "nl_NL": "NL", "ja_JP": "JA", "zh_CN": "ZH", "ru_RU": "RU",
           "pl_PL": "PL"}  # fmt: skip

DIAGNOSES = ["Type 2 diabetes", "Hypertension", "Asthma", "Depression", "Migraine",
             "Osteoarthritis", "Hypothyroidism", "Anxiety disorder", "COPD", "Back pain",
             "Psoriasis", "Gastritis"]  # fmt: skip
DEPARTMENTS = ["Finance", "Sales", "IT", "HR", "Legal", "Operations", "Marketing", "Research",
               "Logistics", "Support"]  # fmt: skip

#: the identifier columns of a generated table (misleading names, on purpose)
IDENTIFIERS = ("x1", "info", "category", "notes_field", "col7", "ref")


class _People:
    """One generator's values for one locale."""

    def __init__(self, generator: str, locale: str, seed: int) -> None:
        self.generator = generator
        if generator == "faker":
            from faker import Faker

            self.fake = Faker(locale)
            self.fake.seed_instance(seed)
        else:
            from mimesis import Address, Person
            from mimesis.locales import Locale

            loc = getattr(Locale, MIMESIS[locale])
            self.person = Person(loc, seed=seed)
            self.address = Address(loc, seed=seed)

    def first(self) -> str:
        return self.fake.first_name() if self.generator == "faker" else self.person.first_name()

    def last(self) -> str:
        return self.fake.last_name() if self.generator == "faker" else self.person.last_name()

    def full(self) -> str:
        return self.fake.name() if self.generator == "faker" else self.person.full_name()

    def user(self) -> str:
        return self.fake.user_name() if self.generator == "faker" else self.person.username()

    def city(self) -> str:
        return self.fake.city() if self.generator == "faker" else self.address.city()

    def country(self) -> str:
        return self.fake.country() if self.generator == "faker" else self.address.country()

    def job(self) -> str:
        return self.fake.job() if self.generator == "faker" else self.person.occupation()


def people_table(generator: str, locale: str, n: int = 300, visits: bool = False, seed: int = 0):
    """A patient/HR extract of ``n`` people (``visits``: each repeated over 1–8 visits)."""
    rng = np.random.default_rng(seed)
    gen = _People(generator, locale, seed)
    cities = list(dict.fromkeys(gen.city() for _ in range(60)))[:40]
    countries = list(dict.fromkeys(gen.country() for _ in range(40)))[:12]
    jobs = list(dict.fromkeys(gen.job() for _ in range(80)))[:25]
    people = pd.DataFrame(
        {
            "x1": [gen.first() for _ in range(n)],  # first names
            "info": [gen.last() for _ in range(n)],  # last names
            "category": [gen.full() for _ in range(n)],  # full names under a category's name
            "notes_field": [f"{gen.first()} {gen.last()}" for _ in range(n)],  # built full names
            "col7": [gen.user() for _ in range(n)],  # user names
            "age": rng.integers(18, 90, n),
            "sex": rng.choice(["F", "M"], n),
            "city": rng.choice(cities, n),
            "country": rng.choice(countries, n),
            "job_title": rng.choice(jobs, n),
            "department": rng.choice(DEPARTMENTS, n),
            "col3": rng.choice(cities, n),  # a city under an unhelpful name
        }
    )
    if visits:
        repeat = rng.integers(1, 9, n)
        people = people.loc[np.repeat(np.arange(n), repeat)].reset_index(drop=True)
    rows = len(people)
    people["ref"] = [f"REF-{i:06d}" for i in rng.permutation(rows) + 1000]  # a record key
    people["diagnosis"] = rng.choice(DIAGNOSES, rows)
    people["los_days"] = rng.integers(1, 30, rows)
    order = list(rng.permutation(people.columns))
    return people[order]


def generated_tables(generators=("faker", "mimesis")) -> dict[str, Callable[[], pd.DataFrame]]:
    """Every generated table, by ``generator/locale/level``."""
    out = {}
    for generator in generators:
        for i, locale in enumerate(LOCALES):
            for visits in (False, True):
                level = "visits" if visits else "persons"

                def make(g=generator, loc=locale, v=visits, s=i):
                    return people_table(g, loc, visits=v, seed=s)

                out[f"{generator}/{locale}/{level}"] = make
    return out


# --------------------------------------------------------------------------- real tables


NAMES_DATA = Path(__file__).resolve().parents[1] / "data" / "names"
EIA = Path(__file__).resolve().parents[1] / "data" / "casc" / "eia.csv"


def real_tables() -> dict[str, tuple[pd.DataFrame, set[str]]]:
    """Real public tables: the table and its identifier columns. Four are kept in
    ``tests/data/names`` (their origin in its README), three ship in ``vega_datasets``. Name
    columns also get misleading names (``category``, ``x1``) so that only their values tell."""
    from vega_datasets import data as vega

    def read(name: str) -> pd.DataFrame:
        return pd.read_csv(NAMES_DATA / f"{name}.csv")

    titanic = read("titanic").rename(columns={"Name": "category"})
    resume = read("resume_names").rename(columns={"name": "info"})
    presidential = read("presidential").rename(columns={"name": "col7"})
    presidents = read("presidents").rename(columns={"potus": "notes_field"})
    riots = vega.la_riots().rename(columns={"first_name": "x1", "last_name": "ref"})
    out = {
        "titanic": (titanic, {"category"}),
        "resume names": (resume, {"info"}),
        "presidential": (presidential, {"col7"}),
        "presidents": (presidents, {"notes_field", "vpotus"}),
        "la-riots": (riots, {"x1", "ref"}),
        "cars": (vega.cars().rename(columns={"Name": "category"}), set()),  # car models
        "airports": (vega.airports().drop(columns=["iata", "name"]), set()),
    }
    if EIA.is_file():
        out["eia"] = (pd.read_csv(EIA), set())
    return out
