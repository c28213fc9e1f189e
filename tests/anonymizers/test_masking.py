"""The masking anonymizer plugins: ``privcheck anonymize -a mdav|rank-swapping|…`` and the API.

Oracles: the published MDAV figure on the CASC Census file (IL = 100·SSE/SST = 5.69 at k = 3),
a brute-force count of the released combinations (k-anonymity), sorted columns (marginals kept
by a swap), and the transparency attack of the risk toolkit for the rank-swapping variants.
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
from anon_helpers import ROOT

from privcheck.anonymizers import anonymize
from privcheck.checker import check
from privcheck.errors import DataError, PolicyError
from privcheck.masking.rank_swapping import intruder_window
from privcheck.plugins import anonymizer_registry
from privcheck.risk.transparency.univariate import rank_swap_transparency
from privcheck.text_report import render_anonymization_text
from tests.conftest import run_cli

CENSUS_CSV = ROOT / "tests" / "data" / "casc" / "census.csv"
ENV = {"PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
METHODS = [
    "mdav",
    "mdav-partitioned",
    "optimal-univariate",
    "fuzzy-microaggregation",
    "rank-swapping",
    "rank-swapping-buckets",
    "rank-swapping-distribution",
    "noise",
]


@pytest.fixture(scope="module")
def census() -> pd.DataFrame:
    return pd.read_csv(CENSUS_CSV)


def qi_policy(columns, k: int | None = 3, **extra) -> dict:
    models = [{"model": "k-anonymity", "k": k}] if k is not None else []
    return {"attributes": {c: {"role": "quasi_identifier"} for c in columns}, "models": models}


def write_policy(tmp_path: Path, policy: dict) -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text(yaml.safe_dump(policy))
    return path


def cli(*args):
    return run_cli(*args, env=ENV)


def min_class(frame: pd.DataFrame) -> int:
    """Brute force: the smallest number of rows sharing one released combination."""
    counts: dict[tuple, int] = {}
    for row in frame.itertuples(index=False):
        counts[tuple(row)] = counts.get(tuple(row), 0) + 1
    return min(counts.values())


def test_every_method_is_a_registered_builtin():
    registry = anonymizer_registry()
    for name in METHODS:
        assert name in registry, name


# ---------------------------------------------------------------------- the golden CLI run
def test_cli_mdav_census_golden(tmp_path, census):
    """All 13 Census columns numeric QIs, k-anonymity k = 3 → MDAV's published IL 5.69."""
    policy = write_policy(tmp_path, qi_policy(census.columns, 3))
    out, rep = tmp_path / "release.csv", tmp_path / "report.json"
    res = cli("anonymize", CENSUS_CSV, "-p", policy, "-o", out, "-a", "mdav", "--report", rep)
    assert res.returncode == 0, res.stderr
    report = json.loads(rep.read_text())
    assert round(report["information_loss"]["sse_sst"], 2) == 5.69
    assert report["algorithm"] == "mdav"
    assert report["parameters"]["k"] == 3 and report["parameters"]["k_source"] == "policy"
    assert report["parameters"]["aggregate"] == "mean"
    assert report["parameters"]["seed_given"] is False and "seed" not in report["parameters"]
    assert report["check"]["passed"] and report["notes"] == []
    assert "sse_sst=5.692" in res.stdout and "k-anonymous with k=3" in res.stdout
    release = pd.read_csv(out)
    assert list(release.columns) == list(census.columns) and len(release) == len(census)
    assert min_class(release) >= 3  # brute-force k-anonymity of the written file


