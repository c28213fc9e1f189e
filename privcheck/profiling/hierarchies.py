"""Hierarchy builders: for every quasi-identifier a generalization a person would have written.

- numbers (ages, years, amounts): ``intervals`` with widths a person would choose — 1, 2, 5 ×
  10^n, each a multiple of the one below (5, 10, 20; 20 000, 100 000, 200 000) — fitted to the
  range that holds 90 % of the rows, at most three levels before ``*``;
- postal codes: ``masking`` when all have one length (``02139`` → ``0213*`` … ``*****``, leading
  zeros kept); codes in two parts by district and area (``SW1A 1AA`` → ``SW1A *`` → ``SW*`` →
  ``*``); else a table of prefixes; a postcode that lies in one place of a place column:
  postcode → place → the place's levels (``nested_rows``, decided in ``draft``);
- dates: ``dates`` calendar levels that split the column's span — month, quarter (a span of a
  few years), year, decade (more than one) — in the detected ``format``; dates written in
  several formats: a table of their years and decades;
- categories: a ``table`` hierarchy (ARX's CSV format) grouped by meaning where the values say
  so (``groupings``: ICD-10 chapters, codes by their leading characters, countries by region
  and continent, US states by census region, job titles by the head word they share), else by
  frequency — values held by at least k records kept, rarer ones gathered into ``other``, then
  only the commonest covering 80 % and 50 % of the records —, then ``*``.

Every numeric label is an interval in one notation: ``[20, 29]`` for a bin of integers (as the
``intervals`` hierarchy and Mondrian write one), ``[0.5, 1)`` for other numbers.

Every hierarchy ends in ``*`` (so the fully generalized table always exists and an anonymizer
can always satisfy k ≤ n) and is resolved here with privcheck's own resolvers
(``privcheck.hierarchy``) on the column's distinct values: what the draft writes is a tree that
``check`` and ``anonymize`` accept. One that does not resolve falls back to the frequency table,
which always does.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from privcheck.errors import PrivcheckError
from privcheck.profiling import dates, groupings
from privcheck.profiling.columns import PYTHON_VALUES, ColumnData
from privcheck.profiling.types import TypeInfo

TOP = "*"
#: the bins of the finest interval level cover the central 90 % of the rows in about this many
TARGET_BINS = 15
#: at most this many interval widths before ``*``
MAX_WIDTHS = 3
#: concepts whose values are categories even when written as numbers (codes)
CATEGORICAL = frozenset(
    {"sex", "ethnicity", "marital", "education", "occupation", "nationality", "geography"}
)
#: field separators a table hierarchy file may use, in order of preference (ARX's is ';')
SEPARATORS = (";", "\t", "|", ",")
#: characters Python's ``str.splitlines`` breaks lines at: a value holding one cannot live in a
#: line-based file (its table is written inline in the policy instead)
LINE_BREAKS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")


@dataclass
class Built:
    """A hierarchy for the policy: its spec (table rows inline) and, for a table, its rows."""

    spec: dict[str, Any]
    rows: list[list[str]] | None = None
    #: the file's field separator (a table whose values hold ';' uses another)
    sep: str = ";"
    #: the table cannot be a file (a value holds a line break): keep it inline in the policy
    inline: bool = False
    #: what a reader should know about it (a fallback, gathered values)
    note: str | None = None


# --------------------------------------------------------------------------- intervals


def _nice_numbers(low: float, high: float) -> list[float]:
    """1, 2, 5 × 10^e from below ``low`` up to above ``high``."""
    out = []
    for e in range(math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 2):
        for m in (1, 2, 5):
            out.append(m * 10.0**e)
    return out


def _clean(x: float) -> int | float:
    """A width as written: 5 not 5.0, 0.2 not 0.20000000000000001."""
    rounded = float(f"{x:.12g}")
    return int(rounded) if rounded.is_integer() else rounded


def _multiple(big: float, small: float) -> bool:
    ratio = big / small
    return abs(ratio - round(ratio)) <= 1e-9 and round(ratio) >= 2


def nice_widths(low: float, high: float, p05: float, p95: float, integer: bool) -> list:
    """Interval widths a person would choose for values in ``[low, high]`` (most rows in
    ``[p05, p95]``): the finest near (p95 − p05) / 15, then the next nice multiples, until one
    bin covers the whole range, at most ``MAX_WIDTHS``."""
    span = max(p95 - p05, high - low if p95 <= p05 else 0.0)
    if span <= 0:
        span = max(abs(high), 1.0)
    target = span / TARGET_BINS
    floor = 2.0 if integer else 0.0
    candidates = _nice_numbers(max(target, 1e-9) / 10, max(span, high - low, 1.0) * 10)
    first = next(n for n in candidates if n >= max(target, floor) * (1 - 1e-9))
    widths = [first]
    while len(widths) < MAX_WIDTHS:
        last = widths[-1]
        if math.floor(low / last) == math.floor(high / last):  # one bin holds everything
            break
        nxt = next((n for n in candidates if n > last and _multiple(n, last)), None)
        if nxt is None:
            break
        widths.append(nxt)
    if len(widths) > 1 and math.floor(low / widths[-1]) == math.floor(high / widths[-1]):
        widths.pop()  # a level with one bin is the '*' level again
    return [_clean(w) for w in widths]


def intervals(info: TypeInfo) -> dict[str, Any]:
    widths = nice_widths(info.low, info.high, info.p05, info.p95, info.type == "integer")
    return {"type": "intervals", "widths": widths}


# --------------------------------------------------------------------------- tables


def frequency_table(labels: list[str], counts: np.ndarray, k: int) -> tuple[list[list[str]], str]:
    """ARX rows ``value;…;*`` most frequent first, by frequency (``groupings.frequency_rows``):
    values held by fewer than k records gathered into 'other', then only the commonest values
    covering 80 % and 50 % of the records kept; and what was gathered (None: nothing)."""
    rows, other = groupings.frequency_rows(labels, counts, k)
    return rows, _gathered_note(rows, counts, labels, k, other)


def _gathered_note(
    rows: list[list[str]], counts: np.ndarray, labels: list[str], k: int, other: str
) -> str | None:
    if len(rows[0]) < 3:
        return None
    count = dict(zip(labels, counts.tolist(), strict=True))
    rare = sum(1 for r in rows if r[1] == other and count.get(r[0], k) < k)
    if not rare:
        return None
    return f"{rare:,} value{'s' if rare != 1 else ''} held by fewer than {k} records → {other!r}"


def prefix_table(labels: list[str]) -> list[list[str]]:
    """Postal codes of several lengths. Written in two parts (``SW1A 1AA``, ``K1A 0B1``): the
    first part, the district (``SW1A *``), then its leading letters, the area (``SW*``), then
    ``*``. Otherwise prefixes of 3, 2 and 1 characters, then ``*``."""
    parts = [v.strip().split() for v in labels]
    if all(len(p) == 2 for p in parts):
        district = [f"{p[0]} *" for p in parts]
        area = [re.match(r"[^\d]*", p[0]).group() or p[0][:1] for p in parts]
        return [[v, d, a + "*", TOP] for v, d, a in zip(labels, district, area, strict=True)]
    longest = max(len(v) for v in labels)
    keep = [p for p in (3, 2, 1) if p < longest] or [1]
    return [[v, *(v[:p] + "*" for p in keep), TOP] for v in labels]


def nested_rows(
    codes: np.ndarray,
    places: np.ndarray,
    counts: np.ndarray,
    place_rows: list[list[str]],
    share: float,
) -> list[list[str]] | None:
    """Postal codes under the place each lies in: ``code;place;…the place's levels…;*``, from
    the rows per (code, place) pair (``counts``; a missing code or place is no pair). None when
    a code's rows name more than one place beyond ``1 − share`` of all rows, or a place has no
    row in ``place_rows``."""
    above = {row[0]: row[1:] for row in place_rows}
    best: dict[str, tuple[int, str]] = {}
    for code, place, n in zip(codes.tolist(), places.tolist(), counts.tolist(), strict=True):
        if code is None or place is None or str(code) == "" or str(place) == "":
            continue
        if code not in best or n > best[code][0]:
            best[code] = (n, place)
    total = int(sum(n for c, p, n in zip(codes, places, counts, strict=True) if c and p))
    held = sum(n for n, _ in best.values())
    if not best or total == 0 or held < share * total:
        return None
    if any(place not in above for _, place in best.values()):
        return None
    return [[code, place, *above[place]] for code, (_, place) in best.items()]


def year_table(labels: list[str], formats: tuple[str | None, ...]) -> list[list[str]]:
    """Dates in several formats: value → year → decade → ``*`` (each read by the first format
    that parses it; a value none reads goes to '(not a date)')."""
    years = dates.years(labels, formats)
    rows = []
    for value, year in zip(labels, years.tolist(), strict=True):
        if year < 0:
            rows.append([value, "(not a date)", "(not a date)", TOP])
        else:
            rows.append([value, str(year), f"{year // 10 * 10}s", TOP])
    return rows


def numeric_table(labels: list[str], counts: np.ndarray, info: TypeInfo) -> list[list[str]]:
    """Numbers with a few non-numbers (``unknown``): numbers binned like an intervals hierarchy,
    the others kept and then gathered, all under ``*``."""
    from privcheck.hierarchy import interval_label, parse_numbers

    x = parse_numbers(np.asarray(labels, dtype=object))
    good = np.isfinite(x)
    nums = x[good]
    integer = bool(np.all(np.mod(nums, 1) == 0))
    widths = nice_widths(
        float(nums.min()), float(nums.max()), *np.percentile(nums, [5, 95]).tolist(), integer
    )
    other = groupings.label_for_other(labels)
    rows = []
    for value, number, ok in zip(labels, x.tolist(), good.tolist(), strict=True):
        if ok:
            row = [value]
            for w in widths:
                lo = math.floor(number / w) * w
                high = lo + w - 1 if integer else lo + w
                row.append(interval_label(_clean(lo), _clean(high), integer))
        else:
            row = [value, value, *([other] * (len(widths) - 1))]
        rows.append([*row, TOP])
    return rows


def _separator(rows: list[list[str]]) -> tuple[str, bool]:
    """A field separator no value holds, and whether the rows must stay inline (a value holds a
    line break, or every separator)."""
    text = {v for row in rows for v in row}
    if any(LINE_BREAKS & set(v) for v in text) or any(r[0].startswith("\ufeff") for r in rows[:1]):
        return ";", True  # (a byte-order mark opening the file would be read as no character)
    for sep in SEPARATORS:
        if not any(sep in v for v in text):
            return sep, False
    return ";", True


def table(rows: list[list[str]], note: str | None = None) -> Built:
    sep, inline = _separator(rows)
    spec: dict[str, Any] = {"type": "table", "rows": rows}
    return Built(spec, rows, sep=sep, inline=inline, note=note)


# --------------------------------------------------------------------------- choosing


def _labels(col: ColumnData) -> list[str]:
    from privcheck.encoding import string_labels

    return [str(v) for v in string_labels(np.asarray(col.python_values(), dtype=object))]


def build(col: ColumnData, info: TypeInfo, concept: str | None, k: int) -> Built:
    """The hierarchy of a quasi-identifier (see the module docstring), resolved once by
    privcheck's own resolvers; a frequency table when that fails."""
    mixed_dates = info.type == "date" and info.date is not None and bool(info.date.mixed)
    if col.distinct > PYTHON_VALUES and (info.numeric or info.type == "date") and not mixed_dates:
        return _choose(col, info, concept, k, labels=None)  # from the range: no listing
    labels = _labels(col)
    built = _choose(col, info, concept, k, labels)
    problem = resolve(built, col, labels)
    if problem is None:
        return built
    rows, note = frequency_table(labels, col.counts, k)
    fallback = table(rows, note)
    fallback.note = f"a {built.spec['type']} hierarchy did not fit ({problem}); " + (note or "")
    return fallback


