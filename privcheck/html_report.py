"""The HTML report: one self-contained page, readable without privcheck, the data or a network.

Everything is inline: CSS in a ``<style>`` element, plots as SVG drawn by matplotlib (Agg-free
``Figure`` objects, no pyplot state), no scripts, fonts or images fetched. The page is built only
from the Report (its ``class_sizes``, each model's ``histogram`` and ``distribution``, and the
``sections`` other steps contribute), so a saved JSON report can be re-rendered later.

Layout: verdict; a summary table (required vs achieved per model); the class-size histogram; one
section per model (statistic histogram with the bound marked, the sensitive distribution of the
worst classes against the table's, the worst violating classes); then contributed sections —
anonymization node, suppression, information loss, utility, risk — each only when present.

The anonymization report (`render_anonymization_html`) uses the same shell: the transformation
(node or masked attributes, parameters, search figures), suppression, information loss, the
generalization/suppression front as a plot, the release's exposure to its transparency attack,
then the re-check's model table and model sections. The risk report (`render_risk_html`)
draws the sections of a ``privcheck risk`` report. Figures are labelled in words (`label`),
never by their JSON keys.
"""

from __future__ import annotations

import functools
import html
import io
import re
from collections.abc import Callable
from datetime import UTC, datetime
from itertools import pairwise
from typing import Any

import numpy as np

from privcheck.errors import listing
from privcheck.report import (
    SECTION_ORDER,
    AnonymizationReport,
    Exposure,
    ModelResult,
    Report,
    RiskProfile,
    Section,
    SensitiveDistribution,
    SizeHistogram,
    ValueHistogram,
    _fmt,
    _params,
    class_requirement,
    draft_note,
    requirement,
)

OK, BAD, GREY, INK = "#1a7f37", "#c62828", "#9aa4ae", "#24292f"
SERIES = ("#c62828", "#ef6c00", "#6a1b9a", "#1565c0", "#00838f")
_OPS = {">=": "≥", "<=": "≤", "<": "<"}

CSS = """
:root{--ok:#1a7f37;--bad:#c62828;--ink:#24292f;--muted:#57606a;--line:#d0d7de;--bg:#f6f8fa}
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;
color:var(--ink);margin:0;background:#fff;line-height:1.45}
main{max-width:1080px;margin:0 auto;padding:24px 28px 48px}
header.top{display:flex;align-items:center;gap:18px;border-bottom:1px solid var(--line);
padding-bottom:14px;margin-bottom:8px}
header.top h1{font-size:1.35rem;margin:0;font-weight:600}
.verdict{font-size:1.1rem;font-weight:700;letter-spacing:.04em;color:#fff;padding:6px 16px;
border-radius:6px}
.verdict.PASSED{background:var(--ok)}.verdict.FAILED{background:var(--bad)}
.meta{color:var(--muted);font-size:.9rem;margin:4px 0 18px}
nav{font-size:.88rem;margin:0 0 18px;color:var(--muted)}
nav a{color:#0969da;text-decoration:none;margin-right:14px}
section{border:1px solid var(--line);border-radius:8px;padding:14px 18px;margin:16px 0}
section h2{font-size:1.08rem;margin:0 0 8px;display:flex;align-items:center;gap:10px}
.pill{font-size:.75rem;font-weight:700;padding:2px 9px;border-radius:10px;color:#fff}
.pill.pass{background:var(--ok)}.pill.fail{background:var(--bad)}
table{border-collapse:collapse;font-size:.88rem;margin:6px 0}
th,td{border-bottom:1px solid var(--line);padding:5px 10px;text-align:left;vertical-align:top}
th{background:var(--bg);font-weight:600}
td:first-child a{white-space:nowrap}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
tr.fail td.result{color:var(--bad);font-weight:700}
tr.pass td.result{color:var(--ok);font-weight:700}
.figures td:first-child{color:var(--muted)}
.compare{display:flex;gap:28px;align-items:baseline;margin:4px 0 8px}
.compare .big{font-size:1.5rem;font-weight:700}.compare .lbl{color:var(--muted);font-size:.82rem}
.plots{display:flex;flex-wrap:wrap;gap:12px}
figure{margin:6px 0}figure svg{max-width:100%;height:auto}
figcaption{font-size:.82rem;color:var(--muted)}
.note{color:var(--muted);font-size:.85rem}
.finding{color:var(--bad);font-weight:600}
.warning{background:#fff4e5;border-left:4px solid #ef6c00;padding:8px 12px;margin:8px 0;
font-weight:600}
pre.cmd{background:var(--bg);padding:8px 12px;border-radius:6px;font-size:.82rem;
white-space:pre-wrap}
footer{color:var(--muted);font-size:.8rem;margin-top:28px}
tr.chosen td{background:#fff4e5;font-weight:600}
.scroll{overflow-x:auto;max-width:100%}
details{font-size:.85rem;margin:2px 0 12px}details summary{color:var(--muted);cursor:pointer}
"""


# --------------------------------------------------------------------------- plots


def literal_text(plot: Callable[..., str]) -> Callable[..., str]:
    """Draw ``plot``'s text as written: never as TeX math, never through LaTeX.

    Values and column names come from the data, and matplotlib reads a ``$`` as the start of
    math mode (``$x_$`` or ``$$`` is a parse error: the whole report crashed). A text artist
    takes the setting when it is created, so the whole plot, not only its saving, runs under it.
    """

    @functools.wraps(plot)
    def drawn_literally(*args: Any, **kwargs: Any) -> str:
        import matplotlib

        with matplotlib.rc_context({"text.parse_math": False, "text.usetex": False}):
            return plot(*args, **kwargs)

    return drawn_literally


