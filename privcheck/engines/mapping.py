"""What a plan releases for each distinct combination of the rows: the product an engine joins back.

An engine (Spark) keeps the rows; privcheck sees only their class table — the engine's group-by
counts, encoded with weights (``privcheck.engines``). A plan (``privcheck.plan``) made on that
table says, without the rows, what the release shows for the records of each distinct
combination of it; the engine then writes the release by joining this *mapping* back onto the
rows (``privcheck.engines.release``). Two shapes, one per recoding:

- ``NodeMapping`` (full-domain generalization): every quasi-identifier is recoded on its own
  (distinct value → its label at the chosen node), and the records of the classes that violate
  the policy at the node are suppressed — left out, or written as ``*``.
- ``CombinationMapping`` (Mondrian, local suppression): the recoding is of combinations, and the
  records of one combination may be released differently (relaxed Mondrian divides a
  combination between two partitions; local suppression blanks 1 of 4 records). Each distinct
  key combination of the aggregated frame belongs to one *group*; a group's records are released
  as its *units* in turn — unit ``u`` takes the records ranked ``start ≤ r < stop`` within the
  group, in input order. The pandas release ranks them the same way (in the order of the rows),
  so an engine that ranks them in its read order writes the same rows when it reads them in the
  same order.

Both are small: one row per distinct combination (or value), never per record.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from privcheck.classes import ClassTable
from privcheck.encoding import EncodedTable, string_labels
from privcheck.plan import SUPPRESSED, CombinationRecoding, NodeRecoding
from privcheck.policy import Policy

#: column names of a ``CombinationMapping``'s frames (they cannot meet a data column's)
GROUP = "__privcheck_group"
START = "__privcheck_start"
STOP = "__privcheck_stop"
#: per quasi-identifier, the released value as the pandas release's ``string_labels`` reads it
#: (``CombinationMapping.raw``/``written``: only when changed cells must be counted by the engine)
RAW = "__privcheck_raw:"
WRITTEN = "__privcheck_written:"


@dataclass(eq=False)
class NodeMapping:
    """A full-domain node's release: ``labels[q]`` = (the distinct values of quasi-identifier
    ``q`` in the aggregated frame, their labels at the node); ``violating[q]`` the labels of
    ``q`` in each class whose records are suppressed (one entry per class, aligned)."""

    labels: dict[str, tuple[pd.Series, pd.Series]]
    violating: dict[str, np.ndarray]
    #: rows the release has (kept records, or all of them under ``suppressed_records: star``)
    n_released_rows: int
    #: rows the engine's re-check reads (the kept records)
    n_checked_rows: int
    #: kept records whose every released value is ``*`` (a check reads them as suppressed)
    starred_kept: bool = False


@dataclass(eq=False)
class CombinationMapping:
    """A release keyed by combinations (see the module docstring).

    ``groups``: the ``keys`` columns (values as the aggregated frame holds them; one row per
    distinct combination) and ``GROUP``. ``units``: ``GROUP``, ``START``, ``STOP`` and one column
    per quasi-identifier with the value released (a string, or — for a quasi-identifier the
    release leaves as its ground values — a value of the source column's type); sorted by group,
    then rank. Suppressed records appear as units with every quasi-identifier ``*``.
    """

    keys: list[str]
    qis: list[str]
    groups: pd.DataFrame
    units: pd.DataFrame
    n_released_rows: int
    #: the rows of the aggregated frame ``groups`` was taken from (the first of each key)
    key_rows: np.ndarray
    #: kept records whose every released value is ``*`` (a check reads them as suppressed)
    starred_kept: bool = False
    #: when the changed cells (``AnonymizationReport.changed_cells``) depend on which records of
    #: a group each unit takes, the engine counts them: ``groups`` then holds ``RAW + q`` (the
    #: input value as a string) and ``units`` ``WRITTEN + q`` (the released value as a string)
    count_changed: bool = False
    #: what the release changed, when the driver could tell (else the engine counts it)
    changed_cells: int | None = None

    @property
    def ranked(self) -> bool:
        """Whether some group's records are released as more than one unit."""
        return bool(len(self.units)) and bool(self.units[GROUP].duplicated().any())


def combination_mapping(
    data: pd.DataFrame,
    keys: list[str],
    row_group: np.ndarray,
    unit_group: np.ndarray,
    unit_size: np.ndarray,
    released: dict[str, np.ndarray],
    *,
    starred_kept: bool = False,
) -> CombinationMapping:
    """The mapping of ``data`` (the aggregated frame) whose row ``i`` belongs to group
    ``row_group[i]``, and whose groups' records are released as the units given in the order
    they take them (``unit_group``, ``unit_size``; ``released[q]`` the value of each unit)."""
    at = np.flatnonzero(~data[keys].duplicated().to_numpy()) if keys else np.zeros(1, np.int64)
    at = at[: len(data)]
    groups = data[keys].iloc[at].reset_index(drop=True)
    groups[GROUP] = np.asarray(row_group, dtype=np.int64)[at]
    live = np.flatnonzero(np.asarray(unit_size) > 0)
    order = live[np.argsort(np.asarray(unit_group)[live], kind="stable")]
    g = np.asarray(unit_group, dtype=np.int64)[order]
    size = np.asarray(unit_size, dtype=np.int64)[order]
    stop = np.cumsum(size)
    first = np.r_[True, g[1:] != g[:-1]] if len(g) else np.zeros(0, dtype=bool)
    base = np.maximum.accumulate(np.where(first, stop - size, 0)) if len(g) else stop
    units = pd.DataFrame({GROUP: g, START: stop - size - base, STOP: stop - base})
    for q, values in released.items():
        units[q] = pd.Series(np.asarray(values, dtype=object)[order], dtype=object)
    return CombinationMapping(
        keys=list(keys),
        qis=list(released),
        groups=groups,
        units=units,
        n_released_rows=int(size.sum()),
        key_rows=at,
        starred_kept=starred_kept,
    )


def level_labels(data: pd.DataFrame, encoded: EncodedTable, node: tuple[int, ...]) -> dict:
    """Per quasi-identifier: its distinct values in ``data`` (the aggregated frame) and their
    labels at ``node`` (strings)."""
    out = {}
    for col, level in zip(encoded.quasi_identifiers, node, strict=True):
        labels = np.asarray(col.levels.labels[level], dtype=object)[col.codes_at(level)]
        pairs = pd.DataFrame({"v": data[col.name].to_numpy(), "l": labels}).drop_duplicates("v")
        out[col.name] = (pairs["v"], pairs["l"].astype(str))
    return out


def node_mapping(
    data: pd.DataFrame,
    encoded: EncodedTable,
    node: tuple[int, ...],
    table: ClassTable,
    kept: np.ndarray,
    policy: Policy,
) -> NodeMapping:
    """The release of full-domain ``node`` (``table`` its class table, ``kept`` its classes kept)
    as a ``NodeMapping`` of ``data``, the aggregated frame ``encoded`` was encoded from."""
    bad = np.flatnonzero(~kept)
    good = np.flatnonzero(kept)
    labels_at = [
        np.asarray(col.levels.labels[node[j]], dtype=object)
        for j, col in enumerate(encoded.quasi_identifiers)
    ]
    violating = {
        col.name: labels_at[j][table.keys[bad, j]].astype(str)
        for j, col in enumerate(encoded.quasi_identifiers)
    }
    n_kept = int(table.sizes[kept].sum())
    star = policy.suppressed_records == "star"
    starred_kept = False
    if star and len(bad) and labels_at:
        every = np.ones(len(good), dtype=bool)
        for j, lab in enumerate(labels_at):
            every &= lab[table.keys[good, j]] == SUPPRESSED
        starred_kept = bool(every.any())
    return NodeMapping(
        labels=level_labels(data, encoded, node),
        violating=violating,
        n_released_rows=encoded.n_records if star else n_kept,
        n_checked_rows=n_kept,
        starred_kept=starred_kept,
    )


def plan_mapping(
    data: pd.DataFrame,
    encoded: EncodedTable,
    recoding: NodeRecoding | CombinationRecoding,
    policy: Policy,
) -> NodeMapping | CombinationMapping:
    """The mapping of a plan's recoding over ``data``, the aggregated frame ``encoded`` was
    encoded from (the engine's counts)."""
    if isinstance(recoding, NodeRecoding):
        return node_mapping(
            data, encoded, recoding.node, recoding.table, recoding.kept_classes, policy
        )
    mapping = combination_mapping(
        data,
        recoding.keys,
        recoding.row_group,
        recoding.unit_group,
        recoding.unit_size,
        recoding.released,
        starred_kept=recoding.starred_kept,
    )
    if recoding.count_changed:
        count_changed_cells(data, encoded, recoding, mapping)
    return mapping


def count_changed_cells(
    data: pd.DataFrame,
    encoded: EncodedTable,
    recoding: CombinationRecoding,
    mapping: CombinationMapping,
) -> None:
    """The changed quasi-identifier cells of a combination release (local suppression's report
    counts them), in ``mapping.changed_cells`` when they do not depend on which records of a
    group each unit takes; else the strings to compare go into the mapping for the engine to
    count row by row (``count_changed``)."""
    row_group, unit_group, sizes = recoding.row_group, recoding.unit_group, recoding.unit_size
    weights = np.ones(len(row_group), np.int64) if encoded.weights is None else encoded.weights
    live = np.flatnonzero(sizes > 0)
    total, ambiguous = 0, False
    raw_of: dict[str, np.ndarray] = {}
    written_of: dict[str, np.ndarray] = {}
    for name in mapping.qis:
        raw = string_labels(data[name].to_numpy(dtype=object))
        written = string_labels(recoding.released[name][live])
        raw_of[name], written_of[name] = raw, written
        count, clear = _changed(row_group, raw, weights, unit_group[live], written, sizes[live])
        total += count
        ambiguous |= not clear
    if not ambiguous:
        mapping.changed_cells = total
        return
    mapping.count_changed = True  # the engine compares these strings row by row
    order = np.argsort(unit_group[live], kind="stable")  # (the units' order in the mapping)
    for name in mapping.qis:
        mapping.groups[RAW + name] = raw_of[name][mapping.key_rows]
        mapping.units[WRITTEN + name] = written_of[name][order]


def _changed(
    row_class: np.ndarray,
    raw: np.ndarray,
    weights: np.ndarray,
    unit_class: np.ndarray,
    written: np.ndarray,
    sizes: np.ndarray,
) -> tuple[int, bool]:
    """Changed cells of one quasi-identifier: Σ over records of (input ≠ written), and whether
    it is known without knowing which records of a group each unit takes — it is when a
    group's units all write the same value, or its records all hold the same value, or none of
    its records holds any value its units write."""
    rows = pd.DataFrame({"c": row_class, "v": raw, "w": weights})
    us = pd.DataFrame({"c": unit_class, "v": written, "w": sizes})
    n_written = us.groupby("c")["v"].nunique()
    n_raw = rows.groupby("c")["v"].nunique()
    one_written = n_written[n_written == 1].index
    one_raw = n_raw[n_raw == 1].index
    # (a) one written value per group: each row's records against it
    a = rows[rows["c"].isin(one_written)]
    target = us.drop_duplicates("c").set_index("c")["v"]
    total = int(a["w"].to_numpy() @ (a["v"].to_numpy() != target.reindex(a["c"]).to_numpy()))
    # (b) one input value per group: each unit's records against it
    b = us[~us["c"].isin(one_written) & us["c"].isin(one_raw)]
    value = rows.drop_duplicates("c").set_index("c")["v"]
    total += int(b["w"].to_numpy() @ (b["v"].to_numpy() != value.reindex(b["c"]).to_numpy()))
    # (c) the rest: every record changed unless an input value is among the written ones
    rest = us[~us["c"].isin(one_written) & ~us["c"].isin(one_raw)]
    if rest.empty:
        return total, True
    meet = rows[rows["c"].isin(rest["c"])].merge(rest[["c", "v"]].drop_duplicates(), on=["c", "v"])
    total += int(rest["w"].sum())
    return total, meet.empty