# ---------------------------------------------------------------------- rank swapping marginals
def test_cli_rank_swapping_keeps_every_marginal(tmp_path, census):
    policy = write_policy(tmp_path, qi_policy(census.columns, None))
    out = tmp_path / "release.csv"
    res = cli("anonymize", CENSUS_CSV, "-p", policy, "-o", out, "-a", "rank-swapping",
              "--param", "p=5", "--seed", "3")  # fmt: skip
    assert res.returncode == 0, res.stderr
    release = pd.read_csv(out)
    changed = 0
    for c in census.columns:
        assert release[c].dtype == census[c].dtype
        assert np.array_equal(np.sort(release[c].to_numpy()), np.sort(census[c].to_numpy())), c
        changed += int((release[c].to_numpy() != census[c].to_numpy()).sum())
    assert changed > 0.5 * census.size  # swapped and shuffled, not returned as it was


@pytest.mark.parametrize("variant", ["rank-swapping-buckets", "rank-swapping-distribution"])
def test_api_rank_swapping_variants_keep_marginals(census, variant):
    cols = ["AGI", "FEDTAX", "PTOTVAL"]
    release, report = anonymize(census[cols], qi_policy(cols, None), variant, p=10, seed=1,
                                keep_order=True)  # fmt: skip
    for c in cols:
        assert np.array_equal(np.sort(release[c].to_numpy()), np.sort(census[c].to_numpy()))
        assert (release[c].to_numpy() != census[c].to_numpy()).mean() > 0.5
    assert report.parameters["p"] == 10 and report.parameters["window_ranks"] == 108
    assert "proposal_law" in report.parameters and "marginal" in report.guarantee


def test_non_enforcing_method_reports_the_verdict_and_exits_1(tmp_path, census):
    """Rank swapping gives no k-anonymity: the release is written, the verdict reported, exit 1."""
    policy = write_policy(tmp_path, qi_policy(census.columns[:3], 3))
    out, rep = tmp_path / "release.csv", tmp_path / "report.json"
    res = cli("anonymize", CENSUS_CSV, "-p", policy, "-o", out, "-a", "rank-swapping",
              "--param", "p=2", "--report", rep)  # fmt: skip
    assert res.returncode == 1, res.stderr
    assert out.exists() and "does not enforce the policy's k-anonymity" in " ".join(
        res.stdout.split()
    )
    report = json.loads(rep.read_text())
    assert not report["check"]["passed"] and report["parameters"]["p"] == 2
    assert report["check"]["models"][0]["value"] == min_class(pd.read_csv(out)[census.columns[:3]])


# ---------------------------------------------------------------------- policy / param semantics
def test_identifiers_removed_other_columns_kept_rows_shuffled(census):
    data = census[["AGI", "FEDTAX", "INTVAL"]].head(200).copy()
    data.insert(0, "name", [f"p{i}" for i in range(200)])
    policy = qi_policy(["AGI", "FEDTAX"], 4)
    policy["attributes"]["name"] = {"role": "identifier"}
    policy["attributes"]["INTVAL"] = {"role": "insensitive"}
    shuffled, report = anonymize(data, policy, "mdav", seed=5)
    ordered, _ = anonymize(data, policy, "mdav", seed=5, keep_order=True)
    assert list(ordered.columns) == ["AGI", "FEDTAX", "INTVAL"]
    assert report.removed_columns == ["name"]
    assert np.array_equal(ordered["INTVAL"], data["INTVAL"])  # passes through unmasked
    assert not np.array_equal(shuffled["INTVAL"], data["INTVAL"])
    key = ["AGI", "FEDTAX", "INTVAL"]
    assert (
        shuffled.sort_values(key)
        .reset_index(drop=True)
        .equals(ordered.sort_values(key).reset_index(drop=True))
    )
    assert min_class(ordered[["AGI", "FEDTAX"]]) >= 4


def test_k_precedence(census):
    data = census[["AGI", "FEDTAX"]].head(100)
    _, rep = anonymize(data, qi_policy(data.columns, 4), "mdav", k=4)
    assert rep.parameters["k"] == 4
    with pytest.raises(PolicyError, match=r"--param k=5 disagrees with the policy.*k=4"):
        anonymize(data, qi_policy(data.columns, 4), "mdav", k=5)
    _, rep = anonymize(data, qi_policy(data.columns, None), "mdav", k=5)
    assert rep.parameters["k"] == 5 and rep.parameters["k_source"] == "param"
    with pytest.raises(PolicyError, match="mdav needs k"):
        anonymize(data, qi_policy(data.columns, None), "mdav")


