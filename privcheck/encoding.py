"""DataFrame + Policy → EncodedTable: the one place raw rows are validated and turned into codes.

Every later step (class tables, checks, lattice searches, releases) works on the integer codes
made here, so every input problem is caught here, once, with a message naming the column and the
value: a missing column, a missing value, a value absent from its hierarchy, a non-numeric value
under an intervals hierarchy.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from privcheck.errors import DataError, PolicyError, listing
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
from privcheck.messages import shown_columns
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

if TYPE_CHECKING:
    import pandas as pd

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
    #: the person of every row (codes 0 … ``n_individuals`` − 1) when the policy names an
    #: ``individual`` column: classes are then counted in distinct people (None: in records)
    individual: np.ndarray | None = None
    #: distinct people in the table (0 without an individual column)
    n_individuals: int = 0
    #: ``privcheck.classes``' memo of each node's key radices, shared by the encoded tables whose
    #: hierarchies have the same shape (not copied by ``dataclasses.replace``: a view over other
    #: quasi-identifiers finds its own)
    radix_memo: dict | None = field(default=None, init=False, repr=False, compare=False)

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

    def subset(self, mask: np.ndarray) -> EncodedTable:
        """The encoded table of the records in ``mask`` (codes gathered; hierarchies shared)."""
        from dataclasses import replace

        rows = np.flatnonzero(mask)
        qis = [
            EncodedColumn(c.name, c.codes[rows], c.levels, c.has_hierarchy)
            for c in self.quasi_identifiers
        ]
        sensitive = {
            n: EncodedColumn(c.name, c.codes[rows], c.levels, c.has_hierarchy)
            for n, c in self.sensitive.items()
        }
        return replace(self, n_records=len(rows), quasi_identifiers=qis, sensitive=sensitive)


def _string_labels(values: np.ndarray | pd.Index) -> np.ndarray:
    """Values as the strings a hierarchy file would spell them (39.0 → '39').

    Pure Python over the distinct values (a column's uniques or categories, never its rows), so
    that a check of a file does not import pandas for it."""
    arr = np.asarray(values, dtype=object)
    types = set(map(type, arr))
    if types <= {str}:  # the usual case (CSV, string columns): nothing to do
        return arr
    if types <= {float, np.float64}:  # a numeric release (microaggregated means): vectorised
        x = arr.astype(np.float64)
        out = np.empty(len(x), dtype=object)
        out[:] = list(map(str, x.tolist()))  # (Python's str: 5x numpy's astype(str))
        whole = np.isfinite(x)
        whole[whole] = np.mod(x[whole], 1) == 0
        out[whole] = [str(int(v)) for v in x[whole].tolist()]
        return out
    out = np.empty(len(arr), dtype=object)
    out[:] = [_string_label(v) for v in arr]
    return out


def _string_label(v: object) -> str:
    """One value's label: a whole float reads as the integer it is (39.0 → '39')."""
    if isinstance(v, float | np.floating) and math.isfinite(v) and float(v).is_integer():
        return str(int(v))
    return str(v)


def _typed_codes(column: pd.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """(codes, categories) a typed column already carries, or None for a plain column.

    A pandas categorical and an Arrow dictionary column (``pd.ArrowDtype(pa.dictionary(…))``,
    what ``read_parquet(dtype_backend="pyarrow")`` gives for dictionary-encoded columns) hold
    small integer codes into their categories: re-factorizing their values would rebuild what
    is there (a hash of every row). Codes are -1 where the value is missing.
    """
    pd = sys.modules.get("pandas")
    if pd is None or not isinstance(column, pd.Series):
        return _arrow_codes(column)
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


def _arrow_codes(column: Any) -> tuple[np.ndarray, np.ndarray]:
    """(codes, categories) of an Arrow column (``pyarrow.ChunkedArray``), -1 where missing.

    A dictionary column (what the CSV reader and Parquet give a check) brings its codes; any
    other column is dictionary-encoded by Arrow first. The codes are read straight from the
    index buffers (``to_numpy`` would import pandas, which a check of a file does without), and
    a null or NaN entry of the dictionary is a missing value, as in pandas.
    """
    import pyarrow as pa

    if not pa.types.is_dictionary(column.type):
        column = column.dictionary_encode()
    column = column.unify_dictionaries()
    if column.num_chunks == 0:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=object)
    parts = []
    for chunk in column.chunks:
        indices = chunk.indices
        kind = "u" if pa.types.is_unsigned_integer(indices.type) else "i"
        dtype = np.dtype(f"{kind}{indices.type.bit_width // 8}")
        start, n = indices.offset, len(indices)
        buf = indices.buffers()[1]
        raw = np.frombuffer(buf, dtype=dtype, count=start + n) if n else np.zeros(0, dtype)
        codes = raw[start:].astype(np.intp)
        if indices.null_count:
            bits = np.frombuffer(indices.buffers()[0], dtype=np.uint8)
            valid = np.unpackbits(bits, count=start + n, bitorder="little")[start:].astype(bool)
            codes[~valid] = -1
        parts.append(codes)
    codes = np.concatenate(parts)
    values = column.chunk(0).dictionary.to_pylist()
    categories = np.empty(len(values), dtype=object)
    categories[:] = values
    absent = np.array([v is None or (isinstance(v, float) and v != v) for v in values], bool)
    if absent.any():
        codes = np.where((codes >= 0) & np.append(absent, False)[codes], -1, codes)
    return codes, categories


def _value_rank(uniques: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rank of each distinct value in value order, the values sorted).

    A sort of the few distinct values; values of one type compare natively. Mixed types that
    do not compare take pandas' mixed sort (numbers before strings) when the column came from
    pandas, and raise TypeError otherwise (Arrow columns hold one type)."""
    values = np.asarray(uniques, dtype=object)
    try:
        if set(map(type, values)) <= {float, np.float64}:  # numbers: a native sort, not objects'
            order = np.argsort(values.astype(np.float64), kind="stable")
        else:
            order = np.argsort(values, kind="stable")
    except TypeError:
        pd = sys.modules.get("pandas")
        if pd is None:
            raise
        rank, sorted_values = pd.factorize(values, sort=True)
        return rank, np.asarray(sorted_values, dtype=object)
    rank = np.empty(len(order), dtype=np.intp)
    rank[order] = np.arange(len(order))
    return rank, values[order]


def _sorted_categories(column: pd.Series, name: str, missing: str) -> tuple | None:
    """(int32 codes, categories, number missing) straight from a typed column whose categories
    are already in value order and none blank — or None (then ``_factorize``).

    Categories no row uses are kept: a quasi-identifier's unused value makes no class (the
    class table counts the combined keys that occur), and keeping it spares a pass over the
    rows to find it; the codes are only narrowed to int32 (one cheap pass), missing values stay
    -1. A check groups quasi-identifiers this way; a sensitive column's unused values would
    change its distribution's support, so it is always ``_factorize``d.
    """
    typed = _typed_codes(column)
    if typed is None:
        return None
    codes, categories = typed
    try:
        rank, _ = _value_rank(categories)
    except TypeError:
        return None
    if not np.array_equal(rank, np.arange(len(categories))):
        return None
    if any(isinstance(u, str) and not u.strip() for u in categories):
        return None
    n_missing = int(np.count_nonzero(codes < 0))
    codes = codes.astype(CODE_DTYPE)
    if n_missing and missing == "error":
        _missing_error(codes, name, n_missing)
    return codes, np.asarray(categories, dtype=object), n_missing


def _refuse_missing(column: Any, name: str) -> None:
    """Refuse missing (null, NaN or empty) values in a column that is not encoded: a sensitive
    attribute no model reads is still an input error with ``missing: error``, as it is for
    ``anonymize`` (which encodes it). Reuses typed codes; one vectorised pass otherwise."""
    typed = _typed_codes(column)
    if typed is not None:
        codes, categories = typed
        blank = np.array([*(isinstance(c, str) and c == "" for c in categories), True], bool)
        missing = blank[codes]  # code -1 (missing) reads the last slot
    else:
        values = column.to_numpy(dtype=object)
        missing = column.isna().to_numpy() | (values == "")
    n_missing = int(np.count_nonzero(missing))
    if n_missing:
        _missing_error(np.where(missing, -1, 0), name, n_missing)


def _missing_error(codes: np.ndarray, name: str, n_missing: int) -> None:
    first_missing = int(np.flatnonzero(codes < 0)[0])
    raise DataError(
        f"column {name!r} has {n_missing} missing value(s) (first at row {first_missing}); "
        "fill them, or set 'missing: own_class' in the policy to make them a class of their own"
    )


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
    counts = index = None
    if typed is None:
        import pandas as pd

        try:
            codes, uniques = pd.factorize(column, use_na_sentinel=True)
        except TypeError:  # cells that are lists or dicts further down a column of values
            from privcheck.nested import nested_error

            raise nested_error(name, "unhashable (list, struct or map)") from None
        used = None
    else:
        codes, uniques = typed
        counts, index = _code_counts(codes, len(uniques))
        if counts is None:
            # small-int codes index slowly (numpy converts them per call): widen them once
            codes = codes.astype(np.intp, copy=False)
            seen = np.zeros(len(uniques) + 1, dtype=bool)
            seen[codes] = True  # code -1 (missing) marks the last slot
            used = seen[:-1]
        else:
            used = counts[: len(uniques)] > 0
        uniques = uniques[used]
    try:
        rank, uniques = _value_rank(uniques)
    except TypeError:  # values that do not compare (mixed types): order of appearance
        rank = np.arange(len(uniques))
        if used is not None:  # (a categorical's categories are not in order of appearance)
            wide = codes.astype(np.intp, copy=False)
            first = np.full(len(used) + 1, len(wide), dtype=np.int64)
            first[wide[::-1]] = np.arange(len(wide) - 1, -1, -1)
            appearance = np.argsort(first[:-1][used], kind="stable")
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
    if counts is not None:
        # the counts say how many rows end up missing and whether the codes are already the
        # result (categories sorted, all used, none blank, nothing missing): then the codes are
        # only narrowed to int32, else one gather through a table indexed by the unsigned view
        n_cat = len(rank)
        n_missing = len(codes) - int(counts[:n_cat][rank >= 0].sum())
        if n_missing == 0 and np.array_equal(rank, np.arange(n_cat)):
            codes = codes.astype(CODE_DTYPE)
        else:
            remap = np.full(len(counts), -1, dtype=CODE_DTYPE)
            remap[:n_cat] = rank
            codes = remap.take(index)
    else:
        remap = np.append(rank, -1).astype(CODE_DTYPE)  # code -1 (missing) reads the last slot
        codes = remap.take(codes)
        n_missing = int(np.count_nonzero(codes < 0))
    if n_missing and missing == "error":
        _missing_error(codes, name, n_missing)
    return codes, uniques, n_missing


def _code_counts(codes: np.ndarray, n_cat: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(rows per category, missing last; the codes as unsigned indices) of int8/int16 codes.

    pandas keeps fewer than 32,768 categories' codes in int8/int16. Viewed unsigned, a missing
    value's -1 is the last slot (255 / 65535, beyond any category), so one ``bincount`` gives both
    the categories in use and the missing count — the passes of widening the codes, marking
    the used categories and counting the missing ones, in one. (None, None) for wider codes.
    """
    kinds = {np.dtype(np.int8): np.uint8, np.dtype(np.int16): np.uint16}
    unsigned = kinds.get(codes.dtype)
    if unsigned is None or n_cat >= np.iinfo(codes.dtype).max:
        return None, None
    index = codes.view(unsigned)
    return np.bincount(index, minlength=np.iinfo(unsigned).max + 1), index


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


