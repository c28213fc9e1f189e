"""One ranking everywhere (issue 33): ``privcheck compare`` recommends the release
``--algorithm auto`` writes, under each metric auto compares by, and counts classes and
suppressed records as ``privcheck check`` does.

Oracles: ``auto``'s own choice among the same candidates (run separately, each written as it
would be alone); ``check``'s JSON on the written files; and plain pandas over the files — the
all-``*`` rows are suppressed records under ``suppressed_records: star`` (unless every row is
``*``) and one more class under ``remove``, the records a release leaves out are suppressed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from privcheck.policy import load_policy
from privcheck.ranking import (
    COMMON_METRICS,
    best_index,
    comparison_metric,
    metric_reason,
    rank_key,
)

ADULT = Path(__file__).resolve().parents[2] / "privcheck" / "data" / "adult"
CANDIDATES = ("mingen", "mondrian", "local-suppression")


def adult_policy(tmp: Path, qis: list[str], k: int, metric: str | None, **extra) -> Path:
    spec: dict = {
        "attributes": {
            q: {
                "role": "quasi_identifier",
                "hierarchy": {"type": "table", "path": str(ADULT / "hierarchies" / f"{q}.csv")},
            }
            for q in qis
        },
        "models": [{"model": "k-anonymity", "k": k}],
        "suppression_limit": 0.05,
        **extra,
    }
    if metric is not None:
        spec["metric"] = metric
    path = tmp / f"policy-{metric}-{len(list(tmp.iterdir()))}.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def adult(rows: int, columns: list[str]) -> pd.DataFrame:
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    return frame.head(rows)[columns].reset_index(drop=True)


# ------------------------------------------------------------------------ the metric itself


def test_the_metric_is_the_policys_when_every_release_reports_it(tmp_path: Path) -> None:
    for metric in COMMON_METRICS:
        policy = load_policy(adult_policy(tmp_path, ["sex"], 2, metric))
        assert comparison_metric(policy) == metric
        assert metric_reason(policy) == f"{metric} (the policy's metric)"
    for metric in ("prec", "height"):  # full-domain only: loss, and the reason says why
        policy = load_policy(adult_policy(tmp_path, ["sex"], 2, metric))
        assert comparison_metric(policy) == "loss"
        assert metric_reason(policy).startswith(f"loss (the policy's metric {metric} describes")
    policy = load_policy(adult_policy(tmp_path, ["sex"], 2, None))
    assert comparison_metric(policy) == "loss"
    assert metric_reason(policy) == "loss (the policy sets no metric)"


def test_ties_go_to_fewer_suppressed_records_then_the_first_given() -> None:
    assert best_index([], []) is None
    assert best_index([2.0, 1.0, 1.0], [0, 3, 3]) == 1
    assert best_index([1.0, 1.0, 1.0], [2, 1, 1]) == 1
    assert rank_key(1.0, 2, 0) < rank_key(1.0, 3, 0) < rank_key(1.5, 0, 0)
    # the same loss computed two ways (auto's class tables, compare's cells) ties
    assert best_index([0.39666666666666667, 0.3966666666666666], [0, 0]) == 0
    assert best_index([0.3966666666666667, 0.39666666666666656], [1, 0]) == 1
    assert best_index([0.4, 0.4 - 1e-9], [0, 0]) == 1  # a real difference still counts


def test_auto_reexports_the_shared_metric() -> None:
    """auto ranks by the function compare uses (not a copy of it)."""
    from privcheck.anonymizers import auto

    assert auto.comparison_metric is comparison_metric
    assert auto.COMMON_METRICS is COMMON_METRICS


# --------------------------------------------------------------- compare recommends auto's


#: Adult extracts: (rows, quasi-identifiers, k, l-diversity on occupation). With l-diversity
#: local suppression cannot run, and MinGen and Mondrian trade places by metric on the first
#: (loss: Mondrian, discernibility and AECS: MinGen); local suppression wins the second.
TABLES = [
    (80, ["sex", "race", "salary-class"], 3, True),
    (80, ["sex", "race", "workclass"], 3, False),
    (150, ["age", "sex", "race"], 4, False),
]


@pytest.mark.parametrize("metric", COMMON_METRICS)
@pytest.mark.parametrize("table", TABLES, ids=["ldiv", "blanking", "ages"])
def test_compare_recommends_the_release_auto_writes(tmp_path: Path, metric, table) -> None:
    from privcheck.pipeline.anonymize import anonymize
    from privcheck.utility.compare import compare_releases

    rows, qis, k, ldiv = table
    extra: dict = {}
    if ldiv:
        extra = {
            "models": [
                {"model": "k-anonymity", "k": k},
                {"model": "l-diversity", "variant": "distinct", "l": 2, "attribute": "occupation"},
            ]
        }
    path = adult_policy(tmp_path, qis, k, metric, **extra)
    spec = yaml.safe_load(path.read_text())
    spec["attributes"]["occupation"] = {"role": "sensitive"}
    path.write_text(yaml.safe_dump(spec))
    policy = load_policy(path)
    data = adult(rows, [*qis, "occupation"])
    _, report = anonymize(data, policy, "auto", seed=1, keep_order=True)
    ran = {c["algorithm"]: c for c in report.candidates if c["metric_value"] is not None}
    releases = []
    for name in ran:
        release, _ = anonymize(data, policy, name, seed=1, keep_order=True)
        releases.append((name, release))
    result = compare_releases(data, releases, policy)
    assert result["compared_by"] == metric == report.metric
    assert result["recommended"] == report.chosen
    for entry in result["releases"]:  # the same figures, not only the same order
        assert entry[metric] == pytest.approx(ran[entry["release"]]["metric_value"], rel=1e-9)
        assert entry["n_suppressed"] == ran[entry["release"]]["n_suppressed"]


def test_the_metric_decides_on_a_table_where_it_matters(tmp_path: Path) -> None:
    """On the first table the recommendation changes with the metric (a compare that ranked by
    loss whatever the policy said recommended Mondrian under discernibility)."""
    from privcheck.pipeline.anonymize import anonymize

    rows, qis, k, _ = TABLES[0]
    chosen = {}
    for metric in COMMON_METRICS:
        path = adult_policy(
            tmp_path,
            qis,
            k,
            metric,
            models=[
                {"model": "k-anonymity", "k": k},
                {"model": "l-diversity", "variant": "distinct", "l": 2, "attribute": "occupation"},
            ],
        )
        spec = yaml.safe_load(path.read_text())
        spec["attributes"]["occupation"] = {"role": "sensitive"}
        path.write_text(yaml.safe_dump(spec))
        _, report = anonymize(adult(rows, [*qis, "occupation"]), load_policy(path), "auto", seed=1)
        chosen[metric] = report.chosen
    assert chosen["loss"] != chosen["discernibility"], chosen


# ----------------------------------------------- counts: compare = check = pandas, both modes


def pandas_counts(release: pd.DataFrame, qis: list[str], n_original: int, star_mode: bool):
    """(classes, suppressed records) of a written release, counted with pandas alone."""
    rel = release[qis].astype(str)
    star = (rel == "*").all(axis=1)
    if not star_mode or star.all():
        star = pd.Series(False, index=rel.index)
    classes = len(rel[~star].drop_duplicates())
    return classes, int(star.sum()) + n_original - len(release)


def tiny_policy(tmp: Path, mode: str) -> Path:
    path = tmp / f"tiny-{mode}.yaml"
    spec = {
        "attributes": {
            "q1": {"role": "quasi_identifier"},
            "q2": {"role": "quasi_identifier"},
            "s": {"role": "insensitive"},
        },
        "models": [{"model": "k-anonymity", "k": 2}],
        "suppression_limit": 0.5,
        "suppressed_records": mode,
    }
    path.write_text(yaml.safe_dump(spec))
    return path


@pytest.mark.parametrize("mode", ["star", "remove"])
@pytest.mark.parametrize("keep_order", [True, False], ids=["in-order", "shuffled"])
def test_local_suppression_counts_equal_checks(cli, tmp_path: Path, mode, keep_order) -> None:
    """Local suppression's releases of a 5-row table (its two unique rows blanked whole: the
    issue's "1 class / 40 % suppressed" where check says 2 classes / 0 under ``remove``) and of
    an Adult extract: compare's classes and suppressed records equal check's JSON, the
    anonymize report's, and a pandas count of the file."""
    tiny = tmp_path / "tiny.csv"
    pd.DataFrame([("a", "x")] * 3 + [("b", "y"), ("c", "z")], columns=["q1", "q2"]).assign(
        s="v"
    ).to_csv(tiny, index=False)
    extract = tmp_path / "adult.csv"
    qis = ["sex", "race", "workclass", "marital-status"]
    adult(120, qis).to_csv(extract, index=False)
    adult_path = adult_policy(tmp_path, qis, 3, None, suppressed_records=mode)
    for original, policy, names in (
        (tiny, tiny_policy(tmp_path, mode), ["q1", "q2"]),
        (extract, adult_path, qis),
    ):
        out, rep = tmp_path / f"ls-{original.stem}.csv", tmp_path / f"ls-{original.stem}.json"
        order = ["--keep-order"] if keep_order else []
        res = cli(
            "anonymize", original, "-p", policy, "-a", "local-suppression", "-o", out,
            "--report", rep, "--seed", "3", *order,
        )  # fmt: skip
        assert res.returncode == 0, res.stderr
        checked = json.loads(cli("check", out, "-p", policy, "-f", "json").stdout)
        res = cli("compare", original, out, "-p", policy, "-f", "json")
        assert res.returncode == 0, res.stderr
        entry = json.loads(res.stdout)["releases"][0]
        report = json.loads(rep.read_text())
        n = len(pd.read_csv(original, dtype=str))
        release = pd.read_csv(out, dtype=str, keep_default_na=False)
        classes, suppressed = pandas_counts(release, names, n, mode == "star")
        assert entry["classes"] == checked["n_classes"] == report["check"]["n_classes"] == classes
        assert entry["n_suppressed"] == checked["n_suppressed"] == report["n_suppressed"]
        assert entry["n_suppressed"] == suppressed
        assert entry["suppressed_records"] == pytest.approx(suppressed / n)
        if original == tiny:  # the all-'*' pair: a class under remove, suppressed under star
            assert (classes, suppressed) == ((2, 0) if mode == "remove" else (1, 2))


