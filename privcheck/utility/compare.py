"""``compare``: every utility measure of releases against their original, their risk, whether
each passes the policy, and which one to publish.

A release in the original's order (``--keep-order``; every record kept or written as ``*``) is
compared cell by cell (``recoding.resolve_column``). Any other release — shuffled, or leaving
its suppressed records out — is read from its labels alone (``recoding.resolve_labels``): every
measure that needs no row alignment is computed all the same (the records left out counting as
rows of ``*``, as in the anonymization report), and the release's classification accuracy,
which must keep the held-out original records out of its training rows, is not available:
``None`` with the reason under ``<measure>_reason``.

What every release shares is prepared once (``Baseline``): the original encoded against the
policy, and the original's classifier and its accuracy (the same for every release). Bad input
— a missing column, more rows than the original, a value that is not a release of it — is a
``DataError`` naming the problem and the fix.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from privcheck.encoding import EncodedTable, encode
from privcheck.errors import DataError
from privcheck.policy import Policy
from privcheck.ranking import best_index, comparison_metric, metric_reason
from privcheck.utility import MEASURES
from privcheck.utility.class_sizes import ClassCounts
from privcheck.utility.classification import classification_utility, original_accuracy
from privcheck.utility.recoding import (
    ORIGINAL_KEYS,
    Misaligned,
    Recoding,
    original_values,
    resolve_column,
    resolve_labels,
)

#: the classification columns of a compare row (only with a target)
CLASSIFICATION_COLUMNS = ("accuracy_original", "accuracy_release", "accuracy_loss_points")
#: the measures that need the release's rows aligned with the original's
ALIGNED_ONLY = ("accuracy_release", "accuracy_loss_points")


@dataclass(eq=False)
class Baseline:
    """The original as every release of it is compared with: encoded once, its classifier's
    accuracy computed once (``accuracy``)."""

    original: pd.DataFrame
    policy: Policy
    encoded: EncodedTable
    target: str | None
    test_share: float
    seed: int
    _accuracy: dict = field(default_factory=dict, repr=False)
    _values: dict = field(default_factory=dict, repr=False)
    #: what the measures computed from the original alone (``recoding.ORIGINAL_KEYS``)
    shared: dict = field(default_factory=dict, repr=False)

    def originals(self) -> dict[str, tuple]:
        """Each quasi-identifier's ``original_values`` (computed once)."""
        if not self._values:
            for col in self.encoded.quasi_identifiers:
                self._values[col.name] = original_values(col)
        return self._values

    def accuracy(self, rec: Recoding) -> float:
        """The original model's accuracy on the held-out original rows (fit on first use)."""
        if "value" not in self._accuracy:
            assert self.target is not None
            self._accuracy["value"] = original_accuracy(
                rec, self.original[self.target], test_share=self.test_share, seed=self.seed
            )
        return self._accuracy["value"]


def baseline(
    original: pd.DataFrame,
    policy: Policy,
    *,
    target: str | None = None,
    test_share: float | None = None,
    seed: int | None = None,
    encoded: EncodedTable | None = None,
) -> Baseline:
    """Prepare ``original`` for comparisons. ``target`` etc. default to the policy's
    ``utility`` options; ``encoded``: the original already encoded under ``policy``."""
    options = policy.utility
    target = target if target is not None else (options.target if options else None)
    test_share = test_share if test_share is not None else (options.test_share if options else 0.3)
    seed = seed if seed is not None else (options.seed if options else 0)
    if not policy.quasi_identifiers:
        raise DataError("the policy names no quasi-identifier; there is nothing to compare")
    if target is not None:
        if target not in original.columns:
            raise DataError(
                f"the original has no column {target!r} (the classification target); name a "
                "column both tables hold with --target or the policy's utility.target"
            )
        if target in policy.quasi_identifiers:
            raise DataError(
                f"the classification target {target!r} is a quasi-identifier; predict a "
                "sensitive or insensitive column"
            )
    if encoded is None:
        encoded = encode(original, policy, sensitive=[])
    return Baseline(original, policy, encoded, target, test_share, seed)


