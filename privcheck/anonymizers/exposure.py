"""A masked release's own exposure: the transparency attack that fits its method, run on it.

A masking method is public (its report publishes it with every parameter), so the fair question
about a masked release is how many records an intruder who knows the method re-identifies.
After masking, the anonymizer runs the attack that fits its method on the release it just made
(before the row shuffle, so the true pairing is known), with the intruder of the worst case of
the disclosure-risk literature: it holds every original record on the quasi-identifiers.

Each masking anonymizer names its attack (`ExposureAttack`): a risk measure of
``privcheck risk`` with its ``--param`` values, so the figure can be reproduced from the written
files with ``privcheck risk --original DATA --masked RELEASE --attack NAME --param …`` (on a
release written with ``--keep-order``; the attack needs the rows aligned).

The share reported is the expected share of records the intruder links to their true released
record: a record's risk is 1/|A| when its true record is among the |A| records the attack finds
best (1 for a certain link, 0 when the truth is not among them), averaged over the records —
the anonymity-set rate of the attack, which does not depend on how ties are broken.

Cost. The candidate-set attacks (rank swapping, univariate microaggregation, fuzzy
microaggregation, noise) compare every attacked record with every released record: work grows
as n² × attributes. Up to ``EXPOSURE_BUDGET`` such cells every record is attacked; above it a
simple random sample of S = max(``MIN_SAMPLE``, budget / (n·m)) records is attacked against the
whole release, and the report gives the sample mean of the per-record risks (unbiased for the
share) with a 95 % normal-approximation confidence interval, mean ± 1.96·s/√S·√(1 − S/n)
(finite-population correction; s the sample standard deviation of the risks). The MDAV replay
costs O(n log n) from the anonymizer's own clusters and always attacks every record.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from privcheck.report import Exposure

if TYPE_CHECKING:  # the risk package loads only when an attack runs
    from privcheck.risk.outcome import AttackInputs, RiskOutcome

#: candidate-mask cells (attacked records × released records × attributes) before sampling
EXPOSURE_BUDGET = 100_000_000
#: records attacked at least when sampling
MIN_SAMPLE = 1_000
#: two-sided 95 % normal quantile
Z95 = 1.959963984540054


@dataclass
class ExposureAttack:
    """The attack that fits a masking method, as ``privcheck risk`` runs it.

    ``name`` and ``params`` are the measure and its ``--param`` values; ``intruder`` says what
    the intruder holds and knows; ``quadratic`` whether its work grows as attacked × released
    records (then it is sampled above the budget); ``runner``, when set, runs the same attack
    through a shortcut the anonymizer has (the MDAV replay from its own clusters) and must give
    the measure's result.
    """

    name: str
    params: dict[str, Any]
    intruder: str
    quadratic: bool = True
    runner: Callable[[AttackInputs], RiskOutcome] | None = field(default=None, repr=False)


def sample_rows(
    n: int,
    m: int,
    quadratic: bool,
    rng: np.random.Generator,
    budget: int = EXPOSURE_BUDGET,
    min_sample: int = MIN_SAMPLE,
) -> np.ndarray:
    """All rows, or a simple random sample when the attack would exceed ``budget`` cells."""
    if not quadratic or n * n * max(m, 1) <= budget:
        return np.arange(n, dtype=np.int64)
    size = min(n, max(min_sample, int(budget // (n * max(m, 1)))))
    return np.sort(rng.choice(n, size=size, replace=False)).astype(np.int64)


def share_estimate(risk: np.ndarray, n: int) -> tuple[float, list[float] | None]:
    """The share (mean record risk) and, for a sample of fewer than n records, its 95 % CI."""
    risk = np.asarray(risk, dtype=np.float64)
    share = float(risk.mean()) if risk.size else 0.0
    if risk.size >= n or risk.size < 2:
        return share, None
    half = Z95 * float(risk.std(ddof=1)) / np.sqrt(risk.size) * np.sqrt(1.0 - risk.size / n)
    return share, [max(0.0, share - half), min(1.0, share + half)]


def measure_exposure(
    attack: ExposureAttack,
    original: pd.DataFrame,
    masked: pd.DataFrame,
    threshold: float,
    rng: np.random.Generator,
    *,
    budget: int = EXPOSURE_BUDGET,
    min_sample: int = MIN_SAMPLE,
) -> Exposure:
    """Run ``attack`` on ``masked`` (row i = the masked record of ``original``'s row i)."""
    from privcheck.plugins import risk_registry
    from privcheck.risk.outcome import AttackInputs

    started = time.perf_counter()
    attributes = [str(c) for c in original.columns]
    n = len(original)
    rows = sample_rows(n, len(attributes), attack.quadratic, rng, budget, min_sample)
    inputs = AttackInputs(
        original.reset_index(drop=True),
        masked.reset_index(drop=True),
        attributes,
        rows,
        int(rng.integers(2**63 - 1)),  # tie-breaks only; the share does not depend on them
        scored_sample=True,
    )
    if attack.runner is not None:
        out = attack.runner(inputs)
    else:
        out = risk_registry()[attack.name].assess(inputs, **dict(attack.params))
    share, interval = share_estimate(out.record_risk, n)
    certain = float(np.mean(out.record_risk >= 1.0)) if len(rows) else 0.0
    figures = {
        k: v
        for k, v in out.figures.items()
        if isinstance(v, bool | int | float | str) and k not in ("anonymity_set_rate",)
    }
    return Exposure(
        attack=attack.name,
        params=attack.params,
        intruder=attack.intruder,
        n_records=n,
        n_attacked=len(rows),
        sampled=len(rows) < n,
        reidentified_share=share,
        confidence_interval=interval,
        certain_share=certain,
        threshold=threshold,
        warning=share > threshold,
        figures=figures,
        seconds=round(time.perf_counter() - started, 4),
    )
