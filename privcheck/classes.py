"""Equivalence classes as a class table ("frequency set"), computed once and rolled up.

``count`` is the only step after encoding that touches every record: one gather per
quasi-identifier and one group-by of the combined key. Everything else — every privacy model,
every node a lattice search visits — works on the class table, whose size is the number of
classes, not the number of records. ``rollup`` moves a class table to a coarser node by mapping
the class keys through the hierarchies and re-aggregating the table itself.
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from privcheck.encoding import CODE_DTYPE, EncodedTable
from privcheck.hierarchy import LevelArrays

#: a rollup factorises its key densely up to this many key cells per class (and at least
#: ``_ROLLUP_DENSE_MIN``, at most ``_ROLLUP_DENSE_MAX`` cells): a cell costs ~0.15 ns (zeroing and
#: scanning a byte mask), a sorted hash factorisation ~45 ns per class, and the key spaces of a
#: search's mid-lattice nodes are often 10-100× its classes; beyond a few MB the scattered writes
#: fault in fresh pages and the factorisation wins again
_ROLLUP_DENSE_PER_ROW = 64
_ROLLUP_DENSE_MIN = 1 << 16
_ROLLUP_DENSE_MAX = 1 << 20
#: tables of at least this many classes pack their key columns for rollups (``_packs``)
_PACK_ROWS = 1 << 12
#: a dense bincount over the key space is used while it has at most this many cells, or
#: ``_DENSE_PER_ROW`` cells per row; a sort is cheaper beyond (a search rolls up many small tables)
_DENSE_LIMIT = 1 << 15
_DENSE_PER_ROW = 8
_KEY_LIMIT = 1 << 62
#: ``_weights`` memoises arrays of at most this many codes, at most this many per hierarchy
#: (then it starts over): a few MB at worst
_WEIGHT_CACHE_CODES = 1 << 12
_WEIGHT_CACHE_ENTRIES = 1 << 12
#: ``_radices`` memoises at most this many nodes per encoded table (then starts over)
_RADIX_CACHE_ENTRIES = 1 << 16
_RADIX_CACHE: weakref.WeakKeyDictionary[EncodedTable, dict[tuple[int, ...], tuple]] = (
    weakref.WeakKeyDictionary()
)
_WEIGHT_CACHE: weakref.WeakKeyDictionary[LevelArrays, dict[tuple[int, ...], np.ndarray]] = (
    weakref.WeakKeyDictionary()
)
#: a rollup of sizes only (``_rollup_counts``) from a table of at least ``_COUNT_ROWS`` classes
#: counts over the whole key space while it has at most ``_COUNT_DENSE_PER_ROW`` cells per
#: source class: a float64 cell costs about what a pass over one source class does, and the
#: general dense path makes five such passes (on small tables its fixed costs win instead)
_COUNT_ROWS = 1 << 12
_COUNT_DENSE_PER_ROW = 4
#: initial hash-table size for factorizing a row-sized key: pandas sizes it to the row count by
#: default, which on 10 M rows of 18 k classes costs 3× the time and 2× the memory of a table
#: that starts small and grows with the classes actually seen
_HASH_HINT = 1 << 16


#: below this many keys a sort (``np.unique``) factorizes them, unless pandas is loaded anyway:
#: a small check (a pre-commit hook's) must not import pandas for it, a big one gains from its hash
_SORT_BELOW = 1 << 18


def sorted_factorize(key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(dense id of each key in key order, the distinct keys sorted): ``pd.factorize(key,
    sort=True)`` — a hash table sized to the classes seen — on big keys or when pandas is
    loaded, one ``np.unique`` sort otherwise; both give the same result."""
    if len(key) < _SORT_BELOW and "pandas" not in sys.modules:
        uniq, codes = np.unique(key, return_inverse=True)
        return codes.reshape(-1), uniq
    import pandas as pd

    return pd.factorize(key, sort=True, size_hint=min(len(key), _HASH_HINT))


