"""A masked release reports its own exposure (``exposure`` in the anonymization report).

Oracle: the same attack run independently by ``privcheck risk`` (or its library form,
``privcheck.risk.assess.assess``) on the release as written to disk with ``--keep-order``: the
share the anonymizer reports must be the standalone attack's mean record risk (its
anonymity-set rate). For MDAV that attack really replays MDAV, while the anonymizer reads its
own clusters; for the sampled estimator, the full attack's per-record risks at the sampled rows.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
import yaml
from anon_helpers import ROOT

from privcheck.anonymizers import anonymize
from privcheck.anonymizers.exposure import measure_exposure, sample_rows, share_estimate
from privcheck.anonymizers.masking import RankSwapping
from privcheck.io import read_table
from privcheck.masking import rank_swap
from privcheck.plugins import risk_registry
from privcheck.risk.assess import assess
from privcheck.risk.outcome import AttackInputs
from privcheck.text_report import render_anonymization_text
from tests.conftest import run_cli
from tests.test_cli import assert_one_line_error

CASC = ROOT / "tests" / "data" / "casc"
#: the issue's figures: MDAV k = 3, 5 and rank swapping p = 2, 5
CASES = [
    ("mdav", {"k": 3}),
    ("mdav", {"k": 5}),
    ("rank-swapping", {"p": 2}),
    ("rank-swapping", {"p": 5}),
]


def policy_for(columns, k: int = 3, **extra) -> dict:
    return {
        "attributes": {c: {"role": "quasi_identifier"} for c in columns},
        "models": [{"model": "k-anonymity", "k": k}],
        **extra,
    }


def param_args(params: dict) -> list[str]:
    """The exposure's parameters as ``--param key=value`` (JSON is YAML, which --param reads)."""
    out = []
    for key, value in params.items():
        out += ["--param", f"{key}={json.dumps(value)}"]
    return out


@pytest.mark.parametrize(("algorithm", "params"), CASES)
def test_cli_exposure_is_the_standalone_attack_on_the_written_release(tmp_path, algorithm, params):
    data = CASC / "census.csv"
    columns = list(pd.read_csv(data, nrows=1).columns)
    policy = tmp_path / "policy.yaml"
    policy.write_text(yaml.safe_dump(policy_for(columns, k=params.get("k", 3))))
    release, report = tmp_path / "release.csv", tmp_path / "report.json"
    extra = [] if algorithm == "mdav" else ["--param", f"p={params['p']}"]
    res = run_cli(
        "anonymize", data, "-p", policy, "-o", release, "-a", algorithm, "--keep-order",
        "--report", report, *extra,
    )  # fmt: skip
    assert res.returncode in (0, 1), res.stderr
    exposure = json.loads(report.read_text())["exposure"]
    assert exposure["n_attacked"] == exposure["n_records"] == 1080 and not exposure["sampled"]
    share = exposure["reidentified_share"]
    assert f"re-identifies {100 * share:.1f} % of the records" in res.stdout
    assert exposure["warning"] is True and "WARNING:" in res.stdout  # default threshold 0.05
    standalone = run_cli(
        "risk", "--original", data, "--masked", release, "-p", policy,
        "--attack", exposure["attack"], *param_args(exposure["params"]), "--format", "json",
    )  # fmt: skip
    assert standalone.returncode == 0, standalone.stderr
    risk = json.loads(standalone.stdout)
    assert risk["figures"]["anonymity_set_rate"] == pytest.approx(share, abs=1e-12)
    assert risk["record_risk_summary"]["mean"] == pytest.approx(share, abs=1e-12)
    assert risk["record_risk_summary"]["share_certain"] == pytest.approx(
        exposure["certain_share"], abs=1e-12
    )


@pytest.mark.parametrize(("algorithm", "params"), CASES)
def test_tarragona_exposure_is_the_library_attack_on_the_written_release(
    tmp_path, algorithm, params
):
    data = read_table(CASC / "tarragona.csv")
    policy = policy_for(data.columns, k=params.get("k", 3))
    extra = {} if algorithm == "mdav" else {"p": params["p"]}
    release, report = anonymize(data, policy, algorithm, keep_order=True, seed=3, **extra)
    path = tmp_path / "release.csv"
    release.to_csv(path, index=False)
    x = report.exposure
    measure = risk_registry()[x.attack]
    again = assess(data, read_table(path), list(data.columns), measure, dict(x.params))
    assert again.figures["anonymity_set_rate"] == pytest.approx(x.reidentified_share, abs=1e-12)
    if algorithm == "mdav":  # the replay reaches #released classes / n
        classes = len(release.drop_duplicates())
        assert x.reidentified_share == pytest.approx(classes / len(data))
        assert x.certain_share == 0.0