def _svg(fig, salt: str, alt: str) -> str:
    """A matplotlib figure as inline SVG: text kept as text, unique ids, no external references,
    and its text alternative (``alt``) as the image's accessible name: ``role='img'``, an
    ``aria-label`` and a ``<title>`` (what a screen reader says, and a tooltip)."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": salt}):
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    svg = buf.getvalue()
    svg = svg[svg.index("<svg") :]
    svg = re.sub(r"<metadata>.*?</metadata>", "", svg, flags=re.S)
    svg = re.sub(r'\s+xmlns(:xlink)?="[^"]*"', "", svg)
    # ids must be unique across the page's several SVGs
    ids = set(re.findall(r'id="([^"]+)"', svg))
    for old in sorted(ids, key=len, reverse=True):
        svg = re.sub(rf'(["#(]){re.escape(old)}([")])', rf"\g<1>{salt}-{old}\g<2>", svg)
    text = html.escape(alt, quote=True)
    end = svg.index(">")
    return f'{svg[:end]} role="img" aria-label="{text}"><title>{text}</title>{svg[end + 1 :]}'


def _figure(width: float, height: float):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100)
    fig.set_facecolor("white")
    return fig


def _wide(values: np.ndarray) -> bool:
    """Whether bar heights span so many orders of magnitude that a log axis reads better."""
    positive = np.asarray(values)[np.asarray(values) > 0]
    return len(positive) > 1 and positive.max() > 50 * positive.min()


def _style(ax) -> None:
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.tick_params(labelsize=8, colors=INK)
    ax.grid(axis="y", color="#eaeef2", linewidth=0.8)
    ax.set_axisbelow(True)


_SIZE_BUCKETS = [1, 2, 3, 4, 5, 6, 10, 20, 50, 100, 500, 1000, 10_000, 100_000]


def size_buckets(
    hist: SizeHistogram, top: int | None = None
) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Class sizes grouped into readable buckets: labels, classes, records, bucket lower bounds.

    ``top``: the largest size the buckets cover (default: the histogram's own), so that two
    histograms (before and after an anonymization) share their buckets. Records are the
    histogram's ``records`` when it gives them, else size × classes."""
    sizes = np.asarray(hist.sizes, dtype=np.int64)
    counts = np.asarray(hist.classes, dtype=np.int64)
    held = counts * sizes if hist.records is None else np.asarray(hist.records, dtype=np.int64)
    if top is None:
        top = int(sizes.max()) if len(sizes) else 1
    lows = [b for b in _SIZE_BUCKETS if b <= top]
    highs = [*lows[1:], top + 1]
    labels = [
        f"{lo}" if hi - lo == 1 else f"{lo}–{hi - 1}" for lo, hi in zip(lows, highs, strict=True)
    ]
    which = np.searchsorted(np.asarray(lows), sizes, side="right") - 1
    classes = np.bincount(which, weights=counts, minlength=len(lows)).astype(np.int64)
    records = np.bincount(which, weights=held, minlength=len(lows)).astype(np.int64)
    return labels, classes, records, np.asarray(lows)


@literal_text
def class_size_plot(hist: SizeHistogram, k: float | None, salt: str) -> str:
    labels, classes, records, lows = size_buckets(hist)
    fig = _figure(9.4, 2.9)
    x = np.arange(len(labels))
    for i, (values, title) in enumerate(((classes, "classes"), (records, "records in them"))):
        ax = fig.add_subplot(1, 2, i + 1)
        colors = [BAD if k is not None and lo < k else GREY for lo in lows]
        ax.bar(x, values, color=colors, width=0.8)
        ax.set_xticks(x, labels, rotation=45, ha="right")
        ax.set_xlabel("class size", fontsize=9)
        ax.set_title(f"number of {title}", fontsize=10, loc="left")
        if _wide(values):
            ax.set_yscale("log")
        _style(ax)
    fig.tight_layout()
    alt = "Bar charts of the equivalence classes and the records in them, by class size: " + (
        "; ".join(
            f"size {lab}: {c:,} classes, {r:,} records"
            for lab, c, r in zip(labels, classes, records, strict=True)
        )
    )
    if k is not None:
        alt += f". Sizes below k = {_fmt(k)} are drawn red"
    return _svg(fig, salt, alt)


@literal_text
def statistic_plot(m: ModelResult, hist: ValueHistogram, salt: str) -> str:
    req = class_requirement(m.model, m.params)
    edges = np.asarray(hist.edges)
    mids, widths = (edges[:-1] + edges[1:]) / 2, np.diff(edges)
    counts = np.asarray(hist.classes)
    colors = [GREY] * len(mids)
    if req is not None:
        bound, op = req
        ok = {">=": mids >= bound, "<=": mids <= bound, "<": mids < bound}[op]
        colors = [GREY if good else BAD for good in ok]
    fig = _figure(4.8, 2.7)
    ax = fig.add_subplot(1, 1, 1)
    ax.bar(mids, counts, width=widths * 0.92, color=colors)
    if req is not None:
        unit = np.allclose(widths, 1) and np.allclose(mids, np.round(mids))
        at = req[0] + (0.5 if req[1] == "<=" else -0.5) * unit
        ax.axvline(at, color=INK, linestyle="--", linewidth=1.2)
        ax.set_title(
            f"required {_OPS[req[1]]} {_fmt(req[0])} (dashed line)",
            fontsize=9,
            loc="right",
            color=INK,
        )
    ax.set_xlabel(m.statistic + " per class", fontsize=9)
    ax.set_ylabel("classes", fontsize=9)
    if _wide(counts):
        ax.set_yscale("log")
    if np.allclose(widths, 1) and np.allclose(mids, np.round(mids)):
        ax.set_xticks(mids if len(mids) <= 15 else mids[:: int(np.ceil(len(mids) / 15))])
    _style(ax)
    fig.tight_layout()
    bins = "; ".join(
        f"{_fmt(lo)} to {_fmt(hi)}: {c:,}"
        for lo, hi, c in zip(edges[:-1], edges[1:], counts, strict=True)
        if c
    )
    alt = f"Histogram of {m.statistic} per class (classes per bin): {bins or 'no classes'}"
    if req is not None:
        alt += f". Required {_OPS[req[1]]} {_fmt(req[0])}; bins that break it are drawn red"
    return _svg(fig, salt, alt)


