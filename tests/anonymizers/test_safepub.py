"""SafePub: the exponential mechanism, the private search, and the release it makes.

Oracles: the softmax the exponential mechanism must sample from (chi-square over many draws);
the search's candidate sets rebuilt from the lattice and the pivots drawn; and the release
rebuilt from the input with pandas alone (the sample reconstructed from the seed, generalized
through the hierarchy files, classes of whole released tuples counted, those below k dropped).
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from anon_helpers import ADULT, SALARY_QIS, adult_policy
from scipy.stats import chisquare

from privcheck.anonymizers import safepub as sp
from privcheck.errors import PolicyError
from privcheck.io import read_table
from privcheck.pipeline.anonymize import anonymize
from tests.conftest import run_cli

ENV = {"PYTHONPATH": str(ADULT.parents[2]) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def cli(*args):
    return run_cli(*args, env=ENV)


def write_policy(tmp_path: Path, policy: dict, name: str = "policy.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(policy))
    return path


def assert_one_line_error(result, *needles: str) -> None:
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    return read_table(ADULT / "adult.csv")


def dp_policy(eps: float = 1.0, delta: float = 1e-6, models: list | None = None, **extra) -> dict:
    dp = {"model": "differential-privacy", "epsilon": eps, "delta": delta}
    return adult_policy(SALARY_QIS, "salary-class", [dp, *(models or [])], metric="loss", **extra)


# ---------------------------------------------------------------------- exponential mechanism
def test_selection_frequencies_match_the_softmax() -> None:
    scores = np.array([0.0, 1.0, 2.5, 4.0, 4.2, -3.0])
    eps = 1.3
    expected = sp.selection_probabilities(scores, eps)
    manual = np.exp(eps * scores / 2) / np.exp(eps * scores / 2).sum()
    assert expected == pytest.approx(manual)
    rng = np.random.default_rng(2024)
    draws = 60_000
    counts = np.bincount(
        [sp.exponential_mechanism(scores, eps, rng) for _ in range(draws)], minlength=len(scores)
    )
    assert chisquare(counts, expected * draws).pvalue > 1e-3
    # the sensitivity scales ε: Δ = 2 at ε is the mechanism at ε/2
    half = sp.selection_probabilities(scores, eps / 2)
    counts = np.bincount(
        [sp.exponential_mechanism(scores, eps, rng, sensitivity=2.0) for _ in range(draws)],
        minlength=len(scores),
    )
    assert chisquare(counts, half * draws).pvalue > 1e-3


def test_exponential_mechanism_is_robust_to_extreme_scores() -> None:
    rng = np.random.default_rng(1)
    # exp(ε·s/2) overflows a double here; the Gumbel-max draw does not care
    big = np.array([-1e6, 2e6, 2e6 - 1e3])
    assert {sp.exponential_mechanism(big, 1.0, rng) for _ in range(200)} == {1}
    # and a tiny ε is (nearly) uniform
    flat = np.bincount(
        [sp.exponential_mechanism(np.array([0.0, 5.0]), 1e-9, rng) for _ in range(4000)]
    )
    assert abs(flat[0] - 2000) < 200
    with pytest.raises(ValueError):
        sp.exponential_mechanism(np.array([]), 1.0, rng)
    with pytest.raises(ValueError):
        sp.exponential_mechanism(np.array([0.0, np.nan]), 1.0, rng)


# ---------------------------------------------------------------------- the search
def test_search_follows_the_lattice_and_only_draws_look_at_the_data(adult, monkeypatch) -> None:
    """Every draw is among exactly the candidates SafePub's walk defines: the predecessors of
    all pivots so far that are not the current pivot (ARX's semantics), then the pivots."""
    seen: list[list[int]] = []
    budgets: list[float] = []
    real = sp.PrivateSearch.draw

    def spy(self, candidates, epsilon):
        seen.append(list(candidates))
        budgets.append(epsilon)
        return real(self, candidates, epsilon)

    monkeypatch.setattr(sp.PrivateSearch, "draw", spy)
    _, report = anonymize(adult, dp_policy(), "safepub", seed=5, steps=12)
    names = list(report.node)
    pivots = [tuple(p[q] for q in names) for p in report.path]
    heights = tuple(
        pd.read_csv(ADULT / "hierarchies" / f"{q}.csv", sep=";", header=None).shape[1] - 1
        for q in names
    )
    assert pivots[0] == heights  # the walk starts at the top
    cand: dict[tuple, None] = {pivots[0]: None}
    for step, pivot in enumerate(pivots[:-1]):
        for j in range(len(pivot)):
            if pivot[j] > 0:
                cand.setdefault((*pivot[:j], pivot[j] - 1, *pivot[j + 1 :]), None)
        cand.pop(pivot, None)
        assert set(seen[step]) == {_index(c, heights) for c in cand}
        assert pivots[step + 1] in cand
    # the last draw chooses among the (distinct) pivots, and the released node is one of them
    assert set(seen[-1]) == {_index(p, heights) for p in pivots}
    assert tuple(report.node.values()) in pivots
    assert len(seen) == 12 + 1
    # the budget: ε_search = 0.1 (a tenth of ε = 1), half for the steps, half for the choice
    assert budgets[:-1] == pytest.approx([0.05 / 12] * 12) and budgets[-1] == pytest.approx(0.05)
    assert sum(budgets) == pytest.approx(report.parameters["epsilon_search"])


def _index(node: tuple, heights: tuple) -> int:
    i = 0
    for v, h in zip(node, heights, strict=True):
        i = i * (h + 1) + v
    return i


# ---------------------------------------------------------------------- the release
def generalize(frame: pd.DataFrame, node: dict[str, int]) -> pd.DataFrame:
    out = frame.copy()
    for q, level in node.items():
        h = pd.read_csv(ADULT / "hierarchies" / f"{q}.csv", sep=";", header=None, dtype=str)
        out[q] = frame[q].astype(str).map(dict(zip(h[0], h[level], strict=True)))
    return out


@pytest.mark.parametrize("mode", ["remove", "star"])
def test_release_is_the_sample_generalized_with_small_classes_suppressed(adult, mode) -> None:
    seed = 11
    policy = dp_policy(eps=1.0, suppressed_records=mode)
    release, report = anonymize(adult, policy, "safepub", seed=seed, steps=10, keep_order=True)
    p = report.parameters
    k, beta, node = p["k"], p["beta"], p["node"]
    assert node == report.node
    # the sample, reconstructed from the seed (SafePub's first generator draws it)
    sampled = np.random.default_rng(seed).spawn(3)[0].random(len(adult)) < beta
    assert abs(sampled.mean() - beta) < 0.02
    cols = [*SALARY_QIS, "salary-class"]
    expected = generalize(adult.loc[sampled, cols].reset_index(drop=True), node)
    sizes = expected.groupby(cols, sort=False)[cols[0]].transform("size")
    kept = (sizes >= k).to_numpy()
    got = release[cols].astype(str)
    if mode == "remove":
        pd.testing.assert_frame_equal(
            got.reset_index(drop=True), expected[kept].reset_index(drop=True)
        )
    else:  # every sampled record, the suppressed ones as rows of '*' in every released column
        assert len(got) == sampled.sum()
        pd.testing.assert_frame_equal(
            got[kept].reset_index(drop=True), expected[kept].reset_index(drop=True)
        )
        assert (got[~kept] == "*").all().all()
    assert report.n_kept == kept.sum() and report.n_suppressed == len(adult) - kept.sum()
    # every released class (by quasi-identifiers, and by whole tuple) has at least k records
    assert release[~(release[SALARY_QIS] == "*").all(axis=1)].groupby(SALARY_QIS).size().min() >= k
    # the re-check: DP replaced by k-anonymity at the mechanism's k, which holds
    (model,) = report.check.models
    assert report.check.passed and model.model == "k-anonymity" and model.params == {"k": k}


def test_report_states_the_mechanism_and_never_the_seed(adult) -> None:
    _, report = anonymize(adult, dp_policy(eps=2.0), "safepub", seed=987654321, steps=5)
    p = report.parameters
    for key in ("epsilon", "delta", "beta", "k", "node", "epsilon_search", "steps"):
        assert key in p
    assert p["epsilon"] == 2.0 and p["delta"] == 1e-6
    assert p["epsilon_search"] == pytest.approx(0.2)
    assert p["epsilon_anonymization"] == pytest.approx(1.8)
    assert p["epsilon_per_step"] == pytest.approx(0.1 / 5)
    assert p["epsilon_final"] == pytest.approx(0.1)
    assert p["beta"] == pytest.approx(1 - math.exp(-1.8))
    assert p["k"] == p["k_derived"] == 117  # (ε_anon = 1.8, δ = 1e-6), see the model tests
    assert p["seed_given"] is True
    text = report.to_json()
    assert "987654321" not in text and '"seed"' not in text
    for name in ("prec", "loss", "discernibility", "aecs", "height", "score"):
        assert name in report.metrics
    assert report.guarantee and "differential privacy" in report.guarantee


def test_without_a_seed_two_runs_differ(adult) -> None:
    a, ra = anonymize(adult, dp_policy(), "safepub", steps=3)
    b, rb = anonymize(adult, dp_policy(), "safepub", steps=3)
    assert ra.parameters["seed_given"] is False
    assert ra.n_kept != rb.n_kept or not a.equals(b)


def test_a_larger_policy_k_raises_k(adult) -> None:
    _, report = anonymize(
        adult, dp_policy(models=[{"model": "k-anonymity", "k": 200}]), "safepub", seed=1, steps=3
    )
    assert report.parameters["k"] == 200 and report.parameters["k_derived"] == 73


def test_other_models_are_enforced_by_post_processing(adult) -> None:
    ldiv = {"model": "l-diversity", "variant": "distinct", "l": 2, "attribute": "salary-class"}
    release, report = anonymize(adult, dp_policy(models=[ldiv]), "safepub", seed=3, steps=10)
    assert report.check.passed
    by_model = {m.model: m for m in report.check.models}
    assert by_model["l-diversity"].value >= 2
    assert release.groupby(SALARY_QIS)["salary-class"].nunique().min() >= 2
    assert any("post-processing" in n for n in report.notes)


# ---------------------------------------------------------------------- refusals
def test_policy_needs_the_model_and_a_score(adult) -> None:
    with pytest.raises(PolicyError, match="add \\{model: differential-privacy"):
        anonymize(adult, adult_policy(SALARY_QIS, "salary-class", []), "safepub")
    with pytest.raises(PolicyError, match="does not depend on the data"):
        anonymize(adult, {**dp_policy(), "metric": "height"}, "safepub")
    with pytest.raises(PolicyError, match="steps"):
        anonymize(adult, dp_policy(), "safepub", steps=-1)
    with pytest.raises(PolicyError, match="search_fraction"):
        anonymize(adult, dp_policy(), "safepub", search_fraction=1.0)
    with pytest.raises(PolicyError, match="final_fraction"):
        anonymize(adult, dp_policy(), "safepub", final_fraction=0)
    with pytest.raises(PolicyError, match="no score"):
        anonymize(adult, dp_policy(), "safepub", score="height")
    with pytest.raises(PolicyError, match="only 50"):
        anonymize(adult.head(50), dp_policy(), "safepub")


@pytest.mark.parametrize("algorithm", ["incognito", "mingen", "datafly", "mdav"])
def test_other_anonymizers_refuse_the_model(adult, algorithm) -> None:
    with pytest.raises(PolicyError, match="use --algorithm safepub"):
        anonymize(adult.head(200), dp_policy(), algorithm)


def test_cli_check_and_anonymize(tmp_path: Path) -> None:
    policy = write_policy(tmp_path, dp_policy(eps=0.5))
    data = ADULT / "adult.csv"
    res = cli("check", data, "-p", policy)
    assert_one_line_error(res, "property of the mechanism", "cannot verify it", "safepub")
    res = cli("anonymize", data, "-p", policy, "-a", "incognito", "-o", tmp_path / "x.csv")
    assert_one_line_error(res, "incognito cannot enforce differential-privacy", "safepub")
    assert not (tmp_path / "x.csv").exists()
    for bad, needle in [({"epsilon": 0}, "epsilon"), ({"delta": 1.5}, "delta")]:
        entry = {"model": "differential-privacy", "epsilon": 1, "delta": 1e-6, **bad}
        bad_policy = write_policy(tmp_path, {**dp_policy(), "models": [entry]}, "bad.yaml")
        res = cli("anonymize", data, "-p", bad_policy, "-a", "safepub", "-o", tmp_path / "y.csv")
        assert_one_line_error(res, needle)
    out, rep = tmp_path / "release.csv", tmp_path / "report.json"
    res = cli(
        "anonymize", data, "-p", policy, "-a", "safepub", "-o", out, "--report", rep,
        "--param", "steps=5", "--seed", "4242",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    report = json.loads(rep.read_text())
    assert report["algorithm"] == "safepub"
    assert {"epsilon", "delta", "beta", "k", "node"} <= set(report["parameters"])
    assert "4242" not in rep.read_text()
    release = pd.read_csv(out, dtype=str)
    assert len(release) == report["n_kept"]
    assert release.groupby(SALARY_QIS).size().min() >= report["parameters"]["k"]
    # the release checks under the policy without the mechanism model
    rest = yaml.safe_load(policy.read_text())
    rest["models"] = [{"model": "k-anonymity", "k": report["parameters"]["k"]}]
    assert cli("check", out, "-p", write_policy(tmp_path, rest, "rest.yaml")).returncode == 0


def test_apply_refuses_to_reapply_a_private_release(adult) -> None:
    from privcheck.pipeline.apply import apply

    _, report = anonymize(adult, dp_policy(), "safepub", seed=2, steps=3)
    with pytest.raises(PolicyError, match="cannot be re-applied"):
        apply(adult.head(500), report, adult_policy(SALARY_QIS, "salary-class", []))
    with pytest.raises(PolicyError, match="property of the mechanism"):
        apply(adult.head(500), {"node": report.node}, dp_policy())
