"""The plan: what an anonymizer decided, as data — the vocabulary planners write and engines read.

An anonymizer is a planner: from the encoded class table and the policy it decides what is
released, in codes of the encoded table, and the figures it knows (``Plan``). It writes no row.
An engine (pandas in process, Spark where the rows live) turns any plan into rows, re-checks
them and says what only the release knows; the pipeline (``privcheck.pipeline``) runs the two.
Three kinds of recoding cover every built-in algorithm:

- ``NodeRecoding`` — full-domain generalization (MinGen, Incognito, DataFly, SafePub, ``apply``):
  every quasi-identifier at its level of one lattice node, the records of the classes not kept
  suppressed (left out, or written ``*`` under ``suppressed_records: star``).
- ``CombinationRecoding`` — recodings of combinations (Mondrian, local suppression): each row
  of the encoded table belongs to a *group*, and a group's records are released as its *units*
  in turn, ranked in input order; ``released[q]`` is each unit's value of quasi-identifier q.
- ``ValueRecoding`` — masking (MDAV, swaps, noise): the masked value of every record, in input
  order (it needs the rows: pandas only).

It also holds what every side agrees a release is: the columns it leaves out
(``removed_columns``), the policy it is checked under (``release_policy``) and the ``*`` a
suppressed value is written as.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from privcheck.policy import Policy, Role

if TYPE_CHECKING:
    from privcheck.classes import ClassTable

#: what a release writes in a suppressed quasi-identifier cell (a blanked cell, or every
#: quasi-identifier of a suppressed record under ``suppressed_records: star``)
SUPPRESSED = "*"


def removed_columns(columns: Iterable[Any], policy: Policy) -> list[str]:
    """Columns a release leaves out: identifiers and columns the policy does not list — the
    individual column among them, unless it is released as a pseudonym."""
    kept = policy.individual if policy.individual_released else None
    return [
        str(c)
        for c in columns
        if c != kept
        and (c not in policy.attributes or policy.attributes[c].role is Role.identifier)
    ]


def release_policy(policy: Policy, *, keep_hierarchies: bool = True) -> Policy:
    """The policy a release is checked under: identifiers gone (a release has none). Without
    ``keep_hierarchies`` quasi-identifiers lose theirs too and group whatever values they hold
    (masked numbers, the joined values of two linked releases); sensitive attributes keep
    theirs (hierarchical t-closeness)."""
    attributes = {
        name: (
            attr.model_copy(update={"hierarchy": None})
            if attr.role is Role.quasi_identifier and not keep_hierarchies
            else attr
        )
        for name, attr in policy.attributes.items()
        if attr.role is not Role.identifier
    }
    out = policy.model_copy(update={"attributes": attributes})
    out._base_dir = policy.base_dir
    return out


@dataclass(eq=False)
class NodeRecoding:
    """Full-domain generalization at ``node``: ``table`` is the class table at the node (with
    the class of every record when it was counted from the rows), ``kept_classes`` which of its
    classes are released; the others' records are suppressed.

    SafePub draws its release from a sample: ``sample`` (over the records) says which records
    the release is made of — the others never appear — and ``kept_records`` (over the sampled
    records) which of them are kept; ``star_columns`` are the further columns a suppressed
    record is written ``*`` in; ``check_models`` the models its release is re-checked with
    (the mechanism's property replaced by the k it guarantees), the suppression limit not
    applying."""

    node: tuple[int, ...]
    table: ClassTable
    kept_classes: np.ndarray
    sample: np.ndarray | None = None
    kept_records: np.ndarray | None = None
    star_columns: tuple[str, ...] = ()
    check_models: list[Any] | None = None


@dataclass(eq=False)
class CombinationRecoding:
    """A release keyed by combinations (Mondrian, local suppression).

    Row ``i`` of the encoded table (a record, or one distinct combination of an engine's
    counts) belongs to group ``row_group[i]``; the group's records are released as the units
    ``u`` with ``unit_group[u]`` equal to it, in order of ``u``, each taking ``unit_size[u]``
    records in turn (ranked in input order); ``released[q][u]`` is the value unit ``u`` writes
    in quasi-identifier ``q``. ``keys`` are the columns whose values identify a row's group in
    the data (the quasi-identifiers, or with the sensitive attributes when a group is a class
    and its sensitive values).

    ``record_unit`` gives the unit of every record directly when the planner placed each record
    itself (local suppression counting people: a person's records go together; in process
    only). ``suppressed_units`` are units whose records are suppressed records — written with
    every quasi-identifier ``*`` under ``suppressed_records: star``, left out under ``remove``
    (None: no unit)."""

    keys: list[str]
    row_group: np.ndarray
    unit_group: np.ndarray
    unit_size: np.ndarray
    released: dict[str, np.ndarray]
    record_unit: np.ndarray | None = None
    suppressed_units: np.ndarray | None = None
    #: kept records whose every released value is ``*`` (a check reads them as suppressed)
    starred_kept: bool = False
    #: whether the release's report counts the quasi-identifier cells it changes
    count_changed: bool = False


@dataclass(eq=False)
class ValueRecoding:
    """Masking: ``columns[q]`` the released value of quasi-identifier ``q`` for every record,
    in input order (an integer column's exact integers); the other columns pass through."""

    columns: dict[str, np.ndarray]


Recoding = NodeRecoding | CombinationRecoding | ValueRecoding


@dataclass(eq=False)
class Plan:
    """What an anonymizer would release, decided before a single value is written.

    ``recoding`` says what is released; ``report`` the fields of the anonymization report the
    planner knows (parameters, node, metrics, loss by attribute, suppressed records and cells,
    lattice figures …; ``parameters`` holds ``seed_given`` and ``keep_order`` where they are to
    be written, set by the release); the pipeline adds what only the release knows (the
    re-check, released rows, removed columns, changed cells, utility, risk, timings).

    The figures ``--algorithm auto`` compares: ``metrics``, ``n_classes``, ``n_suppressed``,
    ``suppressed_cells`` (quasi-identifier cells released as ``*``), ``class_sizes`` (the
    released classes as ``check`` reads them, None when the planner cannot say) and
    ``class_records`` (their records, when a class's size as read differs from its records).
    ``fallbacks`` are the plans to release, in order, when this one cannot be written as
    planned (``auto``'s ranked candidates)."""

    algorithm: str
    recoding: Recoding
    report: dict[str, Any]
    metrics: dict[str, float]
    n_classes: int
    n_suppressed: int
    suppressed_cells: int
    class_sizes: np.ndarray | None
    seconds: float
    class_records: np.ndarray | None = None
    #: the input's class table at ground values, when the planner counted one (the risk
    #: before the release is read off it)
    ground_table: ClassTable | None = None
    #: what the release's row shuffle draws from when the planner split the randomness itself
    #: (an int or a ``numpy.random.SeedSequence``); None: the caller's seed
    shuffle_seed: Any = None
    #: models the method guarantees; None: every model of the policy. A model it does not
    #: guarantee is reported as the re-check finds it (``not_enforcing`` starts the note)
    enforced: frozenset[str] | None = None
    not_enforcing: str = ""
    #: what a re-check failing the policy means when it is no bug but the plan's limit (the
    #: text, with ``{failing}`` for the models): refused with that message
    failure_advice: str | None = None
    fallbacks: list[Plan] = field(default_factory=list)
