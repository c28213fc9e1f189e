"""Risk before and after in the anonymization report, against an independent pandas oracle.

The oracle reads the files a user has — the input file and the written release — with pandas
only: the release's rows with every quasi-identifier ``*`` are suppressed records (under
``suppressed_records: star``) and left out; each remaining row's class size is a ``groupby`` of
its quasi-identifier values (under ``suppressed_cells: wildcard`` the number of rows compatible
with it, ``*`` matching anything, by brute force over the distinct rows); its risk is 1 / that.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
import yaml
from anon_helpers import ADULT, SALARY_QIS, SEX_ROWS, adult_policy, random_table

from privcheck.io import write_table
from privcheck.pipeline.anonymize import anonymize
from privcheck.plugins import anonymizer_registry
from tests.conftest import run_cli


def class_sizes(frame: pd.DataFrame, qis: list[str], wildcard: bool) -> np.ndarray:
    """Each row's class size as a check reads it (per row, in row order)."""
    values = frame[qis].astype(str)
    if not wildcard:
        return values.assign(_n=1).groupby(qis, dropna=False)["_n"].transform("size").to_numpy()
    distinct = values.value_counts(dropna=False).reset_index()
    combos = distinct[qis].to_numpy(dtype=object)
    counts = distinct["count"].to_numpy()
    compatible = np.ones((len(combos), len(combos)), dtype=bool)
    for j in range(len(qis)):
        a = combos[:, j]
        star = a == "*"
        compatible &= (a[:, None] == a[None, :]) | star[:, None] | star[None, :]
    effective = compatible.astype(np.int64) @ counts
    lookup = dict(zip(map(tuple, combos), effective, strict=True))
    return np.array([lookup[tuple(r)] for r in values.itertuples(index=False)])


def oracle(frame: pd.DataFrame, qis: list[str], k: int | None, *, star=False, wildcard=False):
    if star:
        starred = (frame[qis].astype(str) == "*").all(axis=1)
        if not starred.all():
            frame = frame[~starred]
    risk = 1.0 / class_sizes(frame, qis, wildcard)
    bound = 1.0 / k if k else 0.2
    return {
        "highest": float(risk.max()),
        "average": float(risk.mean()),
        "records_above": float((risk > bound).mean()),
    }


def read_release(path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def assert_risk(reported, expected) -> None:
    got = reported if isinstance(reported, dict) else reported.model_dump()
    assert set(got) == {"highest", "average", "records_above"}
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)


# ---------------------------------------------------------------------- small tables


