"""Top and bottom coding of numeric quasi-identifiers (sdcMicro's ``topBotCoding``).

The cheapest global recoding there is: the few extreme values that make a record unique (the one
101-year-old, the one income of 2 M) are replaced by a threshold value before anything else
looks at the column. It runs in ``encode`` (the anonymizers' path), before the ground codes are
made, so every search — full-domain, local suppression, microaggregation — sees the coded column
and combines with it; a check reads values as they stand (a release already holds the coded
values, and raw data is judged as it is).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privcheck.errors import DataError, PolicyError
from privcheck.policy import Attribute, Coding, TableHierarchy


def has_coding(attr: Attribute) -> bool:
    """Whether the attribute asks for top or bottom coding."""
    return attr.top_coding is not None or attr.bottom_coding is not None


def coded_mask(column: pd.Series, name: str, attr: Attribute) -> np.ndarray:
    """Which values of ``column`` top or bottom coding replaces (missing values never)."""
    x = _numbers(column, name)
    mask = np.zeros(len(column), dtype=bool)
    with np.errstate(invalid="ignore"):
        if attr.top_coding is not None:
            mask |= x > attr.top_coding.threshold
        if attr.bottom_coding is not None:
            mask |= x < attr.bottom_coding.threshold
    return mask


def apply_coding(column: pd.Series, name: str, attr: Attribute) -> pd.Series:
    """``column`` with values above the top threshold / below the bottom one replaced.

    The coded value is written the way the column spells its values, so that a release holds
    what its hierarchy and ``privcheck check`` read back: a string column (CSV, TSV, string
    Parquet) gets a string — the data's own spelling of that number when some value has it,
    else ``80`` for a whole number (never ``80.0``) —, an integer column an integer, a float
    column a float. A fractional value in an integer column, or a label in a numeric one, makes
    the column object-typed so the other values keep their spelling (``39``, not ``39.0``). A
    categorical is coded on its categories (a few values, not the rows) and stays categorical.
    """
    if not has_coding(attr):
        return column
    values = [
        (coding, side, _value(coding, name, side, attr))
        for coding, side in ((attr.top_coding, "top"), (attr.bottom_coding, "bottom"))
        if coding is not None
    ]
    if isinstance(column.dtype, pd.CategoricalDtype):
        return _code_categorical(column, name, attr)
    if not _native(column.dtype):  # (e.g. an Arrow dictionary column): code its plain values
        column = column.astype(object)
    x = _numbers(column, name)
    masks = []
    for coding, side, value in values:
        with np.errstate(invalid="ignore"):
            mask = x > coding.threshold if side == "top" else x < coding.threshold
        if mask.any():
            masks.append((mask, value))
    if not masks:
        return column
    out = column.copy()
    for mask, value in masks:
        value = _spelled(value, column, x)
        if not _holds(out, value):
            out = out.astype(object)
        out[mask] = value
    return out


def _native(dtype: object) -> bool:
    """Whether the coding may assign into a column of this dtype (else it goes through object):
    numpy numbers and objects, pandas strings, nullable and Arrow-backed integers and floats."""
    if isinstance(dtype, pd.StringDtype) or pd.api.types.is_object_dtype(dtype):
        return True
    return pd.api.types.is_integer_dtype(dtype) or pd.api.types.is_float_dtype(dtype)


def _code_categorical(column: pd.Series, name: str, attr: Attribute) -> pd.Series:
    """A categorical coded through its categories: the used categories are coded like a plain
    column, then codes that now share a value are merged (one gather over the rows)."""
    column = column.cat.remove_unused_categories()
    categories = pd.Series(column.cat.categories)
    coded = apply_coding(categories, name, attr)
    remap, merged = pd.factorize(coded.to_numpy(dtype=object))
    codes = column.cat.codes.to_numpy()
    new = np.where(codes < 0, -1, np.append(remap, -1)[codes])
    # one kind of value keeps its dtype (int64, str); ints beside a fraction or a label stay
    # objects, so that 39 is not respelled 39.0
    mixed = pd.api.types.infer_dtype(merged, skipna=True).startswith("mixed")
    merged = pd.Index(list(merged), dtype=object if mixed else None)
    return pd.Series(
        pd.Categorical.from_codes(new, categories=merged), index=column.index, name=column.name
    )


def _spelled(value: float | str, column: pd.Series, x: np.ndarray) -> object:
    """``value`` as ``column`` spells its values (see ``apply_coding``)."""
    if isinstance(value, str):
        return value
    strings = isinstance(column.dtype, pd.StringDtype) or (
        pd.api.types.is_object_dtype(column.dtype) and _all_strings(column)
    )
    if strings:
        same = np.flatnonzero(x == value)  # the data's own spelling of the number, if it has one
        if len(same):
            return str(column.iloc[same[0]])
        return _number_label(value)
    if pd.api.types.is_float_dtype(column.dtype):
        return float(value)
    if float(value).is_integer():
        return int(value)
    return float(value)


def _holds(column: pd.Series, value: object) -> bool:
    """Whether ``value`` can be assigned into ``column`` without changing any other value."""
    dtype = column.dtype
    if pd.api.types.is_object_dtype(dtype):
        return True
    if isinstance(dtype, pd.StringDtype):
        return isinstance(value, str)
    if pd.api.types.is_integer_dtype(dtype):
        return isinstance(value, int)
    return isinstance(value, int | float)  # a float column


def _all_strings(column: pd.Series) -> bool:
    kinds = set(map(type, column.dropna().unique()))
    return kinds <= {str}


def _number_label(value: float) -> str:
    """A number as a hierarchy file spells it: ``80`` for a whole number, else ``80.5``."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _value(coding: Coding, name: str, side: str, attr: Attribute) -> float | str:
    if coding.value is None:
        return coding.threshold
    if (
        isinstance(coding.value, str)
        and attr.hierarchy is not None
        and not isinstance(attr.hierarchy, TableHierarchy)
    ):
        kind = attr.hierarchy.type
        raise PolicyError(
            f"{side}_coding of {name!r} writes the label {coding.value!r}, which its "
            f"{kind} hierarchy cannot place; give a numeric value (e.g. the threshold)"
        )
    return coding.value


def _numbers(column: pd.Series, name: str) -> np.ndarray:
    x = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    bad = np.isnan(x) & column.notna().to_numpy()
    if bad.any():
        first = column.iloc[int(np.flatnonzero(bad)[0])]
        raise DataError(
            f"column {name!r} has top/bottom coding but holds the non-numeric value {first!r}; "
            "code only numeric quasi-identifiers"
        )
    return x
