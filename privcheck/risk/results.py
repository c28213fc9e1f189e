"""Result models of the disclosure-risk attacks.

Every attack returns a pydantic model whose JSON form is small (rates, parameters, summaries)
while the per-record arrays stay on the object as numpy arrays excluded from serialisation:
a report draws the risk profile from them, the JSON carries only their summary. This keeps
``privcheck risk --format json`` readable on a 100 k-record release.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

#: bin edges of the risk histogram in ``RecordRiskSummary`` (risks are probabilities)
RISK_BINS = np.linspace(0.0, 1.0, 11)


class RecordRiskSummary(BaseModel):
    """Summary of a per-record risk array (the risk profile without the records)."""

    n_records: int
    mean: float
    maximum: float
    median: float
    p90: float
    p99: float
    share_positive: float = Field(description="Share of records with risk > 0")
    share_certain: float = Field(description="Share of records with risk = 1")
    histogram: list[int] = Field(
        description="Record counts in the bins [0,0.1), [0.1,0.2), …, [0.9,1.0]"
    )

    @classmethod
    def of(cls, risk: np.ndarray) -> RecordRiskSummary:
        """Summarise ``risk`` (values in [0, 1], one per record)."""
        risk = np.asarray(risk, dtype=np.float64)
        if risk.size == 0:
            return cls(
                n_records=0,
                mean=0.0,
                maximum=0.0,
                median=0.0,
                p90=0.0,
                p99=0.0,
                share_positive=0.0,
                share_certain=0.0,
                histogram=[0] * (len(RISK_BINS) - 1),
            )
        q50, q90, q99 = np.quantile(risk, [0.5, 0.9, 0.99])
        hist, _ = np.histogram(np.clip(risk, 0.0, 1.0), bins=RISK_BINS)
        return cls(
            n_records=int(risk.size),
            mean=float(risk.mean()),
            maximum=float(risk.max()),
            median=float(q50),
            p90=float(q90),
            p99=float(q99),
            share_positive=float(np.mean(risk > 0)),
            share_certain=float(np.mean(risk >= 1.0)),
            histogram=[int(h) for h in hist],
        )


class _ArraysModel(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True, protected_namespaces=())


class LinkageResult(_ArraysModel):
    """Outcome of a re-identification attack (record linkage of an intruder file to a release).

    ``reidentification_rate`` is the single-link form: the share of intruder records whose chosen
    link is their true masked record (a tie among equally good masked records is broken uniformly
    at random with ``params['random_state']``). ``anonymity_set_rate`` is the anonymity-set form:
    each intruder record b links to the set A_b of best masked records and earns 1/|A_b| when
    its true record is in A_b — the expected value of the single-link rate over tie-breaks.
    ``certain_rate`` is the share of intruder records the intruder can be sure of (K.Reid): for
    distance and probabilistic linkage a unique best masked record that is the true one, for the
    transparency attacks a singleton candidate set (certain by knowledge of the method).
    """

    attack: str
    params: dict[str, Any]
    attributes: list[str]
    n_intruder_records: int
    n_masked_records: int
    reidentification_rate: float
    anonymity_set_rate: float
    certain_rate: float
    mean_anonymity_set_size: float
    record_risk_summary: RecordRiskSummary
    attribute_contribution: dict[str, float]
    attribute_contribution_kind: str = Field(
        description="What attribute_contribution measures for this attack"
    )
    figures: dict[str, Any] = Field(
        default_factory=dict, description="Attack-specific figures (see each attack's docs)"
    )

    # per-record arrays (not serialised): index order = intruder records
    record_risk: np.ndarray = Field(exclude=True, repr=False)
    linked_index: np.ndarray = Field(exclude=True, repr=False)
    anonymity_set_size: np.ndarray = Field(exclude=True, repr=False)
    true_in_set: np.ndarray = Field(exclude=True, repr=False)
    candidate_set_size: np.ndarray | None = Field(
        None, exclude=True, repr=False, description="Transparency attacks: |∩_j B_j| per record"
    )


class UniquenessResult(BaseModel):
    """Sample uniqueness and the prosecutor / journalist / marketer risks (El Emam, ARX)."""

    n_records: int
    n_classes: int
    sample_uniques: int = Field(description="Records alone in their class (f = 1)")
    sample_uniqueness: float = Field(description="sample_uniques / n_records")
    threshold: float = Field(description="Record risk above which a record counts as at risk")
    prosecutor_records_at_risk: float
    prosecutor_highest_risk: float
    prosecutor_average_risk: float = Field(description="#classes / n (record-weighted)")
    journalist_records_at_risk: float
    journalist_highest_risk: float
    journalist_average_risk: float
    marketer_average_risk: float
    population_uniques: int | None = Field(
        None, description="Sample classes that are unique in the population (F = 1)"
    )
    population_uniqueness_of_sample_uniques: float | None = Field(
        None, description="P(PU | SU): share of sample uniques that are population uniques"
    )
    has_population: bool
    prosecutor_record_risk_summary: RecordRiskSummary


class IntervalDisclosureResult(_ArraysModel):
    """Interval disclosure of numeric attributes (rank- or standard-deviation-based).

    ``per_attribute`` is the share of records whose original value lies in the interval built
    around the masked value; ``rate`` its mean over attributes (Torra's attribute-level score);
    ``record_rate`` the share of records disclosed on every attribute at once.
    """

    method: str
    params: dict[str, Any]
    attributes: list[str]
    n_records: int
    rate: float
    record_rate: float
    per_attribute: dict[str, float]
    record_risk_summary: RecordRiskSummary
    record_risk: np.ndarray = Field(exclude=True, repr=False)
    disclosed: np.ndarray = Field(exclude=True, repr=False)


class CategoricalDisclosureResult(_ArraysModel):
    """Categorical attribute disclosure (SADR): masked category equal to the original one."""

    method: str
    attributes: list[str]
    n_records: int
    rate: float
    record_rate: float
    per_attribute: dict[str, float]
    baseline_per_attribute: dict[str, float] = Field(
        description="Expected agreement if the released column were an independent draw from "
        "its own marginal (Σ_v P(orig=v)·P(masked=v)) — what masking by shuffling would leave"
    )
    record_risk_summary: RecordRiskSummary
    record_risk: np.ndarray = Field(exclude=True, repr=False)
    disclosed: np.ndarray = Field(exclude=True, repr=False)


class ModelDisclosureResult(_ArraysModel):
    """Model-based attribute disclosure: a learner fitted on the release predicts originals."""

    target: str
    features: list[str]
    task: str = Field(description="classification or regression")
    estimator: str
    n_records: int
    n_folds: int
    rate: float = Field(
        description="Share of records whose original target value is predicted (exactly for "
        "classification, within the tolerance for regression)"
    )
    baseline_rate: float = Field(
        description="Same share for the no-information guess (majority class / masked mean)"
    )
    r2: float | None = None
    tolerance: float | None = None
    record_risk_summary: RecordRiskSummary
    disclosed: np.ndarray = Field(exclude=True, repr=False)
    predictions: np.ndarray = Field(exclude=True, repr=False)