def small_table(seed: int, n: int = 80) -> tuple[pd.DataFrame, dict]:
    """Few distinct values, skewed: the searches suppress records and local suppression blanks
    cells, some records entirely."""
    rng = np.random.default_rng(seed)
    zips = rng.choice([2138, 2139, 2141, 2142, 2150, 2151], n, p=[0.3, 0.3, 0.2, 0.1, 0.05, 0.05])
    frame = pd.DataFrame(
        {
            "id": [f"p{i}" for i in range(n)],
            "age": rng.choice(np.arange(20, 36), n),
            "zip": [f"{z:05d}" for z in zips],
            "sex": rng.choice(["F", "M"], n, p=[0.7, 0.3]),
            "disease": rng.choice(["flu", "cold", "hiv", "cancer"], n),
        }
    )
    policy = {
        "attributes": {
            "id": {"role": "identifier"},
            "age": {
                "role": "quasi_identifier",
                "hierarchy": {"type": "intervals", "widths": [5, 10]},
            },
            "zip": {"role": "quasi_identifier", "hierarchy": {"type": "masking", "levels": 3}},
            "sex": {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": SEX_ROWS}},
            "disease": {"role": "sensitive"},
        },
    }
    return frame, policy


SMALL_CASES = [
    ("mingen", {"suppressed_records": "remove"}),
    ("mingen", {"suppressed_records": "star"}),
    ("incognito", {"suppressed_records": "star"}),
    ("datafly", {"suppressed_records": "remove"}),
    ("mondrian", {}),
    ("local-suppression", {"suppressed_records": "star", "suppressed_cells": "category"}),
    ("local-suppression", {"suppressed_records": "remove", "suppressed_cells": "wildcard"}),
    ("local-suppression", {"suppressed_records": "star", "suppressed_cells": "wildcard"}),
]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(("algorithm", "extra"), SMALL_CASES)
def test_small_tables_match_the_pandas_oracle(tmp_path, seed, algorithm, extra):
    frame, policy = small_table(seed)
    k = 3
    policy = {
        **policy,
        "models": [{"model": "k-anonymity", "k": 2}, {"model": "k-anonymity", "k": k}],
        "suppression_limit": 0.15,
        **extra,
    }
    source = tmp_path / "input.csv"
    frame.to_csv(source, index=False)
    release, report = anonymize(source, policy, algorithm, seed=seed)
    written = write_table(release, tmp_path / "release.csv")
    qis = ["age", "zip", "sex"]
    star = extra.get("suppressed_records") == "star"
    wildcard = extra.get("suppressed_cells") == "wildcard"
    assert_risk(report.risk_before, oracle(pd.read_csv(source), qis, k))
    assert_risk(
        report.risk_after, oracle(read_release(written), qis, k, star=star, wildcard=wildcard)
    )
    assert report.chosen == algorithm
    if algorithm != "mondrian":  # (the cases suppress: what is left out must not count)
        assert report.n_suppressed > 0 or report.suppressed_cells["total"] > 0
    # the plot data adds up to the records each side counts
    profile = report.risk_profile
    kept = len(read_release(written)) - (report.n_suppressed if star else 0)
    assert sum(profile.records_before) == len(frame) and sum(profile.records_after) == kept
    assert sum(profile.class_sizes_after.records) == kept and profile.threshold == 1 / k


def test_without_a_k_anonymity_model_the_threshold_is_0_2(tmp_path):
    frame, policy = random_table(4, n=80)
    policy = {
        **policy,
        "models": [{"model": "l-diversity", "attribute": "disease", "l": 2}],
        "suppression_limit": 0.1,
    }
    release, report = anonymize(frame, policy, "mingen", seed=1)
    written = write_table(release, tmp_path / "release.csv")
    qis = ["age", "zip", "sex"]
    assert_risk(report.risk_before, oracle(frame, qis, None))
    assert_risk(report.risk_after, oracle(read_release(written), qis, None))
    assert report.risk_profile.threshold == 0.2 and report.risk_profile.k is None


def test_every_table_anonymizer_fills_the_risk(tmp_path):
    """Generalizations, partitions, cell suppression, SafePub and every masking method."""
    census = pd.read_csv(ADULT.parents[2] / "tests" / "data" / "casc" / "census.csv")
    numbers = census[["AGI", "FEDTAX", "PTOTVAL"]].head(150)
    masked_policy = {
        "attributes": {c: {"role": "quasi_identifier"} for c in numbers.columns},
        "models": [{"model": "k-anonymity", "k": 3}],
    }
    frame, policy = random_table(7, n=120)
    policy = {**policy, "models": [{"model": "k-anonymity", "k": 3}], "suppression_limit": 0.1}
    adult = pd.read_csv(ADULT / "adult.csv", sep=";")
    dp = adult_policy(
        SALARY_QIS,
        "salary-class",
        [{"model": "differential-privacy", "epsilon": 2, "delta": 1e-5}],
        metric="loss",
    )
    params = {"rank-swapping": {"p": 5}, "rank-swapping-buckets": {"p": 5}}
    params |= {"rank-swapping-distribution": {"p": 5}, "noise": {"a": 0.2}}
    for name, cls in anonymizer_registry().items():
        module = cls.__module__
        if module.endswith("masking"):
            data, pol, qis = numbers, masked_policy, list(numbers.columns)
        elif name == "safepub":
            data, pol, qis = adult, dp, SALARY_QIS
        else:
            data, pol, qis = frame, policy, ["age", "zip", "sex"]
        release, report = anonymize(data, pol, name, seed=3, **params.get(name, {}))
        path = write_table(release, tmp_path / f"{name}.csv")
        k = 3 if pol is not dp else None
        star = pol.get("suppressed_records") == "star"
        assert_risk(report.risk_before, oracle(data, qis, k))
        assert_risk(report.risk_after, oracle(read_release(path), qis, k, star=star))
        assert report.risk_profile is not None, name
        assert report.chosen == name or (name == "auto" and report.chosen != "auto"), name


# ---------------------------------------------------------------------- Adult, from the CLI


def adult_cli(tmp_path, algorithm: str, policy: dict | None = None) -> tuple[dict, object]:
    if policy is None:
        policy_path = ADULT / "policy.yaml"
    else:
        policy_path = tmp_path / "policy.yaml"
        policy_path.write_text(yaml.safe_dump(policy), encoding="utf-8")
    out, rep = tmp_path / f"{algorithm}.csv", tmp_path / f"{algorithm}.json"
    res = run_cli(
        "anonymize", ADULT / "adult.csv", "-p", policy_path, "-o", out, "--report", rep,
        "-a", algorithm, "--seed", "5",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    return json.loads(rep.read_text(encoding="utf-8")), out


@pytest.fixture(scope="module")
def adult_input() -> pd.DataFrame:
    return pd.read_csv(ADULT / "adult.csv", sep=";")


@pytest.mark.parametrize("algorithm", ["mingen", "mondrian"])
def test_adult_releases_match_the_pandas_oracle(tmp_path, adult_input, algorithm):
    report, release = adult_cli(tmp_path, algorithm)
    assert report["chosen"] == algorithm and report["candidates"] is None
    assert_risk(report["risk_before"], oracle(adult_input, SALARY_QIS, 5))
    assert_risk(report["risk_after"], oracle(read_release(release), SALARY_QIS, 5))
    # the anonymization did something: every record was above 1/k or not, now none is
    assert report["risk_before"]["records_above"] > 0.5
    assert report["risk_after"]["records_above"] == 0 and report["risk_after"]["highest"] <= 0.2


@pytest.mark.parametrize("cells", ["category", "wildcard"])
def test_adult_local_suppression_matches_the_pandas_oracle(tmp_path, adult_input, cells):
    qis = ["age", "sex", "race", "marital-status", "education"]
    policy = adult_policy(
        qis,
        "salary-class",
        [{"model": "k-anonymity", "k": 5}],
        limit=0.05,
        suppressed_records="star",
        suppressed_cells=cells,
    )
    report, release = adult_cli(tmp_path, "local-suppression", policy)
    written = read_release(release)
    assert report["suppressed_cells"]["total"] > 0  # cells were blanked: '*' is read per cells
    assert_risk(report["risk_before"], oracle(adult_input, qis, 5))
    after = oracle(written, qis, 5, star=True, wildcard=cells == "wildcard")
    assert_risk(report["risk_after"], after)


def test_before_reads_a_top_coded_attribute_by_its_raw_values(tmp_path):
    """Top coding runs inside the anonymizer's encoding; the input's risk is that of the raw
    data as ``check`` reads it, not of the coded column."""
    frame, policy = small_table(5)
    policy["attributes"]["age"]["top_coding"] = {"threshold": 30}
    policy = {**policy, "models": [{"model": "k-anonymity", "k": 3}], "suppression_limit": 0.15}
    release, report = anonymize(frame, policy, "mingen", seed=1)
    qis = ["age", "zip", "sex"]
    raw = oracle(frame, qis, 3)
    coded = oracle(frame.assign(age=frame["age"].clip(upper=30)), qis, 3)
    assert raw != coded  # the coding merges classes: the two readings differ
    assert_risk(report.risk_before, raw)
    written = write_table(release, tmp_path / "release.csv")
    assert_risk(report.risk_after, oracle(read_release(written), qis, 3))
