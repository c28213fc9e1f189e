"""Graph privacy: k-degree and k-neighbourhood anonymity checks, k-degree anonymization
(Liu & Terzi 2008) and structural re-identification risk (Narayanan & Shmatikov 2009).

Graphs are networkx graphs; `read_graph` / `write_graph` move them in and out of edge lists
(CSV, Parquet) and GraphML with the input validation the checks rely on.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from privcheck.graph.anonymize import AnonymizationReport, AnonymizedGraph, k_degree_anonymize
    from privcheck.graph.deanonymize import (
        ReidentificationResult,
        reidentification_risk,
        seed_and_propagate,
    )
    from privcheck.graph.degree_dp import DegreeAnonymization, anonymize_degree_sequence
    from privcheck.graph.io import EdgeListFormat, LoadedGraph, LoadReport, read_graph, write_graph
    from privcheck.graph.kdegree import check_k_degree
    from privcheck.graph.kneighbourhood import check_k_neighbourhood, neighbourhood_classes
    from privcheck.graph.result import GraphModelResult, Violator
    from privcheck.graph.synthetic_spatial import (
        SyntheticGraph,
        SyntheticSpatialReport,
        synthetic_spatial_graph,
    )
    from privcheck.graph.utility import UtilityReport

#: where each public name lives: imported on first use (PEP 562), so that the graph models'
#: registration (every policy validation loads the plugins) does not import networkx
_LAZY = {
    "AnonymizationReport": "privcheck.graph.anonymize",
    "AnonymizedGraph": "privcheck.graph.anonymize",
    "k_degree_anonymize": "privcheck.graph.anonymize",
    "ReidentificationResult": "privcheck.graph.deanonymize",
    "reidentification_risk": "privcheck.graph.deanonymize",
    "seed_and_propagate": "privcheck.graph.deanonymize",
    "DegreeAnonymization": "privcheck.graph.degree_dp",
    "anonymize_degree_sequence": "privcheck.graph.degree_dp",
    "EdgeListFormat": "privcheck.graph.io",
    "LoadedGraph": "privcheck.graph.io",
    "LoadReport": "privcheck.graph.io",
    "read_graph": "privcheck.graph.io",
    "write_graph": "privcheck.graph.io",
    "check_k_degree": "privcheck.graph.kdegree",
    "check_k_neighbourhood": "privcheck.graph.kneighbourhood",
    "neighbourhood_classes": "privcheck.graph.kneighbourhood",
    "GraphModelResult": "privcheck.graph.result",
    "Violator": "privcheck.graph.result",
    "SyntheticGraph": "privcheck.graph.synthetic_spatial",
    "SyntheticSpatialReport": "privcheck.graph.synthetic_spatial",
    "synthetic_spatial_graph": "privcheck.graph.synthetic_spatial",
    "UtilityReport": "privcheck.graph.utility",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'privcheck.graph' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "AnonymizationReport",
    "AnonymizedGraph",
    "DegreeAnonymization",
    "EdgeListFormat",
    "GraphModelResult",
    "LoadReport",
    "LoadedGraph",
    "ReidentificationResult",
    "SyntheticGraph",
    "SyntheticSpatialReport",
    "UtilityReport",
    "Violator",
    "anonymize_degree_sequence",
    "check_k_degree",
    "check_k_neighbourhood",
    "k_degree_anonymize",
    "neighbourhood_classes",
    "read_graph",
    "reidentification_risk",
    "seed_and_propagate",
    "synthetic_spatial_graph",
    "write_graph",
]