@literal_text
def distribution_plot(d: SensitiveDistribution, statistic: str, salt: str) -> str:
    overall = np.asarray(d.overall, dtype=float)
    total = overall.sum() or 1.0
    n = len(d.values)
    # room for the legend (classes named by their values) right of the axes
    fig = _figure(min(10.5, 5.8 + 0.45 * n * (1 + len(d.classes)) / 2), 3.0)
    ax = fig.add_subplot(1, 1, 1)
    x = np.arange(n)
    series = [("whole table", overall / total, GREY)]
    for i, c in enumerate(d.classes):
        counts = np.asarray(c.counts, dtype=float)
        stat = "" if c.statistic is None else f", {statistic} {_fmt(c.statistic)}"
        noun = "record" if c.size == 1 else "records"
        series.append(
            (
                f"{class_name(c.values)} ({c.size} {noun}{stat})",
                counts / max(c.size, 1),
                SERIES[i % len(SERIES)],
            )
        )
    if n <= 14:
        width = 0.8 / len(series)
        for j, (label, share, color) in enumerate(series):
            ax.bar(x + (j - (len(series) - 1) / 2) * width, share, width, label=label, color=color)
    else:
        for label, share, color in series:
            ax.step(x, share, where="mid", label=label, color=color, linewidth=1.4)
    ax.set_xticks(x, d.values, rotation=45 if n > 4 else 0, ha="right" if n > 4 else "center")
    ax.set_ylabel("share of records", fontsize=9)
    ax.set_xlabel(d.attribute, fontsize=9)
    ax.legend(fontsize=7.5, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    _style(ax)
    fig.tight_layout()
    alt = f"Share of records of each {d.attribute} value: " + "; ".join(
        f"{name}: "
        + ", ".join(f"{v} {share[i]:.1%}" for i, v in enumerate(d.values) if share[i] > 0)
        for name, share, _ in series
    )
    return _svg(fig, salt, alt)


def class_name(values: dict[str, str], width: int = 44) -> str:
    """A class by its quasi-identifier values, shortened for a legend."""
    text = ", ".join(f"{k}={v}" for k, v in values.items()) or "the whole table"
    return text if len(text) <= width else text[: width - 1] + "…"


def _direction(metric: str | None) -> str:
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
    direction = _direction(metric)
    cost = -y if direction == "higher is better" else y
    front = pareto(x, np.where(np.isnan(cost), np.inf, cost))
    order = np.flatnonzero(front)[np.argsort(x[front], kind="stable")]
    name = label(metric or "metric")
    fig = _figure(6.8, 3.0)
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
    _style(ax)
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
    return _svg(fig, salt, alt)


@literal_text
def section_plot(section: Section, salt: str) -> str:
    p = section.plot
    assert p is not None
    fig = _figure(7.5, 2.9)
    ax = fig.add_subplot(1, 1, 1)
    x = np.arange(len(p.x))
    n = max(len(p.series), 1)
    for j, (name, values) in enumerate(p.series.items()):
        y = np.array([np.nan if v is None else v for v in values], dtype=float)
        color = SERIES[(j + 3) % len(SERIES)]
        if p.kind == "bar":
            w = 0.8 / n
            ax.bar(x + (j - (n - 1) / 2) * w, y, w, label=name, color=color)
        elif p.kind == "step":
            ax.step(x, y, where="mid", label=name, color=color)
        else:
            ax.plot(x, y, marker="o", markersize=3, label=name, color=color)
    ax.set_xticks(
        x,
        [str(v) for v in p.x],
        rotation=45 if len(p.x) > 6 else 0,
        ha="right" if len(p.x) > 6 else "center",
    )
    ax.set_xlabel(p.xlabel, fontsize=9)
    ax.set_ylabel(p.ylabel, fontsize=9)
    if p.log_y:
        ax.set_yscale("log")
    if len(p.series) > 1:
        ax.legend(fontsize=8, frameon=False)
    _style(ax)
    fig.tight_layout()
    alt = f"{section.title}: {p.ylabel or 'values'} by {p.xlabel or 'category'}; " + "; ".join(
        f"{name}: " + ", ".join(f"{x} {_fmt(v, False)}" for x, v in zip(p.x, values, strict=True))
        for name, values in p.series.items()
    )
    return _svg(fig, salt, alt)


# --------------------------------------------------------------------------- html pieces

e = html.escape


def _cell(v: Any) -> str:
    if isinstance(v, float):
        return f"<td class='num'>{e(_fmt(v))}</td>"
    if isinstance(v, int):
        return f"<td class='num'>{v:,}</td>"
    return f"<td>{e('' if v is None else str(v))}</td>"


def _required(m: ModelResult) -> str:
    req = requirement(m.model, m.params)
    return "—" if req is None else f"{_OPS[req[1]]} {_fmt(req[0])}"


#: words for the keys the reports carry; others get their underscores replaced
LABELS: dict[str, str] = {
    "reidentification_rate": "Re-identification rate (single link)",
    "reidentified_share": "Re-identified share",
    "anonymity_set_rate": "Re-identified share (anonymity sets)",
    "certain_rate": "Certain re-identifications",
    "certain_share": "Unique, correct links",
    "mean_anonymity_set_size": "Mean anonymity-set size",
    "certain_links": "Certain links (records)",
    "singleton_rate": "Singleton candidate sets",
    "false_certain": "False certain links (records)",
    "mean_candidate_set_size": "Mean candidate-set size",
    "median_candidate_set_size": "Median candidate-set size",
    "empty_candidate_sets": "Empty candidate sets (records)",
    "true_in_candidates_rate": "True record among the candidates",
    "window_rule": "Window rule",
    "window": "Window (ranks)",
    "nearest_neighbour_rate": "Nearest-neighbour rate",
    "one_to_one_rate": "One-to-one assignment rate",
    "disclosure_rate": "Disclosure rate",
    "record_rate": "Records disclosed on every attribute",
    "linked_within": "Linked within",
    "n_records": "Records",
    "n_classes": "Classes",
    "sample_uniques": "Sample uniques (records)",
    "sample_uniqueness": "Sample uniqueness",
    "prosecutor_records_at_risk": "Prosecutor: records at risk",
    "prosecutor_highest_risk": "Prosecutor: highest risk",
    "prosecutor_average_risk": "Prosecutor: average risk",
    "journalist_records_at_risk": "Journalist: records at risk",
    "journalist_highest_risk": "Journalist: highest risk",
    "journalist_average_risk": "Journalist: average risk",
    "marketer_average_risk": "Marketer: average risk",
    "population_uniques": "Population uniques",
    "population_uniqueness_of_sample_uniques": "Population uniques among sample uniques",
    "sse_sst": "SSE/SST (%)",
    "il1s": "IL1s",
    "mean_divergence": "Divergence of means",
    "variance_divergence": "Divergence of variances",
    "covariance_divergence": "Divergence of covariances",
    "correlation_divergence": "Divergence of correlations",
    "prec": "Precision (Prec; 1 = no loss)",
    "discernibility": "Discernibility",
    "aecs": "Average equivalence-class size",
    "height": "Generalization height",
    "loss": "Loss (ARX)",
}


def label(key: str) -> str:
    """A figure's name in words: the known ones from ``LABELS``, others de-snake-cased."""
    if key in LABELS:
        return LABELS[key]
    if len(key) <= 2:  # a parameter's symbol (k, p, a, m1) stays as the docs write it
        return key
    text = key.replace("_", " ") if " " not in key else key
    return text[:1].upper() + text[1:]


def _summary_table(report: Report, title: str = "Models") -> str:
    rows = "".join(
        f"<tr class='{'pass' if m.passed else 'fail'}'><td><a href='#model-{i}'>{e(m.model)}</a>"
        f"</td><td>{e(_params(m.params))}</td><td class='num'>{e(_required(m))}</td>"
        f"<td class='num'>{e(_fmt(m.value))}</td><td>{e(m.statistic)}</td>"
        f"<td class='result'>{'pass' if m.passed else 'FAIL'}</td>"
        f"<td class='num'>{m.violating_classes:,}</td>"
        f"<td class='num'>{m.violating_records:,}</td></tr>"
        for i, m in enumerate(report.models, 1)
    )
    return (
        f"<section id='summary'><h2>{e(title)}</h2><table><tr><th>model</th><th>parameters</th>"
        "<th class='num'>required</th><th class='num'>achieved</th><th>statistic</th>"
        "<th>result</th><th class='num'>violating classes</th><th class='num'>violating records"
        f"</th></tr>{rows}</table></section>"
    )


def _figures_table(figures: dict[str, Any]) -> str:
    rows = "".join(f"<tr><td>{e(label(str(k)))}</td>{_cell(v)}</tr>" for k, v in figures.items())
    return f"<table class='figures'>{rows}</table>"


def _classes_section(report: Report) -> str:
    hist = report.class_sizes
    if hist is None or not hist.sizes:
        return ""
    sizes, counts = np.asarray(hist.sizes), np.asarray(hist.classes)
    ks = [requirement(m.model, m.params) for m in report.models if m.model == "k-anonymity"]
    k = max((r[0] for r in ks if r), default=None)
    order = np.repeat(sizes, counts)
    held = sizes * counts if hist.records is None else np.asarray(hist.records)
    unit = "" if report.n_individuals is None else " (people)"
    figures = {
        "equivalence classes": int(counts.sum()),
        "records": int(held.sum()),
        f"smallest class{unit}": int(sizes.min()),
        f"median class size{unit}": float(np.median(order)),
        f"largest class{unit}": int(sizes.max()),
        ("unique records (classes of size 1)" if not unit else "classes of one person"): int(
            counts[sizes == 1].sum()
        ),
    }
    if k is not None:
        figures[f"records in classes smaller than k={_fmt(k)}"] = int(held[sizes < k].sum())
    caption = f"Classes per size{unit}" + (
        f"; red: smaller than k = {_fmt(k)}" if k is not None else ""
    )
    return (
        "<section id='classes'><h2>Equivalence classes</h2>"
        f"{_figures_table(figures)}<figure class='plot' id='plot-class-sizes'>"
        f"{class_size_plot(hist, k, 'pc-sizes')}<figcaption>{e(caption)}</figcaption></figure>"
        "</section>"
    )


def _violators_table(m: ModelResult, limit: int = 10) -> str:
    if not m.violators:
        return ""
    rows = "".join(
        f"<tr><td>{e(_params(v.values))}</td><td class='num'>{v.size:,}</td>"
        f"<td class='num'>{e(_fmt(v.statistic))}</td>"
        f"<td>{e(listing(v.records, 12, total=v.size))}</td></tr>"
        for v in m.violators[:limit]
    )
    more = m.violating_classes - min(limit, len(m.violators))
    tail = f"<p class='note'>… and {more:,} more violating classes.</p>" if more > 0 else ""
    return (
        f"<h3>Worst violating classes</h3><table class='violators'><tr><th>quasi-identifiers</th>"
        f"<th class='num'>size</th><th class='num'>{e(m.statistic)}</th>"
        f"<th>records (row numbers)</th></tr>{rows}</table>{tail}"
    )


def _worst_classes_table(m: ModelResult) -> str:
    """The classes of the distribution plot with their full quasi-identifier values."""
    d = m.distribution
    if d is None or not d.classes:
        return ""
    qis = list(d.classes[0].values)
    head = "".join(f"<th>{e(q)}</th>" for q in qis)
    rows = "".join(
        "<tr>"
        + "".join(f"<td>{e(c.values.get(q, ''))}</td>" for q in qis)
        + f"<td class='num'>{c.size:,}</td><td class='num'>{e(_fmt(c.statistic))}</td></tr>"
        for c in d.classes
    )
    return (
        "<table class='classes'><tr>"
        f"{head}<th class='num'>size</th><th class='num'>{e(m.statistic)}</th></tr>{rows}</table>"
    )


def _model_section(i: int, m: ModelResult, classes_link: bool = True) -> str:
    status = "pass" if m.passed else "fail"
    plots = []
    if m.histogram is not None and m.model != "k-anonymity":
        plots.append(
            f"<figure class='plot'>{statistic_plot(m, m.histogram, f'pc-m{i}-h')}"
            f"<figcaption>{e(m.statistic)} per class; red: classes that break the model"
            "</figcaption></figure>"
        )
    elif m.model == "k-anonymity" and classes_link:
        plots.append(
            "<p class='note'>Class sizes: see <a href='#classes'>Equivalence classes</a>.</p>"
        )
    if m.distribution is not None and m.distribution.classes:
        plots.append(
            f"<figure class='plot distribution'>"
            f"{distribution_plot(m.distribution, m.statistic, f'pc-m{i}-d')}"
            f"<figcaption>{e(m.distribution.attribute)}: the whole table against the "
            f"{len(m.distribution.classes)} worst classes by {e(m.statistic)}"
            + (f"; values grouped: {e(m.distribution.grouping)}" if m.distribution.grouping else "")
            + f"</figcaption></figure>{_worst_classes_table(m)}"
        )
    return (
        f"<section class='model {status}' id='model-{i}'><h2>{e(m.model)} "
        f"<span class='pill {status}'>{'PASS' if m.passed else 'FAIL'}</span></h2>"
        f"<p class='note'>{e(_params(m.params))}</p><div class='compare'>"
        f"<div><div class='lbl'>required</div><div class='big'>{e(_required(m))}</div></div>"
        f"<div><div class='lbl'>achieved ({e(m.statistic)})</div><div class='big'>"
        f"{e(_fmt(m.value))}</div></div><div><div class='lbl'>violating classes / records</div>"
        f"<div class='big'>{m.violating_classes:,} / {m.violating_records:,}</div></div></div>"
        f"<div class='plots'>{''.join(plots)}</div>{_violators_table(m)}</section>"
    )


def _contributed_section(s: Section, n: int) -> str:
    parts = [f"<section class='extra' id='section-{e(s.id)}'><h2>{e(s.title)}</h2>"]
    if s.summary:
        parts.append(f"<p>{e(s.summary)}</p>")
    if s.figures:
        parts.append(_figures_table(s.figures))
    if s.table is not None:
        head = "".join(f"<th>{e(label(c))}</th>" for c in s.table.columns)
        rows = "".join("<tr>" + "".join(_cell(v) for v in r) + "</tr>" for r in s.table.rows)
        parts.append(f"<table><tr>{head}</tr>{rows}</table>")
    if s.plot is not None:
        parts.append(f"<figure class='plot'>{section_plot(s, f'pc-s{n}')}</figure>")
    parts.append("</section>")
    return "".join(parts)


def ordered_sections(sections: list[Section]) -> list[Section]:
    """Well-known sections in ``SECTION_ORDER``, then the others in report order."""
    rank = {sid: i for i, sid in enumerate(SECTION_ORDER)}
    return sorted(sections, key=lambda s: rank.get(s.id, len(rank)))


def _page(title: str, body: list[str]) -> str:
    """The page shell every report shares: head, inline CSS, the body parts."""
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{e(title)}</title><style>{CSS}</style></head><body><main>"
        + "\n".join(b for b in body if b)
        + "</main></body></html>\n"
    )


