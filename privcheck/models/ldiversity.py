"""l-diversity (Machanavajjhala et al.): distinct, entropy and recursive (c,l).

All three are formulas over the sparse class × sensitive-value count matrix, in ARX's exact
forms (no rounding of exp(entropy), counts sorted in descending order for recursive (c,l)).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field, model_validator

from privcheck.classes import ClassTable, SensitiveCounts
from privcheck.hookspecs import hookimpl
from privcheck.models.base import Evaluation, PrivacyModel
from privcheck.policy import SensitiveModelConfig

#: rounding allowance of the entropy test, relative to Σ|f·ln(f·l/n)|: far above the rounding
#: error of the sum, far below the smallest real excess of integer counts (~2/n for {n/2 ± 1})
_ENTROPY_RTOL = 1e-12


class LDiversityConfig(SensitiveModelConfig):
    """Each class holds at least l "well-represented" values of the sensitive attribute."""

    model: Literal["l-diversity"] = "l-diversity"
    variant: Literal["distinct", "entropy", "recursive"] = "distinct"
    l: float = Field(..., ge=1, description="Required diversity")  # noqa: E741
    c: float | None = Field(None, gt=0, description="Recursive (c,l): r1 < c·(r_l + … + r_m)")

    @model_validator(mode="after")
    def _variant_params(self) -> LDiversityConfig:
        if self.variant in ("distinct", "recursive") and not float(self.l).is_integer():
            raise ValueError(
                f"l must be a whole number for {self.variant} l-diversity; got {self.l}"
            )
        if self.variant == "recursive" and self.c is None:
            raise ValueError("recursive (c,l)-diversity needs the parameter c (> 0)")
        if self.variant != "recursive" and self.c is not None:
            raise ValueError(f"c applies to recursive l-diversity only, not to {self.variant}")
        return self


def distinct_counts(s: SensitiveCounts) -> np.ndarray:
    """Number of distinct sensitive values per class."""
    return np.diff(s.indptr).astype(float)


def entropy_excess(
    s: SensitiveCounts,
    sizes: np.ndarray,
    l: float,  # noqa: E741
) -> tuple[np.ndarray, np.ndarray]:
    """ARX's test Σ f·ln f ≤ n·(ln n − ln l), rewritten as Σ f·ln(f·l/n) ≤ 0 (Σ f = n).

    Returns the left side per class and the sum of its terms' magnitudes (its rounding scale).
    The terms vanish as a class nears uniform, so this form keeps full precision where the test
    is decided: n·ln n and Σ f·ln f agree to ~13 digits there, and differencing them judged a
    class {15082, 15080} (exp(H) = 1.999999996) entropy-2-diverse. A class uniform over l
    values gives exactly 0.
    """
    cls = s.entry_class()
    f = s.counts.astype(float)
    n = sizes[cls]
    terms = f * l  # f·ln(1 + (f·l − n)/n), in place: entry-sized buffers add up on big tables
    terms -= n
    terms /= n
    del n
    np.log1p(terms, out=terms)
    terms *= f
    excess = np.bincount(cls, weights=terms, minlength=s.n_classes)
    scale = np.bincount(cls, weights=np.abs(terms, out=terms), minlength=s.n_classes)
    return excess, scale


def entropy(s: SensitiveCounts, sizes: np.ndarray) -> np.ndarray:
    """Shannon entropy −Σ p·ln p per class.

    Summed from p = f/n rather than as ln n − Σ f·ln f / n: a single-valued class then has
    entropy exactly 0 (exp = 1), where the other form rounds to 0.9999999999999996 for some n.
    """
    cls = s.entry_class()
    p = s.counts / sizes[cls]
    p *= np.log(p)
    return -np.bincount(cls, weights=p, minlength=s.n_classes)


def recursive_ratio(
    s: SensitiveCounts,
    l: int,  # noqa: E741
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """r1 / (r_l + … + r_m) per class, counts sorted descending (inf when the tail is empty)."""
    cls = s.entry_class()
    # descending counts within each class; the entries are grouped by class already, so the
    # sort keeps every class in its own slots and ``cls`` needs no reordering
    counts = s.counts[np.lexsort((-s.counts, cls))]
    rank = np.arange(len(counts))
    rank -= s.indptr[cls]
    r1 = counts[s.indptr[:-1]].astype(float)
    in_tail = rank >= l - 1
    tail = np.bincount(cls[in_tail], weights=counts[in_tail], minlength=s.n_classes)
    with np.errstate(divide="ignore"):
        return np.where(tail > 0, r1 / np.where(tail > 0, tail, 1), np.inf), r1, tail


class LDiversity(PrivacyModel):
    name = "l-diversity"
    config = LDiversityConfig
    summary = "each class has l well-represented sensitive values"

    @classmethod
    def monotone_with_suppression(cls, config: LDiversityConfig) -> bool:
        # a class with l distinct values keeps them when merged; entropy and recursive (c,l) can
        # be spoiled by merging with a skewed violating class
        return config.variant == "distinct"

    @classmethod
    def evaluate(cls, table: ClassTable, config: LDiversityConfig) -> Evaluation:
        s = table.sensitive[config.attribute]
        if config.variant == "distinct":
            distinct = distinct_counts(s)
            return Evaluation(config, distinct >= config.l, distinct, "distinct values")
        if config.variant == "entropy":
            n = table.value_sizes(config.attribute).astype(float)
            excess, scale = entropy_excess(s, n, config.l)
            ok = excess <= _ENTROPY_RTOL * scale
            exp_entropy = np.exp(entropy(s, n))
            return Evaluation(config, ok, exp_entropy, "exp(entropy)")
        ratio, _, _ = recursive_ratio(s, int(config.l))
        # r1 < c·(r_l + … + r_m) decided as r1 / (r_l + …) < c: a quotient of integers rounds
        # to the same double as the c the user wrote when they are equal, while c·tail can round
        # past r1 (0.14 · 50 = 7.000000000000001 would let r1 = 7 pass)
        return Evaluation(
            config, ratio < config.c, ratio, "r1 / (r_l + … + r_m)", larger_is_safer=False
        )


@hookimpl
def privcheck_models() -> list[type[PrivacyModel]]:
    return [LDiversity]
