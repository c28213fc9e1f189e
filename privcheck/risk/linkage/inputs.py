"""Input checks shared by the risk attacks: numeric matrices, attribute names, true indices.

All validation of user-facing arrays and frames lives here, so every attack reports the same
problem with the same message (one line naming the file, the column and the fix).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from privcheck.errors import DataError, PolicyError
from privcheck.limits import FLOAT_MAGNITUDE

TableLike = Any  # pandas.DataFrame or array-like (n × m)


def _names_for_array(n_cols: int, attributes: Sequence[str] | None, name: str) -> list[str]:
    if attributes is None:
        return [f"x{j}" for j in range(n_cols)]
    if len(attributes) != n_cols:
        raise PolicyError(
            f"{name} has {n_cols} columns but {len(attributes)} attribute names were given; "
            "give one name per column or pass a DataFrame"
        )
    return [str(a) for a in attributes]


#: float64 holds every integer of magnitude up to 2^53 exactly
EXACT_FLOAT = 2**53


def numeric_columns(
    data: TableLike, name: str, attributes: Sequence[str] | None = None
) -> tuple[list[np.ndarray], list[str]]:
    """The selected columns of ``data``, each an exact int64 array (an integer column) or a
    float64 array, and their names.

    Raises DataError for a missing column, a non-numeric column or a missing / infinite value:
    distance-based attacks have no meaning for them, and dropping rows would silently change
    the intruder's file.
    """
    if isinstance(data, pd.DataFrame):
        cols = list(data.columns) if attributes is None else list(attributes)
        missing = [c for c in cols if c not in data.columns]
        if missing:
            raise DataError(
                f"{name} has no column {missing[0]!r}; its columns are {list(data.columns)}"
            )
        columns = []
        for c in cols:
            if not (pd.api.types.is_numeric_dtype(data[c]) or pd.api.types.is_bool_dtype(data[c])):
                raise DataError(
                    f"column {c!r} of {name} is not numeric (dtype {data[c].dtype}); this "
                    "attack needs numeric attributes — encode or drop the column"
                )
            columns.append(numeric_column(data[c], c, name))
        names = [str(c) for c in cols]
    else:
        arr = np.asarray(data)
        if arr.dtype.kind not in "iu":
            try:
                arr = np.asarray(data, dtype=np.float64)
            except (TypeError, ValueError) as exc:
                raise DataError(f"{name} is not numeric: {exc}") from None
        if arr.ndim == 1:
            arr = arr[:, None]
        if arr.ndim != 2:
            raise DataError(f"{name} must be a 2-D table (records × attributes); got {arr.ndim}-D")
        names = _names_for_array(arr.shape[1], attributes, name)
        columns = [numeric_column(arr[:, j], names[j], name) for j in range(arr.shape[1])]
    if not columns:
        raise PolicyError(f"{name}: no attributes selected; give at least one attribute")
    for c, x in zip(names, columns, strict=True):
        bad = ~np.isfinite(x) if x.dtype.kind == "f" else None
        if bad is not None and bad.any():
            raise DataError(
                f"column {c!r} of {name} has {int(bad.sum())} missing or infinite "
                "values; impute or drop those records before assessing the risk"
            )
        if x.dtype.kind == "f" and len(x) and float(np.abs(x).max()) > FLOAT_MAGNITUDE:
            raise DataError(too_large(c, name, "this attack"))
    return columns, names


def too_large(column: object, name: str, what: str) -> str:
    """The one line for a column beyond ``FLOAT_MAGNITUDE``: its means, variances and squared
    distances would overflow float64 and every figure would be computed on inf or nan."""
    return (
        f"column {column!r} of {name} holds values beyond ±{FLOAT_MAGNITUDE:g}, where "
        f"{what} would compute means, variances and distances that overflow float64 (inf, nan); "
        "rescale the column in every file (another unit: standardised distances, groups and "
        "ranks do not change)"
    )


def numeric_column(values: Any, column: object, name: str) -> np.ndarray:
    """One column as int64 (an integer column without missing values: exact) or float64."""
    if isinstance(values, pd.Series):
        if pd.api.types.is_integer_dtype(values) and not values.isna().any():
            values = values.to_numpy()
        else:
            return values.to_numpy(dtype=np.float64, na_value=np.nan)
    arr = np.asarray(values)
    if arr.dtype.kind == "u":
        if arr.size and arr.max() > np.iinfo(np.int64).max:
            raise DataError(
                f"column {column!r} of {name} has integers above 9223372036854775807, which an "
                "attack cannot compare exactly; shift or rescale the column first"
            )
        return arr.astype(np.int64)
    if arr.dtype.kind == "i":
        return arr.astype(np.int64, copy=False)
    return arr.astype(np.float64)


def exact_floats(tables: Sequence[Sequence[np.ndarray]], names: Sequence[str]) -> list[np.ndarray]:
    """Each table's columns (from ``numeric_columns``) as one float64 matrix, integer columns
    shifted first by an offset common to every table, in exact integer arithmetic.

    Distances, z-scores, ranks and tolerance comparisons are all unchanged when one column of
    every file moves by the same constant, but float64 has a spacing of 256 near 2^60: IDs or
    amounts in cents that differ there would all read as one value (a constant column, or two
    different records at distance 0). Shifted by a float-representable even integer near the
    middle of the column, they are small and exact. A column whose integers span so wide a range
    that distinct values still meet in float64 is refused (DataError naming it): no float attack
    can tell them apart.
    """
    out = [np.empty((len(t[0]) if len(t) else 0, len(names))) for t in tables]
    for j, column in enumerate(names):
        ints = [t[j] for t in tables if t[j].dtype.kind == "i" and len(t[j])]
        offset = _offset(ints)
        for m, t in zip(out, tables, strict=True):
            x = t[j]
            if x.dtype.kind == "i":
                m[:, j] = (x - np.int64(offset)).astype(np.float64) if offset else x
            else:
                m[:, j] = x - float(offset) if offset else x
        if ints:
            _refuse_collapse(ints, offset, column)
    return out


def _offset(ints: Sequence[np.ndarray]) -> int:
    """0 when every integer is exact in float64 (|x| ≤ 2^53: ordinary data as it is), else the
    middle of their range rounded to a float64-representable even integer (so that a float
    column of another file can be shifted by exactly the same amount); 0 too when the range
    is wider than 2^62 (the shift could wrap)."""
    if not ints:
        return 0
    lo = min(int(x.min()) for x in ints)
    hi = max(int(x.max()) for x in ints)
    if max(-lo, hi) <= EXACT_FLOAT or hi - lo > 2**62:
        return 0
    mid = lo + (hi - lo) // 2
    step = 1 << max(1, abs(mid).bit_length() - 52)
    return mid - mid % step


def _refuse_collapse(ints: Sequence[np.ndarray], offset: int, column: str) -> None:
    """DataError when distinct integers of the column become one float64 after the shift."""
    lo = min(int(x.min()) for x in ints) - offset
    hi = max(int(x.max()) for x in ints) - offset
    if max(-lo, hi) <= EXACT_FLOAT:  # every shifted value is exact
        return
    values = np.unique(np.concatenate(ints))
    shifted = (values - np.int64(offset)).astype(np.float64) if offset else values.astype(float)
    if len(np.unique(shifted)) < len(values):
        raise DataError(
            f"column {column!r} holds integers that differ by less than float64 can tell apart "
            f"over its range ({int(values[0])} … {int(values[-1])}); this attack computes "
            "distances in float64 — leave the column out (--intruder-attributes) or rescale it"
        )


def numeric_matrix(
    data: TableLike, name: str, attributes: Sequence[str] | None = None
) -> tuple[np.ndarray, list[str]]:
    """Return ``data`` (restricted to ``attributes`` for a DataFrame) as a float64 matrix, integer
    columns shifted exactly (``exact_floats``); errors as ``numeric_columns``."""
    columns, names = numeric_columns(data, name, attributes)
    return exact_floats([columns], names)[0], names


def paired_matrices(
    intruder: TableLike,
    masked: TableLike,
    attributes: Sequence[str] | None,
    original: TableLike | None = None,
) -> tuple[np.ndarray, ...]:
    """The intruder file and the release on the same attributes, in the same column order:
    ``(a, b, names)``; with ``original`` (the whole original file on those attributes) also its
    matrix, ``(a, b, o, names)``. Integer columns share one exact shift across the files
    (``exact_floats``), so a value compares with the same value of another file exactly."""
    if attributes is None and isinstance(intruder, pd.DataFrame):
        attributes = [str(c) for c in intruder.columns]
    a, names = numeric_columns(intruder, "the intruder file", attributes)
    b, names_b = numeric_columns(
        masked, "the masked file", attributes if isinstance(masked, pd.DataFrame) else None
    )
    if len(a) != len(b):
        raise DataError(
            f"the intruder file has {len(a)} attributes and the masked file {len(b)}; "
            "select the same attributes in both"
        )
    if len(a[0]) == 0 or len(b[0]) == 0:
        raise DataError("the intruder file and the masked file must each have at least one record")
    if not isinstance(intruder, pd.DataFrame) and isinstance(masked, pd.DataFrame):
        names = names_b
    tables = [a, b]
    if original is not None:
        o, _ = numeric_columns(original, "the original file", names)
        if len(o) != len(b):
            raise DataError(
                f"the original file has {len(o)} attributes and the masked file {len(b)}; "
                "they must hold the same attributes"
            )
        tables.append(o)
    return (*exact_floats(tables, names), names)


def true_index_for(true_index: Any, n_intruder: int, n_masked: int) -> np.ndarray:
    """Validate the index of each intruder record's true masked record.

    ``None`` means the files are aligned by position (record i of the intruder file is record i
    of the release), which needs equally many records.
    """
    if true_index is None:
        if n_intruder != n_masked:
            raise DataError(
                f"the intruder file has {n_intruder} records and the masked file {n_masked}; "
                "without true_index the files must be aligned by position (same row count) — "
                "pass true_index (the masked row of each intruder record)"
            )
        return np.arange(n_intruder, dtype=np.int64)
    t = np.asarray(true_index)
    if t.ndim != 1 or len(t) != n_intruder or not np.issubdtype(t.dtype, np.integer):
        raise DataError(
            f"true_index must be {n_intruder} integers (one masked row per intruder record)"
        )
    if len(t) and (t.min() < 0 or t.max() >= n_masked):
        raise DataError(f"true_index values must lie in [0, {n_masked - 1}]")
    return t.astype(np.int64, copy=False)


def standardise(x: np.ndarray, mean: np.ndarray | None = None, sd: np.ndarray | None = None):
    """Z-scores with the given (or ``x``'s own) mean and sample standard deviation.

    An attribute with zero spread gets z = 0: it cannot tell records apart, so it contributes
    nothing to a distance (rather than dividing by zero).
    """
    if mean is None:
        mean = x.mean(axis=0)
    if sd is None:
        sd = x.std(axis=0, ddof=1) if len(x) > 1 else np.zeros(x.shape[1])
    safe = np.where(sd > 0, sd, 1.0)
    z = (x - mean) / safe
    z[:, sd <= 0] = 0.0
    return z


def standardise_pair(a: np.ndarray, b: np.ndarray, how: str) -> tuple[np.ndarray, np.ndarray]:
    """Standardise the intruder file ``a`` and release ``b`` as the linkage literature does.

    ``each``: every file by its own mean and standard deviation — diff_i = ((a_i − ā_i)/σ(a_i)
    − (b_i − b̄_i)/σ(b_i))² (Torra); needs ≥ 2 intruder records. ``masked``: both by the
    release's mean and standard deviation (for an intruder holding a handful of records).
    ``none``: raw values.
    """
    if how == "each":
        if len(a) < 2:
            raise PolicyError(
                "standardisation='each' needs at least 2 intruder records (a single record has "
                "no standard deviation); use standardisation='masked'"
            )
        return standardise(a), standardise(b)
    if how == "masked":
        mean = b.mean(axis=0)
        sd = b.std(axis=0, ddof=1) if len(b) > 1 else np.zeros(b.shape[1])
        return standardise(a, mean, sd), standardise(b, mean, sd)
    if how == "none":
        return a.copy(), b.copy()
    raise PolicyError(f"standardisation must be 'each', 'masked' or 'none'; got {how!r}")


def chunk_rows(n_cols: int, bytes_per_cell: int, memory_limit: int, chunk_size: int | None) -> int:
    """Rows per chunk so that a (rows × n_cols) working set stays under ``memory_limit``."""
    if chunk_size is not None:
        if chunk_size < 1:
            raise PolicyError(f"chunk_size must be a positive number of rows; got {chunk_size}")
        return int(chunk_size)
    return max(1, int(memory_limit // max(1, n_cols * bytes_per_cell)))
