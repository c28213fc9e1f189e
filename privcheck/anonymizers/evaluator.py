"""Evaluating one lattice node: its class table and its verdict under the policy.

A node is evaluated on its class table, rolled up from the cached table of the finest-grained
already evaluated node below it (the first one is counted from the rows), so a search touches the
records once. The verdict at a node follows ARX's suppression semantics: the records of the
classes that violate some model are suppressed, and the node *satisfies* the policy when they are
at most ``suppression_limit · N``.

Table-dependent models (t-closeness compares each class with the table's distribution) make the
verdict depend on what is kept. The released table is the kept records, and a check of the release
compares each class with *their* distribution, so the evaluation iterates to a fixed point: after
suppressing the violating classes, the table-dependent models are evaluated again on the kept
classes (against the kept records' distribution), newly violating classes are suppressed, and so
on until nothing changes or the limit is exceeded. A node satisfies the policy when this fixed
point keeps at least one record and suppresses at most the limit; the plain checker then agrees
on the release. Counting people, a violating class's people leave every class together
(``NodeEvaluator._people_verdict``).
"""

from __future__ import annotations

import math
import operator
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from privcheck.classes import (
    ClassTable,
    Members,
    SensitiveCounts,
    count,
    first_rows,
    group,
    merge_sensitive,
    rollup,
)
from privcheck.encoding import EncodedTable
from privcheck.lattice import Node
from privcheck.models.base import evaluate_models
from privcheck.plugins import model_registry
from privcheck.policy import ModelConfig

#: classes over all class tables kept for rolling up (~70-100 bytes each)
_CACHE_CLASSES = 2_000_000
#: lattices up to this many nodes index the table cache by node as well (16 bytes a node)
_GRID_NODES = 1 << 20
#: ... and have at most this many quasi-identifiers (numpy arrays have at most 64 axes)
_GRID_AXES = 32
_NONE = np.iinfo(np.int64).max
#: the grid packs a cached node's class count and slot into one int64 (count in the high bits),
#: so the smallest cached table below a node is one ``min`` over a box; slots fit the low bits
#: (a grid lattice has at most ``_GRID_NODES`` nodes, so at most that many cached tables)
_SLOT_BITS = 21
_SLOT_MASK = (1 << _SLOT_BITS) - 1


@dataclass(eq=False)
class NodeOutcome:
    """The verdict at one node."""

    node: Node
    satisfied: bool
    clean: bool
    monotone_ok: bool
    suppressed: int
    n_classes: int
    #: kept classes of the node's class table (None: all kept, or not computed)
    kept: np.ndarray | None = None


