"""The DataHub round trip on a real DataHub Lite store.

A Lite store (the embedded DataHub that ships with acryl-datahub) is seeded through the real
``datahub-lite`` sink with tagged datasets — one passing, one failing, one whose tags contradict
the base policy — and ``privcheck catalog check`` is run on each. The oracle is
``privcheck check`` on the same data with the policy the tags make, written by hand: the
assertions and run events read back with the DataHub SDK (and counted in the store's own SQLite
tables) must say the same, model by model; a second run adds history, not assertions. Bad input
leaves the store byte-identical. No test touches ~/.datahub: every store is under tmp_path, the
SDK's own folders are in a temporary home (tests/conftest.py), and a command that reads a store
from HOME or the DataHub CLI's variables runs in a process with HOME under tmp_path.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

pytest.importorskip("datahub.lite.lite_util")

import datahub.metadata.schema_classes as dm
from datahub.emitter.mcp import MetadataChangeProposalWrapper
from datahub.ingestion.api.common import PipelineContext, RecordEnvelope
from datahub.ingestion.sink.datahub_lite import DataHubLiteSink
from datahub.lite.lite_util import get_datahub_lite

from privcheck.catalog import datahub_assertion_urn
from privcheck.catalogs.base import CatalogDataset
from privcheck.catalogs.datahub import DataHubCatalog, dataset_from_aspects
from privcheck.catalogs.tagged import tagged_policy, with_drafted_hierarchies
from privcheck.errors import DataError, PolicyError
from privcheck.policy import load_policy
from privcheck.profiling.draft import draft_policy

QI = "urn:li:tag:PII:Quasi-Identifier"
SENSITIVE = "urn:li:tag:PII:Sensitive"
INSENSITIVE = "urn:li:tag:PII:Insensitive"


def urn(name: str) -> str:
    return f"urn:li:dataset:(urn:li:dataPlatform:hive,clinic.{name},PROD)"


# --------------------------------------------------------------------------- the seeded store

#: (zip, age band) classes of the passing table: every class has 3 records, 2+ diseases
PASSING_ROWS = [
    (zip_, age, disease)
    for zip_ in ("13053", "13068")
    for age in ("20-29", "30-39", "40-49")
    for disease in ("flu", "cancer", "flu" if zip_ == "13053" else "hiv")
]
#: the failing table adds a lone record (a class of 1) and a class with one disease only
FAILING_ROWS = [*PASSING_ROWS, ("14850", "50-59", "flu"), ("14850", "60-69", "hiv")] + [
    ("14853", "20-29", "flu")
] * 2


def _csv(path: Path, header: list[str], rows: list[tuple]) -> Path:
    path.write_text("\n".join([",".join(header), *(",".join(map(str, r)) for r in rows)]) + "\n")
    return path


def _field(name: str, tags: list[str]) -> dm.SchemaFieldClass:
    return dm.SchemaFieldClass(
        # a v2 field path, as DataHub's ingestion writes them
        fieldPath=f"[version=2.0].[type=string].{name}",
        type=dm.SchemaFieldDataTypeClass(dm.StringTypeClass()),
        nativeDataType="string",
        globalTags=dm.GlobalTagsClass([dm.TagAssociationClass(t) for t in tags]) if tags else None,
    )


def _dataset(
    name: str, schema_tags: dict[str, list[str]], ui_tags: dict[str, list[str]] | None = None
) -> list[MetadataChangeProposalWrapper]:
    schema = dm.SchemaMetadataClass(
        schemaName=name,
        platform="urn:li:dataPlatform:hive",
        version=0,
        hash="",
        platformSchema=dm.OtherSchemaClass(rawSchema=""),
        fields=[_field(c, t) for c, t in schema_tags.items()],
    )
    out = [MetadataChangeProposalWrapper(entityUrn=urn(name), aspect=schema)]
    if ui_tags:
        editable = dm.EditableSchemaMetadataClass(
            editableSchemaFieldInfo=[
                dm.EditableSchemaFieldInfoClass(
                    fieldPath=c,
                    globalTags=dm.GlobalTagsClass([dm.TagAssociationClass(t) for t in ts]),
                )
                for c, ts in ui_tags.items()
            ]
        )
        out.append(MetadataChangeProposalWrapper(entityUrn=urn(name), aspect=editable))
    return out


def seed(store: Path, kind: str = "sqlite") -> None:
    """The datasets, through the real datahub-lite sink: tags in the schema and in the UI."""
    sink = DataHubLiteSink.create(
        {"type": kind, "config": {"file": str(store)}}, PipelineContext(run_id="seed")
    )
    mcps = [
        # zip tagged at ingestion, age and disease in the UI (editableSchemaMetadata)
        *_dataset(
            "passing",
            {"zip": [QI], "age": [], "disease": []},
            {"age": [QI], "disease": [SENSITIVE]},
        ),
        *_dataset("failing", {"zip": [QI], "age": [QI], "disease": [SENSITIVE]}),
        # the base policy calls birth a quasi-identifier; the catalog says insensitive (and a
        # person re-tagged age in the UI: insensitive at ingestion, a quasi-identifier now)
        *_dataset(
            "contradicting",
            {"zip": [QI], "age": [INSENSITIVE], "birth": [INSENSITIVE], "disease": [SENSITIVE]},
            {"age": [QI]},
        ),
        *_dataset(
            "personal",
            {"zip": [QI], "age": ["urn:li:tag:PersonalData.Personal"], "disease": [SENSITIVE]},
        ),
        *_dataset(
            "named",
            {
                "name": ["urn:li:tag:PII:Identifier"],
                "zip": [QI],
                "age": [QI],
                "disease": [SENSITIVE],
            },
        ),
        *_dataset("narrow", {"zip": [QI], "disease": [SENSITIVE]}),
    ]
    for mcp in mcps:
        sink.write_record_async(RecordEnvelope(mcp, metadata={}), write_callback=None)
    sink.close()


BASE = """attributes:
  zip: {role: quasi_identifier}
  disease: {role: sensitive}
