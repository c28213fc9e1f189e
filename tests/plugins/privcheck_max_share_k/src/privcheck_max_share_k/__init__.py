"""Max-share k-anonymity as a third-party privcheck plugin (an example of the plugin contract).

Every class has at least k records, and no sensitive value makes up more than a fraction
``max_share`` of any class — the simple form of (α,k)-anonymity, which privcheck ships built in as
``alpha-k-anonymity``; this package shows the whole plugin contract on it: a config class, a
model class, one hook.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from privcheck import hookimpl
from privcheck.classes import ClassTable
from privcheck.models import Evaluation, PrivacyModel
from privcheck.policy import SensitiveModelConfig


class MaxShareKConfig(SensitiveModelConfig):
    """Classes of at least k records in which no sensitive value exceeds a share max_share."""

    model: Literal["max-share-k-anonymity"] = "max-share-k-anonymity"
    max_share: float = Field(..., gt=0, le=1)
    k: int = Field(..., ge=1)


class MaxShareKAnonymity(PrivacyModel):
    name = "max-share-k-anonymity"
    config = MaxShareKConfig
    summary = "classes of ≥ k records where no sensitive value has a share above max_share"

    @classmethod
    def evaluate(cls, table: ClassTable, config: MaxShareKConfig) -> Evaluation:
        s = table.sensitive[config.attribute]
        top = np.zeros(s.n_classes)
        np.maximum.at(top, s.entry_class(), s.counts)
        share = top / table.sizes
        ok = (share <= config.max_share + 1e-12) & (table.sizes >= config.k)
        return Evaluation(config, ok, share, "largest value share", larger_is_safer=False)


@hookimpl
def privcheck_models() -> list[type[PrivacyModel]]:
    return [MaxShareKAnonymity]
