"""The vectorised check digits agree with python-stdnum's (an independent implementation of
each scheme) on valid numbers made by Faker and on every one-character corruption of them."""

from __future__ import annotations

import numpy as np
import pytest
from faker import Faker
from stdnum import ean, luhn
from stdnum.es import dni
from stdnum.fr import nir
from stdnum.iso7064 import mod_11_10, mod_97_10
from stdnum.it import codicefiscale
from stdnum.nl import bsn

from privcheck.profiling import checksums


def _iban_oracle(value: str) -> bool:
    return mod_97_10.checksum(value[4:] + value[:4]) == 1 if value[:2].isalpha() else False


def _nir_oracle(value: str) -> bool:
    return nir.calc_check_digits(value[:13]) == value[13:]


def _dni_oracle(value: str) -> bool:
    number = {"X": "0", "Y": "1", "Z": "2"}.get(value[0], value[0]) + value[1:8]
    return dni.calc_check_digit(number) == value[8]


SCHEMES = [
    # (function, oracle, Faker locale, Faker method, how to make a value of the checked form)
    (checksums.luhn, lambda v: luhn.checksum(v) == 0, "en_US", "credit_card_number", str),
    (checksums.iban, _iban_oracle, "de_DE", "iban", str),
    (checksums.iban, _iban_oracle, "en_GB", "iban", str),
    (checksums.iban, _iban_oracle, "fr_FR", "iban", str),
    (checksums.nl_bsn, lambda v: bsn.checksum(v) == 0, "nl_NL", "ssn", str),
    (checksums.fr_nir, _nir_oracle, "fr_FR", "ssn", str),
    (checksums.es_dni, _dni_oracle, "es_ES", "nif", str),
    (checksums.es_dni, _dni_oracle, "es_ES", "nie", str),
    (
        checksums.it_codice_fiscale,
        lambda v: codicefiscale.calc_check_digit(v[:15]) == v[15],
        "it_IT",
        "ssn",
        str,
    ),
    (checksums.ean13, lambda v: ean.calc_check_digit(v[:12]) == v[12], "de_CH", "ssn",
     lambda v: v.replace(".", "")),
]  # fmt: skip


def _judged(oracle, value: str) -> bool:
    """Whether the oracle can judge ``value`` at all (stdnum raises on a letter where its
    scheme has a digit; such a value never reaches a check digit, the recognizer's shape
    refuses it first)."""
    try:
        oracle(value)
    except ValueError:
        return False
    return True


def _corruptions(value: str, rng: np.random.Generator, n: int = 4) -> list[str]:
    """``value`` with one character replaced by another of its kind (digit, letter)."""
    out = []
    for _ in range(n):
        i = int(rng.integers(len(value)))
        ch = value[i]
        pool = "0123456789" if ch.isdigit() else "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
        out.append(value[:i] + rng.choice([c for c in pool if c != ch]) + value[i + 1 :])
    return out


@pytest.mark.parametrize(
    ("check", "oracle", "locale", "method", "form"),
    SCHEMES,
    ids=[f"{s[2]}-{s[3]}-{s[0].__name__}" for s in SCHEMES],
)
def test_check_digits_agree_with_stdnum(check, oracle, locale, method, form):
    fake = Faker(locale)
    fake.seed_instance(7)
    rng = np.random.default_rng(7)
    valid = [form(getattr(fake, method)()).upper() for _ in range(300)]
    assert all(oracle(v) for v in valid)  # Faker makes valid numbers: the premise
    corrupted = [c for v in valid for c in _corruptions(v, rng) if _judged(oracle, c)]
    values = valid + corrupted
    expected = np.array([oracle(v) for v in values])
    got = checksums.by_length(values, check)
    assert got.tolist() == expected.tolist()
    assert not expected[len(valid) :].all()  # corruptions the oracle refuses are refused


def test_steuer_id_agrees_with_stdnum():
    """German Steuer-IDs: the check digit (ISO 7064 MOD 11,10) of random 10-digit stems in
    which one digit repeats (python-stdnum's ``de.idnr`` rule); the function accepts exactly
    what the oracle accepts and refuses every other last digit."""
    from stdnum.de import idnr

    rng = np.random.default_rng(3)
    stems: list[str] = []
    while len(stems) < 200:
        stem = str(int(rng.integers(1_000_000_000, 9_999_999_999)))
        if any(idnr.is_valid(stem + last) for last in "0123456789"):
            stems.append(stem)
    values, expected = [], []
    for stem in stems:
        for last in "0123456789":
            values.append(stem + last)
            expected.append(idnr.is_valid(stem + last))
    assert checksums.by_length(values, checksums.de_steuer_id).tolist() == expected
    assert sum(expected) == len(stems)  # one valid check digit per stem


def test_mod_11_10_agrees_with_iso7064():
    """ISO 7064 MOD 11,10 alone (the Croatian OIB; the Steuer-ID adds its digit rule)."""
    rng = np.random.default_rng(3)
    stems = [str(int(rng.integers(1_000_000_000, 9_999_999_999))) for _ in range(200)]
    values = [stem + last for stem in stems for last in "0123456789"]
    expected = [mod_11_10.is_valid(v) for v in values]
    assert checksums.by_length(values, checksums.mod_11_10).tolist() == expected
    assert sum(expected) == len(stems)


def test_luhn_refuses_a_repeated_digit_and_empty_input():
    assert checksums.luhn(["0000000000000000"]).tolist() == [False]
    assert checksums.luhn([]).tolist() == []
    assert checksums.iban([]).tolist() == []


def test_known_examples():
    """Worked examples published with the schemes."""
    assert checksums.iban(["DE89370400440532013000", "GB82WEST12345698765432"]).all()
    assert checksums.by_length(["79927398713", "4111111111111111"], checksums.luhn).all()
    assert checksums.nl_bsn(["111222333", "123456782"]).all()
    assert checksums.es_dni(["12345678Z"]).all()
    assert checksums.it_codice_fiscale(["RSSMRA85T10A562S"]).all()
    assert checksums.de_steuer_id(["86095742719"]).all()
    assert checksums.ean13(["7569217076985"]).all()
