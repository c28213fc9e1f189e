"""Re-identification risk before and after an anonymization, for its report.

Before: the input's equivalence classes at ground values, as ``privcheck check`` groups the raw
data. After: the release's classes as ``privcheck check`` forms them from the written file — read
off the class table the anonymizer's own re-check judged (``Report._judged``, set by
``checker.check_table``), so suppressed records (left out, or ``*`` rows) do not count and a
``*`` cell is read per the policy's ``suppressed_cells``. Both are class tables; the figures
come from ``privcheck.risk.population.prosecutor``, which ``privcheck compare`` can share.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from privcheck.checker import JudgedClasses, judged_classes
from privcheck.classes import ClassTable, count, group
from privcheck.encoding import EncodedTable
from privcheck.policy import Attribute, Policy
from privcheck.report import AnonymizationReport, ProsecutorRisk, RiskProfile, SizeHistogram
from privcheck.risk.population.prosecutor import (
    RISK_BINS,
    policy_k,
    prosecutor_risk,
    risk_histogram,
    size_distribution,
    threshold,
)

if TYPE_CHECKING:
    import pandas as pd


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


def attach_risk(
    report: AnonymizationReport, policy: Policy, before: JudgedClasses | None
) -> AnonymizationReport:
    """Fill ``risk_before``, ``risk_after`` and ``risk_profile`` of an anonymization report
    from the input's classes (``before``) and the classes its re-check judged."""
    after: JudgedClasses | None = getattr(report.check, "_judged", None)
    k = policy_k(policy.models)
    if before is not None:
        report.risk_before = ProsecutorRisk(**prosecutor_risk(before.sizes, before.records, k))
    if after is not None:
        report.risk_after = ProsecutorRisk(**prosecutor_risk(after.sizes, after.records, k))
    if before is not None and after is not None:
        report.risk_profile = RiskProfile(
            threshold=threshold(k),
            k=k,
            suppressed_cells=policy.suppressed_cells,
            risk_bins=list(RISK_BINS),
            records_before=risk_histogram(before.sizes, before.records),
            records_after=risk_histogram(after.sizes, after.records),
            class_sizes_before=SizeHistogram(**size_distribution(before.sizes, before.records)),
            class_sizes_after=SizeHistogram(**size_distribution(after.sizes, after.records)),
        )
    return report