def _draft_banner(report: Any) -> str:
    """The warning a report made under a draft policy (``--allow-draft``) shows at the top."""
    if not getattr(report, "draft", False):
        return ""
    note = e(draft_note(report.open_reviews))
    return f"<p class='warning' id='draft'><strong>{note}</strong></p>"


def render_html(report: Report) -> str:
    """The report as one self-contained HTML page (see the module docstring for the layout)."""
    verdict = "PASSED" if report.passed else "FAILED"
    title = f"privcheck report — {report.source}" if report.source else "privcheck report"
    contributed = list(getattr(report, "sections", []) or [])
    explanation = getattr(report, "explanation", None)
    sections = ordered_sections(contributed) + (explanation.sections() if explanation else [])
    toc = ["<a href='#summary'>models</a>"]
    if report.class_sizes is not None:
        toc.append("<a href='#classes'>equivalence classes</a>")
    toc += [f"<a href='#model-{i}'>{e(m.model)}</a>" for i, m in enumerate(report.models, 1)]
    toc += [f"<a href='#section-{e(s.id)}'>{e(s.title)}</a>" for s in sections]
    qis = ", ".join(report.quasi_identifiers) or "no quasi-identifiers"
    elapsed = f" in {report.elapsed_seconds:.2f} s" if report.elapsed_seconds is not None else ""
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    body = [
        f"<header class='top'><div class='verdict {verdict}' id='verdict'>{verdict}</div>"
        f"<h1>{e(title)}</h1></header>",
        f"<p class='meta'>{report.n_records:,} records"
        + (
            f" of {report.n_individuals:,} people (classes count people: "
            f"{e(report.individual or '')})"
            if report.n_individuals is not None
            else ""
        )
        + f" in {report.n_classes:,} equivalence "
        f"classes over {e(qis)}. {sum(m.passed for m in report.models)} of "
        f"{len(report.models)} models hold."
        + (
            f" {report.n_suppressed:,} suppressed records ('*' rows) against a limit of "
            f"{report.suppression_limit_records:,}."
            if report.suppression_limit_records is not None
            else ""
        )
        + "</p>",
        *(
            f"<p class='finding' id='finding-{i}'><strong>FAIL:</strong> {e(f)}</p>"
            for i, f in enumerate(report.findings(), 1)
        ),
        _draft_banner(report),
        *(
            f"<p class='note' id='note-{i}'><strong>Note:</strong> {e(n)}</p>"
            for i, n in enumerate(report.notes, 1)
        ),
        f"<nav>{''.join(toc)}</nav>",
        _summary_table(report),
        _classes_section(report),
        *(_model_section(i, m) for i, m in enumerate(report.models, 1)),
        *(_contributed_section(s, n) for n, s in enumerate(sections)),
        f"<footer>privcheck {e(report.privcheck_version)} · {e(report.kind)}{e(elapsed)} · "
        f"rendered {stamp}</footer>",
    ]
    return _page(title, body)


