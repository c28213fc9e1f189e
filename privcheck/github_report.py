"""The GitHub Actions rendering of a check: workflow commands that annotate the checked file.

``privcheck check --format github`` and ``privcheck hook --format github`` print them; Actions
reads ``::error`` / ``::warning`` / ``::notice`` lines from a step's output and shows them on the
file. Renderers sit above the report data (``privcheck.report``) and import it.
"""

from __future__ import annotations

from privcheck.report import SIGNS, Report, _fmt, _params, draft_note, requirement


def escape_data(text: str) -> str:
    """A workflow command's message, escaped as Actions reads it (one line)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value (``file=``, ``title=``), escaped."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotations(report: Report, file: str | None) -> str:
    """GitHub Actions workflow commands: one ``::error`` per violated model, else a notice."""
    where = f"file={escape_property(file)}," if file else ""
    lines = []
    for m in report.models:
        req = requirement(m.model, m.params)
        bound = f" (required {SIGNS[req[1]]} {_fmt(req[0])})" if req else ""
        msg = f"{m.model} ({_params(m.params)}): {m.statistic} {_fmt(m.value)}{bound}"
        if m.passed:
            continue
        msg += f"; {m.violating_classes} classes / {m.violating_records} records violate it"
        title = escape_property(f"privcheck: {m.model} violated")
        lines.append(f"::error {where}title={title}::{escape_data(msg)}")
    for finding in report.findings():
        title = escape_property("privcheck: release integrity")
        lines.append(f"::error {where}title={title}::{escape_data(finding)}")
    if report.draft:
        title = escape_property("privcheck: draft policy")
        note = escape_data(draft_note(report.open_reviews))
        lines.insert(0, f"::warning {where}title={title}::{note}")
    if not [line for line in lines if line.startswith("::error")]:
        title = escape_property("privcheck: policy holds")
        lines.append(
            f"::notice {where}title={title}::"
            + escape_data(
                f"{len(report.models)} models hold on {report.n_records} records"
                + (f" of {report.n_individuals} people" if report.n_individuals is not None else "")
            )
        )
    return "\n".join(lines) + "\n"
