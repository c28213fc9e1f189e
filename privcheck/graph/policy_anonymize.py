"""`privcheck anonymize --graph`: the policy's k-degree model → Liu–Terzi anonymization → the
anonymized edge list, written in the input's format, and the report."""

from __future__ import annotations

import os
from typing import Any

from pydantic import BaseModel

from privcheck.errors import PolicyError
from privcheck.graph.anonymize import AnonymizationReport, k_degree_anonymize
from privcheck.graph.checking import check_graph, graph_models
from privcheck.graph.io import read_graph, write_graph
from privcheck.limits import as_bool
from privcheck.policy import load_policy
from privcheck.report import Report


class GraphRelease(BaseModel):
    """What `anonymize --graph` did: the anonymizer's report and the release's policy check."""

    kind: str = "graph-anonymization"
    anonymization: AnonymizationReport
    check: Report

    def to_json(self) -> str:
        return self.model_dump_json(indent=2)

    def summary(self) -> str:
        a = self.anonymization
        verdict = "PASSED" if self.check.passed else "FAILED"
        lines = [
            f"k-degree anonymization (Liu & Terzi, {a.mode}), k={a.k}: {a.n_nodes} nodes, "
            f"edges {a.n_edges_before} → {a.n_edges_after} (+{a.edges_added} −{a.edges_removed})",
            f"L1 degree change {a.l1_degree_change} (optimal sequence: "
            f"{a.optimal_l1_degree_change}), probes {a.probes}",
        ]
        if a.utility is not None:
            lines.append(f"utility: {a.utility.model_dump_json()}")
        lines.append(
            "re-check of the release: "
            + verdict
            + " — "
            + ", ".join(f"{m.model} achieved k={m.value:g}" for m in self.check.models)
        )
        return "\n".join(lines) + "\n"


def anonymize_graph_file(
    source: str | os.PathLike[str],
    policy: Any,
    output: str | os.PathLike[str],
    *,
    seed: int | None = None,
    deletions: bool = False,
    **options: Any,
) -> GraphRelease:
    """Anonymize the graph at ``source`` for the policy's k-degree model; write ``output``."""
    deletions = as_bool(deletions, "graph parameter deletions")  # 'maybe' is not true
    policy = load_policy(policy)
    models = graph_models(policy)
    names = {cfg.model for _, cfg in models}
    if "k-degree" not in names:
        raise PolicyError("graph anonymization needs a k-degree model in the policy")
    if names - {"k-degree"}:
        raise PolicyError(
            "graph anonymization provides k-degree anonymity only (Liu & Terzi); remove "
            f"{sorted(names - {'k-degree'})} from the policy or check them separately"
        )
    k = max(cfg.k for _, cfg in models)
    loaded = read_graph(source)
    result = k_degree_anonymize(loaded.graph, k, deletions=deletions, seed=seed, **options)
    recheck = check_graph(result.graph, policy)
    if not recheck.passed:  # pragma: no cover - the anonymizer re-checks itself
        raise RuntimeError("bug: the anonymized graph fails its policy")
    write_graph(result.graph, output, format=loaded.format)
    recheck.source = str(output)
    return GraphRelease(anonymization=result.report, check=recheck)