def render_risk_html(report: Any) -> str:
    """A ``privcheck risk`` report (``privcheck.risk.assess.RiskReport``) as one HTML page.

    The page is the same shell as a check report, its body only the report's sections (headline
    figures, risk profile plots, per-attribute contribution), drawn by the same section code.
    """
    from privcheck.risk.assess import randomness

    title = f"privcheck risk — {report.attack}"
    rate = report.reidentification_rate
    headline = "re-identification rate"
    for key in ("risk", "advantage"):  # the attacks on a synthetic table
        if rate is None and isinstance(report.figures.get(key), int | float):
            rate, headline = report.figures[key], key
    badge = "—" if rate is None else f"{rate:.1%}"
    verdict = "PASSED" if report.passed else "FAILED"
    toc = [f"<a href='#section-{e(s.id)}'>{e(s.title)}</a>" for s in report.sections]
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    body = [
        f"<header class='top'><div class='verdict {verdict}' id='verdict' "
        f"title='{e(headline)}'>{e(badge)}</div><h1>{e(title)}</h1></header>",
        f"<p class='meta'>Original {e(str(report.original))} against the release "
        f"{e(str(report.masked))}: the intruder holds {e(report.intruder_records)} of "
        f"{report.n_masked_records:,} records on {e(', '.join(report.attributes))}."
        + (f" Control set: {e(str(report.control))}." if report.control else "")
        + (f" Attack parameters: {e(_params(report.params))}." if report.params else "")
        + (
            f" Policy bound synthetic_risk.max_risk {report.max_risk:g}: "
            + ("holds." if report.passed else "violated.")
            if report.passed is not None
            else ""
        )
        + f" Randomness: {e(randomness(report.seed_given))}."
        + "</p>",
        _draft_banner(report),
        f"<nav>{''.join(toc)}</nav>",
        *(_contributed_section(s, n) for n, s in enumerate(report.sections)),
        f"<footer>privcheck {e(report.privcheck_version)} · risk in "
        f"{report.elapsed_seconds:.2f} s · rendered {stamp}</footer>",
    ]
    return _page(title, body)


# --------------------------------------------------------------------------- anonymization


def _json_value(v: Any) -> str:
    if isinstance(v, dict):
        return ", ".join(f"{k}={_json_value(x)}" for k, x in v.items())
    if isinstance(v, list):
        return "[" + "; ".join(_json_value(x) for x in v) + "]"
    return "—" if v is None else str(v)


def _transformation_section(r: AnonymizationReport) -> str:
    parts = ["<section class='extra' id='transformation'><h2>Transformation</h2>"]
    if r.node is not None:
        head = "".join(f"<th>{e(q)}</th>" for q in r.node)
        cells = "".join(f"<td class='num'>{v}</td>" for v in r.node.values())
        parts.append(
            "<p>Generalization level of each quasi-identifier (0: the original values).</p>"
            f"<table><tr>{head}</tr><tr>{cells}</tr></table>"
        )
    elif r.algorithm == "mondrian":
        parts.append(
            "<p>Locally recoded quasi-identifiers (per partition: numeric ranges, hierarchy "
            f"ancestors): {e(', '.join(r.quasi_identifiers))}.</p>"
        )
    else:
        parts.append(f"<p>Masked quasi-identifiers: {e(', '.join(r.quasi_identifiers))}.</p>")
    if r.guarantee:
        parts.append(f"<p><strong>Guarantee:</strong> {e(r.guarantee)}</p>")
    params = {k: _json_value(v) for k, v in r.parameters.items() if k != "models"}
    if params:
        parts.append("<h3>Parameters (published with the release)</h3>")
        parts.append(_figures_table(params))
    search = {
        ("Nodes evaluated" if r.lattice_size is not None else "Splits tried"): r.nodes_evaluated,
        "Lattice size": r.lattice_size,
        "Satisfying nodes": r.satisfying_nodes,
        "Search time (s)": r.search_seconds,
        "Total time (s)": r.elapsed_seconds,
    }
    search = {k: v for k, v in search.items() if v is not None}
    if search:
        parts.append("<h3>Search</h3>" + _figures_table(search))
    if r.minimal_nodes:
        qis = list(r.minimal_nodes[0])
        head = "".join(f"<th>{e(q)}</th>" for q in qis)
        rows = "".join(
            "<tr>" + "".join(f"<td class='num'>{n[q]}</td>" for q in qis) + "</tr>"
            for n in r.minimal_nodes[:20]
        )
        more = len(r.minimal_nodes) - 20
        parts.append(
            f"<h3>Minimal satisfying nodes ({len(r.minimal_nodes):,})</h3>"
            f"<table><tr>{head}</tr>{rows}</table>"
            + (f"<p class='note'>… and {more:,} more.</p>" if more > 0 else "")
        )
    if r.path:
        qis = list(r.path[0])
        head = "".join(f"<th>{e(q)}</th>" for q in qis)
        rows = "".join(
            f"<tr><td class='num'>{i}</td>"
            + "".join(f"<td class='num'>{n[q]}</td>" for q in qis)
            + "</tr>"
            for i, n in enumerate(r.path)
        )
        parts.append(f"<h3>Greedy path</h3><table><tr><th>step</th>{head}</tr>{rows}</table>")
    parts.append("</section>")
    return "".join(parts)


