"""Hierarchy specs → level arrays over integer codes.

A resolved hierarchy is a list of code maps: ``maps[i][g]`` is the level-``i`` code of ground
code ``g``. Generalizing a column is then one gather (``maps[i][codes]``), and generalizing a class
table is a gather over its (few) class keys — strings are never rewritten until the release is
materialised.
"""

from __future__ import annotations

import math
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from privcheck.errors import DataError, PolicyError
from privcheck.limits import HIERARCHY_LEVELS

if TYPE_CHECKING:
    import pandas as pd
from privcheck.policy import (
    DatesHierarchy,
    IntervalsHierarchy,
    MaskingHierarchy,
    TableHierarchy,
)

MISSING_LABEL = "<missing>"
TOP = "*"


@dataclass(eq=False)
class LevelArrays:
    """A hierarchy resolved to integer code maps.

    ``ground[g]`` is the ground value (as a string) of code ``g``; ``maps[i][g]`` its level-i code;
    ``labels[i][c]`` the released string of level-i code ``c``. ``maps[0]`` is the identity.
    """

    ground: np.ndarray
    maps: list[np.ndarray]
    labels: list[np.ndarray]
    _up: dict[tuple[int, int], np.ndarray] = field(default_factory=dict, repr=False)
    #: small arrays derived from the maps (a rollup's key weights, the loss metric's value
    #: shares), memoised here by their makers: a search asks for the same few hundred thousands
    #: of times, and the hierarchy outlives one search (``table_levels`` caches it), so a
    #: repeated search does not rebuild them
    memo: dict[tuple, np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    @property
    def height(self) -> int:
        return len(self.maps) - 1

    def cardinality(self, level: int) -> int:
        return len(self.labels[level])

    def up(self, from_level: int, to_level: int) -> np.ndarray:
        """Level-``from_level`` codes → level-``to_level`` codes (exact, as the tree is checked)."""
        key = (from_level, to_level)
        if key not in self._up:
            if from_level == 0:
                self._up[key] = self.maps[to_level]
            else:
                rep = np.zeros(self.cardinality(from_level), dtype=np.int64)
                # any ground code of each level-from code will do: the hierarchy is a tree
                rep[self.maps[from_level]] = np.arange(len(self.ground))
                self._up[key] = self.maps[to_level][rep]
        return self._up[key]

    def with_missing(self) -> LevelArrays:
        """Add a ground code for missing values: its own class at every level but a single top."""
        n_levels = len(self.maps)
        maps, labels = [], []
        for i in range(n_levels):
            lab = self.labels[i]
            merge_at_top = i == n_levels - 1 and i > 0 and len(lab) == 1
            code = 0 if merge_at_top else len(lab)
            maps.append(np.append(self.maps[i], code).astype(np.int64))
            labels.append(lab if merge_at_top else np.append(lab, MISSING_LABEL).astype(object))
        return LevelArrays(np.append(self.ground, MISSING_LABEL).astype(object), maps, labels)


def check_levels(name: str, levels: int, advice: str = "use fewer levels") -> None:
    """Refuse a hierarchy of more than ``HIERARCHY_LEVELS`` generalization levels before its
    level arrays are built (each is a pass over the column's distinct values, and each adds a
    factor to the lattice a search explores)."""
    HIERARCHY_LEVELS.check(levels, f"the hierarchy of {name!r} has", advice)


def identity_levels(ground: np.ndarray) -> LevelArrays:
    """A one-level 'hierarchy' for a column that is only grouped, never generalized."""
    g = np.asarray(ground, dtype=object)
    return LevelArrays(g, [np.arange(len(g), dtype=np.int64)], [g])


def _appearance_codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes of ``values`` in order of first appearance, and the distinct values: a dict over a
    hierarchy's rows (hundreds; no pandas needed to build a hierarchy)."""
    index: dict = {}
    codes = np.fromiter(
        (index.setdefault(v, len(index)) for v in values), dtype=np.int64, count=len(values)
    )
    uniq = np.empty(len(index), dtype=object)
    uniq[:] = list(index)
    return codes, uniq


def _levels_from_label_columns(name: str, columns: list[np.ndarray]) -> LevelArrays:
    """Build code maps from per-level label columns (column 0 = ground) and check the tree."""
    maps, labels = [], []
    for col in columns:
        codes, uniq = _appearance_codes(col)
        maps.append(codes)
        labels.append(uniq)
    ground = labels[0][maps[0]]
    if len(labels[0]) != len(columns[0]):
        seen: set = set()
        first = next(v for v in columns[0] if v in seen or seen.add(v))
        raise PolicyError(
            f"hierarchy of {name!r} lists the ground value {first!r} twice; "
            "each value must have exactly one row"
        )
    maps[0] = np.arange(len(ground), dtype=np.int64)
    for i in range(1, len(maps) - 1):
        lo, hi = maps[i], maps[i + 1]
        parent = np.full(len(labels[i]), -1, dtype=np.int64)
        parent[lo] = hi
        bad = np.flatnonzero(parent[lo] != hi)
        if len(bad):
            g = bad[0]
            other = hi[np.flatnonzero(lo == lo[g])]
            other = [labels[i + 1][c] for c in np.unique(other)][:2]
            raise PolicyError(
                f"hierarchy of {name!r} is not a tree: {labels[i][lo[g]]!r} at level {i} "
                f"generalizes to both {other[0]!r} and {other[1]!r} at level {i + 1}; "
                "every value must have one parent"
            )
    return LevelArrays(np.asarray(ground, dtype=object), maps, labels)


def read_table_rows(spec: TableHierarchy, name: str, base_dir: Path | None) -> list[list[str]]:
    if spec.rows is not None:
        return [[str(v) for v in row] for row in spec.rows]
    path = Path(spec.path)  # type: ignore[arg-type]
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    if not path.exists():
        raise PolicyError(f"hierarchy file for {name!r} not found: {path}")
    from privcheck.io import read_text_file

    text = read_text_file(path, f"hierarchy file of {name!r}")
    return [line.rstrip("\r").split(spec.sep) for line in text.splitlines() if line.strip()]


def table_levels(spec: TableHierarchy, name: str, base_dir: Path | None) -> LevelArrays:
    """A table hierarchy resolved; a file's resolution is cached while the file is unchanged
    (same size and modification time): a check of a big table resolves every hierarchy, which
    otherwise costs a parse of each file per call (~2 ms each on Adult's)."""
    if spec.rows is None:
        path = Path(spec.path)  # type: ignore[arg-type]
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        try:
            info = path.stat()
        except OSError:
            info = None
        if info is not None and stat.S_ISREG(info.st_mode):
            # the file itself (device and inode), not its name: resolving a path is a system
            # call per component, which an encoding paid for every hierarchy
            key = (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_size, spec.sep, name)
            return _cached_table_levels(key, spec, base_dir)
    return _table_levels(spec, name, base_dir)


_TABLE_CACHE: dict[tuple, LevelArrays] = {}
_TABLE_CACHE_SIZE = 64


def _cached_table_levels(key: tuple, spec: TableHierarchy, base_dir: Path | None) -> LevelArrays:
    levels = _TABLE_CACHE.get(key)
    if levels is None:
        levels = _table_levels(spec, key[-1], base_dir)
        if len(_TABLE_CACHE) >= _TABLE_CACHE_SIZE:
            _TABLE_CACHE.pop(next(iter(_TABLE_CACHE)))
        _TABLE_CACHE[key] = levels
    return levels


def _table_levels(spec: TableHierarchy, name: str, base_dir: Path | None) -> LevelArrays:
    rows = read_table_rows(spec, name, base_dir)
    if not rows:
        raise PolicyError(f"hierarchy of {name!r} is empty")
    width = len(rows[0])
    check_levels(name, width - 1, "use fewer columns (one per level after the first)")
    for r, row in enumerate(rows):
        if len(row) != width:
            raise PolicyError(
                f"hierarchy of {name!r}: row {r + 1} has {len(row)} levels, row 1 has {width}; "
                "every row needs one value per level"
            )
    columns = [np.array([row[i] for row in rows], dtype=object) for i in range(width)]
    return _levels_from_label_columns(name, columns)


def _number_label(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _whole(v: float) -> bool:
    return isinstance(v, int) or float(v).is_integer()


def _integer_values(values: np.ndarray, name: str) -> np.ndarray | None:
    """The values as exact Python ints (object array) when every one is an integer, else None.

    Parsed as integers of any size, never through float64, which holds integers exactly only up
    to 2^53 (one pass over the distinct values, as the labels are).
    """
    arr = np.asarray(values)
    if arr.dtype.kind in "iu":
        return arr.astype(object)
    import pandas as pd  # (integer spellings of a non-integer column: rare)

    if any(isinstance(v, bytes | bytearray) for v in arr.astype(object)):
        return None  # (a binary column: bytes are no integer spelling, and not text to decode)
    text = pd.Series(arr.astype(object)).astype(str).str.strip()
    if not len(text) or not text.str.fullmatch(r"[+-]?\d+").all():
        return None
    if text.str.len().max() > 1000:
        raise DataError(
            f"column {name!r} holds an integer of more than 1000 digits; an intervals hierarchy "
            "needs numbers it can bin: fix the value or use a table hierarchy"
        )
    return np.array([int(t) for t in text], dtype=object)


def interval_label(low: object, high: object, closed: bool) -> str:
    """An interval as every numeric hierarchy privcheck builds labels it: ``[20, 29]`` (closed:
    a bin of integers, ``high`` its last value), ``[0.5, 1)`` (half-open: other numbers)."""
    return f"[{low}, {high}]" if closed else f"[{low}, {high})"


def interval_levels(spec: IntervalsHierarchy, name: str, values: np.ndarray) -> LevelArrays:
    """Bins of growing width over the distinct numeric ``values`` (the ground domain).

    Labels are intervals in one notation: a bin of integers is the closed range of the integers
    it holds, ``[20, 29]`` — as Mondrian writes the range of a class, ``[39, 41]`` —, a bin of
    other numbers the half-open ``[0.5, 1)`` (its last value cannot be written). Integer values
    with whole-number widths and origin are binned in exact integer arithmetic (labels such as
    ``[1152921504606846976, 1152921504606846985]``); other numbers in float64, which is refused
    for integers beyond 2^53 that it could not bound exactly.
    """
    check_levels(name, len(spec.widths) + spec.top, "use fewer widths")
    ints = _integer_values(values, name)
    exact = ints is not None and _whole(spec.origin) and all(_whole(w) for w in spec.widths)
    columns = [np.asarray(values, dtype=object)]
    if exact:
        origin = int(spec.origin)
        for width in spec.widths:
            w = int(width)
            lo = origin + (ints - origin) // w * w
            labels = [interval_label(a, a + w - 1, True) for a in lo]
            columns.append(np.array(labels, dtype=object))
    else:
        x = _as_numbers(values, name, "an intervals hierarchy")
        if ints is not None and np.any(np.abs(x) > 2.0**53):
            raise DataError(
                f"column {name!r} holds integers beyond 2^53, which an intervals hierarchy with "
                "a fractional width or origin cannot bound exactly; use whole-number widths and "
                "origin"
            )
        integral = bool(np.all(np.mod(x, 1) == 0)) and all(_whole(w) for w in spec.widths)
        for w in spec.widths:
            lo = spec.origin + np.floor((x - spec.origin) / w) * w
            hi = lo + w
            pairs = zip(lo, hi, strict=True)
            lab = [
                interval_label(_number_label(a), _number_label(b - 1 if integral else b), integral)
                for a, b in pairs
            ]
            columns.append(np.asarray(lab, dtype=object))
    if spec.top:
        columns.append(np.full(len(values), TOP, dtype=object))
    return _levels_from_label_columns(name, columns)


def masking_levels(spec: MaskingHierarchy, name: str, values: np.ndarray) -> LevelArrays:
    """Mask 1, 2, … right-most characters (ZIP 02139 → 0213* → 021** …)."""
    import pandas as pd

    strings = pd.Series(np.asarray(values, dtype=object)).astype(str)
    longest = int(strings.str.len().max()) if len(strings) else 1
    n = spec.levels if spec.levels is not None else longest
    check_levels(
        name,
        n,
        "set its 'levels' (characters masked at the top level)"
        if spec.levels is None
        else "mask fewer characters",
    )
    if n > longest:
        raise PolicyError(
            f"masking hierarchy of {name!r} asks for {n} levels but the longest value has only "
            f"{longest} characters; use levels ≤ {longest}"
        )
    columns = [np.asarray(values, dtype=object)]
    for i in range(1, n + 1):
        lengths = strings.str.len()
        keep = (lengths - i).clip(lower=0)
        masked = [s[:k] + spec.char * (len(s) - k) for s, k in zip(strings, keep, strict=True)]
        columns.append(np.asarray(masked, dtype=object))
    return _levels_from_label_columns(name, columns)


def _iso_week(d: pd.Series) -> pd.Series:
    iso = d.dt.isocalendar()
    return iso["year"].astype(str) + "-W" + iso["week"].astype(str).str.zfill(2)


_DATE_FORMATS = {
    "week": _iso_week,
    "month": lambda d: d.dt.strftime("%Y-%m"),
    "quarter": lambda d: d.dt.year.astype(str) + "-Q" + d.dt.quarter.astype(str),
    "year": lambda d: d.dt.year.astype(str),
    "decade": lambda d: (d.dt.year // 10 * 10).astype(str) + "s",
    "century": lambda d: (d.dt.year // 100 * 100).astype(str) + "s",
}


def _iso_years(d: pd.Series) -> pd.Series:
    return d.dt.isocalendar()["year"].astype(np.int64)


#: year-based levels above a week: counted in ISO week-numbering years so the levels nest
_ISO_YEAR_FORMATS = {
    "year": lambda d: _iso_years(d).astype(str),
    "decade": lambda d: (_iso_years(d) // 10 * 10).astype(str) + "s",
    "century": lambda d: (_iso_years(d) // 100 * 100).astype(str) + "s",
}


def date_levels(spec: DatesHierarchy, name: str, values: np.ndarray) -> LevelArrays:
    """Calendar generalization: day → (ISO week →) month → year → decade (the levels listed).

    The level order is checked when the policy is loaded (`DatesHierarchy`). After an ISO week
    the year-based levels use the ISO week-numbering year, so that each week has one parent.
    """
    import pandas as pd  # (its calendar arithmetic; a dates hierarchy is the one user here)

    raw = pd.Series(np.asarray(values, dtype=object))
    try:
        parsed = pd.to_datetime(raw.astype(str), format=spec.format or "ISO8601")
    except (ValueError, TypeError) as exc:
        raise DataError(
            f"column {name!r} has a value that is not a date ({exc}); fix the value or set the "
            "hierarchy's 'format'"
        ) from None
    formats = {**_DATE_FORMATS, **_ISO_YEAR_FORMATS} if "week" in spec.levels else _DATE_FORMATS
    columns = [np.asarray(values, dtype=object)]
    for lv in spec.levels:
        columns.append(np.asarray(formats[lv](parsed), dtype=object))
    if spec.top:
        columns.append(np.full(len(raw), TOP, dtype=object))
    return _levels_from_label_columns(name, columns)


def parse_numbers(values: np.ndarray) -> np.ndarray:
    """``values`` as floats, NaN where a value is not a number (what ``pd.to_numeric(…,
    errors="coerce")`` gives), over distinct values only: numbers as they are, strings parsed
    (surrounding blanks allowed; '1_000', 'nan' and non-ASCII digits are not numbers),
    anything else NaN."""
    out = np.empty(len(values), dtype=float)
    for i, v in enumerate(values):
        out[i] = _number(v)
    return out


def _number(v: object) -> float:
    if isinstance(v, bool | np.bool_):
        return float(v)
    if isinstance(v, int | float | np.integer | np.floating):
        return float(v)
    if isinstance(v, str) and v.isascii() and "_" not in v:
        try:
            x = float(v)
        except ValueError:
            return math.nan
        return x
    return math.nan


def _as_numbers(values: np.ndarray, name: str, what: str) -> np.ndarray:
    out = parse_numbers(np.asarray(values, dtype=object))
    bad = np.isnan(out)
    if bad.any():
        raise DataError(
            f"column {name!r} has the non-numeric value {values[np.flatnonzero(bad)[0]]!r}, but "
            f"{what} needs numbers; fix the value or use a table hierarchy"
        )
    if not np.all(np.isfinite(out)):
        raise DataError(f"column {name!r} has an infinite value; {what} needs finite numbers")
    return out


def as_numbers(values: np.ndarray, name: str, what: str) -> np.ndarray:
    """Parse ``values`` as finite floats or raise a DataError naming the first bad value."""
    return _as_numbers(values, name, what)


def _natural_key(v: object) -> tuple:
    parts = re.split(r"(\d+(?:\.\d+)?)", str(v))
    return tuple(
        (0, float(p), "") if i % 2 else (1, 0.0, p) for i, p in enumerate(parts) if p != ""
    )


def _exact_integers(values: np.ndarray) -> np.ndarray | None:
    """``values`` as int64 when every one is an integer (a number or its spelling), else None."""
    out = []
    for v in values:  # (the few distinct values of a hierarchy, not records)
        if isinstance(v, (bool, np.bool_)):
            return None
        if isinstance(v, (int, np.integer)):
            out.append(int(v))
        elif isinstance(v, str) and v.strip().lstrip("+-").isdigit():
            out.append(int(v.strip()))
        else:
            return None
    try:
        return np.array(out, dtype=np.int64)
    except OverflowError:
        return None


def natural_order(values: np.ndarray) -> np.ndarray:
    """Positions of ``values`` in their natural order: numeric when all are numbers, else
    strings compared with their digit runs as numbers ('3K' < '11K')."""
    num = parse_numbers(np.asarray(values, dtype=object))
    if len(values) and not np.isnan(num).any():
        # integers are ordered as integers: beyond 2^53 floats would tie distinct values
        exact = _exact_integers(values)
        order = np.argsort(num if exact is None else exact, kind="stable")
    else:
        order = np.array(
            sorted(range(len(values)), key=lambda i: _natural_key(values[i])), dtype=np.int64
        )
    rank = np.empty(len(values), dtype=np.int64)
    rank[order] = np.arange(len(values))
    return rank
