"""GX table metrics: one per expectation, all computed by privcheck through one base class.

GX resolves an expectation's numbers as *metrics*, implemented once per execution engine.
``PrivcheckTableMetric`` holds the engine implementations; subclasses only say how their
parameters (the metric's ``value_keys``, filled from the expectation's fields of the same names)
become a privcheck Policy. Each engine is one ``@metric_value`` method of the base class, so every
expectation gains it at once: pandas checks the frame in process; Spark hands the Spark
DataFrame to ``privcheck.check``, whose group-by runs in Spark and brings back only the class
table (privcheck's weighted encoding does the rest), so the summary is the same.

The base class has no ``metric_name``, so GX registers only the subclasses (GX's metaclass walks
``dir(cls)``, which includes the inherited engine methods).
"""

from __future__ import annotations

from typing import Any, ClassVar

from great_expectations.core.metric_domain_types import MetricDomainTypes
from great_expectations.execution_engine import PandasExecutionEngine, SparkDFExecutionEngine
from great_expectations.expectations.metrics.metric_provider import metric_value
from great_expectations.expectations.metrics.table_metric_provider import TableMetricProvider

from privcheck.policy import Policy
from privcheck_gx import params as P


class PrivcheckTableMetric(TableMetricProvider):
    """Base: the check summary of a table under the policy ``build_policy`` makes."""

    value_keys: ClassVar[tuple[str, ...]] = ("max_violators",)

    @classmethod
    def build_policy(cls, kwargs: dict[str, Any]) -> Policy:
        raise NotImplementedError

    @classmethod
    def _max_violators(cls, kwargs: dict[str, Any]) -> int:
        value = kwargs.get("max_violators")
        return P.DEFAULT_MAX_VIOLATORS if value is None else int(value)

    @metric_value(engine=PandasExecutionEngine)
    def _pandas(
        cls,
        execution_engine: PandasExecutionEngine,
        metric_domain_kwargs: dict,
        metric_value_kwargs: dict,
        metrics: dict[str, Any],
        runtime_configuration: dict,
    ) -> dict[str, Any]:
        frame, _, _ = execution_engine.get_compute_domain(
            domain_kwargs=metric_domain_kwargs, domain_type=MetricDomainTypes.TABLE
        )
        policy = cls.build_policy(dict(metric_value_kwargs))
        return P.evaluate_frame(
            frame,
            policy,
            cls._max_violators(metric_value_kwargs),
            allow_draft=bool(metric_value_kwargs.get("allow_draft")),
        )

    @metric_value(engine=SparkDFExecutionEngine)
    def _spark(
        cls,
        execution_engine: SparkDFExecutionEngine,
        metric_domain_kwargs: dict,
        metric_value_kwargs: dict,
        metrics: dict[str, Any],
        runtime_configuration: dict,
    ) -> dict[str, Any]:
        frame, _, _ = execution_engine.get_compute_domain(
            domain_kwargs=metric_domain_kwargs, domain_type=MetricDomainTypes.TABLE
        )
        policy = cls.build_policy(dict(metric_value_kwargs))
        return P.evaluate_frame(
            frame,
            policy,
            cls._max_violators(metric_value_kwargs),
            allow_draft=bool(metric_value_kwargs.get("allow_draft")),
        )


class TableKAnonymity(PrivcheckTableMetric):
    metric_name = "table.privcheck.k_anonymity"
    value_keys = ("quasi_identifiers", "k", "max_violators")

    @classmethod
    def build_policy(cls, kwargs: dict[str, Any]) -> Policy:
        return P.k_anonymity_policy(list(kwargs["quasi_identifiers"]), kwargs["k"])


class TableLDiversity(PrivcheckTableMetric):
    metric_name = "table.privcheck.l_diversity"
    value_keys = ("quasi_identifiers", "attribute", "l", "variant", "c", "max_violators")

    @classmethod
    def build_policy(cls, kwargs: dict[str, Any]) -> Policy:
        return P.l_diversity_policy(
            list(kwargs["quasi_identifiers"]),
            kwargs["attribute"],
            kwargs["l"],
            kwargs.get("variant") or "distinct",
            kwargs.get("c"),
        )


class TableTCloseness(PrivcheckTableMetric):
    metric_name = "table.privcheck.t_closeness"
    value_keys = ("quasi_identifiers", "attribute", "t", "distance", "hierarchy", "max_violators")

    @classmethod
    def build_policy(cls, kwargs: dict[str, Any]) -> Policy:
        return P.t_closeness_policy(
            list(kwargs["quasi_identifiers"]),
            kwargs["attribute"],
            kwargs["t"],
            kwargs.get("distance") or "equal",
            kwargs.get("hierarchy"),
        )


class TablePrivacyPolicy(PrivcheckTableMetric):
    metric_name = "table.privcheck.policy"
    value_keys = ("policy", "allow_draft", "max_violators")

    @classmethod
    def build_policy(cls, kwargs: dict[str, Any]) -> Policy:
        return P.policy_param(kwargs["policy"], bool(kwargs.get("allow_draft")))