# -------------------------------------------------------------------- the "before" row


def test_the_original_is_the_before_row_of_the_risk(cli, tmp_path: Path) -> None:
    """JSON ``before``: the original's classes and prosecutor risk (pandas: 1 / class size per
    record); the text's risk table starts with it; the closing lines name the metric."""
    qis = ["sex", "race", "workclass"]
    original = tmp_path / "adult.csv"
    frame = adult(80, qis)
    frame.to_csv(original, index=False)
    policy = adult_policy(tmp_path, qis, 3, "aecs")
    release = tmp_path / "release.csv"
    assert cli("anonymize", original, "-p", policy, "-o", release).returncode == 0
    res = cli("compare", original, release, "-p", policy, "-f", "json")
    assert res.returncode == 0, res.stderr
    result = json.loads(res.stdout)
    sizes = frame.value_counts().to_numpy()
    per_record = np.repeat(1.0 / sizes, sizes)
    before = result["before"]
    assert before["release"] == str(original) and before["rows"] == 80
    assert before["classes"] == len(sizes) and before["passed"] is bool(sizes.min() >= 3)
    assert before["risk"] == pytest.approx(
        {
            "highest": per_record.max(),
            "average": per_record.mean(),
            "records_above": (per_record > 1 / 3).mean(),
        }
    )
    assert result["compared_by"] == "aecs"
    text = cli("compare", original, release, "-p", policy).stdout
    risk = text[text.index("risk (prosecutor") :].splitlines()
    assert risk[4].startswith("before (original)")
    assert f"{before['risk']['highest']:.4f}" in risk[4]
    assert "compared by aecs (the policy's metric)" in text
    assert "recommended: release.csv — least aecs" in text


