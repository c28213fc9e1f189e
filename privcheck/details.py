"""The figures behind a report's plots, computed from the class table (never from the rows).

A check already holds every class's size and sensitive counts; these summaries — the class-size
histogram, the histogram of each model's per-class statistic, the sensitive distribution of the
worst classes against the whole table's — cost one pass over the classes and let the HTML report
(or any reader of the JSON) draw the picture without privcheck or the data.
"""

from __future__ import annotations

import numpy as np

from privcheck.classes import ClassTable
from privcheck.models.base import Evaluation
from privcheck.policy import SensitiveModelConfig
from privcheck.report import ClassDistribution, SensitiveDistribution, SizeHistogram, ValueHistogram

#: integer-valued statistics get one bin per value while their range is at most this wide
_UNIT_BINS = 40
_BINS = 20


def size_histogram(sizes: np.ndarray) -> SizeHistogram:
    """Exact number of classes of each size (a class table has few distinct sizes)."""
    uniq, counts = np.unique(np.asarray(sizes, dtype=np.int64), return_counts=True)
    return SizeHistogram(sizes=uniq.tolist(), classes=counts.tolist())


def _cut(bound: tuple[float, str]) -> float:
    """The bin edge at a model's bound: just above it when the bound itself passes (``<=``).
    Compared with the data range after the nudge — a class exactly at t (EMD 0.375 for
    t = 0.375, computed as 0.37500000000000006) would otherwise put the edge past the top."""
    return bound[0] + (abs(bound[0]) + 1) * 1e-12 * (bound[1] == "<=")


def value_histogram(
    values: np.ndarray,
    sizes: np.ndarray,
    bound: tuple[float, str] | None = None,
    bins: int = _BINS,
) -> ValueHistogram:
    """Histogram of a per-class statistic, counting classes and the records they hold.

    With the model's ``bound`` (value, comparison) a bin edge falls exactly on it, so every bin
    holds only passing or only failing classes.
    """
    values = np.asarray(values, dtype=float)
    finite = np.isfinite(values)
    v, w = values[finite], np.asarray(sizes, dtype=float)[finite]
    if len(v) == 0:
        edges = np.array([0.0, 1.0])
    else:
        lo, hi = float(v.min()), float(v.max())
        if hi - lo <= _UNIT_BINS and np.array_equal(v, np.floor(v)):  # (np.mod is slow)
            edges = np.arange(lo - 0.5, hi + 1.5)
        elif hi == lo:
            edges = np.array([lo - 0.5, hi + 0.5])
        elif bound is not None and lo < _cut(bound) < hi:
            cut = _cut(bound)
            left = int(np.clip(round(bins * (cut - lo) / (hi - lo)), 1, bins - 1))
            edges = np.r_[np.linspace(lo, cut, left + 1), np.linspace(cut, hi, bins - left + 1)[1:]]
        else:
            edges = np.linspace(lo, hi, bins + 1)
    classes, records = _bin_counts(v, w, edges)
    return ValueHistogram(
        edges=[round(float(e), 10) for e in edges],
        classes=classes.astype(int).tolist(),
        records=records.astype(np.int64).tolist(),
        unbounded=int((~finite).sum()),
    )


