"""Graph privacy models as policy entries: ``{model: k-degree, k: 5}``,
``{model: k-neighbourhood, k: 3, label: role}``.

They register through the same ``privcheck_models`` hook as the table models, so the policy, its
JSON Schema and ``privcheck plugins`` know them; their target is a graph, and a table check that
meets one says so instead of guessing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import Field

from privcheck.errors import PolicyError
from privcheck.hookspecs import hookimpl
from privcheck.models.base import Evaluation, PrivacyModel
from privcheck.policy import ModelConfig

if TYPE_CHECKING:  # networkx and the checks load when a graph is checked, not when registered
    import networkx as nx

    from privcheck.graph.result import GraphModelResult


class KDegreeConfig(ModelConfig):
    """Every degree value of the graph is shared by at least k nodes (Liu & Terzi 2008)."""

    model: Literal["k-degree"] = "k-degree"
    k: int = Field(..., ge=2, description="Fewest nodes that may share a degree value")


class KNeighbourhoodConfig(ModelConfig):
    """Every node's 1-hop neighbourhood is isomorphic to at least k−1 others' (Zhou & Pei 2008)."""

    model: Literal["k-neighbourhood"] = "k-neighbourhood"
    k: int = Field(..., ge=2, description="Smallest allowed isomorphism class")
    label: str | None = Field(
        None, description="Node attribute the intruder also sees on the neighbours"
    )


class GraphModel(PrivacyModel):
    """A model whose target is a graph, not a table."""

    target: ClassVar[str] = "graph"

    @classmethod
    def evaluate(cls, table: Any, config: ModelConfig) -> Evaluation:
        raise PolicyError(
            f"the model {cls.name!r} applies to graphs; check a graph with "
            "`privcheck check --graph EDGES --policy P`"
        )

    @classmethod
    def evaluate_graph(
        cls, graph: nx.Graph, config: ModelConfig, max_violators: int
    ) -> GraphModelResult:
        raise NotImplementedError


class KDegree(GraphModel):
    name = "k-degree"
    config = KDegreeConfig
    summary = "every degree value is shared by at least k nodes"

    @classmethod
    def evaluate_graph(
        cls, graph: nx.Graph, config: KDegreeConfig, max_violators: int
    ) -> GraphModelResult:
        from privcheck.graph.kdegree import check_k_degree

        return check_k_degree(graph, config.k, max_violators=max_violators)


class KNeighbourhood(GraphModel):
    name = "k-neighbourhood"
    config = KNeighbourhoodConfig
    summary = "every 1-hop neighbourhood is isomorphic to at least k−1 others"
    monotone = False

    @classmethod
    def evaluate_graph(
        cls, graph: nx.Graph, config: KNeighbourhoodConfig, max_violators: int
    ) -> GraphModelResult:
        from privcheck.graph.kneighbourhood import check_k_neighbourhood

        return check_k_neighbourhood(
            graph, config.k, label=config.label, max_violators=max_violators
        )


@hookimpl
def privcheck_models() -> list[type[PrivacyModel]]:
    return [KDegree, KNeighbourhood]
