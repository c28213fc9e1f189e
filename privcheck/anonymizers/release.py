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
from privcheck.classes import count
from privcheck.encoding import EncodedTable, encode, string_labels
from privcheck.errors import PolicyError
from privcheck.policy import Policy, Role
from privcheck.report import Report


def removed_columns(data: pd.DataFrame, policy: Policy) -> list[str]:
    """Columns a release leaves out: identifiers and columns the policy does not list."""
    return [
        str(c)
        for c in data.columns
        if c not in policy.attributes or policy.attributes[c].role is Role.identifier
    ]


def materialise(
    data: pd.DataFrame,
    encoded: EncodedTable,
    node: tuple[int, ...],
    kept: np.ndarray,
    policy: Policy,
    *,
    keep_order: bool = False,
    seed: int | None = None,
) -> tuple[pd.DataFrame, np.ndarray]:
    """The released DataFrame for ``node`` with the records in ``kept`` kept, and which of its
    rows are suppressed records (all False unless they are written as ``*``)."""
    drop = set(removed_columns(data, policy))
    columns = [c for c in data.columns if c not in drop]
    out = data[columns].reset_index(drop=True)
    star = policy.suppressed_records == "star"
    for col, level in zip(encoded.quasi_identifiers, node, strict=True):
        labels = list(col.levels.labels[level])
        codes = col.codes_at(level)
        if star:
            codes = np.where(kept, codes, len(labels))
            labels.append(SUPPRESSED)
        values = np.asarray(labels, dtype=object)
        if any(type(v) is str for v in values) and not all(type(v) is str for v in values):
            # ground numbers beside '*' or '<missing>': one column type, spelled as a hierarchy
            # spells them (31.0 → '31'), so that Parquet can hold it and a check reads it back
            values = string_labels(values)
        # the few labels become a column once (dtype inferred as for the whole column), then
        # one take: no Python string object per record
        out[col.name] = pd.Series(values).array.take(codes)
    rows = np.arange(len(out)) if star else np.flatnonzero(kept)
    if not keep_order:
        rows = np.random.default_rng(seed).permutation(rows)
    return out.iloc[rows].reset_index(drop=True), ~kept[rows]


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
            raise PolicyError(
                f"the release would write kept records with every quasi-identifier '*', which "
                f"a check cannot tell from suppressed records (it would then fail {failing}); "
                "use suppressed_records: remove, or hierarchies whose labels below the top "
                "are not '*'"
            )
        raise RuntimeError(
            f"the release fails {failing} when checked; this is a bug in the anonymizer"
        )
    return report
