"""The plugin manager: built-ins plus entry points of group ``privcheck``.

Set ``PRIVCHECK_DISABLE_PLUGIN_AUTOLOAD=1`` to load the built-ins only (tests, reproducible runs).
"""

from __future__ import annotations

import importlib
import os
from functools import cache
from typing import TYPE_CHECKING

import pluggy

from privcheck import hookspecs
from privcheck.errors import PolicyError

if TYPE_CHECKING:
    from privcheck.anonymizers.base import Anonymizer
    from privcheck.catalogs.base import Catalog
    from privcheck.models.base import PrivacyModel
    from privcheck.output_formats import OutputFormat
    from privcheck.risk.base import RiskMeasure

ENTRY_POINT_GROUP = "privcheck"
AUTOLOAD_ENV = "PRIVCHECK_DISABLE_PLUGIN_AUTOLOAD"

#: built-in plugins by the hook they implement: each group is imported when its registry is
#: first asked for, so that validating a policy (the models) does not import the anonymizers,
#: risk measures and renderers — and with them scipy, scikit-learn, the masking methods and
#: matplotlib
BUILTIN_MODELS: tuple[str, ...] = (
    "privcheck.models.kanonymity",
    "privcheck.models.ldiversity",
    "privcheck.models.tcloseness",
    "privcheck.models.betalikeness",
    "privcheck.models.deltadisclosure",
    "privcheck.models.alphak",
    "privcheck.models.differential_privacy",
    "privcheck.models.average_risk",
    "privcheck.models.record_risk",
    "privcheck.models.kmap",
    "privcheck.models.delta_presence",
    "privcheck.models.population_uniqueness",
    "privcheck.models.release_series",
    "privcheck.graph.models",
)
BUILTIN_ANONYMIZERS: tuple[str, ...] = (
    "privcheck.anonymizers.auto",
    "privcheck.anonymizers.mingen",
    "privcheck.anonymizers.datafly",
    "privcheck.anonymizers.incognito",
    "privcheck.anonymizers.masking",
    "privcheck.anonymizers.safepub",
    "privcheck.anonymizers.local_suppression",
    "privcheck.anonymizers.mondrian",
)
BUILTIN_RISK_MEASURES: tuple[str, ...] = ("privcheck.risk.measures",)
BUILTIN_OUTPUT_FORMATS: tuple[str, ...] = ("privcheck.output_formats",)
#: catalog back-ends (each imports its SDK only when used)
BUILTIN_CATALOGS: tuple[str, ...] = ()
BUILTIN_PLUGINS: tuple[str, ...] = (
    BUILTIN_MODELS
    + BUILTIN_ANONYMIZERS
    + BUILTIN_RISK_MEASURES
    + BUILTIN_OUTPUT_FORMATS
    + BUILTIN_CATALOGS
)


@cache
def get_plugin_manager() -> pluggy.PluginManager:
    """The process-wide plugin manager (built once; ``reset_plugins()`` rebuilds it).

    It starts with the built-in models and the installed (entry-point) plugins; the built-in
    anonymizers, risk measures and output formats join it when their registry is first used
    (``builtins``)."""
    pm = pluggy.PluginManager("privcheck")
    pm.add_hookspecs(hookspecs)
    _register(pm, BUILTIN_MODELS)
    if not os.environ.get(AUTOLOAD_ENV):
        pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
    pm.check_pending()
    return pm


def _register(pm: pluggy.PluginManager, names: tuple[str, ...]) -> None:
    for name in names:
        if not pm.has_plugin(name) and not pm.is_blocked(name):
            pm.register(importlib.import_module(name), name)


def builtins(*groups: tuple[str, ...]) -> pluggy.PluginManager:
    """The plugin manager with the given groups of built-in plugins registered (all by default)."""
    pm = get_plugin_manager()
    all_groups = (
        BUILTIN_ANONYMIZERS,
        BUILTIN_RISK_MEASURES,
        BUILTIN_OUTPUT_FORMATS,
        BUILTIN_CATALOGS,
    )
    for names in groups or all_groups:
        _register(pm, names)
    return pm


