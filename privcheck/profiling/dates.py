"""Date formats: which strptime format a column's dates are written in.

A ``dates`` hierarchy parses a column with one strptime ``format`` (ISO 8601 by default), so
the profile must find that format — and a column written in several formats must not be handed
one that fails on half its values. ``detect`` tries each known format on the sampled values
(shape first, by regular expression; then pandas' parser, the one ``privcheck.hierarchy``
uses); ``parse_share`` confirms the choice on every distinct value of the column.

``DD/MM/YYYY`` and ``MM/DD/YYYY`` read the same when no day exceeds 12: the profile then says
so (the year and the decade, what most generalizations keep, do not depend on it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_SLASH = r"^\d{1,2}/\d{1,2}/\d{4}$"
_DASH = r"^\d{1,2}-\d{1,2}-\d{4}$"
_SLASH_YY = r"^\d{1,2}/\d{1,2}/\d{2}$"
_TIME = r"(?::\d{2})?$"

#: (strptime format — None: ISO 8601, the dates hierarchy's default —, its name, value shape)
FORMATS: tuple[tuple[str | None, str, str], ...] = (
    (
        None,
        "YYYY-MM-DD (ISO 8601)",
        r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$",
    ),
    ("%d/%m/%Y", "DD/MM/YYYY", _SLASH),
    ("%m/%d/%Y", "MM/DD/YYYY", _SLASH),
    ("%d.%m.%Y", "DD.MM.YYYY", r"^\d{1,2}\.\d{1,2}\.\d{4}$"),
    ("%d-%m-%Y", "DD-MM-YYYY", _DASH),
    ("%m-%d-%Y", "MM-DD-YYYY", _DASH),
    ("%Y/%m/%d", "YYYY/MM/DD", r"^\d{4}/\d{1,2}/\d{1,2}$"),
    ("%Y.%m.%d", "YYYY.MM.DD", r"^\d{4}\.\d{1,2}\.\d{1,2}$"),
    ("%Y%m%d", "YYYYMMDD", r"^(?:1[89]|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])$"),
    ("%d/%m/%y", "DD/MM/YY", _SLASH_YY),
    ("%m/%d/%y", "MM/DD/YY", _SLASH_YY),
    ("%d %b %Y", "DD Mon YYYY", r"^\d{1,2} [A-Za-z]{3} \d{4}$"),
    ("%d-%b-%Y", "DD-Mon-YYYY", r"^\d{1,2}-[A-Za-z]{3}-\d{4}$"),
    ("%b %d, %Y", "Mon DD, YYYY", r"^[A-Za-z]{3} \d{1,2}, \d{4}$"),
    ("%d %B %Y", "DD Month YYYY", r"^\d{1,2} [A-Za-z]{3,9} \d{4}$"),
    ("%B %d, %Y", "Month DD, YYYY", r"^[A-Za-z]{3,9} \d{1,2}, \d{4}$"),
    ("%d/%m/%Y %H:%M", "DD/MM/YYYY hh:mm", r"^\d{1,2}/\d{1,2}/\d{4} \d{1,2}:\d{2}$"),
    ("%m/%d/%Y %H:%M", "MM/DD/YYYY hh:mm", r"^\d{1,2}/\d{1,2}/\d{4} \d{1,2}:\d{2}$"),
    ("%d/%m/%Y %H:%M:%S", "DD/MM/YYYY hh:mm:ss", r"^\d{1,2}/\d{1,2}/\d{4} \d{1,2}:\d{2}:\d{2}$"),
    ("%m/%d/%Y %H:%M:%S", "MM/DD/YYYY hh:mm:ss", r"^\d{1,2}/\d{1,2}/\d{4} \d{1,2}:\d{2}:\d{2}$"),
    ("%d.%m.%Y %H:%M", "DD.MM.YYYY hh:mm", r"^\d{1,2}\.\d{1,2}\.\d{4} \d{1,2}:\d{2}" + _TIME),
)

#: years a parsed date must lie in to count as one (a YYYYMMDD column of amounts does not)
YEARS = (1800, 2200)
#: a column is dates when at least this share of its sampled values parse with some format
DATE_SHARE = 0.9


def format_name(fmt: str | None) -> str:
    return next((name for f, name, _ in FORMATS if f == fmt), str(fmt))


def _parse(values: list[str], fmt: str | None) -> np.ndarray:
    """Years of ``values`` parsed with ``fmt`` (pandas, as the dates hierarchy parses), -1 where
    a value does not parse or its year is implausible."""
    import pandas as pd

    parsed = pd.to_datetime(
        pd.Series(values, dtype=object), format=fmt or "ISO8601", errors="coerce", utc=fmt is None
    )
    years = parsed.dt.year.to_numpy(dtype=float, na_value=np.nan)
    ok = np.isfinite(years) & (years >= YEARS[0]) & (years <= YEARS[1])
    return np.where(ok, np.nan_to_num(years), -1).astype(np.int64)


@dataclass(frozen=True)
class DateGuess:
    """What the sample says about a column's dates."""

    #: the format of them all (None: ISO 8601); meaningless when ``mixed``
    format: str | None
    #: share of sampled rows parsed by ``format`` (1.0: all)
    share: float
    #: another format that reads every sampled value too (DD/MM vs MM/DD with no day above 12)
    ambiguous_with: str | None = None
    #: several formats needed: the formats, most rows first
    mixed: tuple[str | None, ...] = ()

    @property
    def name(self) -> str:
        if self.mixed:
            return "mixed: " + ", ".join(format_name(f) for f in self.mixed)
        return format_name(self.format)


