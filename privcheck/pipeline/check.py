"""``check``: read the data where it lives, then judge it — the library call behind ``privcheck
check``.

A pandas DataFrame or a file is read here, in process (a file as the Arrow table its reader
makes: no pandas import for a small check); any other frame (polars, pyarrow, DuckDB, Spark)
runs the group-by in its own engine and sends back its counts (``privcheck.engines``). Either
way the checker judges what was read (``privcheck.checker.check_frame``). ``check_linked``
checks two releases of one table paired row by row.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from privcheck.checker import (
    MAX_VIOLATORS,
    check_frame,
    check_table,
    column_names,
    individual_absent,
    no_records_message,
    present_identifiers,
    refuse_mechanism_models,
    refuse_synthetic_risk,
    repeated_people,
)
from privcheck.classes import count
from privcheck.encoding import encode
from privcheck.engines.counts import checked_counts
from privcheck.engines.schema import WEIGHT, is_engine_frame
from privcheck.errors import DataError
from privcheck.io import read_table
from privcheck.plan import release_policy
from privcheck.policy import Policy, load_policy
from privcheck.report import Report, mark_draft

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger("privcheck.check")


def check(
    data: pd.DataFrame | str | Path | Any,
    policy: Policy | dict | str | Path,
    *,
    max_violators: int = MAX_VIOLATORS,
    details: bool = False,
    max_groups: int | None = None,
    allow_empty: bool = False,
    explain: bool = False,
    explain_max_size: int | None = None,
    allow_draft: bool = False,
) -> Report:
    """Check a table against a policy: does every model hold, and who violates it?

    A draft policy — columns still marked ``review:`` — is refused (``PolicyError``): the
    columns left for review would pass as whatever they were drafted. ``allow_draft`` checks it
    anyway, and the report says ``draft: true`` with the open columns.

    A table without records is refused (``DataError``): in a pre-release hook an empty extract
    is almost always a broken pipeline, not a safe release. ``allow_empty`` accepts it as a
    vacuous pass (every model holds; values are null, not infinite).

    ``details`` adds the figures the HTML report plots (class-size and per-model histograms, the
    worst classes' sensitive distributions); a plain verdict does not pay for them.

    ``explain`` adds ``report.explanation`` (``privcheck.risk.population.explain``): the minimal
    sample uniques with their SUDA scores (combinations searched up to ``explain_max_size``
    quasi-identifiers) and each quasi-identifier's contribution to the risk. It costs a group-by of
    the class table per combination (on Adult, 8 quasi-identifiers: ~1 s, several times the check).

    ``data`` is a pandas DataFrame or a file (the in-process path), or a polars, pyarrow, DuckDB
    or PySpark frame, whose group-by runs in its own engine (see ``privcheck.engines``; at most
    ``max_groups`` combinations come back, and violators list no record numbers).
    """
    started = time.perf_counter()
    policy = load_policy(policy)
    policy.require_decided(allow_draft=allow_draft)
    policy.require_attributes()
    refuse_mechanism_models(policy)
    refuse_synthetic_risk(policy)
    source = str(data) if isinstance(data, str | Path) else None
    note = None
    if is_engine_frame(data):  # an engine runs the group-by; its counts walk the same path
        frame, policy, identifiers, absent_note = checked_counts(
            data, policy, max_groups=max_groups
        )
        weight = WEIGHT
    else:
        # a file is encoded from the Arrow table its reader makes (no pandas import: most of a
        # small check's time); --explain's SUDA reads a DataFrame
        wanted = list(policy.attributes)
        if policy.individual is not None and policy.individual not in policy.attributes:
            wanted.append(policy.individual)
        frame = read_table(data, columns=wanted, dictionary=True, arrow=not explain)
        policy, absent_note = individual_absent(column_names(frame), policy)
        identifiers = present_identifiers(column_names(frame), policy)
        weight = None
        note = repeated_people(frame, policy)
    log.info(
        "read %d rows × %d columns in %.3f s",
        len(frame),
        frame.shape[1],
        time.perf_counter() - started,
    )
    report = check_frame(
        frame,
        policy,
        weight=weight,
        identifiers=identifiers,
        notes=[absent_note, note],
        source=source,
        max_violators=max_violators,
        details=details,
        allow_empty=allow_empty,
        explain=explain,
        explain_max_size=explain_max_size,
    )
    mark_draft(report, policy)
    report.elapsed_seconds = round(time.perf_counter() - started, 4)
    log.info("check %s in %.3f s", "passed" if report.passed else "failed", report.elapsed_seconds)
    return report


def link_releases(release: pd.DataFrame, other: pd.DataFrame, policy) -> pd.DataFrame:
    """The table an intruder gets by pairing the rows of two releases of the same records.

    Each quasi-identifier of the result holds both released values (``a & b``; a ``*`` adds
    nothing), so grouping it gives the intersections of the two releases' classes. Rows are
    paired by position — the worst case, and what row order gives away when releases are not
    shuffled — after checking that the paired rows agree on every other released column.
    """
    policy = load_policy(policy)
    qis = policy.quasi_identifiers
    for frame, which in ((release, "the release"), (other, "the other release")):
        absent = [q for q in qis if q not in frame.columns]
        if absent:
            raise DataError(f"{which} has no column {absent[0]!r} (a quasi-identifier)")
    if len(release) != len(other):
        raise DataError(
            f"cannot pair the two releases row by row: they have {len(release)} and "
            f"{len(other)} rows; the linked check models an intruder who can pair each record's "
            "rows (releases made with --keep-order, suppressed records written as '*')"
        )
    shared = [
        c for c in release.columns if c in other.columns and c not in qis and c in policy.attributes
    ]
    for c in shared:
        a = release[c].astype(str).to_numpy()
        b = other[c].astype(str).to_numpy()
        bad = np.flatnonzero(a != b)
        if len(bad):
            raise DataError(
                f"cannot pair the two releases row by row: row {bad[0]} has {c}={a[bad[0]]!r} "
                f"in one and {b[bad[0]]!r} in the other (are they shuffled differently? the "
                "linked check needs releases in the same record order, e.g. --keep-order)"
            )
    joined = release.copy()
    for q in qis:
        a = release[q].astype(str).to_numpy(dtype=object)
        b = other[q].astype(str).to_numpy(dtype=object)
        both = np.where(a == b, a, a + " & " + b)
        joined[q] = np.where(a == "*", b, np.where(b == "*", a, both))
    return joined


def check_linked(release: Any, other: Any, policy, *, max_violators: int = 20):
    """Check the classes an intruder gets by intersecting two releases (see ``link_releases``)."""
    policy = load_policy(policy)
    joined = link_releases(read_table(release), read_table(other), policy)
    if joined.empty:
        raise DataError(no_records_message(f"{release} ⋈ {other}"))
    rpolicy = release_policy(policy, keep_hierarchies=False)
    import pandas as pd  # (read_table returned DataFrames: pandas is loaded)

    names = [str(x) if not isinstance(x, pd.DataFrame) else "release" for x in (release, other)]
    return check_table(
        count(encode(joined, rpolicy)),
        rpolicy,
        source=f"{names[0]} ⋈ {names[1]}",
        max_violators=max_violators,
    )