@pytest.mark.parametrize("mode", ["star", "remove"])
def test_the_cli_recommends_the_file_auto_wrote(cli, tmp_path: Path, mode) -> None:
    """As a user runs them: ``anonymize -a auto --report`` and each candidate alone, written
    shuffled (under ``remove`` their suppressed records left out), then ``compare`` of the
    files: the recommended file is the chosen candidate's, under each metric."""
    rows, qis, k, _ = TABLES[0]
    data = tmp_path / "adult.csv"
    adult(rows, [*qis, "occupation"]).to_csv(data, index=False)
    for metric in COMMON_METRICS:
        path = adult_policy(
            tmp_path,
            qis,
            k,
            metric,
            suppressed_records=mode,
            models=[
                {"model": "k-anonymity", "k": k},
                {"model": "l-diversity", "variant": "distinct", "l": 2, "attribute": "occupation"},
            ],
        )
        spec = yaml.safe_load(path.read_text())
        spec["attributes"]["occupation"] = {"role": "sensitive"}
        path.write_text(yaml.safe_dump(spec))
        report = tmp_path / f"auto-{metric}.json"
        res = cli("anonymize", data, "-p", path, "-o", tmp_path / "auto.csv", "--report", report)
        assert res.returncode == 0, res.stderr
        chosen = json.loads(report.read_text())["chosen"]
        files = []
        for name in ("mingen", "mondrian"):  # (local suppression cannot enforce l-diversity)
            out = tmp_path / f"{name}-{metric}.csv"
            res = cli("anonymize", data, "-p", path, "-a", name, "-o", out, "--seed", "5")
            assert res.returncode == 0, res.stderr
            files.append(out)
        res = cli("compare", data, *files, "-p", path, "-f", "json")
        assert res.returncode == 0, res.stderr
        result = json.loads(res.stdout)
        assert result["compared_by"] == metric
        assert result["recommended"] == str(tmp_path / f"{chosen}-{metric}.csv"), (metric, chosen)
