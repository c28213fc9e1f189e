"""Anonymizer plugins: full-domain generalization searches (Incognito, MinGen, DataFly), the
``anonymize`` call that runs any registered anonymizer, and ``apply``, which re-applies a chosen
transformation to a new batch and checks it again."""

from privcheck.anonymizers.api import anonymize
from privcheck.anonymizers.transformation import apply

__all__ = ["anonymize", "apply"]
