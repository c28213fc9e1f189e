"""Explaining re-identification risk: which quasi-identifier combinations make records unique, and
how much each quasi-identifier contributes.

Two views, both computed on the check's class table (no pass over the records beyond what the
check did):

- **minimal sample uniques** (``privcheck.risk.population.suda``): for every sample-unique
  record, the smallest combinations of quasi-identifiers on which it is unique, with Elliot's
  SUDA score; the combinations are ranked by how many records they single out;
- **each quasi-identifier's contribution**: the risk figures — sample uniques, prosecutor average
  risk #classes / n, records in classes smaller than the policy's k — with the quasi-identifier
  dropped, and with it generalized one level of its hierarchy. Dropping is the upper bound of what
  generalizing it can achieve; one level is the cheapest step an anonymizer could take.

Generalizing needs the column's values to be the hierarchy's ground values (an already generalized
release cannot be moved "one level" without knowing which level each label is at); otherwise the
contribution says why it is missing.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from privcheck.classes import ClassTable, count, first_rows, group
from privcheck.encoding import encode, encode_column
from privcheck.errors import PrivcheckError
from privcheck.io import read_table
from privcheck.policy import Policy, load_policy
from privcheck.report import (
    Explanation,
    MSUGroup,
    QIContribution,
    RecordExplanation,
    RiskFigures,
)
from privcheck.risk.population.suda import popcount, suda2

#: combinations and records listed (counts are always complete)
TOP = 10
#: example records per combination
EXAMPLES = 3


def risk_figures(sizes: np.ndarray, n_records: int, k: int | None) -> RiskFigures:
    """Sample uniques, #classes / n and records below k of a table with these class sizes."""
    sizes = np.asarray(sizes, dtype=np.int64)
    return RiskFigures(
        sample_uniques=int(sizes[sizes == 1].sum()),
        n_classes=len(sizes),
        average_risk=len(sizes) / n_records if n_records else 0.0,
        records_below_k=None if k is None else int(sizes[sizes < k].sum()),
    )


def policy_k(policy: Policy) -> int | None:
    """The largest k of the policy's k-anonymity (and (α,k)) models, if any."""
    ks = [int(m.k) for m in policy.models if m.model in ("k-anonymity", "alpha-k-anonymity")]
    return max(ks) if ks else None


def _regroup(table: ClassTable, columns: list[np.ndarray], cards: list[int]) -> np.ndarray:
    """Class sizes after grouping the classes by other key columns."""
    if not columns:
        return np.array([table.n_records], dtype=np.int64) if table.n_classes else np.zeros(0)
    inverse, n = group(columns, cards)
    return np.bincount(inverse, weights=table.sizes, minlength=n).astype(np.int64)


def _class_of_rows(table: ClassTable) -> np.ndarray:
    """Each input row's class (the table's own, or the group-by ``count`` does)."""
    if table.record_class is not None:
        return table.record_class
    qis = table.encoded.quasi_identifiers
    cols = [c.codes_at(level) for c, level in zip(qis, table.node, strict=True)]
    cards = [c.cardinality(level) for c, level in zip(qis, table.node, strict=True)]
    inverse, _ = group(cols, cards)
    return inverse


def _one_level_up(
    table: ClassTable, j: int, frame: pd.DataFrame | None, policy: Policy, rows: np.ndarray
) -> tuple[np.ndarray | None, int, str | None]:
    """Column j of the class keys generalized one level (codes, cardinality) or why not."""
    col = table.encoded.quasi_identifiers[j]
    attr = policy.attributes[col.name]
    if attr.hierarchy is None:
        return None, 0, "no hierarchy"
    if frame is None:
        return None, 0, "no data to read the hierarchy against"
    try:
        ground = encode_column(frame[col.name], col.name, attr, policy)
    except PrivcheckError:
        return None, 0, "the values are not the hierarchy's ground values (already generalized?)"
    if ground.height < 1:
        return None, 0, "the hierarchy has a single level"
    level1 = ground.levels.maps[1]
    per_class = level1[ground.codes[rows]]
    return per_class, ground.cardinality(1), None