models:
  - {model: k-anonymity, k: 2}
  - {model: l-diversity, variant: distinct, l: 2, attribute: disease}
"""
BASE_BIRTH = BASE.replace("  disease:", "  birth: {role: quasi_identifier}\n  disease:")
#: the policy the tags make, written by hand: the oracle's policy
EXPECTED = BASE.replace("  disease:", "  age: {role: quasi_identifier}\n  disease:")
EXPECTED_BIRTH = EXPECTED.replace("  disease:", "  birth: {role: insensitive}\n  disease:")


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    store = tmp_path / "lite" / "datahub.db"
    store.parent.mkdir()
    seed(store)
    header = ["zip", "age", "disease"]
    births = [
        (z, a, f"19{60 + i}-0{1 + i % 9}-1{i % 10}", d) for i, (z, a, d) in enumerate(PASSING_ROWS)
    ]
    files = {
        "store": store,
        "home": tmp_path,
        "passing": _csv(tmp_path / "passing.csv", header, PASSING_ROWS),
        "failing": _csv(tmp_path / "failing.csv", header, FAILING_ROWS),
        "contradicting": _csv(
            tmp_path / "contradicting.csv", ["zip", "age", "birth", "disease"], births
        ),
    }
    for name, text in (
        ("base.yaml", BASE),
        ("base_birth.yaml", BASE_BIRTH),
        ("expected.yaml", EXPECTED),
        ("expected_birth.yaml", EXPECTED_BIRTH),
    ):
        (tmp_path / name).write_text(text)
        files[name] = tmp_path / name
    return files


def _env(world) -> dict[str, str]:
    """A CLI process of its own with HOME in the test's folder (the default store, the DataHub
    CLI's token variable): commands given ``--store`` run in this process."""
    return {"HOME": str(world["home"]), "DATAHUB_TELEMETRY_ENABLED": "false"}


