"""What an attack sees and what it returns, in the shape every risk report shares.

Apart from ``privcheck.risk.measures`` (which imports every family's measures) so that an
anonymizer replaying one attack — MDAV's exposure replay — loads only that attack's module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from privcheck.risk.results import LinkageResult


@dataclass
class AttackInputs:
    """What an attack sees: both files (aligned by position) and the intruder's knowledge.

    ``rows`` are the original records the intruder holds (their masked counterparts are the same
    rows of the release); ``attributes`` the characteristics it knows of them. ``scored_sample``
    says that the intruder holds every record and ``rows`` are only the sample whose
    re-identification is scored (an estimate of the whole-file figure; see
    `privcheck.anonymizers.exposure`).
    """

    original: pd.DataFrame
    masked: pd.DataFrame
    attributes: list[str]
    rows: np.ndarray
    #: the seed of every random choice (drawn from the OS entropy when none was given)
    seed: int
    scored_sample: bool = False
    #: further releases after ``masked`` (the attacks that take several: release-intersection)
    others: list[pd.DataFrame] = field(default_factory=list)
    #: the policy (attacks that read its hierarchies or models)
    policy: Any = None
    #: whether a model file named by a parameter may be a pickle (loading one runs its code;
    #: ``privcheck risk --trust-model-file``, see `privcheck.risk.model_file`)
    trust_model_file: bool = False
    #: the control set of the attacks on a synthetic table (``privcheck risk --control``)
    control: pd.DataFrame | None = None
    #: whether the seed was given (``--seed``): a control_share split must replay the one the
    #: generator's training data was made with
    seed_given: bool = False

    @property
    def all_rows(self) -> bool:
        return len(self.rows) == len(self.original)

    def intruder(self) -> pd.DataFrame:
        return self.original.iloc[self.rows][self.attributes].reset_index(drop=True)


@dataclass
class RiskOutcome:
    """A measure's result in the shape every report shares (see the module docstring)."""

    reidentification_rate: float | None
    certain_rate: float | None
    record_risk: np.ndarray
    attribute_contribution: dict[str, float]
    contribution_kind: str
    figures: dict[str, Any] = field(default_factory=dict)
    detail: dict[str, Any] = field(default_factory=dict)
    #: report sections of the attack's own (``privcheck.report.Section``), after the common ones
    sections: list[Any] = field(default_factory=list)
    #: the figure a policy's ``synthetic_risk.max_risk`` bounds (attacks on a synthetic table)
    bounded_figure: str | None = None


def from_linkage(res: LinkageResult) -> RiskOutcome:
    """The common shape of a record-linkage result (all linkage attacks return one)."""
    figures = {
        "anonymity_set_rate": res.anonymity_set_rate,
        "mean_anonymity_set_size": res.mean_anonymity_set_size,
        **res.figures,
    }
    return RiskOutcome(
        reidentification_rate=res.reidentification_rate,
        certain_rate=res.certain_rate,
        record_risk=np.asarray(res.record_risk, dtype=np.float64),
        attribute_contribution=dict(res.attribute_contribution),
        contribution_kind=res.attribute_contribution_kind,
        figures=figures,
        detail=res.model_dump(mode="json"),
    )
