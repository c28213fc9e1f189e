"""privcheck: privacy-model compliance checker and anonymizer.

>>> import privcheck
>>> report = privcheck.check(frame, "policy.yaml")   # doctest: +SKIP
"""

__version__ = "0.1.0"

from privcheck.checker import check  # noqa: E402
from privcheck.errors import DataError, PolicyError, PrivcheckError  # noqa: E402
from privcheck.hookspecs import hookimpl  # noqa: E402
from privcheck.policy import Policy, load_policy  # noqa: E402
from privcheck.report import Report  # noqa: E402

__all__ = [
    "DataError",
    "Policy",
    "PolicyError",
    "PrivcheckError",
    "Report",
    "__version__",
    "check",
    "hookimpl",
    "load_policy",
]