def _assertions(store: Path, dataset: str, kind: str = "sqlite") -> dict[str, dict]:
    """The store's privcheck assertions of ``dataset``, read back with the DataHub SDK."""
    lite = get_datahub_lite(
        {"type": kind, "config": {"file": str(store), "read_only": True}}, read_only=True
    )
    try:
        out = {}
        for id_ in lite.list_ids():
            if not id_.startswith("urn:li:assertion:"):
                continue
            found = lite.get(id_, ["assertionInfo", "assertionRunEvent"], typed=True)
            info = found["assertionInfo"]
            if info.datasetAssertion.dataset == dataset:
                out[id_] = {"info": info, "event": found["assertionRunEvent"]}
        return out
    finally:
        lite.close()


def _versions(store: Path, urn_: str, aspect: str) -> int:
    """How many versions of an aspect the store holds (its own table: the history)."""
    with sqlite3.connect(store) as db:
        return db.execute(
            "SELECT count(*) FROM metadata_aspect_v2 "
            "WHERE urn = ? AND aspect_name = ? AND version > 0",
            (urn_, aspect),
        ).fetchone()[0]


def _params(native: dict[str, str]) -> dict:
    """An assertion's nativeParameters as the model's parameters (strings stored as they are,
    other values as JSON)."""
    out = {}
    for key, value in native.items():
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


CASES = [
    ("passing", "base.yaml", "expected.yaml", 0),
    ("failing", "base.yaml", "expected.yaml", 1),
    ("contradicting", "base_birth.yaml", "expected_birth.yaml", 0),
]


# --------------------------------------------------------------------------- the round trip


@pytest.mark.parametrize(("name", "base", "expected", "code"), CASES)
def test_assertions_read_back_equal_privcheck_check_model_by_model(
    world, cli, name, base, expected, code
):
    oracle = cli("check", world[name], "--policy", world[expected], "--format", "json")
    assert oracle.returncode == code, oracle.stderr
    report = json.loads(oracle.stdout)

    run = cli(
        "catalog", "check", urn(name), world[name], "--policy", world[base],
        "--store", world["store"], "--format", "json",
    )  # fmt: skip
    assert run.returncode == code, run.stderr
    verdict = json.loads(run.stdout)
    assert verdict["dataset"] == urn(name)
    assert verdict["passed"] is report["passed"]
    assert sorted(verdict["quasi_identifiers"]) == sorted(report["quasi_identifiers"])

    stored = _assertions(world["store"], urn(name))
    assert len(stored) == len(report["models"])
    for m in report["models"]:
        (hit,) = [
            s for s in stored.values()
            if s["info"].datasetAssertion.nativeType == m["model"]
            and _params(s["info"].datasetAssertion.nativeParameters) == m["params"]
        ]  # fmt: skip
        result = hit["event"].result
        assert result.type == ("SUCCESS" if m["passed"] else "FAILURE")
        assert result.unexpectedCount == m["violating_records"]
        assert result.rowCount == report["n_records"]
        assert int(result.nativeResults["violating_classes"]) == m["violating_classes"]
        assert result.actualAggValue == pytest.approx(m["value"])
        assert hit["event"].asserteeUrn == urn(name)


