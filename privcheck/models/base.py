"""What a privacy model is to privcheck: a config class and a vectorised formula over classes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from privcheck.classes import ClassTable
from privcheck.encoding import EncodedTable
from privcheck.plugins import model_registry
from privcheck.policy import ModelConfig


@dataclass(eq=False)
class Evaluation:
    """A model evaluated on every class of a class table.

    ``class_value`` is the per-class statistic (class size, distinct values, EMD …) and
    ``class_ok`` whether the class satisfies the model. Anonymizers combine ``class_ok`` over
    models to decide which classes to suppress; checks report the worst value.
    """

    config: ModelConfig
    class_ok: np.ndarray
    class_value: np.ndarray
    statistic: str = "value"
    larger_is_safer: bool = True
    #: every class, worst first (ties in class order); sorted once, on first use
    _order: np.ndarray | None = field(default=None, repr=False)

    @property
    def passed(self) -> bool:
        return bool(self.class_ok.all())

    def value(self, keep: np.ndarray | None = None) -> float | None:
        """The level the (kept) classes achieve: the worst class's statistic; None when it is
        infinite (see ``unbounded``) or there is no class."""
        worst = self._worst(keep)
        return float(worst) if worst is not None and np.isfinite(worst) else None

    def unbounded(self, keep: np.ndarray | None = None) -> bool:
        """Whether the worst class's statistic is infinite (recursive (c,l)-diversity of a class
        with fewer than l values: no c makes it hold). Reports then publish ``value: null`` with
        ``unbounded: true``, so that "infinite" is never confused with "not computed"."""
        worst = self._worst(keep)
        return worst is not None and not np.isfinite(worst)

    def _worst(self, keep: np.ndarray | None) -> float | None:
        v = self.class_value if keep is None else self.class_value[keep]
        if len(v) == 0:
            return None
        return float(v.min() if self.larger_is_safer else v.max())

    def worst_first(self, classes: np.ndarray, limit: int | None = None) -> np.ndarray:
        """The (distinct) ``classes`` ordered from the worst statistic to the best, ties in
        class order; the first ``limit`` of them when given.

        All classes are sorted once per evaluation (a report asks for its worst violators and
        its worst classes overall) and each call filters that order, O(classes). A stable sort
        rather than a partition: per-class statistics take few distinct values, on which
        numpy's introselect is ten times slower.
        """
        if self._order is None:
            v = self.class_value
            self._order = np.argsort(v if self.larger_is_safer else -v, kind="stable")
        member = np.zeros(len(self.class_value), dtype=bool)
        member[classes] = True
        order = self._order[member[self._order]]
        return order[: max(limit, 0)] if limit is not None else order


class PrivacyModel:
    """Base class of checker plugins.

    Subclasses set ``name`` (the policy's ``model:`` value), ``config`` (a ``ModelConfig``
    subclass with ``model: Literal[name]``) and implement ``evaluate``. ``monotone`` says whether
    the model has the generalization property (if a node satisfies it, every coarser node does),
    which pruning searches such as Incognito rely on.
    """

    name: ClassVar[str]
    config: ClassVar[type[ModelConfig]]
    summary: ClassVar[str] = ""
    #: what the model is checked on: "table" (a class table) or "graph"
    target: ClassVar[str] = "table"
    monotone: ClassVar[bool] = True
    #: Whether a class's verdict depends on the whole table, not only on the class (t-closeness
    #: compares each class with the table's distribution): suppressing some classes can then
    #: change the verdict on the others, and anonymizers re-evaluate after suppressing.
    table_dependent: ClassVar[bool] = False

    @classmethod
    def monotone_with_suppression(cls, config: ModelConfig) -> bool:
        """Whether the records of violating classes can only become fewer as a node is
        generalized (k-anonymity, distinct l-diversity): then "satisfied within a suppression
        limit" is itself monotone and a search may prune with it. False unless a model says so."""
        return False

    @classmethod
    def validate_data(cls, encoded: EncodedTable, config: ModelConfig) -> None:
        """Input checks that need the data, not only the policy (a value the policy names must
        occur in it): raise ``PolicyError``. Run once on the data a check or an anonymization
        starts from — not on the classes a search evaluates, nor on a release's re-check,
        whose suppression may legitimately have removed what the input held."""

    @classmethod
    def evaluate(cls, table: ClassTable, config: ModelConfig) -> Evaluation:
        raise NotImplementedError


def evaluate_models(table: ClassTable, configs: Sequence[ModelConfig]) -> list[Evaluation]:
    """Evaluate every model of a policy on one class table."""
    registry = model_registry()
    return [registry[c.model].evaluate(table, c) for c in configs]


def validate_data(encoded: EncodedTable, configs: Sequence[ModelConfig]) -> None:
    """Every model's checks of the input data (``PrivacyModel.validate_data``)."""
    registry = model_registry()
    for c in configs:
        registry[c.model].validate_data(encoded, c)


def table_models(configs: Sequence[ModelConfig]) -> list[ModelConfig]:
    """The configs whose model checks tables (graph models are checked by privcheck.graph)."""
    registry = model_registry()
    return [c for c in configs if registry[c.model].target == "table"]