def _choose(col, info: TypeInfo, concept: str | None, k: int, labels: list[str] | None) -> Built:
    if col.distinct <= 1 or info.type == "boolean":
        return table([[v, TOP] for v in labels or []])
    if info.type == "date" and info.date is not None:
        if info.date.mixed:
            if labels is None:
                raise PrivcheckError("too many distinct dates in several formats to tabulate")
            return table(year_table(labels, info.date.mixed), "years of dates in several formats")
        spec: dict[str, Any] = {"type": "dates", "levels": date_levels_for(col, info)}
        if info.date.format is not None:
            spec["format"] = info.date.format
        return Built(spec)
    if concept == "postal" and labels is not None:
        if info.width is not None and info.width <= 10:
            return Built({"type": "masking"})
        return table(prefix_table(labels))
    numeric_concept = concept not in CATEGORICAL or (
        concept == "geography" and info.type == "decimal"
    )
    finite = info.low is not None and info.stray is None
    if info.numeric and numeric_concept and col.distinct > 12 and finite:
        return Built(intervals(info))
    if labels is None:
        raise PrivcheckError(f"{col.distinct:,} distinct values are too many for a table hierarchy")
    if info.stray is not None and info.stray_share >= 0.9 and numeric_concept:
        return table(numeric_table(labels, col.counts, info), "numbers binned; others kept")
    meaning = _by_meaning(labels, col.counts, concept, k)
    if meaning is not None:
        return meaning
    rows, note = frequency_table(labels, col.counts, k)
    return table(rows, note)