#: a released range of a numeric quasi-identifier, as Mondrian writes it: ``[lo, hi]``
_RANGE = re.compile(r"^\[\s*([^,\s\]]+)\s*,\s*([^,\s\]]+)\s*\]$")


def is_range(value: object) -> bool:
    """Whether ``value`` is a range ``[lo, hi]`` of two numbers with lo ≤ hi: what a check
    accepts for a numeric quasi-identifier besides its hierarchy's labels (a range is one more
    released value; classes are still the distinct released values)."""
    m = _RANGE.match(str(value))
    if m is None:
        return False
    try:
        lo, hi = float(m.group(1)), float(m.group(2))
    except ValueError:
        return False
    return lo <= hi


def numeric_values(ground: np.ndarray) -> np.ndarray | None:
    """The ground values of a quasi-identifier as numbers (float), or None when it is not
    numeric: every value ('<missing>' makes it categorical) must be a number spelled the way a
    number is (``39``, ``2.5``): ``02138`` is a code that happens to be made of digits."""
    values = np.asarray(ground, dtype=object)
    if len(values) == 0 or any(g == MISSING_LABEL for g in values):
        return None
    import pandas as pd  # (a released value outside the hierarchy: ranges only)

    number = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce")
    if number.isna().any():
        return None
    canonical = _string_labels(number.to_numpy(dtype=object))
    if not all(str(a) == str(b) for a, b in zip(_string_labels(values), canonical, strict=True)):
        return None
    return number.to_numpy(dtype=float)