def _suppression_section(r: AnonymizationReport) -> str:
    figures: dict[str, Any] = {
        "Records in the input": r.n_records,
        **({"People in the input": r.n_individuals} if r.n_individuals is not None else {}),
        "Released with their values": r.n_kept,
        "Suppressed": r.n_suppressed,
        **(
            {"Suppressed people (all their records)": r.n_suppressed_individuals}
            if r.n_suppressed_individuals is not None
            else {}
        ),
        "Suppressed share": f"{r.n_suppressed / max(r.n_records, 1):.2%}",
        "Rows in the release": r.n_released_rows,
    }
    limit = r.parameters.get("suppression_limit")
    if limit is not None:
        figures["Suppression limit"] = (
            f"{float(limit):.2%} ({r.parameters.get('suppression_limit_records', '?')} records)"
        )
    if r.parameters.get("suppressed_records"):
        figures["Suppressed records are"] = (
            "left out" if r.parameters["suppressed_records"] == "remove" else "written as '*'"
        )
    if r.removed_columns:
        figures["Removed columns"] = ", ".join(r.removed_columns)
    return (
        "<section class='extra' id='suppression'><h2>Suppression</h2>"
        f"{_figures_table(figures)}</section>"
    )


def _loss_section(r: AnonymizationReport) -> str:
    table = ""
    if r.metrics:
        rows = "".join(
            f"<tr><td>{e(label(k))}{' (optimised)' if k == r.metric else ''}</td>{_cell(v)}</tr>"
            for k, v in r.metrics.items()
        )
        table = f"<table class='figures'>{rows}</table>"
    elif r.information_loss:
        table = _figures_table(r.information_loss)
    per_attribute = _loss_by_attribute(r)
    if not table and not per_attribute:
        return ""
    return (
        "<section class='extra' id='information-loss'><h2>Information loss</h2>"
        f"{table}{per_attribute}</section>"
    )


def _tradeoff_section(r: AnonymizationReport) -> str:
    if not r.tradeoff:
        return ""
    metric = label(r.metric or "metric")
    direction = _direction(r.metric)
    chosen = next(
        (
            i
            for i, p in enumerate(r.tradeoff)
            if p["node"] == r.node and p["suppressed"] == r.n_suppressed
        ),
        None,
    )
    qis = list(r.tradeoff[0]["node"])
    head = "".join(f"<th>{e(q)}</th>" for q in qis)
    rows = "".join(
        f"<tr{' class=chosen' if i == chosen else ''}><td class='num'>{e(_fmt(p['value']))}</td>"
        f"<td class='num'>{p['suppressed']:,}</td>"
        + "".join(f"<td class='num'>{p['node'][q]}</td>" for q in qis)
        + f"<td>{'this release' if i == chosen else ''}</td></tr>"
        for i, p in enumerate(r.tradeoff)
    )
    return (
        "<section class='extra' id='tradeoff'><h2>Generalization against suppression</h2>"
        "<p>The releases the search scored: each node's metric against the records it "
        "suppresses. Joined by the line: the releases no other beats on both (the Pareto "
        "front), best metric first in the table.</p>"
        f"<figure class='plot' id='plot-tradeoff'>"
        f"{tradeoff_plot(r.tradeoff, r.metric, chosen, 'pc-front')}"
        f"<figcaption>{e(metric)} ({e(direction or 'as computed')}) against suppressed records "
        "(fewer is better); ringed: this release. The table below holds the same points."
        "</figcaption></figure>"
        f"<table><tr><th class='num'>{e(metric)}</th><th class='num'>suppressed</th>{head}"
        f"<th></th></tr>{rows}</table></section>"
    )


# ----------------------------------------------------------- anonymization: risk and pictures

BEFORE, AFTER = GREY, SERIES[3]


def _bin_labels(edges: list[float]) -> list[str]:
    return [f"({_fmt(lo)}, {_fmt(hi)}]" for lo, hi in pairwise(edges)]


def _two_series_bars(ax, x: np.ndarray, before: np.ndarray, after: np.ndarray) -> None:
    ax.bar(x - 0.2, before, 0.4, color=BEFORE, label="before (input)")
    ax.bar(x + 0.2, after, 0.4, color=AFTER, label="after (release)")


@literal_text
def risk_plot(profile: RiskProfile, salt: str) -> str:
    """Records per prosecutor-risk bin before and after (ARX's risk view); the threshold of
    ``records_above`` marked."""
    labels = _bin_labels(profile.risk_bins)
    before = np.asarray(profile.records_before)
    after = np.asarray(profile.records_after)
    fig = _figure(7.4, 3.1)
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
    if _wide(np.r_[before, after]):
        ax.set_yscale("log")
    ax.legend(fontsize=8, frameon=False, loc="upper center")
    _style(ax)
    fig.tight_layout()
    alt = (
        "Bar chart of records by prosecutor re-identification risk, before and after "
        f"(lower risk is better; threshold {_fmt(profile.threshold)}): "
        + "; ".join(
            f"risk {lab}: {b:,} before, {a:,} after"
            for lab, b, a in zip(labels, before, after, strict=True)
        )
    )
    return _svg(fig, salt, alt)


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
    fig = _figure(7.4, 3.1)
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
    if _wide(np.r_[before, after]):
        ax.set_yscale("log")
    ax.legend(fontsize=8, frameon=False, loc="upper center")
    _style(ax)
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
    return _svg(fig, salt, alt)


@literal_text
def loss_plot(loss: dict[str, float], salt: str) -> str:
    """Information loss per quasi-identifier, horizontal bars (lower is better)."""
    names = list(loss)
    values = np.array([loss[n] for n in names], dtype=float)
    fig = _figure(6.4, 0.6 + 0.32 * len(names))
    ax = fig.add_subplot(1, 1, 1)
    y = np.arange(len(names))
    ax.barh(y, values, color=AFTER, height=0.6)
    ax.set_yticks(y, names)
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
    return _svg(fig, salt, alt)


