"""A third-party model arrives through an entry point and is a peer of the built-ins."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privcheck import check
from privcheck.hookspecs import hookimpl
from privcheck.plugins import get_plugin_manager, model_registry, reset_plugins
from privcheck.policy import load_policy, policy_json_schema

PLUGIN_SRC = Path(__file__).parent / "plugins" / "privcheck_max_share_k" / "src"


def fake_installation(root: Path) -> Path:
    """What `pip install tests/plugins/privcheck_max_share_k` leaves on sys.path: the module and a
    dist-info folder whose entry_points.txt registers it under the group 'privcheck'."""
    dist = root / "privcheck_max_share_k-0.1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: privcheck-max-share-k\nVersion: 0.1.0\n"
    )
    (dist / "entry_points.txt").write_text("[privcheck]\nmax_share_k = privcheck_max_share_k\n")
    return root


@pytest.fixture
def plugin_installed(tmp_path, monkeypatch):
    monkeypatch.delenv("PRIVCHECK_DISABLE_PLUGIN_AUTOLOAD", raising=False)
    monkeypatch.syspath_prepend(str(PLUGIN_SRC))
    monkeypatch.syspath_prepend(str(fake_installation(tmp_path / "site")))
    reset_plugins()
    yield tmp_path / "site"
    monkeypatch.undo()
    reset_plugins()


POLICY = {
    "attributes": {"zip": {"role": "quasi_identifier"}, "disease": {"role": "sensitive"}},
    "models": [{"model": "max-share-k-anonymity", "max_share": 0.5, "k": 2}],
}


def brute_max_share_k(frame: pd.DataFrame, max_share: float, k: int) -> tuple[bool, float]:
    worst = 0.0
    ok = True
    for _, cls in frame.groupby("zip"):
        share = cls["disease"].value_counts().max() / len(cls)
        worst = max(worst, share)
        ok &= share <= max_share and len(cls) >= k
    return ok, worst


def test_entry_point_model_is_registered_and_checked(plugin_installed):
    assert "max-share-k-anonymity" in model_registry()
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "zip": rng.choice(["a", "b", "c", "d"], 200),
            "disease": rng.choice(["flu", "cold", "ulcer"], 200, p=[0.5, 0.3, 0.2]),
        }
    )
    report = check(frame, POLICY)
    ok, worst = brute_max_share_k(frame, 0.5, 2)
    assert report.models[0].passed == ok
    assert report.models[0].value == pytest.approx(worst)


def test_plugin_and_builtin_alpha_k_are_peers(plugin_installed):
    """The plugin's max-share-k-anonymity and the built-in alpha-k-anonymity (without a value:
    the largest share) are the same model under two names: both load, and they agree."""
    rng = np.random.default_rng(5)
    frame = pd.DataFrame(
        {"zip": rng.choice(["a", "b", "c"], 90), "disease": rng.choice(["flu", "cold"], 90)}
    )
    models = [
        {"model": "max-share-k-anonymity", "max_share": 0.6, "k": 3},
        {"model": "alpha-k-anonymity", "alpha": 0.6, "k": 3},
    ]
    plugin, builtin = check(frame, {**POLICY, "models": models}).models
    assert (plugin.value, plugin.passed, plugin.violating_records) == (
        builtin.value,
        builtin.passed,
        builtin.violating_records,
    )


class _Clash:
    """A plugin that registers a model under a built-in's name."""

    @hookimpl
    def privcheck_models(self):
        from privcheck_max_share_k import MaxShareKAnonymity

        class Impostor(MaxShareKAnonymity):
            name = "alpha-k-anonymity"

        return [Impostor]


def test_a_plugin_reusing_a_builtin_name_is_refused(plugin_installed):
    from privcheck.errors import PolicyError

    get_plugin_manager().register(_Clash(), "clash")
    model_registry.cache_clear()
    with pytest.raises(PolicyError, match="two plugins provide the model 'alpha-k-anonymity'"):
        model_registry()


def test_plugin_model_is_in_the_policy_schema(plugin_installed):
    schema = policy_json_schema()
    assert "MaxShareKConfig" in schema["$defs"]
    mapping = schema["properties"]["models"]["items"]["discriminator"]["mapping"]
    assert set(mapping) >= {"max-share-k-anonymity", "alpha-k-anonymity", "k-anonymity"}


def test_plugin_listed_by_cli(plugin_installed, cli):
    env = {"PYTHONPATH": f"{PLUGIN_SRC}:{plugin_installed}"}
    res = cli("plugins", env=env)
    assert res.returncode == 0, res.stderr
    assert "max_share_k" in res.stdout and "privcheck-max-share-k 0.1.0" in res.stdout
    assert "max-share-k-anonymity" in res.stdout and "alpha-k-anonymity" in res.stdout


def test_plugin_config_is_validated(plugin_installed):
    from privcheck.errors import PolicyError

    bad = {**POLICY, "models": [{"model": "max-share-k-anonymity", "max_share": 1.5, "k": 2}]}
    with pytest.raises(PolicyError, match="max_share"):
        load_policy(bad)


def test_without_the_plugin_the_model_is_unknown(monkeypatch):
    monkeypatch.setenv("PRIVCHECK_DISABLE_PLUGIN_AUTOLOAD", "1")
    reset_plugins()
    try:
        from privcheck.errors import PolicyError

        with pytest.raises(PolicyError, match="unknown model 'max-share-k-anonymity'"):
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