def select_classes(table: ClassTable, keep: np.ndarray) -> ClassTable:
    """The class table restricted to the classes in ``keep`` (a boolean mask)."""
    idx = np.flatnonzero(keep)
    sensitive = {}
    for name, s in table.sensitive.items():
        lengths = np.diff(s.indptr)[idx]
        indptr = np.zeros(len(idx) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        entries = np.repeat(s.indptr[idx] - indptr[:-1], lengths) + np.arange(indptr[-1])
        sensitive[name] = SensitiveCounts(indptr, s.values[entries], s.counts[entries], s.n_values)
    members = None
    if table.members is not None:
        index = np.full(table.n_classes, -1, dtype=np.int64)
        index[idx] = np.arange(len(idx))
        m = table.members
        members = m.selected(index.take(m.pair_class) >= 0, index)
    return ClassTable(
        table.encoded, table.node, table.keys[idx], table.sizes[idx], sensitive, None, members
    )


def without_people(table: ClassTable, removed: np.ndarray) -> tuple[ClassTable, np.ndarray]:
    """The class table once the people marked in ``removed`` (a mask over person codes) are
    taken out with all their records, and the classes it keeps (those left with someone), as
    indices into ``table``'s classes. Sizes, people and sensitive counts are re-counted from
    the members' remaining pairs."""
    m = table.members
    assert m is not None
    keep_pair = ~removed.take(m.pair_person)
    people = np.bincount(m.pair_class[keep_pair], minlength=table.n_classes)
    live = np.flatnonzero(people)
    index = np.full(table.n_classes, -1, dtype=np.int64)
    index[live] = np.arange(len(live))
    members = m.selected(keep_pair, index)
    sizes = np.bincount(members.pair_class, weights=members.pair_records, minlength=len(live))
    sensitive = {name: members.sensitive_counts(name, len(live)) for name in table.sensitive}
    out = ClassTable(
        table.encoded,
        table.node,
        table.keys[live],
        np.rint(sizes).astype(np.int64),
        sensitive,
        None,
        members,
    )
    return out, live


def split_by_people(table: ClassTable, removed: np.ndarray) -> tuple[ClassTable, np.ndarray]:
    """``table`` with every class split into the records of the people kept and those of the
    people removed (``removed``: a mask over person codes), and which of the new classes are
    kept: what a release made by suppressing people reads as a class table (its metrics count
    the removed part as suppressed records; the record classes say which rows are released).
    The two parts of a class share its keys; classes stay in key order."""
    m = table.members
    assert m is not None
    pair_out = removed.take(m.pair_person).astype(np.int64)
    part = 2 * m.pair_class + pair_out
    present = np.zeros(2 * table.n_classes, dtype=bool)
    present[part] = True
    cells = np.flatnonzero(present)
    index = np.full(2 * table.n_classes, -1, dtype=np.int64)
    index[cells] = np.arange(len(cells))
    n_classes = len(cells)
    members = Members(index[part], m.pair_person, m.pair_records, m.n_people, m.values)
    sizes = np.bincount(members.pair_class, weights=members.pair_records, minlength=n_classes)
    sensitive = {name: members.sensitive_counts(name, n_classes) for name in table.sensitive}
    record_class = None
    if table.record_class is not None:
        person = table.encoded.individual
        assert person is not None
        record_class = index[2 * table.record_class + removed.take(person)]
    out = ClassTable(
        table.encoded,
        table.node,
        table.keys[cells // 2],
        np.rint(sizes).astype(np.int64),
        sensitive,
        record_class,
        members,
    )
    return out, cells % 2 == 0


def needed_view(encoded: EncodedTable, configs: Sequence[ModelConfig]) -> EncodedTable:
    """The encoded table with only the sensitive attributes some model reads, so rollups do not
    re-aggregate counts nobody uses (k-anonymity alone needs none)."""
    used = {getattr(c, "attribute", None) for c in configs}
    sensitive = {n: c for n, c in encoded.sensitive.items() if n in used}
    return replace(encoded, sensitive=sensitive)


def subset_view(encoded: EncodedTable, columns: Sequence[int]) -> EncodedTable:
    """The encoded table projected on some quasi-identifiers (Incognito's attribute subsets)."""
    return replace(encoded, quasi_identifiers=[encoded.quasi_identifiers[j] for j in columns])


def project(table: ClassTable, columns: Sequence[int], view: EncodedTable) -> ClassTable:
    """The class table over some of ``table``'s quasi-identifiers (``view`` is the projected
    encoded table): classes that agree on those columns merge — the frequency set of an attribute
    subset, from a superset's instead of from the records."""
    cols = [table.keys[:, j] for j in columns]
    node = tuple(table.node[j] for j in columns)
    cards = [c.cardinality(level) for c, level in zip(view.quasi_identifiers, node, strict=True)]
    if cols:
        inverse, n_classes = group(cols, cards)
    else:
        inverse, n_classes = np.zeros(table.n_classes, dtype=np.int64), int(table.n_classes > 0)
    first = first_rows(inverse, n_classes)
    keys = np.empty((n_classes, len(cols)), dtype=np.int64, order="F")
    for j, c in enumerate(cols):
        keys[:, j] = c[first]
    sizes = np.bincount(inverse, weights=table.sizes, minlength=n_classes).astype(np.int64)
    names = [name for name in table.sensitive if name in view.sensitive]
    sensitive, members = merge_sensitive(table, inverse, n_classes, names)
    return ClassTable(view, node, keys, sizes, sensitive, None, members)


class NodeEvaluator:
    """Evaluates nodes of one encoded table (or projection) under the policy's models."""

    def __init__(
        self,
        encoded: EncodedTable,
        configs: Sequence[ModelConfig],
        limit: int,
        lower: Sequence[int] | None = None,
        root: ClassTable | None = None,
    ) -> None:
        self.encoded = needed_view(encoded, configs)
        self.configs = list(configs)
        self.limit = int(limit)
        registry = model_registry()
        classes = [registry[c.model] for c in self.configs]
        self.monotone_configs = [
            c for c, m in zip(self.configs, classes, strict=True) if m.monotone_with_suppression(c)
        ]
        self.other_configs = [c for c in self.configs if c not in self.monotone_configs]
        self.dependent_configs = [
            c for c, m in zip(self.configs, classes, strict=True) if m.table_dependent
        ]
        #: the largest k when k-anonymity is the only monotone model (a class is kept iff its
        #: size reaches it: ``KAnonymity.evaluate``), else None
        ks = [c.k for c in self.monotone_configs if c.model == "k-anonymity"]
        self._k_only = max(ks) if ks and len(ks) == len(self.monotone_configs) else None
        self.evaluations = 0
        #: each record's class in the root table (when this evaluator counted the root itself):
        #: the chosen node's record classes roll up from it (``records_table``)
        self._root_records: np.ndarray | None = None
        if root is None:
            at = tuple(lower) if lower is not None else self.encoded.bottom
            root = count(self.encoded, at, track_records=self.encoded.weights is None)
            # the search's rollups must not carry a class per record: kept apart
            self._root_records, root.record_class = root.record_class, None
        self._root = root
        root = root.node
        self._lower: Node = tuple(int(v) for v in root)
        self._heights: Node = tuple(int(v) for v in self.encoded.heights)
        # the cache of class tables: slots in parallel arrays, so finding the smallest cached
        # table below a node is one vectorised comparison
        width, cap = len(root), 64
        self._nodes = np.zeros((cap, width), dtype=np.int64)
        self._n_classes = np.zeros(cap, dtype=np.int64)
        self._valid = np.zeros(cap, dtype=bool)
        self._tables: list[ClassTable | None] = [None] * cap
        self._free = list(range(cap - 1, -1, -1))
        self._slot_of: dict[Node, int] = {}
        self._order: deque[int] = deque()
        # on a small lattice, the cache is also laid out as the lattice (class count and slot
        # of each cached node): the cached nodes below a node are then a box of that grid, one
        # slice and argmin, where the scan over the slots compares every cached node (and a
        # search caches thousands) on every evaluation
        shape = tuple(h - lo + 1 for h, lo in zip(self._heights, self._lower, strict=True))
        self._grid: np.ndarray | None = None
        if 0 < width <= _GRID_AXES and math.prod(shape) <= _GRID_NODES:
            self._grid = np.full(shape, _NONE, dtype=np.int64)
        #: per quasi-identifier and level: the slice of the grid at or below that level (built
        #: once: a search looks up a box per evaluation)
        self._below = [
            [slice(0, max(v - lo + 1, 0)) for v in range(h + 1)]
            for lo, h in zip(self._lower, self._heights, strict=True)
        ]
        self._cached_classes = 0

    @property
    def root(self) -> ClassTable:
        """The class table at the lattice's lower bound, counted from the records."""
        return self._root

    def records_table(self, node: Sequence[int]) -> ClassTable | None:
        """The class table at ``node`` with the class of every record (what a release needs),
        rolled up from the root's: one gather over the records instead of grouping them again
        (on 1 M rows ~10 ms instead of ~200 ms). None when the root tracks no records (weighted
        input, or a root given by the caller)."""
        if self._root_records is None:
            return None
        root = replace(self._root, record_class=self._root_records)
        node = tuple(int(v) for v in node)
        return root if node == root.node else rollup(root, node, validate=False)

    # ------------------------------------------------------------------ class tables
    def table(self, node: Sequence[int]) -> ClassTable:
        """The class table at ``node``, rolled up from the smallest cached table below it."""
        node = tuple(map(int, node))
        slot = self._slot_of.get(node)
        if slot is not None:
            return self._tables[slot]
        if (
            len(node) != len(self._lower)
            or not all(map(operator.le, self._lower, node))
            or not all(map(operator.le, node, self._heights))
        ):
            raise ValueError(f"node {node} is outside the lattice {self._lower}..{self._heights}")
        source = self._root
        if self._slot_of:
            best = self._smallest_below(node)
            if best >= 0 and self._n_classes[best] < source.n_classes:
                source = self._tables[best]
        # the node was checked above and the source is below it: rollup's own checks are
        # Python loops a search would pay on every evaluation
        table = rollup(source, node, validate=False) if node != source.node else source
        self._remember(node, table)
        return table

    def _smallest_below(self, node: Node) -> int:
        """The slot of the cached table with fewest classes at or below ``node`` (−1: none)."""
        if self._grid is not None:
            box = tuple([below[v] for below, v in zip(self._below, node, strict=True)])
            best = int(self._grid[box].min())
            return -1 if best == _NONE else best & _SLOT_MASK
        below = self._valid & (self._nodes <= np.asarray(node)).all(axis=1)
        if not below.any():
            return -1
        return int(np.argmin(np.where(below, self._n_classes, _NONE)))

    def _remember(self, node: Node, table: ClassTable) -> None:
        """Cache a table; the oldest go first once the cache holds too many classes."""
        if not self._free:
            grow = len(self._tables)
            self._nodes = np.vstack([self._nodes, np.zeros_like(self._nodes[:grow])])
            self._n_classes = np.concatenate([self._n_classes, np.zeros(grow, np.int64)])
            self._valid = np.concatenate([self._valid, np.zeros(grow, bool)])
            self._tables += [None] * grow
            self._free = list(range(2 * grow - 1, grow - 1, -1))
        slot = self._free.pop()
        self._nodes[slot] = node
        self._n_classes[slot] = table.n_classes
        self._valid[slot] = True
        self._tables[slot] = table
        self._slot_of[node] = slot
        if self._grid is not None:
            at = tuple([v - lo for v, lo in zip(node, self._lower, strict=True)])
            self._grid[at] = (table.n_classes << _SLOT_BITS) | slot
        self._order.append(slot)
        self._cached_classes += table.n_classes
        while self._cached_classes > _CACHE_CLASSES and len(self._order) > 1:
            old = self._order.popleft()
            self._cached_classes -= int(self._n_classes[old])
            self._valid[old] = False
            gone = tuple(int(v) for v in self._nodes[old])
            del self._slot_of[gone]
            if self._grid is not None:
                self._grid[tuple(v - lo for v, lo in zip(gone, self._lower, strict=True))] = _NONE
            self._tables[old] = None
            self._free.append(old)

    # ------------------------------------------------------------------ verdicts
    def evaluate(self, node: Sequence[int]) -> NodeOutcome:
        """The verdict at ``node`` (see the module docstring for the suppression semantics)."""
        self.evaluations += 1
        table = self.table(node)
        outcome, _ = self.verdict(table)
        return outcome

    def settle(self, table: ClassTable) -> tuple[ClassTable, NodeOutcome, np.ndarray]:
        """The verdict on a class table as a release reads it: the table the release is made
        from, the verdict, and which of that table's classes are kept. Counting records, the
        table is ``table``; counting people, it is ``table`` with each class split between the
        people kept and those suppressed (``split_by_people``), since suppressing a person
        takes their records out of every class they sit in."""
        if table.members is None:
            outcome, ok = self.verdict(table)
            return table, outcome, ok
        outcome, removed = self._people_verdict(table)
        if not removed.any():
            return table, outcome, np.ones(table.n_classes, dtype=bool)
        split, ok = split_by_people(table, removed)
        if outcome.kept is not None:
            outcome = replace(outcome, kept=ok)
        return split, outcome, ok

    def verdict(self, table: ClassTable) -> tuple[NodeOutcome, np.ndarray]:
        """The verdict on a class table and the kept-class mask of its fixed point (counting
        people: which classes keep every one of their people; ``settle`` gives the table a
        release reads)."""
        if table.members is not None:
            outcome, removed = self._people_verdict(table)
            m = table.members
            lost = np.bincount(m.pair_class[removed.take(m.pair_person)], minlength=table.n_classes)
            return outcome, lost == 0
        node, sizes, limit = table.node, table.sizes, self.limit
        if self._k_only is not None:  # k-anonymity's formula, without a model object per node
            ok = sizes >= self._k_only
        else:
            ok = np.ones(table.n_classes, dtype=bool)
            for ev in evaluate_models(table, self.monotone_configs):
                ok &= ev.class_ok
        violating = int(np.dot(sizes, ~ok))  # (exact integers; a third faster than a mask)
        if violating > limit:
            return NodeOutcome(node, False, False, False, violating, table.n_classes), ok
        suppressed = violating
        if self.other_configs:  # (else nothing more is suppressed: skip the passes)
            for ev in evaluate_models(table, self.other_configs):
                ok &= ev.class_ok
            suppressed = int(sizes[~ok].sum())
        if suppressed == 0:
            return NodeOutcome(node, True, True, True, 0, table.n_classes), ok
        if suppressed <= limit and self.dependent_configs:
            ok, suppressed = self._fixed_point(table, ok, suppressed)
        satisfied = suppressed <= limit and suppressed < table.n_records
        kept = ok if satisfied else None
        return NodeOutcome(node, satisfied, False, True, suppressed, table.n_classes, kept), ok

    def _people_verdict(self, table: ClassTable) -> tuple[NodeOutcome, np.ndarray]:
        """The verdict when classes count people, and the people it suppresses (a mask over
        person codes).

        A person is suppressed with all their records, wherever they sit: the people of the
        classes that violate a model go, which can leave other classes (where they also had
        records) violating in turn, so it iterates to a fixed point — first over the models
        monotone with suppression (whose fixed point only shrinks as the node is generalized:
        a coarser class holds every person of the finer classes it merges, so ``monotone_ok``
        carries up the lattice as it does for records), then over every model. The suppressed
        records are counted against the limit, which stays a fraction of records."""
        m = table.members
        assert m is not None
        node, limit, n = table.node, self.limit, table.n_classes
        removed = np.zeros(m.n_people, dtype=bool)
        if self._k_only is not None:  # k-anonymity's formula on the people counts
            people = table.people
            ok = people >= self._k_only
        else:
            ok = np.ones(n, dtype=bool)
            for ev in evaluate_models(table, self.monotone_configs):
                ok &= ev.class_ok
        clean = bool(ok.all())
        suppressed = 0
        if not clean:
            removed, suppressed = self._remove_people(
                table, ok, removed, self.monotone_configs, table
            )
        if suppressed > limit:
            return NodeOutcome(node, False, False, False, suppressed, n), removed
        if self.other_configs:
            current = table
            if removed.any():
                current, _ = without_people(table, removed)
            ok = np.ones(current.n_classes, dtype=bool)
            for ev in evaluate_models(current, self.configs):
                ok &= ev.class_ok
            if not ok.all():
                clean = False
                removed, suppressed = self._remove_people(current, ok, removed, self.configs, table)
        if clean:
            return NodeOutcome(node, True, True, True, 0, n), removed
        satisfied = suppressed <= limit and suppressed < table.n_records
        kept = np.ones(n, dtype=bool) if satisfied else None  # (``settle`` sets the split's)
        return NodeOutcome(node, satisfied, False, True, suppressed, n, kept), removed

    def _remove_people(
        self,
        table: ClassTable,
        ok: np.ndarray,
        removed: np.ndarray,
        configs: list[ModelConfig],
        whole: ClassTable,
    ) -> tuple[np.ndarray, int]:
        """Suppress the people of the classes not ``ok`` (of ``table``, from which the people
        in ``removed`` are gone already) and of every class that then violates ``configs``,
        until none does or more than the limit's records are suppressed. Returns the people
        removed and their records in ``whole`` (the node's table: every record counts)."""
        m = table.members
        assert m is not None and whole.members is not None
        removed = removed.copy()
        pair_class, pair_person = m.pair_class, m.pair_person
        k_only = self._k_only if configs is self.monotone_configs else None
        while True:
            removed[pair_person[~ok.take(pair_class)]] = True
            gone = removed.take(pair_person)
            suppressed = int(
                whole.members.pair_records[removed.take(whole.members.pair_person)].sum()
            )
            if suppressed > self.limit or gone.all():
                return removed, suppressed
            if k_only is not None:  # the people left per class, no table rebuilt
                people = np.bincount(pair_class[~gone], minlength=table.n_classes)
                ok = (people == 0) | (people >= k_only)
            else:
                current, live = without_people(table, removed)
                live_ok = np.ones(current.n_classes, dtype=bool)
                for ev in evaluate_models(current, configs):
                    live_ok &= ev.class_ok
                ok = np.ones(table.n_classes, dtype=bool)
                ok[live] = live_ok
            if ok.all():
                return removed, suppressed

    def _fixed_point(
        self, table: ClassTable, ok: np.ndarray, suppressed: int
    ) -> tuple[np.ndarray, int]:
        """Suppress until the table-dependent models hold on the kept classes (or the limit
        is exceeded)."""
        while suppressed <= self.limit and ok.any():
            kept = np.flatnonzero(ok)
            sub = select_classes(table, ok)
            sub_ok = np.ones(len(kept), dtype=bool)
            for ev in evaluate_models(sub, self.dependent_configs):
                sub_ok &= ev.class_ok
            if sub_ok.all():
                break
            ok = ok.copy()
            ok[kept[~sub_ok]] = False
            suppressed = int(table.sizes[~ok].sum())
        return ok, suppressed