def detect(values: pa.Array, weights: np.ndarray) -> DateGuess | None:
    """The date format of sampled ``values`` (distinct trimmed strings, ``weights`` rows each),
    or None when they are not dates."""
    total = float(weights.sum())
    if total == 0 or len(values) == 0:
        return None
    parsed: dict[str | None, np.ndarray] = {}
    for fmt, _, shape in FORMATS:
        if fmt in parsed:
            continue
        fits = np.asarray(
            pc.fill_null(pc.match_substring_regex(values, shape), False).to_numpy(
                zero_copy_only=False
            ),
            dtype=bool,
        )
        if weights[fits].sum() < 0.05 * total:
            continue
        idx = np.flatnonzero(fits)
        years = _parse(values.take(pa.array(idx)).to_pylist(), fmt)
        ok = np.zeros(len(values), dtype=bool)
        ok[idx[years >= 0]] = True
        parsed[fmt] = ok
    if not parsed:
        return None
    shares = {fmt: float(weights[ok].sum()) / total for fmt, ok in parsed.items()}
    order = [f for f, _, _ in FORMATS if f in shares]
    best = max(order, key=lambda f: (shares[f], -order.index(f)))
    covered = np.zeros(len(values), dtype=bool)
    for ok in parsed.values():
        covered |= ok
    if float(weights[covered].sum()) / total < DATE_SHARE:
        return None
    if shares[best] >= 1.0 - 1e-12:
        other = next((f for f in order if f != best and shares[f] >= 1.0 - 1e-12), None)
        return DateGuess(best, 1.0, ambiguous_with=other)
    # several formats: each value read by the first format (most rows first) that parses it
    used: list[str | None] = []
    left = np.ones(len(values), dtype=bool)
    for fmt in sorted(order, key=lambda f: -shares[f]):
        take = parsed[fmt] & left
        if take.any():
            used.append(fmt)
            left &= ~take
    if len(used) == 1:  # one format, some values it does not read (typos, placeholders)
        return DateGuess(best, shares[best])
    return DateGuess(best, shares[best], mixed=tuple(used))


def parse_share(values: list[str], fmt: str | None) -> tuple[float, list[str]]:
    """Share of ``values`` (every distinct value of a column) that ``fmt`` parses, and a few
    that it does not."""
    if not values:
        return 1.0, []
    years = _parse(values, fmt)
    bad = np.flatnonzero(years < 0)
    return 1.0 - len(bad) / len(values), [values[i] for i in bad[:3]]


def years(values: list[str], formats: tuple[str | None, ...]) -> np.ndarray:
    """The year of each value, read by the first of ``formats`` that parses it; -1 if none."""
    out = np.full(len(values), -1, dtype=np.int64)
    for fmt in formats:
        left = np.flatnonzero(out < 0)
        if not len(left):
            break
        got = _parse([values[i] for i in left], fmt)
        out[left] = got
    return out
