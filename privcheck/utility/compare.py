"""``compare``: every utility measure of one release against its original, as one table row.

The release must hold the original's records in the original's order (``--keep-order`` and
``suppressed_records: star``): the measures compare each released cell with the original cell it
replaces (``recoding``). Bad input — a missing column, a different number of rows, a cell that
does not contain its original — is a ``DataError`` naming the problem and the fix.
"""

from __future__ import annotations

import pandas as pd

from privcheck.encoding import encode
from privcheck.errors import DataError
from privcheck.policy import Policy
from privcheck.utility import MEASURES
from privcheck.utility.classification import classification_utility
from privcheck.utility.recoding import Recoding, resolve_column

#: the columns of a compare row, in table order (the classification ones only with a target)
CLASSIFICATION_COLUMNS = ("accuracy_original", "accuracy_release", "accuracy_loss_points")


def recoding(original: pd.DataFrame, release: pd.DataFrame, policy: Policy) -> Recoding:
    """Resolve every quasi-identifier cell of ``release`` against ``original``."""
    qis = policy.quasi_identifiers
    if not qis:
        raise DataError("the policy names no quasi-identifier; there is nothing to compare")
    missing = [q for q in qis if q not in release.columns]
    if missing:
        raise DataError(
            f"the release has no column {missing[0]!r} (a quasi-identifier of the policy); "
            "compare a release made under this policy"
        )
    if len(release) != len(original):
        raise DataError(
            f"the release has {len(release)} rows and the original {len(original)}: compare "
            "needs every record, in order (anonymize with --keep-order and "
            "suppressed_records: star)"
        )
    encoded = encode(original, policy, sensitive=[])
    columns = [
        resolve_column(col, release[col.name].to_numpy()) for col in encoded.quasi_identifiers
    ]
    return Recoding(columns, len(original))


def compare(
    original: pd.DataFrame,
    release: pd.DataFrame,
    policy: Policy,
    *,
    target: str | None = None,
    test_share: float | None = None,
    seed: int | None = None,
) -> dict[str, float | int]:
    """All the measures of ``release`` (one row of the compare table). ``target`` etc. default
    to the policy's ``utility`` options."""
    options = policy.utility
    target = target if target is not None else (options.target if options else None)
    test_share = test_share if test_share is not None else (options.test_share if options else 0.3)
    seed = seed if seed is not None else (options.seed if options else 0)
    rec = recoding(original, release, policy)
    row: dict[str, float | int] = {"rows": rec.n_records}
    for name, measure in MEASURES.items():
        row[name] = measure.compute(rec)
    if target is not None:
        for frame, what in ((original, "original"), (release, "release")):
            if target not in frame.columns:
                raise DataError(
                    f"the {what} has no column {target!r} (the classification target); name a "
                    "column both tables hold with --target or the policy's utility.target"
                )
        if target in policy.quasi_identifiers:
            raise DataError(
                f"the classification target {target!r} is a quasi-identifier; predict a "
                "sensitive or insensitive column"
            )
        result = classification_utility(
            rec, original[target], release[target], test_share=test_share, seed=seed
        )
        row["accuracy_original"] = result.accuracy_original
        row["accuracy_release"] = result.accuracy_release
        row["accuracy_loss_points"] = result.loss_points
    return row