def _by_meaning(labels: list[str], counts: np.ndarray, concept: str | None, k: int) -> Built | None:
    """A table grouping the values by what they are (``groupings``), when they say so."""
    if concept == "sex" or len(labels) < 3:
        return None
    rows = groupings.icd10_rows(labels, counts)
    if rows is not None:
        return table(rows, "ICD-10 codes → categories → chapters")
    if concept in ("geography", "nationality"):
        rows = groupings.country_rows(labels, counts)
        if rows is not None:
            return table(rows, "countries → UN M49 regions → continents")
        rows = groupings.state_rows(labels, counts)
        if rows is not None:
            return table(rows, "US states → census divisions → census regions")
    rows = groupings.code_prefix_rows(labels, counts)
    if rows is not None:
        return table(rows, "codes → their leading characters")
    if concept == "occupation":
        rows = groupings.title_rows(labels, counts, k)
        if rows is not None:
            return table(rows, "titles → the head word they share, then by frequency")
    return None


def date_levels_for(col: ColumnData, info: TypeInfo) -> list[str]:
    """Calendar levels that split the column's dates: month, then quarter when they span a few
    years, year when they span more than one, decade when more than one decade."""
    first, last = _year_span(col, info)
    levels = ["month"]
    if first is None or last - first <= 5:
        levels.append("quarter")
    if first is None or last > first:
        levels.append("year")
    if first is not None and last // 10 > first // 10 and last - first > 5:
        levels.append("decade")
    return levels


