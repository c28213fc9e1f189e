"""Output formats: how a report — plain data — becomes text, JSON, an HTML page or annotations.

A report (``privcheck.report``) knows no rendering; formats sit above it. Each format is a
plugin: a subclass of ``OutputFormat`` returned by the ``privcheck_output_formats`` hook
(``privcheck/hookspecs.py``), as datasette's ``register_output_renderer``. The built-in formats
below register through that same hook (``privcheck.plugins.BUILTIN_OUTPUT_FORMATS``), so a
catalog's own format is one more plugin: the commands take their ``--format`` choices, and the
format a file's extension asks for, from the registry (``privcheck.plugins.output_format_registry``;
``privcheck.report_format`` reconciles the two), and ``render`` draws with the format chosen.

A format names the kinds of report it renders (``KINDS``): what each command makes. It is given
the report and the kind, and context it may use or ignore: ``source`` (the file the report is
about, as the command line named it) and, for a comparison, ``wide`` and ``n_records``.

This module only declares the formats: each imports its renderer when it renders, so
registering them costs nothing (``privcheck --help`` and a policy's validation import neither
matplotlib nor pandas: ``tests/test_startup.py``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from privcheck.hookspecs import hookimpl

#: the kinds of report, each with the command that makes it and what its report is
KINDS: dict[str, str] = {
    "check": "privcheck check / apply: a verdict (privcheck.report.Report, a table's or a graph's)",
    "anonymization": "privcheck anonymize --report: an AnonymizationReport, or a graph's release",
    "risk": "privcheck risk: a RiskReport (privcheck.risk.assess)",
    "compare": "privcheck compare: a dict {releases: [...], recommended: ...}",
}


class OutputFormat:
    """A way to write a report. Subclass it, set the class attributes, implement ``render``.

    ``name`` is what ``--format`` takes; ``kinds`` the kinds of report it renders (keys of
    ``KINDS``); ``suffixes`` the file extensions that ask for it (``--output report.xml``: the
    format whose suffixes hold ``.xml``, the built-ins first); ``media_type`` what it writes.
    ``text_lines``: it writes plain lines a text file (``.txt``, ``.md``) suits, so ``--format
    NAME -o out.txt`` is no contradiction. ``details``: it draws the plot data a check computes
    only when asked (class sizes, histograms, sensitive distributions), as the HTML page does.
    """

    name: ClassVar[str]
    summary: ClassVar[str] = ""
    kinds: ClassVar[frozenset[str]] = frozenset()
    suffixes: ClassVar[tuple[str, ...]] = ()
    media_type: ClassVar[str] = "text/plain"
    text_lines: ClassVar[bool] = False
    details: ClassVar[bool] = False

    def render(self, report: Any, kind: str, **context: Any) -> str:
        """The report, of ``kind``, in this format (the whole text written or printed)."""
        raise NotImplementedError


class TextFormat(OutputFormat):
    name = "text"
    summary = "the readable summary privcheck prints"
    kinds = frozenset(KINDS)
    suffixes = (".txt", ".text", ".md")
    text_lines = True

    def render(self, report: Any, kind: str, **context: Any) -> str:
        if kind == "check":
            from privcheck.text_report import render_text

            return render_text(report)
        if kind == "anonymization":
            if getattr(report, "kind", None) == "graph-anonymization":
                return report.summary()
            from privcheck.text_report import render_anonymization_text

            return render_anonymization_text(report)
        if kind == "risk":
            from privcheck.risk.assess import render_risk_text

            return render_risk_text(report)
        from privcheck.utility.table import render_text as render_comparison

        return render_comparison(
            report, wide=context.get("wide", False), n_records=context.get("n_records")
        )


class JsonFormat(OutputFormat):
    name = "json"
    summary = "the report's JSON contract (schemas/, docs/reports.md)"
    kinds = frozenset(KINDS)
    suffixes = (".json",)
    media_type = "application/json"

    def render(self, report: Any, kind: str, **context: Any) -> str:
        if kind == "compare":
            from privcheck.utility.table import render_json

            return render_json(report)
        return report.to_json() + "\n"


class HtmlFormat(OutputFormat):
    name = "html"
    summary = "one self-contained page with plots"
    kinds = frozenset({"check", "anonymization", "risk"})
    suffixes = (".html", ".htm")
    media_type = "text/html"
    details = True

    def render(self, report: Any, kind: str, **context: Any) -> str:
        from privcheck import html_report

        page = {
            "check": html_report.render_html,
            "anonymization": html_report.render_anonymization_html,
            "risk": html_report.render_risk_html,
        }
        return page[kind](report)


class GithubFormat(OutputFormat):
    name = "github"
    summary = "GitHub Actions annotations on the checked file"
    kinds = frozenset({"check"})
    text_lines = True

    def render(self, report: Any, kind: str, **context: Any) -> str:
        from privcheck.github_report import github_annotations

        return github_annotations(report, context.get("source"))


@hookimpl
def privcheck_output_formats() -> list[type[OutputFormat]]:
    return [TextFormat, JsonFormat, HtmlFormat, GithubFormat]


def formats_for(kind: str) -> dict[str, type[OutputFormat]]:
    """The registered formats that render ``kind``, by name (built-ins first)."""
    from privcheck.plugins import output_format_registry

    return {name: fmt for name, fmt in output_format_registry().items() if kind in fmt.kinds}


def draws_details(name: str | None) -> bool:
    """Whether the format ``name`` draws the plot data a check computes only when asked."""
    from privcheck.plugins import output_format_registry

    fmt = None if name is None else output_format_registry().get(name)
    return fmt is not None and fmt.details


def render(report: Any, name: str, kind: str, **context: Any) -> str:
    """``report`` (of ``kind``) in the registered format ``name``.

    The commands choose ``name`` among ``formats_for(kind)`` before any work
    (``privcheck.report_format``); a name that renders no such report is refused here too.
    """
    from privcheck.errors import PolicyError
    from privcheck.plugins import output_format_registry

    fmt = output_format_registry().get(name)
    if fmt is None or kind not in fmt.kinds:
        known = ", ".join(formats_for(kind))
        raise PolicyError(f"no output format {name!r} for a {kind} report; known: {known}")
    return fmt().render(report, kind, **context)
