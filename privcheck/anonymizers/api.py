"""``anonymize``: the library call behind ``privcheck anonymize``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from privcheck.anonymizers.complementary import previous_node
from privcheck.anonymizers.problem import Progress
from privcheck.anonymizers.release import pseudonymize
from privcheck.engines import is_engine_frame
from privcheck.errors import PolicyError
from privcheck.io import read_table
from privcheck.limits import QUASI_IDENTIFIERS
from privcheck.plugins import anonymizer_registry
from privcheck.policy import Policy, load_policy
from privcheck.report import AnonymizationReport, mark_draft


def anonymize(
    data: pd.DataFrame | str | Path | Any,
    policy: Policy | dict | str | Path,
    algorithm: str = "auto",
    *,
    seed: int | None = None,
    keep_order: bool = False,
    previous: AnonymizationReport | dict | str | Path | None = None,
    progress: Progress | None = None,
    max_groups: int | None = None,
    allow_draft: bool = False,
    **params: Any,
) -> tuple[Any, AnonymizationReport]:
    """Anonymize ``data`` so that every model of ``policy`` holds; return the release and its
    report.

    ``algorithm`` names a registered anonymizer: ``auto`` (the default: every algorithm that can
    guarantee the policy is planned and the least-damaging release written, see
    ``privcheck.anonymizers.auto``), ``incognito``, ``mingen``, ``datafly``, ``mondrian``,
    ``local-suppression``, ``safepub``, a masking method, or a plugin's; ``params`` are its own
    parameters. Rows are shuffled unless ``keep_order``; every
    random choice draws from the operating system's entropy unless ``seed`` is given (for
    reproducible tests; it is never written out). ``previous`` (a report, its JSON file, or
    ``{qi: level}``) restricts the search to generalizations of an earlier release's node, so the
    two cannot be combined into finer classes. ``progress(done, total)`` is called as the search
    resolves lattice nodes.

    ``data`` may also be an engine frame: a PySpark DataFrame is anonymized in Spark by
    ``auto``, the full-domain searches, ``mondrian`` and ``local-suppression`` (class table
    from Spark, plan here, release written in Spark by joining the plan's mapping back, as a
    Spark DataFrame, not shuffled; at most ``max_groups`` combinations come back, else Spark
    generalizes first for the full-domain searches — see ``privcheck.engines.generalize``);
    polars, pyarrow and DuckDB frames are collected to pandas.

    A draft policy (columns still marked ``review:``) is refused unless ``allow_draft``: a
    column left for review would be released as whatever it was drafted (an undecided column is
    drafted insensitive, and kept in clear). With ``allow_draft`` the report and its check say
    ``draft: true``.

    Raises ``PolicyError`` when the policy cannot be satisfied (saying why) and ``DataError`` when
    the data does not fit the policy.
    """
    policy = load_policy(policy)
    policy.require_decided(allow_draft=allow_draft)
    # every algorithm's work grows with them (lattice axes, DataFly's steps × columns,
    # Mondrian's cuts); bounded before the data is read
    QUASI_IDENTIFIERS.check(
        len(policy.quasi_identifiers),
        "the policy has",
        "anonymize a release of fewer (a release generalizing dozens is rarely useful)",
    )
    registry = anonymizer_registry()
    cls = registry.get(algorithm)
    if cls is None:
        raise PolicyError(f"unknown algorithm {algorithm!r}; available: {', '.join(registry)}")
    anonymizer = cls(**params)
    anonymizer.refuse_unsupported(policy)
    if is_engine_frame(data):
        from privcheck.engines.generalize import anonymize_engine, is_spark, to_pandas

        if is_spark(data):
            if policy.individual is not None:
                raise PolicyError(
                    "anonymizing a Spark frame plans on its aggregated classes, which cannot "
                    f"take a person's records out together ('individual: {policy.individual}'); "
                    "collect the frame to pandas (or a file) to count people"
                )
            release, report = anonymize_engine(
                data,
                policy,
                anonymizer,
                previous=previous_node(previous),
                progress=progress,
                max_groups=max_groups,
            )
            return release, _marked(report, policy)
        data = to_pandas(data)
    frame = pseudonymize(read_table(data), policy)
    release, report = anonymizer.anonymize(
        frame,
        policy,
        seed=seed,
        keep_order=keep_order,
        previous=previous_node(previous),
        progress=progress,
    )
    report.source = None if isinstance(data, pd.DataFrame) else str(data)
    if report.chosen is None:
        report.chosen = report.algorithm
    if policy.individual is not None:
        count_people(report, frame, release, policy)
    return release, _marked(report, policy)


def _marked(report: AnonymizationReport, policy: Policy) -> AnonymizationReport:
    """The report and its re-check say whether the policy was a draft (``--allow-draft``)."""
    mark_draft(report.check, policy)
    return mark_draft(report, policy)


def count_people(
    report: AnonymizationReport, frame: pd.DataFrame, release: pd.DataFrame, policy: Policy
) -> None:
    """Fill the people figures of an anonymization report: the input's people, and those
    suppressed (all their records go together, so they are the people the re-check of the
    release did not find). A release that carries the individual column in clear is a bug."""
    name = policy.individual
    if name in release.columns and not policy.individual_released:
        raise RuntimeError(
            f"the release carries the individual column {name!r} in clear; this is a bug"
        )
    from privcheck.encoding import encode_individual

    if report.n_individuals is None:  # (an anonymizer that did not count them itself)
        _, n_people = encode_individual(frame[name], name)
        kept = report.check.n_individuals
        report.n_individuals = n_people
        report.n_suppressed_individuals = n_people - (kept if kept is not None else 0)
