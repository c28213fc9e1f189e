"""The text renderings of the reports: what ``privcheck check`` and ``privcheck anonymize`` print.

Renderers sit above the report data (``privcheck.report``) and import it; the reports never import
a renderer. ``privcheck.html_report`` draws the same reports as one HTML page.
"""

from __future__ import annotations

import io
from typing import Any

from privcheck.errors import listing
from privcheck.report import (
    AnonymizationReport,
    Explanation,
    Exposure,
    Report,
    _fmt,
    _params,
    draft_note,
)
from privcheck.text_table import PlainTable


def records_of_people(report: Report) -> str:
    """ "N records" — or, when the policy counts people, "N records of M people"."""
    if report.n_individuals is None:
        return f"{report.n_records} records"
    return (
        f"{report.n_records} records of {report.n_individuals} people "
        f"(classes count people: {report.individual})"
    )


def render_anonymization_text(report: AnonymizationReport, width: int = 110) -> str:
    """A readable summary of an anonymization: the node, what was suppressed, the metrics."""
    from rich.console import Console
    from rich.table import Table

    buf = io.StringIO()
    console = Console(
        file=buf, width=width, color_system=None, force_terminal=False, soft_wrap=True
    )
    src = f" {report.source}" if report.source else ""
    people = ""
    if report.n_individuals is not None:
        people = f" of {report.n_individuals} people"
    suppressed_people = ""
    if report.n_suppressed_individuals is not None:
        suppressed_people = f" ({report.n_suppressed_individuals} people)"
    console.print(
        f"privcheck anonymize{src}: {report.algorithm} — released {report.n_kept} of "
        f"{report.n_records} records{people}, suppressed {report.n_suppressed}" + suppressed_people
    )
    if report.draft:
        console.print(draft_note(report.open_reviews))
    if report.node is not None:
        levels = ", ".join(f"{k}={v}" for k, v in report.node.items())
        console.print(f"generalization levels: {levels}")
    if report.suppressed_cells is not None:
        per = ", ".join(f"{k}={v}" for k, v in report.suppressed_cells["per_attribute"].items())
        console.print(
            f"blanked cells ('*'): {report.suppressed_cells['total']} ({per}); "
            f"changed cells: {report.changed_cells}"
        )
    if report.nodes_evaluated is not None:
        console.print(
            (
                f"nodes evaluated: {report.nodes_evaluated} of {report.lattice_size}"
                if report.lattice_size is not None
                else f"splits tried: {report.nodes_evaluated}"  # (Mondrian: no lattice)
            )
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
    if report.metrics:
        console.print(table)
    if report.tradeoff:
        names = ", ".join(report.tradeoff[0]["node"])
        console.print(f"generalization vs suppression (Pareto front; levels of {names}):")
        front = Table(show_edge=False)
        front.add_column(report.metric or "metric", justify="right")
        front.add_column("suppressed", justify="right")
        front.add_column("levels")
        for point in report.tradeoff:
            levels = " ".join(str(v) for v in point["node"].values())
            front.add_row(_fmt(point["value"]), str(point["suppressed"]), levels)
        console.print(front)
    if report.information_loss is not None:
        loss = ", ".join(
            f"{k}={_fmt(v) if v is not None else 'n/a'}" for k, v in report.information_loss.items()
        )
        console.print(f"information loss: {loss}")
    if report.candidates:
        console.print(candidates_table(report))
    if report.utility is not None:
        shown = ("prec", "non_uniform_entropy", "kl_divergence", "changed_share")
        util = ", ".join(f"{k}={_fmt(report.utility[k])}" for k in shown if k in report.utility)
        if "accuracy_loss_points" in report.utility:
            util += (
                f", accuracy {_fmt(report.utility['accuracy_release'])} vs "
                f"{_fmt(report.utility['accuracy_original'])} on the original "
                f"(loss {report.utility['accuracy_loss_points']:.2f} points)"
            )
        console.print(f"utility (docs/utility.md): {util}")
    if report.guarantee:
        console.print(f"guarantee: {report.guarantee}")
    verdict = "passes" if report.check.passed else "FAILS"
    achieved = "; ".join(f"{m.model} {_fmt(m.value, m.unbounded)}" for m in report.check.models)
    console.print(f"re-check of the release: {verdict} ({achieved or 'no models'})")
    risk = risk_line(report)
    if risk:
        console.print(risk)
    for note in report.notes:
        console.print(f"note: {note}")
    if report.exposure is not None:
        for line in exposure_lines(report.exposure):
            console.print(line)
    line = choice_line(report)
    if line is not None:
        console.print(line)
    return buf.getvalue()


def candidates_table(report: AnonymizationReport) -> Any:
    """``--algorithm auto``'s candidates: the compared metric (lower is better), classes,
    suppressed records, the highest risk left, seconds; the chosen one marked ✓."""
    from rich.table import Table

    table = Table(show_edge=False, title="candidates (--algorithm auto)")
    for col in ("algorithm", f"{report.metric} ↓", "classes", "suppressed", "highest risk", "s"):
        table.add_column(col, justify="left" if col == "algorithm" else "right")
    for c in report.candidates or []:
        if not c["passed"]:
            table.add_row(c["algorithm"], "—", "—", "—", "—", "not used")
            continue
        risk = c.get("risk") or {}
        table.add_row(
            c["algorithm"] + (" ✓" if c["algorithm"] == report.chosen else ""),
            _fmt(c["metric_value"]),
            str(c["n_classes"]),
            str(c["n_suppressed"]),
            _fmt(risk["highest"]) if risk else "n/a",
            f"{c['seconds']:.2f}",
        )
    return table


def choice_line(report: AnonymizationReport) -> str | None:
    """One line naming the choice and why: "chose mondrian: loss 0.1047 vs mingen 0.4687; 3784
    classes vs 182" (every other scored candidate, then those not used and the gist of why)."""
    if not report.candidates or report.chosen is None:
        return None
    by = {c["algorithm"]: c for c in report.candidates}
    best = by[report.chosen]
    others = [c for c in report.candidates if c["passed"] and c["algorithm"] != report.chosen]
    line = f"chose {report.chosen}: {best['metric']} {best['metric_value']:.4g}"
    if others:
        line += " vs " + ", ".join(f"{c['algorithm']} {c['metric_value']:.4g}" for c in others)
        line += f"; {best['n_classes']} classes vs " + ", ".join(
            str(c["n_classes"]) for c in others
        )
    excluded = [c for c in report.candidates if not c["passed"]]
    if excluded:
        line += "; not used: " + ", ".join(
            f"{c['algorithm']} ({_first_clause(c['excluded_reason'])})" for c in excluded
        )
    return line


def _first_clause(reason: str) -> str:
    """A refusal's gist: its text up to the first ':' or ';' (the rest says how to fix it)."""
    for stop in (":", ";"):
        reason = reason.split(stop, 1)[0]
    return reason.strip()


def risk_line(report: AnonymizationReport) -> str:
    """Prosecutor risk before → after in one line (empty when the report has none)."""
    before, after = report.risk_before, report.risk_after
    if before is None and after is None:
        return ""
    profile = report.risk_profile
    bound = "1/k" if profile is None else _fmt(profile.threshold)

    def pair(key: str, fmt: Any) -> str:
        b = "n/a" if before is None else fmt(getattr(before, key))
        a = "n/a" if after is None else fmt(getattr(after, key))
        return f"{b} → {a}"

    return (
        f"re-identification risk (prosecutor, before → after): highest {pair('highest', _fmt)}, "
        f"average {pair('average', _fmt)}, records above {bound} {pair('records_above', _pct)}"
    )


def _pct(share: float) -> str:
    return f"{100 * share:.1f} %"


def exposure_lines(x: Exposure) -> list[str]:
    """The exposure in words: the share re-identified, and a warning above the threshold."""
    params = ", ".join(f"{k}={v}" for k, v in x.params.items())
    sample = ""
    if x.sampled and x.confidence_interval is not None:
        lo, hi = x.confidence_interval
        sample = (
            f" (estimated on a random {x.n_attacked:,} of {x.n_records:,} records; 95 % "
            f"interval {_pct(lo)}–{_pct(hi)})"
        )
    lines = [
        f"exposure: the transparency attack {x.attack} ({params}) re-identifies "
        f"{_pct(x.reidentified_share)} of the records{sample}, {_pct(x.certain_share)} by a "
        f"unique, correct link; intruder: {x.intruder}"
    ]
    if x.warning:
        lines.append(
            f"WARNING: {_pct(x.reidentified_share)} of the records are re-identified by an "
            f"intruder who knows the method, above the policy's exposure_threshold of "
            f"{_pct(x.threshold)}: raise k or p, choose a transparency-resistant method, or "
            "release less"
        )
    return lines


#: violated models whose worst classes the text report lists (a policy may list up to 1,000
#: models, and a table each costs milliseconds to lay out: all of them took 10 s to print)
MAX_VIOLATOR_SECTIONS = 20


class _Page:
    """Lines of a text report: text as written, tables laid out to the page's width."""

    def __init__(self, width: int) -> None:
        self.width = width
        self.lines: list[str] = []

    def print(self, item: str | PlainTable) -> None:
        self.lines.append(item.render(self.width) if isinstance(item, PlainTable) else item)

    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines)


