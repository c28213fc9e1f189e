"""One ranking of releases, wherever releases are ranked: ``--algorithm auto`` choosing among its
candidates and ``privcheck compare`` recommending among files rank by the same metric and break
ties the same way, so that the two never recommend different releases of the same table.

The metric is the policy's ``metric`` when it is one every kind of release reports
(``COMMON_METRICS``: ``loss``, ``discernibility``, ``aecs``), else ``loss`` — Prec and height
describe only full-domain nodes (a Mondrian range or a blanked cell has no level). Lower is better
for each. Ties go to fewer suppressed records, then to the order the releases were given in.

It sits beside ``privcheck.classes`` and imports only the policy — nothing from
``privcheck.anonymizers``, ``privcheck.engines`` or the ``privcheck.utility`` package (whose
measures an ``anonymize`` without a ``utility`` section never loads); ``auto`` imports it.
"""

from __future__ import annotations

from collections.abc import Sequence

from privcheck.policy import Policy

#: metrics that describe every kind of release (lower is better for each)
COMMON_METRICS = ("loss", "discernibility", "aecs")


def comparison_metric(policy: Policy) -> str:
    """The metric releases are compared by: the policy's, if it set one every release
    reports, else ``loss``."""
    if "metric" in policy.model_fields_set and policy.metric in COMMON_METRICS:
        return policy.metric
    return "loss"


def metric_reason(policy: Policy) -> str:
    """Why releases are compared by ``comparison_metric(policy)``, in words a report prints."""
    metric = comparison_metric(policy)
    if "metric" not in policy.model_fields_set:
        return f"{metric} (the policy sets no metric)"
    if policy.metric == metric:
        return f"{metric} (the policy's metric)"
    return (
        f"{metric} (the policy's metric {policy.metric} describes only full-domain nodes: a "
        "Mondrian range or a blanked cell has no level)"
    )


#: significant digits a metric is compared to: the same figure computed two ways (an
#: anonymizer's class tables, ``compare``'s cells) differs in its last bits, and must tie
SIGNIFICANT = 12


def rank_key(metric_value: float, n_suppressed: int, position: int) -> tuple[float, int, int]:
    """Sort key of a release: least metric (to ``SIGNIFICANT`` digits), then fewest suppressed
    records, then first given (``auto``: its candidates' order)."""
    return (float(f"{float(metric_value):.{SIGNIFICANT}g}"), int(n_suppressed), int(position))


def best_index(values: Sequence[float], suppressed: Sequence[int]) -> int | None:
    """Index of the release ``rank_key`` puts first (None when there is none)."""
    if not values:
        return None
    keys = [rank_key(v, s, i) for i, (v, s) in enumerate(zip(values, suppressed, strict=True))]
    return min(range(len(keys)), key=keys.__getitem__)