def test_attribute_groups_and_median(tmp_path, census):
    cols = ["AGI", "FEDTAX", "PTOTVAL", "TAXINC"]
    data_path = tmp_path / "four.csv"
    census[cols].to_csv(data_path, index=False)
    policy = write_policy(tmp_path, qi_policy(cols, 3))
    out, rep = tmp_path / "release.csv", tmp_path / "report.json"
    groups = "groups=[[AGI,FEDTAX],[PTOTVAL,TAXINC]]"
    res = cli("anonymize", data_path, "-p", policy, "-o", out, "-a", "mdav", "--report", rep,
              "--param", groups, "--param", "aggregate=median")  # fmt: skip
    report = json.loads(rep.read_text())
    release = pd.read_csv(out)
    assert report["parameters"]["attribute_groups"] == [["AGI", "FEDTAX"], ["PTOTVAL", "TAXINC"]]
    assert report["parameters"]["aggregate"] == "median"
    assert "each attribute group separately" in report["guarantee"]
    assert min_class(release[["AGI", "FEDTAX"]]) >= 3
    assert min_class(release[["PTOTVAL", "TAXINC"]]) >= 3
    joint = min_class(release[cols])
    # the policy's k-anonymity over all four is reported as it stands, not enforced
    assert report["check"]["models"][0]["value"] == joint
    assert res.returncode == (0 if joint >= 3 else 1), res.stderr
    if joint < 3:
        assert "does not enforce, over all quasi-identifiers together" in report["notes"][0]


def test_every_method_runs_and_publishes_its_parameters(census):
    data = census[["AGI", "FEDTAX", "PTOTVAL"]].head(150)
    params = {
        "mdav-partitioned": {"block_size": 40},
        "fuzzy-microaggregation": {"m1": 1.5, "m2": 1.5},
        "rank-swapping": {"p": 5},
        "rank-swapping-buckets": {"p": 5},
        "rank-swapping-distribution": {"p": 5},
        "noise": {"a": 0.2, "kind": "correlated"},
    }
    for name in METHODS:
        release, report = anonymize(data, qi_policy(data.columns, 3), name, seed=2,
                                    **params.get(name, {}))  # fmt: skip
        assert report.algorithm == name and len(release) == len(data)
        assert set(report.information_loss) >= {"sse_sst", "il1s", "correlation_divergence"}
        for key, value in params.get(name, {}).items():
            assert report.parameters[key] == value, (name, key)
        assert report.parameters["columns"] == list(data.columns)
        text = render_anonymization_text(report)
        assert "information loss: sse_sst=" in text and "guarantee:" in text
        if name in ("mdav", "mdav-partitioned"):
            assert report.check.passed and min_class(release) >= 3
        if name == "optimal-univariate":
            assert all(min_class(release[[c]]) >= 3 for c in data.columns)


def test_same_seed_same_release_other_seed_other_release(census):
    data = census[["AGI", "FEDTAX"]].head(120)
    policy = qi_policy(data.columns, None)
    a, _ = anonymize(data, policy, "noise", a=0.1, seed=4)
    b, _ = anonymize(data, policy, "noise", a=0.1, seed=4)
    c, _ = anonymize(data, policy, "noise", a=0.1, seed=5)
    assert a.equals(b) and not a.equals(c)


