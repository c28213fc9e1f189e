"""(α,k)-anonymity (Wong, Li, Fu & Wang, KDD 2006): k-anonymity plus a cap α on how much of a
class one sensitive value may make up.

Every class has at least k records and the share of the sensitive value ``value`` in it is at most
α. Wong et al. protect one sensitive value (a disease, say HIV); without ``value`` the most frequent
value of each class is capped instead (the "simple" form pyCANON checks), which protects every
value at once.

The per-class statistic — and the report's ``value``, its largest over the classes — is that
share: count(V)/n, or the largest count/n. The table holds iff every class has n ≥ k and share ≤ α
(so a report can fail on k with a share below α: the violators list the small classes).

A ``value`` that does not occur in the attribute at all is a policy error (most likely a typo: the
model would hold vacuously). It is checked on the data a check or an anonymization starts from;
a release whose anonymizer suppressed every record of the value still re-checks (share 0).

Properties (``tests/models/test_alphak.py``):

- *monotone under generalization*: a merged class is at least as large as its parts and its share
  of any value is the size-weighted average of theirs, so it holds when every part does.
- *not monotone with suppression* (for α < 1): merging a passing class into a violating one can make
  the merged class violate (5 of 10 and 2 of 2 for α = ½ give 7 of 12), so the records to suppress
  can grow as a node is generalized. With α = 1 the model is k-anonymity, which is.
- not table-dependent: each class is judged on its own.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from privcheck.classes import ClassTable
from privcheck.encoding import EncodedTable, _string_labels
from privcheck.errors import PolicyError
from privcheck.hookspecs import hookimpl
from privcheck.models.base import Evaluation, PrivacyModel
from privcheck.models.shares import class_max
from privcheck.policy import SensitiveModelConfig


class AlphaKAnonymityConfig(SensitiveModelConfig):
    """Classes of at least k records in which a sensitive value has a share of at most α."""

    model: Literal["alpha-k-anonymity"] = "alpha-k-anonymity"
    alpha: float = Field(..., gt=0, le=1, description="Largest allowed share of the value, (0, 1]")
    k: int = Field(..., ge=1, description="Smallest allowed class size")
    value: str | int | float | None = Field(
        None,
        description="The sensitive value protected (default: the most frequent value of each "
        "class)",
    )


def _label(value: str | int | float) -> str:
    """The value as the encoded labels spell it (39.0 → '39')."""
    return str(_string_labels(np.array([value], dtype=object))[0])


def value_code(encoded: EncodedTable, config: AlphaKAnonymityConfig) -> int | None:
    """The ground code of ``config.value`` in the attribute's domain (None: not in it)."""
    ground = encoded.sensitive[config.attribute].levels.ground
    hits = np.flatnonzero(
        np.asarray([str(g) for g in ground], dtype=object) == _label(config.value)
    )
    return int(hits[0]) if len(hits) else None


class AlphaKAnonymity(PrivacyModel):
    name = "alpha-k-anonymity"
    config = AlphaKAnonymityConfig
    summary = "classes of ≥ k records in which a sensitive value has a share of at most α"

    @classmethod
    def monotone_with_suppression(cls, config: AlphaKAnonymityConfig) -> bool:
        # with α = 1 the share never fails: (1,k)-anonymity is k-anonymity
        return config.alpha >= 1

    @classmethod
    def validate_data(cls, encoded: EncodedTable, config: AlphaKAnonymityConfig) -> None:
        if config.value is None:
            return
        code = value_code(encoded, config)
        col = encoded.sensitive[config.attribute]
        present = False
        if code is not None:
            w = encoded.weights
            present = bool((col.codes == code).any() if w is None else w[col.codes == code].sum())
        if not present:
            raise PolicyError(
                f"alpha-k-anonymity: value {config.value!r} does not occur in "
                f"{config.attribute!r}; name a value of the attribute (or leave 'value' out to "
                "cap every value's share)"
            )

    @classmethod
    def evaluate(cls, table: ClassTable, config: AlphaKAnonymityConfig) -> Evaluation:
        s = table.sensitive[config.attribute]
        sizes = table.subjects
        if config.value is None:
            top = class_max(s.counts, s)
        else:
            code = value_code(table.encoded, config)
            hit = s.values == code if code is not None else np.zeros(len(s.values), dtype=bool)
            top = np.bincount(s.entry_class()[hit], weights=s.counts[hit], minlength=s.n_classes)
        share = top / sizes
        ok = (share <= config.alpha) & (sizes >= config.k)
        what = f"share of {_label(config.value)!r}" if config.value is not None else "largest share"
        return Evaluation(config, ok, share, what, larger_is_safer=False)


@hookimpl
def privcheck_models() -> list[type[PrivacyModel]]:
    return [AlphaKAnonymity]
