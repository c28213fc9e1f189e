"""Parquet columns of every Arrow type through every command (issue 30): no traceback.

Nested columns (list, large and fixed-size list, struct, map) crashed ``check``, ``anonymize``,
``init``, ``compare`` and ``api.evaluate``. The rule (``privcheck.nested``): a nested column the
policy uses — quasi-identifier, sensitive or insensitive — is refused in one line naming the
column, its type and the fix; one the policy does not name (or names as an identifier, which is
only removed) is ignored by ``check`` and left out of a release; ``init`` leaves it out of the
draft with a note. Plain types Arrow has besides strings and numbers (dictionary, large_string,
binary, decimal, time, duration, null, date, timestamp with a zone, uint64) run through every
command without a traceback, and a release written with exit 0 passes ``check`` again.
"""

from __future__ import annotations

import datetime as dt
import decimal
import hashlib
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from privcheck.api import evaluate
from privcheck.errors import DataError
from privcheck.nested import is_nested_arrow, nested_kind, refuse_nested
from privcheck.policy import load_policy
from tests.test_fuzz_inputs import run_cli

N = 12
ZIPS = ["13053", "13068", "13068", "13053", "14853", "14853", "14850", "14850"] + ["13053"] * 4
AGES = [28, 29, 21, 23, 50, 55, 47, 49, 31, 36, 35, 32]
DISEASES = ["flu", "flu", "cold", "cold", "hiv", "flu", "cold", "hiv", "flu", "cold", "hiv", "flu"]

NESTED = {
    "list": lambda: pa.array([[i % 3, 1] for i in range(N)]),
    "large_list": lambda: pa.array([[i % 3] for i in range(N)], pa.large_list(pa.int64())),
    "fixed_size_list": lambda: pa.array([[i % 3, 0] for i in range(N)], pa.list_(pa.int64(), 2)),
    "list_with_nulls": lambda: pa.array([[i % 3] if i % 4 else None for i in range(N)]),
    "struct": lambda: pa.array([{"a": i % 3, "b": str(i % 2)} for i in range(N)]),
    "map": lambda: pa.array([[("k", i % 3)] for i in range(N)], pa.map_(pa.string(), pa.int64())),
    "list_of_structs": lambda: pa.array([[{"x": i % 2}] for i in range(N)]),
}
PLAIN = {
    "dictionary": lambda: pa.array(["x", "y", "z"] * 4).dictionary_encode(),
    "large_string": lambda: pa.array(["x", "y", "z"] * 4, pa.large_string()),
    "binary": lambda: pa.array([b"\x00\xff", b"ab", b"\x80"] * 4, pa.binary()),
    "fixed_size_binary": lambda: pa.array([b"\x00\xff", b"ab", b"\x80\x81"] * 4, pa.binary(2)),
    "decimal": lambda: pa.array([decimal.Decimal(v) for v in ("1.10", "2.25", "-3")] * 4),
    "time": lambda: pa.array([dt.time(1, 2), dt.time(3, 4), dt.time(5, 6)] * 4, pa.time64("us")),
    "duration": lambda: pa.array([dt.timedelta(seconds=i % 3) for i in range(N)], pa.duration("s")),
    "null": lambda: pa.nulls(N),
    "date": lambda: pa.array([dt.date(2020, 1, i % 3 + 1) for i in range(N)]),
    "timestamp_tz": lambda: pa.array(
        [dt.datetime(2020, 1, 1, i % 3) for i in range(N)], pa.timestamp("ms", tz="Europe/Paris")
    ),
    "uint64": lambda: pa.array([2**64 - 1, 2**63 + 1, 5] * 4, pa.uint64()),
}
ROLES = ["quasi_identifier", "sensitive", "insensitive", "identifier", None]


def table_with(column: pa.Array) -> pa.Table:
    return pa.table(
        {"zip": pa.array(ZIPS), "age": pa.array(AGES), "disease": pa.array(DISEASES), "c": column}
    )


def policy_for(role: str | None) -> dict:
    attributes = {
        "zip": {"role": "quasi_identifier"},
        "age": {"role": "quasi_identifier"},
        "disease": {"role": "sensitive"},
    }
    models = [{"model": "k-anonymity", "k": 2}]
    if role is not None:
        attributes["c"] = {"role": role}
    if role == "sensitive":  # (l = 1: any column holds it, so only the reading is tested)
        models.append({"model": "l-diversity", "variant": "distinct", "l": 1, "attribute": "c"})
    return {"attributes": attributes, "models": models, "suppression_limit": 0.5}