def require_release(release: pd.DataFrame, policy: Policy, n_original: int) -> None:
    """Refuse, with the fix, a table that cannot be a release of the original under
    ``policy``: a quasi-identifier column missing, or more rows than the original."""
    qis = policy.quasi_identifiers
    if not qis:
        raise DataError("the policy names no quasi-identifier; there is nothing to compare")
    missing = [q for q in qis if q not in release.columns]
    if missing:
        raise DataError(
            f"the release has no column {missing[0]!r} (a quasi-identifier of the policy); "
            "compare a release made under this policy"
        )
    r = len(release)
    if r > n_original:
        raise DataError(
            f"the release has {r} rows and the original {n_original}: a release holds at most "
            "the original's records; compare a release of this original"
        )


def recoding(
    original: pd.DataFrame,
    release: pd.DataFrame,
    policy: Policy,
    *,
    encoded: EncodedTable | None = None,
    aligned_only: bool = False,
    originals: dict[str, tuple] | None = None,
) -> Recoding:
    """Resolve every quasi-identifier cell of ``release`` against ``original``: cell by cell when
    the rows are aligned, else from the release's labels (``aligned_only``: raise instead)."""
    require_release(release, policy, len(original))
    n, r = len(original), len(release)
    if encoded is None:
        encoded = encode(original, policy, sensitive=[])
    originals = originals or {}
    if r == n:
        try:
            columns = [
                resolve_column(col, release[col.name], originals.get(col.name))
                for col in encoded.quasi_identifiers
            ]
            return Recoding(columns, n, n_released=r)
        except Misaligned:
            if aligned_only:
                raise
            why = (
                "the release's rows are not in the original's order (written without --keep-order)"
            )
    else:
        if aligned_only:
            raise DataError(
                f"the release has {r} rows and the original {n}: this needs every record, in "
                "order (anonymize with --keep-order and suppressed_records: star)"
            )
        why = (
            f"the release leaves out {n - r} of the original's {n} records (suppressed records "
            "removed), so its rows cannot be matched to the original's"
        )
    columns = [
        resolve_labels(col, release[col.name], n, originals.get(col.name))
        for col in encoded.quasi_identifiers
    ]
    reason = (
        f"{why}; anonymize with --keep-order and suppressed_records: star to measure it (the "
        "held-out original records must be kept out of the release's training rows)"
    )
    return Recoding(columns, n, aligned=False, unaligned=reason, n_released=r)


def measure(
    base: Baseline, release: pd.DataFrame, classes: ClassCounts | None = None
) -> dict[str, Any]:
    """Every utility measure of one release (a flat row: numbers, ``None`` with a
    ``<measure>_reason`` where a measure needs aligned rows the release does not have).
    ``classes``: the release's classes as ``check`` forms them (``release_verdict``), read by
    the class measures (classes, suppressed records, discernibility, AECS) — without them, the
    recoding's own reading (``utility.class_sizes``)."""
    rec = recoding(
        base.original, release, base.policy, encoded=base.encoded, originals=base.originals()
    )
    rec.cache.update(base.shared)
    if classes is not None:
        rec.cache["classes"] = classes
    row: dict[str, Any] = {"rows": len(release)}
    for name, m in MEASURES.items():
        row[name] = m.compute(rec)
    if classes is not None:
        row["n_suppressed"] = classes.n_suppressed
    base.shared.update({k: rec.cache[k] for k in ORIGINAL_KEYS if k in rec.cache})
    if base.target is None:
        return row
    if base.target not in release.columns:
        raise DataError(
            f"the release has no column {base.target!r} (the classification target); name a "
            "column both tables hold with --target or the policy's utility.target"
        )
    row["accuracy_original"] = base.accuracy(rec)
    if not rec.aligned:
        for name in ALIGNED_ONLY:
            row[name] = None
            row[f"{name}_reason"] = rec.unaligned
        return row
    result = classification_utility(
        rec,
        base.original[base.target],
        release[base.target],
        test_share=base.test_share,
        seed=base.seed,
        accuracy_original=row["accuracy_original"],
    )
    row["accuracy_release"] = result.accuracy_release
    row["accuracy_loss_points"] = result.loss_points
    return row


def compare(
    original: pd.DataFrame,
    release: pd.DataFrame,
    policy: Policy,
    *,
    target: str | None = None,
    test_share: float | None = None,
    seed: int | None = None,
) -> dict[str, Any]:
    """All the utility measures of ``release`` (one row of the compare table). ``target`` etc.
    default to the policy's ``utility`` options."""
    base = baseline(original, policy, target=target, test_share=test_share, seed=seed)
    return measure(base, release)


