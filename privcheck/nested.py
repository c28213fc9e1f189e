"""Columns of nested values (Parquet/Arrow lists, structs, maps, unions): refused where used.

privcheck groups, generalizes and writes one value per cell. A column whose cells are lists,
records (structs), maps or unions has no such value: its cells cannot be hashed into classes,
placed in a hierarchy, compared with ``*`` or written to a CSV cell and read back. The rule:

- a column the policy names with a role that reads or releases its values (quasi-identifier,
  sensitive, insensitive) is refused, in one line naming the column, its type and the fix
  (flatten it into plain columns, one per field, or drop it);
- a column the policy does not name — or names as an identifier, which is only ever removed —
  is never read: ``check`` ignores it and a release leaves it out, as it does every column
  nobody vouched for (``privcheck init`` leaves it out of the draft with a note).

The type is read from the Arrow schema where there is one (a check of a file reads an Arrow
table; ``privcheck.io.read_parquet`` records the Parquet types of the nested columns of a
DataFrame in ``DataFrame.attrs``), else from the first value of a pandas object column (the
rows an engine's group-by sends back).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from privcheck.errors import DataError

#: ``DataFrame.attrs`` key: column name → Arrow type (text) of its nested Parquet type
ARROW_TYPES = "privcheck_nested_types"

_PYTHON_KINDS = {dict: "struct", list: "list", tuple: "list", set: "set", frozenset: "set"}


def is_nested_arrow(arrow_type: Any) -> bool:
    """Whether an Arrow type holds more than one value per cell (list, large or fixed-size
    list, list view, struct, map, union; the values of a dictionary or an extension type's
    storage alike)."""
    import pyarrow as pa

    if isinstance(arrow_type, pa.ExtensionType):
        arrow_type = arrow_type.storage_type
    if pa.types.is_dictionary(arrow_type):
        arrow_type = arrow_type.value_type
    return bool(pa.types.is_nested(arrow_type) or pa.types.is_union(arrow_type))


def nested_arrow_columns(schema: Any) -> dict[str, str]:
    """Column name → type (as Arrow spells it) of the nested columns of an Arrow schema."""
    return {f.name: str(f.type) for f in schema if is_nested_arrow(f.type)}


def nested_kind(column: Any) -> str | None:
    """The nested type of a column (Arrow array or pandas Series), or None for plain values."""
    arrow_type = getattr(column, "type", None)
    if arrow_type is not None and type(column).__module__.startswith("pyarrow"):
        return str(arrow_type) if is_nested_arrow(arrow_type) else None
    pd = sys.modules.get("pandas")
    if pd is None or not isinstance(column, pd.Series):
        return None
    dtype = column.dtype
    if isinstance(dtype, pd.ArrowDtype):
        return str(dtype.pyarrow_dtype) if is_nested_arrow(dtype.pyarrow_dtype) else None
    if not isinstance(dtype, np.dtype) or dtype.kind != "O":  # (numbers, strings: plain)
        return None
    present = column.notna().to_numpy()
    if not present.any():
        return None
    value = column.iloc[int(present.argmax())]  # the first value: one type per column

    if isinstance(value, np.ndarray):
        return "list"
    for kind, name in _PYTHON_KINDS.items():
        if isinstance(value, kind):
            return name
    return None


def nested_error(name: str, kind: str) -> DataError:
    """The one line for a nested column the policy uses."""
    return DataError(
        f"column {name!r} holds {kind} values (a nested type), which privcheck cannot group, "
        "generalize or write as one value per cell; flatten it into plain columns (one per "
        "field) or drop it — a column the policy does not name is left out of the release"
    )


#: the policy's identifier role as a policy spells it (``privcheck.policy.Role`` is a StrEnum, equal
#: to its value): read by value, this module needs nothing of the policy module, which reads its
#: files through ``privcheck.io``, which reads nested types through this module
IDENTIFIER = "identifier"


def refuse_nested(data: Any, policy: Any) -> None:
    """DataError naming the first column the policy reads or releases (every role but
    identifier) that holds nested values; columns it does not name are left alone."""
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(data, pd.DataFrame):
        names = set(data.columns)
        declared = data.attrs.get(ARROW_TYPES) or {}

        def column(name: str) -> Any:
            return data[name]
    elif type(data).__module__.startswith("pyarrow") and hasattr(data, "schema"):
        names = set(data.schema.names)
        declared = nested_arrow_columns(data.schema)

        def column(name: str) -> Any:
            return data.column(name)
    else:
        return
    for name, attr in policy.attributes.items():
        if attr.role == IDENTIFIER or name not in names:
            continue
        kind = declared.get(name)
        if kind is None:
            col = column(name)
            if isinstance(col, pd.DataFrame if pd is not None else ()):  # a repeated name
                continue  # (refused with its own message by the encoder)
            kind = nested_kind(col)
        if kind is not None:
            raise nested_error(name, kind)


def refuse_nested_schema(frame: Any, policy: Any) -> None:
    """``refuse_nested`` on an engine's frame (polars, DuckDB, Spark …) from its schema, before
    the engine groups anything: narwhals names each column's type (``List(Int64)``,
    ``Struct(…)``, ``Map(…)``). A frame narwhals cannot read is left to the check of the
    grouped rows."""
    try:
        import narwhals as nw

        schema = nw.from_native(frame).collect_schema()
    except Exception:  # not a frame narwhals knows: the grouped rows are checked instead
        return
    for name, attr in policy.attributes.items():
        if attr.role == IDENTIFIER or name not in schema:
            continue
        dtype = schema[name]
        if getattr(dtype, "is_nested", lambda: False)():
            raise nested_error(name, str(dtype))
