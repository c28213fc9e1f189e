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
from privcheck.graph.synthetic_spatial import (
    SyntheticSpatialReport,
    synthetic_spatial_graph,
    synthetic_spatial_options,
)
from privcheck.limits import as_bool
from privcheck.policy import load_policy
from privcheck.report import Report


class GraphRelease(BaseModel):
    """What `anonymize --graph` did: the anonymizer's report and the release's policy check."""

    kind: str = "graph-anonymization"
    anonymization: AnonymizationReport | SyntheticSpatialReport
    check: Report

    def to_json(self) -> str:
        return self.model_dump_json(indent=2)

    def summary(self) -> str:
        a = self.anonymization
        verdict = "PASSED" if self.check.passed else "FAILED"
        if isinstance(a, SyntheticSpatialReport):
            return self._spatial_summary(a, verdict)
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

    def _spatial_summary(self, a: SyntheticSpatialReport, verdict: str) -> str:
        matched = "matched exactly" if a.degree_sequence_matched else f"L1 gap {a.l1_degree_gap}"
        lines = [
            f"synthetic spatial graph ({a.density} density), k={a.k}: {a.n_nodes} nodes, "
            f"edges {a.n_edges_before} → {a.n_edges_after}, {a.shared_edges} shared with the input",
            f"target degree sequence (L1 {a.target_l1_change} from the input): {matched}; "
            f"nearness step made {a.multi_edges_created} multi-edge copies and "
            f"{a.self_loops_created} self-loops, {a.rewired} rewired, {a.dropped} dropped",
        ]
        if a.utility is not None:
            lines.append(f"utility: {a.utility.model_dump_json()}")
        if a.reidentification is not None:
            r = a.reidentification
            lines.append(
                f"seed-and-propagate attack ({r.n_seeds} seeds): re-identified "
                f"{r.correct}/{r.n_targets} ({r.reidentified_share:.1%})"
            )
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
    algorithm: str | None = None,
    **options: Any,
) -> GraphRelease:
    """Anonymize the graph at ``source`` for the policy's k-degree model; write ``output``.

    algorithm: None / "liu-terzi" / "k-degree" edit the input (Liu & Terzi);
    "synthetic-spatial" releases a synthetic spatial graph with a k-anonymous degree sequence,
    whose re-check may fail when the degree sequence could not be met exactly (exit 1).
    """
    if algorithm not in (None, "liu-terzi", "k-degree", "synthetic-spatial"):
        raise PolicyError(
            f"unknown graph algorithm {algorithm!r}; use liu-terzi (default) or synthetic-spatial"
        )
    deletions = as_bool(deletions, "graph parameter deletions")  # 'maybe' is not true
    if algorithm == "synthetic-spatial" and deletions:
        raise PolicyError("deletions applies to liu-terzi, not to synthetic-spatial; drop it")
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
    if algorithm == "synthetic-spatial":
        spatial = synthetic_spatial_graph(
            loaded.graph, k, seed=seed, **synthetic_spatial_options(options)
        )
        recheck = check_graph(spatial.graph, policy)
        write_graph(spatial.graph, output, format=loaded.format)
        recheck.source = str(output)
        return GraphRelease(anonymization=spatial.report, check=recheck)
    result = k_degree_anonymize(loaded.graph, k, deletions=deletions, seed=seed, **options)
    recheck = check_graph(result.graph, policy)
    if not recheck.passed:  # pragma: no cover - the anonymizer re-checks itself
        raise RuntimeError("bug: the anonymized graph fails its policy")
    write_graph(result.graph, output, format=loaded.format)
    recheck.source = str(output)
    return GraphRelease(anonymization=result.report, check=recheck)
