"""DataFrame + Policy → EncodedTable: the one place raw rows are validated and turned into codes.

Every later step (class tables, checks, lattice searches, releases) works on the integer codes
made here, so every input problem is caught here, once, with a message naming the column and the
value: a missing column, a missing value, a value absent from its hierarchy, a non-numeric value
under an intervals hierarchy.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from privcheck.errors import DataError, PolicyError
from privcheck.hierarchy import (
    MISSING_LABEL,
    TOP,
    LevelArrays,
    date_levels,
    identity_levels,
    interval_levels,
    masking_levels,
    natural_order,
    table_levels,
)
from privcheck.policy import (
    Attribute,
    DatesHierarchy,
    IntervalsHierarchy,
    MaskingHierarchy,
    Policy,
    Role,
    TableHierarchy,
    load_policy,
)

CODE_DTYPE = np.int32


@dataclass(eq=False)
class EncodedColumn:
    """One column as ground codes plus its resolved hierarchy."""

    name: str
    codes: np.ndarray
    levels: LevelArrays
    has_hierarchy: bool

    @property
    def height(self) -> int:
        return self.levels.height

    def cardinality(self, level: int = 0) -> int:
        return self.levels.cardinality(level)

    def codes_at(self, level: int) -> np.ndarray:
        """Codes of every record at ``level`` (one gather through the level map)."""
        if level == 0:
            return self.codes
        return self.levels.maps[level].astype(CODE_DTYPE, copy=False)[self.codes]


@dataclass(eq=False)
class EncodedTable:
    """The data as integer codes: quasi-identifiers (in policy order) and sensitive attributes."""

    policy: Policy
    n_records: int
    quasi_identifiers: list[EncodedColumn]
    sensitive: dict[str, EncodedColumn]
    #: ground code → position in the attribute's order (for ordered t-closeness)
    sensitive_rank: dict[str, np.ndarray] = field(default_factory=dict)
    #: records each row stands for, when the rows are an engine's pre-aggregated counts
    #: (None: every row is one record)
    weights: np.ndarray | None = None

    @property
    def qi_names(self) -> list[str]:
        return [c.name for c in self.quasi_identifiers]

    @property
    def heights(self) -> tuple[int, ...]:
        return tuple(c.height for c in self.quasi_identifiers)

    @property
    def bottom(self) -> tuple[int, ...]:
        return tuple(0 for _ in self.quasi_identifiers)

    @property
    def top(self) -> tuple[int, ...]:
        return self.heights


def _string_labels(values: np.ndarray | pd.Index) -> np.ndarray:
    """Values as the strings a hierarchy file would spell them (39.0 → '39')."""
    arr = np.asarray(values, dtype=object)
    if all(type(v) is str for v in arr):  # the usual case (CSV, string columns): nothing to do
        return arr
    s = pd.Series(arr)
    num = pd.to_numeric(s, errors="coerce")
    kind = pd.api.types.infer_dtype(arr, skipna=False)  # one C pass: the usual uniform columns
    if kind == "floating":
        is_float = np.ones(len(arr), dtype=bool)
    elif kind == "integer":
        is_float = np.zeros(len(arr), dtype=bool)
    else:
        is_float = s.map(lambda v: isinstance(v, float | np.floating)).to_numpy(dtype=bool)
    out = s.astype(str).to_numpy(dtype=object)
    whole = is_float & num.notna().to_numpy() & (np.mod(num.fillna(0.5).to_numpy(), 1) == 0)
    if whole.any():
        out[whole] = num[whole].astype("int64").astype(str).to_numpy(dtype=object)
    return out


def _typed_codes(column: pd.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """(codes, categories) a typed column already carries, or None for a plain column.

    A pandas categorical and an Arrow dictionary column (``pd.ArrowDtype(pa.dictionary(…))``,
    what ``read_parquet(dtype_backend="pyarrow")`` gives for dictionary-encoded columns) hold
    small integer codes into their categories: re-factorizing their values would rebuild what
    is there (a hash of every row). Codes are -1 where the value is missing.
    """
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return column.cat.codes.to_numpy(), np.asarray(dtype.categories, dtype=object)
    if isinstance(dtype, pd.ArrowDtype):
        import pyarrow as pa

        if not pa.types.is_dictionary(dtype.pyarrow_dtype):
            return None
        chunked = pa.chunked_array(column.array.__arrow_array__()).unify_dictionaries()
        if chunked.num_chunks == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=object)
        dictionary = chunked.chunk(0).dictionary
        indices = pa.chunked_array([c.indices for c in chunked.chunks])
        if pa.types.is_unsigned_integer(indices.type):  # room for the -1 of missing values
            indices = indices.cast(pa.int64())
        codes = indices.fill_null(-1).to_numpy()
        categories = np.asarray(dictionary.to_pylist(), dtype=object)
        if dictionary.null_count:  # a null entry of the dictionary is a missing value too
            null_entry = dictionary.is_null().to_numpy(zero_copy_only=False)
            codes = np.where((codes >= 0) & null_entry[codes], -1, codes)
        return codes, categories
    return None


def string_labels(values: np.ndarray | pd.Index) -> np.ndarray:
    """Values as the strings a hierarchy file would spell them (39.0 → '39'): what a release
    writes for a column that mixes ground numbers with '*' or '<missing>'."""
    return _string_labels(values)


def _factorize(column: pd.Series, name: str, missing: str) -> tuple[np.ndarray, np.ndarray, int]:
    """Factorize one column; returns (int32 codes, -1 for missing; uniques; number missing).

    Codes follow the values' order, so that class numbering (and ties in reports) ignore row
    order. The column is factorized in order of appearance and only its few uniques are sorted:
    the codes then go through one int32 gather — the conversion they need anyway — instead of
    ``sort=True``'s int64 take (a third slower on big columns).

    A categorical or Arrow dictionary column is not factorized at all: its own codes are
    remapped (a table of one entry per category) through the same gather, and categories no row
    uses are dropped, so the result is exactly that of the column's plain values.
    """
    typed = _typed_codes(column)
    if typed is None:
        codes, uniques = pd.factorize(column, use_na_sentinel=True)
        used = None
    else:
        codes, uniques = typed
        # small-int codes index slowly (numpy converts them per call): widen them once
        codes = codes.astype(np.intp, copy=False)
        seen = np.zeros(len(uniques) + 1, dtype=bool)
        seen[codes] = True  # code -1 (missing) marks the last slot
        used = seen[:-1]
        uniques = uniques[used]
    try:
        rank, uniques = pd.factorize(uniques, sort=True)  # rank of each unique in value order
    except TypeError:  # values that do not compare (mixed types): order of appearance
        rank = np.arange(len(uniques))
        if used is not None:  # (a categorical's categories are not in order of appearance)
            first = np.full(len(used), len(codes), dtype=np.int64)
            first[codes[::-1]] = np.arange(len(codes) - 1, -1, -1)
            appearance = np.argsort(first[used], kind="stable")
            rank = np.argsort(appearance, kind="stable")
            uniques = uniques[appearance]
    uniques = np.asarray(uniques, dtype=object)
    blank = np.array([isinstance(u, str) and not u.strip() for u in uniques], dtype=bool)
    if blank.any():
        # empty strings count as missing: remap them to -1 and drop them from the uniques
        keep = np.flatnonzero(~blank)
        drop = np.full(len(uniques), -1, dtype=np.int64)
        drop[keep] = np.arange(len(keep))
        rank = drop[rank]
        uniques = uniques[keep]
    if used is not None:  # categories no row uses read -1 (never gathered)
        full = np.full(len(used), -1, dtype=np.int64)
        full[used] = rank
        rank = full
    remap = np.append(rank, -1).astype(CODE_DTYPE)  # code -1 (missing) reads the last slot
    codes = remap.take(codes)
    n_missing = int(np.count_nonzero(codes < 0))
    if n_missing and missing == "error":
        first_missing = int(np.flatnonzero(codes < 0)[0])
        raise DataError(
            f"column {name!r} has {n_missing} missing value(s) (first at row {first_missing}); "
            "fill them, or set 'missing: own_class' in the policy to make them a class of their own"
        )
    return codes, uniques, n_missing


def _resolve(name: str, attr: Attribute, uniques: np.ndarray, policy: Policy) -> LevelArrays:
    spec = attr.hierarchy
    if spec is None:
        return identity_levels(_string_labels(uniques))
    if isinstance(spec, TableHierarchy):
        return table_levels(spec, name, policy.base_dir)
    if isinstance(spec, IntervalsHierarchy):
        return interval_levels(spec, name, uniques)
    if isinstance(spec, MaskingHierarchy):
        return masking_levels(spec, name, _string_labels(uniques))
    if isinstance(spec, DatesHierarchy):
        return date_levels(spec, name, uniques)
    raise PolicyError(f"unsupported hierarchy type for {name!r}")  # pragma: no cover


def _as_released(column: pd.Series, name: str, attr: Attribute, policy: Policy) -> EncodedColumn:
    """A quasi-identifier grouped as it stands (a check of a possibly generalized release).

    A value may be a label of any level of its table hierarchy, the suppression mark '*', or the
    label a release writes for missing values ('<missing>', ``missing: own_class``); one that
    appears nowhere in the hierarchy is still an input error. Generated hierarchies
    (intervals, masking, dates) only group.
    """
    codes, uniques, n_missing = _factorize(column, name, policy.missing)
    labels = _string_labels(uniques)
    if isinstance(attr.hierarchy, TableHierarchy):
        tree = _resolve(name, attr, uniques, policy)  # also validates the hierarchy itself
        known = {str(v) for level in tree.labels for v in level} | {TOP, MISSING_LABEL}
        absent = np.flatnonzero([v not in known for v in labels])  # (a set: cheaper than an Index)
        if len(absent):
            more = f" (and {len(absent) - 1} more)" if len(absent) > 1 else ""
            raise DataError(
                f"value {uniques[absent[0]]!r} of column {name!r} is not in its hierarchy at any "
                f"level{more}; add a row for it to the hierarchy"
            )
    levels = identity_levels(labels)
    if n_missing:
        levels = levels.with_missing()
        codes = np.where(codes < 0, len(levels.ground) - 1, codes)
    return EncodedColumn(name, codes.astype(CODE_DTYPE, copy=False), levels, False)


def encode_column(column: pd.Series, name: str, attr: Attribute, policy: Policy) -> EncodedColumn:
    """Codes of one column against its hierarchy (ground domain = the hierarchy's, if a table)."""
    codes, uniques, n_missing = _factorize(column, name, policy.missing)
    levels = _resolve(name, attr, uniques, policy)
    if isinstance(attr.hierarchy, TableHierarchy):
        # map each distinct data value to its row of the hierarchy table (a dict: building a
        # pandas Index costs more than the lookups on hierarchies of a few hundred rows)
        row_of = {str(g): i for i, g in enumerate(levels.ground)}
        labels = _string_labels(uniques)
        position = np.fromiter((row_of.get(v, -1) for v in labels), np.int64, len(labels))
        absent = np.flatnonzero(position < 0)
        if len(absent):
            value = uniques[absent[0]]
            more = f" (and {len(absent) - 1} more)" if len(absent) > 1 else ""
            raise DataError(
                f"value {value!r} of column {name!r} is not in its hierarchy{more}; add a row "
                "for it to the hierarchy"
            )
        lookup = np.append(position, -1).astype(CODE_DTYPE)  # gather straight into int32
        codes = lookup[codes]
    if n_missing:
        levels = levels.with_missing()
        codes = np.where(codes < 0, len(levels.ground) - 1, codes)
    return EncodedColumn(
        name, codes.astype(CODE_DTYPE, copy=False), levels, attr.hierarchy is not None
    )


def _sensitive_rank(col: EncodedColumn, attr: Attribute) -> np.ndarray:
    ground = col.levels.ground
    if attr.order is None:
        return natural_order(ground)
    order = {str(v): i for i, v in enumerate(attr.order)}
    labels = [str(g) for g in ground if g != MISSING_LABEL]
    absent = [g for g in labels if g not in order]
    if absent:
        raise PolicyError(
            f"the 'order' of {col.name!r} does not list the value {absent[0]!r}; list every value"
        )
    rank = np.array([order.get(str(g), len(order)) for g in ground], dtype=np.int64)
    return np.argsort(np.argsort(rank, kind="stable"), kind="stable")


def sensitive_read(policy: Policy) -> list[str]:
    """The sensitive attributes the policy's models read, in policy order.

    A model protecting one attribute (``SensitiveModelConfig``) reads that one; a plugin model
    that needs sensitive values without naming one (``needs_sensitive`` and no ``attribute``)
    reads them all; k-anonymity and the other class-size models read none.
    """
    read: set[str] = set()
    for config in policy.models:
        attribute = getattr(config, "attribute", None)
        if isinstance(attribute, str):
            read.add(attribute)
        elif getattr(config, "needs_sensitive", False):
            return list(policy.sensitive_attributes)
    return [n for n in policy.sensitive_attributes if n in read]


def encode(
    data: pd.DataFrame,
    policy: Policy | dict | str,
    *,
    weight_column: str | None = None,
    as_released: bool = False,
    sensitive: Iterable[str] | None = None,
) -> EncodedTable:
    """Validate ``data`` against ``policy`` and encode it to integer codes.

    ``as_released`` (what a check uses) groups quasi-identifiers as they stand, so an already
    generalized release can be checked against the policy it was made under; anonymizers encode
    the ground values against the full hierarchies (the default).

    ``weight_column`` names a column of record counts when each row of ``data`` stands for
    several identical records — the group-by result an external engine (Spark, DuckDB …) sends
    back — so that the aggregated frame walks the same path as the rows would.

    ``sensitive`` restricts the sensitive attributes encoded (default: all of the policy's): a
    check passes ``sensitive_read(policy)``, so that a sensitive column no model reads costs
    neither a factorization nor a class × value matrix (its presence is still checked).
    """
    policy = load_policy(policy)
    policy.require_attributes()
    if not isinstance(data, pd.DataFrame):
        raise DataError(f"expected a pandas DataFrame; got {type(data).__name__}")
    repeated = data.columns[data.columns.duplicated()]
    if len(repeated):
        raise DataError(
            f"column {repeated[0]!r} appears more than once in the data; rename the duplicates"
        )
    # an identifier absent from the data is what a release looks like: the checker reports the
    # identifiers present instead (a failing finding), and nothing here reads identifiers
    absent = [
        c
        for c, a in policy.attributes.items()
        if c not in data.columns and a.role is not Role.identifier
    ]
    if absent:
        have = ", ".join(map(str, data.columns[:12]))
        raise DataError(
            f"column {absent[0]!r} named in the policy is missing from the data "
            f"(columns: {have}); fix the policy or the data"
        )
    qi_encoder = _as_released if as_released else encode_column
    qis = [qi_encoder(data[n], n, policy.attributes[n], policy) for n in policy.quasi_identifiers]
    wanted = None if sensitive is None else set(sensitive)
    encoded_sensitive: dict[str, EncodedColumn] = {}
    ranks = {}
    for n in policy.sensitive_attributes:
        if wanted is not None and n not in wanted:
            continue
        col = encode_column(data[n], n, policy.attributes[n], policy)
        encoded_sensitive[n] = col
        ranks[n] = _sensitive_rank(col, policy.attributes[n])
    weights = None
    n_records = len(data)
    if weight_column is not None:
        weights = pd.to_numeric(data[weight_column], errors="coerce").to_numpy()
        if np.isnan(weights).any() or (weights < 0).any() or (np.mod(weights, 1) != 0).any():
            raise DataError(f"weight column {weight_column!r} must hold record counts (>= 0)")
        weights = weights.astype(np.int64)
        n_records = int(weights.sum())
    return EncodedTable(policy, n_records, qis, encoded_sensitive, ranks, weights)
