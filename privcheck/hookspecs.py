"""The whole plugin API: the hooks through which models, anonymizers, risk measures and output
formats arrive.

Built-ins register through these same hooks (see ``privcheck.plugins.BUILTIN_PLUGINS``), so
a third-party plugin is a peer of the built-ins: it appears in the policy schema, in
``privcheck plugins``, in every check and among the ``--format`` choices the same way.

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


@hookspec
def privcheck_output_formats() -> list[type]:
    """Return the output formats (subclasses of ``privcheck.output_formats.OutputFormat``) this
    plugin contributes: each names itself (``--format NAME``), the kinds of report it renders
    (check, anonymization, risk, compare), the file extensions that ask for it, and renders a
    report — plain data — to text (datasette's ``register_output_renderer``)."""


@hookspec
def privcheck_catalogs() -> list[type]:
    """Return the catalog back-ends (subclasses of ``privcheck.catalogs.base.Catalog``) this
    plugin contributes: each names itself (``--catalog NAME``), reads a dataset's columns and
    their tags, and writes a Verdict back where the data's owners look."""
