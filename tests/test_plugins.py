"""A third-party model arrives through an entry point and is a peer of the built-ins."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privcheck import check
from privcheck.plugins import model_registry, reset_plugins
from privcheck.policy import load_policy, policy_json_schema

PLUGIN_SRC = Path(__file__).parent / "plugins" / "privcheck_alpha_k" / "src"


def fake_installation(root: Path) -> Path:
    """What `pip install tests/plugins/privcheck_alpha_k` leaves on sys.path: the module and a
    dist-info folder whose entry_points.txt registers it under the group 'privcheck'."""
    dist = root / "privcheck_alpha_k-0.1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: privcheck-alpha-k\nVersion: 0.1.0\n"
    )
    (dist / "entry_points.txt").write_text("[privcheck]\nalpha_k = privcheck_alpha_k\n")
    return root


@pytest.fixture
def alpha_k_installed(tmp_path, monkeypatch):
    monkeypatch.delenv("PRIVCHECK_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    monkeypatch.syspath_prepend(str(PLUGIN_SRC))
    monkeypatch.syspath_prepend(str(fake_installation(tmp_path / "site")))
    reset_plugins()
    yield tmp_path / "site"
    monkeypatch.undo()
    reset_plugins()


POLICY = {
    "attributes": {"zip": {"role": "quasi_identifier"}, "disease": {"role": "sensitive"}},
    "models": [{"model": "alpha-k-anonymity", "alpha": 0.5, "k": 2}],
}


def brute_alpha_k(frame: pd.DataFrame, alpha: float, k: int) -> tuple[bool, float]:
    worst = 0.0
    ok = True
    for _, cls in frame.groupby("zip"):
        share = cls["disease"].value_counts().max() / len(cls)
        worst = max(worst, share)
        ok &= share <= alpha and len(cls) >= k
    return ok, worst


def test_entry_point_model_is_registered_and_checked(alpha_k_installed):
    assert "alpha-k-anonymity" in model_registry()
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "zip": rng.choice(["a", "b", "c", "d"], 200),
            "disease": rng.choice(["flu", "cold", "ulcer"], 200, p=[0.5, 0.3, 0.2]),
        }
    )
    report = check(frame, POLICY)
    ok, worst = brute_alpha_k(frame, 0.5, 2)
    assert report.models[0].passed == ok
    assert report.models[0].value == pytest.approx(worst)


def test_plugin_model_is_in_the_policy_schema(alpha_k_installed):
    schema = policy_json_schema()
    assert "AlphaKConfig" in schema["$defs"]
    mapping = schema["properties"]["models"]["items"]["discriminator"]["mapping"]
    assert set(mapping) >= {"alpha-k-anonymity", "k-anonymity", "l-diversity", "t-closeness"}


def test_plugin_listed_by_cli(alpha_k_installed, cli):
    env = {"PYTHONPATH": f"{PLUGIN_SRC}:{alpha_k_installed}"}
    res = cli("plugins", env=env)
    assert res.returncode == 0, res.stderr
    assert "alpha_k" in res.stdout and "privcheck-alpha-k 0.1.0" in res.stdout
    assert "alpha-k-anonymity" in res.stdout and "k-anonymity" in res.stdout


def test_plugin_config_is_validated(alpha_k_installed):
    from privcheck.errors import PolicyError

    bad = {**POLICY, "models": [{"model": "alpha-k-anonymity", "alpha": 1.5, "k": 2}]}
    with pytest.raises(PolicyError, match="alpha"):
        load_policy(bad)


def test_without_the_plugin_the_model_is_unknown(monkeypatch):
    monkeypatch.setenv("PRIVCHECK_DISABLE_PLUGIN_AUTOLOAD", "1")
    reset_plugins()
    try:
        from privcheck.errors import PolicyError

        with pytest.raises(PolicyError, match="unknown model 'alpha-k-anonymity'"):
            load_policy(POLICY)
    finally:
        monkeypatch.undo()
        reset_plugins()


def test_builtins_registered_through_hooks():
    reset_plugins()
    from privcheck.plugins import get_plugin_manager, plugin_rows

    pm = get_plugin_manager()
    names = [n for n, _ in pm.list_name_plugin()]
    assert "privcheck.models.kanonymity" in names
    rows = {r["name"]: r for r in plugin_rows()}
    assert rows["privcheck.models.tcloseness"]["provides"] == "t-closeness"
    assert json.dumps(rows)  # plain data
