"""Hierarchies by meaning: ICD-10 chapters (the WHO's ranges, checked code by code), codes by
their leading characters, countries and US states by their published regions, job titles by
their head word, postal districts, calendar levels fitted to the dates' span; every one a tree
ending in ``*`` that privcheck's own resolver accepts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
from faker import Faker

from privcheck.hierarchy import table_levels
from privcheck.policy import TableHierarchy
from privcheck.profiling import groupings, hierarchies
from privcheck.profiling.columns import column_data
from privcheck.profiling.types import infer


def _tree(rows: list[list[str]]) -> dict[str, list[str]]:
    table_levels(TableHierarchy(rows=rows), "c", None)  # a tree, else PolicyError
    assert all(r[-1] == "*" for r in rows)
    return {r[0]: r[1:] for r in rows}


def test_icd10_codes_by_category_and_chapter():
    # chapters as the WHO's ICD-10 (2019) lists them, one code of each checked by hand
    expected = {
        "A41.9": "A00-B99", "B20": "A00-B99", "C50.9": "C00-D48", "D48.1": "C00-D48",
        "D63.1": "D50-D89", "E11.9": "E00-E90", "F32.9": "F00-F99", "G43.909": "G00-G99",
        "H25.9": "H00-H59", "H66.9": "H60-H95", "I10": "I00-I99", "J45.909": "J00-J99",
        "K21.9": "K00-K93", "L40.0": "L00-L99", "M54.5": "M00-M99", "N39.0": "N00-N99",
        "O80": "O00-O99", "P07.3": "P00-P96", "Q21.0": "Q00-Q99", "R07.9": "R00-R99",
        "S72.001A": "S00-T98", "T14.9": "S00-T98", "W19": "V01-Y98", "Z00.00": "Z00-Z99",
        "U07.1": "U00-U99",
    }  # fmt: skip
    labels = list(expected)
    tree = _tree(groupings.icd10_rows(labels, np.ones(len(labels), dtype=np.int64)))
    for code, chapter in expected.items():
        assert tree[code][-2] == chapter, code
    assert tree["E11.9"][0] == "E11" and tree["S72.001A"][0] == "S72"
    assert groupings.icd10_rows(["Flu", "Cold", "E11"], np.ones(3, dtype=np.int64)) is None


def test_codes_by_leading_characters_keep_leading_zeros():
    isco = ["0110", "2211", "2212", "2221", "3221", "9112"]
    tree = _tree(groupings.code_prefix_rows(isco, np.ones(6, dtype=np.int64)))
    assert tree["0110"][:3] == ["011*", "01*", "0*"]
    assert tree["2211"][:3] == ["221*", "22*", "2*"] and tree["2212"][0] == "221*"
    soc = ["15-1252", "15-1251", "29-1141", "11-1021"]
    assert _tree(groupings.code_prefix_rows(soc, np.ones(4, dtype=np.int64)))["15-1252"][0] == (
        "15-125*"
    )
    # codes of several widths (education years 1…16) are no classification's codes
    assert groupings.code_prefix_rows([str(i) for i in range(1, 17)], np.ones(16, int)) is None


def test_countries_and_us_states_by_published_regions():
    countries = ["Germany", "Deutschland", "France", "Brazil", "Japan", "Nigeria", "Atlantis"]
    tree = _tree(groupings.country_rows(countries, np.array([5, 5, 5, 5, 5, 5, 1])))
    assert tree["Germany"][:2] == ["Western Europe", "Europe"] == tree["Deutschland"][:2]
    assert tree["Brazil"][:2] == ["Latin America and the Caribbean", "Americas"]
    assert tree["Japan"][1] == "Asia" and tree["Nigeria"][0] == "Sub-Saharan Africa"
    assert tree["Atlantis"][0] == "other"
    states = ["CA", "NY", "TX", "New York", "Ohio", "WA"]
    tree = _tree(groupings.state_rows(states, np.ones(6, dtype=np.int64)))
    assert tree["CA"][:2] == ["Pacific", "West"] and tree["New York"][:2] == [
        "Middle Atlantic",
        "Northeast",
    ]
    assert tree["TX"][1] == "South" and tree["Ohio"][1] == "Midwest"


def test_job_titles_by_the_head_word_they_share():
    fake = Faker("en_US")
    fake.seed_instance(0)
    jobs = pd.Series([fake.job() for _ in range(3000)]).value_counts()
    rows = groupings.title_rows(list(jobs.index), jobs.to_numpy(), 5)
    tree = _tree(rows)
    engineers = [j for j in tree if j.lower().startswith("engineer,")]
    assert engineers and all(tree[j][0] == "*engineer*" for j in engineers)
    if "Civil engineer, contracting" in tree:
        assert tree["Civil engineer, contracting"][0] == "*engineer*"
    # titles sharing nothing (German compounds) are left to the frequency fallback
    alone = ["Bäcker", "Altenpfleger", "Bankkaufmann", "Augenoptiker"]
    assert groupings.title_rows(alone, np.array([9, 8, 7, 6]), 5) is None


def test_postcodes_in_two_parts_by_district_and_area():
    tree = _tree(hierarchies.prefix_table(["SW1A 1AA", "SW1A 2AB", "M1 1AE", "EC1A 1BB"]))
    assert tree["SW1A 1AA"] == ["SW1A *", "SW*", "*"] and tree["M1 1AE"][:2] == ["M1 *", "M*"]


def _col(values):
    col = column_data(pa.chunked_array([pa.array(values)]), "d")
    return col, infer(col)


def test_date_levels_fit_the_span():
    admissions = pd.date_range("2022-01-01", "2024-12-31", freq="3D").strftime("%Y-%m-%d")
    col, info = _col(list(admissions))
    assert hierarchies.date_levels_for(col, info) == ["month", "quarter", "year"]
    births = pd.date_range("1935-01-01", "2015-12-31", freq="17D").strftime("%d/%m/%Y")
    col, info = _col(list(births))
    assert hierarchies.date_levels_for(col, info) == ["month", "year", "decade"]
    one_year = pd.date_range("2024-01-01", "2024-12-31", freq="2D").strftime("%Y-%m-%d")
    col, info = _col(list(one_year))
    assert hierarchies.date_levels_for(col, info) == ["month", "quarter"]


def test_postcodes_nest_in_the_place_they_lie_in():
    """Each postcode's rows name one city: the postcode generalizes to its city, then as the
    city does; a postcode split between two cities is no nesting (masking stays)."""
    import privcheck

    rng = np.random.default_rng(0)
    cities = [f"Town{i}" for i in range(12)]
    codes = {f"{i:05d}": cities[i % 12] for i in range(0, 96)}  # leading zeros kept
    zips = rng.choice(list(codes), 2400)
    frame = pd.DataFrame(
        {
            "zip": zips,
            "city": [codes[z] for z in zips],
            "sex": rng.choice(["F", "M"], 2400),
            "age": rng.integers(18, 90, 2400),
        }
    )
    policy, profile = privcheck.draft_policy(frame, preview_rows=0)
    rows = profile.column("zip").hierarchy["rows"]
    city_rows = {r[0]: r[1:] for r in profile.column("city").hierarchy["rows"]}
    assert sorted(r[0] for r in rows) == sorted(codes)
    for row in rows:
        assert row[1] == codes[row[0]] and row[2:] == city_rows[row[1]]
    _tree(rows)
    release, _ = privcheck.anonymize(frame, policy, seed=0)
    assert privcheck.check(release, policy).passed
    split = frame.copy()
    for code in ["00000", "00001", "00002", "00003", "00004", "00005"]:  # ~3 % of the rows
        rows_of = np.flatnonzero(split["zip"] == code)
        split.loc[rows_of[::2], "city"] = "Town11" if codes[code] != "Town11" else "Town10"
    _, profile = privcheck.draft_policy(split, preview_rows=0)
    assert profile.column("zip").hierarchy == {"type": "masking"}
