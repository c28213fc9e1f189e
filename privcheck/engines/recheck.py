"""Checking a release in process exactly as ``privcheck check`` checks the written file.

A release is checked by the ordinary checker (``privcheck.checker``) under the release's
policy (``privcheck.plan.release_policy``). Written rows whose every quasi-identifier is ``*``
are suppressed records: they release no quasi-identifier value, are left out of the models and
counted against the suppression limit (``checker.starred_rows``). The checks here mostly read
the release from its codes — its distinct rows with their counts, as an engine hands a check
its group-by — instead of re-encoding the strings written (a check reads nothing else of a
release: the models are functions of these counts). A release that fails is a bug in the
planner, or refused with the plan's reason (``failed``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privcheck.checker import check_table, finish_report, starred_rows
from privcheck.classes import ClassTable, count, first_rows, group
from privcheck.encoding import EncodedTable, encode, string_labels
from privcheck.engines.dictionary_rows import as_read
from privcheck.engines.schema import WEIGHT
from privcheck.errors import PolicyError
from privcheck.plan import SUPPRESSED, release_policy
from privcheck.policy import Policy, aggregated_policy
from privcheck.report import Report


def starred_kept_records(failing: str) -> PolicyError:
    """The refusal when kept records would be written with every quasi-identifier ``*`` (a
    hierarchy whose labels below its top are ``*``, or a literal ``*`` ground value) and the
    check, reading them as suppressed records, would then fail: exit 2, nothing written."""
    return PolicyError(
        f"the release would write kept records with every quasi-identifier '*', which "
        f"a check cannot tell from suppressed records (it would then fail {failing}); "
        "use suppressed_records: remove, or hierarchies whose labels below the top "
        "are not '*'"
    )


def failing_models(report: Report, default: str = "the suppression limit") -> str:
    """The models a failing re-check names (else ``default``: the limit failed)."""
    return ", ".join(m.model for m in report.models if not m.passed) or default


def failed(
    report: Report, algorithm: str, *, starred_kept: bool, advice: str | None = None
) -> Exception:
    """What a failing re-check raises: the refusal of kept records written all ``*``, the
    plan's own reason (``advice``, with ``{failing}``), else a bug."""
    failing = failing_models(report)
    if starred_kept:
        return starred_kept_records(failing)
    if advice is not None:
        return PolicyError(advice.format(failing=failing))
    return RuntimeError(
        f"the {algorithm} release fails {failing} when checked; this is a bug in the anonymizer"
    )


def recheck(
    release: pd.DataFrame, suppressed: np.ndarray, policy: Policy, algorithm: str = "anonymizer"
) -> Report:
    """Check the written rows exactly as ``privcheck check`` checks the file; raise if it fails.

    ``suppressed`` says which rows the planner suppressed; a kept record whose generalized
    values are all ``*`` (a hierarchy whose labels below its top are ``*``) cannot be told from
    them, and when the check then disagrees with the plan the release is refused rather than
    written.
    """
    rpolicy = release_policy(policy)
    star = starred_rows(release, rpolicy)
    frame = release if star is None else release[~star].reset_index(drop=True)
    encoded = encode(frame, rpolicy, as_released=True)
    report = check_table(count(encoded), rpolicy, source="release", details=False)
    n_starred = 0 if star is None else int(star.sum())
    finish_report(report, rpolicy, identifiers=[], n_suppressed=n_starred, n_rows=len(release))
    if not report.passed:
        as_checked = np.zeros(len(release), dtype=bool) if star is None else star
        differs = policy.suppressed_records == "star" and not np.array_equal(as_checked, suppressed)
        raise failed(report, algorithm, starred_kept=differs)
    return report