@pytest.mark.parametrize(
    ("algorithm", "params", "error", "needle"),
    [
        ("mdav", {"k": 1}, PolicyError, "k must be between 2 and the number of records (60)"),
        ("mdav", {"k": 61}, PolicyError, "got k=61"),
        ("rank-swapping", {"p": 0}, PolicyError, "must be in (0, 100]; got p=0"),
        ("rank-swapping-buckets", {"p": 150}, PolicyError, "got p=150"),
        ("rank-swapping", {}, PolicyError, "needs p"),
        ("fuzzy-microaggregation", {"k": 3, "m1": 1}, PolicyError, "m1 must be"),
        ("noise", {"a": 0.1, "sigma": 1}, PolicyError, "noise has no parameter 'sigma'"),
        ("mdav", {"k": 3, "groups": [["AGI"]]}, PolicyError, "leaves the quasi-identifier"),
    ],
)
def test_parameter_errors(census, algorithm, params, error, needle):
    data = census[["AGI", "FEDTAX"]].head(60)
    with pytest.raises(error) as exc:
        anonymize(data, qi_policy(data.columns, None), algorithm, **params)
    assert needle in str(exc.value)


def test_non_numeric_attribute_is_named(census):
    data = census[["AGI", "FEDTAX"]].head(30).astype(str)  # as read from a file: text
    data["region"] = ["north", "south", "east"] * 10
    with pytest.raises(DataError, match=r"quasi-identifier 'region' is not numeric \(value 'n"):
        anonymize(data, qi_policy(data.columns, 3), "mdav")
    release, _ = anonymize(data.drop(columns="region"), qi_policy(["AGI", "FEDTAX"], 3), "mdav")
    assert min_class(release) >= 3  # numbers written as text are parsed


def test_cli_parameter_errors_exit_2_with_one_line(tmp_path, census):
    policy = write_policy(tmp_path, qi_policy(census.columns, 2000))
    res = cli("anonymize", CENSUS_CSV, "-p", policy, "-o", tmp_path / "o.csv", "-a", "mdav")
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "k must be between 2 and the number of records (1080)" in lines[0]
    assert not (tmp_path / "o.csv").exists()


# ---------------------------------------------------------------------- transparency attack
RANK_SWAPS = {
    "rank-swapping": "plain",
    "rank-swapping-buckets": "buckets",
    "rank-swapping-distribution": "distribution",
}


@pytest.fixture(scope="module")
def census_swaps(census) -> dict:
    """Census releases (13 attributes, release seed 7) per method and p; see
    docs/microaggregation.md. The report publishes p and the variant, as the intruder knows."""
    policy = qi_policy(census.columns, None)
    out = {}
    for alg in RANK_SWAPS:
        for p in (2, 5, 10):
            release, report = anonymize(census, policy, alg, p=p, seed=7, keep_order=True)
            assert report.parameters["variant"] == RANK_SWAPS[alg]
            out[alg, p] = (release, report.parameters["p"], report.parameters["variant"])
    return out


def transparency_figures(census: pd.DataFrame, swap: tuple, intruder: str) -> dict:
    """The attack by an intruder who knows n, p and the variant (published), not the seed:
    ``certain`` intersects windows that surely hold the true value; ``relaxed`` windows covering
    99.9 % of the variant's displacement law; ``naive`` keeps plain rank swapping's ±w."""
    release, p, variant = swap
    if intruder == "certain":
        return rank_swap_transparency(census, release, p=p, variant=variant).figures
    if intruder == "relaxed":
        # intruder_window is what coverage=0.999 uses: the same law, replayed on n ranks
        window = intruder_window(len(census), p, variant)
        res = rank_swap_transparency(census, release, p=p, variant=variant, coverage=0.999)
        assert res.figures["window"] == window
        return res.figures
    return rank_swap_transparency(census, release, p=p).figures


def test_transparency_attack_certain_intruder(census, census_swaps):
    """The transparency attack proper: plain's ±w surely holds the true value and isolates
    almost every record; the variants' law reaches every rank, so nothing short of the whole file
    is certain and every record keeps all 1080 candidates."""
    for p in (2, 5, 10):
        plain = transparency_figures(census, census_swaps["rank-swapping", p], "certain")
        assert plain["window"] == math.floor(p * len(census) / 100)
        assert plain["true_in_candidates_rate"] == 1.0 and plain["singleton_rate"] >= 0.95
        assert plain["mean_candidate_set_size"] < 1.05
        for alg in ("rank-swapping-buckets", "rank-swapping-distribution"):
            fig = transparency_figures(census, census_swaps[alg, p], "certain")
            assert fig["window"] == len(census) - 1 and fig["window_rule"] == "certain"
            assert fig["mean_candidate_set_size"] == len(census) == 1080
            assert fig["true_in_candidates_rate"] == 1.0 and fig["singleton_rate"] == 0.0


