"""Report models (the JSON contract) and their text and HTML renderings."""

from __future__ import annotations

import html
import io
from typing import Any, Literal

from pydantic import BaseModel, Field

from privcheck import __version__


class ViolatingClass(BaseModel):
    """One equivalence class that breaks a model: its released values, size and records."""

    values: dict[str, str] = Field(description="Quasi-identifier values of the class")
    size: int
    statistic: float | None = Field(None, description="The model's per-class statistic")
    records: list[int] = Field(description="Row numbers (0-based, input order), possibly capped")


class ModelResult(BaseModel):
    """How one model fares. ``value`` is the level the data achieves (null when unbounded)."""

    model: str
    params: dict[str, Any]
    passed: bool
    value: float | None
    statistic: str = Field(description="What value measures (class size, EMD, …)")
    violating_classes: int
    violating_records: int
    violators: list[ViolatingClass] = Field(
        default_factory=list, description="The worst violating classes first, capped"
    )


class Report(BaseModel):
    """The verdict of a check."""

    kind: Literal["check"] = "check"
    passed: bool
    n_records: int
    n_classes: int
    quasi_identifiers: list[str]
    models: list[ModelResult]
    source: str | None = None
    privcheck_version: str = __version__
    elapsed_seconds: float | None = None

    def to_json(self) -> str:
        return self.model_dump_json(indent=2)


class AnonymizationReport(BaseModel):
    """What an anonymizer did, published with the release (the transparency principle: the
    algorithm and its parameters are not secret). ``n_kept + n_suppressed = n_records``."""

    kind: Literal["anonymization"] = "anonymization"
    algorithm: str
    parameters: dict[str, Any] = Field(description="Algorithm parameters, models, limits, seed")
    quasi_identifiers: list[str]
    node: dict[str, int] | None = Field(
        None, description="Chosen generalization level per quasi-identifier"
    )
    n_records: int = Field(description="Records in the input")
    n_kept: int = Field(description="Records released with their (generalized) values")
    n_suppressed: int = Field(description="Records suppressed (left out, or written as '*')")
    n_released_rows: int = Field(description="Rows in the release")
    removed_columns: list[str] = Field(
        default_factory=list, description="Identifiers and columns the policy does not list"
    )
    metric: str | None = Field(None, description="The metric the search optimised")
    metrics: dict[str, float] = Field(default_factory=dict)
    nodes_evaluated: int | None = None
    lattice_size: int | None = None
    satisfying_nodes: int | None = Field(
        None, description="Lattice nodes that satisfy the policy (exhaustive searches)"
    )
    minimal_nodes: list[dict[str, int]] | None = Field(
        None, description="The minimal satisfying nodes (k-minimal generalizations)"
    )
    path: list[dict[str, int]] | None = Field(None, description="Greedy searches' steps")
    check: Report = Field(description="The release re-checked by the checkers")
    source: str | None = None
    privcheck_version: str = __version__
    search_seconds: float | None = None
    elapsed_seconds: float | None = None

    def to_json(self) -> str:
        return self.model_dump_json(indent=2)


def render_anonymization_text(report: AnonymizationReport, width: int = 110) -> str:
    """A readable summary of an anonymization: the node, what was suppressed, the metrics."""
    from rich.console import Console
    from rich.table import Table

    buf = io.StringIO()
    console = Console(file=buf, width=width, color_system=None, force_terminal=False)
    src = f" {report.source}" if report.source else ""
    console.print(
        f"privcheck anonymize{src}: {report.algorithm} — released {report.n_kept} of "
        f"{report.n_records} records, suppressed {report.n_suppressed}"
    )
    if report.node is not None:
        levels = ", ".join(f"{k}={v}" for k, v in report.node.items())
        console.print(f"generalization levels: {levels}")
    if report.nodes_evaluated is not None:
        console.print(
            f"nodes evaluated: {report.nodes_evaluated} of {report.lattice_size}"
            + (
                f"; satisfying: {report.satisfying_nodes}"
                if report.satisfying_nodes is not None
                else ""
            )
            + (f"; time {report.elapsed_seconds:.3f} s" if report.elapsed_seconds else "")
        )
    table = Table(show_edge=False)
    table.add_column("metric")
    table.add_column("value", justify="right")
    for name, value in report.metrics.items():
        mark = " (optimised)" if name == report.metric else ""
        table.add_row(name + mark, _fmt(value))
    console.print(table)
    verdict = "passes" if report.check.passed else "FAILS"
    achieved = "; ".join(f"{m.model} {_fmt(m.value)}" for m in report.check.models)
    console.print(f"re-check of the release: {verdict} ({achieved})")
    return buf.getvalue()