def released_rows(
    data: pd.DataFrame, encoded: EncodedTable, table: ClassTable, kept: np.ndarray, policy: Policy
) -> pd.DataFrame:
    """The kept rows of a full-domain release as ``check`` reads them, one row per distinct
    row with its count in ``WEIGHT``: the released labels of the quasi-identifiers and the
    original values of the sensitive attributes — what an engine hands a check.

    Built from codes, never from the release's strings: the kept records are grouped by their
    class at the chosen node (``table``, counted from the rows) and their sensitive codes, and
    only one row per group is turned into strings.
    """
    rows = np.flatnonzero(kept)
    if table.record_class is not None:
        cls = table.record_class.take(rows)
        columns, cards = [cls], [table.n_classes]
    else:  # (weighted input: no record classes) group by the released codes themselves
        columns = [
            c.codes_at(lv).take(rows)
            for c, lv in zip(encoded.quasi_identifiers, table.node, strict=True)
        ]
        cards = [
            c.cardinality(lv) for c, lv in zip(encoded.quasi_identifiers, table.node, strict=True)
        ]
    for col in encoded.sensitive.values():
        columns.append(col.codes.take(rows))
        cards.append(col.cardinality())
    if encoded.individual is not None:  # one row per person and values: the check counts people
        columns.append(encoded.individual.take(rows))
        cards.append(encoded.n_individuals)
    inverse, n_groups = group(columns, cards)
    first = rows.take(first_rows(inverse, n_groups))
    out: dict = {}
    for col, level in zip(encoded.quasi_identifiers, table.node, strict=True):
        labels = pd.Series(np.asarray(col.levels.labels[level], dtype=object)).array
        out[col.name] = labels.take(col.codes_at(level).take(first))
    for name in encoded.sensitive:
        out[name] = as_read(data, name, data[name].take(first).reset_index(drop=True))
    if encoded.individual is not None:
        out[policy.individual] = encoded.individual.take(first)
    weights = (
        np.bincount(inverse, minlength=n_groups)
        if encoded.weights is None
        else (
            np.bincount(inverse, weights=encoded.weights.take(rows), minlength=n_groups).astype(
                np.int64
            )
        )
    )
    out[WEIGHT] = weights
    return pd.DataFrame(out)


def recheck_codes(
    data: pd.DataFrame,
    encoded: EncodedTable,
    table: ClassTable,
    kept: np.ndarray,
    policy: Policy,
    *,
    n_rows: int,
    algorithm: str = "anonymizer",
) -> Report | None:
    """``recheck`` of a full-domain release without re-encoding its strings: the same checker,
    policy and verdict on ``released_rows`` (the release's distinct rows with their counts).
    Raise if it fails.

    ``n_rows`` is the number of rows the release writes. None when the codes cannot stand for
    the written file: under ``suppressed_records: star`` a kept record whose generalized values
    are all ``*`` reads back as a suppressed record, so only ``recheck`` of the written rows
    says what ``check`` will say.
    """
    frame = released_rows(data, encoded, table, kept, policy)
    rpolicy = release_policy(policy)
    star = policy.suppressed_records == "star"
    if star and starred_rows(frame, rpolicy) is not None:
        return None
    if star and rpolicy.quasi_identifiers and not kept.all():
        # every kept record all '*': the written file is all '*', which ``check`` judges as the
        # one class of every row, suppressed ones included
        labels = frame[list(rpolicy.quasi_identifiers)].to_numpy(dtype=object)
        if (labels == SUPPRESSED).all():
            return None
    released = encode(frame, aggregated_policy(rpolicy), weight_column=WEIGHT, as_released=True)
    report = check_table(count(released), rpolicy, source="release", details=False)
    n_suppressed = int(np.count_nonzero(~kept)) if star else 0
    finish_report(report, rpolicy, identifiers=[], n_suppressed=n_suppressed, n_rows=n_rows)
    if not report.passed:
        raise failed(report, algorithm, starred_kept=False)
    return report


def recheck_units(
    data: pd.DataFrame,
    encoded: EncodedTable,
    released: dict[str, np.ndarray],
    record_unit: np.ndarray,
    policy: Policy,
    n_rows: int,
    *,
    algorithm: str = "anonymizer",
    planned_suppressed: int = 0,
    advice: str | None = None,
    rows: np.ndarray | None = None,
    counts: np.ndarray | None = None,
) -> Report:
    """Check a combination release as ``privcheck check`` reads it, from its distinct rows
    (released values of each record's unit + sensitive values, with counts); raise if it fails.

    ``record_unit`` is the unit of every released record (``released[q][u]``: unit ``u``'s
    value); or, with ``rows`` and ``counts``, of entries standing for ``counts`` records each,
    whose sensitive values are those of row ``rows`` of ``data``. ``planned_suppressed``: the
    records the plan suppressed (written all ``*``); a check that reads more rows as
    suppressed, and fails, refuses the release as kept records written all ``*``."""
    columns = [record_unit]
    cards = [int(record_unit.max()) + 1 if len(record_unit) else 1]
    for col in encoded.sensitive.values():
        columns.append(col.codes if rows is None else col.codes.take(rows))
        cards.append(col.cardinality())
    person = encoded.individual
    if person is not None:  # one row per person and values: the check counts people
        columns.append(person if rows is None else person.take(rows))
        cards.append(encoded.n_individuals)
    inverse, n_groups = group(columns, cards)
    first = first_rows(inverse, n_groups)
    out: dict = {
        name: pd.Series(values).array.take(record_unit.take(first))
        for name, values in released.items()
    }
    source = first if rows is None else rows.take(first)
    for name in encoded.sensitive:
        out[name] = as_read(data, name, data[name].take(source).reset_index(drop=True))
    if person is not None:
        out[policy.individual] = encoded.individual.take(source)
    out[WEIGHT] = np.bincount(inverse, weights=counts, minlength=n_groups).astype(np.int64)
    frame = pd.DataFrame(out)
    rpolicy = release_policy(policy)
    star = starred_rows(frame, rpolicy)
    n_starred = 0
    if star is not None:
        n_starred = int(frame[WEIGHT].to_numpy()[star].sum())
        frame = frame[~star].reset_index(drop=True)
    checked = encode(frame, aggregated_policy(rpolicy), weight_column=WEIGHT, as_released=True)
    report = check_table(count(checked), rpolicy, source="release", details=False)
    finish_report(report, rpolicy, identifiers=[], n_suppressed=n_starred, n_rows=n_rows)
    if not report.passed:
        starred_kept = n_starred != planned_suppressed
        raise failed(report, algorithm, starred_kept=starred_kept, advice=advice)
    return report