def numeric_ground(ground: np.ndarray) -> bool:
    """Whether a hierarchy's ground values are numbers (``numeric_values``; '<missing>' aside)."""
    return (
        numeric_values(np.asarray([g for g in ground if g != MISSING_LABEL], dtype=object))
        is not None
    )


def _as_released(column: pd.Series, name: str, attr: Attribute, policy: Policy) -> EncodedColumn:
    """A quasi-identifier grouped as it stands (a check of a possibly generalized release).

    A value may be a label of any level of its table hierarchy, the suppression mark '*', or the
    label a release writes for missing values ('<missing>', ``missing: own_class``); one that
    appears nowhere in the hierarchy is still an input error. A numeric quasi-identifier may
    also hold ranges ``[lo, hi]`` (``is_range``: a Mondrian release). Generated hierarchies
    (intervals, masking, dates) only group.
    """
    direct = _sorted_categories(column, name, policy.missing)
    codes, uniques, n_missing = direct or _factorize(column, name, policy.missing)
    labels = _string_labels(uniques)
    if isinstance(attr.hierarchy, TableHierarchy):
        tree = _resolve(name, attr, uniques, policy)  # also validates the hierarchy itself
        # (a set: cheaper than a pandas Index here)
        known = {str(v) for level in tree.labels for v in level} | {TOP, MISSING_LABEL}
        absent = np.flatnonzero([v not in known for v in labels])
        if len(absent) and direct is not None:  # only a value some row holds is an error
            codes, uniques, n_missing = _factorize(column, name, policy.missing)
            labels = _string_labels(uniques)
            absent = np.flatnonzero([v not in known for v in labels])
        if len(absent) and numeric_ground(tree.ground):
            # a numeric quasi-identifier may be released as a range (Mondrian's local recoding)
            absent = absent[[not is_range(labels[i]) for i in absent]]
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
        codes = lookup.take(codes)
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