def _bin_counts(v: np.ndarray, w: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """np.histogram's counts and weighted counts (bins [e_i, e_i+1), the last one closed), from
    one bin lookup: np.histogram sorts the values for uneven edges, twice for the two counts."""
    n_bins = len(edges) - 1
    idx = np.searchsorted(edges, v, side="right") - 1
    idx[v == edges[-1]] = n_bins - 1
    inside = (idx >= 0) & (idx < n_bins)
    idx, w = idx[inside], w[inside]
    return np.bincount(idx, minlength=n_bins), np.bincount(idx, weights=w, minlength=n_bins)


def worst_classes(ev: Evaluation, n: int) -> np.ndarray:
    """The ``n`` classes with the worst statistic, worst first (ties in class order; NaN last).

    A stable sort rather than argpartition: per-class statistics take few distinct values, on
    which numpy's introselect is ten times slower than the sort.
    """
    if n <= 0:
        return np.zeros(0, dtype=np.int64)
    return ev.worst_first(np.arange(len(ev.class_value)), limit=n)


#: a numeric sensitive attribute with more distinct values than this is shown as value ranges
NUMERIC_DISTINCT = 20
#: how many ranges of about equal overall frequency
NUMERIC_BINS = 10


def _numbers(labels: list[str]) -> np.ndarray | None:
    """The labels as floats when every one is a number (else None)."""
    try:
        return np.array([float(v) for v in labels], dtype=np.float64)
    except ValueError:
        return None


def _short(v: float) -> str:
    return f"{v:.0f}" if float(v).is_integer() else f"{v:.4g}"


def _value_ranges(
    shown: np.ndarray, numbers: np.ndarray, overall: np.ndarray, bins: int
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Values (codes ``shown``) grouped into ranges of about equal overall frequency.

    Returns the codes in numeric order, the range index of each and the ranges' labels. A range
    never splits one value; ranges are cut where the cumulative count crosses i/bins.
    """
    order = np.argsort(numbers, kind="stable")
    codes, nums = shown[order], numbers[order]
    counts = overall[codes].astype(np.float64)
    before = np.cumsum(counts) - counts
    raw = np.minimum((before * bins) // max(counts.sum(), 1.0), bins - 1).astype(np.int64)
    _, which = np.unique(raw, return_inverse=True)
    n_ranges = int(which.max()) + 1
    lo = np.full(n_ranges, np.inf)
    hi = np.full(n_ranges, -np.inf)
    np.minimum.at(lo, which, nums)
    np.maximum.at(hi, which, nums)
    labels = [
        _short(a) if a == b else f"{_short(a)}–{_short(b)}" for a, b in zip(lo, hi, strict=True)
    ]
    return codes, which, labels


def sensitive_distribution(
    table: ClassTable, ev: Evaluation, n_classes: int = 3, max_values: int = 30
) -> SensitiveDistribution | None:
    """The protected attribute's distribution overall and in the model's worst classes.

    Every value with a count when there are few; a numeric attribute with more than
    ``NUMERIC_DISTINCT`` distinct values as ``NUMERIC_BINS`` value ranges of about equal overall
    frequency (a bar per salary is unreadable, and the most frequent values of a continuous
    attribute are an arbitrary few); other attributes with more than ``max_values`` values as
    the most frequent ones plus 'other'.
    """
    if not isinstance(ev.config, SensitiveModelConfig) or ev.config.attribute is None:
        return None
    name = ev.config.attribute
    s = table.sensitive.get(name)
    if s is None:
        return None
    overall = s.totals()
    labels = table.encoded.sensitive[name].levels.ground
    rank = table.encoded.sensitive_rank.get(name, np.arange(s.n_values))
    shown = np.flatnonzero(overall > 0)
    numbers = _numbers([str(labels[v]) for v in shown]) if len(shown) > NUMERIC_DISTINCT else None
    grouping = None
    if numbers is not None:
        codes, which, names = _value_ranges(shown, numbers, overall, NUMERIC_BINS)
        grouping = (
            f"{len(names)} ranges of about equal frequency over the table "
            f"({len(shown)} distinct values)"
        )

        def project(counts: np.ndarray) -> list[int]:
            out = np.bincount(which, weights=counts[codes], minlength=len(names))
            return [int(c) for c in out]

    else:
        other = np.zeros(0, dtype=np.int64)
        if len(shown) > max_values:
            by_freq = shown[np.argsort(-overall[shown], kind="stable")]
            shown, other = by_freq[: max_values - 1], by_freq[max_values - 1 :]
            grouping = f"the {len(shown)} most frequent values, then the other {len(other)}"
        shown = shown[np.argsort(rank[shown], kind="stable")]
        names = [str(labels[v]) for v in shown]
        if len(other):
            names.append(f"other ({len(other)} values)")

        def project(counts: np.ndarray) -> list[int]:
            out = counts[shown].tolist()
            if len(other):
                out.append(counts[other].sum())
            return [int(c) for c in out]

    worst = worst_classes(ev, n_classes)
    classes = [
        ClassDistribution(
            values=values,
            size=int(table.sizes[c]),
            statistic=float(ev.class_value[c]) if np.isfinite(ev.class_value[c]) else None,
            counts=project(s.dense(int(c), int(c) + 1)[0]),
        )
        for c, values in zip(worst, table.class_labels(worst), strict=True)
    ]
    return SensitiveDistribution(
        attribute=name,
        values=names,
        overall=project(overall),
        classes=classes,
        grouping=grouping,
    )
