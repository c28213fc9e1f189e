"""The page of a check (``privcheck check --format html``, ``render_html``).

Layout: verdict; a summary table (required vs achieved per model); the class-size histogram; one
section per model (statistic histogram with the bound marked, the sensitive distribution of the
worst classes against the table's, the worst violating classes); then contributed sections —
anonymization node, suppression, information loss, utility, risk — each only when present. The
anonymization page shows its re-check with the same summary table and model sections.
"""

from __future__ import annotations

import numpy as np

from privcheck.errors import listing
from privcheck.html_report.page import (
    BAD,
    GREY,
    INK,
    SERIES,
    contributed_section,
    draft_banner,
    e,
    figures_table,
    html_page,
    inline_svg,
    literal_text,
    new_figure,
    plot_text,
    rendered_at,
    spans_orders,
    style_axes,
)
from privcheck.report import (
    SECTION_ORDER,
    SIGNS,
    ModelResult,
    Report,
    Section,
    SensitiveDistribution,
    SizeHistogram,
    ValueHistogram,
    _fmt,
    _params,
    class_requirement,
    requirement,
)

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
    fig = new_figure(9.4, 2.9)
    x = np.arange(len(labels))
    for i, (values, title) in enumerate(((classes, "classes"), (records, "records in them"))):
        ax = fig.add_subplot(1, 2, i + 1)
        colors = [BAD if k is not None and lo < k else GREY for lo in lows]
        ax.bar(x, values, color=colors, width=0.8)
        ax.set_xticks(x, labels, rotation=45, ha="right")
        ax.set_xlabel("class size", fontsize=9)
        ax.set_title(f"number of {title}", fontsize=10, loc="left")
        if spans_orders(values):
            ax.set_yscale("log")
        style_axes(ax)
    fig.tight_layout()
    alt = "Bar charts of the equivalence classes and the records in them, by class size: " + (
        "; ".join(
            f"size {lab}: {c:,} classes, {r:,} records"
            for lab, c, r in zip(labels, classes, records, strict=True)
        )
    )
    if k is not None:
        alt += f". Sizes below k = {_fmt(k)} are drawn red"
    return inline_svg(fig, salt, alt)


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
    fig = new_figure(4.8, 2.7)
    ax = fig.add_subplot(1, 1, 1)
    ax.bar(mids, counts, width=widths * 0.92, color=colors)
    if req is not None:
        unit = np.allclose(widths, 1) and np.allclose(mids, np.round(mids))
        at = req[0] + (0.5 if req[1] == "<=" else -0.5) * unit
        ax.axvline(at, color=INK, linestyle="--", linewidth=1.2)
        ax.set_title(
            f"required {SIGNS[req[1]]} {_fmt(req[0])} (dashed line)",
            fontsize=9,
            loc="right",
            color=INK,
        )
    ax.set_xlabel(m.statistic + " per class", fontsize=9)
    ax.set_ylabel("classes", fontsize=9)
    if spans_orders(counts):
        ax.set_yscale("log")
    if np.allclose(widths, 1) and np.allclose(mids, np.round(mids)):
        ax.set_xticks(mids if len(mids) <= 15 else mids[:: int(np.ceil(len(mids) / 15))])
    style_axes(ax)
    fig.tight_layout()
    bins = "; ".join(
        f"{_fmt(lo)} to {_fmt(hi)}: {c:,}"
        for lo, hi, c in zip(edges[:-1], edges[1:], counts, strict=True)
        if c
    )
    alt = f"Histogram of {m.statistic} per class (classes per bin): {bins or 'no classes'}"
    if req is not None:
        alt += f". Required {SIGNS[req[1]]} {_fmt(req[0])}; bins that break it are drawn red"
    return inline_svg(fig, salt, alt)


@literal_text
def distribution_plot(d: SensitiveDistribution, statistic: str, salt: str) -> str:
    overall = np.asarray(d.overall, dtype=float)
    total = overall.sum() or 1.0
    n = len(d.values)
    # room for the legend (classes named by their values) right of the axes
    fig = new_figure(min(10.5, 5.8 + 0.45 * n * (1 + len(d.classes)) / 2), 3.0)
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
    ticks = [plot_text(v) for v in d.values]
    ax.set_xticks(x, ticks, rotation=45 if n > 4 else 0, ha="right" if n > 4 else "center")
    ax.set_ylabel("share of records", fontsize=9)
    ax.set_xlabel(plot_text(d.attribute), fontsize=9)
    ax.legend(fontsize=7.5, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    style_axes(ax)
    fig.tight_layout()
    alt = f"Share of records of each {d.attribute} value: " + "; ".join(
        f"{name}: "
        + ", ".join(f"{v} {share[i]:.1%}" for i, v in enumerate(d.values) if share[i] > 0)
        for name, share, _ in series
    )
    return inline_svg(fig, salt, alt)


def class_name(values: dict[str, str], width: int = 44) -> str:
    """A class by its quasi-identifier values, shortened for a legend."""
    text = ", ".join(f"{k}={v}" for k, v in values.items()) or "the whole table"
    return text if len(text) <= width else text[: width - 1] + "…"


def _required(m: ModelResult) -> str:
    req = requirement(m.model, m.params)
    return "—" if req is None else f"{SIGNS[req[1]]} {_fmt(req[0])}"


def summary_table(report: Report, title: str = "Models") -> str:
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
        f"{figures_table(figures)}<figure class='plot' id='plot-class-sizes'>"
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


def model_section(i: int, m: ModelResult, classes_link: bool = True) -> str:
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


def ordered_sections(sections: list[Section]) -> list[Section]:
    """Well-known sections in ``SECTION_ORDER``, then the others in report order."""
    rank = {sid: i for i, sid in enumerate(SECTION_ORDER)}
    return sorted(sections, key=lambda s: rank.get(s.id, len(rank)))


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
    stamp = rendered_at()
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
        draft_banner(report),
        *(
            f"<p class='note' id='note-{i}'><strong>Note:</strong> {e(n)}</p>"
            for i, n in enumerate(report.notes, 1)
        ),
        f"<nav>{''.join(toc)}</nav>",
        summary_table(report),
        _classes_section(report),
        *(model_section(i, m) for i, m in enumerate(report.models, 1)),
        *(contributed_section(s, n) for n, s in enumerate(sections)),
        f"<footer>privcheck {e(report.privcheck_version)} · {e(report.kind)}{e(elapsed)} · "
        f"rendered {stamp}</footer>",
    ]
    return html_page(title, body)
