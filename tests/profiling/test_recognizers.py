"""Value recognizers: columns of real-looking identifiers (Faker, several locales) are
recognised whatever their spelling; columns that are not identifiers (Adult's, amounts, random
digits, dates) are not taken for any."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from faker import Faker

from privcheck.profiling import recognizers
from tests.conftest import ADULT

N = 400


def _column(locale: str, method: str, seed: int = 0, **kwargs) -> list[str]:
    fake = Faker(locale)
    fake.seed_instance(seed)
    return [str(getattr(fake, method)(**kwargs)) for _ in range(N)]


def _shares(values: list[str], free_text: bool = False) -> recognizers.Detection:
    arr = pa.array(values)
    return recognizers.detect(arr, np.ones(len(values), dtype=np.int64), free_text=free_text)


POSITIVE = [
    ("email", "en_US", "email"),
    ("email", "de_DE", "free_email"),
    ("iban", "de_DE", "iban"),
    ("iban", "en_GB", "iban"),
    ("iban", "nl_NL", "iban"),
    ("payment-card", "en_US", "credit_card_number"),
    ("us-ssn", "en_US", "ssn"),
    ("uk-nino", "en_GB", "ssn"),
    ("fr-nir", "fr_FR", "ssn"),
    ("nl-bsn", "nl_NL", "ssn"),
    ("it-codice-fiscale", "it_IT", "ssn"),
    ("es-dni", "es_ES", "nif"),
    ("es-dni", "es_ES", "nie"),
    ("ch-ahv", "de_CH", "ssn"),
    ("ipv4", "en_US", "ipv4"),
    ("ipv6", "en_US", "ipv6"),
    ("mac-address", "en_US", "mac_address"),
    ("url", "en_US", "url"),
    ("uuid", "en_US", "uuid4"),
    ("postcode", "en_GB", "postcode"),
    ("postcode", "nl_NL", "postcode"),
    ("postcode", "en_CA", "postcode"),
]


@pytest.mark.parametrize(
    ("kind", "locale", "method"), POSITIVE, ids=[f"{p[0]}-{p[1]}" for p in POSITIVE]
)
def test_identifier_columns_are_recognised(kind, locale, method):
    found = _shares(_column(locale, method))
    assert found.shares.get(kind, 0) >= 0.99, found.shares
    assert found.best().name == kind


@pytest.mark.parametrize("locale", ["en_US", "en_GB", "fr_FR", "de_DE", "nl_NL", "it_IT", "es_ES"])
def test_phone_numbers_of_several_countries(locale):
    """Italian mobile numbers written as bare digits (3396984562) are any number's shape and
    are not counted; the column is still recognised (and a near-unique code anyway)."""
    found = _shares(_column(locale, "phone_number"))
    least = 0.7 if locale == "it_IT" else 0.9
    assert found.shares.get("phone", 0) >= least, found.shares
    assert found.best().name == "phone"


def test_steuer_id_with_valid_check_digits():
    from stdnum.de import idnr

    rng = np.random.default_rng(0)
    values = []
    while len(values) < N:
        stem = str(int(rng.integers(1_000_000_000, 9_999_999_999)))
        values.extend(stem + d for d in "0123456789" if idnr.is_valid(stem + d))
    assert _shares(values).shares["de-steuer-id"] == 1.0


def test_spelling_variants():
    """Spaces, dots and hyphens inside, lower case: still the same identifiers."""
    values = ["de89 3704 0044 0532 0130 00", "GB82 WEST 1234 5698 7654 32"]
    assert recognizers.iban(pa.array(values)).all()
    assert recognizers.payment_card(pa.array(["4111 1111 1111 1111", "4111-1111-1111-1111"])).all()
    assert recognizers.ch_ahv(pa.array(["756.9217.0769.85", "7569217076985"])).all()
    assert recognizers.uk_nino(pa.array(["QQ 12 34 56 C", "ab123456d"])).all()
    assert recognizers.nl_bsn(pa.array(["1112.22.333"])).all()


def _negatives() -> dict[str, list[str]]:
    import pandas as pd

    adult = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str).head(2000)
    rng = np.random.default_rng(1)
    columns = {name: adult[name].tolist() for name in adult.columns}
    columns["amounts"] = [f"{x:.2f}" for x in rng.lognormal(8, 1.5, N)]
    columns["integers"] = [str(x) for x in rng.integers(0, 10**9, N)]
    columns["16 random digits"] = [str(x) for x in rng.integers(10**15, 10**16, N)]
    columns["9 random digits"] = [f"{x:09d}" for x in rng.integers(0, 10**9, N)]
    columns["11 random digits"] = [str(x) for x in rng.integers(10**10, 10**11, N)]
    columns["iso dates"] = [f"20{y:02d}-{m:02d}-{d:02d}" for y, m, d in
                            zip(rng.integers(0, 24, N), rng.integers(1, 13, N),
                                rng.integers(1, 29, N), strict=True)]  # fmt: skip
    columns["european dates"] = [f"{d:02d}.{m:02d}.19{y:02d}" for y, m, d in
                                 zip(rng.integers(0, 99, N), rng.integers(1, 13, N),
                                     rng.integers(1, 29, N), strict=True)]  # fmt: skip
    columns["words"] = _column("en_US", "word")
    columns["versions"] = [f"{a}.{b}.{c}" for a, b, c in rng.integers(0, 20, (N, 3))]
    return columns


@pytest.mark.parametrize("name", list(_negatives()))
def test_other_columns_are_not_identifiers(name):
    found = _shares(_negatives()[name])
    assert found.identifier_share < recognizers.KIND_SHARE, found.shares
    best = found.best()
    assert best is None or best.role != "identifier", found.shares


def test_free_text_containing_identifiers():
    fake = Faker("en_US")
    fake.seed_instance(2)
    texts = [fake.sentence(nb_words=12) for _ in range(N)]
    for i in range(0, N, 10):  # one value in ten holds an e-mail address
        texts[i] = f"customer wrote from {fake.email()} about the invoice"
    for i in range(5, N, 20):  # one in twenty a phone number
        texts[i] = "please call +44 20 7946 0958 after five"
    found = _shares(texts, free_text=True)
    assert found.inside["email"] == pytest.approx(0.1)
    assert found.inside["phone"] == pytest.approx(0.05)
    assert found.best() is None  # no value *is* an identifier
    clean = _shares([fake.sentence(nb_words=12) for _ in range(N)], free_text=True)
    assert not clean.inside


def test_shares_are_weighted_by_rows():
    values = pa.array(["a@b.org", "not an address"])
    found = recognizers.detect(values, np.array([3, 1]))
    assert found.shares["email"] == pytest.approx(0.75)


def test_pilot_pass_does_not_change_the_shares():
    """A recognizer skipped after the pilot would have found (almost) nothing: on a column
    with a few e-mail addresses scattered among many values the share is the same as a full
    pass computes."""
    rng = np.random.default_rng(5)
    values = [f"w{i}" for i in range(20_000)]
    for i in rng.choice(20_000, 2_000, replace=False):
        values[i] = f"user{i}@example.org"
    arr = pa.array(values)
    weights = np.ones(len(values), dtype=np.int64)
    found = recognizers.detect(arr, weights)
    full = recognizers.email(arr)
    assert found.shares["email"] == pytest.approx(full.mean())
