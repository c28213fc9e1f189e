"""privcheck: privacy-model compliance checker and anonymizer.

>>> import privcheck
>>> report = privcheck.check(frame, "policy.yaml")   # doctest: +SKIP
"""

__version__ = "0.1.0"

from privcheck.anonymizers.api import anonymize
from privcheck.checker import check
from privcheck.errors import DataError, PolicyError, PrivcheckError
from privcheck.hookspecs import hookimpl
from privcheck.policy import Policy, load_policy
from privcheck.report import Report

__all__ = [
    "DataError",
    "Policy",
    "PolicyError",
    "PrivcheckError",
    "Report",
    "__version__",
    "anonymize",
    "check",
    "hookimpl",
    "load_policy",
]
