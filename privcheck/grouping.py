"""Grouping rows by integer code columns: the combined key and its dense group ids.

What every class table is made of (``privcheck.classes.count``, the anonymizers' released
rows): a mixed-radix key over the code columns, numbered densely in key order (a byte mask
over a small key space, a sort or pandas' hash beyond), so that a result never depends on row
order.
"""

from __future__ import annotations

import sys

import numpy as np

from privcheck.encoding import CODE_DTYPE

_KEY_LIMIT = 1 << 62

#: a dense bincount over the key space is used while it has at most this many cells, or
#: ``_DENSE_PER_ROW`` cells per row; a sort is cheaper beyond (a search rolls up many small tables)
_DENSE_LIMIT = 1 << 15

_DENSE_PER_ROW = 8

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
    return inverse, len(uniq), decode_keys(np.asarray(uniq, dtype=np.int64), cards, space)


def decode_keys(combined: np.ndarray, cards: list[int], space: int) -> np.ndarray:
    """The mixed-radix digits of the combined keys ``combined`` (over ``cards``, last column
    fastest; their product is ``space``), column-major in the codes' dtype, as ``_stack_keys``
    lays out.

    The digits are peeled off from the last column, each by one division by a Python int —
    numpy divides by a scalar with a multiplication, several times faster than a ``divmod`` or
    a division by an array of radices — in int32 when the key space allows (half the cost
    again); a column at a one-value level is zeros, and the first column is what remains.
    """
    keys = np.empty((len(combined), len(cards)), dtype=CODE_DTYPE, order="F")
    rest = combined.astype(np.int32) if space <= np.iinfo(np.int32).max else combined
    for j in range(len(cards) - 1, 0, -1):
        base = int(cards[j])
        if base <= 1:
            keys[:, j] = 0
            continue
        quotient = rest // base
        np.subtract(rest, quotient * base, out=keys[:, j], casting="unsafe")
        rest = quotient
    if len(cards):
        keys[:, 0] = rest
    return keys


def first_rows(inverse: np.ndarray, n_groups: int) -> np.ndarray:
    """Index of the first row of each group."""
    first = np.empty(n_groups, dtype=np.int64)
    first[inverse[::-1]] = np.arange(len(inverse) - 1, -1, -1)
    return first
