"""privcheck: privacy-model compliance checker and anonymizer.

>>> import privcheck
>>> report = privcheck.check(frame, "policy.yaml")   # doctest: +SKIP
"""

from typing import TYPE_CHECKING, Any

from privcheck.errors import DataError, PolicyError, PrivcheckError
from privcheck.version import __version__

if TYPE_CHECKING:
    from privcheck.anonymizers.api import anonymize
    from privcheck.anonymizers.transformation import apply
    from privcheck.checker import check
    from privcheck.hookspecs import hookimpl
    from privcheck.policy import Policy, load_policy
    from privcheck.profiling.draft import draft_policy
    from privcheck.report import Report

#: public names imported on first use (PEP 562): ``import privcheck`` — and so the ``privcheck``
#: command's start-up, ``--help`` included — must not pay for pandas, Pydantic models and every
#: plugin before a command needs them
_LAZY = {
    "anonymize": "privcheck.anonymizers.api",
    "apply": "privcheck.anonymizers.transformation",
    "check": "privcheck.checker",
    "draft_policy": "privcheck.profiling.draft",
    "hookimpl": "privcheck.hookspecs",
    "Policy": "privcheck.policy",
    "load_policy": "privcheck.policy",
    "Report": "privcheck.report",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'privcheck' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


def explain(*args, **kwargs):
    """What makes the records re-identifiable: ``privcheck.risk.population.explain.explain``
    (imported on first use — the risk package loads scipy and scikit-learn)."""
    from privcheck.risk.population.explain import explain as _explain

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
    "draft_policy",
    "explain",
    "hookimpl",
    "load_policy",
]