def test_a_second_run_adds_history_not_assertions(world, cli):
    args = ("catalog", "check", urn("failing"), world["failing"], "--policy", world["base.yaml"])
    first = cli(*args, "--store", world["store"])
    assert first.returncode == 1, first.stderr
    before = _assertions(world["store"], urn("failing"))
    second = cli(*args, "--store", world["store"])
    assert second.returncode == 1, second.stderr
    after = _assertions(world["store"], urn("failing"))

    assert set(after) == set(before) and len(after) == 2
    lite = get_datahub_lite(
        {"type": "sqlite", "config": {"file": str(world["store"]), "read_only": True}},
        read_only=True,
    )
    try:
        for urn_ in after:
            assert _versions(world["store"], urn_, "assertionRunEvent") == 2
            assert _versions(world["store"], urn_, "assertionInfo") == 1  # unchanged: one version
            latest = after[urn_]["event"]
            assert latest.timestampMillis > before[urn_]["event"].timestampMillis
            # the history, as `datahub lite get --asof` walks it: the first run's event
            earlier = lite.get(
                urn_, ["assertionRunEvent"], typed=True, as_of=latest.timestampMillis
            )
            assert earlier["assertionRunEvent"].runId == before[urn_]["event"].runId
    finally:
        lite.close()


def test_status_prints_the_latest_result_per_model(world, cli):
    for name, code in (("passing", 0), ("failing", 1)):
        ran = cli(
            "catalog", "check", urn(name), world[name], "--policy", world["base.yaml"],
            "--store", world["store"], "--format", "json",
        )  # fmt: skip
        verdict = json.loads(ran.stdout)
        status = cli(
            "catalog", "status", urn(name), "--store", world["store"], "--format", "json"
        )  # fmt: skip
        assert status.returncode == code, status.stderr
        shown = json.loads(status.stdout)
        assert shown["passed"] is verdict["passed"]
        assert [(m["model"], m["params"], m["passed"]) for m in shown["models"]] == sorted(
            [(m["model"], m["params"], m["passed"]) for m in verdict["models"]],
            key=lambda t: (t[0], json.dumps(t[1], sort_keys=True)),
        )
        assert all(m["policy_digest"] == verdict["policy_digest"] for m in shown["models"])
    text = cli("catalog", "status", urn("failing"), "--store", world["store"])
    assert text.returncode == 1 and text.stdout.startswith("FAIL " + urn("failing"))
    assert "k-anonymity (k=2) violated" in text.stdout


