"""Check digits of direct identifiers, vectorised over a matrix of characters.

A regular expression says a value *looks like* an IBAN or a card number; its check digit says it
*is* one: a random 16-digit number passes Luhn one time in ten, a random IBAN-shaped string
passes mod-97 one time in 97. The recognizers (``recognizers.py``) filter candidates by shape
and then call these functions on equal-length groups of them: each algorithm is a few numpy
operations over an ``(n, length)`` array of character codes — no Python loop over values.

Every function takes a list of ASCII strings of one length (the caller groups by length) and
returns a boolean array, True where the check digit holds.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

_ZERO = ord("0")
_A = ord("A")


def char_matrix(values: Sequence[str]) -> np.ndarray:
    """Equal-length ASCII strings as an ``(n, length)`` uint8 array of their character codes."""
    if not values:
        return np.zeros((0, 0), dtype=np.uint8)
    width = len(values[0])
    raw = np.frombuffer("".join(values).encode("ascii"), dtype=np.uint8)
    return raw.reshape(len(values), width)


def by_length(values: Sequence[str], check) -> np.ndarray:
    """Apply ``check`` (one length at a time) to ASCII strings of several lengths."""
    out = np.zeros(len(values), dtype=bool)
    lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    for length in np.unique(lengths):
        idx = np.flatnonzero(lengths == length)
        out[idx] = check([values[i] for i in idx])
    return out


def _digits(values: Sequence[str]) -> np.ndarray:
    return char_matrix(values).astype(np.int64) - _ZERO


def _mod(numbers: np.ndarray, modulus: int) -> np.ndarray:
    """Each row of a digit (or two-digit) matrix read as one big number, modulo ``modulus``.

    Entries above 9 (letters converted to 10..35) count as two digits, as in ISO 7064."""
    rest = np.zeros(len(numbers), dtype=np.int64)
    for j in range(numbers.shape[1]):
        col = numbers[:, j]
        rest = np.where(col >= 10, rest * 100 + col, rest * 10 + col) % modulus
    return rest


def luhn(values: Sequence[str]) -> np.ndarray:
    """Luhn (ISO/IEC 7812): payment cards, IMEI. Doubles every second digit from the right."""
    d = _digits(values)
    if d.size == 0:
        return np.zeros(len(values), dtype=bool)
    doubled = d[:, ::-1].copy()
    doubled[:, 1::2] *= 2
    doubled[doubled > 9] -= 9
    same = (d == d[:, :1]).all(axis=1)  # 0000 0000 0000 0000 passes Luhn but is no card
    return (doubled.sum(axis=1) % 10 == 0) & ~same


def iban(values: Sequence[str]) -> np.ndarray:
    """ISO 13616 IBAN: the first four characters moved to the end, letters as 10..35, mod 97 = 1.

    ``values`` are upper case without spaces (``DE89370400440532013000``)."""
    m = char_matrix(values).astype(np.int64)
    if m.size == 0:
        return np.zeros(len(values), dtype=bool)
    rearranged = np.concatenate([m[:, 4:], m[:, :4]], axis=1)
    numbers = np.where(rearranged >= _A, rearranged - _A + 10, rearranged - _ZERO)
    return _mod(numbers, 97) == 1


def nl_bsn(values: Sequence[str]) -> np.ndarray:
    """Dutch BSN (burgerservicenummer), 9 digits: the "11-proof" 9·d1 + 8·d2 + … + 2·d8 − d9 ≡ 0
    (mod 11)."""
    d = _digits(values)
    weights = np.array([9, 8, 7, 6, 5, 4, 3, 2, -1], dtype=np.int64)
    return ((d @ weights) % 11 == 0) & (d.sum(axis=1) > 0)


def fr_nir(values: Sequence[str]) -> np.ndarray:
    """French NIR (numéro de sécurité sociale), 15 characters: the key (last two digits) is
    97 − (the first 13 as a number mod 97); Corsican départements 2A / 2B count as 19 / 18."""
    out = np.zeros(len(values), dtype=bool)
    fixed = []
    for v in values:  # (the département letters of Corsica: a rewrite of two characters)
        dep = v[5:7]
        if dep == "2A":
            v = v[:5] + "19" + v[7:]
        elif dep == "2B":
            v = v[:5] + "18" + v[7:]
        fixed.append(v)
    d = _digits(fixed)
    if d.size == 0:
        return out
    number = _mod(d[:, :13], 97)
    key = d[:, 13] * 10 + d[:, 14]
    return 97 - number == key


_DNI_LETTERS = np.frombuffer(b"TRWAGMYFPDXBNJZSQVHLCKE", dtype=np.uint8)


def es_dni(values: Sequence[str]) -> np.ndarray:
    """Spanish DNI / NIE: 8 digits (NIE: X, Y or Z for 0, 1, 2, then 7 digits) and the letter
    ``TRWAGMYFPDXBNJZSQVHLCKE[number mod 23]``. ``values`` are 9 characters, no hyphen, already
    of that shape (the recognizer's regular expression)."""
    m = char_matrix(values).astype(np.int64)
    if m.size == 0:
        return np.zeros(len(values), dtype=bool)
    digits = m[:, :8] - _ZERO
    first = m[:, 0]
    digits[:, 0] = np.select(
        [first == ord("X"), first == ord("Y"), first == ord("Z")], [0, 1, 2], digits[:, 0]
    )
    return _DNI_LETTERS[_mod(digits, 23)] == m[:, 8]


#: codice fiscale: value of a character in an odd position (1st, 3rd …), digits as A..J
_CF_ODD = np.array(
    [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23],
    dtype=np.int64,
)


def it_codice_fiscale(values: Sequence[str]) -> np.ndarray:
    """Italian codice fiscale, 16 characters: the last is a letter computed from the other 15
    (odd positions through a table, even positions as their rank), sum mod 26."""
    m = char_matrix(values).astype(np.int64)
    if m.size == 0:
        return np.zeros(len(values), dtype=bool)
    rank = np.where(m >= _A, m - _A, m - _ZERO)  # digits 0-9 rank like A-J
    rank = np.clip(rank, 0, 25)
    odd = _CF_ODD[rank[:, 0:15:2]].sum(axis=1)
    even = rank[:, 1:15:2].sum(axis=1)
    return (odd + even) % 26 == m[:, 15] - _A


def mod_11_10(values: Sequence[str]) -> np.ndarray:
    """ISO 7064 MOD 11,10: the last digit checks the others (German Steuer-ID, Croatian OIB)."""
    d = _digits(values)
    if d.size == 0:
        return np.zeros(len(values), dtype=bool)
    product = np.full(len(values), 10, dtype=np.int64)
    for j in range(d.shape[1] - 1):
        s = (d[:, j] + product) % 10
        s = np.where(s == 0, 10, s)
        product = (2 * s) % 11
    check = 11 - product
    check = np.where(check == 10, 0, check)
    return check == d[:, -1]


def de_steuer_id(values: Sequence[str]) -> np.ndarray:
    """German Steuer-Identifikationsnummer, 11 digits, first not 0: ISO 7064 MOD 11,10 check
    digit over the first ten, in which exactly one digit occurs twice or three times and no
    other more than once (as python-stdnum's ``de.idnr``; a Croatian OIB has no such rule)."""
    d = _digits(values)
    if d.size == 0:
        return np.zeros(len(values), dtype=bool)
    counts = (d[:, :10, None] == np.arange(10)).sum(axis=1)
    repeated = counts > 1
    rule = (repeated.sum(axis=1) == 1) & ((counts == 2) | (counts == 3)).any(axis=1)
    return mod_11_10(values) & (d[:, 0] != 0) & rule


def ean13(values: Sequence[str]) -> np.ndarray:
    """EAN-13 check digit (weights 1, 3, 1, 3 …): the Swiss AHV/AVS number 756.xxxx.xxxx.xx."""
    d = _digits(values)
    if d.size == 0:
        return np.zeros(len(values), dtype=bool)
    weights = np.tile([1, 3], 6)
    check = (10 - (d[:, :12] @ weights) % 10) % 10
    return check == d[:, 12]


def br_cpf(values: Sequence[str]) -> np.ndarray:
    """Brazilian CPF, 11 digits: two mod-11 check digits (weights 10..2, then 11..2), each
    ``(10 · sum mod 11) mod 10``; a number of one repeated digit is not issued."""
    d = _digits(values)
    if d.size == 0:
        return np.zeros(len(values), dtype=bool)
    first = (d[:, :9] @ np.arange(10, 1, -1) * 10 % 11) % 10
    second = (d[:, :10] @ np.arange(11, 1, -1) * 10 % 11) % 10
    same = (d == d[:, :1]).all(axis=1)
    return (first == d[:, 9]) & (second == d[:, 10]) & ~same


def br_cnpj(values: Sequence[str]) -> np.ndarray:
    """Brazilian CNPJ (a company's number), 14 digits: two mod-11 check digits (weights
    5,4,3,2,9..2 then 6,5,4,3,2,9..2; a remainder below 2 gives 0)."""
    d = _digits(values)
    if d.size == 0:
        return np.zeros(len(values), dtype=bool)
    w1 = np.array([5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2])
    w2 = np.array([6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2])
    r1 = d[:, :12] @ w1 % 11
    r2 = d[:, :13] @ w2 % 11
    c1 = np.where(r1 < 2, 0, 11 - r1)
    c2 = np.where(r2 < 2, 0, 11 - r2)
    same = (d == d[:, :1]).all(axis=1)
    return (c1 == d[:, 12]) & (c2 == d[:, 13]) & ~same


def pl_pesel(values: Sequence[str]) -> np.ndarray:
    """Polish PESEL, 11 digits: a birth date (month + 20·century offset) and a check digit
    ``(10 − Σ wᵢ·dᵢ mod 10) mod 10``, weights 1,3,7,9,1,3,7,9,1,3."""
    d = _digits(values)
    if d.size == 0:
        return np.zeros(len(values), dtype=bool)
    check = (10 - d[:, :10] @ np.array([1, 3, 7, 9, 1, 3, 7, 9, 1, 3]) % 10) % 10
    month = (d[:, 2] * 10 + d[:, 3]) % 20
    day = d[:, 4] * 10 + d[:, 5]
    return (check == d[:, 10]) & (month >= 1) & (month <= 12) & (day >= 1) & (day <= 31)


_CN_CHECK = np.frombuffer(b"10X98765432", dtype=np.uint8)


def cn_resident_id(values: Sequence[str]) -> np.ndarray:
    """Chinese resident identity card number, 18 characters: 17 digits (region, birth date,
    order) and an ISO 7064 MOD 11-2 check character (``X`` for 10)."""
    m = char_matrix(values).astype(np.int64)
    if m.size == 0:
        return np.zeros(len(values), dtype=bool)
    weights = np.array([7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2])
    remainder = (m[:, :17] - _ZERO) @ weights % 11
    return _CN_CHECK[remainder] == m[:, 17]
