"""Materialising a release once the node is chosen, and checking it like any other table.

Only here do codes become strings again: each quasi-identifier column is one gather through its
hierarchy's level labels. Identifiers (and columns the policy does not mention, which nobody vouched
for) are removed; suppressed records are left out or written with every quasi-identifier as ``*``;
rows are shuffled so the release order says nothing about the input order (Sweeney's
unsorted-matching attack) unless ``keep_order`` asks otherwise (risk evaluation needs the original
and the release aligned). The shuffle draws from the operating system's entropy unless a seed is
given (tests): the method is public, so the randomness must be secret to hide anything.

The release is then checked by the ordinary checker, grouping the released strings as they stand
(each must be a label of its hierarchy): a failing release is a bug in the search and raises
instead of being returned.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privcheck.checker import SUPPRESSED, check_table, finish_report, starred_rows
from privcheck.classes import ClassTable, count, first_rows, group
from privcheck.encoding import EncodedTable, encode, string_labels
from privcheck.engines import WEIGHT
from privcheck.engines import check_policy as aggregated_policy
from privcheck.errors import PolicyError
from privcheck.policy import Policy, Role
from privcheck.report import Report


def removed_columns(data: pd.DataFrame, policy: Policy) -> list[str]:
    """Columns a release leaves out: identifiers and columns the policy does not list — the
    individual column among them, unless it is released as a pseudonym."""
    kept = policy.individual if policy.individual_released else None
    return [
        str(c)
        for c in data.columns
        if c != kept
        and (c not in policy.attributes or policy.attributes[c].role is Role.identifier)
    ]


def people_counts(encoded: EncodedTable, check: Report) -> dict[str, int | None]:
    """An anonymization report's people: ``n_individuals`` of the input and
    ``n_suppressed_individuals`` — those its release's re-check did not find, since a person's
    records are suppressed together (both None when the policy counts records)."""
    if encoded.individual is None:
        return {"n_individuals": None, "n_suppressed_individuals": None}
    kept = check.n_individuals or 0
    return {
        "n_individuals": encoded.n_individuals,
        "n_suppressed_individuals": encoded.n_individuals - kept,
    }


def without_individual(release: pd.DataFrame, policy: Policy) -> pd.DataFrame:
    """The release without the individual column a re-check read (``materialise``'s
    ``keep_individual``), unless the policy releases it as a pseudonym."""
    name = policy.individual
    if name is None or policy.individual_released or name not in release.columns:
        return release
    return release.drop(columns=[name])


def pseudonymize(data: pd.DataFrame, policy: Policy) -> pd.DataFrame:
    """``data`` with the individual column replaced by keyed pseudonyms, when the policy asks
    (``pseudonymize_individual``): HMAC-SHA-256 of each distinct value under a 32-byte key
    drawn from the operating system for this release, never written or returned, so nobody —
    the publisher included — can recompute a pseudonym from an identifier or link two
    releases; a person's records share one pseudonym (a re-check counts people from them).
    One HMAC per distinct person, one gather per row."""
    name = policy.individual
    if not policy.individual_released or name not in data.columns:
        return data
    import hmac
    import secrets
    from hashlib import sha256

    key = secrets.token_bytes(32)
    codes, uniques = pd.factorize(data[name], use_na_sentinel=True)
    if (codes < 0).any():  # (encoding refuses it too, naming the row: say it the same way)
        from privcheck.encoding import encode_individual

        encode_individual(data[name], name)
    tokens = np.array(
        [
            hmac.new(key, str(v).encode("utf-8"), sha256).hexdigest()[:20]
            for v in np.asarray(uniques, dtype=object)
        ],
        dtype=object,
    )
    del key
    out = data.copy(deep=False)
    out[name] = pd.Series(tokens).array.take(codes)
    return out


def materialise(
    data: pd.DataFrame,
    encoded: EncodedTable,
    node: tuple[int, ...],
    kept: np.ndarray,
    policy: Policy,
    *,
    keep_order: bool = False,
    seed: int | None = None,
    table: ClassTable | None = None,
    keep_individual: bool = False,
) -> tuple[pd.DataFrame, np.ndarray]:
    """The released DataFrame for ``node`` with the records in ``kept`` kept, and which of its
    rows are suppressed records (all False unless they are written as ``*``).

    ``keep_individual`` keeps the policy's individual column for the re-check to count people
    from; the caller drops it afterwards (``without_individual``).

    ``table``: the class table at ``node`` with the class of every record, when the caller has
    it (an anonymizer's chosen node): the released rows' codes are then gathered from its keys
    through their classes, one scattered read of the records instead of one per column.

    The released rows are chosen and shuffled as row numbers first; each quasi-identifier is
    then one gather of its permuted integer codes into the few labels of its level, and each
    other column one gather of the permuted rows — every column is built once, in release order
    (permuting strings after materialising them cost 4× the whole materialisation on 1 M rows).
    """
    drop = set(removed_columns(data, policy))
    if keep_individual:
        drop.discard(policy.individual)
    columns = [c for c in data.columns if c not in drop]
    star = policy.suppressed_records == "star"
    rows = np.arange(len(data)) if star else np.flatnonzero(kept)
    if not keep_order:
        rows = np.random.default_rng(seed).permutation(rows)
    qis = {
        col.name: (j, col, level)
        for j, (col, level) in enumerate(zip(encoded.quasi_identifiers, node, strict=True))
    }
    classes = None
    if table is not None and table.record_class is not None and tuple(table.node) == tuple(node):
        classes = table.record_class.take(rows)
    all_kept = bool(kept.all())  # no '*' written: a numeric column stays numeric
    out: dict = {}
    for name in columns:
        if name not in qis:
            out[name] = data[name].take(rows).reset_index(drop=True)
            continue
        j, col, level = qis[name]
        labels = list(col.levels.labels[level])
        if classes is not None:
            codes = table.keys[:, j].take(classes)
        else:
            # the released rows' ground codes, then their level codes through the small level
            # map (a gather that stays in cache, where ``codes_at`` would map every row first)
            codes = col.codes.take(rows)
            if level:
                codes = col.levels.maps[level].take(codes)
        if star and not all_kept:
            codes = np.where(kept.take(rows), codes, len(labels))
            labels.append(SUPPRESSED)
        values = np.asarray(labels, dtype=object)
        if any(type(v) is str for v in values) and not all(type(v) is str for v in values):
            # ground numbers beside '*' or '<missing>': one column type, spelled as a hierarchy
            # spells them (31.0 → '31'), so that Parquet can hold it and a check reads it back
            values = string_labels(values)
        # the few labels become a column once (dtype inferred as for the whole column), then
        # one take: no Python string object per record
        out[name] = pd.Series(values).array.take(codes)
    release = pd.DataFrame(out, columns=pd.Index(columns, dtype=data.columns.dtype))
    return release, ~kept[rows]


def release_policy(policy: Policy, *, keep_hierarchies: bool = True) -> Policy:
    """The policy a release is checked under: identifiers gone (a release has none). Without
    ``keep_hierarchies`` quasi-identifiers lose theirs too and group whatever values they hold
    (the joined values of two linked releases); sensitive attributes keep theirs
    (hierarchical t-closeness)."""
    attributes = {
        name: (
            attr.model_copy(update={"hierarchy": None})
            if attr.role is Role.quasi_identifier and not keep_hierarchies
            else attr
        )
        for name, attr in policy.attributes.items()
        if attr.role is not Role.identifier
    }
    out = policy.model_copy(update={"attributes": attributes})
    out._base_dir = policy.base_dir
    return out


def recheck(release: pd.DataFrame, suppressed: np.ndarray, policy: Policy) -> Report:
    """Check the release exactly as ``privcheck check`` checks the written file; raise if it fails.

    Rows written as ``*`` in every quasi-identifier stand for suppressed records: they release no
    quasi-identifier value, are left out of the models and counted against the suppression limit
    (``privcheck.checker.starred_rows``). ``suppressed`` says which rows the anonymizer
    suppressed; a kept record whose generalized values are all ``*`` (a hierarchy whose labels
    below its top are ``*``) cannot be told from them, and when the check then disagrees with
    the anonymizer the release is refused rather than written.
    """
    rpolicy = release_policy(policy)
    star = starred_rows(release, rpolicy)
    frame = release if star is None else release[~star].reset_index(drop=True)
    encoded = encode(frame, rpolicy, as_released=True)
    report = check_table(count(encoded), rpolicy, source="release", details=False)
    n_starred = 0 if star is None else int(star.sum())
    finish_report(report, rpolicy, identifiers=[], n_suppressed=n_starred, n_rows=len(release))
    if not report.passed:
        failing = ", ".join(m.model for m in report.models if not m.passed) or (
            "the suppression limit"
        )
        as_checked = np.zeros(len(release), dtype=bool) if star is None else star
        if policy.suppressed_records == "star" and not np.array_equal(as_checked, suppressed):
            raise starred_kept_records(failing)
        raise RuntimeError(
            f"the release fails {failing} when checked; this is a bug in the anonymizer"
        )
    return report


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


def released_rows(
    data: pd.DataFrame, encoded: EncodedTable, table: ClassTable, kept: np.ndarray, policy: Policy
) -> pd.DataFrame:
    """The kept rows of the release as ``check`` reads them, one row per distinct row with its
    count in ``WEIGHT``: the released labels of the quasi-identifiers and the original values of
    the sensitive attributes — what an engine hands a check (``privcheck.engines``).

    Built from codes, never from the release's strings: the kept records are grouped by their
    class at the chosen node (``table``, counted from the rows) and their sensitive codes, and
    only one row per group is turned into strings. A check reads nothing else of a release (the
    models are functions of these counts), so checking this frame is checking the release.
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
        out[name] = data[name].take(first).reset_index(drop=True)
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
) -> Report | None:
    """``recheck`` without re-encoding the release's strings: the same checker, policy and
    verdict on ``released_rows`` (the release's distinct rows with their counts), as a check of
    an aggregated frame from an engine. Raise if it fails.

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
        failing = ", ".join(m.model for m in report.models if not m.passed) or (
            "the suppression limit"
        )
        raise RuntimeError(
            f"the release fails {failing} when checked; this is a bug in the anonymizer"
        )
    return report
