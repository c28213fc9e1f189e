"""The charts of the anonymization page, each with its text alternative.

The generalization/suppression front (``tradeoff_plot``, ``pareto``), records by prosecutor risk
and by class size before and after (``risk_plot``, ``class_sizes_plot``), information loss per
quasi-identifier (``loss_plot``) and ``--algorithm auto``'s candidates on one risk–utility chart
(``candidates_plot``).
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np

from privcheck.html_report.check import size_buckets
from privcheck.html_report.page import (
    BAD,
    GREY,
    INK,
    SERIES,
    inline_svg,
    label,
    literal_text,
    new_figure,
    plot_text,
    spans_orders,
    style_axes,
)
from privcheck.report import RiskProfile, _fmt


def metric_direction(metric: str | None) -> str:
    """Which way a metric is better, in words (unknown metrics: nothing)."""
    from privcheck.metrics.generalization import METRICS

    m = METRICS.get(metric or "")
    if m is None:
        return ""
    return "higher is better" if m.higher_is_better else "lower is better"


def pareto(x: np.ndarray, cost: np.ndarray) -> np.ndarray:
    """Which points no other beats on both ``x`` and ``cost`` (lower is better on both)."""
    order = np.lexsort((cost, x))
    best = np.minimum.accumulate(cost[order])
    front = np.zeros(len(x), dtype=bool)
    # a point is on the front when its cost is below every cost at fewer or equal x before it
    prior = np.r_[np.inf, best[:-1]]
    front[order] = cost[order] < prior
    return front


@literal_text
def tradeoff_plot(
    points: list[dict[str, Any]], metric: str | None, chosen: int | None, salt: str
) -> str:
    """The releases the search scored: the metric against the suppressed records, the front of
    those no other beats on both joined by a line, the written release ringed."""
    x = np.array([p["suppressed"] for p in points], dtype=float)
    y = np.array([np.nan if p["value"] is None else p["value"] for p in points], dtype=float)
    direction = metric_direction(metric)
    cost = -y if direction == "higher is better" else y
    front = pareto(x, np.where(np.isnan(cost), np.inf, cost))
    order = np.flatnonzero(front)[np.argsort(x[front], kind="stable")]
    name = label(metric or "metric")
    fig = new_figure(6.8, 3.0)
    ax = fig.add_subplot(1, 1, 1)
    if (~front).any():
        ax.plot(x[~front], y[~front], "o", color=GREY, markersize=4, label="other releases")
    ax.step(x[order], y[order], where="post", color=SERIES[3], linewidth=1.4)
    ax.plot(x[front], y[front], "o", color=SERIES[3], markersize=4, label="Pareto-optimal")
    if chosen is not None:
        ax.plot(
            [x[chosen]], [y[chosen]], "o", markersize=11, markerfacecolor="none",
            markeredgecolor=BAD, markeredgewidth=1.8, label="this release",
        )  # fmt: skip
    ax.set_xlabel("suppressed records (fewer is better)", fontsize=9)
    ax.set_ylabel(f"{name}" + (f"\n({direction})" if direction else ""), fontsize=9)
    ax.legend(fontsize=8, frameon=False)
    style_axes(ax)
    fig.tight_layout()
    alt = (
        f"Scatter plot of {name} against suppressed records for {len(points)} releases "
        f"({direction or 'metric as computed'}; fewer suppressed records is better): "
        + "; ".join(
            f"{int(x[i]):,} suppressed, {name} {_fmt(None if np.isnan(y[i]) else y[i])}"
            + (" (this release)" if i == chosen else "")
            for i in range(len(points))
        )
    )
    return inline_svg(fig, salt, alt)


BEFORE, AFTER = GREY, SERIES[3]


def bin_labels(edges: list[float]) -> list[str]:
    return [f"({_fmt(lo)}, {_fmt(hi)}]" for lo, hi in pairwise(edges)]


def _two_series_bars(ax, x: np.ndarray, before: np.ndarray, after: np.ndarray) -> None:
    ax.bar(x - 0.2, before, 0.4, color=BEFORE, label="before (input)")
    ax.bar(x + 0.2, after, 0.4, color=AFTER, label="after (release)")


@literal_text
def risk_plot(profile: RiskProfile, salt: str) -> str:
    """Records per prosecutor-risk bin before and after (ARX's risk view); the threshold of
    ``records_above`` marked."""
    labels = bin_labels(profile.risk_bins)
    before = np.asarray(profile.records_before)
    after = np.asarray(profile.records_after)
    fig = new_figure(7.4, 3.1)
    ax = fig.add_subplot(1, 1, 1)
    x = np.arange(len(labels))
    _two_series_bars(ax, x, before, after)
    # the threshold between the bins it separates (inside a bin when it is no edge)
    edges = np.asarray(profile.risk_bins)
    at = float(np.interp(profile.threshold, edges, np.arange(len(edges)))) - 0.5
    ax.axvline(at, color=BAD, linestyle="--", linewidth=1.2)
    ax.text(at, 1.0, f" threshold {_fmt(profile.threshold)}", color=BAD, fontsize=8,
            transform=ax.get_xaxis_transform(), va="top")  # fmt: skip
    ax.set_xticks(x, labels, rotation=30, ha="right")
    ax.set_xlabel(
        "re-identification risk of a record, 1 / class size (lower is better)", fontsize=9
    )
    ax.set_ylabel("records", fontsize=9)
    ax.set_title("records by prosecutor risk — bars to the left are safer", fontsize=9, loc="left")
    if spans_orders(np.r_[before, after]):
        ax.set_yscale("log")
    ax.legend(fontsize=8, frameon=False, loc="upper center")
    style_axes(ax)
    fig.tight_layout()
    alt = (
        "Bar chart of records by prosecutor re-identification risk, before and after "
        f"(lower risk is better; threshold {_fmt(profile.threshold)}): "
        + "; ".join(
            f"risk {lab}: {b:,} before, {a:,} after"
            for lab, b, a in zip(labels, before, after, strict=True)
        )
    )
    return inline_svg(fig, salt, alt)


def size_comparison(profile: RiskProfile) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Records per class-size bucket before and after, on shared buckets (and their lows)."""
    top = max(
        max(profile.class_sizes_before.sizes, default=1),
        max(profile.class_sizes_after.sizes, default=1),
    )
    labels, _, before, lows = size_buckets(profile.class_sizes_before, top)
    _, _, after, _ = size_buckets(profile.class_sizes_after, top)
    return labels, before, after, lows


@literal_text
def class_sizes_plot(profile: RiskProfile, salt: str) -> str:
    """Records by the size of their class before and after; k marked."""
    labels, before, after, lows = size_comparison(profile)
    fig = new_figure(7.4, 3.1)
    ax = fig.add_subplot(1, 1, 1)
    x = np.arange(len(labels))
    _two_series_bars(ax, x, before, after)
    if profile.k is not None and (lows < profile.k).any() and (lows >= profile.k).any():
        at = int(np.searchsorted(lows, profile.k)) - 0.5
        ax.axvline(at, color=BAD, linestyle="--", linewidth=1.2)
        ax.text(at, 1.0, f" k = {profile.k}", color=BAD, fontsize=8,
                transform=ax.get_xaxis_transform(), va="top")  # fmt: skip
    ax.set_xticks(x, labels, rotation=30, ha="right")
    ax.set_xlabel("size of the record's equivalence class (larger is safer)", fontsize=9)
    ax.set_ylabel("records", fontsize=9)
    ax.set_title("records by class size — bars to the right are safer", fontsize=9, loc="left")
    if spans_orders(np.r_[before, after]):
        ax.set_yscale("log")
    ax.legend(fontsize=8, frameon=False, loc="upper center")
    style_axes(ax)
    fig.tight_layout()
    alt = (
        "Bar chart of records by the size of their equivalence class, before and after "
        "(larger classes are safer"
        + (f"; k = {profile.k}" if profile.k is not None else "")
        + "): "
        + "; ".join(
            f"size {lab}: {b:,} before, {a:,} after"
            for lab, b, a in zip(labels, before, after, strict=True)
        )
    )
    return inline_svg(fig, salt, alt)


@literal_text
def loss_plot(loss: dict[str, float], salt: str) -> str:
    """Information loss per quasi-identifier, horizontal bars (lower is better)."""
    names = list(loss)
    values = np.array([loss[n] for n in names], dtype=float)
    fig = new_figure(6.4, 0.6 + 0.32 * len(names))
    ax = fig.add_subplot(1, 1, 1)
    y = np.arange(len(names))
    ax.barh(y, values, color=AFTER, height=0.6)
    ax.set_yticks(y, [plot_text(n) for n in names])
    ax.invert_yaxis()
    top = float(np.nanmax(values)) if len(values) else 1.0
    ax.set_xlim(0, max(1.0, top * 1.05))
    for yi, v in zip(y, values, strict=True):
        ax.text(v, yi, f" {_fmt(float(v))}", va="center", fontsize=8, color=INK)
    ax.set_xlabel("information loss (0 = none, 1 = all; lower is better)", fontsize=9)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.tick_params(labelsize=8, colors=INK)
    fig.tight_layout()
    alt = "Bar chart of information loss per quasi-identifier (lower is better): " + "; ".join(
        f"{n} {_fmt(float(v))}" for n, v in zip(names, values, strict=True)
    )
    return inline_svg(fig, salt, alt)


def is_scored(c: dict[str, Any]) -> bool:
    risk = c.get("risk") or {}
    return (
        c.get("excluded_reason") is None
        and c.get("metric_value") is not None
        and risk.get("average") is not None
    )


@literal_text
def candidates_plot(candidates: list[dict[str, Any]], chosen: str | None, salt: str) -> str:
    """Every scored candidate: its average prosecutor risk against its metric, the written one
    ringed, failing ones crossed."""
    scored = [c for c in candidates if is_scored(c)]
    metrics = {c.get("metric") for c in scored}
    metric = next(iter(metrics)) if len(metrics) == 1 else None
    direction = metric_direction(metric)
    x = np.array([c["risk"]["average"] for c in scored], dtype=float)
    y = np.array([c["metric_value"] for c in scored], dtype=float)
    fig = new_figure(6.8, 3.4)
    ax = fig.add_subplot(1, 1, 1)
    for i, c in enumerate(scored):
        ok = bool(c.get("passed"))
        ax.plot([x[i]], [y[i]], "o" if ok else "x", color=AFTER if ok else BAD, markersize=6)
        ax.annotate(str(c["algorithm"]), (x[i], y[i]), textcoords="offset points",
                    xytext=(5, 4), fontsize=8, color=INK)  # fmt: skip
        if c["algorithm"] == chosen:
            ax.plot([x[i]], [y[i]], "o", markersize=13, markerfacecolor="none",
                    markeredgecolor=BAD, markeredgewidth=1.8)  # fmt: skip
    from matplotlib.lines import Line2D

    handles = [
        Line2D([], [], marker="o", color=AFTER, linestyle="", label="passes the policy"),
        Line2D([], [], marker="x", color=BAD, linestyle="", label="fails the policy"),
        Line2D([], [], marker="o", markerfacecolor="none", markeredgecolor=BAD, markersize=11,
               linestyle="", label="chosen (written)"),
    ]  # fmt: skip
    ax.legend(handles=handles, fontsize=8, frameon=False, loc="best")
    ax.set_xlabel("average prosecutor risk of the release (lower is better)", fontsize=9)
    ylabel = label(metric) if metric else "metric value (each candidate's metric)"
    ax.set_ylabel(ylabel + (f"\n({direction})" if direction else ""), fontsize=9)
    ax.margins(x=0.15, y=0.15)
    style_axes(ax)
    fig.tight_layout()
    alt = (
        f"Scatter plot of {len(scored)} candidate releases, average prosecutor risk (lower is "
        f"better) against {ylabel}"
        + (f" ({direction})" if direction else "")
        + ": "
        + "; ".join(
            f"{c['algorithm']}: risk {_fmt(c['risk']['average'])}, {_fmt(c['metric_value'])}"
            + ("" if c.get("passed") else ", fails the policy")
            + (", chosen" if c["algorithm"] == chosen else "")
            for c in scored
        )
    )
    return inline_svg(fig, salt, alt)