def test_the_default_store_is_the_datahub_clis_own(world, cli, tmp_path):
    """Without --store privcheck writes the DataHub CLI's Lite store, and `datahub lite get`
    shows the assertion there."""
    home = tmp_path / "home"
    (home / ".datahub" / "lite").mkdir(parents=True)
    seed(home / ".datahub" / "lite" / "datahub.db")
    # `datahub lite` reads ~/.datahubenv (written by `datahub init`)
    (home / ".datahubenv").write_text("gms:\n  server: http://localhost:8080\n")
    env = {"HOME": str(home), "DATAHUB_TELEMETRY_ENABLED": "false"}
    ran = cli(
        "catalog",
        "check",
        urn("failing"),
        world["failing"],
        "--policy",
        world["base.yaml"],
        "--format",
        "json",
        env=env,
    )
    assert ran.returncode == 1, ran.stderr
    verdict = json.loads(ran.stdout)
    k = next(m for m in verdict["models"] if m["model"] == "k-anonymity")
    from privcheck.api import ModelVerdict

    assertion = datahub_assertion_urn(urn("failing"), ModelVerdict(**k))
    import subprocess
    import sys

    shown = subprocess.run(
        [str(Path(sys.executable).parent / "datahub"), "lite", "get", "--urn", assertion],
        capture_output=True, text=True, env={**__import__("os").environ, **env}, timeout=120,
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    got = json.loads(shown.stdout)
    assert got["assertionRunEvent"]["result"]["type"] == "FAILURE"
    assert got["assertionInfo"]["datasetAssertion"]["nativeType"] == "k-anonymity"


# --------------------------------------------------------------------------- the policy


def test_tags_win_and_a_bare_quasi_identifier_gets_inits_hierarchy(world):
    catalog = DataHubCatalog(store=world["store"])
    dataset = catalog.read_dataset(urn("contradicting"))
    assert dataset.columns == ["zip", "age", "birth", "disease"]
    assert dataset.tags["age"] == [QI]  # the UI's role tag replaced the ingested one
    policy, notes = tagged_policy(dataset, load_policy(world["base_birth.yaml"]), dataset.columns)
    assert notes == []
    roles = {c: a.role.value for c, a in policy.attributes.items()}
    assert roles == {
        "zip": "quasi_identifier",
        "birth": "insensitive",
        "age": "quasi_identifier",
        "disease": "sensitive",
    }
    drafted = with_drafted_hierarchies(policy, world["contradicting"])
    tags = {
        "zip": ["PII:Quasi-Identifier"],
        "age": ["PII:Quasi-Identifier"],
        "birth": ["PII:Insensitive"],
        "disease": ["PII:Sensitive"],
    }
    init = draft_policy(str(world["contradicting"]), k=2, tags=tags, check=False, preview_rows=0)
    for column in ("zip", "age"):
        assert drafted.attributes[column].hierarchy == init.policy.attributes[column].hierarchy
        assert drafted.attributes[column].hierarchy is not None


def test_a_base_hierarchy_is_kept(world, tmp_path):
    (tmp_path / "zip.csv").write_text("13053;130**;*\n13068;130**;*\n")
    base = tmp_path / "with_hierarchy.yaml"
    base.write_text(
        BASE.replace(
            "zip: {role: quasi_identifier}",
            "zip: {role: quasi_identifier, hierarchy: {type: table, path: zip.csv}}",
        )
    )
    dataset = DataHubCatalog(store=world["store"]).read_dataset(urn("passing"))
    policy, _ = tagged_policy(dataset, load_policy(base), dataset.columns)
    assert policy.attributes["zip"].hierarchy.path == "zip.csv"
    assert policy.resolve_path("zip.csv") == tmp_path / "zip.csv"


def test_two_role_tags_on_a_column_are_refused():
    dataset = CatalogDataset("x", ["zip", "disease"], {"zip": [QI, SENSITIVE]})
    with pytest.raises(PolicyError, match="several roles"):
        tagged_policy(
            dataset,
            load_policy(
                {
                    "attributes": {"zip": {"role": "quasi_identifier"}},
                    "models": [{"model": "k-anonymity", "k": 2}],
                }
            ),
            ["zip"],
        )


def test_schema_and_editable_tags_are_both_read():
    schema = dm.SchemaMetadataClass(
        schemaName="t", platform="urn:li:dataPlatform:hive", version=0, hash="",
        platformSchema=dm.OtherSchemaClass(rawSchema=""),
        fields=[_field("a", ["urn:li:tag:Legacy"]), _field("b", [SENSITIVE])],
    )  # fmt: skip
    editable = dm.EditableSchemaMetadataClass(
        editableSchemaFieldInfo=[
            dm.EditableSchemaFieldInfoClass(
                fieldPath="a", globalTags=dm.GlobalTagsClass([dm.TagAssociationClass(QI)])
            ),
            dm.EditableSchemaFieldInfoClass(
                fieldPath="gone", globalTags=dm.GlobalTagsClass([dm.TagAssociationClass(QI)])
            ),
        ]
    )
    got = dataset_from_aspects("u", schema, editable)
    assert got.columns == ["a", "b"]
    assert got.tags == {"a": ["urn:li:tag:Legacy", QI], "b": [SENSITIVE]}


# --------------------------------------------------------------------------- bad input


def _one_line_exit_2(run) -> str:
    assert run.returncode == 2, (run.stdout, run.stderr)
    assert run.stdout == ""
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in run.stderr, run.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("dataset", "data", "base", "says"),
    [
        ("nowhere", "passing", "base.yaml", "does not know"),
        ("narrow", "passing", "base_birth.yaml", "has no column 'birth'"),
        ("personal", "passing", "base.yaml", "review"),
    ],
)
def test_bad_input_exits_2_in_one_line_and_writes_nothing(world, cli, dataset, data, base, says):
    before = _digest(world["store"])
    run = cli(
        "catalog", "check", urn(dataset), world[data], "--policy", world[base],
        "--store", world["store"],
    )  # fmt: skip
    assert says in _one_line_exit_2(run)
    assert _digest(world["store"]) == before


