"""δ-disclosure privacy (Brickell & Shmatikov, KDD 2008): no class shifts any sensitive value's
likelihood by more than a factor e^δ either way.

For every sensitive value v present in a class (q_v > 0), |ln(q_v / p_v)| < δ — strictly, as in
the paper and in ARX. ARX takes the logarithm to base 2; ``log_base: 2`` reproduces it, the
default ``e`` is the paper's (and pyCANON's). Values absent from a class are not bounded (their
ratio would be −∞: the paper restricts the test to the values that occur).

The per-class statistic — and the report's ``value``, its largest over the classes — is
max_v |log(q_v / p_v)| over the values present; the table holds iff that value is below δ.

Properties (``tests/models/test_deltadisclosure.py``):

- *not monotone under generalization*: the lower side bites when classes merge. On a table with
  p_a = p_b = ½, the classes {a, b}, {a, a, a, a} and {b, b, b, b} satisfy δ = 0.7 (the worst is
  |ln 2| = 0.69), but merging the first two dilutes b to q_b = 1/6: |ln(1/3)| = 1.10. The fully
  generalized table (q = p) satisfies it again. Searches therefore evaluate every node instead of
  inferring verdicts from it (Incognito prunes its attribute subsets with the policy's monotone
  models only; MinGen tags no satisfied up-sets).
- *not monotone with suppression*, and *table-dependent* (p is the released table's
  distribution, which suppression changes; anonymizers iterate to the kept classes' fixed point).
"""

from __future__ import annotations

from typing import Annotated, Literal

import numpy as np
from pydantic import BeforeValidator, Field

from privcheck.classes import ClassTable
from privcheck.hookspecs import hookimpl
from privcheck.models.base import Evaluation, PrivacyModel
from privcheck.models.shares import class_max, table_shares
from privcheck.policy import SensitiveModelConfig


def _base(value: object) -> object:
    """``log_base`` as written in YAML/JSON: ``e``, or 2 as a number or a string."""
    if isinstance(value, str) and value.strip() == "2":
        return 2
    if isinstance(value, float) and value == 2.0:
        return 2
    return value


class DeltaDisclosureConfig(SensitiveModelConfig):
    """No class changes a present sensitive value's share by a factor e^δ (or 2^δ) or more."""

    model: Literal["delta-disclosure"] = "delta-disclosure"
    delta: float = Field(..., gt=0, description="Bound on |log(q/p)| for present values (strict)")
    log_base: Annotated[Literal["e", 2], BeforeValidator(_base)] = Field(
        "e", description="Base of the logarithm: e (the paper, pyCANON) or 2 (ARX)"
    )


class DeltaDisclosure(PrivacyModel):
    name = "delta-disclosure"
    config = DeltaDisclosureConfig
    summary = "no class shifts a present sensitive value's share by a factor of e^δ or more"
    monotone = False
    table_dependent = True

    @classmethod
    def evaluate(cls, table: ClassTable, config: DeltaDisclosureConfig) -> Evaluation:
        s = table.sensitive[config.attribute]
        ratio = table_shares(table, config.attribute).ratio()
        log = np.log2(ratio) if config.log_base == 2 else np.log(ratio)
        worst = class_max(np.abs(log), s)
        base = "log2" if config.log_base == 2 else "ln"
        return Evaluation(
            config, worst < config.delta, worst, f"largest |{base}(q/p)|", larger_is_safer=False
        )


@hookimpl
def privcheck_models() -> list[type[PrivacyModel]]:
    return [DeltaDisclosure]
