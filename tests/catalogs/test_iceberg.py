"""The Iceberg publication gate against a real pyiceberg SQL catalog (SQLite) and warehouse.

Oracles: the rows main shows are compared with the batches written (multisets of rows); the
verdict with a brute-force group count (pandas groupby, independent of privcheck's class
tables); "no trace" by the bytes of a unique rejected value in every file under the warehouse
and in the catalog database — with a positive control showing the same search finds the value
when it was written (the test tables are uncompressed so that it can)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pytest

from privcheck.api import Verdict, policy_digest
from privcheck.catalogs import iceberg
from privcheck.catalogs.iceberg import (
    IcebergCatalog,
    PublishConflict,
    open_catalog,
    publish,
    remove_staged,
    stage,
)
from privcheck.errors import DataError
from privcheck.plugins import catalog_registry
from privcheck.policy import load_policy

pytest.importorskip("pyiceberg")

POLICY = """\
attributes:
  age: {role: quasi_identifier}
  zip: {role: quasi_identifier}
  disease: {role: sensitive}
models:
  - {model: k-anonymity, k: 3}
  - {model: l-diversity, variant: distinct, l: 2, attribute: disease}
"""
#: a value no other file holds: ≤ 16 characters (Iceberg truncates string bounds to 16) and
#: sorting above every other zip, so the manifest's upper bound of the column is this value
SECRET = "ZQX7REJECT4821"
#: written uncompressed so that a byte search sees the values (the default codecs would hide
#: them from grep, not from a reader)
PLAIN = {"write.parquet.compression-codec": "uncompressed", "write.avro.compression-codec": "null"}
TABLE = "census.people"


def batch(n_groups: int, start: int = 0, zip_code: str = "100") -> pd.DataFrame:
    """``n_groups`` classes of 3 records each with 2 diseases: k=3 and l=2 hold."""
    rows = []
    for g in range(start, start + n_groups):
        for disease in ("flu", "cold", "flu"):
            rows.append({"age": 20 + g, "zip": zip_code, "disease": disease})
    return pd.DataFrame(rows)


def with_secret(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` plus one record alone in its class: k-anonymity fails."""
    lone = pd.DataFrame([{"age": 99, "zip": SECRET, "disease": "flu"}])
    return pd.concat([frame, lone], ignore_index=True)


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("PRIVCHECK_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.fixture
def policy(tmp_path) -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text(POLICY)
    return path


def csv(tmp_path: Path, frame: pd.DataFrame, name: str) -> Path:
    path = tmp_path / f"{name}.csv"
    frame.to_csv(path, index=False)
    return path


def seeded_table(home: Path, frame: pd.DataFrame):
    """A table another writer created (uncompressed files) with ``frame`` on main."""
    catalog = open_catalog()
    catalog.create_namespace_if_not_exists(("census",))
    schema = pa.schema(
        [
            pa.field("age", pa.int64()),
            pa.field("zip", pa.string()),
            pa.field("disease", pa.string()),
        ]
    )
    table = catalog.create_table(("census", "people"), schema=schema, properties=PLAIN)
    table.append(pa.Table.from_pandas(frame, schema=schema, preserve_index=False))
    return catalog.load_table(("census", "people"))


def main_rows(table) -> list[tuple]:
    table = table.refresh()
    rows = table.scan(snapshot_id=table.metadata.refs["main"].snapshot_id).to_pandas()
    return _rows(rows)


def _rows(frame: pd.DataFrame) -> list[tuple]:
    """The rows as a sorted list of text tuples (a CSV batch's columns are read as text)."""
    return sorted(tuple(map(str, row)) for row in frame[["age", "zip", "disease"]].to_numpy())


def rows_of(*frames: pd.DataFrame) -> list[tuple]:
    return _rows(pd.concat(frames, ignore_index=True))


def files_holding(root: Path, needle: str) -> list[Path]:
    """Every file under ``root`` whose bytes contain ``needle``."""
    data = needle.encode()
    return [p for p in root.rglob("*") if p.is_file() and data in p.read_bytes()]


def brute_force(frame: pd.DataFrame) -> tuple[int, int]:
    """Smallest class size and smallest number of distinct diseases in a class."""
    groups = frame.groupby(["age", "zip"])
    return int(groups.size().min()), int(groups["disease"].nunique().min())


def test_iceberg_is_a_registered_catalog():
    assert catalog_registry()["iceberg"] is IcebergCatalog


def test_passing_batches_are_published_and_the_verdict_recorded(home, policy, tmp_path):
    first, second = batch(3), batch(2, start=10)
    result = publish(csv(tmp_path, first, "first"), TABLE, policy)
    assert result.published
    result = publish(csv(tmp_path, second, "second"), TABLE, policy)
    assert result.published
    table = open_catalog().load_table(("census", "people"))
    # main's rows = before + batch
    assert main_rows(table) == rows_of(first, second)
    assert list(table.metadata.refs) == ["main"]  # the audit branches are gone
    # the verdict, in the properties and in the published snapshot's summary
    props = table.properties
    assert props["privcheck.passed"] == "true"
    assert props["privcheck.policy-digest"] == policy_digest(load_policy(policy))
    verdict = Verdict.model_validate_json(props["privcheck.verdict"])
    k, distinct = brute_force(pd.concat([first, second]))
    by_model = {m.model: m.value for m in verdict.models}
    assert (by_model["k-anonymity"], by_model["l-diversity"]) == (k, distinct) == (3, 2)
    assert verdict.n_records == len(first) + len(second)
    summary = table.current_snapshot().summary
    assert summary["privcheck.passed"] == "true"
    assert json.loads(summary["privcheck.verdict"])["n_records"] == verdict.n_records
    assert result.main_snapshot_id == table.current_snapshot().snapshot_id
    # the defaults: an SQLite catalog and a warehouse under $PRIVCHECK_HOME
    assert (home / "iceberg" / "catalog.db").is_file()
    assert table.location().endswith("/iceberg/warehouse/census/people")


def test_a_failing_batch_leaves_main_byte_identical_and_no_trace(home, policy, tmp_path):
    table = seeded_table(home, batch(3))
    before_snapshot = table.current_snapshot().snapshot_id
    before_rows = main_rows(table)
    before_files = {p: p.read_bytes() for p in home.rglob("*") if p.suffix in (".parquet", ".avro")}
    result = publish(csv(tmp_path, with_secret(batch(2, start=5)), "bad"), TABLE, policy)
    assert not result.published
    table = table.refresh()
    assert table.current_snapshot().snapshot_id == before_snapshot
    assert main_rows(table) == before_rows
    assert list(table.metadata.refs) == ["main"]
    assert [s.snapshot_id for s in table.snapshots()] == [before_snapshot]
    # no data file, manifest or manifest list was added, none changed
    after_files = {p: p.read_bytes() for p in home.rglob("*") if p.suffix in (".parquet", ".avro")}
    assert after_files == before_files
    assert files_holding(home, SECRET) == []
    assert table.properties["privcheck.passed"] == "false"
    verdict = Verdict.model_validate_json(table.properties["privcheck.verdict"])
    assert not verdict.passed and brute_force(with_secret(batch(2, start=5)))[0] == 1
    assert {m.model: m.value for m in verdict.models}["k-anonymity"] == 1
    # positive control: the same search finds the value once it is published
    published = batch(2, start=20, zip_code=SECRET)
    assert publish(csv(tmp_path, published, "ok"), TABLE, policy).published
    holders = files_holding(home, SECRET)
    assert {p.suffix for p in holders} >= {".parquet", ".avro"}


def test_a_batch_passing_alone_but_not_with_main_is_rejected(home, policy, tmp_path):
    """main's readers see main's rows and the batch together: that table must pass too."""
    lonely = pd.DataFrame([{"age": 50, "zip": "100", "disease": "flu"}] * 3)
    table = seeded_table(home, lonely)  # main itself violates l-diversity (one disease)
    result = publish(csv(tmp_path, batch(2), "b"), TABLE, policy)
    assert brute_force(batch(2)) == (3, 2)  # the batch alone passes …
    assert not result.published  # … but main after publication would not
    assert {m.model: m.passed for m in result.verdict.models}["l-diversity"] is False
    assert table.refresh().current_snapshot().snapshot_id == table.current_snapshot().snapshot_id


def test_removing_a_staged_batch_leaves_no_trace(home, policy):
    table = seeded_table(home, batch(3))
    before = table.current_snapshot().snapshot_id
    frame = with_secret(batch(1, start=7))
    schema = table.schema().as_arrow()
    staged = stage(table, pa.Table.from_pandas(frame, schema=schema, preserve_index=False), {})
    table = table.refresh()
    # positive control: staging wrote the value into a data file and a manifest
    assert {p.suffix for p in files_holding(home, SECRET)} >= {".parquet", ".avro"}
    assert staged.snapshot_id in {s.snapshot_id for s in table.snapshots()}
    assert staged.data_files and staged.manifests
    table = remove_staged(table, staged, {"privcheck.passed": "false"})
    assert files_holding(home, SECRET) == []
    for path in [*staged.data_files, *staged.manifests, staged.manifest_list]:
        assert not Path(path.removeprefix("file://")).exists()
    assert [s.snapshot_id for s in table.snapshots()] == [before]
    assert list(table.metadata.refs) == ["main"]
    # no metadata file, current or historical, names the snapshot or its branch any more
    for path in home.rglob("*.metadata.json"):
        text = path.read_text()
        assert str(staged.snapshot_id) not in text and staged.branch not in text
    assert main_rows(table) == rows_of(batch(3))
    assert table.properties["privcheck.passed"] == "false"


def concurrent_writer(home: Path, frame: pd.DataFrame):
    """A second process's view of the table, appending ``frame`` to main."""

    def write(*_args):
        other = open_catalog().load_table(("census", "people"))
        schema = other.schema().as_arrow()
        other.append(pa.Table.from_pandas(frame, schema=schema, preserve_index=False))

    return write


def test_a_concurrent_commit_between_staging_and_publishing_is_never_lost(home, policy, tmp_path):
    table = seeded_table(home, batch(3))
    theirs = batch(2, start=30)
    staged_seen = []

    def meanwhile(tbl, staged):
        staged_seen.append(staged)
        concurrent_writer(home, theirs)()

    with pytest.raises(PublishConflict, match="moved"):
        publish(csv(tmp_path, batch(2, start=10), "ours"), TABLE, policy, after_staging=meanwhile)
    table = table.refresh()
    assert main_rows(table) == rows_of(batch(3), theirs)  # their commit is kept
    [staged] = staged_seen
    assert staged.snapshot_id not in {s.snapshot_id for s in table.snapshots()}
    assert list(table.metadata.refs) == ["main"]
    for path in [*staged.data_files, *staged.manifests, staged.manifest_list]:
        assert not Path(path.removeprefix("file://")).exists()
    for path in home.rglob("*.metadata.json"):  # (their commit's metadata listed ours)
        text = path.read_text()
        assert str(staged.snapshot_id) not in text and staged.branch not in text
    # run again: published on top of their commit
    assert publish(csv(tmp_path, batch(2, start=10), "ours"), TABLE, policy).published
    assert main_rows(table) == rows_of(batch(3), theirs, batch(2, start=10))


def test_a_commit_slipping_in_after_the_ancestry_check_is_caught(
    home, policy, tmp_path, monkeypatch
):
    """The catalog's compare-and-swap on main's head: the window between checking ancestry
    and committing is covered too."""
    table = seeded_table(home, batch(3))
    theirs = batch(1, start=40)
    real = iceberg.is_ancestor
    raced = []

    def check_then_race(metadata, ancestor, snapshot):
        answer = real(metadata, ancestor, snapshot)
        if not raced:  # (once: the removal asks too)
            raced.append(True)
            concurrent_writer(home, theirs)()
        return answer

    monkeypatch.setattr(iceberg, "is_ancestor", check_then_race)
    with pytest.raises(PublishConflict):
        publish(csv(tmp_path, batch(2, start=10), "ours"), TABLE, policy)
    table = table.refresh()
    assert main_rows(table) == rows_of(batch(3), theirs)
    assert list(table.metadata.refs) == ["main"]
    assert len(table.snapshots()) == 2  # the seed and theirs: ours is gone
    for path in home.rglob("*.metadata.json"):  # (the failed commit's file included)
        meta = json.loads(path.read_text())
        assert all(not ref.startswith("privcheck-audit-") for ref in meta.get("refs", {}))


def test_anonymize_publishes_a_release_that_passes(home, policy, tmp_path):
    raw = with_secret(batch(4))
    result = publish(csv(tmp_path, raw, "raw"), TABLE, policy, anonymize=True)
    assert result.published
    table = open_catalog().load_table(("census", "people"))
    released = table.scan().to_pandas()
    assert SECRET not in set(released["zip"].astype(str))
    from privcheck.pipeline.check import check

    assert check(released, load_policy(policy)).passed
    assert files_holding(home, SECRET) == []


def test_bad_input_is_refused_before_anything_is_written(home, policy, tmp_path):
    data = csv(tmp_path, batch(2), "b")
    with pytest.raises(DataError, match="bad table name"):
        publish(data, "people", policy)
    assert not home.exists()
    lacking = csv(tmp_path, batch(2).drop(columns=["disease"]), "lacking")
    with pytest.raises(DataError, match="disease"):
        publish(lacking, TABLE, policy)
    assert not home.exists()
    # a table whose schema lacks the policy's columns: refused, its metadata untouched
    catalog = open_catalog()
    catalog.create_namespace_if_not_exists(("census",))
    other = catalog.create_table(
        ("census", "other"), schema=pa.schema([pa.field("age", pa.int64())])
    )
    with pytest.raises(DataError, match="lacks the policy's column"):
        publish(data, "census.other", policy)
    assert catalog.load_table(("census", "other")).metadata_location == other.metadata_location
    with pytest.raises(DataError, match="cannot reach the Iceberg catalog"):
        publish(data, TABLE, policy, catalog_uri=f"sqlite:///{tmp_path}/no/such/dir/c.db")
    assert IcebergCatalog().read_dataset("census.other").columns == ["age"]


def test_identifiers_never_enter_the_schema_and_fail_the_check(home, tmp_path):
    """A new table's schema leaves out the policy's identifiers (a release never carries
    them); a batch still holding them is rejected (exit 1), not refused as a bad schema."""
    policy = tmp_path / "with-name.yaml"
    policy.write_text(POLICY.replace("attributes:\n", "attributes:\n  name: {role: identifier}\n"))
    named = batch(3).assign(name=[f"person {i}" for i in range(9)])
    result = publish(csv(tmp_path, named, "named"), TABLE, policy)
    assert not result.published and result.verdict.identifiers_present == ["name"]
    table = open_catalog().load_table(("census", "people"))
    assert table.schema().as_arrow().names == ["age", "zip", "disease"]
    assert table.current_snapshot() is None and files_holding(home, "person 1") == []
    result = publish(csv(tmp_path, named, "named"), TABLE, policy)  # the table exists now
    assert not result.published and result.verdict.identifiers_present == ["name"]
    assert publish(csv(tmp_path, named, "named"), TABLE, policy, anonymize=True).published
    assert len(main_rows(table)) == 9 and files_holding(home, "person 1") == []


def test_a_commit_on_the_audit_branch_is_not_published(home, policy, tmp_path, monkeypatch):
    """Only what was audited is published: a record slipped onto the audit branch after the
    staging (a rogue writer) stops the publication, and everything on the branch goes."""
    table = seeded_table(home, batch(3))
    before = table.current_snapshot().snapshot_id
    real_stage = iceberg.stage
    rogue = []

    def stage_then_tamper(tbl, arrow, summary):
        staged = real_stage(tbl, arrow, summary)
        other = open_catalog().load_table(("census", "people"))
        lone = pa.Table.from_pandas(
            with_secret(batch(0)), schema=other.schema().as_arrow(), preserve_index=False
        )
        other.append(lone, branch=staged.branch)
        rogue.append(other.metadata.refs[staged.branch].snapshot_id)
        assert files_holding(home, SECRET)  # (positive control)
        return staged

    monkeypatch.setattr(iceberg, "stage", stage_then_tamper)
    with pytest.raises(PublishConflict, match="audit branch"):
        publish(csv(tmp_path, batch(2, start=10), "ours"), TABLE, policy)
    table = table.refresh()
    assert [s.snapshot_id for s in table.snapshots()] == [before]
    assert list(table.metadata.refs) == ["main"]
    assert main_rows(table) == rows_of(batch(3))
    assert files_holding(home, SECRET) == []
    for path in home.rglob("*.metadata.json"):
        assert str(rogue[0]) not in path.read_text()


def test_an_audit_that_fails_removes_the_staged_batch(home, policy, tmp_path, monkeypatch):
    """The audit reads back what storage holds: a data file changed after the write (here a
    record added to it) fails the audit, and the batch is removed with the changed file."""
    import pyarrow.parquet as pq

    table = seeded_table(home, batch(3))
    before = table.current_snapshot().snapshot_id
    real_stage = iceberg.stage

    def stage_then_corrupt(tbl, arrow, summary):
        staged = real_stage(tbl, arrow, summary)
        path = staged.data_files[0].removeprefix("file://")
        written = pq.read_table(path)  # (its fields keep their Iceberg field ids)
        extra = pa.Table.from_pandas(
            with_secret(batch(0)), schema=written.schema, preserve_index=False
        )
        pq.write_table(pa.concat_tables([written, extra]), path, compression="none")
        assert files_holding(home, SECRET)  # (positive control)
        return staged

    monkeypatch.setattr(iceberg, "stage", stage_then_corrupt)
    result = publish(csv(tmp_path, batch(2, start=10), "ours"), TABLE, policy)
    assert not result.published and result.reason == "audit failed"
    assert {m.model: m.value for m in result.verdict.models}["k-anonymity"] == 1
    table = table.refresh()
    assert [s.snapshot_id for s in table.snapshots()] == [before]
    assert list(table.metadata.refs) == ["main"]
    assert main_rows(table) == rows_of(batch(3))
    assert files_holding(home, SECRET) == []
    assert table.properties["privcheck.passed"] == "false"


def test_same_outcome_allows_rounding_only():
    """The audit's comparison: a summation order may move a value by rounding, nothing more."""
    from privcheck.api import evaluate

    frame = batch(3)
    frame.attrs["name"] = "t"
    policy = load_policy(
        {
            "attributes": {"age": {"role": "quasi_identifier"}, "disease": {"role": "sensitive"}},
            "models": [{"model": "t-closeness", "t": 0.5, "attribute": "disease"}],
        }
    )
    verdict = evaluate(frame, policy)
    value = verdict.models[0].value
    nudged = verdict.model_copy(
        update={"models": [verdict.models[0].model_copy(update={"value": value * (1 + 1e-13)})]}
    )
    assert iceberg._same_outcome(verdict, nudged)
    moved = verdict.model_copy(
        update={"models": [verdict.models[0].model_copy(update={"value": value + 0.01})]}
    )
    assert not iceberg._same_outcome(verdict, moved)
    assert not iceberg._same_outcome(verdict, verdict.model_copy(update={"n_records": 1}))


def test_a_parquet_batch_keeps_its_types(home, policy, tmp_path):
    """A table created from a Parquet batch has its column types (Iceberg's nearest), and the
    rows read back equal the batch's."""
    import numpy as np

    frame = batch(2).assign(
        age=lambda f: f["age"].astype("int16"),
        zip=lambda f: pd.Categorical(f["zip"]),
        seen=pd.Timestamp("2024-05-01 10:00:00.123456789"),
        score=np.linspace(0, 1, 6),
        flag=[True, False] * 3,
    )
    path = tmp_path / "typed.parquet"
    frame.to_parquet(path)
    assert publish(path, TABLE, policy).published
    table = open_catalog().load_table(("census", "people"))
    types = {f.name: str(f.field_type) for f in table.schema().fields}
    assert types == {
        "age": "int",
        "zip": "string",
        "disease": "string",
        "seen": "timestamp",
        "score": "double",
        "flag": "boolean",
    }
    back = table.scan().to_pandas()
    assert back["seen"].iloc[0] == pd.Timestamp("2024-05-01 10:00:00.123456")  # µs
    assert main_rows(table) == rows_of(batch(2))
    assert back["score"].round(12).tolist() == frame["score"].round(12).tolist()


def test_the_catalog_interface_reads_columns_and_writes_the_verdict(home, policy, tmp_path):
    from privcheck.api import evaluate

    seeded_table(home, batch(2))
    back_end = catalog_registry()["iceberg"]()
    dataset = back_end.read_dataset(TABLE)
    assert dataset.columns == ["age", "zip", "disease"] and dataset.tags == {}
    verdict = evaluate(batch(2), policy, name=TABLE)
    back_end.write_verdict(TABLE, verdict)
    props = open_catalog().load_table(("census", "people")).properties
    assert Verdict.model_validate_json(props["privcheck.verdict"]) == verdict
    assert props["privcheck.passed"] == "true"
    with pytest.raises(DataError, match=r"no table census\.absent"):
        back_end.read_dataset("census.absent")


@pytest.mark.parametrize("engine", ["duckdb", "polars", "spark"])
def test_the_table_checks_run_in_an_engine(home, policy, tmp_path, engine):
    """main's rows with the batch, and the audited snapshot, read from their Parquet files by
    the engine: the verdicts pandas gives, and a union that fails is still caught."""
    if engine == "spark":
        pytest.importorskip("pyspark")
    first, second = batch(3), batch(2, start=10)
    assert publish(csv(tmp_path, first, "first"), TABLE, policy, engine=engine).published
    result = publish(csv(tmp_path, second, "second"), TABLE, policy, engine=engine)
    assert result.published
    table = open_catalog().load_table(("census", "people"))
    assert main_rows(table) == rows_of(first, second)
    head = table.current_snapshot().snapshot_id
    rows = iceberg.snapshot_frame(table, head)  # (pandas, through pyiceberg)
    in_pandas = iceberg._evaluate(rows, load_policy(policy), TABLE, False)
    assert iceberg._same_outcome(result.verdict, in_pandas)
    values = {m.model: m.value for m in result.verdict.models}
    assert values == {"k-anonymity": 3, "l-diversity": 2}


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_an_engine_catches_a_union_that_fails(home, policy, tmp_path, engine):
    lonely = pd.DataFrame([{"age": 50, "zip": "100", "disease": "flu"}] * 3)
    table = seeded_table(home, lonely)  # main itself violates l-diversity (one disease)
    result = publish(csv(tmp_path, batch(2), "b"), TABLE, policy, engine=engine)
    assert not result.published
    assert {m.model: m.passed for m in result.verdict.models}["l-diversity"] is False
    assert table.refresh().current_snapshot().snapshot_id == table.current_snapshot().snapshot_id
