"""The interface of a risk measure: what ``privcheck risk --attack NAME`` runs.

A measure is a class with a ``name`` (the ``--attack`` value), a one-line ``summary``, whether
it needs ``numeric`` attributes, the library ``function()`` whose keyword parameters ``--param``
may set, and ``run(inputs, **params) -> RiskOutcome``. ``assess`` checks the parameters (names,
integer ranges, booleans, the function's type hints) before ``run``. The built-in measures
subclass it in their family's ``measures`` module and register through the
``privcheck_risk_measures`` hook (``privcheck.risk.measures``) like a plugin's would.
"""

from __future__ import annotations

import inspect
from typing import Any, ClassVar

from privcheck.errors import PolicyError
from privcheck.limits import as_bool, check_integers
from privcheck.params import accepted_kinds, check_param_value
from privcheck.risk.outcome import AttackInputs, RiskOutcome


class RiskMeasure:
    """Base of a risk measure (an attack); subclasses set the class attributes and ``run``."""

    name: ClassVar[str]
    summary: ClassVar[str]
    #: whether every attribute must be numeric (distances, ranks, intervals)
    numeric: ClassVar[bool] = True
    #: whether the release must be the original's rows masked (same columns and row count);
    #: False for attacks on releases that are not (a synthetic table, a table without the
    #: attacked attribute): they get both files as read and check what they need themselves
    aligned: ClassVar[bool] = True
    #: parameters the CLI supplies itself and a user may not pass with --param
    reserved: ClassVar[tuple[str, ...]] = (
        "intruder",
        "masked",
        "original",
        "attributes",
        "true_index",
        "family",
    )

    @classmethod
    def function(cls):
        """The library function whose keyword parameters ``--param`` may set."""
        raise NotImplementedError

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> None:
        """Unknown or reserved ``--param`` keys are an error naming the accepted ones."""
        sig = inspect.signature(cls.function())
        accepted = [
            n
            for n, p in sig.parameters.items()
            if n not in cls.reserved and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]
        for key in params:
            if key not in accepted:
                raise PolicyError(
                    f"attack {cls.name} has no parameter {key!r}; its parameters: "
                    f"{', '.join(accepted) or 'none'}"
                )
            where = f"attack {cls.name} parameter {key}"
            check_integers(params[key], where)
            if isinstance(sig.parameters[key].default, bool):  # spelled true/false, not 'maybe'
                params[key] = as_bool(params[key], where)

    #: parameters the attack function checks itself, type and range, with a message that says
    #: more than "must be a number" (the generic check leaves them to it)
    checks_own: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def check_types(cls, params: dict[str, Any]) -> None:
        """Each ``--param`` value of the type the attack function's hint names: 'nan' is no
        threshold, 5 no list of columns, -1 no seed — one line naming the parameter, where the
        function would otherwise fail on it with a traceback."""
        for key, value in params.items():
            if key in cls.checks_own:
                continue
            where = f"attack {cls.name} parameter {key}"
            params[key] = check_param_value(where, key, value, accepted_kinds(cls.function(), key))

    @classmethod
    def assess(cls, inputs: AttackInputs, **params: Any) -> RiskOutcome:
        cls.check_params(params)
        cls.check_types(params)
        return cls.run(inputs, **params)

    @classmethod
    def run(cls, inputs: AttackInputs, **params: Any) -> RiskOutcome:
        raise NotImplementedError
