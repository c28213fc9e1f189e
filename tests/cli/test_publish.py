"""``privcheck publish`` as a user runs it: exit codes, what is printed, what the catalog holds.

The library's guarantees (no trace of a rejected batch, concurrent commits kept) are tested in
tests/catalogs/test_iceberg.py; here the command's contract: 0 published, 1 rejected, 2 bad
input with one line on stderr and nothing written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from privcheck.api import Verdict, policy_digest
from privcheck.policy import load_policy
from tests.catalogs.test_iceberg import POLICY, SECRET, batch, with_secret
from tests.conftest import run_cli

pytest.importorskip("pyiceberg")


@pytest.fixture
def setup(tmp_path):
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    good = tmp_path / "good.csv"
    batch(3).to_csv(good, index=False)
    bad = tmp_path / "bad.csv"
    with_secret(batch(1, start=8)).to_csv(bad, index=False)
    env = {"PRIVCHECK_HOME": str(tmp_path / "home")}
    return policy, good, bad, env, tmp_path / "home"


def load(home: Path, name: str = "census.people", uri: str | None = None, warehouse=None):
    from privcheck.catalogs.iceberg import open_catalog

    saved = os.environ.get("PRIVCHECK_HOME")
    os.environ["PRIVCHECK_HOME"] = str(home)
    try:
        return open_catalog(uri, warehouse).load_table(tuple(name.split(".")))
    finally:
        if saved is None:
            del os.environ["PRIVCHECK_HOME"]
        else:
            os.environ["PRIVCHECK_HOME"] = saved


def one_line_error(result, *words: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("privcheck: error:"), result.stderr
    for word in words:
        assert word in lines[0]


def test_published_exit_0_then_rejected_exit_1(setup):
    policy, good, bad, env, home = setup
    result = run_cli("publish", good, "--table", "census.people", "--policy", policy, env=env)
    assert result.returncode == 0, result.stderr
    assert "published 9 records to census.people" in result.stdout
    table = load(home)
    head = table.current_snapshot().snapshot_id
    assert table.properties["privcheck.passed"] == "true"
    assert table.properties["privcheck.policy-digest"] == policy_digest(load_policy(policy))

    result = run_cli(
        "publish", bad, "--table", "census.people", "-p", policy, "--format", "json", env=env
    )
    assert result.returncode == 1, result.stderr
    verdict = Verdict.model_validate_json(result.stdout)  # --format json: the Verdict
    assert not verdict.passed and verdict.dataset == "census.people"
    table = table.refresh()
    assert table.current_snapshot().snapshot_id == head
    assert table.properties["privcheck.passed"] == "false"
    assert json.loads(table.properties["privcheck.verdict"])["passed"] is False
    assert not [p for p in home.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]


def test_explicit_catalog_uri_and_warehouse(setup, tmp_path):
    policy, good, _bad, env, home = setup
    (tmp_path / "wh").mkdir()
    uri = f"sqlite:///{tmp_path / 'mine.db'}"
    args = ["--catalog-uri", uri, "--warehouse", tmp_path / "wh"]
    result = run_cli("publish", good, "-t", "a.b", "-p", policy, *args, env=env)
    assert result.returncode == 0, result.stderr
    assert not home.exists()  # the defaults were not used
    table = load(home, "a.b", uri, tmp_path / "wh")
    assert len(table.scan().to_pandas()) == 9
    assert list((tmp_path / "wh" / "a" / "b" / "data").glob("*.parquet"))


def test_catalog_from_the_environment(setup, tmp_path):
    policy, good, _bad, env, home = setup
    (tmp_path / "wh").mkdir()
    uri = f"sqlite:///{tmp_path / 'env.db'}"
    env = {**env, "PRIVCHECK_ICEBERG_URI": uri, "PRIVCHECK_ICEBERG_WAREHOUSE": str(tmp_path / "wh")}
    result = run_cli("publish", good, "-t", "a.b", "-p", policy, env=env)
    assert result.returncode == 0, result.stderr
    assert not home.exists()
    assert len(load(home, "a.b", uri, tmp_path / "wh").scan().to_pandas()) == 9


def test_bad_table_name(setup):
    policy, good, _bad, env, home = setup
    result = run_cli("publish", good, "--table", "people", "-p", policy, env=env)
    one_line_error(result, "bad table name", "NAMESPACE.TABLE")
    assert not home.exists()


def test_data_lacking_the_policys_columns(setup, tmp_path):
    policy, _good, _bad, env, home = setup
    lacking = tmp_path / "lacking.csv"
    batch(3).drop(columns=["zip"]).to_csv(lacking, index=False)
    result = run_cli("publish", lacking, "--table", "census.people", "-p", policy, env=env)
    one_line_error(result, "zip")
    assert not home.exists()


def test_table_lacking_the_policys_columns(setup, tmp_path):
    policy, good, _bad, env, home = setup
    other_policy = tmp_path / "other.yaml"
    other_policy.write_text(POLICY.replace("disease", "illness"))
    renamed = tmp_path / "renamed.csv"
    batch(3).rename(columns={"disease": "illness"}).to_csv(renamed, index=False)
    assert run_cli("publish", good, "-t", "census.people", "-p", policy, env=env).returncode == 0
    before = load(home).metadata_location
    result = run_cli("publish", renamed, "-t", "census.people", "-p", other_policy, env=env)
    one_line_error(result, "table census.people lacks the policy's column", "illness")
    assert load(home).metadata_location == before  # nothing written


def test_unreachable_catalog(setup, tmp_path):
    policy, good, _bad, env, home = setup
    uri = f"sqlite:///{tmp_path / 'no' / 'such' / 'folder' / 'c.db'}"
    result = run_cli("publish", good, "-t", "a.b", "-p", policy, "--catalog-uri", uri, env=env)
    one_line_error(result, "cannot reach the Iceberg catalog", "--catalog-uri")
    result = run_cli(
        "publish", good, "-t", "a.b", "-p", policy, "--catalog-uri", "http://127.0.0.1:9", env=env
    )
    one_line_error(result, "cannot reach the Iceberg catalog")
    assert not home.exists()


def test_missing_extra(setup, tmp_path):
    policy, good, _bad, env, home = setup
    fake = tmp_path / "fake" / "pyiceberg"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('No module named pyiceberg')\n")
    path = os.pathsep.join([str(tmp_path / "fake"), os.environ.get("PYTHONPATH", "")])
    result = run_cli("publish", good, "-t", "a.b", "-p", policy, env={**env, "PYTHONPATH": path})
    one_line_error(result, "pip install 'privcheck[iceberg]'")
    assert not home.exists()


def test_anonymize(setup, tmp_path):
    policy, _good, bad, env, home = setup
    result = run_cli("publish", bad, "-t", "census.people", "-p", policy, "--anonymize", env=env)
    assert result.returncode == 0, result.stderr
    released = load(home).scan().to_pandas()
    checked = tmp_path / "released.csv"
    released.to_csv(checked, index=False)
    # the release in main passes `privcheck check` with the same policy
    assert run_cli("check", checked, "-p", policy).returncode == 0
    assert len(released) <= len(pd.read_csv(bad))


def test_engine_option(setup):
    policy, good, bad, env, home = setup
    for data, code in ((good, 0), (good, 0), (bad, 1)):
        result = run_cli("publish", data, "-t", "a.b", "-p", policy, "--engine", "duckdb", env=env)
        assert result.returncode == code, result.stderr
    assert len(load(home, "a.b").scan().to_pandas()) == 18
