"""The transparency attacks as risk measures: ``rank-swap-transparency``,
``microaggregation-transparency`` (univariate) and ``microaggregation-multivariate-transparency``
(MDAV: the replay by an intruder holding the whole original file, or the nearest-cluster linkage
from the intruder's own records).
"""

from __future__ import annotations

from typing import Any, ClassVar

from privcheck.errors import PolicyError
from privcheck.risk.base import RiskMeasure
from privcheck.risk.linkage.measures import LinkageMeasure
from privcheck.risk.outcome import AttackInputs, RiskOutcome, from_linkage
from privcheck.risk.transparency.multivariate import (
    microaggregation_replay,
    multivariate_microaggregation_transparency,
)
from privcheck.risk.transparency.univariate import (
    microaggregation_transparency,
    rank_swap_transparency,
)


class RankSwapTransparency(LinkageMeasure):
    name = "rank-swap-transparency"
    summary = "transparency attack on rank swapping (params p, variant, coverage)"
    checks_own: ClassVar[frozenset[str]] = frozenset({"variant", "coverage"})

    @classmethod
    def function(cls):
        return rank_swap_transparency


#: the intruder's knowledge in the microaggregation attacks: ``--param knowledge=own|original``
KNOWLEDGE = ("own", "original")


def _knowledge(params: dict[str, Any], default: str, name: str) -> str:
    knowledge = params.pop("knowledge", default)
    if knowledge not in KNOWLEDGE:
        raise PolicyError(
            f"attack {name}: knowledge must be 'own' (the intruder's own records) or 'original' "
            f"(the whole original file); got {knowledge!r}"
        )
    return knowledge


def _whole_file(inputs: AttackInputs, name: str) -> None:
    if not inputs.all_rows and not inputs.scored_sample:
        raise PolicyError(
            f"attack {name} with knowledge=original gives the intruder the whole original file; "
            "drop --intruder-records, or use --param knowledge=own"
        )


class MicroaggregationTransparency(LinkageMeasure):
    """Univariate microaggregation; ``knowledge=original`` aligns the sorted marginals."""

    name = "microaggregation-transparency"
    summary = "transparency attack on univariate microaggregation (params k, knowledge)"

    @classmethod
    def function(cls):
        return microaggregation_transparency

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> None:
        _knowledge(dict(params), "own", cls.name)
        super().check_params({k: v for k, v in params.items() if k != "knowledge"})

    @classmethod
    def run(cls, inputs: AttackInputs, **params: Any) -> RiskOutcome:
        if "k" not in params:
            raise PolicyError(
                "attack microaggregation-transparency needs the published k: --param k=3"
            )
        if _knowledge(params, "own", cls.name) == "original":
            _whole_file(inputs, cls.name)
            params["original"] = inputs.original[inputs.attributes]
        return super().run(inputs, **params)


class MultivariateMicroaggregationTransparency(RiskMeasure):
    """Multivariate microaggregation (MDAV): the replay by an intruder holding the whole
    original file (``knowledge=original``, default) or Nin–Herranz–Torra's nearest-cluster
    linkage from the intruder's own records (``knowledge=own``)."""

    name = "microaggregation-multivariate-transparency"
    summary = (
        "transparency attack on MDAV microaggregation (params k, groups, knowledge, method, "
        "block_size, aggregate)"
    )
    #: parameters of each knowledge level beyond the shared k, groups and random_state
    only: ClassVar[dict[str, tuple[str, ...]]] = {
        "original": ("method", "block_size", "aggregate"),
        "own": ("standardisation", "chunk_size", "memory_limit"),
    }

    @classmethod
    def function(cls):
        return multivariate_microaggregation_transparency

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> None:
        rest = dict(params)
        knowledge = _knowledge(rest, "original", cls.name)
        accepted = ("k", "groups", "random_state", *cls.only[knowledge])
        for key in rest:
            if key not in accepted:
                raise PolicyError(
                    f"attack {cls.name} (knowledge={knowledge}) has no parameter {key!r}; its "
                    f"parameters: knowledge, {', '.join(accepted)}"
                )

    @classmethod
    def run(cls, inputs: AttackInputs, **params: Any) -> RiskOutcome:
        params.setdefault("random_state", inputs.seed)
        knowledge = _knowledge(params, "original", cls.name)
        if knowledge == "own":
            res = multivariate_microaggregation_transparency(
                inputs.intruder(),
                inputs.masked[inputs.attributes],
                attributes=inputs.attributes,
                true_index=inputs.rows,
                **params,
            )
            return from_linkage(res)
        if "k" not in params:
            raise PolicyError(
                f"attack {cls.name} replays MDAV and needs the published k: --param k=3"
            )
        _whole_file(inputs, cls.name)
        res = microaggregation_replay(
            inputs.original[inputs.attributes],
            inputs.masked[inputs.attributes],
            attributes=inputs.attributes,
            **params,
        )
        return from_linkage(res)
