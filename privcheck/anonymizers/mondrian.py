"""Mondrian (LeFevre, DeWitt & Ramakrishnan, ICDE 2006): multidimensional strict partitioning.

Full-domain generalization recodes a whole column; Mondrian cuts the quasi-identifier space into
boxes, each released as its own recoding: a numeric quasi-identifier as the range its records
span (``[lo, hi]``, or the value itself when the box holds one), a categorical one as the lowest
common ancestor of its values in the hierarchy (``*`` above a hierarchy without a single root).
Every record is kept, and every released value contains the original.

It runs on the class table (one row per distinct quasi-identifier combination, with its weight
and per-class sensitive counts), never on the rows: a partition is a set of class indices, so a
million rows cost what their distinct combinations do. Partitions are split breadth first, all
partitions of a round at once (numpy over the classes of the round, no loop over classes):

- **Dimension.** The widest normalised range first: numeric ``(max − min) / (max − min of the
  table)``; categorical ``(distinct values − 1) / (distinct values of the table − 1)``. Ties go
  to the earlier quasi-identifier in policy order. A dimension whose split is not allowed is
  followed by the next widest, until one is allowed or none is left (the partition is final).
- **Numeric split.** Strict, at the weighted median: the classes ordered by value, the cut is
  placed after the distinct value whose cumulative weight ``c`` minimises ``|2c − total|``
  (ties: the lower cut); left = values ≤ the cut value, right = the rest.
- **Categorical split.** Along the hierarchy: the partition's values are divided among the
  children of their lowest common ancestor (a multiway split). Siblings' subtrees are disjoint,
  so the released ancestors of two partitions never coincide and the checker's classes (distinct
  released values) are exactly the partitions. A quasi-identifier without hierarchy is a
  one-level hierarchy under ``*``.
- **Allowed.** A split is allowed only when every part satisfies every model of the policy,
  evaluated by the model plugins themselves on the parts' class-table aggregates. The aggregate
  table also holds one row with every other record, so a model that compares a class with the
  whole table (t-closeness, β-likeness, δ-disclosure) sees the whole table's distribution — the
  one the release will have, since no record is suppressed.

``relaxed=True`` is LeFevre's relaxed variant: a numeric cut sends the first ⌊n/2⌋ records
in value order left, so records of the median value may go to both sides; its units are then
the classes split by sensitive values, and a cut divides a unit by weight (``Pieces``).

If the whole table, as one partition, violates a model, no partitioning can satisfy it and the
policy is refused (naming the model). Models that need the released keys themselves (population
tables: k-map, δ-presence; the re-identification risk models) are refused too.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from privcheck.anonymizers.base import Anonymizer, check_possible
from privcheck.anonymizers.problem import Progress
from privcheck.classes import (
    ClassTable,
    Members,
    SensitiveCounts,
    count,
    first_rows,
    group,
    merge_sensitive,
    people_per_group,
    row_classes,
)
from privcheck.encoding import EncodedTable, numeric_values, string_labels
from privcheck.errors import PolicyError
from privcheck.hierarchy import TOP
from privcheck.hookspecs import hookimpl
from privcheck.models.base import evaluate_models, table_models
from privcheck.plan import SUPPRESSED, CombinationRecoding, Plan
from privcheck.policy import Policy
from privcheck.report import _fmt

#: why a relaxed release can fail its re-check without a bug
RELAXED_ADVICE = (
    "the relaxed partitions fail {failing} once partitions released with the same values are "
    "read as one class; use relaxed=false (strict partitions never share their released values)"
)

#: the models a split can be checked with: their per-class verdict is a function of the class's
#: size and sensitive counts (and the whole table's, which the aggregate table carries)
SUPPORTED_MODELS = frozenset(
    {
        "k-anonymity",
        "l-diversity",
        "t-closeness",
        "beta-likeness",
        "delta-disclosure",
        "alpha-k-anonymity",
    }
)


#: distinct values per partition are counted with a byte mask over partitions × values up to
#: this many cells (or 8 per class), with a sort beyond
_DENSE_CELLS = 1 << 22


@dataclass(eq=False)
class Dimension:
    """One quasi-identifier as Mondrian sees it, per class of the bottom class table.

    Numeric: ``value`` (float) and ``code`` of each class. Categorical: ``ancestors[l]`` the
    level-``l`` code of each class, up to a single root (added when the hierarchy has none).
    """

    name: str
    numeric: bool
    code: np.ndarray
    value: np.ndarray | None
    ancestors: list[np.ndarray] | None
    labels: list[np.ndarray] | None
    ground: np.ndarray
    #: the table's range (numeric) or distinct values − 1 (categorical), for normalising
    span: float
    #: what a released value covers, for the loss: numeric, the ground values as sorted numbers
    #: (a range covers those inside it); categorical, per level the number of ground values
    #: under each level code (an ancestor covers its leaves)
    ground_sorted: np.ndarray | None = None
    leaves: list[np.ndarray] | None = None


def dimensions(table: ClassTable) -> list[Dimension]:
    """The quasi-identifiers of ``table`` (at the bottom node) as Mondrian dimensions.

    A quasi-identifier is numeric when every value of its ground domain is a number, spelled as
    one (``numeric_values``: a missing value or a zero-padded code makes it categorical)."""
    dims = []
    for j, col in enumerate(table.encoded.quasi_identifiers):
        code = table.keys[:, j].astype(np.int64)
        ground = np.asarray(col.levels.ground, dtype=object)
        as_number = numeric_values(ground)
        if as_number is not None:
            value = as_number[code]
            span = float(value.max() - value.min()) if len(value) else 0.0
            dims.append(
                Dimension(col.name, True, code, value, None, None, ground, span, np.sort(as_number))
            )
            continue
        maps = [np.asarray(m, dtype=np.int64) for m in col.levels.maps]
        labels = [np.asarray(lab, dtype=object) for lab in col.levels.labels]
        if col.levels.cardinality(col.levels.height) > 1:  # no single root: add one
            maps.append(np.zeros(len(ground), dtype=np.int64))
            labels.append(np.array([TOP], dtype=object))
        ancestors = [m[code] for m in maps]
        span = float(len(np.unique(code)) - 1)
        leaves = [np.bincount(m, minlength=len(lab)) for m, lab in zip(maps, labels, strict=True)]
        dims.append(
            Dimension(col.name, False, code, None, ancestors, labels, ground, span, None, leaves)
        )
    return dims


def _segments(part: np.ndarray, n_parts: int) -> tuple[np.ndarray, np.ndarray]:
    """Classes ordered by partition, and each partition's start in that order."""
    order = np.argsort(part, kind="stable")
    starts = np.searchsorted(part[order], np.arange(n_parts + 1))
    return order, starts


