"""Bounded work for every input (issue 30, item 2): a small input never buys minutes of work.

Each finding of the issue, and variations of it, runs the real CLI in a subprocess on an input
built here: the run must end well within its (generous) time limit with exit 2, one line on
stderr naming the limit (its ``PRIVCHECK_MAX_…`` variable) and no file written. Legitimate large
inputs — Adult with ARX's hierarchies, as files and inline — still pass. Timings are not asserted
tightly (the machine may be busy); the subprocess time limit is the assertion.
"""

from __future__ import annotations

import json
import random
import subprocess
import time
import zipfile
from pathlib import Path

import pytest
import yaml

from privcheck.limits import LIMITS, LimitError
from tests.conftest import ADULT, run_cli

ROOT = Path(__file__).resolve().parent.parent
#: far above what a bounded run takes, far below what the unbounded ones took (minutes)
TIMEOUT = 60


def run(*args, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """``privcheck ARGS`` (in this process, ``run_cli``), stopped after ``TIMEOUT`` seconds."""
    return run_cli(*map(str, args), cwd=cwd, env=env, timeout=TIMEOUT)


def refused(res: subprocess.CompletedProcess, variable: str, *needles: str) -> str:
    """Exit 2, one line, no traceback, the limit's variable and ``needles`` named."""
    assert res.returncode == 2, (res.returncode, res.stdout[-500:], res.stderr[-2000:])
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    assert variable in lines[0], lines[0]
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def write_policy(path: Path, policy: dict) -> Path:
    path.write_text(json.dumps(policy) if path.suffix == ".json" else yaml.safe_dump(policy))
    return path


def write_csv(path: Path, header: list[str], rows: list[list]) -> Path:
    lines = [",".join(header), *(",".join(map(str, r)) for r in rows)]
    path.write_text("\n".join(lines) + "\n")
    return path


def k_anonymity(k: int = 2) -> list[dict]:
    return [{"model": "k-anonymity", "k": k}]


# --------------------------------------------------------------------------- policies


def test_a_5_mb_policy_is_refused_before_it_is_parsed(tmp_path):
    rows = "".join(f"        - ['{i:06d}', '{i // 10:05d}*', '*']\n" for i in range(150_000))
    text = (
        "attributes:\n  zip:\n    role: quasi_identifier\n    hierarchy:\n"
        f"      type: table\n      rows:\n{rows}"
    )
    policy = tmp_path / "big.yaml"
    policy.write_text(text + "models:\n  - {model: k-anonymity, k: 2}\n")
    assert policy.stat().st_size > 4_000_000
    data = write_csv(tmp_path / "d.csv", ["zip"], [["000001"]])
    refused(run("check", data, "-p", policy), "PRIVCHECK_MAX_DOCUMENT_BYTES", "big.yaml")


@pytest.mark.parametrize(
    "shape",
    [
        "x: [" + ",".join(["1"] * 300_000) + "]\n",  # half a million one-character values
        "x:\n" + "- a\n" * 200_000,
        "x:\n" + "".join(f" k{i}: 1\n" for i in range(60_000)),
        "attributes:\n" + "".join(f"  c{i}: {{role: quasi_identifier}}\n" for i in range(26_000)),
    ],
    ids=["flow-list", "block-list", "mapping", "attributes"],
)
def test_a_policy_of_too_many_values_under_the_byte_limit_is_refused_fast(tmp_path, shape):
    policy = tmp_path / "p.yaml"
    policy.write_text(shape)
    assert policy.stat().st_size <= LIMITS["document_bytes"].default
    data = write_csv(tmp_path / "d.csv", ["a"], [[1]])
    refused(run("check", data, "-p", policy), "PRIVCHECK_MAX_DOCUMENT_VALUES", "values")


def test_a_policy_of_thousands_of_models_or_attributes_is_refused(tmp_path):
    data = write_csv(tmp_path / "d.csv", ["age"], [[20 + i] for i in range(30)])
    many_models = {
        "attributes": {"age": {"role": "quasi_identifier"}},
        "models": k_anonymity() * 5000,
    }
    policy = write_policy(tmp_path / "models.json", many_models)
    refused(run("check", data, "-p", policy), "PRIVCHECK_MAX_MODELS", "5,000 models")
    names = [f"c{i}" for i in range(8000)]
    wide = write_csv(
        tmp_path / "wide.csv", names, [[(r + i) % 7 for i in range(8000)] for r in range(5)]
    )
    many = {"attributes": {n: {"role": "quasi_identifier"} for n in names}, "models": k_anonymity()}
    policy = write_policy(tmp_path / "attributes.json", many)
    refused(run("check", wide, "-p", policy), "PRIVCHECK_MAX_ATTRIBUTES", "8,000 attributes")


def test_the_largest_inline_hierarchy_within_the_limits_loads(tmp_path):
    """About 16,000 inline rows of five levels: accepted, and parsed in seconds."""
    from privcheck.policy import load_policy

    rows = [
        [f"{i:06d}", f"{i:06d}"[:5], f"{i:06d}"[:4], f"{i:06d}"[:3], "*"] for i in range(16_000)
    ]
    spec = {"type": "table", "rows": rows}
    policy = tmp_path / "p.yaml"  # one row a line, as a person (or init) writes it
    policy.write_text(
        yaml.safe_dump(
            {"attributes": {"zip": {"role": "quasi_identifier", "hierarchy": spec}}},
            default_flow_style=None,
            width=200,
        )
        + "models:\n  - {model: k-anonymity, k: 2}\n"
    )
    assert policy.stat().st_size <= LIMITS["document_bytes"].default
    started = time.process_time()
    loaded = load_policy(policy)
    assert loaded.attributes["zip"].hierarchy.rows[-1] == rows[-1]
    assert time.process_time() - started < 20  # ~1 s of CPU; not a tight bound


# --------------------------------------------------------------------------- model files


def _bomb(path: Path, megabytes: int) -> Path:
    """A skops-shaped zip whose schema.json inflates to ``megabytes`` of blanks (ratio ~1,000)."""
    chunk = b" " * (1 << 20)
    with (
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf,
        zf.open("schema.json", "w", force_zip64=True) as fh,
    ):
        fh.write(b'{"__class__": "x", "pad": "')
        for _ in range(megabytes):
            fh.write(chunk)
        fh.write(b'"}')
    return path


@pytest.mark.parametrize(
    "megabytes, env, variable",
    [
        (64, {}, "PRIVCHECK_MAX_COMPRESSION_RATIO"),
        (40, {"PRIVCHECK_MAX_MODEL_FILE_BYTES": str(32 << 20)}, "PRIVCHECK_MAX_MODEL_FILE_BYTES"),
    ],
)
def test_a_zip_bomb_model_file_is_refused_before_it_is_inflated(
    tmp_path, monkeypatch, megabytes, env, variable
):
    pytest.importorskip("skops")
    from privcheck.risk.model_file import load_model_file

    bomb = _bomb(tmp_path / "model.skops", megabytes)
    assert bomb.stat().st_size < megabytes * 10_000  # a small file
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(LimitError, match=variable):
        load_model_file(bomb)


def test_the_zip_bomb_through_the_cli_is_one_line(tmp_path):
    pytest.importorskip("skops")
    pytest.importorskip("sklearn")
    bomb = _bomb(tmp_path / "model.skops", 64)
    rng = random.Random(1)
    header = ["a", "b", "y"]
    rows = [[rng.randint(0, 9), rng.randint(0, 9), rng.randint(0, 1)] for _ in range(60)]
    members = write_csv(tmp_path / "train.csv", header, rows[:30])
    control = write_csv(tmp_path / "control.csv", header, rows[30:])
    policy = write_policy(
        tmp_path / "p.yaml",
        {
            "attributes": {
                "a": {"role": "quasi_identifier"},
                "b": {"role": "quasi_identifier"},
                "y": {"role": "sensitive"},
            },
            "models": k_anonymity(),
        },
    )
    out = tmp_path / "risk.json"
    res = run(
        "risk", "--original", members, "--masked", members, "-p", policy,
        "-a", "membership-inference", "--control", control,
        "--param", f"model={bomb}", "--param", "target=y", "-o", out,
    )  # fmt: skip
    refused(res, "PRIVCHECK_MAX_COMPRESSION_RATIO")
    assert not out.exists()


# --------------------------------------------------------------------------- hierarchies


def test_100000_interval_levels_on_30_rows_are_refused(tmp_path):
    data = write_csv(tmp_path / "d.csv", ["age"], [[20 + i] for i in range(30)])
    age = {"type": "intervals", "widths": [1] * 100_000}
    policy = write_policy(
        tmp_path / "p.json",
        {
            "attributes": {"age": {"role": "quasi_identifier", "hierarchy": age}},
            "models": k_anonymity(),
        },
    )
    out = tmp_path / "r.csv"
    for args in (["check", data], ["anonymize", data, "-o", out]):
        refused(run(*args, "-p", policy), "PRIVCHECK_MAX_HIERARCHY_LEVELS", "'age'", "100,001")
    assert not out.exists()


def test_a_hierarchy_file_of_many_columns_and_masking_of_long_values_are_refused(tmp_path):
    rng = random.Random(2)
    values = ["".join(rng.choice("0123456789") for _ in range(300)) for _ in range(40)]
    data = write_csv(
        tmp_path / "d.csv", ["code", "zip"], [[v, f"{i:05d}"] for i, v in enumerate(values)]
    )
    table = tmp_path / "zip.csv"
    table.write_text("".join(";".join([f"{i:05d}"] * 200) + "\n" for i in range(40)))
    policy = write_policy(
        tmp_path / "p.yaml",
        {
            "attributes": {
                "code": {"role": "quasi_identifier", "hierarchy": {"type": "masking"}},
                "zip": {
                    "role": "quasi_identifier",
                    "hierarchy": {"type": "table", "path": "zip.csv"},
                },
            },
            "models": k_anonymity(),
        },
    )
    out = tmp_path / "r.csv"
    line = refused(
        run("anonymize", data, "-p", policy, "-o", out), "PRIVCHECK_MAX_HIERARCHY_LEVELS"
    )
    assert "'code'" in line or "'zip'" in line
    assert not out.exists()


# --------------------------------------------------------------------------- searches


def _intervals_policy(path: Path, q: int, levels: int, models: list[dict], **extra) -> Path:
    widths = [2**i for i in range(1, levels)]
    attributes = {
        f"a{j}": {"role": "quasi_identifier", "hierarchy": {"type": "intervals", "widths": widths}}
        for j in range(q)
    }
    attributes["s"] = {"role": "sensitive"}
    return write_policy(path, {"attributes": attributes, "models": models, **extra})


def _intervals_data(path: Path, q: int, levels: int, n: int = 100) -> Path:
    rng = random.Random(5)
    rows = [[rng.randrange(2**levels) for _ in range(q)] + [rng.choice("xyzw")] for _ in range(n)]
    return write_csv(path, [f"a{j}" for j in range(q)] + ["s"], rows)


def test_two_300_level_columns_under_incognito_are_refused(tmp_path):
    data = write_csv(tmp_path / "d.csv", ["a", "b"], [[i, (i * 7) % 200] for i in range(200)])
    widths = {"type": "intervals", "widths": [1] * 300}
    policy = write_policy(
        tmp_path / "p.yaml",
        {
            "attributes": {
                "a": {"role": "quasi_identifier", "hierarchy": widths},
                "b": {"role": "quasi_identifier", "hierarchy": widths},
            },
            "models": k_anonymity(5),
        },
    )
    out = tmp_path / "r.csv"
    refused(
        run("anonymize", data, "-p", policy, "-a", "incognito", "-o", out),
        "PRIVCHECK_MAX_HIERARCHY_LEVELS",
    )
    assert not out.exists()


def test_a_lattice_incognito_would_evaluate_node_by_node_is_refused(tmp_path):
    data = _intervals_data(tmp_path / "d.csv", 3, 25)
    policy = _intervals_policy(tmp_path / "p.yaml", 3, 25, k_anonymity(3))
    out = tmp_path / "r.csv"
    res = run("anonymize", data, "-p", policy, "-a", "incognito", "-o", out)
    refused(res, "PRIVCHECK_MAX_EXHAUSTIVE_NODES", "17,576 nodes", "26 × 26 × 26")
    assert not out.exists()
    # the override lifts it: the same search, allowed (small enough here to run)
    small = _intervals_policy(tmp_path / "small.yaml", 2, 8, k_anonymity(3))
    env = {"PRIVCHECK_MAX_EXHAUSTIVE_NODES": "80"}  # the lattice has 9 × 9 = 81 nodes
    res = run("anonymize", data, "-p", small, "-a", "incognito", "-o", out, env=env)
    refused(res, "PRIVCHECK_MAX_EXHAUSTIVE_NODES", "81 nodes")
    env = {"PRIVCHECK_MAX_EXHAUSTIVE_NODES": "81"}
    res = run("anonymize", data, "-p", small, "-a", "incognito", "-o", out, env=env)
    assert res.returncode == 0, res.stderr
    assert out.exists()


def test_incognito_over_30_quasi_identifiers_without_hierarchies_is_refused(tmp_path):
    """2^30 attribute subsets, whatever the (one-node) lattice."""
    rng = random.Random(7)
    names = [f"q{j}" for j in range(30)]
    data = write_csv(
        tmp_path / "d.csv", names, [[rng.randrange(4) for _ in names] for _ in range(60)]
    )
    policy = write_policy(
        tmp_path / "p.yaml",
        {"attributes": {n: {"role": "quasi_identifier"} for n in names}, "models": k_anonymity()},
    )
    out = tmp_path / "r.csv"
    refused(
        run("anonymize", data, "-p", policy, "-a", "incognito", "-o", out),
        "PRIVCHECK_MAX_EXHAUSTIVE_NODES",
        "2^30",
    )
    refused(
        run("anonymize", data, "-p", policy, "-a", "local-suppression", "-o", out),
        "PRIVCHECK_MAX_BLANKING_PATTERNS",
    )
    assert not out.exists()


def test_mingen_sweeping_a_lattice_it_cannot_prune_is_refused_before_the_sweep(tmp_path):
    data = _intervals_data(tmp_path / "d.csv", 3, 25)
    models = [
        {"model": "k-anonymity", "k": 1},
        {"model": "delta-disclosure", "delta": 3.0, "attribute": "s"},
    ]
    policy = _intervals_policy(tmp_path / "p.yaml", 3, 25, models, suppression_limit=0.1)
    out = tmp_path / "r.csv"
    res = run("anonymize", data, "-p", policy, "-a", "mingen", "-o", out)
    refused(res, "PRIVCHECK_MAX_EXHAUSTIVE_NODES", "mingen")
    assert not out.exists()


def test_a_lattice_beyond_64_bits_is_refused_in_one_line_and_datafly_walks_it(tmp_path):
    """20 quasi-identifiers of 62 levels: 63^20 nodes (numpy's product wrapped around, and
    DataFly built the table of every node: 8 GB for 7^10 before it took a step)."""
    data = _intervals_data(tmp_path / "d.csv", 20, 62, n=20)
    policy = _intervals_policy(tmp_path / "p.yaml", 20, 62, k_anonymity())
    for algorithm in ("mingen", "incognito"):
        res = run("anonymize", data, "-p", policy, "-a", algorithm, "-o", tmp_path / "r.csv")
        refused(res, "PRIVCHECK_MAX_LATTICE_NODES", "has about 9.7e+35 nodes")
    out = tmp_path / "datafly.csv"
    res = run("anonymize", data, "-p", policy, "-a", "datafly", "-o", out)
    assert res.returncode == 0, res.stderr
    assert run("check", out, "-p", policy).returncode == 0


def test_a_wide_policy_is_refused_by_every_anonymizer(tmp_path):
    names = [f"c{i}" for i in range(2000)]
    data = write_csv(
        tmp_path / "d.csv", names, [[(r * 31 + i) % 7 for i in range(2000)] for r in range(20)]
    )
    policy = write_policy(
        tmp_path / "p.yaml",
        {"attributes": {n: {"role": "quasi_identifier"} for n in names}, "models": k_anonymity()},
    )
    for algorithm in ("datafly", "mondrian", "auto"):
        res = run("anonymize", data, "-p", policy, "-a", algorithm, "-o", tmp_path / "r.csv")
        refused(res, "PRIVCHECK_MAX_QUASI_IDENTIFIERS", "2,000")
    assert run("check", data, "-p", policy).returncode == 0  # a check takes any number


def test_local_suppression_over_14_quasi_identifiers_is_refused_and_auto_goes_on(tmp_path):
    rng = random.Random(9)
    names = [f"q{j}" for j in range(14)]
    data = write_csv(
        tmp_path / "d.csv", names, [[rng.randrange(4) for _ in names] for _ in range(300)]
    )
    policy = write_policy(
        tmp_path / "p.yaml",
        {"attributes": {n: {"role": "quasi_identifier"} for n in names}, "models": k_anonymity()},
    )
    out = tmp_path / "r.csv"
    refused(
        run("anonymize", data, "-p", policy, "-a", "local-suppression", "-o", out),
        "PRIVCHECK_MAX_BLANKING_PATTERNS",
        "16,382",
    )
    assert not out.exists()
    report = tmp_path / "report.json"
    res = run("anonymize", data, "-p", policy, "-o", out, "--report", report)
    assert res.returncode == 0, res.stderr
    rows = {r["algorithm"]: r for r in json.loads(report.read_text())["candidates"]}
    assert "PRIVCHECK_MAX_BLANKING_PATTERNS" in rows["local-suppression"]["excluded_reason"]


# --------------------------------------------------------------------------- init, explain


def test_init_on_5000_columns_is_refused(tmp_path):
    names = [f"c{i}" for i in range(5000)]
    data = write_csv(
        tmp_path / "wide.csv", names, [[(r * 31 + i) % 7 for i in range(5000)] for r in range(20)]
    )
    out = tmp_path / "policy.yaml"
    refused(run("init", data, "-o", out), "PRIVCHECK_MAX_PROFILED_COLUMNS", "5,000")
    assert not out.exists() and not (tmp_path / "hierarchies").exists()


@pytest.mark.parametrize("size", [25, 6])
def test_an_explanation_of_too_many_combinations_is_refused(tmp_path, size):
    rng = random.Random(3)
    names = [f"q{j}" for j in range(30)]
    data = write_csv(
        tmp_path / "d.csv", names, [[rng.randrange(4) for _ in names] for _ in range(100)]
    )
    policy = write_policy(
        tmp_path / "p.yaml",
        {"attributes": {n: {"role": "quasi_identifier"} for n in names}, "models": k_anonymity()},
    )
    out = tmp_path / "report.json"
    res = run("check", data, "-p", policy, "--explain", "--explain-max-size", size, "-o", out)
    refused(res, "PRIVCHECK_MAX_EXPLAIN_SUBSETS", "combinations")
    assert not out.exists()
    res = run("check", data, "-p", policy, "--explain")  # the default fits
    assert res.returncode == 1, res.stderr


# --------------------------------------------------------------------------- hook globs


@pytest.mark.parametrize(
    "glob",
    [
        "**/" * 300 + "a.csv",
        "*a" * 200 + "b",
        "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b.csv",
        "**/*a" * 60 + "/x",
        "releases/" + "**/**/*" * 80 + ".csv",
        "[!z]*" * 150 + "q",
    ],
    ids=["dstar-slash", "star-a", "star-a-csv", "mixed", "nested", "classes"],
)
def test_backtracking_globs_match_in_linear_time(tmp_path, glob):
    folder = tmp_path / ("a" * 40) / ("a" * 40)
    folder.mkdir(parents=True)
    write_csv(folder / ("a" * 60 + ".csv"), ["x"], [[1]])
    (tmp_path / "p.yaml").write_text(
        yaml.safe_dump({"attributes": {"x": {"role": "insensitive"}}, "models": k_anonymity(1)})
    )
    (tmp_path / "privcheck.toml").write_text(
        f"[[check]]\nfiles = {json.dumps([glob])}\npolicy = 'p.yaml'\n"
    )
    res = run("hook", cwd=tmp_path)
    assert res.returncode in (0, 1), res.stderr
    assert "Traceback" not in res.stderr
    explicit = folder / ("a" * 60 + ".csv")
    res = run("hook", explicit, cwd=tmp_path)
    assert res.returncode in (0, 1), res.stderr


@pytest.mark.parametrize(
    "glob, variable",
    [("data/[z-a].csv", "reversed character range"), ("x" * 2000, "PRIVCHECK_MAX_GLOB_CHARACTERS")],
)
def test_bad_globs_are_one_line(tmp_path, glob, variable):
    (tmp_path / "p.yaml").write_text(yaml.safe_dump({"attributes": {}, "models": []}))
    (tmp_path / "privcheck.toml").write_text(
        f"[[check]]\nfiles = [{json.dumps(glob)}]\npolicy = 'p.yaml'\n"
    )
    res = run("hook", cwd=tmp_path)
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and variable in lines[0] and "check[0].files[0]" in lines[0], res.stderr


def test_a_class_holding_a_bracket_is_a_glob_not_a_traceback(tmp_path):
    (tmp_path / "data").mkdir()
    write_csv(tmp_path / "data" / "].csv", ["x"], [[1]])
    (tmp_path / "p.yaml").write_text(
        yaml.safe_dump({"attributes": {"x": {"role": "insensitive"}}, "models": k_anonymity(1)})
    )
    (tmp_path / "privcheck.toml").write_text(
        "[[check]]\nfiles = ['data/[]].csv']\npolicy = 'p.yaml'\n"
    )
    res = run("hook", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "data/].csv: passed" in res.stdout


def test_a_file_many_rules_assign_one_policy_is_checked_once(tmp_path):
    write_csv(tmp_path / "a.csv", ["x"], [[1]])
    (tmp_path / "p.yaml").write_text(
        yaml.safe_dump({"attributes": {"x": {"role": "insensitive"}}, "models": k_anonymity(1)})
    )
    rules = "".join("[[check]]\nfiles = ['*.csv']\npolicy = 'p.yaml'\n" for _ in range(500))
    (tmp_path / "privcheck.toml").write_text(rules)
    res = run("hook", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.count("a.csv: passed") == 1


# --------------------------------------------------------------------------- graphs, parameters


def test_neighbourhoods_alike_but_for_their_wiring_stop_at_the_step_limit(tmp_path):
    networkx = pytest.importorskip("networkx")
    edges = []
    for i in range(20):  # node i joined to its own random 3-regular graph on 40 nodes
        regular = networkx.random_regular_graph(3, 40, seed=i)
        offset = 1000 + 100 * i
        edges += [(offset + a, offset + b) for a, b in regular.edges()]
        edges += [(i, offset + a) for a in regular.nodes()]
    graph = write_csv(tmp_path / "g.csv", ["source", "target"], edges)
    policy = write_policy(tmp_path / "p.yaml", {"models": [{"model": "k-neighbourhood", "k": 2}]})
    env = {"PRIVCHECK_MAX_ISOMORPHISM_STEPS": "30000"}  # a tenth of the default: a quick test
    refused(
        run("check", "--graph", graph, "-p", policy, env=env), "PRIVCHECK_MAX_ISOMORPHISM_STEPS"
    )


def test_iteration_and_attack_counts_asked_for_are_bounded(tmp_path):
    rng = random.Random(4)
    header = ["a", "b", "s"]
    rows = [[rng.randint(0, 999), rng.randint(0, 999), rng.randint(0, 9)] for _ in range(120)]
    data = write_csv(tmp_path / "d.csv", header, rows[:60])
    control = write_csv(tmp_path / "c.csv", header, rows[60:])
    policy = write_policy(
        tmp_path / "p.yaml",
        {
            "attributes": {
                "a": {"role": "quasi_identifier"},
                "b": {"role": "quasi_identifier"},
                "s": {"role": "sensitive"},
            },
            "models": k_anonymity(3),
        },
    )
    out = tmp_path / "r.csv"
    res = run(
        "anonymize", data, "-p", policy, "-a", "fuzzy-microaggregation",
        "--param", "max_iter=1000000000", "--param", "tol=1e-300", "-o", out,
    )  # fmt: skip
    refused(res, "PRIVCHECK_MAX_ITERATIONS", "1,000,000,000")
    assert not out.exists()
    common = ["risk", "--original", data, "--masked", data, "-p", policy, "--control", control]
    res = run(*common, "-a", "singling-out", "--param", "n_attacks=100000000")
    refused(res, "PRIVCHECK_MAX_ATTACKS")
    res = run(*common, "-a", "singling-out", "--param", "max_attempts=100000000")
    refused(res, "PRIVCHECK_MAX_ATTACK_QUERIES")


# --------------------------------------------------------------------------- legitimate inputs


def test_adult_with_its_hierarchies_still_runs_every_search(tmp_path):
    data, policy = ADULT / "adult.csv", ADULT / "policy.yaml"
    for algorithm in ("incognito", "mingen"):
        out = tmp_path / f"{algorithm}.csv"
        res = run("anonymize", data, "-p", policy, "-a", algorithm, "-o", out)
        assert res.returncode == 0, res.stderr
        assert run("check", out, "-p", policy).returncode == 0


def test_adult_with_arx_hierarchies_inline_passes(tmp_path):
    """The ARX Adult hierarchies written into the policy (YAML and JSON) are well inside the
    document limits and behave as the files do."""
    policy = yaml.safe_load((ADULT / "policy.yaml").read_text())
    for attribute in policy["attributes"].values():
        spec = attribute["hierarchy"]
        lines = (ADULT / spec["path"]).read_text().splitlines()
        attribute["hierarchy"] = {
            "type": "table",
            "rows": [line.split(";") for line in lines if line],
        }
    inline_yaml = write_policy(tmp_path / "inline.yaml", policy)
    inline_json = write_policy(tmp_path / "inline.json", policy)
    assert inline_yaml.stat().st_size < LIMITS["document_bytes"].default // 20
    for path in (inline_yaml, inline_json):
        res = run("check", ADULT / "adult.csv", "-p", path, "--explain")
        assert res.returncode == 1, res.stderr  # the raw table fails, as with the files
    out = tmp_path / "release.csv"
    res = run("anonymize", ADULT / "adult.csv", "-p", inline_yaml, "-a", "mingen", "-o", out)
    assert res.returncode == 0, res.stderr
    assert run("check", out, "-p", ADULT / "policy.yaml").returncode == 0


# --------------------------------------------------------------------------- the registry


def test_every_limit_is_documented_with_its_variable_and_default():
    text = (ROOT / "docs" / "limits.md").read_text(encoding="utf-8")
    for limit in LIMITS.values():
        row = f"| `{limit.variable}` | {limit.default:,} |"
        assert row in text, f"docs/limits.md lacks the row of {limit.variable} ({row})"
        assert limit.why, limit.name


def test_a_limit_reads_its_variable_at_each_check(monkeypatch):
    from privcheck.errors import PolicyError

    levels = LIMITS["hierarchy_levels"]
    monkeypatch.delenv(levels.variable, raising=False)
    assert levels.value() == levels.default and not levels.allows(levels.default + 1)
    monkeypatch.setenv(levels.variable, "0")  # no limit
    assert levels.allows(10**12)
    monkeypatch.setenv(levels.variable, "3")
    with pytest.raises(LimitError, match="4 levels, more than the limit of 3"):
        levels.check(4, "the hierarchy of 'x' has")
    monkeypatch.setenv(levels.variable, "lots")
    with pytest.raises(PolicyError, match="PRIVCHECK_MAX_HIERARCHY_LEVELS must be a whole number"):
        levels.value()


def test_a_bad_override_is_one_line(tmp_path):
    data = write_csv(tmp_path / "d.csv", ["a"], [[1], [2]])
    policy = write_policy(
        tmp_path / "p.yaml",
        {"attributes": {"a": {"role": "quasi_identifier"}}, "models": k_anonymity()},
    )
    res = run("check", data, "-p", policy, env={"PRIVCHECK_MAX_DOCUMENT_BYTES": "-5"})
    refused(res, "PRIVCHECK_MAX_DOCUMENT_BYTES", "whole number")
