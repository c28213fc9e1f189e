"""Disclosure-risk assessment: how much an intruder learns from a release.

The attacks are grouped by family, each a package whose ``__init__`` lists its measures and
their sources:

- ``linkage`` — record linkage (identity disclosure): ``dbrl`` (Euclidean or Mahalanobis,
  nearest or one-to-one), ``prl`` (Fellegi–Sunter with EM-estimated m/u probabilities),
  ``learned_distance`` (worst-case weighted mean, OWA, bilinear, Choquet), and the inputs and
  links plumbing the numeric attacks share;
- ``population`` — population and uniqueness: ``uniqueness_risk`` (sample uniques, prosecutor /
  journalist / marketer risk), the population-uniques estimators, prosecutor risk of a class
  table, SUDA2 and ``privcheck check --explain``, and ``release_intersection`` (the candidate
  set each record keeps once several releases of the same people are intersected);
- ``disclosure`` — attribute and model disclosure: ``rank_interval_disclosure``,
  ``sd_interval_disclosure``, ``average_interval_disclosure``, ``sdcmicro_drisk``,
  ``categorical_disclosure`` (SADR), ``model_disclosure``, ``ddmbar`` (an absent attribute) and
  membership inference on a released model;
- ``synthetic`` — attacks on a synthetic table against a control set (``split_control``):
  ``singling_out``, ``linkability``, ``inference`` (the Article 29 Working Party's three risks,
  measured as Anonymeter does) and ``membership_inference`` (a synthetic table, or a model);
- ``transparency`` — attacks by an intruder who knows the masking method and its parameters:
  ``rank_swap_transparency``, ``microaggregation_transparency``,
  ``multivariate_microaggregation_transparency``, ``microaggregation_replay``.

Shared by all: ``results`` (the result models), ``outcome`` (what an attack sees and returns),
``base`` (``RiskMeasure``, the interface of a ``privcheck risk`` attack), ``measures`` (the
built-in measures, registered through the ``privcheck_risk_measures`` hook), ``assess``
(``privcheck risk``: files in, report out) and ``model_file`` (a released model read with
skops, a pickle only when trusted: loading one runs its code).

The public names below are imported on first use. ``ATTACKS`` maps the record-linkage and
transparency attack names of ``privcheck risk --attack`` to their functions; each takes
``(intruder, masked, **params)`` and returns a ``LinkageResult``.
"""

from __future__ import annotations

from typing import Any

#: where each public name lives: imported on first use (PEP 562), so that importing one risk
#: module (an anonymizer's exposure attack) does not import every attack and scipy with them
_LAZY = {
    "average_interval_disclosure": "privcheck.risk.disclosure.attribute",
    "categorical_disclosure": "privcheck.risk.disclosure.attribute",
    "model_disclosure": "privcheck.risk.disclosure.attribute",
    "rank_interval_disclosure": "privcheck.risk.disclosure.attribute",
    "sd_interval_disclosure": "privcheck.risk.disclosure.attribute",
    "sdcmicro_drisk": "privcheck.risk.disclosure.attribute",
    "ddmbar": "privcheck.risk.disclosure.absent_attribute",
    "membership_inference": "privcheck.risk.synthetic.membership",
    "split_control": "privcheck.risk.synthetic.control",
    "inference": "privcheck.risk.synthetic.inference",
    "linkability": "privcheck.risk.synthetic.linkability",
    "singling_out": "privcheck.risk.synthetic.singling_out",
    "load_model_file": "privcheck.risk.model_file",
    "release_intersection": "privcheck.risk.population.intersection",
    "FAMILIES": "privcheck.risk.linkage.learned",
    "learned_distance": "privcheck.risk.linkage.learned",
    "covariance_matrix": "privcheck.risk.linkage.distance",
    "dbrl": "privcheck.risk.linkage.distance",
    "nearest_links": "privcheck.risk.linkage.distance",
    "one_to_one_links": "privcheck.risk.linkage.distance",
    "univariate_rates": "privcheck.risk.linkage.distance",
    "microaggregation_replay": "privcheck.risk.transparency.multivariate",
    "multivariate_microaggregation_transparency": "privcheck.risk.transparency.multivariate",
    "EMResult": "privcheck.risk.linkage.probabilistic",
    "agreement_pattern_counts": "privcheck.risk.linkage.probabilistic",
    "estimate_m_u": "privcheck.risk.linkage.probabilistic",
    "fellegi_sunter_thresholds": "privcheck.risk.linkage.probabilistic",
    "pattern_weights": "privcheck.risk.linkage.probabilistic",
    "prl": "privcheck.risk.linkage.probabilistic",
    "CategoricalDisclosureResult": "privcheck.risk.results",
    "IntervalDisclosureResult": "privcheck.risk.results",
    "LinkageResult": "privcheck.risk.results",
    "ModelDisclosureResult": "privcheck.risk.results",
    "RecordRiskSummary": "privcheck.risk.results",
    "UniquenessResult": "privcheck.risk.results",
    "microaggregation_group_bounds": "privcheck.risk.transparency.univariate",
    "microaggregation_transparency": "privcheck.risk.transparency.univariate",
    "rank_interval": "privcheck.risk.transparency.univariate",
    "rank_swap_transparency": "privcheck.risk.transparency.univariate",
    "rank_swap_window": "privcheck.risk.transparency.univariate",
    "class_sizes_of": "privcheck.risk.population.uniqueness",
    "record_risks": "privcheck.risk.population.uniqueness",
    "uniqueness_risk": "privcheck.risk.population.uniqueness",
}


