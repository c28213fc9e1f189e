"""Graph privacy: k-degree and k-neighbourhood anonymity checks, k-degree anonymization
(Liu & Terzi 2008) and structural re-identification risk (Narayanan & Shmatikov 2009).

Graphs are networkx graphs; `read_graph` / `write_graph` move them in and out of edge lists
(CSV, Parquet) and GraphML with the input validation the checks rely on.
"""

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
from privcheck.graph.utility import UtilityReport

__all__ = [
    "AnonymizationReport",
    "AnonymizedGraph",
    "DegreeAnonymization",
    "EdgeListFormat",
    "GraphModelResult",
    "LoadReport",
    "LoadedGraph",
    "ReidentificationResult",
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
    "write_graph",
]
