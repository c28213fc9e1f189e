"""Role rules on crafted columns: names in several spellings and languages, values that
contradict names, near-unique keys against unique measures, undecided columns marked."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from privcheck.profiling import vocabulary
from privcheck.profiling.columns import column_data
from privcheck.profiling.recognizers import detect_column as _detect
from privcheck.profiling.rules import decide, pct
from privcheck.profiling.types import infer


@pytest.mark.parametrize(
    ("name", "concept"),
    [
        ("email", "email"), ("E-Mail", "email"), ("emailAddress", "email"),
        ("courriel", "email"), ("Telefonnummer", "phone"), ("mobile_no", "phone"),
        ("first_name", "person_name"), ("LastName", "person_name"), ("Vorname", "person_name"),
        ("prénom", "person_name"), ("apellidos", "person_name"), ("cognome", "person_name"),
        ("name", "person_name"), ("SSN", "national_id"), ("codice_fiscale", "national_id"),
        ("passport_number", "national_id"), ("IBAN", "account"), ("street_address", "address"),
        ("Straße", "address"), ("ip_address", "online"), ("DOB", "birth"),
        ("dateOfBirth", "birth"), ("Geburtsdatum", "birth"), ("date_naissance", "birth"),
        ("age", "age"), ("Alter", "age"), ("edad", "age"), ("gender", "sex"),
        ("Geschlecht", "sex"), ("sexe", "sex"), ("zip_code", "postal"), ("PLZ", "postal"),
        ("code_postal", "postal"), ("city", "geography"), ("Wohnort", "geography"),
        ("race", "ethnicity"), ("marital-status", "marital"), ("Familienstand", "marital"),
        ("education", "education"), ("occupation", "occupation"), ("job_title", "occupation"),
        ("workclass", "occupation"), ("nationality", "nationality"),
        ("native-country", "nationality"), ("country_of_birth", "nationality"),
        ("place_of_birth", "geography"), ("diagnosis", "health"), ("ICD10", "health"),
        ("salary", "income"), ("salary-class", "income"), ("Einkommen", "income"),
        ("religion", "special"), ("performance_rating", "employment_record"),
        ("product_name", None), ("drug_name", "health"), ("city_name", "geography"),
        ("percentage", None), ("language", None), ("page", None),
    ],
)  # fmt: skip
def test_names(name, concept):
    hit = vocabulary.concept_of_name(name)
    assert (hit.concept.name if hit else None) == concept


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("id", "person"), ("patient_id", "person"), ("PatientID", "person"),
        ("customer_number", "person"), ("client_no", "person"), ("emp_id", "person"),
        ("patient", "person"), ("hospital_id", "group"), ("order_number", "group"),
        ("number_of_children", None), ("area_code", None), ("code", None),
    ],
)  # fmt: skip
def test_key_names(name, kind):
    assert vocabulary.id_name(name) == kind


def _decide(name: str, values: list):
    col = column_data(pa.chunked_array([pa.array(values)]), name)
    info = infer(col)
    return decide(col, info, _detect(col, info))


def test_misleading_names():
    rng = np.random.default_rng(0)
    n = 300
    emails = [f"user{i}@mail.example.com" for i in range(n)]
    assert _decide("zip", emails).role == "identifier"  # values win over the name
    assert _decide("salary", emails).role == "identifier"
    dates = [
        f"{d:02d}/{m:02d}/19{y:02d}" for d, m, y in rng.integers([1, 1, 30], [29, 13, 99], (n, 3))
    ]
    assert _decide("age", dates).role == "quasi_identifier"
    named = _decide("name", list(rng.choice(["Male", "Female"], n)))
    assert named.role == "quasi_identifier" and named.review  # a 'name' of two sexes
    product = _decide("name", list(rng.choice(["basic", "plus", "pro"], n)))
    assert product.role == "identifier" and product.review  # kept, but a person must look


def test_near_unique_keys_and_unique_measures():
    n = 500
    rng = np.random.default_rng(1)
    codes = [f"AC{i:07d}" for i in rng.permutation(n)]
    assert _decide("reference", codes).role == "identifier"
    sequence = [str(i) for i in rng.permutation(np.arange(1, n + 1))]
    seq = _decide("row", sequence)
    assert seq.role == "identifier" and "record number" in seq.reason
    amounts = [f"{x:.2f}" for x in rng.lognormal(6, 1.2, n)]
    measure = _decide("x", amounts)
    assert measure.role == "insensitive" and measure.review
    taxes = [str(int(x)) for x in rng.lognormal(8, 1.5, n)]
    assert _decide("FEDTAX", taxes).role == "insensitive"
    keys = [str(x) for x in rng.choice(np.arange(10_000, 99_999), n, replace=False)]
    key = _decide("ref", keys)
    assert key.role == "identifier" and key.review  # integers spread evenly: a key, reviewed


def test_values_that_read_as_a_concept():
    rng = np.random.default_rng(2)
    n = 300
    assert _decide("g", list(rng.choice(["m", "f"], n))).concept == "sex"
    marital = _decide("col3", list(rng.choice(["Married", "Never-married", "Divorced"], n)))
    assert marital.role == "quasi_identifier" and marital.concept == "marital"
    countries = _decide("c", list(rng.choice(["France", "Germany", "United-States", "Mexico"], n)))
    assert countries.role == "quasi_identifier"
    icd = _decide("code7", list(rng.choice(["E11.9", "I10", "J45.909", "C50.9"], n)))
    assert icd.role == "sensitive"
    ages = _decide("v", [str(x) for x in rng.integers(18, 85, n)])
    assert ages.role == "quasi_identifier" and ages.review
    zips = _decide("v2", [f"{x:05d}" for x in rng.choice(np.arange(1000, 9999), 40)] * 10)
    assert zips.concept == "postal" and zips.review


def test_undecided_is_reviewed_never_silent():
    rng = np.random.default_rng(3)
    for values in (
        list(rng.choice(["a", "b", "c"], 200)),
        [str(x) for x in rng.integers(0, 5, 200)],
    ):
        decision = _decide("flag7", values)
        assert decision.role == "insensitive" and decision.review
        assert decision.reason.startswith("review:")
    empty = _decide("blank", [None, " ", ""] * 10)
    assert empty.review and "missing" in empty.reason
    constant = _decide("source_system", ["crm"] * 50)
    assert constant.role == "insensitive" and not constant.review


def test_pct():
    assert [pct(x) for x in (0, 0.004, 0.5, 0.996, 0.9996, 1)] == [
        "0 %", "0.4 %", "50 %", "99 %", "100 %", "100 %",
    ]  # fmt: skip
