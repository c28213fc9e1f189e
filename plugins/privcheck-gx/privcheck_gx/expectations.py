"""The expectations: privacy models as GX batch expectations, evaluated by privcheck.

Each expectation is a pydantic (GX's v1 API) model whose fields are the privacy model's
parameters. A root validator builds the privcheck policy at construction, so a bad parameter
fails where the expectation is written — as GX's validation error naming the parameter — not
halfway through a checkpoint. At validation time the matching metric (``metrics.py``) runs
privcheck's check and ``_validate`` turns its summary into GX's result: ``success``,
``observed_value`` (the level achieved: smallest class, diversity, largest EMD) and ``details``
(required bound, violating classes and records, the worst classes, capped).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from great_expectations.compatibility import pydantic
from great_expectations.expectations.expectation import BatchExpectation
from great_expectations.render import LegacyRendererType, RenderedStringTemplateContent
from great_expectations.render.renderer.renderer import renderer
from great_expectations.render.renderer_configuration import (
    RendererConfiguration,
    RendererValueType,
)

import privcheck_gx.metrics  # noqa: F401  (defining the metric classes registers them)
from privcheck.errors import PrivcheckError
from privcheck_gx import params as P

_OPS = {">=": "≥", "<=": "≤", "<": "<"}


def _num(value: float | list[float] | None, unbounded: bool = True) -> str:
    if isinstance(value, list):  # delta-presence achieves a [min, max] pair
        return "[" + ", ".join(_num(v, unbounded) for v in value) + "]"
    if value is None:
        return "unbounded" if unbounded else "n/a"
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.4g}"


class PrivacyExpectation(BatchExpectation):
    """Shared parts: the result, the renderers. Subclasses set the metric and the sentence."""

    max_violators: int = pydantic.Field(
        P.DEFAULT_MAX_VIOLATORS, ge=0, description="Violating classes listed in the result"
    )

    metric_dependencies: ClassVar[tuple[str, ...]] = ()
    library_metadata: ClassVar[dict[str, Any]] = {
        "maturity": "experimental",
        "tags": ["privacy", "table expectation", "privcheck"],
        "contributors": ["privcheck"],
        "requirements": ["privcheck"],
    }

    # ------------------------------------------------------------------ validation

    @classmethod
    def _policy_from(cls, values: dict[str, Any]):
        raise NotImplementedError

    @pydantic.root_validator(skip_on_failure=True)
    def _privcheck_accepts(cls, values: dict[str, Any]) -> dict[str, Any]:
        try:
            cls._policy_from(values)
        except PrivcheckError as exc:
            raise ValueError(str(exc)) from None
        return values

    # ------------------------------------------------------------------ result

    def _validate(
        self,
        metrics: dict,
        runtime_configuration: dict | None = None,
        execution_engine=None,
    ) -> dict[str, Any]:
        summary = metrics[self.metric_dependencies[0]]
        models = summary["models"]
        details = {
            "n_records": summary["n_records"],
            "n_classes": summary["n_classes"],
            "quasi_identifiers": summary["quasi_identifiers"],
        }
        keys = ("identifiers_present", "n_suppressed", "suppression_ok", "findings", "draft")
        for key in (*keys, "open_reviews"):
            if key in summary:  # (a summary from an older plugin version lacks them)
                details[key] = summary[key]
        if len(models) == 1:
            (m,) = models
            observed: Any = m["value"]
            details.update({k: v for k, v in m.items() if k != "value"})
        else:
            observed = "; ".join(
                f"{m['model']} {_num(m['value'], m.get('unbounded', False))}" for m in models
            )
            details["models"] = models
        return {
            "success": bool(summary["passed"]),
            "result": {"observed_value": observed, "details": details},
        }

    # ------------------------------------------------------------------ rendering

    @classmethod
    def _sentence(cls, kwargs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The prescriptive sentence (a ``$param`` template) and its string/number params."""
        raise NotImplementedError

    @classmethod
    def _prescriptive_template(
        cls, renderer_configuration: RendererConfiguration
    ) -> RendererConfiguration:
        template, params = cls._sentence(renderer_configuration.kwargs)
        for name, value in params.items():
            kind = (
                RendererValueType.NUMBER
                if isinstance(value, int | float)
                else RendererValueType.STRING
            )
            renderer_configuration.add_param(name=name, param_type=kind, value=value)
        renderer_configuration.template_str = template
        return renderer_configuration

    @classmethod
    @renderer(renderer_type=LegacyRendererType.PRESCRIPTIVE)
    def _prescriptive_renderer(
        cls, configuration=None, result=None, runtime_configuration=None
    ) -> list[RenderedStringTemplateContent]:
        kwargs = configuration.kwargs if configuration is not None else {}
        if not kwargs and result is not None and result.expectation_config is not None:
            kwargs = result.expectation_config.kwargs
        template, params = cls._sentence(kwargs or {})
        styling = (runtime_configuration or {}).get("styling", {})
        return [
            RenderedStringTemplateContent(
                content_block_type="string_template",
                string_template={"template": template, "params": params, "styling": styling},
            )
        ]

    @classmethod
    @renderer(renderer_type="renderer.diagnostic.observed_value")
    def _diagnostic_observed_value_renderer(
        cls, configuration=None, result=None, runtime_configuration=None
    ) -> str:
        if result is None or not result.result:
            return "--"
        observed = result.result.get("observed_value")
        details = result.result.get("details") or {}
        if observed is None:
            text = _num(None, bool(details.get("unbounded")))
        else:
            text = _num(observed) if isinstance(observed, int | float | list) else str(observed)
        if details.get("violating_classes"):
            text += (
                f" ({details['violating_classes']:,} classes, "
                f"{details['violating_records']:,} records violate)"
            )
        return text


