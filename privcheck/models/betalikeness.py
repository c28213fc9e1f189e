"""β-likeness (Cao & Karras, VLDB 2012): no class makes a sensitive value much more likely.

For every sensitive value v with table share p_v and class share q_v > p_v, the relative gain
(q_v − p_v)/p_v is at most β (basic). The enhanced variant also bounds rare values' gain by their
information content: (q_v − p_v)/p_v ≤ min(β, −ln p_v), so a value with p_v = 0.5 may gain at most
ln 2 ≈ 0.69 even for β = 1. Values a class holds less often than the table (q ≤ p) are never
bounded: β-likeness protects against positive disclosure only.

The per-class statistic — and the report's ``value``, its largest over the classes — is the
largest relative gain max_v (q_v − p_v)/p_v (0 when no value is over-represented), in both
variants: the figure ARX's criteria compare and pyCANON's basic β reports. Basic β-likeness holds
exactly when that value is at most β; enhanced holds when every value also stays within its own
cap −ln p_v, so an enhanced report can fail with a value below β (the statistic says so).

Properties (``tests/models/test_betalikeness.py`` proves each on every node of random lattices):

- *monotone under generalization*: the condition on a class is q_v ≤ p_v·(1 + b_v) for every v,
  with b_v = β or min(β, −ln p_v) fixed by the table; a merged class's q_v is the size-weighted
  average of its parts', so it holds when every part does. Without suppression p never changes.
- *not monotone with suppression*: merging a passing class into a violating one can make the
  merged class violate, so the records to suppress can grow as a node is generalized.
- *table-dependent*: p is the released table's distribution, which suppression changes (as ARX's
  and t-closeness's): anonymizers re-evaluate the kept classes until they all hold.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from privcheck.classes import ClassTable
from privcheck.hookspecs import hookimpl
from privcheck.models.base import Evaluation, PrivacyModel
from privcheck.models.shares import class_all, class_max, table_shares
from privcheck.policy import SensitiveModelConfig


class BetaLikenessConfig(SensitiveModelConfig):
    """No class raises a sensitive value's share by more than a relative β over the table's."""

    model: Literal["beta-likeness"] = "beta-likeness"
    beta: float = Field(..., gt=0, description="Largest allowed relative gain (q − p)/p, > 0")
    variant: Literal["basic", "enhanced"] = Field(
        "basic", description="enhanced: each value's gain is also capped at −ln p"
    )


class BetaLikeness(PrivacyModel):
    name = "beta-likeness"
    config = BetaLikenessConfig
    summary = "no class raises a sensitive value's share by more than a relative β"
    table_dependent = True

    @classmethod
    def evaluate(cls, table: ClassTable, config: BetaLikenessConfig) -> Evaluation:
        s = table.sensitive[config.attribute]
        e = table_shares(table, config.attribute)
        gain = e.relative_gain()
        worst = class_max(np.maximum(gain, 0.0), s)
        if config.variant == "basic":
            ok = worst <= config.beta
            statistic = "largest (q − p)/p"
        else:
            cap = np.minimum(config.beta, -np.log(e.table_share()))
            ok = class_all(gain <= cap, s)
            statistic = "largest (q − p)/p (each value capped at min(β, −ln p))"
        return Evaluation(config, ok, worst, statistic, larger_is_safer=False)


@hookimpl
def privcheck_models() -> list[type[PrivacyModel]]:
    return [BetaLikeness]