def n_subjects(encoded: EncodedTable) -> int:
    """The table's size as the models read it: distinct people when the policy names an
    individual, else records."""
    return encoded.n_individuals if encoded.individual is not None else encoded.n_records


def encode_individual(column: Any, name: str) -> tuple[np.ndarray, int]:
    """(the person code of every row, the number of distinct people) of the policy's
    ``individual`` column. A record without a person cannot be counted, whatever the policy's
    ``missing`` says: a missing value is an input error."""
    codes, uniques, n_missing = _factorize(column, name, "own_class")
    if n_missing:
        first = int(np.flatnonzero(codes < 0)[0])
        raise DataError(
            f"column {name!r} (the policy's individual) has {n_missing} missing value(s) (first "
            f"at row {first}): every record must name its person; fill them, or drop "
            "'individual' to count records"
        )
    return codes.astype(np.int64, copy=False), len(uniques)


def missing_individual(name: str, names: list) -> DataError:
    """The refusal when the data lacks the ``individual`` column (a release drops it)."""
    return DataError(
        f"column {name!r}, the policy's individual, is missing from the data, so people cannot "
        f"be counted (columns: {_listed(names)}); a release drops it — its anonymization "
        "report's re-check counted people, and 'pseudonymize_individual: true' releases a "
        "pseudonym to check person by person; otherwise fix the policy or the data"
    )


