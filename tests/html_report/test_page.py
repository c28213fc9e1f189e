"""A data value is drawn in a plot at most ``PLOT_TEXT`` characters long; the page keeps it whole.

matplotlib lays text out glyph by glyph: a fuzzed 1 MB cell of the sensitive attribute, drawn
whole as a tick label of the distribution plot, made ``check -f html`` run for minutes."""

from __future__ import annotations

import pandas as pd

from privcheck.html_report.page import PLOT_TEXT, plot_text
from privcheck.output_formats import render
from privcheck.pipeline.check import check


def test_plot_text_cuts_long_values_and_keeps_short_ones():
    assert plot_text("flu") == "flu"
    assert plot_text(12.5) == "12.5"
    long = "x" * 5_000
    cut = plot_text(long)
    assert len(cut) == PLOT_TEXT and cut.endswith("…") and long.startswith(cut[:-1])


def test_a_page_with_a_huge_sensitive_value_lists_it_whole():
    huge = "y" * 20_000
    data = pd.DataFrame(
        {
            "age": [30, 30, 40, 40, 50, 50],
            "disease": ["flu", huge, "flu", "cold", "flu", "cold"],
        }
    )
    policy = {
        "attributes": {
            "age": {"role": "quasi_identifier"},
            "disease": {"role": "sensitive"},
        },
        "models": [{"model": "l-diversity", "variant": "distinct", "l": 3, "attribute": "disease"}],
    }
    report = check(data, policy, details=True)
    page = render(report, "html", "check")
    assert huge in page  # (the alt text and the tables keep the value whole)
