"""The graph check pipeline: edge list / GraphML / networkx graph + policy → Report.

The report has the table report's shape (``models[i].value`` is the achieved k; violators name
the nodes), so hooks and catalogs read both the same way.
"""

from __future__ import annotations

import os
import time
from typing import Any

import networkx as nx
import pandas as pd

from privcheck.checker import MAX_VIOLATORS
from privcheck.errors import PolicyError
from privcheck.graph.io import read_graph
from privcheck.graph.result import GraphModelResult
from privcheck.plugins import model_registry
from privcheck.policy import Policy, load_policy
from privcheck.report import ModelResult, Report, ViolatingClass


def graph_models(policy: Policy) -> list[Any]:
    """The policy's graph models; table models in a graph policy are an input error."""
    registry = model_registry()
    table_models = [
        m.model for m in policy.models if getattr(registry[m.model], "target", "table") != "graph"
    ]
    if table_models:
        raise PolicyError(
            f"the model {table_models[0]!r} applies to tables, not graphs; a graph policy may "
            "hold k-degree and k-neighbourhood models only"
        )
    if not policy.models:
        raise PolicyError("the policy has no graph model (k-degree, k-neighbourhood) to check")
    return [(registry[m.model], m) for m in policy.models]


def _as_model_result(result: GraphModelResult) -> ModelResult:
    return ModelResult(
        model=result.model,
        params=result.params,
        passed=result.passed,
        value=float(result.value),
        statistic="class size",
        violating_classes=result.violating_classes,
        violating_records=result.violating_records,
        violators=[
            ViolatingClass(
                values={k: str(v) for k, v in v.values.items()},
                size=v.size,
                statistic=float(v.size),
                records=[r if isinstance(r, int) else str(r) for r in v.records],
            )
            for v in result.violators
        ],
    )


def check_graph(
    data: str | os.PathLike[str] | pd.DataFrame | nx.Graph,
    policy: Policy | dict | str | os.PathLike[str],
    *,
    max_violators: int = MAX_VIOLATORS,
    source: str = "source",
    target: str = "target",
) -> Report:
    """Check a graph against the graph models of a policy."""
    started = time.perf_counter()
    policy = load_policy(policy)
    models = graph_models(policy)
    loaded = read_graph(data, source=source, target=target)
    results = [m.evaluate_graph(loaded.graph, cfg, max_violators) for m, cfg in models]
    report = Report(
        kind="graph-check",
        passed=all(r.passed for r in results),
        n_records=loaded.graph.number_of_nodes(),
        n_edges=loaded.graph.number_of_edges(),
        n_classes=results[0].n_classes,
        quasi_identifiers=[],
        models=[_as_model_result(r) for r in results],
        source=None if isinstance(data, pd.DataFrame | nx.Graph) else str(data),
    )
    report.elapsed_seconds = round(time.perf_counter() - started, 4)
    return report