def test_every_masking_method_reports_exposure_and_generalization_does_not():
    data = read_table(CASC / "census.csv").iloc[:240].reset_index(drop=True)
    policy = policy_for(data.columns, k=3)
    for algorithm, params in [
        ("mdav-partitioned", {"block_size": 100}),
        ("optimal-univariate", {}),
        ("fuzzy-microaggregation", {}),
        ("rank-swapping-buckets", {"p": 5}),
        ("rank-swapping-distribution", {"p": 5}),
        ("noise", {"a": 0.1}),
        ("noise", {"a": 0.1, "kind": "correlated"}),
    ]:
        _, report = anonymize(data, policy, algorithm, seed=2, **params)
        x = report.exposure
        assert x is not None, algorithm
        assert 0.0 <= x.certain_share <= x.reidentified_share <= 1.0, algorithm
        assert x.warning == (x.reidentified_share > 0.05)
        assert "seed" not in json.dumps(x.model_dump())
    _, rs = anonymize(data, policy, "rank-swapping-buckets", p=5, seed=2)
    assert rs.exposure.params == {"p": 5.0, "variant": "buckets", "coverage": 0.999}
    _, noisy = anonymize(data, policy, "noise", a=0.1, kind="correlated", seed=2)
    assert noisy.exposure.attack == "mahalanobis"
    adult = read_table(ROOT / "privcheck" / "data" / "adult" / "adult.csv").iloc[:500]
    _, gen = anonymize(adult, ROOT / "privcheck" / "data" / "adult" / "policy.yaml", "datafly")
    assert gen.exposure is None


def test_threshold_comes_from_the_policy(tmp_path):
    data = read_table(CASC / "census.csv")
    _, loose = anonymize(data, policy_for(data.columns, exposure_threshold=0.5), "mdav")
    assert loose.exposure.threshold == 0.5 and loose.exposure.warning is False
    text = render_anonymization_text(loose)
    assert "exposure: the transparency attack" in text and "WARNING" not in text
    _, strict = anonymize(data, policy_for(data.columns, exposure_threshold=0.2), "mdav")
    assert strict.exposure.warning is True
    assert "above the policy's exposure_threshold of 20.0 %" in render_anonymization_text(strict)


@pytest.mark.parametrize("value", [1.5, -0.1, "high"])
def test_a_bad_threshold_is_one_line(tmp_path, value):
    columns = list(pd.read_csv(CASC / "census.csv", nrows=1).columns)
    policy = tmp_path / "policy.yaml"
    policy.write_text(yaml.safe_dump(policy_for(columns, exposure_threshold=value)))
    out = tmp_path / "release.csv"
    res = run_cli("anonymize", CASC / "census.csv", "-p", policy, "-o", out, "-a", "mdav")
    assert_one_line_error(res, "exposure_threshold")
    assert not out.exists()


def test_sampled_estimate_is_the_full_attack_at_the_sampled_rows():
    data = pd.read_csv(CASC / "tarragona.csv")
    cols = list(data.columns)
    result = rank_swap(data, 5, seed=4)
    attack = RankSwapping(p=5).exposure_attack(result)
    full = risk_registry()[attack.name].assess(
        AttackInputs(data, result.masked, cols, np.arange(len(data)), 0), **attack.params
    )
    sampled = measure_exposure(
        attack, data, result.masked, 0.05, np.random.default_rng(9), budget=1, min_sample=150
    )
    rows = sample_rows(len(data), len(cols), True, np.random.default_rng(9), 1, 150)
    assert sampled.sampled and sampled.n_attacked == 150 == len(rows)
    expected = full.record_risk[rows]
    assert sampled.reidentified_share == pytest.approx(expected.mean(), abs=1e-12)
    lo, hi = sampled.confidence_interval
    half = 1.959963984540054 * expected.std(ddof=1) / math.sqrt(150) * math.sqrt(1 - 150 / 834)
    assert (lo, hi) == pytest.approx((expected.mean() - half, min(1.0, expected.mean() + half)))
    assert lo <= full.record_risk.mean() <= hi


def test_share_estimate_without_sampling_has_no_interval():
    assert share_estimate(np.array([1.0, 0.5, 0.0]), 3) == (0.5, None)
    share, interval = share_estimate(np.array([1.0, 0.0, 1.0, 0.0]), 100)
    assert share == 0.5 and interval[0] < 0.5 < interval[1]
