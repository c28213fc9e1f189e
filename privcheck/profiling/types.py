"""A column's type — integer, decimal, date, text or boolean — and the facts about its values
the rules and hierarchies need (range, codes with leading zeros, widths, free text).

A CSV holds strings: ``02139`` is read as a string and stays one, because a leading zero makes
a code, not a number (a postal code, an account number), and privcheck compares it as written.
So a column is ``integer`` only when every value is an integer written as a number would be;
one with leading zeros is ``text`` with a ``code`` flag. Parquet and DataFrame columns bring
their own types. The type is decided on the sample and confirmed on every distinct value with
one vectorised Arrow kernel (a number column with a stray ``unknown`` is text, and says so).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from privcheck.profiling import dates
from privcheck.profiling.columns import ColumnData

INTEGER = r"^[+-]?\d+$"
DECIMAL = r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$"
#: spellings of a two-valued column read as booleans (compared case-insensitively)
BOOLEAN_PAIRS = (
    {"true", "false"},
    {"yes", "no"},
    {"y", "n"},
    {"t", "f"},
    {"ja", "nein"},
    {"oui", "non"},
    {"si", "no"},
    {"sí", "no"},
    {"0", "1"},
)


@dataclass
class TypeInfo:
    """What kind of values a column holds."""

    type: str  # integer, decimal, date, text, boolean
    #: digits-only codes where some value has a leading zero (02139): text, never a number
    code: bool = False
    #: every value has this many characters (codes, postal codes), else None
    width: int | None = None
    #: dates: the format guessed (and confirmed on every value unless ``date.mixed``)
    date: dates.DateGuess | None = None
    #: numbers: min, max and the 5th / 95th percentiles (rows weighted)
    low: float | None = None
    high: float | None = None
    p05: float | None = None
    p95: float | None = None
    #: a sampled value that made a mostly-numeric or mostly-date column text
    stray: str | None = None
    #: the share of sampled values that were numbers or dates when ``stray`` is set
    stray_share: float = 0.0
    #: text: mean length and share of values with a space (free text reads long, with spaces)
    mean_length: float = 0.0
    spaced_share: float = 0.0
    #: text: share of values that look like codes (letters and digits, no spaces, a digit)
    code_share: float = 0.0

    @property
    def numeric(self) -> bool:
        return self.type in ("integer", "decimal")

    @property
    def free_text(self) -> bool:
        return self.type == "text" and self.mean_length >= 25 and self.spaced_share >= 0.5


def _all(values: pa.Array, pattern: str) -> np.ndarray:
    if len(values) == 0:
        return np.zeros(0, dtype=bool)
    hit = pc.fill_null(pc.match_substring_regex(values, pattern), False)
    return np.asarray(hit.to_numpy(zero_copy_only=False), dtype=bool)


def _weighted_share(mask: np.ndarray, weights: np.ndarray) -> float:
    total = weights.sum()
    return float(weights[mask].sum()) / float(total) if total else 0.0


def _number_stats(info: TypeInfo, numbers: np.ndarray, counts: np.ndarray) -> None:
    order = np.argsort(numbers, kind="stable")
    x, w = numbers[order], counts[order]
    cum = np.cumsum(w)
    total = cum[-1]
    info.low, info.high = float(x[0]), float(x[-1])
    info.p05 = float(x[np.searchsorted(cum, 0.05 * total)])
    info.p95 = float(x[min(np.searchsorted(cum, 0.95 * total), len(x) - 1)])


def _widths(strings: pa.Array) -> int | None:
    lengths = pc.utf8_length(strings).to_numpy(zero_copy_only=False)
    if len(lengths) and (lengths == lengths[0]).all():
        return int(lengths[0])
    return None


def infer(col: ColumnData) -> TypeInfo:
    """The type of ``col`` (see the module docstring)."""
    kind = col.value_type
    if col.distinct == 0:
        return TypeInfo("text")
    if pa.types.is_boolean(kind):
        return TypeInfo("boolean")
    if pa.types.is_timestamp(kind) or pa.types.is_date(kind):
        return TypeInfo("date", date=dates.DateGuess(None, 1.0))
    if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind):
        # (statistics only: integers beyond 2^53 — card numbers, keys — round, not fail)
        numbers = pc.cast(col.values, pa.float64(), safe=False).to_numpy(zero_copy_only=False)
        finite = np.isfinite(numbers)  # (a float column may hold ±inf: no statistics of it)
        whole = pa.types.is_integer(kind) or bool(np.all(np.mod(numbers[finite], 1) == 0))
        info = TypeInfo("integer" if whole else "decimal")
        if finite.any():
            _number_stats(info, numbers[finite], col.counts[finite])
        if not finite.all():
            info.stray, info.stray_share = str(numbers[~finite][0]), float(finite.mean())
        if whole and col.distinct <= 2 and set(numbers.tolist()) <= {0.0, 1.0}:
            info.type = "boolean"
        return info
    return _infer_strings(col)


def _infer_strings(col: ColumnData) -> TypeInfo:
    sample, weights = col.sample_values, col.sample_weights
    info = TypeInfo("text")
    if col.distinct <= 8:  # (yes, Yes, YES, no …)
        folded = {str(v).strip().casefold() for v in col.strings().to_pylist()}
        if len(folded) <= 2 and any(folded <= pair for pair in BOOLEAN_PAIRS):
            info.type = "boolean"
            return info
    is_int = _all(sample, INTEGER)
    is_dec = _all(sample, DECIMAL)
    int_share, dec_share = _weighted_share(is_int, weights), _weighted_share(is_dec, weights)
    guess = dates.detect(sample, weights)
    if guess is not None and guess.format == "%Y%m%d" and not guess.mixed:
        info.type, info.date = "date", guess  # eight digits that all read as dates
    elif int_share == 1.0 or dec_share == 1.0:
        everything = _all(col.strings(), DECIMAL if int_share < 1.0 else INTEGER)
        if everything.all():
            info.type = "integer" if int_share == 1.0 else "decimal"
        else:
            info.stray = col.strings()[int(np.flatnonzero(~everything)[0])].as_py()
            info.stray_share = 1.0 - float(np.mean(~everything))
    elif guess is not None:
        info.type, info.date = "date", guess
    elif max(int_share, dec_share) >= 0.9:
        stray = ~(is_dec if dec_share >= int_share else is_int)
        info.stray = sample[int(np.flatnonzero(stray)[0])].as_py()
        info.stray_share = max(int_share, dec_share)
    if info.type == "integer":
        leading = _all(col.strings(), r"^[+-]?0\d")
        if leading.any():
            info.type, info.code = "text", True
    if info.type == "date" and not info.date.mixed and col.distinct <= 2_000_000:
        share, bad = dates.parse_share(col.strings().to_pylist(), info.date.format)
        if share < 1.0:  # the sample missed values the format does not read
            info.date = dates.DateGuess(info.date.format, share, mixed=(info.date.format,))
            info.stray = bad[0] if bad else None
    if info.numeric:
        numbers = pc.cast(col.strings(), pa.float64()).to_numpy(zero_copy_only=False)
        _number_stats(info, numbers, col.counts)
    info.width = _widths(sample)
    if info.width is not None and col.distinct > len(sample):
        info.width = _widths(col.values)
    if info.type == "text":
        lengths = pc.utf8_length(sample).to_numpy(zero_copy_only=False)
        total = float(weights.sum()) or 1.0
        info.mean_length = float((lengths * weights).sum()) / total
        info.spaced_share = _weighted_share(_all(sample, r"\s"), weights)
        info.code_share = _weighted_share(
            _all(sample, r"^[A-Za-z0-9][A-Za-z0-9_\-/.]*$") & _all(sample, r"\d"), weights
        )
    return info
