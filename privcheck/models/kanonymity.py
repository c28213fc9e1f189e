"""k-anonymity (Samarati & Sweeney): every class has at least k records."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from privcheck.classes import ClassTable
from privcheck.hookspecs import hookimpl
from privcheck.models.base import Evaluation, PrivacyModel
from privcheck.policy import ModelConfig


class KAnonymityConfig(ModelConfig):
    """Every combination of quasi-identifier values is shared by at least k records."""

    model: Literal["k-anonymity"] = "k-anonymity"
    k: int = Field(..., ge=1, description="Smallest allowed class size")


class KAnonymity(PrivacyModel):
    name = "k-anonymity"
    config = KAnonymityConfig
    summary = "every class has at least k records (k people with an individual column)"

    @classmethod
    def monotone_with_suppression(cls, config: KAnonymityConfig) -> bool:
        # a class of at least k records stays inside a class of at least k when generalized
        return True

    @classmethod
    def evaluate(cls, table: ClassTable, config: KAnonymityConfig) -> Evaluation:
        sizes = table.subjects  # distinct people when the policy names an individual
        what = "class size" if table.people is None else "class size (people)"
        return Evaluation(config, sizes >= config.k, sizes.astype(float), what)


@hookimpl
def privcheck_models() -> list[type[PrivacyModel]]:
    return [KAnonymity]
