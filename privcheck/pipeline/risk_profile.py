"""Re-identification risk before and after an anonymization, for its report.

Before: the input's equivalence classes at ground values, as ``privcheck check`` groups the raw
data, counted by the engine that holds it (``privcheck.engines.input_classes``,
``Release.before``). After: the release's classes as ``privcheck check`` forms them from the
written file — read off the class table the anonymizer's own re-check judged
(``Report._judged``, set by ``checker.check_table``), so suppressed records (left out, or ``*``
rows) do not count and a ``*`` cell is read per the policy's ``suppressed_cells``. Both are
class tables; the figures come from ``privcheck.risk.population.prosecutor``, which
``privcheck compare`` can share.
"""

from __future__ import annotations

from privcheck.checker import JudgedClasses
from privcheck.policy import Policy
from privcheck.report import AnonymizationReport, ProsecutorRisk, RiskProfile, SizeHistogram
from privcheck.risk.population.prosecutor import (
    RISK_BINS,
    policy_k,
    prosecutor_risk,
    risk_histogram,
    size_distribution,
    threshold,
)


def attach_risk(
    report: AnonymizationReport, policy: Policy, before: JudgedClasses | None
) -> AnonymizationReport:
    """Fill ``risk_before``, ``risk_after`` and ``risk_profile`` of an anonymization report
    from the input's classes (``before``) and the classes its re-check judged."""
    after: JudgedClasses | None = getattr(report.check, "_judged", None)
    k = policy_k(policy.models)
    if before is not None:
        report.risk_before = ProsecutorRisk(**prosecutor_risk(before.sizes, before.records, k))
    if after is not None:
        report.risk_after = ProsecutorRisk(**prosecutor_risk(after.sizes, after.records, k))
    if before is not None and after is not None:
        report.risk_profile = RiskProfile(
            threshold=threshold(k),
            k=k,
            suppressed_cells=policy.suppressed_cells,
            risk_bins=list(RISK_BINS),
            records_before=risk_histogram(before.sizes, before.records),
            records_after=risk_histogram(after.sizes, after.records),
            class_sizes_before=SizeHistogram(**size_distribution(before.sizes, before.records)),
            class_sizes_after=SizeHistogram(**size_distribution(after.sizes, after.records)),
        )
    return report
