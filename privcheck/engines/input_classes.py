"""The input's equivalence classes, counted where the data lives: what an anonymization
report's risk before is read off (``privcheck.pipeline.risk_profile.attach_risk``).

At ground values, as ``privcheck check`` groups the raw data (``ground_classes``); for a
masking method's release, the raw values grouped as its check groups the masked ones
(``raw_classes``). None when the engine generalized the rows before counting them (its input
classes are not known). Every engine's ``release`` sets ``Release.before`` from here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from privcheck.checker import JudgedClasses, judged_classes
from privcheck.classes import ClassTable, count, group
from privcheck.encoding import EncodedTable
from privcheck.plan import Plan, ValueRecoding, release_policy
from privcheck.policy import Attribute, Policy

if TYPE_CHECKING:
    import pandas as pd

    from privcheck.engines.base import Source


def input_classes(source: Source, plan: Plan, policy: Policy) -> JudgedClasses | None:
    """The classes of ``source`` the risk before ``plan``'s release is measured on."""
    if isinstance(plan.recoding, ValueRecoding):  # the raw values, grouped as a check would
        return raw_classes(source.rows, release_policy(policy, keep_hierarchies=False))
    if source.ground:
        return ground_classes(source.encoded, policy, source.rows, plan.ground_table)
    return None  # the engine generalized the rows first: the input's classes are not known


def ground_classes(
    encoded: EncodedTable,
    policy: Policy,
    data: pd.DataFrame | None = None,
    table: ClassTable | None = None,
) -> JudgedClasses:
    """The input's classes at ground values as ``check`` groups the raw data.

    ``table``: a class table the anonymizer already counted; used when it is at the ground
    node. Otherwise the quasi-identifiers' ground codes are grouped (one ``classes.group``).
    A top- or bottom-coded quasi-identifier's ground codes are the coded values (the coding runs
    in ``encode``), while a check groups raw values as they stand: its raw column from ``data``
    is factorized instead. Under ``suppressed_cells: wildcard`` a ``*`` in the raw data matches
    every value, as in a check.
    """
    bottom = encoded.bottom
    if table is not None and tuple(table.node) == bottom and not _coded(policy, encoded):
        return judged_classes(table, policy)
    columns, cards = [], []
    for col in encoded.quasi_identifiers:
        attr = policy.attributes.get(col.name)
        if data is not None and attr is not None and _has_coding(attr):
            import pandas as pd  # (a coded column: the anonymizers' path, pandas is loaded)

            codes, uniques = pd.factorize(data[col.name], use_na_sentinel=False)
            columns.append(codes.astype(np.int64))
            cards.append(max(len(uniques), 1))
        else:
            columns.append(col.codes)
            cards.append(col.cardinality(0))
    if not columns:  # no quasi-identifier: one class of every record
        n = encoded.n_records
        sizes = np.array([n] if n else [], dtype=np.int64)
        return JudgedClasses(sizes, sizes)
    if policy.suppressed_cells == "wildcard" and _stars_at_ground(encoded):
        return judged_classes(count(encoded, bottom, track_records=False), policy)
    inverse, n_groups = group(columns, cards)
    records = np.bincount(inverse, weights=encoded.weights, minlength=n_groups)
    records = np.rint(records).astype(np.int64)
    records = records[records > 0]  # (zero-weight rows of an engine's counts)
    return JudgedClasses(records, records)


def raw_classes(data: pd.DataFrame, policy: Policy) -> JudgedClasses:
    """The classes of a raw table exactly as ``check`` forms them: its quasi-identifiers encoded
    as they stand, under ``policy`` (the masking methods' check of their release groups the
    masked values with the policy their release is checked under; so are the raw ones)."""
    from privcheck.encoding import encode

    encoded = encode(data, policy, as_released=True, sensitive=())
    return judged_classes(count(encoded, track_records=False), policy)


def _has_coding(attr: Attribute) -> bool:
    """Top or bottom coding (``privcheck.topcoding.has_coding``, without importing pandas)."""
    return attr.top_coding is not None or attr.bottom_coding is not None


def _coded(policy: Policy, encoded: EncodedTable) -> bool:
    return any(
        _has_coding(policy.attributes[c.name])
        for c in encoded.quasi_identifiers
        if c.name in policy.attributes
    )


def _stars_at_ground(encoded: EncodedTable) -> bool:
    from privcheck.hierarchy import TOP

    return any(
        (np.asarray(c.levels.labels[0], dtype=object) == TOP).any()
        for c in encoded.quasi_identifiers
    )
