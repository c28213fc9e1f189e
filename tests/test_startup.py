"""Start-up stays light: the ``privcheck`` command (a pre-commit hook runs it on every commit)
imports pandas only when a command reads a table, and the heavy scientific stacks only when a
command uses them. Each case runs in a fresh interpreter and inspects ``sys.modules``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("pandas", "pyarrow", "scipy", "sklearn", "networkx", "numba", "matplotlib")


def _loaded(code: str) -> set[str]:
    """Top-level packages among HEAVY that ``code`` leaves imported in a fresh interpreter."""
    report = "import sys, json\nprint(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    probe = f"{code}\n{report}"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = (
        subprocess.run(
            [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
        )
        .stdout.strip()
        .splitlines()[-1]
    )
    return set(json.loads(out)) & set(HEAVY)


def test_importing_the_cli_imports_no_heavy_package():
    assert _loaded("import privcheck.cli") == set()


def test_help_imports_no_heavy_package():
    code = (
        "import sys\nfrom privcheck.cli import app\n"
        "try:\n    app(['--help'])\nexcept SystemExit:\n    pass"
    )
    assert _loaded(code) == set()


def test_import_privcheck_is_lazy_and_complete():
    assert _loaded("import privcheck") == set()
    # the attributes resolve (lazily); checking a file needs no pandas, so resolving them does not
    # load it either
    assert _loaded("import privcheck; assert callable(privcheck.check), privcheck.Policy") == set()


@pytest.mark.parametrize(
    "code",
    [
        "from privcheck.plugins import model_registry; model_registry()",
        "from privcheck.policy import load_policy; load_policy({'attributes': "
        "{'a': {'role': 'quasi_identifier'}}, 'models': [{'model': 'k-anonymity', 'k': 2}]})",
    ],
)
def test_a_policy_loads_the_models_only(code):
    """Validating a policy loads the model plugins — not the anonymizers, risk measures or graph
    algorithms, whose modules import scipy, scikit-learn and networkx."""
    assert not _loaded(code) & {"scipy", "sklearn", "networkx", "numba"}


def test_a_check_imports_no_scientific_stack_it_does_not_use():
    code = (
        "import pandas as pd, privcheck\n"
        "frame = pd.DataFrame({'a': ['x', 'x', 'y', 'y'], 's': ['u', 'v', 'u', 'v']})\n"
        "privcheck.check(frame, {'attributes': {'a': {'role': 'quasi_identifier'}, "
        "'s': {'role': 'sensitive'}}, 'models': [{'model': 'k-anonymity', 'k': 2}, "
        "{'model': 't-closeness', 't': 0.5}]})"
    )
    assert not _loaded(code) & {"scipy", "sklearn", "networkx", "numba"}


# --- a pre-commit hook's check: a 1,000-row file, no pandas, the same report as the API's ---------


def _thousand_rows(path: Path) -> None:
    """1,000 rows with leading-zero ZIPs (some already generalized to a hierarchy level), ages,
    a salary ladder, a few blank sensitive values and a blank quasi-identifier."""
    import numpy as np

    rng = np.random.default_rng(13)
    n = 1000
    zips = np.array(["02138", "02139", "02141", "02142", "0213*", "0214*"], dtype=object)
    zip_col = zips[rng.integers(0, len(zips), n)]
    age = rng.integers(20, 40, n).astype(str).astype(object)
    age[rng.random(n) < 0.01] = ""
    sex = np.array(["F", "M"], dtype=object)[rng.integers(0, 2, n)]
    disease = np.array(["flu", "cold", "hiv", "cancer", "gastritis"], dtype=object)[
        rng.integers(0, 5, n)
    ]
    disease[rng.random(n) < 0.02] = ""
    salary = np.array(["3K", "11K", "5K", "7K", "9K"], dtype=object)[rng.integers(0, 5, n)]
    lines = ["zip,age,sex,disease,salary"] + [
        ",".join(r) for r in zip(zip_col, age, sex, disease, salary, strict=True)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _policies(tmp: Path) -> list[dict]:
    hierarchy = tmp / "zip.csv"
    hierarchy.write_text(
        "02138;0213*;*\n02139;0213*;*\n02141;0214*;*\n02142;0214*;*\n", encoding="utf-8"
    )
    qi = {"role": "quasi_identifier"}
    zip_table = {"role": "quasi_identifier", "hierarchy": {"type": "table", "path": str(hierarchy)}}
    sens = {"role": "sensitive"}
    base = {"zip": zip_table, "age": qi, "sex": qi, "disease": sens, "salary": sens}
    return [
        {
            "attributes": base,
            "missing": "own_class",
            "models": [
                {"model": "k-anonymity", "k": 3},
                {"model": "l-diversity", "attribute": "disease", "l": 2},
                {"model": "t-closeness", "attribute": "disease", "t": 0.3},
            ],
        },
        {
            "attributes": {**base, "age": {"role": "insensitive"}},
            "missing": "own_class",
            "models": [
                {"model": "l-diversity", "attribute": "disease", "variant": "entropy", "l": 2},
                {
                    "model": "l-diversity",
                    "attribute": "salary",
                    "variant": "recursive",
                    "l": 3,
                    "c": 2,
                },
                {"model": "t-closeness", "attribute": "salary", "t": 0.2},
            ],
        },
        {
            "attributes": {"zip": zip_table, "sex": qi, "salary": sens},
            "models": [{"model": "k-anonymity", "k": 5}, {"model": "t-closeness", "t": 0.15}],
        },
    ]


def test_a_small_cli_check_imports_no_pandas_and_matches_the_api(tmp_path):
    """Oracle: the CLI's pandas-free path (Arrow codes, numpy class table) against the report
    the API makes from a pandas DataFrame of the same file, on policies with hierarchies,
    missing values, l-diversity variants and t-closeness (ordered and not); a CSV and a Parquet
    file."""
    import pandas as pd
    import yaml

    import privcheck
    from privcheck.io import read_csv

    data = tmp_path / "data.csv"
    _thousand_rows(data)
    frame = read_csv(data)  # the strings pandas would hold: the reference path
    assert isinstance(frame, pd.DataFrame)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PRIVCHECK_DISABLE_PLUGIN_AUTOLOAD": "1"}
    parquet = tmp_path / "data.parquet"
    frame.to_parquet(parquet, index=False)
    cases = [(data, p) for p in _policies(tmp_path)] + [(parquet, _policies(tmp_path)[0])]
    for i, (source, policy) in enumerate(cases):
        policy_file = tmp_path / f"p{i}.yaml"
        policy_file.write_text(yaml.safe_dump(policy), encoding="utf-8")
        probe = (
            "import sys\nfrom privcheck.cli import app\n"
            f"try:\n    app(['check', {str(source)!r}, '--policy', {str(policy_file)!r}, "
            "'--format', 'json'])\nexcept SystemExit as e:\n    code = e.code\n"
            "print('PANDAS' if 'pandas' in sys.modules else 'NOPANDAS', code)"
        )
        run = subprocess.run(
            [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
        )
        *body, marker = run.stdout.strip().splitlines()
        assert marker.split()[0] == "NOPANDAS", f"policy {i} imported pandas"
        cli = json.loads("\n".join(body))
        report = privcheck.check(frame, policy_file)
        report.source = str(source)
        api = json.loads(report.to_json())
        for d in (cli, api):
            d.pop("elapsed_seconds", None)
        assert cli == api, f"policy {i}"
        assert int(marker.split()[1]) == (0 if api["passed"] else 1)
        assert api["n_records"] == 1000
