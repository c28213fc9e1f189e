"""Secret randomness: without --seed every random choice draws from the operating system's
entropy (two runs give different releases); a given seed reproduces the release and is never
written to a report (JSON, HTML, text), the release, a catalog payload or a log."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from anon_helpers import ROOT

from privcheck.api import remediate
from privcheck.catalog import to_datahub, to_openmetadata
from privcheck.html_report import render_anonymization_html
from privcheck.pipeline.anonymize import anonymize
from privcheck.pipeline.apply import apply
from privcheck.text_report import render_anonymization_text
from tests.conftest import run_cli

ENV = {"PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
SEED = "918273645"  # distinctive: it cannot appear in a file by chance


def cli(*args):
    return run_cli(*args, env=ENV)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    """200 records: a unique row number (insensitive, so every shuffle is visible), a ZIP code
    (masking hierarchy) and an integer income (numeric, for rank swapping)."""
    folder = tmp_path_factory.mktemp("secret")
    rng = np.random.default_rng(5)
    n = 200
    frame = pd.DataFrame(
        {
            "row": np.arange(n),
            "zip": [f"0{z}" for z in rng.choice([2138, 2139, 2141, 2142], n)],
            "income": rng.integers(10_000, 90_000, n),
        }
    )
    data = folder / "data.csv"
    frame.to_csv(data, index=False)
    generalize = folder / "generalize.yaml"
    generalize.write_text(
        yaml.safe_dump(
            {
                "attributes": {
                    "row": {"role": "insensitive"},
                    "zip": {"role": "quasi_identifier", "hierarchy": {"type": "masking"}},
                    "income": {"role": "insensitive"},
                },
                "models": [{"model": "k-anonymity", "k": 5}],
            }
        )
    )
    swap = folder / "swap.yaml"
    swap.write_text(
        yaml.safe_dump(
            {
                "attributes": {
                    "row": {"role": "insensitive"},
                    "income": {"role": "quasi_identifier"},
                },
                "models": [],
            }
        )
    )
    return {"data": data, "generalize": generalize, "swap": swap, "folder": folder}


def _run(files, policy: str, out: str, *extra: str, verbose: bool = False):
    args = ["anonymize", files["data"], "-p", files[policy], "-o", files["folder"] / out]
    if policy == "swap":
        args += ["-a", "rank-swapping", "--param", "p=10", "--keep-order"]
    res = cli(*(["-v"] if verbose else []), *args, *extra)
    assert res.returncode == 0, res.stderr
    return res, (files["folder"] / out).read_text()


@pytest.mark.parametrize("policy", ["generalize", "swap"])
def test_two_runs_without_seed_differ_one_seed_reproduces_and_is_never_written(files, policy):
    """The shuffle (generalization) and the swaps (rank swapping, rows kept in order so that only
    the swapping's randomness shows) differ between runs without --seed, not with one; the seed
    appears in no report (JSON, HTML, the text on stdout), release or log line."""
    _, a = _run(files, policy, f"{policy}-a.csv")
    _, b = _run(files, policy, f"{policy}-b.csv")
    assert a != b
    as_json, as_html = files["folder"] / f"{policy}.json", files["folder"] / f"{policy}.html"
    c_run, c = _run(files, policy, f"{policy}-c.csv", "--seed", SEED, "--report", as_json)
    d_run, d = _run(
        files, policy, f"{policy}-d.csv", "--seed", SEED, "--report", as_html, verbose=True
    )
    assert c == d
    written = [c, d, as_json.read_text(), as_html.read_text()]
    written += [c_run.stdout, c_run.stderr, d_run.stdout, d_run.stderr]
    for text in written:
        assert SEED not in text
    parameters = json.loads(as_json.read_text())["parameters"]
    assert parameters["seed_given"] is True and "seed" not in parameters
    if policy == "swap":  # the swapped column is a permutation of the original
        original = pd.read_csv(files["data"])["income"].sort_values().tolist()
        swapped = pd.read_csv(files["folder"] / "swap-a.csv")["income"].sort_values().tolist()
        assert swapped == original


@pytest.mark.parametrize(("policy", "algorithm"), [("generalize", "mingen"), ("swap", "noise")])
def test_report_says_only_whether_a_seed_was_given(files, policy, algorithm):
    params = {"a": 0.1} if algorithm == "noise" else {}
    _, report = anonymize(files["data"], files[policy], algorithm, **params)
    assert report.parameters["seed_given"] is False and "seed" not in report.parameters
    _, report = anonymize(files["data"], files[policy], algorithm, seed=int(SEED), **params)
    assert report.parameters["seed_given"] is True and "seed" not in report.parameters
    for text in (
        report.to_json(),
        render_anonymization_text(report),
        render_anonymization_html(report),
    ):
        assert SEED not in text


def test_catalog_remediation_and_payloads_never_carry_the_seed(files):
    release, verdict = remediate(files["data"], files["generalize"], "mingen", seed=int(SEED))
    again, _ = remediate(files["data"], files["generalize"], "mingen", seed=int(SEED))
    other, _ = remediate(files["data"], files["generalize"], "mingen")
    assert release.equals(again) and not release.equals(other)
    payloads = [
        verdict.to_json(),
        json.dumps(to_datahub(verdict, "urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD)")),
        json.dumps(to_openmetadata(verdict, "svc.db.schema.t")),
        release.to_csv(index=False),
    ]
    for payload in payloads:
        assert SEED not in payload


def test_apply_shuffles_from_entropy(files):
    _, report = anonymize(files["data"], files["generalize"], "mingen")
    a, _ = apply(files["data"], report, files["generalize"])
    b, _ = apply(files["data"], report, files["generalize"])
    c, _ = apply(files["data"], report, files["generalize"], seed=int(SEED))
    d, _ = apply(files["data"], report, files["generalize"], seed=int(SEED))
    assert not a.equals(b) and c.equals(d)
