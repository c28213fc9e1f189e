"""Anonymizer plugins: full-domain generalization searches (Incognito, MinGen, DataFly) and the
``anonymize`` call that runs any registered anonymizer."""

from privcheck.anonymizers.api import anonymize

__all__ = ["anonymize"]