def _scored(c: dict[str, Any]) -> bool:
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
    scored = [c for c in candidates if _scored(c)]
    metrics = {c.get("metric") for c in scored}
    metric = next(iter(metrics)) if len(metrics) == 1 else None
    direction = _direction(metric)
    x = np.array([c["risk"]["average"] for c in scored], dtype=float)
    y = np.array([c["metric_value"] for c in scored], dtype=float)
    fig = _figure(6.8, 3.4)
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
    _style(ax)
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
    return _svg(fig, salt, alt)


def _risk_cell(risk: Any, key: str) -> str:
    value = None if risk is None else (risk.get(key) if isinstance(risk, dict) else None)
    if value is None:
        return "<td class='num'>—</td>"
    return f"<td class='num'>{e(_fmt(float(value)))}</td>"


def _risk_section(r: AnonymizationReport) -> str:
    """Risk before and after: the three figures side by side, records per risk bin, records
    per class size — each chart with a table of the same numbers."""
    if r.risk_before is None and r.risk_after is None:
        return ""
    rows = []
    words = {
        "highest": "Highest record risk",
        "average": "Average record risk",
        "records_above": "Records above the threshold",
    }
    for key, name in words.items():
        b = None if r.risk_before is None else getattr(r.risk_before, key)
        a = None if r.risk_after is None else getattr(r.risk_after, key)
        show = (lambda v: f"{v:.2%}") if key == "records_above" else (lambda v: _fmt(v))
        rows.append(
            f"<tr><td>{e(name)}</td><td class='num'>{'—' if b is None else e(show(b))}</td>"
            f"<td class='num'>{'—' if a is None else e(show(a))}</td></tr>"
        )
    profile = r.risk_profile
    thr = f"{_fmt(profile.threshold)}" if profile is not None else "1/k"
    source = (
        f"1/k of the policy's k-anonymity (k = {profile.k})"
        if profile is not None and profile.k is not None
        else "0.2, as the policy has no k-anonymity model"
    )
    parts = [
        "<section class='extra' id='risk'><h2>Re-identification risk before and after</h2>",
        "<p>Prosecutor risk: the intruder knows the target is in the table and its "
        "quasi-identifier values; a record's risk is 1 / the size of its equivalence class. "
        "Before: the input's classes at their original values. After: the release's classes as "
        "<code>privcheck check</code> forms them from the written file (suppressed records are "
        f"not released and do not count). Lower is better. Threshold {e(thr)}: {e(source)}.</p>",
        "<table class='figures risk'><tr><th>prosecutor risk</th><th class='num'>before</th>"
        f"<th class='num'>after</th></tr>{''.join(rows)}</table>",
    ]
    if profile is not None:
        if profile.suppressed_cells == "wildcard":
            parts.append(
                "<p class='note'>suppressed_cells: wildcard — a '*' cell matches every value, "
                "so a class's size is the number of records compatible with it.</p>"
            )
        labels = _bin_labels(profile.risk_bins)
        body = "".join(
            f"<tr><td>{e(lab)}</td><td class='num'>{b:,}</td><td class='num'>{a:,}</td></tr>"
            for lab, b, a in zip(labels, profile.records_before, profile.records_after, strict=True)
        )
        parts.append(
            f"<figure class='plot' id='plot-risk'>{risk_plot(profile, 'pc-risk')}"
            "<figcaption>Records per prosecutor-risk bin, before (grey) and after (blue); the "
            f"dashed line is the threshold {e(thr)}. Lower risk (left) is better."
            "</figcaption></figure>"
            "<details><summary>The numbers of this chart</summary><table class='data'>"
            "<tr><th>risk</th><th class='num'>records before</th>"
            f"<th class='num'>records after</th></tr>{body}</table></details>"
        )
        sizes, before, after, _ = size_comparison(profile)
        body = "".join(
            f"<tr><td>{e(lab)}</td><td class='num'>{b:,}</td><td class='num'>{a:,}</td></tr>"
            for lab, b, a in zip(sizes, before, after, strict=True)
        )
        parts.append(
            f"<figure class='plot' id='plot-class-sizes-before-after'>"
            f"{class_sizes_plot(profile, 'pc-sizes-ba')}"
            "<figcaption>Records by the size of their equivalence class, before (grey) and "
            "after (blue)"
            + (f"; dashed: k = {profile.k}" if profile.k is not None else "")
            + ". Larger classes (right) are safer.</figcaption></figure>"
            "<details><summary>The numbers of this chart</summary><table class='data'>"
            "<tr><th>class size</th><th class='num'>records before</th>"
            f"<th class='num'>records after</th></tr>{body}</table></details>"
        )
    parts.append("</section>")
    return "".join(parts)


def _loss_by_attribute(r: AnonymizationReport) -> str:
    if not r.loss_by_attribute:
        return ""
    rows = "".join(
        f"<tr><td>{e(q)}</td><td class='num'>{e(_fmt(float(v)))}</td></tr>"
        for q, v in r.loss_by_attribute.items()
    )
    return (
        "<h3>Information loss per quasi-identifier</h3>"
        f"<figure class='plot' id='plot-loss'>{loss_plot(r.loss_by_attribute, 'pc-loss')}"
        "<figcaption>Information loss of each quasi-identifier (0: its values kept, 1: all "
        "information lost); lower is better.</figcaption></figure>"
        "<details><summary>The numbers of this chart</summary><table class='data'>"
        f"<tr><th>quasi-identifier</th><th class='num'>loss</th></tr>{rows}</table></details>"
    )


def _candidates_section(r: AnonymizationReport) -> str:
    """``--algorithm auto``: every candidate on one risk–utility chart, and the table."""
    if not r.candidates:
        return ""
    rows = []
    for c in r.candidates:
        chosen = c.get("algorithm") == r.chosen
        passed = c.get("passed")
        verdict = "—" if passed is None else ("pass" if passed else "FAIL")
        cells = [
            f"<td>{e(str(c.get('algorithm')))}{' (chosen)' if chosen else ''}</td>",
            f"<td>{e(verdict)}</td>",
            f"<td>{e(str(c.get('excluded_reason') or ''))}</td>",
            f"<td>{e(label(str(c['metric'])) if c.get('metric') else '')}</td>",
            _cell(None if c.get("metric_value") is None else float(c["metric_value"])),
            _cell(c.get("n_classes")),
            _cell(c.get("n_suppressed")),
            _cell(c.get("suppressed_cells")),
            _cell(None if c.get("seconds") is None else float(c["seconds"])),
            _risk_cell(c.get("risk"), "highest"),
            _risk_cell(c.get("risk"), "average"),
            _risk_cell(c.get("risk"), "records_above"),
        ]
        rows.append(f"<tr{' class=chosen' if chosen else ''}>{''.join(cells)}</tr>")
    scored = [c for c in r.candidates if _scored(c)]
    excluded = [c for c in r.candidates if not _scored(c)]
    figure = ""
    if scored:
        figure = (
            f"<figure class='plot' id='plot-candidates'>"
            f"{candidates_plot(r.candidates, r.chosen, 'pc-cands')}"
            "<figcaption>Each candidate's release: its average prosecutor risk (lower is "
            "better) against its metric; ringed: the release written"
            + (
                f"; not drawn: {len(excluded)} candidate(s) excluded before scoring (see the table)"
                if excluded
                else ""
            )
            + ".</figcaption></figure>"
        )
    head = "".join(
        f"<th{' class=num' if i > 3 else ''}>{e(h)}</th>"
        for i, h in enumerate(
            [
                "algorithm", "policy", "excluded because", "metric", "value", "classes",
                "suppressed records", "suppressed cells", "seconds", "highest risk",
                "average risk", "share above the threshold",
            ]
        )
    )  # fmt: skip
    return (
        "<section class='extra' id='candidates'><h2>Candidates (risk against utility)</h2>"
        f"<p>--algorithm auto tried these algorithms and wrote the release of "
        f"<strong>{e(str(r.chosen))}</strong>.</p>{figure}"
        f"<div class='scroll'><table class='data'><tr>{head}</tr>{''.join(rows)}</table></div>"
        "</section>"
    )


