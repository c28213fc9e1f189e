"""Information loss of a full-domain generalization with suppression.

Each metric scores one release — a node plus the classes kept — from the class table alone, so a
search can rank thousands of nodes without materialising a single string. Suppressed records are
always charged as if every quasi-identifier were generalized to the top (they release nothing):

- **Prec** (Sweeney 2002): ``1 − Σ_records Σ_attributes h/|DGH| / (N·N_A)``, where ``h`` is the
  level an attribute is generalized to and ``|DGH|`` the height of its hierarchy (an attribute
  without a hierarchy, height 0, costs nothing unless suppressed). 1 = no loss. Higher is better.
- **discernibility** (Bayardo & Agrawal 2005): ``Σ_kept classes size² + suppressed · N`` — every
  record is charged the number of records it is indistinguishable from. Lower is better.
- **AECS**, average equivalence-class size (LeFevre et al. 2006, ARX's variant, unnormalised):
  ``N / classes``, the suppressed records counting as one extra class. Lower is better.
- **height**: the sum of the node's levels (ARX's "height"). Lower is better.
- **loss** (ARX's "Loss", Iyengar's LM normalised): a released value that covers ``m`` of the
  ``D`` ground values of its hierarchy (``LevelArrays.ground``) costs ``(m − 1)/(D − 1)``, a
  suppressed cell 1; averaged over the cells of every input record. Lower is better. The one
  definition of loss every algorithm reports (Mondrian's ``partition_loss`` and SafePub's
  ``release_metrics`` compute the same figure; docs/anonymization.md, "Metrics").

With no suppression every metric can only get worse as the node is generalized (monotone), so an
optimum lies among the minimal satisfying nodes; with suppression a coarser node may suppress
less and score better, and the searches rank every satisfying node instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from privcheck.classes import ClassTable
from privcheck.hierarchy import LevelArrays

#: The metric a policy can optimise, and the one used when it names none.
METRIC_NAMES = ("prec", "discernibility", "aecs", "height", "loss")
DEFAULT_METRIC = "prec"


def _kept(table: ClassTable, kept: np.ndarray | None) -> tuple[np.ndarray, int]:
    """Sizes of the kept classes and the number of suppressed records."""
    if kept is None:
        return table.sizes, 0
    sizes = table.sizes[kept]
    return sizes, int(table.sizes.sum() - sizes.sum())


def node_cost(node: Sequence[int], heights: Sequence[int]) -> float:
    """``Σ_attributes h/|DGH|`` of a node: the Prec loss of one record that is not suppressed."""
    return float(sum(h / H for h, H in zip(node, heights, strict=True) if H > 0))


def precision(
    node: Sequence[int], heights: Sequence[int], n_records: int, suppressed: int = 0
) -> float:
    """Sweeney's Prec of a node with ``suppressed`` records suppressed (1 = no loss)."""
    n_attr = len(heights)
    if n_attr == 0 or n_records == 0:
        return 1.0
    kept = n_records - suppressed
    lost = kept * node_cost(node, heights) + suppressed * n_attr
    return 1.0 - lost / (n_records * n_attr)


def discernibility(sizes: np.ndarray, n_records: int, suppressed: int = 0) -> float:
    """Σ size² over the kept classes plus ``suppressed · N``."""
    s = np.asarray(sizes, dtype=np.float64)
    return float(s @ s + suppressed * n_records)


def average_class_size(sizes: np.ndarray, n_records: int, suppressed: int = 0) -> float:
    """N over the number of classes, all suppressed records forming one more class."""
    groups = len(sizes) + (1 if suppressed > 0 else 0)
    return float(n_records / groups) if groups else 0.0


def generalization_height(node: Sequence[int]) -> int:
    """The sum of the node's levels."""
    return int(sum(node))


def _value_shares(levels: LevelArrays, level: int) -> np.ndarray:
    """(leaves under each level-``level`` value − 1) / (leaves in the hierarchy − 1).

    Memoised on the hierarchy (read-only): a search scores hundreds of nodes by loss, each a
    gather through these per attribute."""
    key = ("shares", level)
    hit = levels.memo.get(key)
    if hit is None:
        domain = len(levels.ground)
        if domain <= 1:
            hit = np.zeros(levels.cardinality(level))
        else:
            leaves = np.bincount(levels.maps[level], minlength=levels.cardinality(level))
            hit = (leaves - 1) / (domain - 1)
        hit.flags.writeable = False
        levels.memo[key] = hit
    return hit


