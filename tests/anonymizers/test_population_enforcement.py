"""The generalization searches enforce the population and risk models exactly: their satisfying
sets and optima equal the node-by-node brute force (``anon_oracle``: every node counted from the
rows, suppression fixed point from the rows), for the models without the generalization property
(population uniqueness) or without it under suppression (δ-presence, record-risk with a share,
average risk) as well as the monotone ones. The CLI's anonymize re-checks its release."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from anon_helpers import adult_policy
from anon_oracle import all_verdicts, best_by_prec, minimal_brute

from privcheck.encoding import encode
from privcheck.pipeline.anonymize import anonymize
from privcheck.pipeline.check import check
from privcheck.policy import load_policy

QIS = ["age", "sex", "race"]

CASES = {
    "delta-presence": ([{"model": "delta-presence", "delta_min": 0.15, "delta_max": 0.25}], 0.01),
    "record-risk-share": ([{"model": "record-risk", "threshold": 0.1, "max_share": 0.01}], 0.005),
    "average-risk-marketer": (
        [
            {"model": "average-risk", "threshold": 0.004, "attacker": "marketer"},
            {"model": "k-anonymity", "k": 2},
        ],
        0.01,
    ),
    "average-risk-journalist": (
        [{"model": "average-risk", "threshold": 0.003, "attacker": "journalist"}],
        0.005,
    ),
    "kmap-size": ([{"model": "k-map", "k": 20, "estimator": "zero-truncated-poisson"}], 0.01),
    "uniqueness": (
        [{"model": "population-uniqueness", "threshold": 0.0002, "estimator": "pitman"}],
        0.002,
    ),
}


@pytest.fixture(scope="module")
def frame(adult_frame):
    return adult_frame.sample(6000, random_state=7).reset_index(drop=True)


@pytest.fixture(scope="module")
def population(frame, tmp_path_factory):
    rng = np.random.default_rng(3)
    counts = frame.groupby(QIS).size().rename("n").reset_index()
    counts["n"] = counts["n"] + rng.poisson(4.0 * counts["n"].to_numpy())
    path = tmp_path_factory.mktemp("pop") / "population.csv"
    counts.to_csv(path, index=False)
    return path, int(counts["n"].sum())


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("algorithm", ["incognito", "mingen"])
def test_search_matches_brute_force(frame, population, case, algorithm):
    models, limit = CASES[case]
    path, size = population
    pop = (
        {"size": size}
        if case in ("kmap-size", "uniqueness")
        else {"path": str(path), "count_column": "n"}
    )
    policy = load_policy(adult_policy(QIS, "salary-class", models, limit, population=pop))
    encoded = encode(frame, policy)
    n_limit = int(np.floor(limit * encoded.n_records + 1e-9))
    lat, sat, supp = all_verdicts(encoded, policy.models, n_limit, from_rows=True)
    assert sat.any() and not sat.all(), "the case should discriminate between nodes"
    release, report = anonymize(frame, policy, algorithm)
    assert report.satisfying_nodes == int(sat.sum())
    assert {tuple(m.values()) for m in report.minimal_nodes} == minimal_brute(lat, sat)
    assert report.metrics["prec"] == pytest.approx(
        best_by_prec(lat, sat, supp, encoded.n_records), abs=1e-12
    )
    assert report.check.passed
    assert check(release, policy).passed


def test_cli_anonymize_rechecks_and_protects_the_population(tmp_path, cli, frame, population):
    import json

    path, _ = population
    pd.read_csv(path).to_csv(tmp_path / "population.csv", index=False)
    frame.to_csv(tmp_path / "data.csv", index=False)
    models = [{"model": "k-map", "k": 10}, {"model": "average-risk", "threshold": 0.05}]
    policy = adult_policy(
        QIS,
        "salary-class",
        models,
        0.01,
        population={"path": "population.csv", "count_column": "n"},
    )
    (tmp_path / "policy.json").write_text(json.dumps(policy))
    r = cli(
        "anonymize",
        tmp_path / "data.csv",
        "--policy",
        tmp_path / "policy.json",
        "--algorithm",
        "incognito",
        "-o",
        tmp_path / "out.csv",
    )
    assert r.returncode == 0, r.stderr
    r = cli("check", tmp_path / "out.csv", "--policy", tmp_path / "policy.json")
    assert r.returncode == 0, r.stdout + r.stderr
    r = cli(
        "anonymize",
        tmp_path / "data.csv",
        "--policy",
        tmp_path / "policy.json",
        "--algorithm",
        "mingen",
        "-o",
        tmp_path / "population.csv",
    )
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