def _qi_text(kwargs: dict[str, Any]) -> str:
    return ", ".join(kwargs.get("quasi_identifiers") or []) or "[ ]"


class ExpectTableToBeKAnonymous(PrivacyExpectation):
    """Expect every combination of quasi-identifier values to be shared by at least k records.

    Args:
        quasi_identifiers (list of str): the columns an intruder could link on.
        k (int): the smallest allowed equivalence class.

    The result's ``observed_value`` is the smallest class; ``details`` lists the violating
    classes (worst first, capped at ``max_violators``) with their row numbers.
    """

    quasi_identifiers: list[str] = pydantic.Field(description="Quasi-identifier columns")
    k: int = pydantic.Field(description="Smallest allowed class size")

    metric_dependencies: ClassVar[tuple[str, ...]] = ("table.privcheck.k_anonymity",)
    success_keys: ClassVar[tuple[str, ...]] = ("quasi_identifiers", "k", "max_violators")
    args_keys: ClassVar[tuple[str, ...]] = ("quasi_identifiers", "k")

    class Config:
        title = "Expect table to be k-anonymous"

    @classmethod
    def _policy_from(cls, values: dict[str, Any]):
        return P.k_anonymity_policy(values["quasi_identifiers"], values["k"])

    @classmethod
    def _sentence(cls, kwargs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return (
            (
                "Every combination of the quasi-identifiers $qis must be shared by at least $k "
                "records (k-anonymity)."
            ),
            {"qis": _qi_text(kwargs), "k": kwargs.get("k")},
        )


class ExpectTableToBeLDiverse(PrivacyExpectation):
    """Expect every equivalence class to hold l well-represented values of a sensitive column.

    Args:
        quasi_identifiers (list of str): the columns that form the classes.
        attribute (str): the sensitive column.
        l (number): required diversity.
        variant ("distinct" | "entropy" | "recursive"): the l-diversity flavour.
        c (number): for recursive (c,l)-diversity only.
    """

    quasi_identifiers: list[str] = pydantic.Field(description="Quasi-identifier columns")
    attribute: str = pydantic.Field(description="The sensitive column")
    l: float = pydantic.Field(description="Required diversity")  # noqa: E741
    variant: Literal["distinct", "entropy", "recursive"] = "distinct"
    c: float | None = pydantic.Field(None, description="Recursive (c,l): r1 < c·(r_l + … + r_m)")

    metric_dependencies: ClassVar[tuple[str, ...]] = ("table.privcheck.l_diversity",)
    success_keys: ClassVar[tuple[str, ...]] = (
        "quasi_identifiers",
        "attribute",
        "l",
        "variant",
        "c",
        "max_violators",
    )
    args_keys: ClassVar[tuple[str, ...]] = ("quasi_identifiers", "attribute", "l")

    class Config:
        title = "Expect table to be l-diverse"

    @classmethod
    def _policy_from(cls, values: dict[str, Any]):
        return P.l_diversity_policy(
            values["quasi_identifiers"],
            values["attribute"],
            values["l"],
            values.get("variant") or "distinct",
            values.get("c"),
        )

    @classmethod
    def _sentence(cls, kwargs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        variant = kwargs.get("variant") or "distinct"
        params = {
            "qis": _qi_text(kwargs),
            "attribute": kwargs.get("attribute"),
            "l": kwargs.get("l"),
            "variant": variant,
        }
        if variant == "recursive":
            params["c"] = kwargs.get("c")
            return (
                "Every class over $qis must satisfy recursive ($c, $l)-diversity of $attribute.",
                params,
            )
        return (
            (
                "Every class over $qis must hold at least $l well-represented values of "
                "$attribute ($variant l-diversity)."
            ),
            params,
        )


class ExpectTableToBeTClose(PrivacyExpectation):
    """Expect every class's distribution of a sensitive column to be within EMD t of the table's.

    Args:
        quasi_identifiers (list of str): the columns that form the classes.
        attribute (str): the sensitive column.
        t (number): largest allowed earth mover's distance, 0–1.
        distance ("equal" | "ordered" | "hierarchical"): the ground distance.
        hierarchy (rows or path): the attribute's hierarchy, for hierarchical distance — rows
            ``[value, level1, …]`` or the path of an ARX-style ``;``-separated CSV file.
    """

    quasi_identifiers: list[str] = pydantic.Field(description="Quasi-identifier columns")
    attribute: str = pydantic.Field(description="The sensitive column")
    t: float = pydantic.Field(description="Largest allowed earth mover's distance")
    distance: Literal["equal", "ordered", "hierarchical"] = "equal"
    hierarchy: str | list[list[str]] | None = pydantic.Field(
        None, description="Hierarchy of the attribute (rows, or an ARX CSV path)"
    )

    metric_dependencies: ClassVar[tuple[str, ...]] = ("table.privcheck.t_closeness",)
    success_keys: ClassVar[tuple[str, ...]] = (
        "quasi_identifiers",
        "attribute",
        "t",
        "distance",
        "hierarchy",
        "max_violators",
    )
    args_keys: ClassVar[tuple[str, ...]] = ("quasi_identifiers", "attribute", "t")

    class Config:
        title = "Expect table to be t-close"

    @classmethod
    def _policy_from(cls, values: dict[str, Any]):
        return P.t_closeness_policy(
            values["quasi_identifiers"],
            values["attribute"],
            values["t"],
            values.get("distance") or "equal",
            values.get("hierarchy"),
        )

    @classmethod
    def _sentence(cls, kwargs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return (
            (
                "In every class over $qis the distribution of $attribute must be within earth "
                "mover's distance $t of the whole table's ($distance distance)."
            ),
            {
                "qis": _qi_text(kwargs),
                "attribute": kwargs.get("attribute"),
                "t": kwargs.get("t"),
                "distance": kwargs.get("distance") or "equal",
            },
        )


class ExpectTableToSatisfyPrivacyPolicy(PrivacyExpectation):
    """Expect the table to satisfy every privacy model of a privcheck policy.

    Args:
        policy (str or dict): a policy file (YAML/JSON; hierarchy paths resolve against it) or
            the policy as a mapping.
        allow_draft (bool): run a draft policy (columns still marked ``review:``) anyway; the
            result's details then say ``draft: true``. Without it a draft is refused where the
            expectation is written (a configuration error naming ``policy``) and when it runs.
    """

    policy: str | dict[str, Any] = pydantic.Field(description="Policy file path or mapping")
    allow_draft: bool = pydantic.Field(
        False, description="Run a draft policy (open review: entries) anyway; details say draft"
    )

    metric_dependencies: ClassVar[tuple[str, ...]] = ("table.privcheck.policy",)
    success_keys: ClassVar[tuple[str, ...]] = ("policy", "allow_draft", "max_violators")
    args_keys: ClassVar[tuple[str, ...]] = ("policy",)

    class Config:
        title = "Expect table to satisfy a privacy policy"

    @classmethod
    def _policy_from(cls, values: dict[str, Any]):
        return P.policy_param(values["policy"], bool(values.get("allow_draft")))

    @classmethod
    def _sentence(cls, kwargs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        policy = kwargs.get("policy")
        if isinstance(policy, dict):
            models = ", ".join(
                f"{m.get('model')} ({', '.join(f'{k}={v}' for k, v in m.items() if k != 'model')})"
                for m in policy.get("models", [])
            )
            return "The table must satisfy the privacy models $models.", {"models": models}
        return "The table must satisfy every privacy model of the policy $policy.", {
            "policy": str(policy)
        }


#: every expectation this package provides (import this module to register them with GX)
EXPECTATIONS = (
    ExpectTableToBeKAnonymous,
    ExpectTableToBeLDiverse,
    ExpectTableToBeTClose,
    ExpectTableToSatisfyPrivacyPolicy,
)
