"""What every HTML page shares: the frame, styles and escaping, and the plotting helpers.

The frame: the head with the inline CSS, the draft banner, the footer's time stamp. Figures are
labelled in words (``label``), never by their JSON keys. Plots are matplotlib ``Figure`` objects
saved as inline SVG (``inline_svg``: text kept as text, ids unique across the page, a text
alternative), their text drawn as written (``literal_text``). The sections other steps
contribute to a report (a ``Section``: figures, a table, a plot) are drawn here too: the check
and risk pages both show them.
"""

from __future__ import annotations

import functools
import html
import io
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import numpy as np

from privcheck.report import Section, _fmt, draft_note

OK, BAD, GREY, INK = "#1a7f37", "#c62828", "#9aa4ae", "#24292f"
SERIES = ("#c62828", "#ef6c00", "#6a1b9a", "#1565c0", "#00838f")

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
table.candidates th,table.candidates td{padding:5px 7px}
ul.reasons{font-size:.85rem;color:var(--muted);padding-left:20px}
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


def inline_svg(fig, salt: str, alt: str) -> str:
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


#: the most characters of a data value (or a column name) a plot draws as a tick label or an axis
#: title: matplotlib lays text out glyph by glyph, and a 1 MB cell drawn whole took minutes. The
#: tables beside the plots and each plot's alt text keep the value whole.
PLOT_TEXT = 40


def plot_text(value: object, width: int = PLOT_TEXT) -> str:
    """``value`` as a plot draws it: at most ``width`` characters, the cut marked ``…``."""
    text = str(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def new_figure(width: float, height: float):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100)
    fig.set_facecolor("white")
    return fig


def spans_orders(values: np.ndarray) -> bool:
    """Whether bar heights span so many orders of magnitude that a log axis reads better."""
    positive = np.asarray(values)[np.asarray(values) > 0]
    return len(positive) > 1 and positive.max() > 50 * positive.min()


def style_axes(ax) -> None:
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.tick_params(labelsize=8, colors=INK)
    ax.grid(axis="y", color="#eaeef2", linewidth=0.8)
    ax.set_axisbelow(True)


# --------------------------------------------------------------------------- html pieces

e = html.escape


def cell(v: Any) -> str:
    if isinstance(v, float):
        return f"<td class='num'>{e(_fmt(v))}</td>"
    if isinstance(v, int):
        return f"<td class='num'>{v:,}</td>"
    return f"<td>{e('' if v is None else str(v))}</td>"


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


def figures_table(figures: dict[str, Any]) -> str:
    rows = "".join(f"<tr><td>{e(label(str(k)))}</td>{cell(v)}</tr>" for k, v in figures.items())
    return f"<table class='figures'>{rows}</table>"


@literal_text
def section_plot(section: Section, salt: str) -> str:
    p = section.plot
    assert p is not None
    fig = new_figure(7.5, 2.9)
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
        [plot_text(v) for v in p.x],
        rotation=45 if len(p.x) > 6 else 0,
        ha="right" if len(p.x) > 6 else "center",
    )
    ax.set_xlabel(plot_text(p.xlabel, 80), fontsize=9)
    ax.set_ylabel(plot_text(p.ylabel, 80), fontsize=9)
    if p.log_y:
        ax.set_yscale("log")
    if len(p.series) > 1:
        ax.legend(fontsize=8, frameon=False)
    style_axes(ax)
    fig.tight_layout()
    alt = f"{section.title}: {p.ylabel or 'values'} by {p.xlabel or 'category'}; " + "; ".join(
        f"{name}: " + ", ".join(f"{x} {_fmt(v, False)}" for x, v in zip(p.x, values, strict=True))
        for name, values in p.series.items()
    )
    return inline_svg(fig, salt, alt)


def contributed_section(s: Section, n: int) -> str:
    parts = [f"<section class='extra' id='section-{e(s.id)}'><h2>{e(s.title)}</h2>"]
    if s.summary:
        parts.append(f"<p>{e(s.summary)}</p>")
    if s.figures:
        parts.append(figures_table(s.figures))
    if s.table is not None:
        head = "".join(f"<th>{e(label(c))}</th>" for c in s.table.columns)
        rows = "".join("<tr>" + "".join(cell(v) for v in r) + "</tr>" for r in s.table.rows)
        parts.append(f"<table><tr>{head}</tr>{rows}</table>")
    if s.plot is not None:
        parts.append(f"<figure class='plot'>{section_plot(s, f'pc-s{n}')}</figure>")
    parts.append("</section>")
    return "".join(parts)


def html_page(title: str, body: list[str]) -> str:
    """The page shell every report shares: head, inline CSS, the body parts."""
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{e(title)}</title><style>{CSS}</style></head><body><main>"
        + "\n".join(b for b in body if b)
        + "</main></body></html>\n"
    )


def draft_banner(report: Any) -> str:
    """The warning a report made under a draft policy (``--allow-draft``) shows at the top."""
    if not getattr(report, "draft", False):
        return ""
    note = e(draft_note(report.open_reviews))
    return f"<p class='warning' id='draft'><strong>{note}</strong></p>"


def rendered_at() -> str:
    """The footer's time stamp: when the page was drawn (to the minute, UTC)."""
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
