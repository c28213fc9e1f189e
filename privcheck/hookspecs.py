"""The whole plugin API: the hooks through which models, anonymizers and risk measures arrive.

Built-in models register through these same hooks (see ``privcheck.plugins.BUILTIN_PLUGINS``), so
a third-party plugin is a peer of the built-ins: it appears in the policy schema, in
``privcheck plugins`` and in every check the same way.

A plugin is a module (or object) with functions decorated by ``privcheck.hookimpl``, published
under the entry-point group ``privcheck``::

    [project.entry-points.privcheck]
    my_models = "my_package.my_models"
"""

from __future__ import annotations

import pluggy

hookspec = pluggy.HookspecMarker("privcheck")
hookimpl = pluggy.HookimplMarker("privcheck")


@hookspec
def privcheck_models() -> list[type]:
    """Return the privacy-model classes (subclasses of ``privcheck.models.PrivacyModel``)."""


@hookspec
def privcheck_anonymizers() -> list[type]:
    """Return the anonymizer classes this plugin contributes."""


@hookspec
def privcheck_risk_measures() -> list[type]:
    """Return the disclosure-risk measures (attacks) this plugin contributes."""
