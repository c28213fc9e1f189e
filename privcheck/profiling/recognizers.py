"""Value recognizers: which kind of value a column holds, whatever its name.

A column named ``notes`` full of e-mail addresses, or ``ref`` holding IBANs, is a direct
identifier: the name is what a person chose, the values are what an intruder reads. Each
recognizer here says, for every value of a sample, whether it is one of a kind — an e-mail
address, a phone number, an IBAN or a payment card (their check digits verified), a national
identifier (US SSN, UK NINO, French NIR, Dutch BSN, Italian codice fiscale, Spanish DNI/NIE,
German Steuer-ID, Swiss AHV, Croatian OIB, Brazilian CPF and CNPJ, Canadian SIN, Polish PESEL,
Chinese resident ID: check digits where the scheme has one), an IPv4/IPv6 or MAC
address, a URL, a UUID — or evidence for another role: a postal code (UK, Canadian, Dutch, US
ZIP+4) for a quasi-identifier, an ICD-10 code for a sensitive attribute.

They run on the distinct values of a column's sample (``columns.SAMPLE_SIZE`` rows, stated in
the profile), each a few Arrow regular-expression kernels (RE2) plus, for the candidates, a
vectorised check digit (``checksums.py``); a share is weighted by how many sampled rows hold
each value. Regular expressions give shape only: a check digit is what separates a real IBAN
column from digits that happen to look like one.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from privcheck.profiling import checksums

if TYPE_CHECKING:
    from privcheck.profiling.columns import ColumnData
    from privcheck.profiling.types import TypeInfo

#: a column is of a kind when at least this share of its sampled values are
KIND_SHARE = 0.5
#: values of the sample every recognizer sees; the others see the whole sample only if they
#: matched one of these
PILOT = 1_000
#: free text (long values with spaces) is an identifier when this share of its values contain
#: an e-mail address, a phone number, an IBAN or a URL
CONTAINS_SHARE = 0.05


def _match(values: pa.Array, pattern: str, ignore_case: bool = False) -> np.ndarray:
    if len(values) == 0:
        return np.zeros(0, dtype=bool)
    hit = pc.match_substring_regex(values, pattern, ignore_case=ignore_case)
    return np.asarray(pc.fill_null(hit, False).to_numpy(zero_copy_only=False), dtype=bool)


def _strip(values: pa.Array, chars: str = r"[\s.\-/]") -> pa.Array:
    return pc.replace_substring_regex(values, chars, "")


def _checked(
    values: pa.Array, shape: np.ndarray, check: Callable[[list[str]], np.ndarray]
) -> np.ndarray:
    """``shape`` narrowed to the values whose check digit holds (``check`` on equal lengths)."""
    out = np.zeros(len(values), dtype=bool)
    idx = np.flatnonzero(shape)
    if len(idx):
        candidates = values.take(pa.array(idx)).to_pylist()
        out[idx] = checksums.by_length(candidates, check)
    return out


# --------------------------------------------------------------------------- identifiers

_EMAIL = (
    r"^[A-Za-z0-9._%+'\-]+@[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}$"
)


def email(values: pa.Array) -> np.ndarray:
    """An e-mail address: local part, ``@``, a domain with a top-level part of letters."""
    return _match(values, _EMAIL)


#: a phone number written in digit groups: (555)123-4567, 555-123-4567, 06 12 34 56 78
_PHONE_GROUPS = r"^\+?(?:\(\d{1,5}\)[\s.\-/]?|\d{1,5}[\s.\-/])(?:\d{1,5}[\s.\-/]){0,4}\d{2,5}$"
#: an extension after the number (x123, ext. 12)
_EXTENSION = r"(?i)\s*(?:x|ext\.?|extension)\s*\d{1,6}$"
#: what a date looks like (it has separated digit groups too): never a phone number
_DATE_SHAPE = r"^\d{1,4}[./\-]\d{1,2}[./\-]\d{1,4}$|^\d{4}[./\-]\d{2}[./\-]\d{2}[T ]"


def phone(values: pa.Array) -> np.ndarray:
    """A phone number: international (``+44 20 7946 0958``, ``0044…``), national with a
    leading 0 (``0612345678``, ``030 1234567``) or written in groups (``(555) 123-4567``),
    7 to 15 digits. A plain run of digits without + or a leading 0 is not taken for one (it may
    be any number; a near-unique code is caught as such)."""
    values = pc.replace_substring_regex(values, _EXTENSION, "")
    digits = _strip(values, r"[\s().\-/]")
    n_digits = pc.utf8_length(pc.replace_substring_regex(digits, r"\D", "")).to_numpy(
        zero_copy_only=False
    )
    plus = _match(digits, r"^(?:\+|00)[1-9]\d{6,14}$")
    national = _match(digits, r"^0[1-9]\d{7,10}$")
    grouped = _match(values, _PHONE_GROUPS) & ~_match(values, _DATE_SHAPE) & (n_digits >= 9)
    return (plus | national | grouped) & (n_digits >= 7) & (n_digits <= 15)


def iban(values: pa.Array) -> np.ndarray:
    """An IBAN (ISO 13616), spaces allowed, its mod-97 check digits verified."""
    compact = pc.utf8_upper(_strip(values, r"\s"))
    shape = _match(compact, r"^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$")
    return _checked(compact, shape, checksums.iban)


def payment_card(values: pa.Array) -> np.ndarray:
    """A payment card number (12–19 digits — Maestro has 12, JCB 15 —, spaces or hyphens
    allowed), Luhn check verified."""
    compact = _strip(values, r"[\s\-]")
    shape = _match(compact, r"^\d{12,19}$")
    return _checked(compact, shape, checksums.luhn)


def us_ssn(values: pa.Array) -> np.ndarray:
    """A US Social Security (or taxpayer) number written ``ddd-dd-dddd``: the shape alone,
    issued or not — an ITIN (9xx) or a test number identifies a record as well."""
    return _match(values, r"^\d{3}-\d{2}-\d{4}$")


_NINO = r"^[A-Z]{2}\d{6}[A-Z]?$"


def uk_nino(values: pa.Array) -> np.ndarray:
    """A UK National Insurance number (``QQ 12 34 56 C``): two letters, six digits and an
    optional letter — the prefixes never issued included (QQ and ZZ are what examples and
    test data use, and a column of them points at people all the same)."""
    compact = pc.utf8_upper(_strip(values, r"\s"))
    return _match(compact, _NINO)


def fr_nir(values: pa.Array) -> np.ndarray:
    """A French NIR (sex, year, month, département, commune, order, key), key verified."""
    compact = pc.utf8_upper(_strip(values, r"\s"))
    shape = _match(compact, r"^[1-478]\d{2}(?:0[1-9]|1[0-2]|[2-9]\d)(?:\d{2}|2[AB])\d{8}$")
    return _checked(compact, shape, checksums.fr_nir)


def nl_bsn(values: pa.Array) -> np.ndarray:
    """A Dutch BSN: 9 digits passing the 11-proof (dots or spaces allowed)."""
    compact = _strip(values, r"[\s.]")
    shape = _match(compact, r"^\d{9}$")
    return _checked(compact, shape, checksums.nl_bsn)


def it_codice_fiscale(values: pa.Array) -> np.ndarray:
    """An Italian codice fiscale (16 characters), its check letter verified."""
    compact = pc.utf8_upper(_strip(values, r"\s"))
    shape = _match(compact, r"^[A-Z]{6}\d{2}[A-EHLMPRST]\d{2}[A-Z]\d{3}[A-Z]$")
    return _checked(compact, shape, checksums.it_codice_fiscale)


def es_dni(values: pa.Array) -> np.ndarray:
    """A Spanish DNI (8 digits and a letter) or NIE (X/Y/Z, 7 digits, a letter), letter
    verified."""
    compact = pc.utf8_upper(_strip(values, r"[\s\-]"))
    shape = _match(compact, r"^(?:\d{8}|[XYZ]\d{7})[A-Z]$")
    return _checked(compact, shape, checksums.es_dni)


def de_steuer_id(values: pa.Array) -> np.ndarray:
    """A German Steuer-Identifikationsnummer: 11 digits, ISO 7064 MOD 11,10 check digit."""
    compact = _strip(values, r"[\s/]")
    shape = _match(compact, r"^[1-9]\d{10}$")
    return _checked(compact, shape, checksums.de_steuer_id)


def ch_ahv(values: pa.Array) -> np.ndarray:
    """A Swiss AHV/AVS number ``756.xxxx.xxxx.xx``, EAN-13 check digit verified."""
    compact = _strip(values, r"[\s.]")
    shape = _match(compact, r"^756\d{10}$")
    return _checked(compact, shape, checksums.ean13)


def hr_oib(values: pa.Array) -> np.ndarray:
    """A Croatian OIB: 11 digits, ISO 7064 MOD 11,10 check digit (a German Steuer-ID passes
    it too, and is recognised first)."""
    compact = _strip(values, r"\s")
    shape = _match(compact, r"^\d{11}$")
    return _checked(compact, shape, checksums.mod_11_10)


def br_cpf(values: pa.Array) -> np.ndarray:
    """A Brazilian CPF, ``123.456.789-09`` or 11 digits, both check digits verified (as
    python-stdnum's ``br.cpf``) — written in groups it looks like a phone number, and is not."""
    shape = _match(values, r"^\d{3}\.?\d{3}\.?\d{3}[\-/]?\d{2}$")
    compact = _strip(values, r"[.\-/]")
    return _checked(compact, shape, checksums.br_cpf)


def br_cnpj(values: pa.Array) -> np.ndarray:
    """A Brazilian CNPJ (a company's number, a sole trader's too), ``12.345.678/0001-95`` or
    14 digits, both check digits verified (as python-stdnum's ``br.cnpj``)."""
    shape = _match(values, r"^\d{2}\.?\d{3}\.?\d{3}/?\d{4}-?\d{2}$")
    compact = _strip(values, r"[.\-/]")
    return _checked(compact, shape, checksums.br_cnpj)


def ca_sin(values: pa.Array) -> np.ndarray:
    """A Canadian Social Insurance Number, ``123 456 782`` (spaces or hyphens), Luhn
    verified; none begins with 0 or 8."""
    shape = _match(values, r"^[1-79]\d{2}[\s\-]\d{3}[\s\-]\d{3}$")
    compact = _strip(values, r"[\s\-]")
    return _checked(compact, shape, checksums.luhn)


def pl_pesel(values: pa.Array) -> np.ndarray:
    """A Polish PESEL: 11 digits holding a birth date, check digit verified."""
    compact = _strip(values, r"\s")
    shape = _match(compact, r"^\d{11}$")
    return _checked(compact, shape, checksums.pl_pesel)


def cn_resident_id(values: pa.Array) -> np.ndarray:
    """A Chinese resident identity card number: 17 digits and a check character (``X`` for
    10), ISO 7064 MOD 11-2 verified."""
    compact = pc.utf8_upper(_strip(values, r"\s"))
    shape = _match(compact, r"^\d{6}(?:19|20)\d{2}(?:0[1-9]|1[0-2])\d{5}[\dX]$")
    return _checked(compact, shape, checksums.cn_resident_id)


_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"


def ipv4(values: pa.Array) -> np.ndarray:
    """An IPv4 address in dotted decimal."""
    return _match(values, rf"^(?:{_OCTET}\.){{3}}{_OCTET}$")


def ipv6(values: pa.Array) -> np.ndarray:
    """An IPv6 address (candidates by shape, confirmed by the standard library's parser)."""
    shape = _match(values, r"^[0-9A-Fa-f:.]+$") & _match(values, r":.*:")
    out = np.zeros(len(values), dtype=bool)
    for i in np.flatnonzero(shape):  # (only the candidates: a column of addresses)
        try:
            ipaddress.IPv6Address(values[int(i)].as_py())
        except ValueError:
            continue
        out[i] = True
    return out


def mac_address(values: pa.Array) -> np.ndarray:
    """A MAC address (six hexadecimal pairs separated by ``:`` or ``-``)."""
    return _match(values, r"^(?:[0-9A-Fa-f]{2}[:\-]){5}[0-9A-Fa-f]{2}$")


def url(values: pa.Array) -> np.ndarray:
    """A URL (``http(s)://``, ``ftp://`` or ``www.``)."""
    return _match(
        values, r"^(?:(?:https?|ftp)://[^\s/$.?#][^\s]*|www\.[^\s]+\.[a-z]{2,}\S*)$", True
    )


def uuid(values: pa.Array) -> np.ndarray:
    """A UUID/GUID (32 hexadecimal digits, hyphens optional): a key made to be unique."""
    return _match(
        values,
        r"^\{?[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}\}?$",
    )


# --------------------------------------------------------------------------- other roles


def postcode(values: pa.Array) -> np.ndarray:
    """A postal code with letters or a suffix, which no number reads as: UK (``SW1A 1AA``),
    Canadian (``K1A 0B1``), Dutch (``1234 AB``), US ZIP+4 (``02139-4307``)."""
    upper = pc.utf8_upper(values)
    uk = _match(upper, r"^[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}$")
    ca = _match(upper, r"^[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z]\s?\d[ABCEGHJ-NPRSTV-Z]\d$")
    nl = _match(upper, r"^[1-9]\d{3}\s?[A-Z]{2}$")
    zip4 = _match(values, r"^\d{5}-\d{4}$")
    return uk | ca | nl | zip4


def icd10(values: pa.Array) -> np.ndarray:
    """An ICD-10 diagnosis code (``E11``, ``E11.9``, ``J45.909``, ``C50``), written with its dot
    (``P001234`` is a record key, not a code)."""
    return _match(pc.utf8_upper(values), r"^[A-TV-Z]\d[0-9A-Z](?:\.[0-9A-Z]{1,4})?$")


@dataclass(frozen=True)
class Recognizer:
    """One kind of value: its name in the profile (``pattern``), how reasons call it, and what
    a column mostly made of it is."""

    name: str
    label: str
    role: str
    match: Callable[[pa.Array], np.ndarray]
    #: the quasi-identifier or sensitive concept it is evidence of (hierarchy choice, reason)
    concept: str | None = None
    #: a regular expression finding one inside free text (identifiers only)
    inside: str | None = None


_ID = "identifier"
RECOGNIZERS: tuple[Recognizer, ...] = (
    Recognizer("email", "e-mail addresses", _ID, email, inside=_EMAIL[1:-1]),
    Recognizer("iban", "IBANs (mod-97 check digits verified)", _ID, iban),
    Recognizer("payment-card", "payment card numbers (Luhn verified)", _ID, payment_card),
    Recognizer(
        "us-ssn", "US Social Security numbers", _ID, us_ssn, inside=r"\b\d{3}-\d{2}-\d{4}\b"
    ),
    Recognizer("uk-nino", "UK National Insurance numbers", _ID, uk_nino),
    Recognizer("fr-nir", "French NIR numbers (key verified)", _ID, fr_nir),
    Recognizer("nl-bsn", "Dutch BSNs (11-proof verified)", _ID, nl_bsn),
    Recognizer(
        "it-codice-fiscale",
        "Italian codici fiscali (check letter verified)",
        _ID,
        it_codice_fiscale,
    ),
    Recognizer("es-dni", "Spanish DNI/NIE numbers (letter verified)", _ID, es_dni),
    Recognizer("de-steuer-id", "German tax IDs (check digit verified)", _ID, de_steuer_id),
    Recognizer("ch-ahv", "Swiss AHV numbers (check digit verified)", _ID, ch_ahv),
    Recognizer("hr-oib", "Croatian OIB numbers (check digit verified)", _ID, hr_oib),
    Recognizer("br-cpf", "Brazilian CPF numbers (check digits verified)", _ID, br_cpf),
    Recognizer("br-cnpj", "Brazilian CNPJ numbers (check digits verified)", _ID, br_cnpj),
    Recognizer("ca-sin", "Canadian Social Insurance Numbers (Luhn verified)", _ID, ca_sin),
    Recognizer("pl-pesel", "Polish PESEL numbers (check digit verified)", _ID, pl_pesel),
    Recognizer(
        "cn-resident-id",
        "Chinese resident identity numbers (check character verified)",
        _ID,
        cn_resident_id,
    ),
    Recognizer("ipv4", "IPv4 addresses", _ID, ipv4),
    Recognizer("ipv6", "IPv6 addresses", _ID, ipv6),
    Recognizer("mac-address", "MAC addresses", _ID, mac_address),
    Recognizer("url", "URLs", _ID, url, inside=r"(?i)\b(?:https?://|www\.)\S+"),
    Recognizer("uuid", "UUIDs", _ID, uuid),
    Recognizer("phone", "phone numbers", _ID, phone, inside=r"(?:\+|\b00)[1-9][\d \-]{7,16}\d"),
    Recognizer("postcode", "postal codes", "quasi_identifier", postcode, concept="postal"),
    Recognizer("icd-10", "ICD-10 diagnosis codes", "sensitive", icd10, concept="health"),
)


@dataclass(frozen=True)
class Detection:
    """The share of sampled rows each recognizer matched (only those above zero)."""

    shares: dict[str, float]
    #: share of sampled rows matched by any identifier recognizer
    identifier_share: float
    #: free text: share of rows containing each identifier kind somewhere inside
    inside: dict[str, float]

    def best(self, threshold: float = KIND_SHARE) -> Recognizer | None:
        """The kind most sampled values are (at least ``threshold`` of them), or None."""
        found = [(s, -i) for i, r in enumerate(RECOGNIZERS) if (s := self.shares.get(r.name, 0))]
        if not found:
            return None
        share, neg = max(found)
        return RECOGNIZERS[-neg] if share >= threshold else None


def by_name(name: str) -> Recognizer:
    return next(r for r in RECOGNIZERS if r.name == name)


def detect(values: pa.Array, weights: np.ndarray, free_text: bool = False) -> Detection:
    """Run every recognizer over ``values`` (distinct sampled strings, trimmed) weighted by
    ``weights`` (sampled rows holding each); ``free_text`` also looks inside the values."""
    total = float(weights.sum())
    shares: dict[str, float] = {}
    any_identifier = np.zeros(len(values), dtype=bool)
    inside: dict[str, float] = {}
    if total == 0:
        return Detection(shares, 0.0, inside)
    # a first pass over a spread of PILOT values: a recognizer that matches none of them
    # (most, on most columns) is not run on the rest — its share would be below 1 in PILOT
    step = max(1, len(values) // PILOT)
    pilot = values[::step] if step > 1 else values
    for rec in RECOGNIZERS:
        if step == 1 or rec.match(pilot).any():
            hit = rec.match(values)
            share = float(weights[hit].sum()) / total
            if share > 0:
                shares[rec.name] = share
            if rec.role == "identifier":
                any_identifier |= hit
        else:
            hit = None
        if free_text and rec.inside is not None:
            if step > 1 and not _match(pilot, rec.inside).any():
                continue
            found = _match(values, rec.inside)
            if hit is not None:
                found &= ~hit
            share_in = float(weights[found].sum()) / total
            if share_in > 0:
                inside[rec.name] = share_in
    return Detection(shares, float(weights[any_identifier].sum()) / total, inside)


def detect_column(col: ColumnData, info: TypeInfo) -> Detection:
    """What the sampled values of a typed column are (``detect``): nothing for booleans,
    dates or a column without values; long spaced text is read as free text."""
    if info.type in ("boolean", "date") or len(col.sample_values) == 0:
        return Detection({}, 0.0, {})
    free = info.type == "text" and info.mean_length >= 15 and info.spaced_share >= 0.3
    return detect(col.sample_values, col.sample_weights, free_text=free)
