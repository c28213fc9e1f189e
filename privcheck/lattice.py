"""The full-domain generalization lattice: one level per quasi-identifier.

A node ``(l_1, …, l_q)`` generalizes quasi-identifier ``j`` to level ``l_j`` of its hierarchy.
Node ``a`` is a generalization of ``b`` (``a ≥ b``) when every level of ``a`` is at least the one
of ``b``; a node's successors raise one level by one, its predecessors lower one level by one.

Every search (MinGen, DataFly, Incognito) walks this lattice, so the lattice is numbered: a node's
index is its mixed-radix number (levels relative to ``lower``), which turns the sets the searches
keep — evaluated, satisfying, tagged — into boolean arrays, and the up-set / down-set of a node
into one vectorised comparison. ``lower`` lets a search start above the bottom (a release that
must coarsen a previous one, see ``--previous``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from functools import cached_property
from typing import Any

import numpy as np

Node = tuple[int, ...]

_INT64_MAX = 2**63 - 1
#: ``Lattice._shared`` keeps the numbering of lattices of at most this many nodes (a few MB),
#: for at most this many lattices (the oldest go first)
_SHARED_NODES = 1 << 16
_SHARED_LATTICES = 8
_SHARED: dict[tuple[Node, Node], dict[str, Any]] = {}


class Lattice:
    """Nodes between ``lower`` (default: all zeros) and ``heights`` (the top), inclusive."""

    def __init__(
        self,
        heights: Sequence[int],
        lower: Sequence[int] | None = None,
        names: Sequence[str] | None = None,
    ) -> None:
        self.heights: Node = tuple(int(h) for h in heights)
        self.lower: Node = (
            tuple(0 for _ in self.heights) if lower is None else tuple(int(v) for v in lower)
        )
        if len(self.lower) != len(self.heights):
            raise ValueError(f"lower bound {self.lower} does not match heights {self.heights}")
        for lo, h in zip(self.lower, self.heights, strict=True):
            if not 0 <= lo <= h:
                raise ValueError(f"lower bound {self.lower} is outside the lattice {self.heights}")
        self.names = list(names) if names is not None else [f"q{j}" for j in range(self.width)]
        #: levels per quasi-identifier inside the lattice
        self.shape: Node = tuple(h - lo + 1 for h, lo in zip(self.heights, self.lower, strict=True))
        # Python products: numpy's int64 ones wrap around (with a warning) for a wide policy,
        # 64 levels ** 11; a lattice that large is refused by the searches before any use
        strides = [1] * self.width
        for j in range(self.width - 2, -1, -1):
            strides[j] = strides[j + 1] * self.shape[j + 1]
        self._strides = strides
        self.strides = np.array([min(s, _INT64_MAX) for s in strides], dtype=np.int64)
        self.size = math.prod(self.shape)

    # ------------------------------------------------------------------ basics
    @property
    def width(self) -> int:
        """Number of quasi-identifiers."""
        return len(self.heights)

    @property
    def bottom(self) -> Node:
        return self.lower

    @property
    def top(self) -> Node:
        return self.heights

    def __len__(self) -> int:
        return self.size

    def __contains__(self, node: object) -> bool:
        if not isinstance(node, tuple | list) or len(node) != self.width:
            return False
        return all(lo <= v <= h for v, lo, h in zip(node, self.lower, self.heights, strict=True))

    def index(self, node: Sequence[int]) -> int:
        """Position of ``node`` in the numbering."""
        if tuple(node) not in self:
            raise ValueError(f"node {tuple(node)} is outside the lattice {self.lower}..{self.top}")
        # exact in Python integers: a greedy search may walk a lattice beyond 2^63 nodes
        return sum(
            (int(v) - lo) * s for v, lo, s in zip(node, self.lower, self._strides, strict=True)
        )

    def node(self, index: int) -> Node:
        """The node numbered ``index``."""
        return tuple(self.nodes[int(index)].tolist())

    def _shared(self, name: str, make: Callable[[], Any]) -> Any:
        """``make()``, memoised for every lattice of the same levels and lower bound (read-only
        arrays): each search builds its own lattice, and a repeated search on the same policy
        need not number and layer the nodes again. Small lattices only (``_SHARED_NODES``)."""
        if self.size > _SHARED_NODES:
            return make()
        key = (self.heights, self.lower)
        entry = _SHARED.get(key)
        if entry is None:
            if len(_SHARED) >= _SHARED_LATTICES:
                _SHARED.pop(next(iter(_SHARED)))
            entry = _SHARED[key] = {}
        hit = entry.get(name)
        if hit is None:
            hit = entry[name] = make()
            for array in hit if isinstance(hit, tuple) else (hit,):
                array.flags.writeable = False
        return hit

    @cached_property
    def nodes(self) -> np.ndarray:
        """Every node as a row of absolute levels, in index order (``size × width``)."""

        def make() -> np.ndarray:
            if self.width == 0:
                return np.zeros((1, 0), dtype=np.int64)
            grids = np.indices(self.shape, dtype=np.int64).reshape(self.width, -1).T
            return grids + np.asarray(self.lower, dtype=np.int64)

        return self._shared("nodes", make)

    @cached_property
    def node_heights(self) -> np.ndarray:
        """Height (sum of levels) of every node."""
        return self._shared("heights", lambda: self.nodes.sum(axis=1))

    def height(self, node: Sequence[int]) -> int:
        """A node's height: the sum of its levels (ARX's "height")."""
        return int(sum(node))

    @property
    def max_height(self) -> int:
        return int(sum(self.heights))

    @cached_property
    def layers(self) -> list[np.ndarray]:
        """Node indices grouped by height, from the bottom's height to the top's."""

        def make() -> tuple[np.ndarray, ...]:
            h = self.node_heights - sum(self.lower)
            order = np.argsort(h, kind="stable")
            bounds = np.searchsorted(h[order], np.arange(int(h.max(initial=0)) + 2))
            return tuple(order[bounds[i] : bounds[i + 1]] for i in range(len(bounds) - 1))

        return list(self._shared("layers", make))

    def __iter__(self) -> Iterator[Node]:
        """Nodes bottom-up (by height, then index)."""
        for layer in self.layers:
            for i in layer:
                yield self.node(i)

    # ------------------------------------------------------------------ neighbours
    def successors(self, node: Sequence[int]) -> list[Node]:
        """Nodes one level coarser in exactly one quasi-identifier."""
        out = []
        for j, (v, h) in enumerate(zip(node, self.heights, strict=True)):
            if v < h:
                out.append((*node[:j], v + 1, *node[j + 1 :]))
        return out

    def predecessors(self, node: Sequence[int]) -> list[Node]:
        """Nodes one level finer in exactly one quasi-identifier (inside the lattice)."""
        out = []
        for j, (v, lo) in enumerate(zip(node, self.lower, strict=True)):
            if v > lo:
                out.append((*node[:j], v - 1, *node[j + 1 :]))
        return out

    def successor_index(self, indices: np.ndarray, j: int) -> np.ndarray:
        """Index of each node's successor in quasi-identifier ``j`` (−1 at the top level)."""
        can = self.nodes[indices, j] < self.heights[j]
        return np.where(can, indices + self.strides[j], -1)

    def predecessor_index(self, indices: np.ndarray, j: int) -> np.ndarray:
        """Index of each node's predecessor in quasi-identifier ``j`` (−1 at the lower bound)."""
        can = self.nodes[indices, j] > self.lower[j]
        return np.where(can, indices - self.strides[j], -1)

    # ------------------------------------------------------------------ sets of nodes
    def up_mask(self, node: Sequence[int]) -> np.ndarray:
        """Nodes that generalize ``node`` (itself included)."""
        out = np.zeros(self.shape, dtype=bool)
        out[self.up_box(node)] = True
        return out.reshape(-1)

    def down_mask(self, node: Sequence[int]) -> np.ndarray:
        """Nodes that ``node`` generalizes (itself included)."""
        out = np.zeros(self.shape, dtype=bool)
        out[self.down_box(node)] = True
        return out.reshape(-1)

    def up_box(self, node: Sequence[int]) -> tuple[slice, ...]:
        """The up-set of ``node`` as slices of ``grid``: in the mixed-radix numbering a node's
        up-set (down-set) is a box, so a search tags it with one slice assignment instead of
        comparing every node of the lattice with ``node``."""
        return tuple(slice(max(v - lo, 0), None) for v, lo in zip(node, self.lower, strict=True))

    def down_box(self, node: Sequence[int]) -> tuple[slice, ...]:
        """The down-set of ``node`` as slices of ``grid`` (see ``up_box``)."""
        return tuple(slice(0, max(v - lo + 1, 0)) for v, lo in zip(node, self.lower, strict=True))

    def boxes_at(self, index: int) -> tuple[tuple[slice, ...], tuple[slice, ...]]:
        """``(up_box, down_box)`` of the node numbered ``index``, from per-level slices built
        once: a search tags a cone per evaluated node, and building the slices node by node was
        most of the tagging's cost."""
        levels = self.nodes[int(index)].tolist()
        ups, downs = self._level_slices
        return (
            tuple([s[v] for s, v in zip(ups, levels, strict=True)]),
            tuple([s[v] for s, v in zip(downs, levels, strict=True)]),
        )

    @cached_property
    def _level_slices(self) -> tuple[list[list[slice]], list[list[slice]]]:
        """Per quasi-identifier and level (inside the lattice): the up-set and down-set slice."""
        ups = [
            [slice(max(v - lo, 0), None) for v in range(h + 1)]
            for lo, h in zip(self.lower, self.heights, strict=True)
        ]
        downs = [
            [slice(0, max(v - lo + 1, 0)) for v in range(h + 1)]
            for lo, h in zip(self.lower, self.heights, strict=True)
        ]
        return ups, downs

    def grid(self, mask: np.ndarray) -> np.ndarray:
        """A per-node array viewed with one axis per quasi-identifier (levels above ``lower``):
        writes through the view land in ``mask`` (which must be contiguous)."""
        if not mask.flags.c_contiguous:  # reshape would copy, and writes would be lost
            raise ValueError("grid needs a contiguous per-node array")
        return mask.reshape(self.shape)

    def upward_closure(self, mask: np.ndarray) -> np.ndarray:
        """``mask`` plus every generalization of a node in it.

        A node's up-set is the box from it to the top, so the closure is a running OR along
        each axis of the grid in turn (``_running``)."""
        return self._running(np.asarray(mask, dtype=bool), np.logical_or, upwards=True)

    def downward_closure(self, mask: np.ndarray) -> np.ndarray:
        """``mask`` plus every specialization of a node in it (running ORs from the top)."""
        return self.downward_reduce(np.asarray(mask, dtype=bool), np.logical_or)

    def downward_reduce(self, values: np.ndarray, ufunc: np.ufunc) -> np.ndarray:
        """Per node, ``ufunc`` (``np.maximum``, ``np.logical_or``, …: associative and commutative)
        reduced over the node's up-set — itself and every generalization of it: what a node
        inherits from the nodes above it. A running reduction along each axis of the grid,
        from the top down."""
        return self._running(np.asarray(values), ufunc, upwards=False)

    def _running(self, values: np.ndarray, ufunc: np.ufunc, *, upwards: bool) -> np.ndarray:
        """``values`` (one per node) with a running ``ufunc`` along each axis of the grid in
        turn: upwards each level takes in the one below it, downwards the one above. One
        vectorised step per level of each quasi-identifier (a grid's axes are short, and
        ``ufunc.accumulate`` along an inner axis of a many-axis array was four times slower)."""
        grid = np.array(values).reshape(self.shape)  # (a copy: written level by level)
        index = [slice(None)] * self.width
        for axis, levels in enumerate(self.shape):
            steps = range(1, levels) if upwards else range(levels - 2, -1, -1)
            for level in steps:
                # one-level slices, not integers: views even of a one-axis grid
                other = level - 1 if upwards else level + 1
                index[axis] = slice(other, other + 1)
                previous = grid[tuple(index)]
                index[axis] = slice(level, level + 1)
                current = grid[tuple(index)]
                ufunc(current, previous, out=current)
            index[axis] = slice(None)
        return grid.reshape(-1)

    def minimal(self, mask: np.ndarray) -> np.ndarray:
        """Nodes of ``mask`` that generalize no other node of ``mask`` (its minimal elements):
        those with no predecessor in the upward closure of ``mask``."""
        mask = np.asarray(mask, dtype=bool)
        closure = self.upward_closure(mask).reshape(self.shape)
        strictly_above = np.zeros(self.shape, dtype=bool)
        for axis in range(self.width):
            # a node's predecessor in this attribute sits one step back along its axis
            into = [slice(None)] * self.width
            into[axis] = slice(1, None)
            frm = [slice(None)] * self.width
            frm[axis] = slice(None, -1)
            strictly_above[tuple(into)] |= closure[tuple(frm)]
        return mask & ~strictly_above.reshape(-1)

    def generalizes(self, a: Sequence[int], b: Sequence[int]) -> bool:
        """Whether ``a`` is a generalization of (or equal to) ``b``."""
        return all(x >= y for x, y in zip(a, b, strict=True))

    def restricted(self, lower: Sequence[int]) -> Lattice:
        """The sub-lattice of the nodes that generalize ``lower``."""
        return Lattice(self.heights, lower, self.names)

    def describe(self, node: Sequence[int]) -> dict[str, int]:
        """A node as ``{quasi-identifier: level}``."""
        return {n: int(v) for n, v in zip(self.names, node, strict=True)}
