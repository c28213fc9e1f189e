"""Checker plugins: each privacy model is a formula over the class table."""

from privcheck.models.base import Evaluation, PrivacyModel, evaluate_models

__all__ = ["Evaluation", "PrivacyModel", "evaluate_models"]