def reset_plugins() -> None:
    """Forget the plugin manager and registries (after installing a plugin at run time)."""
    get_plugin_manager.cache_clear()
    _forget_registries()


def register_plugin(plugin: object, name: str | None = None) -> None:
    """Register a plugin (a module or an object with ``@hookimpl`` functions) in this process,
    without installing it: a notebook's or a test's. Its contributions join the registries at
    once; ``reset_plugins()`` forgets it again."""
    get_plugin_manager().register(plugin, name)
    _forget_registries()


def _forget_registries() -> None:
    model_registry.cache_clear()
    anonymizer_registry.cache_clear()
    risk_registry.cache_clear()
    output_format_registry.cache_clear()
    catalog_registry.cache_clear()


def _collect(results: list[list[type]], what: str) -> dict[str, type]:
    registry: dict[str, type] = {}
    for contributed in results:
        for cls in contributed:
            if cls.name in registry and registry[cls.name] is not cls:
                raise PolicyError(f"two plugins provide the {what} {cls.name!r}; block one of them")
            registry[cls.name] = cls
    return dict(sorted(registry.items()))


@cache
def model_registry() -> dict[str, type[PrivacyModel]]:
    """Model name → model class, over all registered plugins."""
    return _collect(get_plugin_manager().hook.privcheck_models(), "model")


@cache
def anonymizer_registry() -> dict[str, type[Anonymizer]]:
    """Anonymizer name (``--algorithm``) → anonymizer class, over all registered plugins."""
    return _collect(builtins(BUILTIN_ANONYMIZERS).hook.privcheck_anonymizers(), "anonymizer")


@cache
def risk_registry() -> dict[str, type[RiskMeasure]]:
    """Risk measure name (``privcheck risk --attack``) → measure class, over all plugins."""
    return _collect(builtins(BUILTIN_RISK_MEASURES).hook.privcheck_risk_measures(), "risk measure")


@cache
def output_format_registry() -> dict[str, type[OutputFormat]]:
    """Output format name (``--format``) → format class, over all plugins: the built-in formats
    first, in the order they are declared (text, json, html, github), then the others by name."""
    contributed = builtins(BUILTIN_OUTPUT_FORMATS).hook.privcheck_output_formats()
    registry = _collect(contributed, "output format")
    declared = [
        cls.name for group in contributed for cls in group if cls.__module__ in BUILTIN_PLUGINS
    ]
    others = [name for name in registry if name not in declared]  # (sorted by name)
    return {name: registry[name] for name in [*declared, *others]}


@cache
def catalog_registry() -> dict[str, type[Catalog]]:
    """Catalog back-end name (``--catalog``) → back-end class, over all registered plugins."""
    return _collect(builtins(BUILTIN_CATALOGS).hook.privcheck_catalogs(), "catalog")


def plugin_rows() -> list[dict[str, str]]:
    """What ``privcheck plugins`` lists: each plugin, where it comes from, what it contributes."""
    pm = builtins()
    dist = {id(plugin): f"{d.project_name} {d.version}" for plugin, d in pm.list_plugin_distinfo()}
    rows = []
    for name, plugin in pm.list_name_plugin():
        if plugin is None or name.startswith("privcheck.hookspecs"):
            continue
        contributed = []
        for caller in pm.get_hookcallers(plugin) or []:
            for impl in caller.get_hookimpls():
                if impl.plugin is plugin:
                    contributed += [cls.name for cls in impl.function() or []]
        rows.append(
            {
                "name": name,
                "source": "built-in" if name in BUILTIN_PLUGINS else dist.get(id(plugin), "?"),
                "provides": ", ".join(contributed),
            }
        )
    return rows
