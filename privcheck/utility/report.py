"""The ``utility`` entry of an anonymization report.

An anonymizer's written release may be shuffled (the default) or leave suppressed records out,
so it cannot be compared cell by cell; but the anonymizer knows where every record went. For a
full-domain release the aligned release is one gather per quasi-identifier — each record's
label at the node, ``*`` for a suppressed record (charged as the node metrics charge it) — and
``compare`` runs on that. An anonymizer that recodes cells (local suppression, Mondrian) passes
its own release in input order to ``release_utility``.

Measured only when the policy has a ``utility`` section (the classification model costs
seconds on Adult; a search benchmark should not pay for it unasked).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privcheck.encoding import EncodedTable, string_labels
from privcheck.hierarchy import TOP
from privcheck.policy import Policy


def release_utility(
    original: pd.DataFrame,
    release: pd.DataFrame,
    policy: Policy,
    encoded: EncodedTable | None = None,
) -> dict[str, float] | None:
    """``compare`` of a release in input order (every record kept or written as ``*``), or None
    when the policy asks for no utility. The classification target is read from the original:
    the release keeps a sensitive or insensitive column unchanged. ``encoded``: the original
    as the anonymizer encoded it (its quasi-identifiers are what compare would encode)."""
    if policy.utility is None:
        return None
    from privcheck.utility.compare import baseline, measure

    target = policy.utility.target
    if target is not None and target in original.columns:
        release = release.assign(**{target: original[target]})
    row = measure(baseline(original, policy, encoded=encoded), release)
    return {k: float(v) for k, v in row.items()}


def node_release_utility(
    original: pd.DataFrame,
    encoded: EncodedTable,
    node: tuple[int, ...],
    kept: np.ndarray,
    policy: Policy,
) -> dict[str, float] | None:
    """``release_utility`` of the full-domain release at ``node`` with ``kept`` records. Each
    column is a categorical of the node's labels (and ``*``): its codes are one gather, and no
    string is made per record."""
    if policy.utility is None:
        return None
    columns = {}
    for col, level in zip(encoded.quasi_identifiers, node, strict=True):
        labels = list(string_labels(col.levels.labels[level]))
        codes = col.levels.maps[level][col.codes].astype(np.int64)
        if not kept.all():
            if TOP not in labels:
                labels.append(TOP)
            codes[~kept] = labels.index(TOP)
        columns[col.name] = pd.Categorical.from_codes(codes, categories=labels)
    return release_utility(original, pd.DataFrame(columns), policy, encoded)