def _year_span(col: ColumnData, info: TypeInfo) -> tuple[int | None, int]:
    """The first and last year of the column's dates (None: not known cheaply)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    values = col.values
    if pa.types.is_dictionary(values.type):
        values = values.cast(values.type.value_type)
    if pa.types.is_timestamp(values.type) or pa.types.is_date(values.type):
        years = pc.year(values)
        low, high = pc.min(years).as_py(), pc.max(years).as_py()
        return (None, 0) if low is None else (int(low), int(high))
    if col.distinct > PYTHON_VALUES:
        return None, 0
    fmt = info.date.format if info.date is not None else None
    found = dates.years([str(v) for v in col.strings().to_pylist()], (fmt,))
    found = found[found >= 0]
    return (None, 0) if len(found) == 0 else (int(found.min()), int(found.max()))


def resolve(built: Built, col: ColumnData, labels: list[str]) -> str | None:
    """Resolve ``built`` on the column's distinct values as ``encode`` will; the problem, or
    None when it is a valid tree covering every value."""
    from privcheck.hierarchy import date_levels, interval_levels, masking_levels, table_levels
    from privcheck.policy import (
        DatesHierarchy,
        IntervalsHierarchy,
        MaskingHierarchy,
        TableHierarchy,
    )

    values = np.asarray(col.python_values(), dtype=object)
    kind = built.spec["type"]
    try:
        if kind == "table":
            tree = table_levels(TableHierarchy(rows=built.rows), col.name, None)
            missing = set(labels) - {str(g) for g in tree.ground}
            if missing:
                return f"value {sorted(missing)[0]!r} has no row"
        elif kind == "intervals":
            interval_levels(IntervalsHierarchy(**built.spec), col.name, values)
        elif kind == "masking":
            masking_levels(MaskingHierarchy(**built.spec), col.name, np.asarray(labels, object))
        elif kind == "dates":
            date_levels(DatesHierarchy(**built.spec), col.name, values)
    except (PrivcheckError, ValueError) as exc:
        return str(exc).split(";")[0]
    return None