def widths(dims: list[Dimension], part: np.ndarray, n_parts: int) -> np.ndarray:
    """Normalised width of every partition (rows) along every dimension (columns)."""
    out = np.zeros((n_parts, len(dims)))
    for j, d in enumerate(dims):
        if d.span <= 0:
            continue
        if d.numeric:
            lo = np.full(n_parts, np.inf)
            hi = np.full(n_parts, -np.inf)
            np.minimum.at(lo, part, d.value)
            np.maximum.at(hi, part, d.value)
            out[:, j] = (hi - lo) / d.span
        else:
            card = int(d.code.max()) + 1
            pair = part * card + d.code
            if n_parts * card <= max(_DENSE_CELLS, 8 * len(pair)):  # a byte mask, no sort
                present = np.zeros(n_parts * card, dtype=bool)
                present[pair] = True
                distinct = present.reshape(n_parts, card).sum(axis=1)
            else:
                distinct = np.bincount(np.unique(pair) // card, minlength=n_parts)
            out[:, j] = (distinct - 1) / d.span
    return out


def lca_level(d: Dimension, part: np.ndarray, n_parts: int) -> np.ndarray:
    """The level of each partition's lowest common ancestor along a categorical dimension."""
    assert d.ancestors is not None
    level = np.full(n_parts, len(d.ancestors) - 1, dtype=np.int64)
    for lv in range(len(d.ancestors) - 2, -1, -1):
        a = d.ancestors[lv]
        lo = np.full(n_parts, np.iinfo(np.int64).max)
        hi = np.full(n_parts, -1)
        np.minimum.at(lo, part, a)
        np.maximum.at(hi, part, a)
        level = np.where(lo == hi, lv, level)
    return level


def numeric_side(d: Dimension, part: np.ndarray, sizes: np.ndarray, n_parts: int) -> np.ndarray:
    """0 (left) or 1 (right) for each class: the strict weighted-median cut of its partition."""
    assert d.value is not None
    order = np.lexsort((d.value, part))
    p, v, w = part[order], d.value[order], sizes[order].astype(np.int64)
    total = np.bincount(p, weights=w, minlength=n_parts).astype(np.int64)
    cum = np.cumsum(w)
    start = np.searchsorted(p, np.arange(n_parts))
    before = np.where(start < len(cum), np.concatenate([[0], cum])[start], 0)
    cum_in = cum - before[p]
    # the end of each run of one value inside a partition, the partition's last run excluded
    nxt_same = np.r_[(p[1:] == p[:-1]) & (v[1:] != v[:-1]), False]
    cand = np.flatnonzero(nxt_same)
    score = np.abs(2 * cum_in[cand] - total[p[cand]])
    pick = np.lexsort((cand, score, p[cand]))  # per partition: least score, then lowest cut
    cand = cand[pick]
    first = np.r_[True, p[cand][1:] != p[cand][:-1]]
    cut_value = np.full(n_parts, np.inf)
    cut_value[p[cand[first]]] = v[cand[first]]
    return (d.value > cut_value[part]).astype(np.int64)


def aggregate(
    table: ClassTable, inverse: np.ndarray, n_groups: int
) -> tuple[np.ndarray, dict[str, SensitiveCounts], Members | None]:
    """Sizes, sensitive counts and (counting people) members of groups of classes
    (``inverse``: each class's group); people are re-counted, a person in two classes of a
    group once."""
    sizes = np.bincount(inverse, weights=table.sizes, minlength=n_groups).astype(np.int64)
    sensitive, members = merge_sensitive(table, inverse, n_groups)
    return sizes, sensitive, members


@dataclass(eq=False)
class Pieces:
    """What Mondrian partitions: pieces of units, each with a weight (records).

    Strict partitioning: the units are the classes of the class table and every piece is a
    whole class (``sensitive`` is None: the class table's sensitive counts are used). Relaxed
    partitioning: the units are the classes split by their sensitive values (rows of a unit
    are interchangeable), and a median cut may divide a unit's records between two pieces.
    """

    unit: np.ndarray
    weight: np.ndarray
    unit_class: np.ndarray
    sensitive: dict[str, tuple[np.ndarray, int]] | None = None


def groups_pass(
    table: ClassTable, pieces: Pieces, inverse: np.ndarray, n_groups: int, configs
) -> np.ndarray:
    """Whether each of ``n_groups`` groups of pieces satisfies every model; pieces with
    ``inverse == n_groups`` form the rest of the table (evaluated, for the table's totals, but
    not reported)."""
    has_rest = bool((inverse == n_groups).any())
    n = n_groups + int(has_rest)
    members = None
    if pieces.sensitive is None:
        sizes, sensitive, members = aggregate(table, inverse, n)
    else:
        sizes = np.bincount(inverse, weights=pieces.weight, minlength=n).astype(np.int64)
        sensitive = {
            name: SensitiveCounts.from_pairs(
                inverse, codes[pieces.unit], n, n_values, weights=pieces.weight
            )
            for name, (codes, n_values) in pieces.sensitive.items()
        }
    keys = np.zeros((n, table.keys.shape[1]), dtype=table.keys.dtype)
    agg = ClassTable(table.encoded, table.node, keys, sizes, sensitive, None, members)
    ok = np.ones(n, dtype=bool)
    for ev in evaluate_models(agg, configs):
        ok &= ev.class_ok
    return ok[:n_groups]


def relaxed_cut(
    value: np.ndarray, part: np.ndarray, weight: np.ndarray, n_parts: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LeFevre's relaxed median cut: in value order, the first ``⌊total/2⌋`` records of each
    partition go left and the rest right, records of the median value on either side.

    Returns each piece's side (0 left, 1 right; a piece the cut divides is 0), the pieces the
    cut divides and the weight each keeps on the left."""
    idx = np.arange(len(value))
    order = np.lexsort((idx, value, part))
    p, w = part[order], weight[order].astype(np.int64)
    total = np.bincount(p, weights=w, minlength=n_parts).astype(np.int64)
    half = total // 2
    cum = np.cumsum(w)
    start = np.searchsorted(p, np.arange(n_parts))
    before = np.concatenate([[0], cum])[np.minimum(start, len(cum))]
    cum_in = cum - before[p]
    prev_in = cum_in - w
    side = np.empty(len(value), dtype=np.int64)
    side[order] = (prev_in >= half[p]).astype(np.int64)
    divided = (prev_in < half[p]) & (cum_in > half[p])
    return side, order[divided], (half[p] - prev_in)[divided]


def partition(
    table: ClassTable,
    dims: list[Dimension],
    configs,
    pieces: Pieces,
    progress: Progress | None = None,
    relaxed: bool = False,
) -> tuple[Pieces, np.ndarray, int, int]:
    """Mondrian's partitioning of ``table``'s records, given as ``pieces`` (``dims`` are per
    class of ``table``).

    Returns the final pieces (relaxed cuts add some), each piece's partition, the number of
    partitions and the number of candidate splits evaluated."""
    part = np.zeros(len(pieces.unit), dtype=np.int64)
    n_parts = 1
    active = np.array([0], dtype=np.int64)
    evaluated = 0
    while len(active):
        pdims = [_take(d, pieces.unit_class[pieces.unit]) for d in dims]
        # widths of the active partitions only, from their pieces (finished ones cost nothing)
        is_active = np.zeros(n_parts, dtype=bool)
        is_active[active] = True
        live = np.flatnonzero(is_active[part])
        local = np.full(n_parts, -1, dtype=np.int64)
        local[active] = np.arange(len(active))
        w = widths([_take(d, live) for d in pdims], local[part[live]], len(active))
        order = np.argsort(-w, axis=1, kind="stable")
        wsorted = np.take_along_axis(w, order, axis=1)
        pending = np.ones(len(active), dtype=bool)
        children: list[int] = []
        for attempt in range(len(dims)):
            trying = pending & (wsorted[:, attempt] > 0)
            pending &= trying
            if not trying.any():
                break
            n = len(pieces.unit)
            # dimension chosen by each partition tried in this attempt (-1: not tried)
            choice = np.full(n_parts, -1, dtype=np.int64)
            choice[active[trying]] = order[trying, attempt]
            child = np.zeros(n, dtype=np.int64)
            cut_at: list[np.ndarray] = []
            cut_left: list[np.ndarray] = []
            for j, d in enumerate(pdims):
                sel = np.flatnonzero(choice[part] == j)
                if not len(sel):
                    continue
                sub, sub_parts = np.unique(part[sel], return_inverse=True)
                if d.numeric and relaxed:
                    assert d.value is not None
                    side, at, left = relaxed_cut(
                        d.value[sel], sub_parts, pieces.weight[sel], len(sub)
                    )
                    child[sel] = side
                    cut_at.append(sel[at])
                    cut_left.append(left)
                elif d.numeric:
                    dd = _take(d, sel)
                    child[sel] = numeric_side(dd, sub_parts, pieces.weight[sel], len(sub))
                else:
                    assert d.ancestors is not None
                    lv = lca_level(_take(d, sel), sub_parts, len(sub))
                    below = lv[sub_parts] - 1
                    anc = np.stack(d.ancestors)[:, sel]
                    child[sel] = anc[below, np.arange(len(sel))]
            # tentatively divide the pieces a relaxed cut runs through: the right remainder
            # becomes a new piece
            at = np.concatenate(cut_at) if cut_at else np.zeros(0, dtype=np.int64)
            left = np.concatenate(cut_left) if cut_left else np.zeros(0, dtype=np.int64)
            trial = pieces
            tpart = part
            if len(at):
                weight = pieces.weight.copy()
                weight[at] = left
                trial = Pieces(
                    np.concatenate([pieces.unit, pieces.unit[at]]),
                    np.concatenate([weight, pieces.weight[at] - left]),
                    pieces.unit_class,
                    pieces.sensitive,
                )
                tpart = np.concatenate([part, part[at]])
                child = np.concatenate([child, np.ones(len(at), dtype=np.int64)])
            tn = len(trial.unit)
            rows = np.flatnonzero(choice[tpart] >= 0)
            gid, n_groups = group(
                [tpart[rows], child[rows]], [n_parts, int(child.max()) + 1 if tn else 1]
            )
            inverse = np.full(tn, n_groups, dtype=np.int64)
            inverse[rows] = gid
            ok = groups_pass(table, trial, inverse, n_groups, configs)
            evaluated += int(trying.sum())
            group_part = np.empty(n_groups, dtype=np.int64)
            group_part[gid] = tpart[rows]
            bad = np.bincount(group_part, weights=~ok, minlength=n_parts) > 0
            split = trying & ~bad[active]
            # partitions whose split is allowed: each group becomes a partition
            split_parts = np.zeros(n_parts, dtype=bool)
            split_parts[active[split]] = True
            if len(at):  # keep the divisions of allowed splits only
                keep = np.ones(tn, dtype=bool)
                undo = ~split_parts[part[at]]
                keep[n + np.flatnonzero(undo)] = False
                trial.weight[at[undo]] = pieces.weight[at[undo]]
                pieces = Pieces(
                    trial.unit[keep], trial.weight[keep], trial.unit_class, trial.sensitive
                )
                tpart, child, gid_full = tpart[keep], child[keep], inverse[keep]
            else:
                gid_full = inverse
            part = tpart.copy()
            go = split_parts[group_part]
            new_id = np.full(n_groups + 1, -1, dtype=np.int64)
            new_id[:n_groups][go] = n_parts + np.arange(int(go.sum()))
            moved = np.flatnonzero(new_id[gid_full] >= 0)
            part[moved] = new_id[gid_full[moved]]
            children.extend(range(n_parts, n_parts + int(go.sum())))
            n_parts += int(go.sum())
            pending &= ~split
        # renumber partitions densely (split parents leave no piece behind)
        used, part = np.unique(part, return_inverse=True)
        remap = np.full(n_parts, -1, dtype=np.int64)
        remap[used] = np.arange(len(used))
        n_parts = len(used)
        active = remap[np.asarray(children, dtype=np.int64)] if children else np.zeros(0, int)
        if progress is not None:
            progress(n_parts, table.n_records)
    return pieces, part, n_parts, evaluated


def _take(d: Dimension, sel: np.ndarray) -> Dimension:
    """The dimension restricted to the classes ``sel`` (same span: widths stay normalised by
    the whole table)."""
    return Dimension(
        d.name,
        d.numeric,
        d.code[sel],
        None if d.value is None else d.value[sel],
        None if d.ancestors is None else [a[sel] for a in d.ancestors],
        d.labels,
        d.ground,
        d.span,
        d.ground_sorted,
        d.leaves,
    )


def _bounds(d: Dimension, part: np.ndarray, n_parts: int) -> tuple[np.ndarray, np.ndarray]:
    """The lowest and highest value of every partition along a numeric dimension."""
    assert d.value is not None
    lo = np.full(n_parts, np.inf)
    hi = np.full(n_parts, -np.inf)
    np.minimum.at(lo, part, d.value)
    np.maximum.at(hi, part, d.value)
    return lo, hi


def partition_labels(d: Dimension, part: np.ndarray, n_parts: int) -> np.ndarray:
    """The released value of every partition along one dimension (strings)."""
    if d.numeric:
        assert d.value is not None
        lo, hi = _bounds(d, part, n_parts)
        # the ground code at each end, so that values are written as the data spells them
        lo_code = np.zeros(n_parts, dtype=np.int64)
        hi_code = np.zeros(n_parts, dtype=np.int64)
        at_lo = d.value == lo[part]
        at_hi = d.value == hi[part]
        lo_code[part[at_lo]] = d.code[at_lo]
        hi_code[part[at_hi]] = d.code[at_hi]
        g = string_labels(d.ground)
        low, high = g[lo_code], g[hi_code]
        same = lo == hi
        out = np.empty(n_parts, dtype=object)
        out[same] = low[same]
        spread = ~same
        ranges = "[" + pd.Series(low[spread], dtype=object) + ", " + pd.Series(high[spread]) + "]"
        out[spread] = ranges.to_numpy(dtype=object)
        return out
    assert d.ancestors is not None and d.labels is not None
    level = lca_level(d, part, n_parts)
    rep = first_rows(part, n_parts)
    out = np.empty(n_parts, dtype=object)
    for lv in np.unique(level):
        at = np.flatnonzero(level == lv)
        out[at] = d.labels[lv][d.ancestors[lv][rep[at]]]
    return pd.Series(out, dtype=object).astype(str).to_numpy(dtype=object)


def covered(d: Dimension, part: np.ndarray, n_parts: int) -> np.ndarray:
    """How many ground values of its quasi-identifier each partition's released value covers:
    a range ``[lo, hi]`` the ground values inside it (the value itself: 1), an ancestor the
    leaves under it (the added root ``*``: all of them)."""
    if d.numeric:
        assert d.ground_sorted is not None
        lo, hi = _bounds(d, part, n_parts)
        return np.searchsorted(d.ground_sorted, hi, side="right") - np.searchsorted(
            d.ground_sorted, lo, side="left"
        )
    assert d.ancestors is not None and d.leaves is not None
    level = lca_level(d, part, n_parts)
    rep = first_rows(part, n_parts)
    out = np.zeros(n_parts, dtype=np.int64)
    for lv in np.unique(level):
        at = np.flatnonzero(level == lv)
        out[at] = d.leaves[lv][d.ancestors[lv][rep[at]]]
    return out


def partition_loss(dims: list[Dimension], part: np.ndarray, n_parts: int, sizes) -> float:
    """The loss of the release (docs/anonymization.md, "Metrics"; the definition every
    algorithm reports): a released value covering ``m`` of the ``D`` ground values of its
    quasi-identifier's hierarchy costs ``(m − 1)/(D − 1)``, averaged over every cell. One value
    per partition and dimension, weighted by the partition's records (no record is suppressed).
    """
    per = partition_loss_by_attribute(dims, part, n_parts, sizes)
    return sum(per.values()) / len(per) if per else 0.0


def partition_loss_by_attribute(
    dims: list[Dimension], part: np.ndarray, n_parts: int, sizes
) -> dict[str, float]:
    """``partition_loss`` of each quasi-identifier's cells (their mean is the loss)."""
    psize = np.bincount(part, weights=sizes, minlength=n_parts)
    total = float(psize.sum())
    out = {}
    for d in dims:
        domain = len(d.ground)
        cost = 0.0
        if domain > 1 and total > 0:
            cost = float((covered(d, part, n_parts) - 1) @ psize) / ((domain - 1) * total)
        out[d.name] = cost
    return out


class Mondrian(Anonymizer):
    name = "mondrian"
    summary = "multidimensional local recoding (LeFevre et al. 2006): ranges and hierarchy nodes"
    engine_release: ClassVar[bool] = True
    #: a split is allowed only when every part holds enough people (its classes' members
    #: re-counted), and every record is kept: k people per released partition
    counts_people: ClassVar[bool] = True

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """``relaxed``: LeFevre's relaxed partitioning — records of the median value of a
        numeric cut may go to either side (halves of equal size; released ranges may share
        their end value)."""
        return {"relaxed": False}

    def plan(
        self,
        encoded: EncodedTable | None,
        policy: Policy,
        *,
        rows: Any = None,
        seed: int | None = None,
        previous: dict[str, int] | None = None,
        progress: Progress | None = None,
        lower: Any = None,
    ) -> Plan:
        """Partition the class table: a ``CombinationRecoding`` whose units (the pieces) write
        their partition's labels."""
        started = time.perf_counter()
        if previous is not None:
            raise PolicyError(
                "mondrian recodes each partition on its own, so it cannot be restricted to an "
                "earlier release's node; drop --previous or use a full-domain algorithm"
            )
        configs = table_models(policy.models)
        unsupported = [c.model for c in configs if c.model not in SUPPORTED_MODELS]
        if unsupported:
            raise PolicyError(
                f"mondrian cannot enforce {unsupported[0]}: its verdict needs more than a "
                f"partition's size and sensitive counts; supported: "
                f"{', '.join(sorted(SUPPORTED_MODELS))} (use --algorithm mingen)"
            )
        check_possible(encoded, policy)
        table = count(encoded, track_records=True)
        everything = np.zeros(table.n_classes, dtype=np.int64)
        sizes, sensitive, members = aggregate(table, everything, 1)
        whole = ClassTable(
            encoded,
            table.node,
            np.zeros((1, table.keys.shape[1]), int),
            sizes,
            sensitive,
            None,
            members,
        )
        for ev in evaluate_models(whole, configs):
            if not ev.passed:
                raise PolicyError(
                    f"no partitioning satisfies {ev.config.model} "
                    f"({', '.join(f'{k}={v}' for k, v in ev.config.params().items())}): the "
                    f"whole table as one partition violates it ({ev.statistic} = "
                    f"{_fmt(ev.value())}); relax the model"
                )
        search_started = time.perf_counter()
        dims = dimensions(table)
        relaxed = bool(self.params["relaxed"])
        if relaxed and policy.individual is not None:
            raise PolicyError(
                "mondrian relaxed=true divides a class's records between partitions by count, "
                f"not by person, so it cannot count people ('individual: {policy.individual}'); "
                "use the strict default (relaxed=false)"
            )
        pieces, record_unit = initial_pieces(table, encoded, relaxed)
        pieces, part, n_parts, evaluated = partition(
            table, dims, configs, pieces, progress, relaxed
        )
        search_seconds = time.perf_counter() - search_started
        pdims = [_take(d, pieces.unit_class[pieces.unit]) for d in dims]
        labels = {d.name: partition_labels(d, part, n_parts) for d in pdims}
        # classes as released: distinct label combinations (the partitions, unless relaxed
        # cuts left two partitions with the same values)
        label_codes = [pd.factorize(pd.Series(lab, dtype=object))[0] for lab in labels.values()]
        if label_codes:
            cls, n_classes = group(label_codes, [int(c.max()) + 1 for c in label_codes])
        else:  # no quasi-identifier: one class
            cls, n_classes = np.zeros(n_parts, dtype=np.int64), 1
        psizes = np.bincount(part, weights=pieces.weight, minlength=n_parts)
        csizes = np.bincount(cls, weights=psizes, minlength=n_classes)
        subjects = csizes  # what the risk of a released class reads: records, or people
        if encoded.individual is not None and table.record_class is not None:
            record_cls = cls[part[record_pieces(pieces, record_unit, table.record_class)]]
            subjects = people_per_group(
                record_cls, n_classes, encoded.individual, encoded.n_individuals
            )
        n = encoded.n_records
        metrics = {
            "n_classes": float(n_classes),
            "discernibility": float((csizes**2).sum()),
            "aecs": n / n_classes,
            "loss": partition_loss(pdims, part, n_parts, pieces.weight),
        }
        per_attribute = partition_loss_by_attribute(pdims, part, n_parts, pieces.weight)

        row_group = table.record_class
        if row_group is None:  # an engine's counts: the class of every aggregated row
            row_group = row_classes(encoded, table.node)
        keys = list(encoded.qi_names)
        if record_unit is not None:  # relaxed: a group is a class and its sensitive values
            row_group, keys = record_unit, [*encoded.qi_names, *encoded.sensitive]
        released = {name: np.asarray(lab, dtype=object)[part] for name, lab in labels.items()}
        report = {
            "algorithm": self.name,
            "parameters": {
                **self.params,
                "models": [{"model": m.model, **m.params()} for m in policy.models],
                "seed_given": None,
                "keep_order": None,
                "numeric": [d.name for d in dims if d.numeric],
            },
            "quasi_identifiers": encoded.qi_names,
            "node": None,
            "n_records": n,
            "n_kept": n,
            "n_suppressed": 0,
            "metric": None,
            "metrics": metrics,
            "loss_by_attribute": per_attribute,
            "nodes_evaluated": evaluated,
            "search_seconds": round(search_seconds, 4),
        }
        return Plan(
            algorithm=self.name,
            recoding=CombinationRecoding(
                keys,
                row_group,
                pieces.unit,
                pieces.weight,
                released,
                starred_kept=starred_partitions(released, pieces.weight, policy),
            ),
            report=report,
            metrics=metrics,
            n_classes=int(n_classes),
            n_suppressed=0,
            suppressed_cells=0,
            class_sizes=subjects[csizes > 0].astype(np.int64),
            seconds=time.perf_counter() - started,
            ground_table=table,
            failure_advice=RELAXED_ADVICE if relaxed else None,
        )


def starred_partitions(released: dict[str, np.ndarray], weight: np.ndarray, policy: Policy) -> bool:
    """Whether some (not every) partition is released with every quasi-identifier ``*`` under
    ``suppressed_records: star`` (a literal ``*`` value, or ``*`` above a hierarchy without a
    single root): a check reads its records as suppressed records, which Mondrian never
    makes."""
    if policy.suppressed_records != "star" or not released:
        return False
    every = np.ones(len(weight), dtype=bool)
    for values in released.values():
        every &= values == SUPPRESSED
    every = every[weight > 0]
    return bool(every.any() and not every.all())


def initial_pieces(
    table: ClassTable, encoded: EncodedTable, relaxed: bool
) -> tuple[Pieces, np.ndarray | None]:
    """The pieces partitioning starts from, and (relaxed) the unit of every record.

    Strict: one piece per class. Relaxed: one per class and combination of sensitive values
    (the records of a unit are interchangeable, so a cut may divide a unit by weight). For an
    engine's counts (weighted rows) a "record" is an aggregated row, weighing its count."""
    n = table.n_classes
    if not relaxed:
        every = np.arange(n)
        return Pieces(every, table.sizes.astype(np.int64), every), None
    record_class = table.record_class
    if record_class is None:  # an engine's counts: no record numbers, classes of the rows
        record_class = row_classes(encoded, table.node)
    columns, cards = [record_class], [max(n, 1)]
    for col in encoded.sensitive.values():
        columns.append(col.codes)
        cards.append(col.cardinality())
    record_unit, n_units = group(columns, cards)
    first = first_rows(record_unit, n_units)
    weight = np.bincount(record_unit, weights=encoded.weights, minlength=n_units).astype(np.int64)
    sensitive = {
        name: (col.codes[first].astype(np.int64), col.cardinality())
        for name, col in encoded.sensitive.items()
    }
    units = np.arange(n_units)
    return Pieces(units, weight, record_class[first], sensitive), record_unit


def record_pieces(
    pieces: Pieces, record_unit: np.ndarray | None, record_class: np.ndarray
) -> np.ndarray:
    """The piece of every record: a unit's records (in input order) fill its pieces in turn."""
    if record_unit is None:  # strict: the pieces are the classes, never divided
        return record_class
    n_units = int(pieces.unit.max()) + 1 if len(pieces.unit) else 0
    n_pieces = np.bincount(pieces.unit, minlength=n_units)
    # a unit no cut divided has one piece, which all its records take
    only = np.full(n_units, -1, dtype=np.int64)
    whole = np.flatnonzero(n_pieces[pieces.unit] == 1)
    only[pieces.unit[whole]] = whole
    out = only.take(record_unit)
    rows = np.flatnonzero(out < 0)  # records of divided units: few, ordered by unit
    if len(rows):
        rows = rows[np.argsort(record_unit[rows], kind="stable")]
        divided = np.flatnonzero(n_pieces[pieces.unit] > 1)
        divided = divided[np.argsort(pieces.unit[divided], kind="stable")]
        piece_end = np.cumsum(pieces.weight[divided])
        out[rows] = divided[np.searchsorted(piece_end, np.arange(len(rows)), side="right")]
    return out


@hookimpl
def privcheck_anonymizers() -> list[type]:
    return [Mondrian]
