"""Result type of the graph privacy checks, shaped like the table models' report entries.

The report contract (DESIGN.md) lists `{model, params, passed, value, violating_classes,
violating_records}` per model; graph checks fill the same fields so `privcheck check --graph`
can print them next to table models unchanged. `value` is the k the graph achieves; the
`violators` list adds what users ask for most: which nodes are at risk and why.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import BaseModel, Field

MAX_VIOLATORS = 100


class Violator(BaseModel):
    """One equivalence class smaller than k: what its members share, how many, and who."""

    values: dict[str, Any] = Field(description="what the class members share, e.g. the degree")
    size: int = Field(description="number of nodes in the class (< k)")
    records: list[Any] = Field(description="node ids of the class members")


class GraphModelResult(BaseModel):
    """Outcome of one graph privacy model on one graph."""

    model: str = Field(description='"k-degree" or "k-neighbourhood"')
    params: dict[str, Any] = Field(description='the model parameters, e.g. {"k": 5}')
    passed: bool
    value: int = Field(description="achieved k: size of the smallest equivalence class")
    n_records: int = Field(description="number of nodes checked")
    n_classes: int = Field(description="number of equivalence classes")
    violating_classes: int = Field(description="classes smaller than k")
    violating_records: int = Field(description="nodes in classes smaller than k")
    violators: list[Violator] = Field(
        description=f"violating classes, smallest first, at most {MAX_VIOLATORS}"
    )


def build_result(
    model: str,
    k: int,
    class_of: np.ndarray,
    nodes: list[Any],
    describe: Any,
    max_violators: int = MAX_VIOLATORS,
) -> GraphModelResult:
    """Assemble a result from a class id per node.

    `class_of[i]` is the class id (0..c-1) of node position i; `describe(c)` returns the `values`
    dict of class c, called only for the (at most `max_violators`) listed classes.
    """
    sizes = np.bincount(class_of)
    present = sizes > 0
    value = int(sizes[present].min())
    bad = np.flatnonzero(present & (sizes < k))
    bad_records = int(sizes[bad].sum())
    # smallest (most identifying) classes first, ties by class id for determinism
    listed = bad[np.lexsort((bad, sizes[bad]))][:max_violators]
    violators = []
    if listed.size:
        members = np.flatnonzero(np.isin(class_of, listed))
        order = np.argsort(class_of[members], kind="stable")
        members = members[order]
        bounds = np.searchsorted(class_of[members], listed)
        ends = np.searchsorted(class_of[members], listed, side="right")
        for c, lo, hi in zip(listed.tolist(), bounds.tolist(), ends.tolist(), strict=True):
            violators.append(
                Violator(
                    values=describe(c),
                    size=int(sizes[c]),
                    records=[nodes[i] for i in members[lo:hi].tolist()],
                )
            )
    return GraphModelResult(
        model=model,
        params={"k": k},
        passed=bad.size == 0,
        value=value,
        n_records=len(nodes),
        n_classes=int(present.sum()),
        violating_classes=int(bad.size),
        violating_records=bad_records,
        violators=violators,
    )
