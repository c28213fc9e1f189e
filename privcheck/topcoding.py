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
from privcheck.policy import Attribute, Coding, IntervalsHierarchy, TableHierarchy


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
    """``column`` with values above the top threshold / below the bottom one replaced."""
    if not has_coding(attr):
        return column
    x = _numbers(column, name)
    out = column.astype(object).copy() if _needs_object(attr) else column.copy()
    for coding, side in ((attr.top_coding, "top"), (attr.bottom_coding, "bottom")):
        if coding is None:
            continue
        value = _value(coding, name, side, attr)
        with np.errstate(invalid="ignore"):
            mask = x > coding.threshold if side == "top" else x < coding.threshold
        if mask.any():
            if not _needs_object(attr) and pd.api.types.is_integer_dtype(out.dtype):
                if float(value).is_integer():
                    value = int(value)
                else:
                    out = out.astype(float)
            out[mask] = value
    return out


def _needs_object(attr: Attribute) -> bool:
    return any(isinstance(c.value, str) for c in (attr.top_coding, attr.bottom_coding) if c)


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
    if not isinstance(coding.value, str) and isinstance(attr.hierarchy, IntervalsHierarchy):
        return float(coding.value)
    return coding.value


def _numbers(column: pd.Series, name: str) -> np.ndarray:
    x = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    bad = np.isnan(x) & column.notna().to_numpy()
    if bad.any():
        first = column[bad].iloc[0]
        raise DataError(
            f"column {name!r} has top/bottom coding but holds the non-numeric value {first!r}; "
            "code only numeric quasi-identifiers"
        )
    return x
