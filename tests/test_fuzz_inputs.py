"""Fuzzing the gate: hostile policies, parameters and files through the real CLI entry point.

Hypothesis mutates a valid policy (any field replaced by another type, a non-finite or huge
number, a nested structure, a repeated key, an alias), writes it as YAML or JSON (or as raw
bytes), and passes hostile ``--param`` values to the anonymizers. Whatever it produces, the
contract holds: exit 0, 1 or 2; for 2 exactly one line on stderr and no file written; never an
uncaught exception (what a user sees as a traceback); the inputs byte-identical; and a release
written with exit 0 passes ``check`` with the same policy file.

The CLI runs in-process (``privcheck.cli.main``) so that hundreds of cases fit in a few seconds;
``PRIVCHECK_FUZZ_CASES`` raises the number of examples for a longer local run.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import os
import sys
import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privcheck import progress
from privcheck.cli import main
from privcheck.cli.entry import configure_logging
from tests.conftest import EXAMPLES

CASES = int(os.environ.get("PRIVCHECK_FUZZ_CASES", "40"))
FUZZ = settings(
    max_examples=CASES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,  # CI sees the same cases every run; raise PRIVCHECK_FUZZ_CASES to explore
)

VALID = {
    "attributes": {
        "zip": {"role": "quasi_identifier", "hierarchy": {"type": "masking", "levels": 5}},
        "age": {"role": "quasi_identifier"},
        "disease": {"role": "sensitive"},
        "salary": {"role": "insensitive"},
    },
    "models": [
        {"model": "k-anonymity", "k": 2},
        {"model": "l-diversity", "variant": "distinct", "l": 2, "attribute": "disease"},
    ],
    "suppression_limit": 0.3,
}

HOSTILE_SCALARS = st.sampled_from(
    [
        True, False, None, 0, -1, 1, 2, 3, 2**63, -(2**63) - 1, 10**400, 0.5, -0.5, 1e308,
        math.inf, -math.inf, math.nan, "", "*", "x", "true", "5", ".inf", "1e999", "\u0000",
        "é" * 3, "a" * 300, "../../etc/passwd", "/dev/zero",
    ]
)  # fmt: skip
HOSTILE = st.recursive(
    HOSTILE_SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


def _paths(node, prefix=()):
    """Every (path, value) inside a nested dict/list."""
    yield prefix, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _paths(value, (*prefix, i))


def _replace(node, path, value):
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(node, dict):
        return {**node, head: _replace(node[head], rest, value)}
    out = list(node)
    out[head] = _replace(out[head], rest, value)
    return out


@st.composite
def mutated_policies(draw) -> dict:
    policy = VALID
    for _ in range(draw(st.integers(1, 3))):
        spots = [p for p, _ in _paths(policy)]
        path = draw(st.sampled_from(spots))
        action = draw(st.sampled_from(["replace", "replace", "add_key", "drop"]))
        if action == "replace" or not path:
            policy = _replace(policy, path, draw(HOSTILE))
        elif action == "add_key":
            parent = path[:-1]
            target = dict(_paths(policy))[parent]
            if isinstance(target, dict):
                key = draw(st.sampled_from(["k", "l", "t", "role", "extra", "top", "path"]))
                policy = _replace(policy, parent, {**target, key: draw(HOSTILE)})
        else:
            parent = path[:-1]
            target = dict(_paths(policy))[parent]
            if isinstance(target, dict):
                policy = _replace(
                    policy, parent, {k: v for k, v in target.items() if k != path[-1]}
                )
    return policy


def _serialise(policy, fmt: str) -> bytes:
    if fmt == "json":
        return json.dumps(policy, allow_nan=True, default=str).encode()
    try:
        return yaml.safe_dump(policy, allow_unicode=True).encode()
    except yaml.YAMLError:
        return json.dumps(policy, allow_nan=True, default=str).encode()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run_cli(*args) -> tuple[int, str, str]:
    """``privcheck ARGS`` in this process: (exit code, stdout, stderr). An exception other than
    the exit is what a user would see as a traceback, and fails the test as it propagates."""
    out, err = io.StringIO(), io.StringIO()
    argv = sys.argv
    sys.argv = ["privcheck", "-q", *map(str, args)]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main()
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.argv = argv
        progress.configure(quiet=False)  # (-q is process-wide state; leave none behind)
        configure_logging(False)
    return code, out.getvalue(), err.getvalue()


def assert_contract(folder: Path, inputs: list[Path], outputs: list[Path], *args) -> int:
    before = {p: _digest(p) for p in inputs}
    code, out, err = run_cli(*args)
    assert code in (0, 1, 2), (code, args, out, err)
    assert "Traceback" not in err, err
    if code == 2:
        assert len(err.strip().splitlines()) == 1, err
        assert not any(p.exists() for p in outputs), (args, err)
    assert {p: _digest(p) for p in inputs} == before
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]  # no temporaries left
    return code


@FUZZ
@given(policy=mutated_policies(), fmt=st.sampled_from(["yaml", "json"]))
def test_mutated_policies_keep_the_contract(policy, fmt):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        data = folder / "d.csv"
        data.write_bytes((EXAMPLES / "three_diverse.csv").read_bytes())
        path = folder / f"policy.{fmt}"
        path.write_bytes(_serialise(policy, fmt))
        assert_contract(folder, [data, path], [], "check", data, "-p", path)
        release = folder / "r.csv"
        code = assert_contract(
            folder, [data, path], [release], "anonymize", data, "-p", path, "-a", "mingen",
            "-o", release, "--seed", "1",
        )  # fmt: skip
        if code == 0:
            assert assert_contract(folder, [release, path], [], "check", release, "-p", path) == 0


@FUZZ
@given(content=st.binary(max_size=300))
def test_arbitrary_bytes_as_a_policy_are_refused_in_one_line(content):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        data = folder / "d.csv"
        data.write_bytes((EXAMPLES / "three_diverse.csv").read_bytes())
        path = folder / "policy.yaml"
        path.write_bytes(content)
        out = folder / "report.json"
        assert_contract(folder, [data, path], [out], "check", data, "-p", path, "-o", out)


PARAM_VALUES = st.one_of(
    st.sampled_from(
        ["0", "-1", "2", "1e400", ".inf", ".nan", "true", "maybe", "[", "{a: 1, a: 2}",
         "[" * 100 + "]" * 100, "&a [*a]", "!!python/object:os.system", "*", "9" * 50]
    ),
    st.text(max_size=20),
)  # fmt: skip


@FUZZ
@given(
    algorithm=st.sampled_from(["mingen", "datafly", "mondrian", "local-suppression", "mdav"]),
    key=st.sampled_from(["k", "steps", "tradeoff", "aggregate", "deletions", "p", "x"]),
    value=PARAM_VALUES,
)
def test_hostile_parameters_keep_the_contract(algorithm, key, value):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        data = folder / "d.csv"
        data.write_bytes((EXAMPLES / "three_diverse.csv").read_bytes())
        policy = folder / "policy.yaml"
        policy.write_text(yaml.safe_dump(VALID))
        release = folder / "r.csv"
        code = assert_contract(
            folder, [data, policy], [release], "anonymize", data, "-p", policy, "-a", algorithm,
            "--param", f"{key}={value}", "-o", release, "--seed", "1",
        )  # fmt: skip
        if code == 0:
            assert assert_contract(
                folder, [release, policy], [], "check", release, "-p", policy
            ) in (
                0,
                1,  # masking methods (mdav) may release what fails the policy: exit 1 is theirs
            )
