"""Who is in each class: the people of a class table (``Members``) and the sensitive values it
holds (``SensitiveCounts``), counted from (class, person) and (class, value) pairs so that a
rollup re-counts them without the records.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from privcheck.grouping import _DENSE_LIMIT, _DENSE_PER_ROW, _HASH_HINT, sorted_factorize


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
