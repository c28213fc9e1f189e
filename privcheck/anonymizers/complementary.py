"""Complementary releases (Sweeney 2002): two releases of one table must not combine into finer
classes than either has.

An intruder who can pair each record's rows in two releases (same row order, or any attribute that
lines them up) knows, per quasi-identifier, the finer of the two released values: the records fall
into the classes of the *meet* of the two generalizations. If release 2 only coarsens release 1
(every level ≥ release 1's), the meet is release 1 itself and nothing is gained — which is what
``anonymize(..., previous=report)`` enforces. ``link_releases`` computes what the intruder gets from
two releases, so a check can say whether a pair is safe.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from privcheck.anonymizers.side_files import parse_previous_node, read_side_file
from privcheck.errors import DataError, PolicyError
from privcheck.report import AnonymizationReport


def previous_node(previous: Any) -> dict[str, int] | None:
    """The generalization levels of a previous release, from its report (object, dict, JSON
    file) or a plain ``{quasi-identifier: level}`` mapping, validated strictly
    (``privcheck.anonymizers.side_files``): levels are non-negative integers (``true`` is not
    level 1). It only narrows a search — its node is the lattice's lower bound."""
    if previous is None:
        return None
    if isinstance(previous, AnonymizationReport):
        node = previous.node
        if node is None:
            raise PolicyError(
                "the previous release's report has no generalization node (was it made by a "
                "generalization anonymizer such as incognito, mingen or datafly?)"
            )
        return {str(k): int(v) for k, v in node.items()}
    data, text, name = read_side_file(previous, "previous release report")
    return parse_previous_node(data, name, text)


def link_releases(release: pd.DataFrame, other: pd.DataFrame, policy) -> pd.DataFrame:
    """The table an intruder gets by pairing the rows of two releases of the same records.

    Each quasi-identifier of the result holds both released values (``a & b``; a ``*`` adds
    nothing), so grouping it gives the intersections of the two releases' classes. Rows are
    paired by position — the worst case, and what row order gives away when releases are not
    shuffled — after checking that the paired rows agree on every other released column.
    """
    from privcheck.policy import load_policy

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
    from privcheck.anonymizers.release import release_policy
    from privcheck.checker import check_table
    from privcheck.classes import count
    from privcheck.encoding import encode
    from privcheck.io import read_table
    from privcheck.policy import load_policy

    policy = load_policy(policy)
    joined = link_releases(read_table(release), read_table(other), policy)
    if joined.empty:
        from privcheck.checker import no_records_message

        raise DataError(no_records_message(f"{release} ⋈ {other}"))
    rpolicy = release_policy(policy, keep_hierarchies=False)
    names = [str(x) if not isinstance(x, pd.DataFrame) else "release" for x in (release, other)]
    return check_table(
        count(encode(joined, rpolicy)),
        rpolicy,
        source=f"{names[0]} ⋈ {names[1]}",
        max_violators=max_violators,
    )
