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


def numeric_matrix(
    data: TableLike, name: str, attributes: Sequence[str] | None = None
) -> tuple[np.ndarray, list[str]]:
    """Return ``data`` (restricted to ``attributes`` for a DataFrame) as a float64 matrix.

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
        for c in cols:
            if not (pd.api.types.is_numeric_dtype(data[c]) or pd.api.types.is_bool_dtype(data[c])):
                raise DataError(
                    f"column {c!r} of {name} is not numeric (dtype {data[c].dtype}); this "
                    "attack needs numeric attributes — encode or drop the column"
                )
        x = data[cols].to_numpy(dtype=np.float64, na_value=np.nan)
        names = [str(c) for c in cols]
    else:
        try:
            x = np.asarray(data, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise DataError(f"{name} is not numeric: {exc}") from None
        if x.ndim == 1:
            x = x[:, None]
        if x.ndim != 2:
            raise DataError(f"{name} must be a 2-D table (records × attributes); got {x.ndim}-D")
        names = _names_for_array(x.shape[1], attributes, name)
    if x.shape[1] == 0:
        raise PolicyError(f"{name}: no attributes selected; give at least one attribute")
    bad = ~np.isfinite(x)
    if bad.any():
        j = int(np.argmax(bad.any(axis=0)))
        raise DataError(
            f"column {names[j]!r} of {name} has {int(bad[:, j].sum())} missing or infinite "
            "values; impute or drop those records before assessing the risk"
        )
    return x, names


def paired_matrices(
    intruder: TableLike,
    masked: TableLike,
    attributes: Sequence[str] | None,
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The intruder file and the release on the same attributes, in the same column order."""
    if attributes is None and isinstance(intruder, pd.DataFrame):
        attributes = [str(c) for c in intruder.columns]
    a, names = numeric_matrix(intruder, "the intruder file", attributes)
    b, names_b = numeric_matrix(
        masked, "the masked file", attributes if isinstance(masked, pd.DataFrame) else None
    )
    if a.shape[1] != b.shape[1]:
        raise DataError(
            f"the intruder file has {a.shape[1]} attributes and the masked file {b.shape[1]}; "
            "select the same attributes in both"
        )
    if len(a) == 0 or len(b) == 0:
        raise DataError("the intruder file and the masked file must each have at least one record")
    if not isinstance(intruder, pd.DataFrame) and isinstance(masked, pd.DataFrame):
        names = names_b
    return a, b, names


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
