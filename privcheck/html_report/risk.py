"""The page of a ``privcheck risk`` report (``privcheck.risk.assess.RiskReport``)."""

from __future__ import annotations

from typing import Any

from privcheck.html_report.page import contributed_section, draft_banner, e, html_page, rendered_at
from privcheck.report import _params


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
    stamp = rendered_at()
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
        draft_banner(report),
        f"<nav>{''.join(toc)}</nav>",
        *(contributed_section(s, n) for n, s in enumerate(report.sections)),
        f"<footer>privcheck {e(report.privcheck_version)} · risk in "
        f"{report.elapsed_seconds:.2f} s · rendered {stamp}</footer>",
    ]
    return html_page(title, body)
