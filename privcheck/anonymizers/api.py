"""``anonymize``: the library call behind ``privcheck anonymize``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from privcheck.anonymizers.complementary import previous_node
from privcheck.anonymizers.problem import Progress
from privcheck.errors import PolicyError
from privcheck.io import read_table
from privcheck.plugins import anonymizer_registry
from privcheck.policy import Policy, load_policy
from privcheck.report import AnonymizationReport


def anonymize(
    data: pd.DataFrame | str | Path,
    policy: Policy | dict | str | Path,
    algorithm: str = "incognito",
    *,
    seed: int = 0,
    keep_order: bool = False,
    previous: AnonymizationReport | dict | str | Path | None = None,
    progress: Progress | None = None,
    **params: Any,
) -> tuple[pd.DataFrame, AnonymizationReport]:
    """Anonymize ``data`` so that every model of ``policy`` holds; return the release and its
    report.

    ``algorithm`` names a registered anonymizer (``incognito``, ``mingen``, ``datafly``, or a
    plugin's); ``params`` are its own parameters. Rows are shuffled with ``seed`` unless
    ``keep_order``. ``previous`` (a report, its JSON file, or ``{qi: level}``) restricts the search
    to generalizations of an earlier release's node, so the two cannot be combined into finer
    classes. ``progress(done, total)`` is called as the search resolves lattice nodes.

    Raises ``PolicyError`` when the policy cannot be satisfied (saying why) and ``DataError`` when
    the data does not fit the policy.
    """
    policy = load_policy(policy)
    frame = read_table(data)
    registry = anonymizer_registry()
    cls = registry.get(algorithm)
    if cls is None:
        raise PolicyError(f"unknown algorithm {algorithm!r}; available: {', '.join(registry)}")
    release, report = cls(**params).anonymize(
        frame,
        policy,
        seed=seed,
        keep_order=keep_order,
        previous=previous_node(previous),
        progress=progress,
    )
    report.source = None if isinstance(data, pd.DataFrame) else str(data)
    return release, report