def compare_releases(
    original: pd.DataFrame,
    releases: list[tuple[str, pd.DataFrame]],
    policy: Policy,
    *,
    target: str | None = None,
    test_share: float | None = None,
    seed: int | None = None,
    allow_draft: bool = False,
    original_name: str = "original",
) -> dict[str, Any]:
    """``privcheck compare``: per release (in the order given) its measures, ``risk`` and
    ``passed`` (``privcheck.utility.risk``: the records a release leaves out count against the
    suppression limit), and the ``recommended`` release — among those that pass the policy, the
    least of the metric ``--algorithm auto`` compares by (``compared_by``,
    ``privcheck.ranking.comparison_metric``), ties to fewer suppressed records, then to the first
    given (None when none passes). ``before``: the original's own classes and risk, the row a
    release's risk is read against. A release without records is an input error, as an empty
    table is to ``check``.

    Which releases pass is the policy's verdict, so a draft policy (columns still marked
    ``review:``) is refused unless ``allow_draft``; the result then says ``draft: true``."""
    from privcheck.nested import refuse_nested
    from privcheck.utility.risk import release_verdict, risk_threshold

    policy.require_decided(allow_draft=allow_draft)
    for frame in (original, *(frame for _, frame in releases)):
        refuse_nested(frame, policy)  # (a column the policy does not name is not measured)

    base = baseline(original, policy, target=target, test_share=test_share, seed=seed)
    entries = []
    for name, frame in releases:
        if len(frame) == 0:  # as check refuses an empty table: no records is no pass
            raise DataError(
                f"the release {name} has no records (a header only?): an empty release is not "
                "a pass, and nothing can be measured on it; compare releases that hold records"
            )
        require_release(frame, policy, len(original))  # (before the check reads it)
        frame = categorized(frame)
        verdict = release_verdict(frame, policy, n_original=len(original))
        row = measure(base, frame, verdict.classes)
        entries.append({"release": name, **row, "risk": verdict.risk(), "passed": verdict.passed})
    metric = comparison_metric(policy)
    return {
        "releases": entries,
        "recommended": recommend(entries, metric),
        "compared_by": metric,
        "compared_by_reason": metric_reason(policy),
        "before": before_row(original, policy, original_name),
        "risk_threshold": risk_threshold(policy),
        "draft": policy.is_draft,
        "open_reviews": list(policy.open_reviews),
    }


def before_row(original: pd.DataFrame, policy: Policy, name: str) -> dict[str, Any]:
    """The original as ``check`` reads it: its classes, suppressed records (its ``*`` rows under
    ``suppressed_records: star``), prosecutor risk and whether it already passes — the "before"
    every release's risk is read against."""
    from privcheck.utility.risk import release_verdict

    verdict = release_verdict(categorized(original), policy)
    return {
        "release": name,
        "rows": len(original),
        "classes": verdict.classes.n_classes,
        "n_suppressed": verdict.classes.n_suppressed,
        "risk": verdict.risk(),
        "passed": verdict.passed,
    }


def categorized(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every column a categorical: each column factorized once, where both the
    reading of its cells and the check of the release (``release_verdict``) would factorize it
    again (a check of a file reads it dictionary-encoded the same way)."""
    out = {}
    for name in frame.columns:
        column = frame[name]
        if not isinstance(column.dtype, pd.CategoricalDtype):
            try:
                codes, uniques = pd.factorize(column, use_na_sentinel=True)
            except TypeError:  # nested cells (lists …) of a column the policy does not name
                out[name] = column
                continue
            column = pd.Categorical.from_codes(codes, categories=pd.Index(uniques))
        out[name] = column
    return pd.DataFrame(out, index=frame.index, columns=frame.columns)


def recommend(entries: list[dict[str, Any]], metric: str = "loss") -> str | None:
    """The release ``auto`` would choose among those that pass: the least ``metric``, then the
    fewest suppressed records, then the first given (``privcheck.ranking.rank_key``)."""
    passing = [e for e in entries if e["passed"]]
    index = best_index([e[metric] for e in passing], [e.get("n_suppressed", 0) for e in passing])
    return None if index is None else passing[index]["release"]
