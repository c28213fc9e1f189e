"""Utility of ANY release measured against its original, cell by cell and by distribution.

One file per measure; ``MEASURES`` registers them (name → what it means, which way is better,
how to compute it from a ``recoding.Recoding``), as ``privcheck.metrics.generalization.METRICS``
registers the node metrics. ``compare.compare`` computes them all for ``privcheck compare``;
the classification utility (which needs a target column and scikit-learn) lives beside them in
``classification``. Definitions: docs/utility.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from privcheck.utility.cells import (
    changed_cells,
    changed_share,
    generalized_cells,
    suppressed_cells,
    suppressed_share,
)
from privcheck.utility.class_sizes import (
    n_classes,
    release_aecs,
    release_discernibility,
    suppressed_records,
)
from privcheck.utility.entropy import non_uniform_entropy, normalised_entropy
from privcheck.utility.kl_divergence import kl_divergence
from privcheck.utility.loss import loss
from privcheck.utility.precision import precision
from privcheck.utility.recoding import Recoding


@dataclass(frozen=True)
class Measure:
    """A utility measure of a release: what it is, which way is better, how to compute it."""

    name: str
    summary: str
    higher_is_better: bool
    compute: Callable[[Recoding], float]


MEASURES: dict[str, Measure] = {
    m.name: m
    for m in (
        Measure("classes", "equivalence classes of kept rows", True, n_classes),
        Measure("prec", "Sweeney's precision (1 = no loss)", True, precision),
        Measure(
            "non_uniform_entropy",
            "Σ −log2 P(original | released), bits",
            False,
            non_uniform_entropy,
        ),
        Measure(
            "non_uniform_entropy_share",
            "non-uniform entropy / its all-'*' maximum",
            False,
            normalised_entropy,
        ),
        Measure("discernibility", "Σ class size² + suppressed·N", False, release_discernibility),
        Measure("aecs", "average equivalence-class size", False, release_aecs),
        Measure("kl_divergence", "KL of the QI joint distribution (nats)", False, kl_divergence),
        Measure("changed_cells", "QI cells whose value changed", False, changed_cells),
        Measure("changed_share", "share of QI cells changed", False, changed_share),
        Measure("suppressed_cells", "QI cells reading '*'", False, suppressed_cells),
        Measure("suppressed_share", "share of QI cells reading '*'", False, suppressed_share),
        Measure(
            "suppressed_records",
            "share of records suppressed (left out, or '*' rows check counts)",
            False,
            suppressed_records,
        ),
        Measure(
            "generalized_cells",
            "share of QI cells not released as their original",
            False,
            generalized_cells,
        ),
        Measure("loss", "mean share of its ground values a cell covers ('*' = 1)", False, loss),
    )
}
