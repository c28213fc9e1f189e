"""Equivalence classes as a class table ("frequency set"), computed once and rolled up.

``count`` is the only step after encoding that touches every record: one gather per
quasi-identifier and one group-by of the combined key. Everything else — every privacy model,
every node a lattice search visits — works on the class table, whose size is the number of
classes, not the number of records. ``rollup`` moves a class table to a coarser node by mapping
the class keys through the hierarchies and re-aggregating the table itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from privcheck.encoding import CODE_DTYPE, EncodedTable
from privcheck.grouping import (
    _KEY_LIMIT,
    decode_keys,
    first_rows,
    group,
    group_keys,
    sorted_factorize,
)
from privcheck.hierarchy import LevelArrays
from privcheck.members import Members, SensitiveCounts, people_per_group  # noqa: F401

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
#: ``_pack_code`` keeps at most this many packs' codes per table (then starts over)
_PACK_CODES = 256
#: ``_weights`` memoises arrays of at most this many codes, at most this many per hierarchy
#: (then it starts over): a few MB at worst
_WEIGHT_CACHE_CODES = 1 << 12
_WEIGHT_CACHE_ENTRIES = 1 << 12
#: ``_radices`` memoises at most this many nodes per shape of the hierarchies (then starts
#: over), for at most ``_RADIX_SHAPES`` shapes (the oldest go first)
_RADIX_CACHE_ENTRIES = 1 << 16
_RADIX_SHAPES = 16
_RADIX_MEMOS: dict[tuple[tuple[int, ...], ...], dict[tuple, tuple]] = {}
#: a rollup of sizes only (``_rollup_counts``) from a table of at least ``_COUNT_ROWS`` classes
#: counts over the whole key space while it has at most ``_COUNT_DENSE_PER_ROW`` cells per
#: source class: a float64 cell costs about what a pass over one source class does, and the
#: general dense path makes five such passes (on small tables its fixed costs win instead)
_COUNT_ROWS = 1 << 12
_COUNT_DENSE_PER_ROW = 4


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
    #: each pack's own mixed-radix code per class at the levels a rollup took it to (see
    #: ``_pack_code``), kept for the next rollups to the same levels
    pack_codes: dict[tuple, tuple[np.ndarray, int]] | None = field(
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
    cards, radix, space = _radices(table.encoded, node)
    n = table.n_classes
    if not qis or n == 0 or space >= _KEY_LIMIT:
        return _rollup_general(table, node, cards)
    keys = table.keys
    key = _combined_key(table, node, cards, radix)
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
    out = ClassTable(table.encoded, node, decode_keys(cells, cards, space), sizes, {}, None)
    out.combined = cells
    return out


def _combined_key(
    table: ClassTable, node: tuple[int, ...], cards: list[int], radix: list[int]
) -> np.ndarray:
    """The combined key at ``node`` (mixed radix over ``cards``; ``radix``: each column's) of
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
    changed = [j for j in range(width) if node[j] != at[j]]
    combined = table.combined
    if combined is not None and changed and 2 * (changed[-1] - changed[0]) + 5 <= 2 * width:
        radix_old = _radices(table.encoded, at)[1]
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
        # the packs are consecutive columns: the combined key is the mixed radix of their own
        # codes (each pack's cardinality at the node the next radix)
        for p, (columns, codes) in enumerate(_packs(table)):
            local, card = _pack_code(table, p, columns, codes, node, cards)
            if key is None:
                key = local.copy()
            else:
                key *= card
                key += local
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
    key space. Memoised per shape of the hierarchies (``_radix_memo``): a search rolls up to and
    from the same few thousand nodes, and these Python loops were a sizeable share of rolling up
    a small table."""
    cache = encoded.radix_memo
    if cache is None:
        cache = _radix_memo(encoded)
    hit = cache.get(node)
    if hit is None:
        if len(cache) >= _RADIX_CACHE_ENTRIES:
            cache.clear()
        qis = encoded.quasi_identifiers
        cards = [len(c.levels.labels[level]) for c, level in zip(qis, node, strict=True)]
        radix, r = [0] * len(cards), 1
        for j in range(len(cards) - 1, -1, -1):
            radix[j] = r
            r *= max(cards[j], 1)
        hit = cache[node] = (cards, radix, r)
    return hit


def _radix_memo(encoded: EncodedTable) -> dict[tuple, tuple]:
    """The memo of ``_radices`` for ``encoded``: the one of every encoded table whose columns'
    hierarchies have the same cardinality at every level (radices depend on nothing else), so
    each anonymization — which encodes its input afresh — does not rebuild it. Attached to the
    encoded table (``radix_memo``) for the next lookups."""
    shape = tuple(tuple(len(lab) for lab in c.levels.labels) for c in encoded.quasi_identifiers)
    memo = _RADIX_MEMOS.get(shape)
    if memo is None:
        if len(_RADIX_MEMOS) >= _RADIX_SHAPES:
            _RADIX_MEMOS.pop(next(iter(_RADIX_MEMOS)))
        memo = _RADIX_MEMOS[shape] = {}
    encoded.radix_memo = memo
    return memo


def _weights(levels: LevelArrays, lo: int, hi: int, radix: int, radix_old: int = 0) -> np.ndarray:
    """``up(lo, hi) · radix − code · radix_old`` for every level-``lo`` code, as int64: what each
    code adds to a combined key (``radix_old = 0``) or changes in it. Memoised per hierarchy for
    small levels: a search asks for the same few hundred arrays thousands of times, and building
    one is several numpy calls where gathering through it is one."""
    key = ("weights", lo, hi, radix, radix_old)
    cache = levels.memo
    hit = cache.get(key)
    if hit is not None:
        return hit
    code = np.arange(len(levels.labels[lo]), dtype=np.int64)
    w = np.multiply(code if hi == lo else levels.up(lo, hi), radix, dtype=np.int64)
    if radix_old:
        w -= code * radix_old
    if len(code) <= _WEIGHT_CACHE_CODES:
        if len(cache) >= _WEIGHT_CACHE_ENTRIES:
            cache.clear()
        w.flags.writeable = False  # shared by every later rollup: callers only gather from it
        cache[key] = w
    return w


def _pack_code(
    table: ClassTable,
    p: int,
    columns: list[int],
    codes: np.ndarray,
    node: tuple[int, ...],
    cards: list[int],
) -> tuple[np.ndarray, int]:
    """Pack ``p``'s own combined key at ``node`` (mixed radix over its columns' cardinalities
    there) for every class of ``table``, and the pack's cardinality at ``node``.

    It depends on the pack's levels alone, and a search rolls the same big table (the root)
    up to hundreds of nodes whose levels repeat pack by pack (on Adult's root a few dozen
    combinations per pack): memoised on the table (read-only), so most rollups of a big
    table gather nothing and only combine the packs' codes."""
    levels = tuple([node[j] for j in columns])
    memo = table.pack_codes
    if memo is None:
        memo = table.pack_codes = {}
    hit = memo.get((p, levels))
    if hit is None:
        qis = table.encoded.quasi_identifiers
        cells, card = None, 1
        for j in reversed(columns):  # the pack's last column varies fastest
            w = _weights(qis[j].levels, table.node[j], node[j], card)
            cells = w if cells is None else (w[:, None] + cells).reshape(-1)
            card *= max(cards[j], 1)
        local = cells.take(codes)
        local.flags.writeable = False
        if len(memo) >= _PACK_CODES:
            memo.clear()
        hit = memo[(p, levels)] = (local, card)
    return hit


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
    sensitive, members = (
        merge_sensitive(table, inverse, n_classes)
        if table.sensitive or table.members is not None
        else ({}, None)  # (k-anonymity's search: sizes alone, thousands of rollups)
    )
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