def render_text(report: Report, max_rows: int = 5, width: int = 110) -> str:
    """A readable summary: verdict, one row per model, then the worst violators.

    Laid out by ``privcheck.text_table`` rather than Rich: a check is often a pre-commit hook's
    whole job, and Rich's import cost a tenth of it."""
    console = _Page(width)
    verdict = "PASSED" if report.passed else "FAILED"
    src = f" {report.source}:" if report.source else ""
    if report.kind == "graph-check":
        console.print(
            f"privcheck check --graph{src} {verdict} — {report.n_records} nodes, "
            f"{report.n_edges} edges"
        )
    else:
        starred = ""
        if report.n_suppressed or report.suppression_limit_records is not None:
            starred = (
                f"; {report.n_suppressed} suppressed records ('*' rows, limit "
                f"{report.suppression_limit_records})"
            )
        console.print(
            f"privcheck check{src} {verdict} — {records_of_people(report)}, "
            f"{report.n_classes} classes over "
            f"{', '.join(report.quasi_identifiers) or 'no quasi-identifiers'}" + starred
        )
        for finding in report.findings():
            console.print(f"FAIL: {finding}")
        for note in report.notes:
            console.print(f"note: {note}")
    if report.draft:
        console.print(draft_note(report.open_reviews))
    table = PlainTable()
    for col in ("model", "parameters", "result", "achieved", "violating classes", "records"):
        table.add_column(col, justify="right" if col in ("achieved", "records") else "left")
    for m in report.models:
        table.add_row(
            m.model,
            _params(m.params),
            "pass" if m.passed else "FAIL",
            f"{_fmt(m.value, m.unbounded)} ({m.statistic})",
            str(m.violating_classes),
            str(m.violating_records),
        )
    console.print(table)
    listed = [m for m in report.models if not m.passed and m.violators]
    for m in listed[:MAX_VIOLATOR_SECTIONS]:
        console.print(f"\n{m.model} ({_params(m.params)}): worst violating classes")
        vt = PlainTable()
        vt.add_column("values")
        vt.add_column("size", justify="right")
        vt.add_column(m.statistic, justify="right")
        vt.add_column("nodes" if report.kind == "graph-check" else "records (row numbers)")
        for v in m.violators[:max_rows]:
            recs = listing(v.records, 6, total=v.size)
            vt.add_row(_params(v.values), str(v.size), _fmt(v.statistic, v.unbounded), recs)
        console.print(vt)
    if len(listed) > MAX_VIOLATOR_SECTIONS:
        console.print(
            f"\n… and {len(listed) - MAX_VIOLATOR_SECTIONS} more violated models: their worst "
            "classes are in the JSON report (-f json)"
        )
    if report.explanation is not None:
        _explanation_text(console, report.explanation, max_rows)
    return console.text()