def _attacks() -> dict[str, Any]:
    """``ATTACKS``: attack name → function (built on first use)."""
    from functools import partial

    from privcheck.risk.linkage.distance import dbrl
    from privcheck.risk.linkage.learned import learned_distance
    from privcheck.risk.linkage.probabilistic import prl
    from privcheck.risk.transparency.multivariate import (
        multivariate_microaggregation_transparency,
    )
    from privcheck.risk.transparency.univariate import (
        microaggregation_transparency,
        rank_swap_transparency,
    )

    return {
        "dbrl": dbrl,
        "mahalanobis": partial(dbrl, metric="mahalanobis"),
        "prl": prl,
        "learned-weighted-mean": partial(learned_distance, family="weighted_mean"),
        "learned-owa": partial(learned_distance, family="owa"),
        "learned-bilinear": partial(learned_distance, family="bilinear"),
        "learned-choquet": partial(learned_distance, family="choquet"),
        "rank-swap-transparency": rank_swap_transparency,
        "microaggregation-transparency": microaggregation_transparency,
        "microaggregation-multivariate-transparency": multivariate_microaggregation_transparency,
    }


def __getattr__(name: str) -> Any:
    if name == "ATTACKS":
        value: Any = _attacks()
    elif name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
    else:
        raise AttributeError(f"module 'privcheck.risk' has no attribute {name!r}")
    globals()[name] = value
    return value


__all__ = [
    "ATTACKS",
    "FAMILIES",
    "CategoricalDisclosureResult",
    "EMResult",
    "IntervalDisclosureResult",
    "LinkageResult",
    "ModelDisclosureResult",
    "RecordRiskSummary",
    "UniquenessResult",
    "agreement_pattern_counts",
    "average_interval_disclosure",
    "categorical_disclosure",
    "class_sizes_of",
    "covariance_matrix",
    "dbrl",
    "ddmbar",
    "estimate_m_u",
    "fellegi_sunter_thresholds",
    "inference",
    "learned_distance",
    "linkability",
    "load_model_file",
    "membership_inference",
    "microaggregation_group_bounds",
    "microaggregation_replay",
    "microaggregation_transparency",
    "model_disclosure",
    "multivariate_microaggregation_transparency",
    "nearest_links",
    "one_to_one_links",
    "pattern_weights",
    "prl",
    "rank_interval",
    "rank_interval_disclosure",
    "rank_swap_transparency",
    "rank_swap_window",
    "record_risks",
    "release_intersection",
    "sd_interval_disclosure",
    "sdcmicro_drisk",
    "singling_out",
    "split_control",
    "uniqueness_risk",
    "univariate_rates",
]