def _fmt(value: float | None) -> str:
    if value is None:
        return "∞"
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.4g}"


def _params(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())


def render_text(report: Report, max_rows: int = 5, width: int = 110) -> str:
    """A readable summary: verdict, one row per model, then the worst violators."""
    from rich.console import Console
    from rich.table import Table

    buf = io.StringIO()
    console = Console(file=buf, width=width, color_system=None, force_terminal=False)
    verdict = "PASSED" if report.passed else "FAILED"
    src = f" {report.source}:" if report.source else ""
    console.print(
        f"privcheck check{src} {verdict} — {report.n_records} records, {report.n_classes} "
        f"classes over {', '.join(report.quasi_identifiers) or 'no quasi-identifiers'}"
    )
    table = Table(show_edge=False)
    for col in ("model", "parameters", "result", "achieved", "violating classes", "records"):
        table.add_column(col, justify="right" if col in ("achieved", "records") else "left")
    for m in report.models:
        table.add_row(
            m.model, _params(m.params), "pass" if m.passed else "FAIL",
            f"{_fmt(m.value)} ({m.statistic})", str(m.violating_classes),
            str(m.violating_records),
        )
    console.print(table)
    for m in report.models:
        if m.passed or not m.violators:
            continue
        console.print(f"\n{m.model} ({_params(m.params)}): worst violating classes")
        vt = Table(show_edge=False)
        vt.add_column("values")
        vt.add_column("size", justify="right")
        vt.add_column(m.statistic, justify="right")
        vt.add_column("records (row numbers)")
        for v in m.violators[:max_rows]:
            recs = ", ".join(map(str, v.records[:6])) + (" …" if v.size > 6 else "")
            vt.add_row(_params(v.values), str(v.size), _fmt(v.statistic), recs)
        console.print(vt)
    return buf.getvalue()


def render_html(report: Report) -> str:
    """One self-contained HTML page (no network)."""
    e = html.escape
    rows = "".join(
        f"<tr class='{'pass' if m.passed else 'fail'}'><td>{e(m.model)}</td>"
        f"<td>{e(_params(m.params))}</td><td>{'pass' if m.passed else 'FAIL'}</td>"
        f"<td>{e(_fmt(m.value))} ({e(m.statistic)})</td><td>{m.violating_classes}</td>"
        f"<td>{m.violating_records}</td></tr>"
        for m in report.models
    )
    sections = []
    for m in report.models:
        if m.passed or not m.violators:
            continue
        vrows = "".join(
            f"<tr><td>{e(_params(v.values))}</td><td>{v.size}</td><td>{e(_fmt(v.statistic))}</td>"
            f"<td>{e(', '.join(map(str, v.records[:20])))}</td></tr>"
            for v in m.violators
        )
        sections.append(
            f"<h2>{e(m.model)} — violating classes</h2><table><tr><th>values</th><th>size</th>"
            f"<th>{e(m.statistic)}</th><th>records</th></tr>{vrows}</table>"
        )
    verdict = "PASSED" if report.passed else "FAILED"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>privcheck report</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:4px 8px}}.fail td:nth-child(3){{color:#b00;font-weight:bold}}
.pass td:nth-child(3){{color:#070}}#verdict.FAILED{{color:#b00}}#verdict.PASSED{{color:#070}}</style>
</head><body><h1 id="verdict" class="{verdict}">{verdict}</h1>
<p>{report.n_records} records, {report.n_classes} classes over
{e(", ".join(report.quasi_identifiers))}. privcheck {e(report.privcheck_version)}.</p>
<table><tr><th>model</th><th>parameters</th><th>result</th><th>achieved</th>
<th>violating classes</th><th>violating records</th></tr>{rows}</table>
{"".join(sections)}</body></html>
"""
