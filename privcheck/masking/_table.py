"""Numeric input handling shared by the masking methods.

Every method takes either a pandas DataFrame (with the columns to mask named) or a 2-D numpy
array, and gives back the same kind of object with only the masked columns replaced. All input
checks live here so that every method rejects the same bad input with the same message: a
non-numeric column and a missing value are `DataError`s, never silently coerced or dropped.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from privcheck.errors import DataError, PolicyError, listing
from privcheck.limits import FLOAT_MAGNITUDE
from privcheck.masking.exact import as_int64, even_offset, shifted_floats

Data = pd.DataFrame | np.ndarray


@dataclass
class NumericTable:
    """The numeric columns to mask, as one float64 matrix, plus how to put them back.

    ``values`` is a fresh C-contiguous float64 copy (n × p), so algorithms may use it freely.
    ``exact[j]`` is column j's values as int64 when it is an integer column (else None): float64
    holds integers exactly only up to 2^53, so the methods compute an integer column's released
    values from these (see `privcheck.masking.exact`).
    """

    source: Data
    columns: list[Hashable]
    values: np.ndarray
    exact: list[np.ndarray | None] = field(default_factory=list)
    #: per column, the even integer subtracted (exactly) before an integer column's conversion to
    #: ``values``: floats see differences near 2^60 that they would otherwise round away. Every
    #: method and measure used on ``values`` is shift-invariant; released values add it back.
    offsets: list[int] = field(default_factory=list)

    def integer_columns(self) -> list[int]:
        """Positions of the integer columns (their values are released as exact integers)."""
        return [j for j, e in enumerate(self.exact) if e is not None]

    @property
    def n(self) -> int:
        return self.values.shape[0]

    def column_index(self, column: Hashable) -> int:
        """Position of ``column`` among the masked columns (PolicyError if absent)."""
        for i, c in enumerate(self.columns):
            if c == column:
                return i
        raise PolicyError(
            f"attribute {column!r} is not among the masked columns {self.columns}; "
            "name only columns that are being masked"
        )

    def offset(self, j: int) -> int:
        return self.offsets[j] if j < len(self.offsets) else 0

    def shifted(self, j: int, ints: np.ndarray) -> np.ndarray:
        """Integer values of column j in the frame of ``values`` (minus its offset), as floats."""
        return shifted_floats(ints, self.offset(j))

    def rebuild(
        self,
        masked: np.ndarray,
        integers: dict[int, np.ndarray] | None = None,
        absolute: dict[int, np.ndarray] | None = None,
    ) -> Data:
        """The source with the masked columns replaced by ``masked`` (n × p), other columns kept.

        ``integers`` (column position → int64 values) replaces a column exactly where the method's
        output is an integer one (a swap is a permutation of the column): those stay integers.
        ``absolute`` gives an integer column's real-valued output (a mean) without the offset;
        any other column of ``masked`` gets its offset added back.
        """
        integers = integers or {}
        masked = masked.copy()
        for j in range(len(self.columns)):
            if absolute and j in absolute:
                masked[:, j] = absolute[j]
            elif self.offset(j):
                masked[:, j] = masked[:, j] + float(self.offset(j))
        if isinstance(self.source, pd.DataFrame):
            out = self.source.copy()
            for j, c in enumerate(self.columns):
                out[c] = integers[j] if j in integers else masked[:, j]
            return out
        src = np.asarray(self.source)
        if len(integers) == len(self.columns) and src.dtype.kind in "iu":
            stacked = np.column_stack([integers[j] for j in range(len(self.columns))])
            if src.ndim == 1:
                return stacked[:, 0].copy()
            out = src.astype(np.result_type(src.dtype, stacked.dtype), copy=True)
            out[:, self.columns] = stacked
            return out
        if src.ndim == 1:
            return masked[:, 0].copy()
        out = src.astype(np.result_type(src.dtype, masked.dtype), copy=True)
        out[:, self.columns] = masked
        return out


def numeric_table(data: Data, columns: Sequence[Hashable] | None = None) -> NumericTable:
    """Validate ``data`` and extract the columns to mask as a float64 matrix.

    ``columns`` defaults to every column. Raises DataError on a non-numeric column, a missing or
    infinite value, or an empty table, naming the column and rows so the user can fix the input.
    """
    if isinstance(data, pd.DataFrame):
        cols = list(data.columns) if columns is None else list(columns)
        if not cols:
            raise PolicyError("no columns to mask; pass at least one numeric column")
        missing = [c for c in cols if c not in data.columns]
        if missing:
            raise PolicyError(
                f"column(s) {missing} not in the data; available: {list(data.columns)}"
            )
        if len(set(cols)) != len(cols):
            raise PolicyError(f"columns {cols} name a column twice; list each column once")
        mats, exact, offsets = [], [], []
        for c in cols:
            s = data[c]
            if not pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
                raise DataError(
                    f"column {c!r} is not numeric (dtype {s.dtype}); masking needs numbers: "
                    "convert it or leave it out of the masked columns"
                )
            integer = pd.api.types.is_integer_dtype(s) and not s.isna().any()
            exact.append(as_int64(s.to_numpy(), c) if integer else None)
            if integer:
                offsets.append(even_offset(exact[-1]))
                mats.append(shifted_floats(exact[-1], offsets[-1]))
            else:
                offsets.append(0)
                mats.append(s.to_numpy(dtype=np.float64, na_value=np.nan))
        values = np.ascontiguousarray(np.column_stack(mats)) if mats else np.empty((0, 0))
    elif isinstance(data, np.ndarray):
        arr = data
        if arr.ndim == 1:
            arr = arr[:, None]
        if arr.ndim != 2:
            raise DataError(f"expected a 1-D or 2-D array; got {data.ndim} dimensions")
        if arr.dtype.kind not in "iuf":
            raise DataError(
                f"array dtype {arr.dtype} is not numeric; masking needs integers or floats"
            )
        if columns is None:
            cols = list(range(arr.shape[1]))
        else:
            cols = [int(c) for c in columns]
            bad = [c for c in cols if not 0 <= c < arr.shape[1]]
            if bad:
                raise PolicyError(
                    f"column index(es) {bad} out of range for an array with {arr.shape[1]} columns"
                )
            if len(set(cols)) != len(cols):
                raise PolicyError(f"columns {cols} name a column twice; list each column once")
        exact = [as_int64(arr[:, c], c) if arr.dtype.kind in "iu" else None for c in cols]
        offsets = [0 if e is None else even_offset(e) for e in exact]
        values = np.array(arr[:, cols], dtype=np.float64, order="C")
        for j, e in enumerate(exact):
            if e is not None:
                values[:, j] = shifted_floats(e, offsets[j])
    else:
        raise DataError(f"expected a pandas DataFrame or a numpy array; got {type(data).__name__}")
    if values.shape[0] == 0:
        raise DataError("the data has no records; nothing to mask")
    bad_mask = ~np.isfinite(values)
    if bad_mask.any():
        j = int(np.flatnonzero(bad_mask.any(axis=0))[0])
        rows = np.flatnonzero(bad_mask[:, j])
        shown = listing(rows, 5)
        raise DataError(
            f"column {cols[j]!r} has {len(rows)} missing or infinite value(s) (rows {shown}); "
            "impute or drop them before masking"
        )
    huge = np.abs(values) > FLOAT_MAGNITUDE
    if huge.any():
        j = int(np.flatnonzero(huge.any(axis=0))[0])
        raise DataError(
            f"column {cols[j]!r} holds values beyond ±{FLOAT_MAGNITUDE:g}, where masking would "
            "compute means, variances and distances that overflow float64 (inf, nan); rescale "
            "the column (another unit: groups and ranks do not change)"
        )
    return NumericTable(source=data, columns=cols, values=values, exact=exact, offsets=offsets)


def check_k(k: object, n: int, *, name: str = "k") -> int:
    """k must be an integer with 2 ≤ k ≤ n: a group needs two records and fits in the file."""
    if isinstance(k, bool) or not isinstance(k, int | np.integer):
        raise PolicyError(f"{name} must be an integer; got {k!r}")
    if not 2 <= int(k) <= n:
        raise PolicyError(
            f"{name} must be between 2 and the number of records ({n}); got {name}={k}"
        )
    return int(k)


def standardize(values: np.ndarray) -> np.ndarray:
    """z-scores with the population standard deviation (ddof = 0).

    A constant column gets scale 1 (all zeros) instead of a division by zero: it carries no
    distance information either way. The choice of ddof scales every column alike, so it changes
    neither distances' order nor SSE/SST.
    """
    mean = values.mean(axis=0)
    sd = values.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    return np.ascontiguousarray((values - mean) / sd)
