"""Re-applying a transformation: on the batch it was chosen on it reproduces the anonymizer's
release; on a batch where the node fails, nothing is released and the report's violators match
a plain pandas group-by of the batch generalized through ARX's hierarchy tables (the oracle)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from privcheck.anonymizers import anonymize, apply
from privcheck.anonymizers.transformation import load_transformation, transformation_json
from privcheck.errors import PolicyError

ADULT = Path(__file__).resolve().parents[2] / "privcheck" / "data" / "adult"
POLICY = ADULT / "policy.yaml"


def generalized(frame: pd.DataFrame, node: dict[str, int]) -> pd.DataFrame:
    out = frame.copy()
    for column, level in node.items():
        table = pd.read_csv(
            ADULT / "hierarchies" / f"{column}.csv", sep=";", header=None, dtype=str
        )
        out[column] = out[column].map(dict(zip(table[0], table[level], strict=True)))
    return out


@pytest.fixture(scope="module")
def chosen(adult_frame):
    return anonymize(adult_frame.iloc[:15000], POLICY, "incognito", keep_order=True)


def test_same_batch_reproduces_the_release(adult_frame, chosen):
    release, report = chosen
    again, check = apply(adult_frame.iloc[:15000], report, POLICY, keep_order=True)
    assert check.passed
    pd.testing.assert_frame_equal(again, release)


def test_transformation_json_round_trip(adult_frame, chosen, tmp_path):
    _, report = chosen
    path = tmp_path / "t.json"
    path.write_text(transformation_json(report))
    t = json.loads(path.read_text())
    assert t["node"] == report.node and t["suppressed_records"] == "remove"
    assert t["suppression_limit"] == 0.01
    assert load_transformation(path) == load_transformation(report)
    other = adult_frame.iloc[15000:].reset_index(drop=True)
    a, _ = apply(other, path, POLICY, keep_order=True)
    b, _ = apply(other, report, POLICY, keep_order=True)
    pd.testing.assert_frame_equal(a, b)


def test_failing_batch_releases_nothing_and_names_the_violators(adult_frame, chosen):
    _, report = chosen
    batch = adult_frame.iloc[15000:15400].reset_index(drop=True)
    release, check = apply(batch, report, POLICY)
    assert release is None and not check.passed
    sizes = generalized(batch, report.node).groupby(list(report.node)).size()
    k = check.models[0]
    assert k.model == "k-anonymity"
    assert k.violating_classes == int((sizes < 5).sum())
    assert k.violating_records == int(sizes[sizes < 5].sum())


def test_wrong_transformation_is_refused(adult_frame, chosen):
    _, report = chosen
    with pytest.raises(PolicyError, match="quasi-identifiers"):
        apply(adult_frame.iloc[:100], {"node": {"age": 1}}, POLICY)
    bad = dict(report.node, age=99)
    with pytest.raises(PolicyError, match="levels 0"):
        apply(adult_frame.iloc[:100], {"node": bad}, POLICY)


def test_cli_apply_exit_codes(adult_frame, chosen, tmp_path, cli):
    _, report = chosen
    rep = tmp_path / "report.json"
    rep.write_text(report.to_json())
    adult_frame.iloc[15000:].to_parquet(tmp_path / "next.parquet", index=False)
    adult_frame.iloc[15000:15400].to_parquet(tmp_path / "small.parquet", index=False)
    ok = cli("apply", tmp_path / "next.parquet", "-t", rep, "-p", POLICY, "-o", tmp_path / "r.csv")
    assert ok.returncode == 0, ok.stderr
    assert len(pd.read_csv(tmp_path / "r.csv")) > 0
    bad = cli(
        "apply", tmp_path / "small.parquet", "-t", rep, "-p", POLICY, "-o", tmp_path / "s.csv"
    )
    assert bad.returncode == 1 and "nothing written" in bad.stderr
    assert not (tmp_path / "s.csv").exists()
