"""(α,k)-anonymity (Wong et al., KDD 2006) as a third-party privcheck plugin.

Every class has at least k records, and no sensitive value makes up more than a fraction α of
any class. It shows the whole plugin contract: a config class, a model class, one hook.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from privcheck import hookimpl
from privcheck.classes import ClassTable
from privcheck.models import Evaluation, PrivacyModel
from privcheck.policy import SensitiveModelConfig


class AlphaKConfig(SensitiveModelConfig):
    """Classes of at least k records in which no sensitive value exceeds a share α."""

    model: Literal["alpha-k-anonymity"] = "alpha-k-anonymity"
    alpha: float = Field(..., gt=0, le=1)
    k: int = Field(..., ge=1)


class AlphaKAnonymity(PrivacyModel):
    name = "alpha-k-anonymity"
    config = AlphaKConfig
    summary = "classes of ≥ k records where no sensitive value has a share above α"

    @classmethod
    def evaluate(cls, table: ClassTable, config: AlphaKConfig) -> Evaluation:
        s = table.sensitive[config.attribute]
        top = np.zeros(s.n_classes)
        np.maximum.at(top, s.entry_class(), s.counts)
        share = top / table.sizes
        ok = (share <= config.alpha + 1e-12) & (table.sizes >= config.k)
        return Evaluation(config, ok, share, "largest value share", larger_is_safer=False)


@hookimpl
def privcheck_models() -> list[type[PrivacyModel]]:
    return [AlphaKAnonymity]