def test_transparency_attack_naive_intruder_misses_the_true_record(census, census_swaps):
    """The intruder who ignores the variant and keeps plain's ±w: the true record falls outside
    the intersection for most records (measured 0.1 %–8 %) — the advantage Nin, Herranz & Torra
    report for the variants."""
    for p in (2, 5, 10):
        for alg in ("rank-swapping-buckets", "rank-swapping-distribution"):
            fig = transparency_figures(census, census_swaps[alg, p], "naive")
            assert fig["window"] == math.floor(p * len(census) / 100)
            assert fig["true_in_candidates_rate"] < 0.2
            assert fig["empty_candidate_sets"] > 0.8 * len(census)  # the release contradicts ±w


def test_transparency_attack_buckets_and_distribution_against_plain(census, census_swaps):
    """An intruder who accepts missing the true value now and then searches the window holding
    99.9 % of the law's displacements (plain: w, always). p-buckets leaves far larger
    candidate sets than plain; p-distribution's Gaussian tail is short, so the window grows only
    about 2× and the Census file's 13 attributes still isolate most records at p = 2 and 5."""
    fig = {
        (alg, p): transparency_figures(census, census_swaps[alg, p], "relaxed")
        for alg in RANK_SWAPS
        for p in (2, 5, 10)
    }
    for p in (2, 5, 10):
        plain = fig["rank-swapping", p]
        buckets = fig["rank-swapping-buckets", p]
        dist = fig["rank-swapping-distribution", p]
        assert plain["true_in_candidates_rate"] == 1.0  # the ±w window never misses
        assert plain["singleton_rate"] >= 0.95  # and re-identifies almost everyone for sure
        for variant in (buckets, dist):
            assert variant["true_in_candidates_rate"] >= 0.97  # the intruder's window is honest
        assert buckets["mean_candidate_set_size"] > 2 * plain["mean_candidate_set_size"]
        assert buckets["singleton_rate"] < plain["singleton_rate"] - 0.5
    for p in (5, 10):  # far larger: tens to hundreds of candidates, no singleton left
        assert fig["rank-swapping-buckets", p]["mean_candidate_set_size"] > 50
        assert fig["rank-swapping-buckets", p]["singleton_rate"] < 0.01
    # p-distribution helps only at the larger p
    assert fig["rank-swapping-distribution", 10]["mean_candidate_set_size"] > 3
    assert fig["rank-swapping-distribution", 10]["singleton_rate"] < 0.5
    assert fig["rank-swapping-distribution", 5]["singleton_rate"] > 0.8


def test_methods_writing_new_values_refuse_table_hierarchies():
    """A release must re-check with its policy, and a check accepts only the values a table
    hierarchy lists: MDAV's means and noise would not be; a swap keeps the values and runs."""
    frame = pd.DataFrame({"age": [30, 31, 32, 33, 40, 41, 42, 43]})
    rows = [[str(a), "30-39" if a < 40 else "40-49", "*"] for a in range(30, 50)]
    policy = {
        "attributes": {
            "age": {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": rows}}
        },
        "models": [{"model": "k-anonymity", "k": 2}],
    }
    for name, params in (("mdav", {}), ("noise", {"a": 0.1}), ("optimal-univariate", {})):
        with pytest.raises(PolicyError, match="table hierarchy does not list"):
            anonymize(frame, policy, name, **params)
    release, _ = anonymize(frame, policy, "rank-swapping", p=30)
    assert sorted(release["age"]) == sorted(frame["age"])
    check(release, policy)  # no 'value not in its hierarchy': the swapped values are listed
