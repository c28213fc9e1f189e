"""The HTML reports: one self-contained page per report, readable without privcheck, the data or
a network.

Everything is inline: CSS in a ``<style>`` element, plots as SVG drawn by matplotlib (Agg-free
``Figure`` objects, no pyplot state), no scripts, fonts or images fetched. A page is built only
from its report — plain data (``privcheck.report``) — so a saved JSON report can be re-rendered
later. One module per page, over one shared frame:

- ``page``: what every page shares — the frame (head, styles, draft banner), escaping, figures'
  names in words, the plotting helpers, and the sections other steps contribute;
- ``check``: a check's page (``render_html``);
- ``anonymization``: an anonymization's page (``render_anonymization_html``), its charts in
  ``anonymization_charts``;
- ``risk``: a ``privcheck risk`` report's page (``render_risk_html``).

The ``html`` output format (``privcheck.output_formats``) draws them.
"""

from privcheck.html_report.anonymization import render_anonymization_html
from privcheck.html_report.check import render_html
from privcheck.html_report.risk import render_risk_html

__all__ = ["render_anonymization_html", "render_html", "render_risk_html"]