@pytest.fixture
def files(tmp_path):
    def make(kind: str, role: str | None, column: pa.Array) -> tuple[Path, Path]:
        data, policy = tmp_path / f"{kind}.parquet", tmp_path / f"{role}.yaml"
        pq.write_table(table_with(column), data)
        policy.write_text(yaml.safe_dump(policy_for(role)), encoding="utf-8")
        return data, policy

    return make


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def one_line(code: int, err: str, *needles: str) -> str:
    assert code == 2, (code, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("role", ["quasi_identifier", "sensitive", "insensitive"])
@pytest.mark.parametrize("kind", sorted(NESTED))
def test_a_nested_column_the_policy_uses_is_refused_in_one_line(files, tmp_path, kind, role):
    column = NESTED[kind]()
    data, policy = files(kind, role, column)
    before = digest(data)
    type_name = str(column.type).split("<")[0]
    release = tmp_path / "r.parquet"
    for args in (
        ["check", data, "-p", policy],
        ["check", data, "-p", policy, "-o", tmp_path / "c.html"],
        ["anonymize", data, "-p", policy, "-o", release, "--seed", "1"],
        ["anonymize", data, "-p", policy, "-o", tmp_path / "r.csv", "--seed", "1"],
        ["compare", data, data, "-p", policy],
        ["risk", "--original", data, "--masked", data, "-p", policy, "-a", "uniqueness"],
    ):
        code, _, err = run_cli(*args)
        one_line(code, err, "'c'", type_name, "flatten")
    for engine in ("polars", "duckdb"):  # (each engine spells the type its own way)
        code, _, err = run_cli("check", data, "-p", policy, "--engine", engine)
        one_line(code, err, "'c'", "nested type", "flatten")
    assert digest(data) == before
    assert not [p for p in tmp_path.iterdir() if p.suffix in (".html", ".csv") or p == release]
    with pytest.raises(DataError, match=f"column 'c' holds {type_name}"):
        evaluate(data, policy)


@pytest.mark.parametrize("role", ["identifier", None])
@pytest.mark.parametrize("kind", sorted(NESTED))
def test_a_nested_column_the_policy_does_not_read_is_left_alone(files, tmp_path, kind, role):
    data, policy = files(kind, role, NESTED[kind]())
    code, _, err = run_cli("check", data, "-p", policy)
    assert code in (0, 1) and not err.strip(), err
    release = tmp_path / "r.parquet"
    code, _, err = run_cli("anonymize", data, "-p", policy, "-o", release, "--seed", "1")
    assert code == 0, err
    assert "c" not in pq.read_schema(release).names  # left out of the release
    assert run_cli("check", release, "-p", policy)[0] == 0
    assert run_cli("compare", data, release, "-p", policy)[0] == 0
    evaluate(data, policy)  # no exception


@pytest.mark.parametrize("kind", [*sorted(NESTED), "binary"])
def test_init_leaves_a_nested_or_binary_column_out_with_a_note(files, tmp_path, kind):
    data, _ = files(kind, None, {**NESTED, **PLAIN}[kind]())
    out = tmp_path / "draft.yaml"
    code, _, err = run_cli("init", data, "-o", out)
    assert code == 0, err
    draft = yaml.safe_load(out.read_text())
    assert "c" not in draft["attributes"] and {"zip", "age", "disease"} <= set(draft["attributes"])
    code, stdout, _ = run_cli("init", data, "-o", out, "--force", "--format", "json")
    assert code == 0 and "'c'" in stdout and "left out of the draft" in stdout
    assert run_cli("check", data, "-p", out)[0] in (0, 1)


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("kind", sorted(PLAIN))
def test_plain_arrow_types_run_through_every_command(files, tmp_path, kind, role):
    data, policy = files(kind, role, PLAIN[kind]())
    before = digest(data)
    for args in (
        ["check", data, "-p", policy],
        ["check", data, "-p", policy, "-o", tmp_path / "c.html"],
        ["compare", data, data, "-p", policy],
        ["risk", "--original", data, "--masked", data, "-p", policy, "-a", "uniqueness"],
    ):
        code, _, err = run_cli(*args)
        assert code in (0, 1, 2) and "Traceback" not in err, (args, err)
        if code == 2:
            one_line(code, err)
    for name in ("r.parquet", "r.csv"):
        release = tmp_path / name
        code, _, err = run_cli("anonymize", data, "-p", policy, "-o", release, "--seed", "1")
        assert code in (0, 2) and "Traceback" not in err, err
        if code == 2:
            one_line(code, err)
            assert not release.exists()
        else:  # every release re-checks with its own policy
            assert run_cli("check", release, "-p", policy)[0] == 0, name
    code, _, err = run_cli("init", data, "-o", tmp_path / "draft.yaml")
    assert code == 0, err
    assert digest(data) == before


def test_the_message_names_the_parquet_type_for_a_dataframe_too(tmp_path):
    """A DataFrame read from Parquet keeps the nested columns' Arrow types (``attrs``); one
    from elsewhere is judged by its first value; an Arrow table by its schema."""
    import pandas as pd

    from privcheck.io import read_table

    path = tmp_path / "d.parquet"
    pq.write_table(table_with(NESTED["map"]()), path)
    policy = load_policy(policy_for("insensitive"))
    frame = read_table(path)
    with pytest.raises(DataError, match=r"holds map<string, int64"):
        refuse_nested(frame, policy)
    with pytest.raises(DataError, match=r"holds map<string, int64"):
        refuse_nested(pq.read_table(path), policy)
    plain = pd.DataFrame({"zip": ZIPS, "age": AGES, "disease": DISEASES, "c": [{"a": 1}] * N})
    with pytest.raises(DataError, match="holds struct values"):
        refuse_nested(plain, policy)
    assert nested_kind(pd.Series([None, [1, 2]])) == "list"
    assert nested_kind(pd.Series(["a", None])) is None
    assert is_nested_arrow(pa.dictionary(pa.int8(), pa.string())) is False
    assert is_nested_arrow(pa.list_(pa.int8())) is True


def test_a_list_further_down_a_column_of_values_is_one_line_too(tmp_path):
    """The first value decides the type; a list in row 5 of a column of strings is caught where
    the values are hashed into codes."""
    import pandas as pd

    from privcheck.pipeline.check import check

    frame = pd.DataFrame(
        {"zip": [*ZIPS[:5], ["1", "2"], *ZIPS[6:]], "age": AGES, "disease": DISEASES}
    )
    with pytest.raises(DataError, match="column 'zip' holds unhashable"):
        check(frame, policy_for(None))