def _factorize_sorted(key: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense ids of an int64 key in key order (so they do not depend on row order)."""
    codes, uniq = sorted_factorize(key)
    return codes, len(uniq)


def group(columns: list[np.ndarray], cards: list[int]) -> tuple[np.ndarray, int]:
    """Group rows by several integer code columns.

    Returns ``(inverse, n_groups)``: the group of each row, groups numbered in the order of their
    combined key (so the result does not depend on row order).
    """
    inverse, n_groups, _ = group_keys(columns, cards)
    return inverse, n_groups


def group_keys(
    columns: list[np.ndarray], cards: list[int]
) -> tuple[np.ndarray, int, np.ndarray | None]:
    """``group`` plus each group's codes (a groups × columns array) when they come for free.

    When the combined key was factorized whole (no renumbering on the way), the sorted distinct
    keys decode, by mixed-radix division, into the columns' codes of each group: O(groups),
    where finding a row of each group would scatter over every row. None otherwise.
    """
    n = len(columns[0]) if columns else 0
    if not columns:
        return np.zeros(n, dtype=np.int64), int(n > 0), None
    renumbered = False
    key = columns[0].astype(np.int64)
    space = max(int(cards[0]), 1)
    for col, card in zip(columns[1:], cards[1:], strict=True):
        card = max(int(card), 1)
        if space * card >= _KEY_LIMIT:
            key, space = _factorize_sorted(key)
            key = key.astype(np.int64, copy=False)
            renumbered = True
        key *= card
        key += col
        space *= card
    if space <= max(_DENSE_LIMIT, _DENSE_PER_ROW * n):
        present = np.zeros(space, dtype=bool)
        present[key] = True
        # int32 running counts: half the memory of int64, and much faster to fill
        lookup = np.cumsum(present, dtype=np.int32)
        return lookup[key].astype(np.int64) - 1, int(lookup[-1]), None
    inverse, uniq = sorted_factorize(key)
    inverse = inverse.astype(np.int64, copy=False)
    if renumbered:
        return inverse, len(uniq), None
    return inverse, len(uniq), _decode(np.asarray(uniq, dtype=np.int64), cards)


def _decode(combined: np.ndarray, cards: list[int]) -> np.ndarray:
    """Mixed-radix digits of combined keys (last column fastest), as ``_stack_keys`` lays out."""
    keys = np.empty((len(combined), len(cards)), dtype=CODE_DTYPE, order="F")
    rest = combined.copy()
    for j in range(len(cards) - 1, -1, -1):
        card = max(int(cards[j]), 1)
        rest, keys[:, j] = np.divmod(rest, card)
    return keys


def row_classes(encoded: EncodedTable, node: tuple[int, ...]) -> np.ndarray:
    """The class at ``node`` of every row of ``encoded`` (numbered as ``classes.count`` numbers
    them); for an engine's counts, where ``count`` tracks no records (rows are aggregates)."""
    cols = [c.codes_at(level) for c, level in zip(encoded.quasi_identifiers, node, strict=True)]
    cards = [c.cardinality(level) for c, level in zip(encoded.quasi_identifiers, node, strict=True)]
    if not cols:
        n_rows = encoded.n_records if encoded.weights is None else len(encoded.weights)
        return np.zeros(n_rows, dtype=np.int64)
    if encoded.weights is not None and (encoded.weights == 0).any():  # pragma: no cover
        raise ValueError("zero-weight rows have no class")  # (an engine never counts 0)
    inverse, _, _ = group_keys(cols, cards)
    return inverse


def first_rows(inverse: np.ndarray, n_groups: int) -> np.ndarray:
    """Index of the first row of each group."""
    first = np.empty(n_groups, dtype=np.int64)
    first[inverse[::-1]] = np.arange(len(inverse) - 1, -1, -1)
    return first


@dataclass(eq=False)
class SensitiveCounts:
    """The class × sensitive-value count matrix, sparse (CSR): class ``c`` has the values
    ``values[indptr[c]:indptr[c+1]]`` with counts ``counts[...]``."""

    indptr: np.ndarray
    values: np.ndarray
    counts: np.ndarray
    n_values: int

    @property
    def n_classes(self) -> int:
        return len(self.indptr) - 1

    def entry_class(self) -> np.ndarray:
        """Class of each stored entry."""
        return np.repeat(np.arange(self.n_classes), np.diff(self.indptr))

    def totals(self) -> np.ndarray:
        """Count of each sensitive value over the whole table."""
        return np.bincount(self.values, weights=self.counts, minlength=self.n_values)

    def dense(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """Rows ``start:stop`` of the matrix as a dense array (for chunked distance formulas)."""
        stop = self.n_classes if stop is None else stop
        lo, hi = self.indptr[start], self.indptr[stop]
        out = np.zeros((stop - start, self.n_values), dtype=np.float64)
        rows = np.repeat(np.arange(stop - start), np.diff(self.indptr[start : stop + 1]))
        out[rows, self.values[lo:hi]] = self.counts[lo:hi]
        return out

    @classmethod
    def from_pairs(
        cls,
        classes: np.ndarray,
        values: np.ndarray,
        n_classes: int,
        n_values: int,
        weights: np.ndarray | None = None,
    ) -> SensitiveCounts:
        """Aggregate (class, value[, weight]) pairs into the sparse count matrix."""
        m = max(n_values, 1)
        pair = np.multiply(classes, m, dtype=np.int64)
        pair += values
        # temporaries are dropped as soon as they are used: this runs on row-sized arrays
        if n_classes * m <= max(_DENSE_LIMIT, _DENSE_PER_ROW * len(pair)):
            present = np.zeros(n_classes * m, dtype=bool)
            present[pair] = True
            nz = np.flatnonzero(present)
            lookup = np.cumsum(present, dtype=np.int32)
            lookup -= 1
            del present
            cell = lookup[pair]
            del pair, lookup
            counts = np.bincount(cell, weights=weights, minlength=len(nz))
            del cell
        else:
            codes, uniq = sorted_factorize(pair)
            del pair
            counts = np.bincount(codes, weights=weights, minlength=len(uniq))
            nz = np.asarray(uniq, dtype=np.int64)
        if weights is not None:  # a cell of zero-weight rows only holds no record
            nz, counts = nz[counts > 0], counts[counts > 0]
        entry_class, value = np.divmod(nz, m)
        del nz
        indptr = np.zeros(n_classes + 1, dtype=np.int64)
        np.cumsum(np.bincount(entry_class, minlength=n_classes), out=indptr[1:])
        return cls(indptr, value, counts.astype(np.int64, copy=False), n_values)


#: pair keys are deduplicated with a byte mask over their key space up to this many cells (or
#: ``_PAIR_DENSE_PER_KEY`` per key), with a hash beyond
_PAIR_DENSE_CELLS = 1 << 20
_PAIR_DENSE_PER_KEY = 8


def _pairs(
    key: np.ndarray, space: int, *, ordered: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(dense id of each combined key ``a · space + b``, the distinct keys' ``a``, their ``b``).

    A byte mask over the key space when it is small (ids then in key order), else a hash
    factorization — in key order when ``ordered``, else in order of appearance (a third of the
    cost: a rollup's pairs need no order, every count of them is a ``bincount``)."""
    space = max(space, 1)
    total = (int(key.max()) + 1) if len(key) else 0
    if total <= max(_PAIR_DENSE_CELLS, _PAIR_DENSE_PER_KEY * len(key)):
        present = np.zeros(total, dtype=bool)
        present[key] = True
        uniq = np.flatnonzero(present)
        ids = np.searchsorted(uniq, key)  # (a lookup table the size of the space costs more)
    elif ordered:
        ids, uniq = sorted_factorize(key)
    else:
        import pandas as pd  # (a key space this large: the anonymizers' path, pandas is loaded)

        ids, uniq = pd.factorize(key, size_hint=min(len(key), _HASH_HINT))
    first, second = np.divmod(np.asarray(uniq, dtype=np.int64), space)
    return np.asarray(ids, dtype=np.int64), first, second


#: ``_first_in_person`` compares each pair with the previous ones of its person while people
#: hold at most this many pairs; beyond, it hashes the (person, class) keys
_MAX_PAIRS_COMPARED = 16


def _first_in_person(person: np.ndarray, new_class: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Deduplicate pairs sorted by person once their classes are ``new_class``: (the new pair
    of every pair, the mask of the pairs kept — each the first of its person and class, in the
    input order, so the kept pairs stay sorted by person).

    A person holds a few pairs, contiguous: each pair is compared with the one ``d`` places
    before it for d = 1 … (most pairs of one person − 1) — a few vectorised passes, where
    hashing the (person, class) keys costs a hash per pair; the hash when someone holds many."""
    n = len(person)
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)
    start = np.empty(n, dtype=bool)
    start[0] = True
    np.not_equal(person[1:], person[:-1], out=start[1:])
    rep = np.arange(n)
    # the place of each pair among its person's: its index minus its person's first index
    position = rep - np.maximum.accumulate(np.where(start, rep, 0))
    most = int(position.max()) + 1
    if most > _MAX_PAIRS_COMPARED:
        key = np.multiply(person, int(new_class.max()) + 1, dtype=np.int64)
        key += new_class
        ids, _ = sorted_factorize(key)  # (in key order: the firsts come out sorted by person)
        ids = np.asarray(ids, dtype=np.int64)
        first_at = np.full(int(ids.max()) + 1, n, dtype=np.int64)
        np.minimum.at(first_at, ids, rep)
        rep = first_at[ids]
    elif most > 1:
        later = np.flatnonzero(position)  # pairs with an earlier pair of their person
        for d in range(1, most):
            if d > 1:
                later = later[position.take(later) >= d]
            same = later[new_class.take(later) == new_class.take(later - d)]
            rep[same] = same - d  # the largest d last: the earliest equal pair wins
        rep = rep[rep]  # (an earlier equal pair is itself the first: one hop is enough)
    first = rep == np.arange(n)
    ids = np.cumsum(first) - 1
    return ids[rep], first


@dataclass(eq=False)
class Members:
    """Who is in each class when records belong to people (the policy's ``individual``).

    Every distinct (class, person) pair once — ``pair_class`` and ``pair_person``, ordered by
    person (a person's pairs are contiguous: ``merged`` relies on it) — with ``pair_records``,
    that person's records in that class; and, per sensitive attribute, every distinct (pair,
    value) once (``values[name]`` = pair index, value code, number of values). Never larger
    than the rows, usually far smaller, and what every count of people is computed from:
    distinct counts do not add up when classes merge (one person can sit in two classes), so a
    rollup re-counts from these pairs, not from the classes' people.
    """

    pair_class: np.ndarray
    pair_person: np.ndarray
    pair_records: np.ndarray
    #: the person codes' space (codes 0 … n_people − 1)
    n_people: int
    values: dict[str, tuple[np.ndarray, np.ndarray, int]]
    #: per sensitive attribute, the people of the whole table holding each value (computed
    #: once; a merge of classes keeps it, leaving people out does not)
    holders: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    def value_people(self, name: str) -> np.ndarray:
        """The people of the table holding each value of ``name`` in at least one record
        (whatever classes they sit in)."""
        hit = self.holders.get(name)
        if hit is None:
            pair, value, n_values = self.values[name]
            key = np.multiply(self.pair_person.take(pair), max(n_values, 1), dtype=np.int64)
            key += value
            _, _, held = _pairs(key, n_values, ordered=False)
            hit = self.holders[name] = np.bincount(held, minlength=n_values).astype(np.int64)
        return hit

    @classmethod
    def of_rows(
        cls,
        row_class: np.ndarray,
        person: np.ndarray,
        n_people: int,
        sensitive: dict[str, tuple[np.ndarray, int]],
        weights: np.ndarray | None = None,
    ) -> Members:
        """The members of classes given the class and the person of every row (``weights``:
        records per row, an engine's counts; rows of weight 0 hold nobody)."""
        if weights is not None and (weights == 0).any():
            live = np.flatnonzero(weights > 0)
            row_class, person, weights = row_class[live], person[live], weights[live]
            sensitive = {name: (codes[live], n) for name, (codes, n) in sensitive.items()}
        n_classes = int(row_class.max()) + 1 if len(row_class) else 1
        key = np.multiply(person, n_classes, dtype=np.int64)
        key += row_class
        pair_of_row, pair_person, pair_class = _pairs(key, n_classes)  # (in key order)
        del key
        records = np.bincount(pair_of_row, weights=weights, minlength=len(pair_class))
        values = {}
        for name, (codes, n_values) in sensitive.items():
            key = np.multiply(pair_of_row, max(n_values, 1), dtype=np.int64)
            key += codes
            _, pair, value = _pairs(key, n_values)
            values[name] = (pair, value, n_values)
        return cls(pair_class, pair_person, np.rint(records).astype(np.int64), n_people, values)

    def people(self, n_classes: int) -> np.ndarray:
        """Distinct people per class."""
        return np.bincount(self.pair_class, minlength=n_classes).astype(np.int64)

    def n_distinct(self) -> int:
        """Distinct people over all classes."""
        if not len(self.pair_person):
            return 0
        seen = np.zeros(self.n_people, dtype=bool)
        seen[self.pair_person] = True
        return int(np.count_nonzero(seen))

    def sensitive_counts(self, name: str, n_classes: int) -> SensitiveCounts:
        """The class × value matrix of ``name`` in people: each cell counts the distinct people
        of the class holding the value in at least one of their records."""
        pair, value, n_values = self.values[name]
        return SensitiveCounts.from_pairs(self.pair_class[pair], value, n_classes, n_values)

    def merged(self, inverse: np.ndarray, n_classes: int) -> Members:
        """The members of the classes ``inverse`` maps these classes to (a rollup, a
        projection, a group of classes): the pairs re-counted, a person in two merged classes
        once."""
        new_class = inverse.take(self.pair_class)
        new_pair, first = _first_in_person(self.pair_person, new_class)
        pair_class = new_class[first]
        pair_person = self.pair_person[first]
        records = np.bincount(new_pair, weights=self.pair_records, minlength=len(pair_class))
        values = {}
        for name, (pair, value, n_values) in self.values.items():
            key = np.multiply(new_pair.take(pair), max(n_values, 1), dtype=np.int64)
            key += value
            _, new, val = _pairs(key, n_values, ordered=False)
            values[name] = (new, val, n_values)
        return Members(
            pair_class,
            pair_person,
            np.rint(records).astype(np.int64),
            self.n_people,
            values,
            {n: h for n, h in self.holders.items() if n in values},  # (who holds what: same)
        )

    def selected(self, keep_pair: np.ndarray, class_index: np.ndarray) -> Members:
        """The pairs in ``keep_pair`` (a mask), their classes renumbered through
        ``class_index`` (old class → new, −1 for none): what selecting classes or leaving
        people out keeps."""
        kept = np.flatnonzero(keep_pair)
        new_index = np.full(len(keep_pair), -1, dtype=np.int64)
        new_index[kept] = np.arange(len(kept))
        values = {}
        for name, (pair, value, n_values) in self.values.items():
            at = new_index.take(pair)
            live = at >= 0
            values[name] = (at[live], value[live], n_values)
        return Members(
            class_index.take(self.pair_class[kept]),
            self.pair_person[kept],
            self.pair_records[kept],
            self.n_people,
            values,
        )

    def only(self, names: set[str] | dict) -> Members:
        """The members with the sensitive values of ``names`` only."""
        values = {n: v for n, v in self.values.items() if n in names}
        holders = {n: h for n, h in self.holders.items() if n in names}
        return Members(
            self.pair_class, self.pair_person, self.pair_records, self.n_people, values, holders
        )


def people_per_group(
    row_group: np.ndarray, n_groups: int, person: np.ndarray, n_people: int
) -> np.ndarray:
    """Distinct people in each group of rows (``row_group``: the group of every row)."""
    key = np.multiply(row_group, max(n_people, 1), dtype=np.int64)
    key += person
    _, pair_group, _ = _pairs(key, n_people)
    return np.bincount(pair_group, minlength=n_groups).astype(np.int64)


@dataclass(eq=False)
class ClassTable:
    """One row per equivalence class at a lattice node.

    ``keys[c, j]`` is the level-``node[j]`` code of quasi-identifier ``j`` for class ``c``;
    ``sizes[c]`` its number of records; ``sensitive[name]`` the class × value counts of each
    sensitive attribute; ``record_class`` (when tracked) the class of every record.

    When the policy names an ``individual``, ``members`` says who is in each class
    (``Members``), ``people`` counts them, and ``sensitive`` counts people per (class, value)
    instead of records; ``subjects`` — what every model reads as a class's size — is then the
    people, else the records.
    """

    encoded: EncodedTable
    node: tuple[int, ...]
    keys: np.ndarray
    sizes: np.ndarray
    sensitive: dict[str, SensitiveCounts]
    record_class: np.ndarray | None = None
    members: Members | None = None
    #: each class's combined key (mixed radix over the key columns' cardinalities, ascending),
    #: kept by ``rollup`` for the next rollup from this table (see ``_combined_key``)
    combined: np.ndarray | None = field(default=None, init=False, repr=False, compare=False)
    #: rollup's packed key columns (see ``_packs``), built the first time a big table is rolled up
    packs: list[tuple[list[int], np.ndarray]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    #: ``people``, counted once
    _people: np.ndarray | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def n_classes(self) -> int:
        return len(self.sizes)

    @property
    def n_records(self) -> int:
        return int(self.sizes.sum())

    @property
    def people(self) -> np.ndarray | None:
        """Distinct people per class (None when the policy names no individual)."""
        if self.members is None:
            return None
        if self._people is None:
            self._people = self.members.people(self.n_classes)
        return self._people

    @property
    def subjects(self) -> np.ndarray:
        """The size of each class as every model reads it: its distinct people when the policy
        names an individual, else its records."""
        people = self.people
        return self.sizes if people is None else people

    @property
    def n_subjects(self) -> int:
        """The table's size as the models read it: distinct people, or records."""
        n = self.n_individuals
        return self.n_records if n is None else n

    @property
    def n_individuals(self) -> int | None:
        """Distinct people in the table (None when the policy names no individual)."""
        return None if self.members is None else self.members.n_distinct()

    def value_totals(self, name: str) -> np.ndarray:
        """The table's count of each value of ``name``: its records — or, counted in people,
        the people holding it (once each, whatever classes they sit in: the table's
        distribution does not depend on how it is cut into classes)."""
        if self.members is None:
            return self.sensitive[name].totals()
        return self.members.value_people(name).astype(np.float64)

    def value_sizes(self, name: str) -> np.ndarray:
        """The total of each class's row of the ``name`` matrix: its records — or, counted in
        people, the sum of its (person, value) pairs, which exceeds its people when someone
        holds several values. Distributions (entropy, t-closeness) divide by it."""
        if self.members is None:
            return self.sizes
        s = self.sensitive[name]
        return np.bincount(s.entry_class(), weights=s.counts, minlength=self.n_classes)

    def class_labels(self, classes: np.ndarray) -> list[dict[str, str]]:
        """The released quasi-identifier values of the given classes."""
        out: list[dict[str, str]] = [{} for _ in classes]
        for j, col in enumerate(self.encoded.quasi_identifiers):
            labels = col.levels.labels[self.node[j]][self.keys[classes, j]]
            for row, label in zip(out, labels, strict=True):
                row[col.name] = str(label)
        return out

    def records_of(self, classes: np.ndarray, cap: int | None = None) -> list[list[int]]:
        """Row numbers (0-based, input order) of the records of each given class."""
        if self.record_class is None:
            raise ValueError("this class table does not track records (count(track_records=True))")
        wanted = np.full(self.n_classes, -1, dtype=np.int64)
        wanted[classes] = np.arange(len(classes))
        # one pass over the records with a byte mask, then work on the selected rows only
        # (an int64 slot per record would cost 8 bytes × n per model reported)
        rows = np.flatnonzero((wanted >= 0)[self.record_class])
        slot = wanted[self.record_class[rows]]
        order = np.argsort(slot, kind="stable")
        rows, slot = rows[order], slot[order]
        bounds = np.searchsorted(slot, np.arange(len(classes) + 1))
        return [rows[bounds[i] : bounds[i + 1]][:cap].tolist() for i in range(len(classes))]


def count(
    encoded: EncodedTable, node: tuple[int, ...] | None = None, *, track_records: bool = True
) -> ClassTable:
    """The class table of ``encoded`` generalized to ``node`` (one level per quasi-identifier)."""
    node = tuple(encoded.bottom if node is None else node)
    _check_node(encoded, node)
    cols = [c.codes_at(level) for c, level in zip(encoded.quasi_identifiers, node, strict=True)]
    cards = [c.cardinality(level) for c, level in zip(encoded.quasi_identifiers, node, strict=True)]
    if not cols:
        # one class of every row (with weights, rows are aggregates: fewer than the records)
        n_rows = encoded.n_records if encoded.weights is None else len(encoded.weights)
        inverse, n_classes = np.zeros(n_rows, dtype=np.int64), int(n_rows > 0)
        keys = None
    else:
        inverse, n_classes, keys = group_keys(cols, cards)
    if keys is None:
        first = first_rows(inverse, n_classes)
        keys = _stack_keys([c[first] for c in cols], n_classes)
    w = encoded.weights
    sizes = np.bincount(inverse, weights=w, minlength=n_classes).astype(np.int64)
    members = None
    if encoded.individual is not None:  # people per class, and per (class, value)
        members = Members.of_rows(
            inverse,
            encoded.individual,
            encoded.n_individuals,
            {name: (col.codes, col.cardinality()) for name, col in encoded.sensitive.items()},
            w,
        )
        sensitive = {name: members.sensitive_counts(name, n_classes) for name in encoded.sensitive}
    else:
        sensitive = {
            name: SensitiveCounts.from_pairs(inverse, col.codes, n_classes, col.cardinality(), w)
            for name, col in encoded.sensitive.items()
        }
    if w is not None and (w == 0).any():  # zero-weight rows must not create empty classes
        table = ClassTable(encoded, node, keys, sizes, sensitive, None, members)
        return _drop_empty(table)
    # with weights, rows are aggregates: there are no record numbers to name
    record_class = inverse if track_records and w is None else None
    return ClassTable(encoded, node, keys, sizes, sensitive, record_class, members)


def _drop_empty(table: ClassTable) -> ClassTable:
    keep = np.flatnonzero(table.sizes > 0)
    remap = np.full(table.n_classes, -1, dtype=np.int64)
    remap[keep] = np.arange(len(keep))
    sensitive = {}
    for name, s in table.sensitive.items():
        cls = s.entry_class()
        sensitive[name] = SensitiveCounts.from_pairs(
            remap[cls], s.values, len(keep), s.n_values, weights=s.counts
        )
    members = None
    if table.members is not None:  # (its pairs come from rows holding records: all kept)
        m = table.members
        members = m.selected(np.ones(len(m.pair_class), dtype=bool), remap)
    return ClassTable(
        table.encoded, table.node, table.keys[keep], table.sizes[keep], sensitive, None, members
    )


def rollup(table: ClassTable, node: tuple[int, ...], *, validate: bool = True) -> ClassTable:
    """The class table at the coarser ``node``, re-aggregated from ``table`` (not from the rows).

    ``validate=False`` skips checking that ``node`` is a valid node at or above ``table.node``:
    for a search that has checked its nodes already and rolls up thousands of small tables, where
    the Python loops of the checks are a noticeable share of a rollup.
    """
    node = tuple(node)
    if validate:
        _check_node(table.encoded, node)
        if any(hi < lo for lo, hi in zip(table.node, node, strict=True)):
            raise ValueError(f"rollup goes to coarser nodes only: {table.node} → {node}")
    return _rollup(table, node)


def _rollup(table: ClassTable, node: tuple[int, ...]) -> ClassTable:
    """``rollup`` of a valid node.

    A search rolls up thousands of small tables, so this is written for few numpy passes:
    each column's level map is pre-multiplied by its radix and gathered with ``take`` (half the
    cost of fancy indexing with int32 indices) straight into the combined key; the key is
    factorised densely through its non-empty cells (``flatnonzero`` of a byte mask instead of a
    running count over the whole key space); and the new keys come from one column-wise
    ``take`` of any row of each class (every row of a class has the same coarser codes).
    """
    qis = table.encoded.quasi_identifiers
    cards, _, space = _radices(table.encoded, node)
    n = table.n_classes
    if not qis or n == 0 or space >= _KEY_LIMIT:
        return _rollup_general(table, node, cards)
    keys = table.keys
    key = _combined_key(table, node, cards, space)
    if (
        n >= _COUNT_ROWS
        and not table.sensitive
        and table.record_class is None
        and table.members is None
        and space <= _COUNT_DENSE_PER_ROW * n
    ):
        return _rollup_counts(table, node, cards, key, space)
    if space <= max(_ROLLUP_DENSE_MIN, min(_ROLLUP_DENSE_PER_ROW * n, _ROLLUP_DENSE_MAX)):
        present = np.zeros(space, dtype=bool)
        present[key] = True
        cells = np.flatnonzero(present)
        n_classes = len(cells)
        lookup = np.empty(space, dtype=np.intp)
        lookup[cells] = np.arange(n_classes)
        inverse = lookup.take(key)
    else:
        inverse, cells = sorted_factorize(key)
        inverse = inverse.astype(np.int64, copy=False)
        cells = np.asarray(cells, dtype=np.int64)
        n_classes = len(cells)
    rep = np.empty(n_classes, dtype=np.intp)
    rep[inverse] = np.arange(n)  # any row of each class: they all carry the class's codes
    new = keys.T.take(rep, axis=1).astype(CODE_DTYPE, copy=False)
    for j, (c, lo, hi) in enumerate(zip(qis, table.node, node, strict=True)):
        if hi != lo:
            new[j] = c.levels.up(lo, hi).take(new[j])
    out = _finish(table, node, new.T, inverse, n_classes)
    out.combined = cells
    return out


def _rollup_counts(
    table: ClassTable, node: tuple[int, ...], cards: list[int], key: np.ndarray, space: int
) -> ClassTable:
    """``_rollup`` of a table that carries class sizes only (no sensitive counts, no record
    classes: what a search evaluating k-anonymity rolls up), over a small key space.

    Nothing needs the class of each source class then, so the new table is one weighted
    ``bincount`` over the key space: its non-empty cells are the classes (in key order, as
    ever), their counts the sizes, and the cells decode into the key columns (small: one row
    per new class) — instead of a byte mask, a lookup, a gather of the key, a scatter of
    representatives and a second ``bincount``, each a pass over the source classes. Source
    sizes are positive (``count`` drops empty classes), so a cell is non-empty iff present.
    """
    counts = np.bincount(key, weights=table.sizes, minlength=space)
    cells = np.flatnonzero(counts)
    sizes = counts.take(cells).astype(np.int64)
    radix, bases = _radix_arrays(table.encoded, node)
    keys = np.empty((len(cells), len(cards)), dtype=CODE_DTYPE, order="F")
    np.remainder(cells[:, None] // radix, bases, out=keys, casting="unsafe")
    out = ClassTable(table.encoded, node, keys, sizes, {}, None)
    out.combined = cells
    return out


def _combined_key(
    table: ClassTable, node: tuple[int, ...], cards: list[int], space: int
) -> np.ndarray:
    """The combined key at ``node`` (mixed radix over ``cards``, whose product is ``space``) of
    each class of ``table``, by the cheapest of three routes.

    A table made by ``rollup`` keeps its own combined key ``K``; when the changed columns span
    ``f..m``, the new key is ``K`` plus, per column of ``f..m``, a gathered difference of its
    weights, plus the prefix ``K // (card_f·R_f)`` (the columns before ``f``) times the change of
    its radix; the columns after ``m`` keep their radix and cost nothing. A search's walk along the
    border raises one column at a time, so this is a handful of passes instead of two per column.
    Otherwise each column's weights (level map × radix) are gathered and summed — through packed
    columns (``_packs``) for a big table, which a search rolls up to hundreds of nodes.
    """
    qis = table.encoded.quasi_identifiers
    keys = table.keys
    width = len(qis)
    at = table.node
    radix = _radices(table.encoded, node)[1]
    radix_old = _radices(table.encoded, at)[1]
    changed = [j for j in range(width) if node[j] != at[j]]
    combined = table.combined
    if combined is not None and changed and 2 * (changed[-1] - changed[0]) + 5 <= 2 * width:
        f, m = changed[0], changed[-1]
        key = None
        for j in range(f, m + 1):
            if node[j] == at[j] and radix[j] == radix_old[j]:
                continue
            part = _weights(qis[j].levels, at[j], node[j], radix[j], radix_old[j]).take(keys[:, j])
            if key is None:
                key = part
            else:
                key += part
        key = combined.copy() if key is None else np.add(key, combined, out=key)
        # the prefix (columns before f) keeps its value; only its radix changes
        step = max(len(qis[f].levels.labels[at[f]]), 1) * radix_old[f]
        coef = max(cards[f], 1) * radix[f] - step
        if f > 0 and coef != 0:
            prefix = combined // step
            prefix *= coef
            key += prefix
        return key
    key = None
    if table.n_classes >= _PACK_ROWS:
        for columns, codes in _packs(table):
            cells = None
            for j in columns:
                w = _weights(qis[j].levels, at[j], node[j], radix[j])
                cells = w if cells is None else (cells[:, None] + w).reshape(-1)
            part = cells.take(codes)
            if key is None:
                key = part
            else:
                key += part
        return key
    for j in range(width):
        if node[j] == at[j]:
            part = np.multiply(keys[:, j], radix[j], dtype=np.int64)
        else:
            part = _weights(qis[j].levels, at[j], node[j], radix[j]).take(keys[:, j])
        if key is None:
            key = part
        else:
            key += part
    return key


def _radices(encoded: EncodedTable, node: tuple[int, ...]) -> tuple[list[int], list[int], int]:
    """``(cards, radix, space)`` of ``node``: each column's cardinality at its level, its radix
    in the combined key (the last column varies fastest; a cardinality of 0 counts as 1) and the
    key space. Memoised per encoded table: a search rolls up to and from the same few thousand
    nodes, and these Python loops were a sizeable share of rolling up a small table."""
    cache = _RADIX_CACHE.get(encoded)
    if cache is None or len(cache) >= _RADIX_CACHE_ENTRIES:
        cache = _RADIX_CACHE[encoded] = {}
    hit = cache.get(node)
    if hit is None:
        qis = encoded.quasi_identifiers
        cards = [len(c.levels.labels[level]) for c, level in zip(qis, node, strict=True)]
        radix, r = [0] * len(cards), 1
        for j in range(len(cards) - 1, -1, -1):
            radix[j] = r
            r *= max(cards[j], 1)
        hit = cache[node] = (cards, radix, r)
    return hit


def _radix_arrays(encoded: EncodedTable, node: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """``_radices``' radices and cardinalities (at least 1) as int64 arrays, for decoding
    combined keys; memoised alike."""
    cache = _RADIX_CACHE.get(encoded)
    hit = cache.get(("arrays", node)) if cache is not None else None
    if hit is None:
        cards, radix, _ = _radices(encoded, node)
        hit = (np.array(radix, dtype=np.int64), np.maximum(np.array(cards, dtype=np.int64), 1))
        _RADIX_CACHE[encoded][("arrays", node)] = hit
    return hit


def _weights(levels: LevelArrays, lo: int, hi: int, radix: int, radix_old: int = 0) -> np.ndarray:
    """``up(lo, hi) · radix − code · radix_old`` for every level-``lo`` code, as int64: what each
    code adds to a combined key (``radix_old = 0``) or changes in it. Memoised per hierarchy for
    small levels: a search asks for the same few hundred arrays thousands of times, and building
    one is several numpy calls where gathering through it is one."""
    key = (lo, hi, radix, radix_old)
    cache = _WEIGHT_CACHE.get(levels)
    if cache is not None:
        hit = cache.get(key)
        if hit is not None:
            return hit
    code = np.arange(len(levels.labels[lo]), dtype=np.int64)
    w = np.multiply(code if hi == lo else levels.up(lo, hi), radix, dtype=np.int64)
    if radix_old:
        w -= code * radix_old
    if len(code) <= _WEIGHT_CACHE_CODES:
        if cache is None or len(cache) >= _WEIGHT_CACHE_ENTRIES:
            cache = _WEIGHT_CACHE[levels] = {}
        cache[key] = w
    return w


def _packs(table: ClassTable) -> list[tuple[list[int], np.ndarray]]:
    """Consecutive key columns packed into one mixed-radix code per class, each pack's cells
    (the product of its columns' cardinalities) at most half the classes: a rollup then builds
    each pack's table of combined-key contributions (small) and gathers it once per pack.
    Cached on the table."""
    if table.packs is None:
        cards = [
            max(c.cardinality(level), 1)
            for c, level in zip(table.encoded.quasi_identifiers, table.node, strict=True)
        ]
        cap = max(table.n_classes // 2, 1)
        groups: list[list[int]] = []
        cells = cap + 1
        for j, card in enumerate(cards):
            if cells * card > cap:
                groups.append([j])
                cells = card
            else:
                groups[-1].append(j)
                cells *= card
        packs = []
        for columns in groups:
            code = table.keys[:, columns[0]].astype(np.intp)
            for j in columns[1:]:
                code *= cards[j]
                code += table.keys[:, j]
            packs.append((columns, code))
        table.packs = packs
    return table.packs


def _rollup_general(table: ClassTable, node: tuple[int, ...], cards: list[int]) -> ClassTable:
    """The rollup through ``group`` (no quasi-identifiers, or a key space beyond int64)."""
    encoded = table.encoded
    cols = [
        c.levels.up(lo, hi)[table.keys[:, j]] if hi != lo else table.keys[:, j]
        for j, (c, lo, hi) in enumerate(
            zip(encoded.quasi_identifiers, table.node, node, strict=True)
        )
    ]
    if cols:
        inverse, n_classes = group(cols, cards)
    else:
        inverse, n_classes = np.zeros(table.n_classes, dtype=np.int64), int(table.n_classes > 0)
    first = first_rows(inverse, n_classes)
    keys = _stack_keys([c[first] for c in cols], n_classes)
    return _finish(table, node, keys, inverse, n_classes)


def _finish(
    table: ClassTable, node: tuple[int, ...], keys: np.ndarray, inverse: np.ndarray, n_classes: int
) -> ClassTable:
    """Re-aggregate sizes, sensitive counts and record classes through ``inverse`` (people:
    re-counted from the members' pairs)."""
    sizes = np.bincount(inverse, weights=table.sizes, minlength=n_classes).astype(np.int64)
    sensitive, members = merge_sensitive(table, inverse, n_classes)
    record_class = None if table.record_class is None else inverse[table.record_class]
    return ClassTable(table.encoded, node, keys, sizes, sensitive, record_class, members)


def merge_sensitive(
    table: ClassTable, inverse: np.ndarray, n_classes: int, names: Iterable[str] | None = None
) -> tuple[dict[str, SensitiveCounts], Members | None]:
    """The sensitive counts (of ``names``, default all) and members of the ``n_classes`` groups
    ``inverse`` maps ``table``'s classes to: record counts add up; people are re-counted from
    the members' pairs."""
    wanted = table.sensitive if names is None else {n: None for n in names}
    if table.members is not None:
        source = table.members if names is None else table.members.only(wanted)
        members = source.merged(inverse, n_classes)
        return {n: members.sensitive_counts(n, n_classes) for n in wanted}, members
    sensitive = {
        name: SensitiveCounts.from_pairs(
            inverse[s.entry_class()], s.values, n_classes, s.n_values, weights=s.counts
        )
        for name, s in table.sensitive.items()
        if name in wanted
    }
    return sensitive, None


def _stack_keys(columns: list[np.ndarray], n_classes: int) -> np.ndarray:
    """Key columns as one array, column-major so rollups gather contiguous columns, in the
    codes' dtype (int32): on tables of mostly unique rows the key matrix is as large as the
    codes themselves, and an int64 copy would double it."""
    keys = np.empty((n_classes, len(columns)), dtype=CODE_DTYPE, order="F")
    for j, c in enumerate(columns):
        keys[:, j] = c
    return keys


def _check_node(encoded: EncodedTable, node: tuple[int, ...]) -> None:
    if len(node) != len(encoded.quasi_identifiers):
        raise ValueError(
            f"node {node} has {len(node)} levels; there are {len(encoded.quasi_identifiers)} "
            "quasi-identifiers"
        )
    for level, col in zip(node, encoded.quasi_identifiers, strict=True):
        if not 0 <= level <= col.height:
            raise ValueError(f"level {level} of {col.name!r} is outside 0..{col.height}")