def test_a_missing_store_is_not_created(world, cli, tmp_path):
    missing = tmp_path / "nothing" / "datahub.db"
    run = cli(
        "catalog", "check", urn("passing"), world["passing"], "--policy", world["base.yaml"],
        "--store", missing,
    )  # fmt: skip
    assert "no DataHub Lite store" in _one_line_exit_2(run)
    assert not missing.exists() and not missing.parent.exists()
    status = cli("catalog", "status", urn("passing"), "--store", world["store"])
    assert "no privcheck result" in _one_line_exit_2(status)
    unknown = cli("catalog", "status", urn("nowhere"), "--store", world["store"])
    assert "does not know" in _one_line_exit_2(unknown)


def test_an_unreachable_server_exits_2_in_one_line(world, cli):
    env = {**_env(world), "DATAHUB_GMS_TOKEN": "secret-token-value"}
    run = cli(
        "catalog", "check", urn("passing"), world["passing"], "--policy", world["base.yaml"],
        "--gms", "http://127.0.0.1:9", env=env,
    )  # fmt: skip
    line = _one_line_exit_2(run)
    assert "cannot reach the DataHub server at http://127.0.0.1:9" in line
    assert "secret-token-value" not in line
    status = cli("catalog", "status", urn("passing"), "--gms", "http://127.0.0.1:9", env=env)
    _one_line_exit_2(status)


def test_a_missing_sdk_names_the_extra(world, cli, tmp_path):
    """With acryl-datahub not importable the command says which extra installs it."""
    shadow = tmp_path / "shadow" / "datahub"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('acryl-datahub is not installed')\n")
    import os

    path = os.pathsep.join([str(shadow.parent), os.environ.get("PYTHONPATH", "")])
    before = _digest(world["store"])
    run = cli(
        "catalog", "check", urn("passing"), world["passing"], "--policy", world["base.yaml"],
        "--store", world["store"], env={**_env(world), "PYTHONPATH": path},
    )  # fmt: skip
    assert "pip install 'privcheck[datahub]'" in _one_line_exit_2(run)
    assert _digest(world["store"]) == before


def test_the_catalog_is_a_registered_plugin():
    from privcheck.plugins import catalog_registry

    assert catalog_registry()["datahub"] is DataHubCatalog


def test_reading_a_store_never_writes_it(world):
    before = _digest(world["store"])
    DataHubCatalog(store=world["store"]).read_dataset(urn("passing"))
    with pytest.raises(DataError, match="no privcheck result"):
        DataHubCatalog(store=world["store"]).latest_results(urn("passing"))
    assert _digest(world["store"]) == before


def test_status_fails_when_identifiers_are_left_although_every_model_holds(world, cli, tmp_path):
    rows = [(f"person {i}", *row) for i, row in enumerate(PASSING_ROWS)]
    data = _csv(tmp_path / "named.csv", ["name", "zip", "age", "disease"], rows)
    ran = cli(
        "catalog", "check", urn("named"), data, "--policy", world["base.yaml"],
        "--store", world["store"], "--format", "json",
    )  # fmt: skip
    assert ran.returncode == 1, ran.stderr
    verdict = json.loads(ran.stdout)
    assert all(m["passed"] for m in verdict["models"]) and verdict["identifiers_present"] == [
        "name"
    ]
    status = cli("catalog", "status", urn("named"), "--store", world["store"])
    assert status.returncode == 1, status.stderr
    assert status.stdout.splitlines()[-1] == "  FAIL identifiers present: name"


