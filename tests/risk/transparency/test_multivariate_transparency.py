"""Transparency attacks on multivariate microaggregation (MDAV).

Oracles: a hand-worked example of two attribute groups whose clusters intersect in singletons;
the prosecutor risk of the release's classes (#classes / n, computed by the uniqueness measure,
independently of the attack), which the replay must reach exactly; the same replay run from the
anonymizer's clusters and from a real second MDAV run; and, for the intruder who only holds its
own values, a brute-force nearest-centroid computation and DBRL's nearest sets, which the
candidate sets must equal whenever they intersect (see the module docstring).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from privcheck.errors import DataError, PolicyError
from privcheck.masking import mdav
from privcheck.risk import dbrl, uniqueness_risk
from privcheck.risk.population.uniqueness import class_sizes_of
from privcheck.risk.transparency.multivariate import (
    microaggregation_replay,
    multivariate_microaggregation_transparency,
)
from tests.conftest import DATA

CASC = DATA / "casc"


@pytest.fixture(scope="module")
def census() -> pd.DataFrame:
    return pd.read_csv(CASC / "census.csv")


@pytest.fixture(scope="module")
def tarragona() -> pd.DataFrame:
    return pd.read_csv(CASC / "tarragona.csv")


def class_ceiling(masked: pd.DataFrame) -> float:
    """#released classes / n, by the uniqueness measure (the prosecutor's average risk)."""
    sizes, _ = class_sizes_of(masked.astype(str))
    return uniqueness_risk(sizes).prosecutor_average_risk


def test_worked_example_two_groups_intersect_in_singletons():
    # six records; attributes a, b microaggregated separately with k = 3:
    # on a the clusters are {0,1,2} {3,4,5}, on b {0,3,4} {1,2,5}
    original = pd.DataFrame({"a": [1, 2, 3, 10, 11, 12], "b": [1, 20, 21, 2, 3, 22]}, dtype=float)
    a_lab = np.array([0, 0, 0, 1, 1, 1])
    b_lab = np.array([0, 1, 1, 0, 0, 1])
    masked = original.copy()
    masked["a"] = np.array([2.0, 11.0])[a_lab]
    masked["b"] = np.array([2.0, 21.0])[b_lab]
    res = microaggregation_replay(
        original, masked, 3, groups=[["a"], ["b"]], labels=[a_lab, b_lab], random_state=0
    )
    # 0: {0,1,2}∩{0,3,4} = {0}; 1, 2: {1,2}; 3, 4: {3,4}; 5: {5}
    assert res.candidate_set_size.tolist() == [1, 2, 2, 2, 2, 1]
    assert res.true_in_set.all()
    assert res.anonymity_set_rate == pytest.approx((1 + 0.5 * 4 + 1) / 6)
    assert res.certain_rate == pytest.approx(2 / 6)
    assert res.linked_index[0] == 0 and res.linked_index[5] == 5
    assert res.figures["empty_candidate_sets"] == 0
    # the same example, replayed by MDAV itself (the clusters above are MDAV's on each column)
    replayed = microaggregation_replay(original, masked, 3, groups=[["a"], ["b"]])
    assert replayed.candidate_set_size.tolist() == [1, 2, 2, 2, 2, 1]


@pytest.mark.parametrize("name", ["census", "tarragona"])
@pytest.mark.parametrize("k", [3, 5])
@pytest.mark.parametrize("n_groups", [1, 2, 4])
def test_replay_reaches_the_class_ceiling(request, name, k, n_groups):
    data = request.getfixturevalue(name)
    cols = list(data.columns)
    groups = None if n_groups == 1 else [list(g) for g in np.array_split(cols, n_groups)]
    made = mdav(data, k, attribute_groups=groups)
    res = microaggregation_replay(data, made.masked, k, groups=groups)
    assert res.figures["true_in_candidates_rate"] == 1.0
    assert res.figures["empty_candidate_sets"] == 0
    assert res.anonymity_set_rate == pytest.approx(class_ceiling(made.masked), abs=1e-12)
    # from the method's own clusters (what privcheck anonymize uses): the same sets
    again = microaggregation_replay(data, made.masked, k, groups=groups, labels=made.groups)
    assert np.array_equal(again.candidate_set_size, res.candidate_set_size)
    if n_groups == 1:
        assert res.certain_rate == 0.0  # k-anonymous: never a certain link
    else:
        assert res.certain_rate > 0.3  # independently microaggregated groups intersect


def test_replay_survives_a_text_round_trip_and_a_shuffle(census, tmp_path):
    made = mdav(census, 3)
    order = np.random.default_rng(1).permutation(len(census))
    path = tmp_path / "release.csv"
    made.masked.iloc[order].to_csv(path, index=False)
    release = pd.read_csv(path)
    true_index = np.argsort(order)  # original record i sits at row true_index[i]
    res = microaggregation_replay(census, release, 3, true_index=true_index)
    assert res.figures["true_in_candidates_rate"] == 1.0
    assert res.anonymity_set_rate == pytest.approx(1 / 3)


def test_replay_with_the_wrong_parameters_finds_nothing(census):
    made = mdav(census, 5)
    with pytest.raises(DataError, match="fewer than k=6"):
        microaggregation_replay(census, made.masked, 6)
    res = microaggregation_replay(census, made.masked, 4)  # k = 4 clusters differ from k = 5's
    assert res.figures["empty_candidate_sets"] > 0.5 * len(census)
    cols = list(census.columns)
    with pytest.raises(PolicyError, match="leaves the attacked attribute"):
        microaggregation_replay(census, made.masked, 5, groups=[cols[:3]])
    with pytest.raises(PolicyError, match="mdav-partitioned"):
        microaggregation_replay(census, made.masked, 5, method="optimal")