def _explanation_text(console: _Page, x: Explanation, max_rows: int) -> None:
    """The explanation: the current risk, each quasi-identifier's contribution, the top MSUs."""
    cur = x.current
    below = f", {cur.records_below_k} records in classes below k={x.k}" if x.k else ""
    partial = "" if x.complete else " (partial search)"
    console.print(
        f"\nrisk explanation: {cur.sample_uniques} sample uniques, average risk "
        f"{_fmt(cur.average_risk)}{below}; {x.msu_total} minimal sample uniques of size ≤ "
        f"{x.max_size}{partial} (by size: {', '.join(map(str, x.msu_by_size))}), highest SUDA "
        f"score {_fmt(x.highest_score)}"
    )
    ct = PlainTable()
    for col in ("quasi-identifier", "SUDA share %", "uniques if dropped", "if generalized"):
        ct.add_column(col, justify="left" if col == "quasi-identifier" else "right")
    if x.k:
        ct.add_column("below k if dropped / generalized", justify="right")
    for c in sorted(x.contributions, key=lambda c: -c.suda_share):
        g = c.generalized
        row = [
            c.attribute,
            f"{c.suda_share:.1f}",
            str(c.dropped.sample_uniques),
            "—" if g is None else str(g.sample_uniques),
        ]
        if x.k:
            row.append(f"{c.dropped.records_below_k} / {'—' if g is None else g.records_below_k}")
        ct.add_row(*row)
    console.print(ct)
    mt = PlainTable()
    for col in ("minimal sample unique", "records", "SUDA weight", "example (row)"):
        mt.add_column(col, justify="right" if col in ("records", "SUDA weight") else "left")
    for g in x.msus[:max_rows]:
        ex = ", ".join(f"{k}={v}" for k, v in g.examples[0].items()) if g.examples else ""
        row = f" (row {g.rows[0]})" if g.rows else ""
        mt.add_row(" + ".join(g.attributes), str(g.records), _fmt(g.score), ex + row)
    console.print(mt)