def test_allow_draft_runs_a_draft_and_says_so(world, cli):
    ran = cli(
        "catalog", "check", urn("personal"), world["passing"], "--policy", world["base.yaml"],
        "--store", world["store"], "--allow-draft", "--format", "json",
    )  # fmt: skip
    assert ran.returncode in (0, 1), ran.stderr
    verdict = json.loads(ran.stdout)
    assert verdict["draft"] is True and verdict["open_reviews"] == ["age"]
    (stored,) = {
        s["event"].result.nativeResults["draft"]
        for s in _assertions(world["store"], urn("personal")).values()
    }
    assert stored == "true"


def test_the_store_from_the_environment_and_the_text_report(world, cli):
    env = {**_env(world), "PRIVCHECK_DATAHUB_STORE": str(world["store"])}
    ran = cli(
        "catalog",
        "check",
        urn("passing"),
        world["passing"],
        "--policy",
        world["base.yaml"],
        env=env,
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines()[0] == f"PASS {urn('passing')} (18 records)"
    assert ran.stdout.splitlines()[1].startswith("  PASS k-anonymity (k=2) holds: class size 3")
    assert f"to DataHub at {world['store']}" in ran.stderr
    assert len(_assertions(world["store"], urn("passing"))) == 2
    assert not (world["home"] / ".datahub" / "lite").exists()  # the default store untouched


def test_a_tagged_column_the_data_lacks_is_left_out_with_a_note(world):
    dataset = DataHubCatalog(store=world["store"]).read_dataset(urn("contradicting"))
    policy, notes = tagged_policy(
        dataset, load_policy(world["base.yaml"]), ["zip", "age", "disease"]
    )
    assert "birth" not in policy.attributes
    assert notes == [
        "column 'birth' is tagged insensitive in the catalog but the data has no such column: "
        "left out of the check"
    ]


def test_a_store_that_is_not_a_datahub_database_exits_2(world, cli, tmp_path):
    garbage = tmp_path / "garbage.db"
    garbage.write_text("not a database\n")
    for args in (
        ("check", urn("passing"), world["passing"], "--policy", world["base.yaml"]),
        ("status", urn("passing")),
    ):
        run = cli("catalog", *args, "--store", garbage)
        assert "cannot read DataHub at" in _one_line_exit_2(run)
    assert garbage.read_text() == "not a database\n"


def test_a_duckdb_store_is_recognised_by_its_header(world, cli, tmp_path):
    """DataHub Lite's other back-end: a DuckDB file (named .db here: the header decides)."""
    store = tmp_path / "duck" / "datahub.db"
    store.parent.mkdir()
    seed(store, "duckdb")
    ran = cli(
        "catalog", "check", urn("failing"), world["failing"], "--policy", world["base.yaml"],
        "--store", store.parent, "--format", "json",
    )  # fmt: skip
    assert ran.returncode == 1, ran.stderr
    stored = _assertions(store, urn("failing"), "duckdb")
    assert {s["event"].result.type for s in stored.values()} == {"FAILURE"} and len(stored) == 2


def test_status_reports_the_latest_policy_only(world, tmp_path):
    """A changed policy is a new assertion (other parameters); status shows the latest run."""
    from privcheck.catalogs.tagged import check_in_catalog

    catalog = DataHubCatalog(store=world["store"])
    first, _ = check_in_catalog(catalog, urn("failing"), world["failing"], world["base.yaml"])
    stricter = tmp_path / "k3.yaml"
    stricter.write_text(BASE.replace("k: 2", "k: 3"))
    second, _ = check_in_catalog(catalog, urn("failing"), world["failing"], stricter)
    assert len(_assertions(world["store"], urn("failing"))) == 3  # k=2, k=3, the same l-diversity
    latest = catalog.latest_results(urn("failing"))
    assert [(r.model, r.params) for r in latest] == [
        ("k-anonymity", {"k": 3}),
        ("l-diversity", {"attribute": "disease", "variant": "distinct", "l": 2.0}),
    ]
    assert {r.policy_digest for r in latest} == {second.policy_digest} != {first.policy_digest}
