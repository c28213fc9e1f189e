"""The anonymization report's ``utility``: present when the policy has a ``utility`` section,
and equal to ``compare`` of the same release written in input order — also when the written
release is shuffled or leaves suppressed records out."""

from __future__ import annotations

import pytest

from privcheck.pipeline.anonymize import anonymize
from privcheck.policy import load_policy, parse_policy
from privcheck.utility.compare import compare


def adult_policy(**extra):
    base = load_policy("privcheck/data/adult/policy.yaml")
    spec = base.model_dump()
    spec["models"] = [{"model": "k-anonymity", "k": 5}]
    spec.update(extra)
    return parse_policy(spec, base_dir=base.base_dir)


def test_report_utility_is_compare_of_the_aligned_release(adult_frame) -> None:
    frame = adult_frame.iloc[:2000].reset_index(drop=True)
    star = adult_policy(suppressed_records="star", utility={"target": "salary-class"})
    release, report = anonymize(frame, star, "mingen", keep_order=True)
    want = compare(frame, release, star)
    assert report.utility == pytest.approx({k: float(v) for k, v in want.items()})
    # one loss: compare's reading of the release and the anonymizer's own figure
    assert report.utility["loss"] == pytest.approx(report.metrics["loss"], abs=1e-12)
    # the default release (shuffled, suppressed records left out) reports the same utility
    removed = adult_policy(utility={"target": "salary-class"})
    _, shuffled = anonymize(frame, removed, "mingen", seed=1)
    assert shuffled.utility == pytest.approx(report.utility)


def test_no_utility_section_no_utility(adult_frame) -> None:
    frame = adult_frame.iloc[:500].reset_index(drop=True)
    _, report = anonymize(frame, adult_policy(), "mingen")
    assert report.utility is None


def test_the_text_report_prints_the_utility(adult_frame) -> None:
    from privcheck.text_report import render_anonymization_text

    frame = adult_frame.iloc[:1000].reset_index(drop=True)
    pol = adult_policy(utility={"target": "salary-class"})
    _, report = anonymize(frame, pol, "mingen", seed=0)
    line = next(x for x in render_anonymization_text(report).splitlines() if "utility" in x)
    assert "prec=" in line and "kl_divergence=" in line and "loss" in line