def test_rows_score_a_subset_of_the_whole_file_intruder(census):
    made = mdav(census, 3, attribute_groups=[list(census.columns[:6]), list(census.columns[6:])])
    groups = made.params["attribute_groups"]
    full = microaggregation_replay(census, made.masked, 3, groups=groups)
    rows = np.arange(0, len(census), 7)
    part = microaggregation_replay(census, made.masked, 3, groups=groups, rows=rows)
    assert np.array_equal(part.candidate_set_size, full.candidate_set_size[rows])
    assert part.n_intruder_records == len(rows)


def brute_nearest_sets(za, zb, blocks):
    """Per record, the masked records carrying a nearest centroid on every block (loops)."""
    out = []
    for i in range(len(za)):
        cand = set(range(len(zb)))
        for cols in blocks:
            keys = {tuple(zb[r, cols]) for r in range(len(zb))}
            d = {c: float(np.sum((za[i, cols] - np.array(c)) ** 2)) for c in keys}
            best = min(d.values())
            near = {c for c, v in d.items() if v <= best + 1e-9}
            cand &= {r for r in range(len(zb)) if tuple(zb[r, cols]) in near}
        out.append(len(cand))
    return np.array(out)


def test_own_values_candidate_sets_match_brute_force_and_dbrl(census):
    data = census.iloc[:90].reset_index(drop=True)
    cols = list(data.columns)
    groups = [cols[:4], cols[4:9], cols[9:]]
    made = mdav(data, 3, attribute_groups=groups)
    res = multivariate_microaggregation_transparency(data, made.masked, 3, groups=groups)
    b = made.masked[cols].to_numpy(float)
    mean, sd = b.mean(axis=0), b.std(axis=0, ddof=1)
    za = (data[cols].to_numpy(float) - mean) / sd
    zb = (b - mean) / sd
    blocks = [[cols.index(c) for c in g] for g in groups]
    assert np.array_equal(res.candidate_set_size, brute_nearest_sets(za, zb, blocks))
    # whenever the nearest clusters intersect, the intersection is DBRL's nearest set
    plain = dbrl(data, made.masked, standardisation="masked")
    hit = res.candidate_set_size > 0
    assert hit.any()
    assert np.array_equal(res.anonymity_set_size[hit], plain.anonymity_set_size[hit])
    assert res.anonymity_set_rate == pytest.approx(plain.anonymity_set_rate)
    # the nearest cluster is not always the true one: MDAV's clusters are not Voronoi cells
    assert 0.3 < res.figures["true_in_candidates_rate"] < 1.0


def test_own_values_checks_k_against_the_release(census):
    made = mdav(census, 3)
    with pytest.raises(DataError, match="fewer than k=4"):
        multivariate_microaggregation_transparency(census, made.masked, 4)
    with pytest.raises(PolicyError, match="positive integer"):
        multivariate_microaggregation_transparency(census, made.masked, 0)


# ----------------------------------------------------------------------- privcheck risk
def write(tmp_path: Path, census: pd.DataFrame, groups=None, k: int = 3) -> tuple[Path, Path]:
    made = mdav(census, k, attribute_groups=groups)
    release = tmp_path / "release.csv"
    made.masked.to_csv(release, index=False)
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        yaml.safe_dump({"attributes": {c: {"role": "quasi_identifier"} for c in census.columns}})
    )
    return release, policy


def test_cli_replay_and_own_values(cli, census, tmp_path):
    cols = list(census.columns)
    groups = [cols[:7], cols[7:]]
    release, policy = write(tmp_path, census, groups)
    base = [
        "risk",
        "--original",
        CASC / "census.csv",
        "--masked",
        release,
        "-p",
        policy,
        "--attack",
        "microaggregation-multivariate-transparency",
        "--param",
        "k=3",
        "--param",
        f"groups=[[{','.join(cols[:7])}],[{','.join(cols[7:])}]]",
        "--format",
        "json",
    ]
    import json

    res = cli(*base)
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    masked = pd.read_csv(release)
    ceiling = class_ceiling(masked)
    assert report["figures"]["anonymity_set_rate"] == pytest.approx(ceiling, abs=1e-12)
    assert report["record_risk_summary"]["mean"] == pytest.approx(ceiling, abs=1e-12)
    own = cli(*base, "--param", "knowledge=own")
    assert own.returncode == 0, own.stderr
    own_report = json.loads(own.stdout)
    assert own_report["figures"]["anonymity_set_rate"] < ceiling
    assert own_report["detail"]["params"]["knowledge"] == "own values"


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--param", "knowledge=psychic"], "knowledge must be 'own'"),
        (["--param", "block_size=10", "--param", "knowledge=own"], "no parameter 'block_size'"),
        (["--intruder-records", "50", "--param", "k=3"], "whole original file"),
        ([], "needs the published k"),
        (["--param", "k=4"], "fewer than k=4"),
    ],
)
def test_cli_errors_are_one_line(cli, census, tmp_path, extra, needle):
    from tests.test_cli import assert_one_line_error

    release, policy = write(tmp_path, census)
    res = cli(
        "risk",
        "--original",
        CASC / "census.csv",
        "--masked",
        release,
        "-p",
        policy,
        "--attack",
        "microaggregation-multivariate-transparency",
        *extra,
    )
    assert_one_line_error(res, needle)