def recheck_values(release: pd.DataFrame, policy: Policy) -> Report:
    """A masked release checked like any table, its quasi-identifiers grouped by the masked
    values (no hierarchy: a check of the written file groups them as they stand). Not raised
    on: what a masking method does not guarantee is reported as found."""
    rpolicy = release_policy(policy, keep_hierarchies=False)
    encoded = encode(release, rpolicy, as_released=True)
    return check_table(count(encoded), rpolicy, source="release", details=False)


def recheck_sample_codes(
    data: pd.DataFrame,
    encoded: EncodedTable,
    node: tuple[int, ...],
    records: np.ndarray,
    kept: np.ndarray,
    policy: Policy,
    models: list,
    algorithm: str,
) -> Report | None:
    """``recheck_sample`` from codes, before the release is made: the kept records of the
    sample (``records[kept]``) grouped by their labels at ``node`` and their sensitive values,
    one row per group with its count, checked as ``recheck_sample`` checks the written rows
    (their strings re-encoded: at 5 M rows a second copy of the codes beside the release).
    The labels are spelled as ``pandas_engine.materialise`` writes them. None when the codes
    cannot stand for the written rows (a person column, weighted rows): check those."""
    if encoded.individual is not None or encoded.weights is not None:
        return None
    rows = records.take(np.flatnonzero(kept))
    columns = [
        c.codes_at(lv).take(rows) for c, lv in zip(encoded.quasi_identifiers, node, strict=True)
    ]
    cards = [c.cardinality(lv) for c, lv in zip(encoded.quasi_identifiers, node, strict=True)]
    for col in encoded.sensitive.values():
        columns.append(col.codes.take(rows))
        cards.append(col.cardinality())
    if not columns:
        return None
    inverse, n_groups = group(columns, cards)
    del columns
    first = rows.take(first_rows(inverse, n_groups))
    star = policy.suppressed_records == "star" and not kept.all()
    out: dict = {}
    for col, level in zip(encoded.quasi_identifiers, node, strict=True):
        labels = list(col.levels.labels[level]) + ([SUPPRESSED] if star else [])
        values = np.asarray(labels, dtype=object)
        if any(type(v) is str for v in values) and not all(type(v) is str for v in values):
            values = string_labels(values)  # (as the release spells them beside '*')
        out[col.name] = pd.Series(values).array.take(col.codes_at(level).take(first))
    for name in encoded.sensitive:
        out[name] = as_read(data, name, data[name].take(first).reset_index(drop=True))
    out[WEIGHT] = np.bincount(inverse, minlength=n_groups)
    with_models = policy.model_copy(update={"models": models})
    with_models._base_dir = policy.base_dir
    rpolicy = release_policy(with_models)
    frame = pd.DataFrame(out)
    released = encode(frame, aggregated_policy(rpolicy), weight_column=WEIGHT, as_released=True)
    report = check_table(count(released), rpolicy, source="release", details=False)
    if not report.passed:
        raise failed(report, algorithm, starred_kept=False)
    return report


def recheck_sample(
    release: pd.DataFrame,
    suppressed: np.ndarray,
    policy: Policy,
    models: list,
    algorithm: str,
) -> Report:
    """A release drawn from a sample, its suppressed rows exempt from any limit (SafePub): the
    kept rows checked with ``models`` (the mechanism's property replaced by the k it
    guarantees); raise if it fails."""
    frame = release[~suppressed].reset_index(drop=True) if suppressed.any() else release
    with_models = policy.model_copy(update={"models": models})
    with_models._base_dir = policy.base_dir
    rpolicy = release_policy(with_models)
    encoded = encode(frame, rpolicy, as_released=True)
    report = check_table(count(encoded), rpolicy, source="release", details=False)
    if not report.passed:
        raise failed(report, algorithm, starred_kept=False)
    return report
