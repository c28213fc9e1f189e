"""t-closeness (Li, Li & Venkatasubramanian, ICDE 2007) with the earth mover's distance.

Each class's sensitive-value distribution P is compared with the whole table's Q:
- equal ground distance: EMD = ½·Σ|p_i − q_i|;
- ordered distance (numeric / ordinal values, m observed values in order):
  EMD = 1/(m−1) · Σ_i |Σ_{j≤i} (p_j − q_j)|;
- hierarchical distance over the attribute's hierarchy of height H: every internal node N adds
  height(N)/H · min(positive extra, negative extra) of its children (the paper's closed form).
All three run on dense blocks of the class × value matrix, a bounded number of classes at a time.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import Field

from privcheck.classes import ClassTable, SensitiveCounts
from privcheck.errors import PolicyError
from privcheck.hierarchy import LevelArrays
from privcheck.hookspecs import hookimpl
from privcheck.models.base import Evaluation, PrivacyModel
from privcheck.policy import SensitiveModelConfig

#: cells per dense block (classes × values)
_BLOCK_CELLS = 1 << 21
#: absolute tolerance on the EMD test, so a class exactly at t passes despite rounding
_ATOL = 1e-12


class TClosenessConfig(SensitiveModelConfig):
    """Each class's sensitive distribution is within EMD t of the whole table's."""

    model: Literal["t-closeness"] = "t-closeness"
    t: float = Field(..., ge=0.0, le=1.0, description="Largest allowed earth mover's distance")
    distance: Literal["equal", "ordered", "hierarchical"] = "equal"


def _blocks(n_classes: int, n_values: int):
    step = max(1, _BLOCK_CELLS // max(n_values, 1))
    for start in range(0, n_classes, step):
        yield start, min(n_classes, start + step)


def emd_equal(s: SensitiveCounts, sizes: np.ndarray, q: np.ndarray) -> np.ndarray:
    """½·Σ|p−q| per class, from the sparse entries only: values absent from a class add q_i."""
    p = s.counts / sizes[s.entry_class()]
    qv = q[s.values]
    extra = np.bincount(s.entry_class(), weights=np.abs(p - qv) - qv, minlength=s.n_classes)
    return 0.5 * (q.sum() + extra)


def emd_ordered(
    s: SensitiveCounts, sizes: np.ndarray, q: np.ndarray, rank: np.ndarray
) -> np.ndarray:
    """Ordered-distance EMD over the values observed in the table, in their order."""
    observed = np.flatnonzero(q > 0)
    observed = observed[np.argsort(rank[observed], kind="stable")]
    m = len(observed)
    out = np.zeros(s.n_classes)
    if m <= 1:
        return out
    in_order = m == s.n_values and bool(np.all(observed == np.arange(m)))
    for a, b in _blocks(s.n_classes, s.n_values):
        # p − q, its running sum and |·| in place: one block-sized buffer, not four
        block = s.dense(a, b) if in_order else s.dense(a, b)[:, observed]
        block /= sizes[a:b, None]
        block -= q[observed]
        np.cumsum(block, axis=1, out=block)
        np.abs(block, out=block)
        out[a:b] = block.sum(axis=1) / (m - 1)
    return out


def _hierarchy_layout(levels: LevelArrays) -> tuple[np.ndarray, list[np.ndarray], int]:
    """Leaves ordered so every node's leaves are contiguous, and each level's run starts."""
    maps = list(levels.maps)
    if levels.cardinality(levels.height) > 1:  # no single root: add one
        maps.append(np.zeros(len(levels.ground), dtype=np.int64))
    height = len(maps) - 1
    leaf_order = np.lexsort(tuple(maps[1:]) if height else (maps[0],))
    starts = []
    for level in range(height + 1):
        codes = maps[level][leaf_order]
        starts.append(np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]]))
    return leaf_order, starts, height


def emd_hierarchical(
    s: SensitiveCounts, sizes: np.ndarray, q: np.ndarray, levels: LevelArrays
) -> np.ndarray:
    """Hierarchical-distance EMD (Li et al. 2007, closed form over the hierarchy's nodes)."""
    leaf_order, starts, height = _hierarchy_layout(levels)
    out = np.zeros(s.n_classes)
    if height == 0:
        return out
    # position of level-(i) runs among level-(i-1) runs: level-i nodes group their children
    child_groups = [np.searchsorted(starts[i - 1], starts[i]) for i in range(1, height + 1)]
    for a, b in _blocks(s.n_classes, s.n_values):
        block = s.dense(a, b)
        block /= sizes[a:b, None]
        block -= q
        extra = block[:, leaf_order]
        del block
        cost = np.zeros(b - a)
        for i in range(1, height + 1):
            children = np.add.reduceat(extra, starts[i - 1], axis=1) if i > 1 else extra
            pos = np.add.reduceat(np.maximum(children, 0), child_groups[i - 1], axis=1)
            neg = np.add.reduceat(np.maximum(-children, 0), child_groups[i - 1], axis=1)
            cost += (i / height) * np.minimum(pos, neg).sum(axis=1)
        out[a:b] = cost
    return out


class TCloseness(PrivacyModel):
    name = "t-closeness"
    config = TClosenessConfig
    summary = "each class's sensitive distribution is within EMD t of the table's"
    table_dependent = True

    @classmethod
    def evaluate(cls, table: ClassTable, config: TClosenessConfig) -> Evaluation:
        s = table.sensitive[config.attribute]
        sizes = table.value_sizes(config.attribute).astype(float)
        totals = table.value_totals(config.attribute)
        total = totals.sum()
        q = totals / total if total else np.zeros(s.n_values)
        if config.distance == "equal":
            emd = emd_equal(s, sizes, q)
        elif config.distance == "ordered":
            emd = emd_ordered(s, sizes, q, table.encoded.sensitive_rank[config.attribute])
        else:
            column = table.encoded.sensitive[config.attribute]
            if not column.has_hierarchy:
                raise PolicyError(
                    f"t-closeness with hierarchical distance needs a hierarchy on "
                    f"{config.attribute!r}; add one to the attribute in the policy"
                )
            emd = emd_hierarchical(s, sizes, q, column.levels)
        emd = np.clip(emd, 0.0, None)
        return Evaluation(config, emd <= config.t + _ATOL, emd, "EMD", larger_is_safer=False)


@hookimpl
def privcheck_models() -> list[type[PrivacyModel]]:
    return [TCloseness]
