"""privcheck: privacy-model compliance checker and anonymizer.

>>> import privcheck
>>> report = privcheck.check(frame, "policy.yaml")   # doctest: +SKIP
"""

__version__ = "0.1.0"

from privcheck.anonymizers.api import anonymize
from privcheck.anonymizers.transformation import apply
from privcheck.checker import check
from privcheck.errors import DataError, PolicyError, PrivcheckError
from privcheck.hookspecs import hookimpl
from privcheck.policy import Policy, load_policy
from privcheck.report import Report


def explain(*args, **kwargs):
    """What makes the records re-identifiable: ``privcheck.risk.explain.explain`` (imported on
    first use — the risk package loads scipy and scikit-learn)."""
    from privcheck.risk.explain import explain as _explain

    return _explain(*args, **kwargs)


__all__ = [
    "DataError",
    "Policy",
    "PolicyError",
    "PrivcheckError",
    "Report",
    "__version__",
    "anonymize",
    "apply",
    "check",
    "explain",
    "hookimpl",
    "load_policy",
]