def explain_table(
    table: ClassTable,
    policy: Policy,
    frame: pd.DataFrame | None = None,
    *,
    max_size: int | None = None,
    top: int = TOP,
    k: int | None = None,
) -> Explanation:
    """The explanation of a class table's risk (see the module docstring).

    ``frame`` (the checked data, rows aligned with the table's encoding) is needed only to
    generalize quasi-identifiers along their hierarchies; ``k`` defaults to the policy's.
    """
    started = time.perf_counter()
    k = policy_k(policy) if k is None else k
    qis = table.encoded.quasi_identifiers
    names = [c.name for c in qis]
    m, n = len(qis), table.n_records
    cards = [c.cardinality(level) for c, level in zip(qis, table.node, strict=True)]
    keys = np.asarray(table.keys, dtype=np.int64)
    suda = suda2(keys, table.sizes, cards, max_size)
    class_score = suda.class_scores()
    contributions_pct = suda.attribute_contributions()
    msu_sizes = suda.msu_sizes()

    row_class = _class_of_rows(table)
    first = first_rows(row_class, table.n_classes)
    track_rows = table.encoded.weights is None

    contributions = []
    for j in range(m):
        others = [keys[:, i] for i in range(m) if i != j]
        dropped = risk_figures(
            _regroup(table, others, [cards[i] for i in range(m) if i != j]), n, k
        )
        up, card, note = _one_level_up(table, j, frame, policy, first)
        generalized = None
        if up is not None:
            cols = [keys[:, i] if i != j else up for i in range(m)]
            cs = [cards[i] if i != j else card for i in range(m)]
            generalized = risk_figures(_regroup(table, cols, cs), n, k)
        contributions.append(
            QIContribution(
                attribute=names[j],
                suda_share=float(contributions_pct[j]),
                msus=int(((suda.msu_mask >> j) & 1).sum()),
                dropped=dropped,
                generalized=generalized,
                generalized_note=note,
            )
        )

    groups = []
    masks, counts = suda.subset_counts()
    order = np.lexsort((masks, popcount(masks), -counts))[: max(top, 0)]
    for i in order:
        mask = int(masks[i])
        cols = [j for j in range(m) if mask >> j & 1]
        classes = suda.msu_class[suda.msu_mask == mask][:EXAMPLES]
        labels = table.class_labels(classes)
        groups.append(
            MSUGroup(
                attributes=[names[j] for j in cols],
                records=int(counts[i]),
                score=float(suda.weights[len(cols) - 1]),
                examples=[{names[j]: lab[names[j]] for j in cols} for lab in labels],
                rows=[int(first[c]) for c in classes] if track_rows else [],
            )
        )

    records = []
    scored = np.flatnonzero(class_score > 0)
    best = scored[np.lexsort((scored, -class_score[scored]))][: max(top, 0)]
    by_class = np.argsort(suda.msu_class, kind="stable")
    starts = np.searchsorted(suda.msu_class[by_class], best)
    ends = np.searchsorted(suda.msu_class[by_class], best, side="right")
    for c, lab, a, b in zip(best, table.class_labels(best), starts, ends, strict=True):
        msus = sorted(
            (int(msu_sizes[x]), [names[j] for j in range(m) if suda.msu_mask[x] >> j & 1])
            for x in by_class[a:b]
        )
        records.append(
            RecordExplanation(
                row=int(first[c]) if track_rows else None,
                score=float(class_score[c]),
                values=lab,
                msus=[attrs for _, attrs in msus],
            )
        )

    by_size = np.bincount(msu_sizes, minlength=suda.max_size + 1)[1 : suda.max_size + 1]
    return Explanation(
        quasi_identifiers=names,
        n_records=n,
        max_size=suda.max_size,
        complete=suda.complete,
        k=k,
        current=risk_figures(table.sizes, n, k),
        msu_total=len(suda.msu_mask),
        msu_by_size=[int(v) for v in by_size],
        records_with_msu=int((class_score > 0).sum()),
        total_score=float(class_score.sum()),
        highest_score=float(class_score.max()) if len(class_score) else 0.0,
        contributions=contributions,
        msus=groups,
        records=records,
        seconds=round(time.perf_counter() - started, 4),
    )


def explain(
    data: pd.DataFrame | str | Path,
    policy: Policy | dict | str | Path,
    *,
    max_size: int | None = None,
    top: int = TOP,
    k: int | None = None,
) -> Explanation:
    """Explain what makes the records of ``data`` re-identifiable under ``policy``'s
    quasi-identifiers: their minimal sample uniques and each quasi-identifier's contribution.

    ``max_size`` bounds the MSU size searched (SUDA's maxK; default: every size while the subsets
    number at most 4,095); ``top`` caps the combinations and records listed; ``k`` (default: the
    policy's k-anonymity k) is the class size below which records count as at risk.
    """
    policy = load_policy(policy)
    frame = read_table(data)
    table = count(encode(frame, policy, as_released=True))
    return explain_table(table, policy, frame, max_size=max_size, top=top, k=k)