def _listed(names: list, limit: int = 12) -> str:
    """Column names for a message: all of them, or the first ``limit`` and how many more."""
    return listing(names, limit)


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


def _columns(data: Any) -> tuple[list, Any]:
    """(column names, name → column) of a pandas DataFrame or a ``pyarrow.Table``.

    A check of a CSV/Parquet file encodes the Arrow table the reader made (no pandas import:
    half a second of a pre-commit hook's run); everything else hands in a DataFrame."""
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(data, pd.DataFrame):
        return list(data.columns), data.__getitem__
    if type(data).__module__.startswith("pyarrow") and type(data).__name__ == "Table":
        return list(data.column_names), data.column
    raise DataError(f"expected a pandas DataFrame; got {type(data).__name__}")


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
    names, column = _columns(data)
    seen: set[str] = set()
    repeated = [c for c in names if c in seen or seen.add(c)]
    if repeated:
        raise DataError(
            f"column {repeated[0]!r} appears more than once in the data; rename the duplicates"
        )
    # an identifier absent from the data is what a release looks like: the checker reports the
    # identifiers present instead (a failing finding), and nothing here reads identifiers
    absent = [
        c for c, a in policy.attributes.items() if c not in seen and a.role is not Role.identifier
    ]
    if absent:
        have = shown_columns(names, most=12)
        raise DataError(
            f"column {absent[0]!r} named in the policy is missing from the data "
            f"(columns: {have}); fix the policy or the data"
        )
    from privcheck.nested import refuse_nested

    refuse_nested(data, policy)  # a list or struct column has no value to group
    qi_encoder = _as_released if as_released else encode_column
    if not as_released:
        from privcheck.topcoding import apply_coding  # (pandas: the anonymizers' path only)
    qis = [
        qi_encoder(
            column(n) if as_released else apply_coding(column(n), n, policy.attributes[n]),
            n,
            policy.attributes[n],
            policy,
        )
        for n in policy.quasi_identifiers
    ]
    wanted = None if sensitive is None else set(sensitive)
    encoded_sensitive: dict[str, EncodedColumn] = {}
    ranks = {}
    for n in policy.sensitive_attributes:
        if wanted is not None and n not in wanted:
            if policy.missing == "error":  # an input error whether or not a model reads it
                _refuse_missing(column(n), n)
            continue
        col = encode_column(column(n), n, policy.attributes[n], policy)
        encoded_sensitive[n] = col
        ranks[n] = _sensitive_rank(col, policy.attributes[n])
    individual, n_individuals = None, 0
    if policy.individual is not None:
        if policy.individual not in seen:
            raise missing_individual(policy.individual, names)
        individual, n_individuals = encode_individual(column(policy.individual), policy.individual)
    weights = None
    n_records = len(data)
    if weight_column is not None:
        import pandas as pd

        weights = pd.to_numeric(data[weight_column], errors="coerce").to_numpy()
        if np.isnan(weights).any() or (weights < 0).any() or (np.mod(weights, 1) != 0).any():
            raise DataError(f"weight column {weight_column!r} must hold record counts (>= 0)")
        weights = weights.astype(np.int64)
        n_records = int(weights.sum())
    if weights is not None and individual is not None and (weights == 0).any():
        # rows of an engine's counts that hold no record name nobody: number the people of
        # the others densely (zero-weight rows keep code 0; no class counts them)
        used = np.zeros(n_individuals, dtype=bool)
        used[individual[weights > 0]] = True
        dense = np.cumsum(used) - 1
        individual = np.where(weights > 0, dense[individual], 0)
        n_individuals = int(used.sum())
    return EncodedTable(
        policy, n_records, qis, encoded_sensitive, ranks, weights, individual, n_individuals
    )