def _param_args(params: dict[str, Any]) -> str:
    """``--param`` options that give ``params`` back (lists as JSON, which --param reads)."""
    import json

    out = []
    for k, v in params.items():
        text = v if isinstance(v, str) and v.isidentifier() else json.dumps(v)
        out.append(
            f"--param {k}={text}"
            if text == v or isinstance(v, int | float)
            else f"--param '{k}={text}'"
        )
    return " ".join(out)


def _exposure_section(x: Exposure | None) -> str:
    if x is None:
        return ""
    share = f"{x.reidentified_share:.1%}"
    interval = ""
    if x.confidence_interval is not None:
        lo, hi = x.confidence_interval
        interval = f" (95 % interval {lo:.1%}–{hi:.1%}, {x.n_attacked:,} records sampled)"
    warning = (
        f"<p class='warning'>Warning: {share} of the records are re-identified by an intruder "
        f"who knows the method, above the policy's exposure threshold of {x.threshold:.1%}."
        "</p>"
        if x.warning
        else ""
    )
    command = (
        "privcheck risk --original DATA --masked RELEASE --policy POLICY "
        f"--attack {x.attack} {_param_args(x.params)}"
    )
    figures = {k: v for k, v in x.figures.items()}
    return (
        "<section class='extra' id='exposure'><h2>Exposure to the transparency attack</h2>"
        f"{warning}<div class='compare'>"
        f"<div><div class='lbl'>{e(label('reidentified_share'))}</div>"
        f"<div class='big'>{e(share)}</div></div>"
        f"<div><div class='lbl'>{e(label('certain_share'))}</div>"
        f"<div class='big'>{x.certain_share:.1%}</div></div>"
        f"<div><div class='lbl'>Threshold</div><div class='big'>{x.threshold:.1%}</div></div>"
        f"</div><p>Attack <strong>{e(x.attack)}</strong> ({e(_params(x.params))}){e(interval)}. "
        f"The intruder {e(x.intruder)}. A record counts 1/|A| when its true released record is "
        "among the |A| records the attack finds best: the share is the expected share of "
        "records re-identified.</p>"
        f"{_figures_table(figures)}"
        "<p class='note'>The same figure from the written files (with --keep-order):</p>"
        f"<pre class='cmd'>{e(command)}</pre></section>"
    )


def _notes_section(r: AnonymizationReport) -> str:
    if not r.notes:
        return ""
    items = "".join(f"<li>{e(n)}</li>" for n in r.notes)
    return f"<section class='extra' id='notes'><h2>Notes</h2><ul>{items}</ul></section>"


def render_anonymization_html(report: Any) -> str:
    """An anonymization report (a table's, or a graph's) as one self-contained HTML page."""
    if getattr(report, "kind", None) == "graph-anonymization":
        return _graph_anonymization_html(report)
    r: AnonymizationReport = report
    check = r.check
    verdict = "PASSED" if check.passed else "FAILED"
    src = f" — {r.source}" if r.source else ""
    title = f"privcheck anonymize{src}: {r.algorithm}"
    parts = [
        ("transformation", "transformation", _transformation_section(r)),
        ("candidates", "candidates", _candidates_section(r)),
        ("risk", "risk before and after", _risk_section(r)),
        ("suppression", "suppression", _suppression_section(r)),
        ("information-loss", "information loss", _loss_section(r)),
        ("tradeoff", "generalization vs suppression", _tradeoff_section(r)),
        ("exposure", "exposure", _exposure_section(r.exposure)),
        ("summary", "re-check", _summary_table(check, "Re-check of the release")),
        ("notes", "notes", _notes_section(r)),
    ]
    toc = [f"<a href='#{pid}'>{e(name)}</a>" for pid, name, html_ in parts if html_]
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    elapsed = f" in {r.elapsed_seconds:.2f} s" if r.elapsed_seconds is not None else ""
    body = [
        f"<header class='top'><div class='verdict {verdict}' id='verdict' "
        f"title='re-check of the release'>{verdict}</div><h1>{e(title)}</h1></header>",
        f"<p class='meta'>Released {r.n_kept:,} of {r.n_records:,} records"
        + (f" of {r.n_individuals:,} people" if r.n_individuals is not None else "")
        + f" ({r.n_suppressed:,} suppressed"
        + (
            f", {r.n_suppressed_individuals:,} people"
            if r.n_suppressed_individuals is not None
            else ""
        )
        + ") over {e(', '.join(r.quasi_identifiers))}. The release "
        f"{'satisfies' if check.passed else 'FAILS'} the policy: "
        f"{sum(m.passed for m in check.models)} of {len(check.models)} models hold.</p>",
        _draft_banner(r),
        f"<nav>{''.join(toc)}</nav>",
        *(html_ for _, _, html_ in parts),
        *(
            _model_section(i, m, classes_link=check.class_sizes is not None)
            for i, m in enumerate(check.models, 1)
        ),
        f"<footer>privcheck {e(r.privcheck_version)} · anonymization{e(elapsed)} · "
        f"rendered {stamp}</footer>",
    ]
    return _page(title, body)


def _graph_anonymization_html(release: Any) -> str:
    a, check = release.anonymization, release.check
    verdict = "PASSED" if check.passed else "FAILED"
    how = "" if a.algorithm == "liu-terzi" else f"{a.algorithm}, "
    title = f"privcheck anonymize --graph: {how}k-degree (k={a.k})"
    figures = {k: v for k, v in a.model_dump().items() if isinstance(v, bool | int | float | str)}
    body = [
        f"<header class='top'><div class='verdict {verdict}' id='verdict'>{verdict}</div>"
        f"<h1>{e(title)}</h1></header>",
        "<section class='extra' id='transformation'><h2>Anonymization</h2>"
        f"{_figures_table(figures)}</section>",
        _summary_table(check, "Re-check of the release"),
        f"<footer>privcheck {e(check.privcheck_version)} · graph anonymization</footer>",
    ]
    return _page(title, body)
