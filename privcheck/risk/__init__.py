"""Disclosure-risk assessment: how much an intruder learns from a masked release.

Identity disclosure (re-identification by record linkage):

- ``dbrl`` — distance-based record linkage, Euclidean or Mahalanobis, nearest or one-to-one;
- ``prl`` — Fellegi–Sunter probabilistic linkage with EM-estimated m/u probabilities;
- ``learned_distance`` — worst-case learned distances (weighted mean, OWA, bilinear, Choquet);
- ``rank_swap_transparency`` / ``microaggregation_transparency`` /
  ``multivariate_microaggregation_transparency`` / ``microaggregation_replay`` — attacks by an
  intruder who knows the masking method and its parameters;
- ``uniqueness_risk`` — sample uniques, prosecutor / journalist / marketer risk.

Attribute disclosure: ``rank_interval_disclosure``, ``sd_interval_disclosure``,
``average_interval_disclosure``, ``sdcmicro_drisk``, ``categorical_disclosure`` (SADR) and
``model_disclosure`` and ``ddmbar`` (model-based disclosure of an absent attribute).

Releases that are not masked records: ``membership_inference`` (a synthetic table: distance to
the closest synthetic record and model confidence; a released model: shadow models and the
loss-threshold baseline — members against a control set), and the three risks of the Article 29
Working Party measured as Anonymeter does, in the modules ``singling_out``, ``linkability`` and
``inference`` (each a function of the module's name; ``split_control`` holds a control set out
before generating);
``load_model_file`` reads a released model with skops, a pickle only when trusted (loading one
runs its code).

Several releases of the same individuals: ``release_intersection`` (the candidate set each
record keeps once the releases are intersected, linked by a row key or by the sensitive value).

``ATTACKS`` maps the attack names of ``privcheck risk --attack`` to their functions; each takes
``(intruder, masked, **params)`` and returns a ``LinkageResult``.
"""

from __future__ import annotations

from typing import Any

#: where each public name lives: imported on first use (PEP 562), so that importing one risk
#: module (an anonymizer's exposure attack) does not import every attack and scipy with them
_LAZY = {
    "average_interval_disclosure": "privcheck.risk.attribute_disclosure",
    "categorical_disclosure": "privcheck.risk.attribute_disclosure",
    "model_disclosure": "privcheck.risk.attribute_disclosure",
    "rank_interval_disclosure": "privcheck.risk.attribute_disclosure",
    "sd_interval_disclosure": "privcheck.risk.attribute_disclosure",
    "sdcmicro_drisk": "privcheck.risk.attribute_disclosure",
    "ddmbar": "privcheck.risk.absent_attribute",
    "membership_inference": "privcheck.risk.membership",
    "split_control": "privcheck.risk.synthetic",
    "load_model_file": "privcheck.risk.model_file",
    "release_intersection": "privcheck.risk.intersection",
    "FAMILIES": "privcheck.risk.learned",
    "learned_distance": "privcheck.risk.learned",
    "covariance_matrix": "privcheck.risk.linkage",
    "dbrl": "privcheck.risk.linkage",
    "nearest_links": "privcheck.risk.linkage",
    "one_to_one_links": "privcheck.risk.linkage",
    "univariate_rates": "privcheck.risk.linkage",
    "microaggregation_replay": "privcheck.risk.multivariate_transparency",
    "multivariate_microaggregation_transparency": "privcheck.risk.multivariate_transparency",
    "EMResult": "privcheck.risk.probabilistic",
    "agreement_pattern_counts": "privcheck.risk.probabilistic",
    "estimate_m_u": "privcheck.risk.probabilistic",
    "fellegi_sunter_thresholds": "privcheck.risk.probabilistic",
    "pattern_weights": "privcheck.risk.probabilistic",
    "prl": "privcheck.risk.probabilistic",
    "CategoricalDisclosureResult": "privcheck.risk.results",
    "IntervalDisclosureResult": "privcheck.risk.results",
    "LinkageResult": "privcheck.risk.results",
    "ModelDisclosureResult": "privcheck.risk.results",
    "RecordRiskSummary": "privcheck.risk.results",
    "UniquenessResult": "privcheck.risk.results",
    "microaggregation_group_bounds": "privcheck.risk.transparency",
    "microaggregation_transparency": "privcheck.risk.transparency",
    "rank_interval": "privcheck.risk.transparency",
    "rank_swap_transparency": "privcheck.risk.transparency",
    "rank_swap_window": "privcheck.risk.transparency",
    "class_sizes_of": "privcheck.risk.uniqueness",
    "record_risks": "privcheck.risk.uniqueness",
    "uniqueness_risk": "privcheck.risk.uniqueness",
}


def _attacks() -> dict[str, Any]:
    """``ATTACKS``: attack name → function (built on first use)."""
    from functools import partial

    from privcheck.risk.learned import learned_distance
    from privcheck.risk.linkage import dbrl
    from privcheck.risk.multivariate_transparency import (
        multivariate_microaggregation_transparency,
    )
    from privcheck.risk.probabilistic import prl
    from privcheck.risk.transparency import microaggregation_transparency, rank_swap_transparency

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
    "learned_distance",
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
    "split_control",
    "uniqueness_risk",
    "univariate_rates",
]
