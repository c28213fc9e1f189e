"""The generalization lattice: numbering, neighbours, cones and minimal elements against
pairwise brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privcheck.lattice import Lattice


def test_race_zip_lattice_has_twelve_nodes():
    lat = Lattice([2, 3], names=["race", "zip"])
    assert lat.size == len(lat) == 12
    assert lat.bottom == (0, 0) and lat.top == (2, 3)
    assert next(iter(lat)) == (0, 0) and list(lat)[-1] == (2, 3)
    assert lat.successors((0, 1)) == [(1, 1), (0, 2)]
    assert lat.predecessors((1, 0)) == [(0, 0)]
    assert lat.height((1, 2)) == 3 and lat.max_height == 5
    assert lat.describe((0, 1)) == {"race": 0, "zip": 1}


def test_adult_lattice_sizes():
    assert Lattice([4, 1, 1, 2, 3, 2, 2, 1]).size == 4320  # ARX's set-up
    assert Lattice([4, 1, 1, 2, 3, 2, 2, 2]).size == 6480  # salary-class sensitive
    assert Lattice([4, 1, 1, 2, 3, 2, 2, 2, 1]).size == 12960  # all nine attributes


heights_st = st.lists(st.integers(0, 3), min_size=1, max_size=4)


@settings(max_examples=40, deadline=None)
@given(heights_st, st.data())
def test_numbering_neighbours_and_cones(heights, data):
    lower = tuple(data.draw(st.integers(0, h)) for h in heights)
    lat = Lattice(heights, lower)
    every = list(
        itertools.product(*[range(lo, h + 1) for lo, h in zip(lower, heights, strict=True)])
    )
    assert lat.size == len(every)
    assert sorted(lat.index(n) for n in every) == list(range(lat.size))
    for n in every:
        assert lat.node(lat.index(n)) == n
    assert [lat.node(i) for i in range(lat.size)] == sorted(every)  # index order is lexicographic
    walked = list(lat)
    assert sorted(walked) == sorted(every)
    assert [sum(n) for n in walked] == sorted(sum(n) for n in walked)
    node = data.draw(st.sampled_from(every))
    up = {m for m in every if all(a >= b for a, b in zip(m, node, strict=True))}
    down = {m for m in every if all(a <= b for a, b in zip(m, node, strict=True))}
    assert {lat.node(i) for i in np.flatnonzero(lat.up_mask(node))} == up
    assert {lat.node(i) for i in np.flatnonzero(lat.down_mask(node))} == down
    # the masks are boxes of the grid, clipped for a node below the lattice's lower bound
    anywhere = tuple(data.draw(st.integers(0, h)) for h in heights)
    ge = (lat.nodes >= np.asarray(anywhere)).all(axis=1)
    le = (lat.nodes <= np.asarray(anywhere)).all(axis=1)
    assert np.array_equal(lat.up_mask(anywhere), ge)
    assert np.array_equal(lat.down_mask(anywhere), le)
    tagged = np.zeros(lat.size, dtype=bool)
    lat.grid(tagged)[lat.up_box(anywhere)] = True
    assert np.array_equal(tagged, ge)
    assert lat.boxes_at(lat.index(node)) == (lat.up_box(node), lat.down_box(node))
    succ = {m for m in every if sum(m) == sum(node) + 1 and m in up}
    pred = {m for m in every if sum(m) == sum(node) - 1 and m in down}
    assert set(lat.successors(node)) == succ
    assert set(lat.predecessors(node)) == pred
    for j in range(lat.width):
        s = lat.successor_index(np.array([lat.index(node)]), j)[0]
        p = lat.predecessor_index(np.array([lat.index(node)]), j)[0]
        assert (s >= 0) == (node[j] < heights[j])
        assert (p >= 0) == (node[j] > lower[j])


@settings(max_examples=40, deadline=None)
@given(heights_st, st.data())
def test_closures_and_minimal_elements(heights, data):
    lat = Lattice(heights)
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=lat.size, max_size=lat.size)))
    nodes = [lat.node(i) for i in range(lat.size)]
    chosen = [nodes[i] for i in np.flatnonzero(mask)]

    def ge(a, b):
        return all(x >= y for x, y in zip(a, b, strict=True))

    up = np.array([any(ge(n, c) for c in chosen) for n in nodes])
    down = np.array([any(ge(c, n) for c in chosen) for n in nodes])
    minimal = np.array(
        [
            m and not any(c != n and ge(n, c) for c in chosen)
            for n, m in zip(nodes, mask, strict=True)
        ]
    )
    assert (lat.upward_closure(mask) == up).all()
    assert (lat.downward_closure(mask) == down).all()
    assert (lat.minimal(mask) == minimal).all()
    # what a node inherits from its up-set (the suppression floor of the trade-off front)
    values = np.array(data.draw(st.lists(st.integers(0, 99), min_size=lat.size, max_size=lat.size)))
    inherited = [max(v for c, v in zip(nodes, values, strict=True) if ge(c, n)) for n in nodes]
    assert lat.downward_reduce(values, np.maximum).tolist() == inherited


@settings(max_examples=30, deadline=None)
@given(heights_st, st.data())
def test_closures_above_a_lower_bound(heights, data):
    """The grid of a lattice restricted to a lower bound is smaller than the full one: the
    closures and minimal elements index it, not the full grid."""
    lower = tuple(data.draw(st.integers(0, h)) for h in heights)
    lat = Lattice(heights, lower)
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=lat.size, max_size=lat.size)))
    nodes = [lat.node(i) for i in range(lat.size)]
    chosen = [nodes[i] for i in np.flatnonzero(mask)]

    def ge(a, b):
        return all(x >= y for x, y in zip(a, b, strict=True))

    assert lat.upward_closure(mask).tolist() == [any(ge(n, c) for c in chosen) for n in nodes]
    assert lat.downward_closure(mask).tolist() == [any(ge(c, n) for c in chosen) for n in nodes]
    assert lat.minimal(mask).tolist() == [
        bool(m) and not any(c != n and ge(n, c) for c in chosen)
        for n, m in zip(nodes, mask, strict=True)
    ]


def test_restricted_lattice_and_bad_nodes():
    lat = Lattice([2, 3]).restricted((1, 2))
    assert lat.size == 4 and lat.bottom == (1, 2)
    assert (0, 3) not in lat
    with pytest.raises(ValueError, match="outside the lattice"):
        lat.index((0, 3))
    with pytest.raises(ValueError, match="outside the lattice"):
        Lattice([1, 1], lower=(2, 0))
