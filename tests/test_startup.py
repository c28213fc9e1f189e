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
    assert _loaded("import privcheck; privcheck.check, privcheck.Policy") >= {"pandas"}


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
