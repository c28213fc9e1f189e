"""The page of an anonymization (``privcheck anonymize --report FILE.html``).

The same frame as a check's page: the transformation (node or masked attributes, parameters,
search figures), ``--algorithm auto``'s candidates, the risk before and after, suppression,
information loss, the generalization/suppression front, the release's exposure to its
transparency attack, then the re-check's model table and model sections. A graph's release gets
a short page of its own.
"""

from __future__ import annotations

from typing import Any

from privcheck.html_report.anonymization_charts import (
    bin_labels,
    candidates_plot,
    class_sizes_plot,
    is_scored,
    loss_plot,
    metric_direction,
    risk_plot,
    size_comparison,
    tradeoff_plot,
)
from privcheck.html_report.check import model_section, summary_table
from privcheck.html_report.page import (
    cell,
    draft_banner,
    e,
    figures_table,
    html_page,
    label,
    rendered_at,
)
from privcheck.report import AnonymizationReport, Exposure, _fmt, _params


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
        parts.append(figures_table(params))
    search = {
        ("Nodes evaluated" if r.lattice_size is not None else "Splits tried"): r.nodes_evaluated,
        "Lattice size": r.lattice_size,
        "Satisfying nodes": r.satisfying_nodes,
        "Search time (s)": r.search_seconds,
        "Total time (s)": r.elapsed_seconds,
    }
    search = {k: v for k, v in search.items() if v is not None}
    if search:
        parts.append("<h3>Search</h3>" + figures_table(search))
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
        f"{figures_table(figures)}</section>"
    )


def _loss_section(r: AnonymizationReport) -> str:
    table = ""
    if r.metrics:
        rows = "".join(
            f"<tr><td>{e(label(k))}{' (optimised)' if k == r.metric else ''}</td>{cell(v)}</tr>"
            for k, v in r.metrics.items()
        )
        table = f"<table class='figures'>{rows}</table>"
    elif r.information_loss:
        table = figures_table(r.information_loss)
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
    direction = metric_direction(r.metric)
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
        labels = bin_labels(profile.risk_bins)
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
            cell(None if c.get("metric_value") is None else float(c["metric_value"])),
            cell(c.get("n_classes")),
            cell(c.get("n_suppressed")),
            cell(c.get("suppressed_cells")),
            cell(None if c.get("seconds") is None else float(c["seconds"])),
            _risk_cell(c.get("risk"), "highest"),
            _risk_cell(c.get("risk"), "average"),
            _risk_cell(c.get("risk"), "records_above"),
        ]
        rows.append(f"<tr{' class=chosen' if chosen else ''}>{''.join(cells)}</tr>")
    scored = [c for c in r.candidates if is_scored(c)]
    excluded = [c for c in r.candidates if not is_scored(c)]
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
        f"{figures_table(figures)}"
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
        ("summary", "re-check", summary_table(check, "Re-check of the release")),
        ("notes", "notes", _notes_section(r)),
    ]
    toc = [f"<a href='#{pid}'>{e(name)}</a>" for pid, name, html_ in parts if html_]
    stamp = rendered_at()
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
        draft_banner(r),
        f"<nav>{''.join(toc)}</nav>",
        *(html_ for _, _, html_ in parts),
        *(
            model_section(i, m, classes_link=check.class_sizes is not None)
            for i, m in enumerate(check.models, 1)
        ),
        f"<footer>privcheck {e(r.privcheck_version)} · anonymization{e(elapsed)} · "
        f"rendered {stamp}</footer>",
    ]
    return html_page(title, body)


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
        f"{figures_table(figures)}</section>",
        summary_table(check, "Re-check of the release"),
        f"<footer>privcheck {e(check.privcheck_version)} · graph anonymization</footer>",
    ]
    return html_page(title, body)