def loss_by_attribute(table: ClassTable, kept: np.ndarray | None = None) -> dict[str, float]:
    """The loss of each quasi-identifier's cells (their mean is ``loss``): the average over
    records of the share of the hierarchy's ground values the released value covers, a
    suppressed record's cell 1."""
    n = table.n_records
    columns = table.encoded.quasi_identifiers
    if n == 0:
        return {col.name: 0.0 for col in columns}
    sizes = table.sizes.astype(np.float64)
    keys = table.keys
    suppressed = 0.0
    if kept is not None:  # the kept classes' rows, selected once for every attribute
        idx = np.flatnonzero(kept)
        suppressed = float(sizes.sum() - sizes.take(idx).sum()) if len(idx) < len(sizes) else 0.0
        keys, sizes = keys.take(idx, axis=0), sizes.take(idx)
    out = {}
    for j, col in enumerate(columns):
        share = _value_shares(col.levels, table.node[j]).take(keys[:, j])
        out[col.name] = (float(share @ sizes) + suppressed) / n
    return out


def loss(table: ClassTable, kept: np.ndarray | None = None) -> float:
    """ARX-style loss: average normalised domain share of the released cells (suppressed = 1)."""
    per = loss_by_attribute(table, kept)
    return sum(per.values()) / len(per) if per else 0.0


def loss_level_sums(table: ClassTable) -> list[np.ndarray]:
    """Per quasi-identifier ``j`` and level ``l`` (at or above ``table.node[j]``; 0 below): the
    sum over the records of ``table`` of the share their level-``l`` value covers — the loss of
    attribute ``j`` at level ``l`` times ``N`` when nothing is suppressed.

    A record's level-``l`` value depends on the record alone, not on the other quasi-identifiers,
    so these sums give the loss of every lattice node without a class table (``loss_bounds``).
    """
    out: list[np.ndarray] = []
    sizes = table.sizes.astype(np.float64)
    for j, col in enumerate(table.encoded.quasi_identifiers):
        lo = table.node[j]
        hist = np.bincount(table.keys[:, j], weights=sizes, minlength=col.cardinality(lo))
        sums = np.zeros(col.height + 1)
        for level in range(lo, col.height + 1):
            shares = _value_shares(col.levels, level)
            sums[level] = float(hist @ shares[col.levels.up(lo, level)])
        out.append(sums)
    return out


def loss_bounds(level_sums: list[np.ndarray], nodes: np.ndarray, n_records: int) -> np.ndarray:
    """A lower bound of ``loss`` at each node (rows of levels), exact when nothing is
    suppressed: a suppressed cell costs 1, at least the share its released value would cover.
    Lets a search rank the satisfying nodes best-first and score (roll up) only the few whose
    bound can still beat the best found."""
    width = len(level_sums)
    if n_records == 0 or width == 0:
        return np.zeros(len(nodes))
    total = np.zeros(len(nodes))
    for j, sums in enumerate(level_sums):
        total += sums[nodes[:, j]]
    return total / (n_records * width)


@dataclass(frozen=True)
class Metric:
    """A metric as the searches use it: its score of a release and which way is better."""

    name: str
    summary: str
    higher_is_better: bool
    #: whether the score needs the class table (Prec and height need only node + suppressed)
    needs_classes: bool
    score: Callable[[ClassTable, np.ndarray | None], float]

    def cost(self, value: float) -> float:
        """The value turned into a cost (lower is better) for ranking nodes."""
        return -value if self.higher_is_better else value


def _prec(table: ClassTable, kept: np.ndarray | None) -> float:
    _, suppressed = _kept(table, kept)
    return precision(table.node, table.encoded.heights, table.n_records, suppressed)


def _dm(table: ClassTable, kept: np.ndarray | None) -> float:
    sizes, suppressed = _kept(table, kept)
    return discernibility(sizes, table.n_records, suppressed)


def _aecs(table: ClassTable, kept: np.ndarray | None) -> float:
    sizes, suppressed = _kept(table, kept)
    return average_class_size(sizes, table.n_records, suppressed)


def _height(table: ClassTable, kept: np.ndarray | None) -> float:
    return float(generalization_height(table.node))


METRICS: dict[str, Metric] = {
    "prec": Metric("prec", "Sweeney's precision (1 = no loss)", True, False, _prec),
    "discernibility": Metric("discernibility", "Σ class size² + suppressed·N", False, True, _dm),
    "aecs": Metric("aecs", "average equivalence-class size", False, True, _aecs),
    "height": Metric("height", "sum of the generalization levels", False, False, _height),
    "loss": Metric("loss", "ARX-style loss (normalised domain share)", False, True, loss),
}


def get_metric(name: str) -> Metric:
    """The metric called ``name``."""
    try:
        return METRICS[name]
    except KeyError:
        raise ValueError(f"unknown metric {name!r}; known: {', '.join(METRICS)}") from None


def all_metrics(table: ClassTable, kept: np.ndarray | None = None) -> dict[str, float]:
    """Every metric of the release made of ``table``'s ``kept`` classes."""
    return {name: m.score(table, kept) for name, m in METRICS.items()}
