"""Checking a table: rows (or an engine's counts) + policy → encode → count → every model → Report.

The checker knows class tables and reports, not where the rows live: reading a file or asking an
engine for its counts is the pipeline's (``privcheck.pipeline.check``); ``check_frame`` takes the
table read, ``check_table`` the class table.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from privcheck.classes import ClassTable, count
from privcheck.details import sensitive_distribution, size_histogram, value_histogram
from privcheck.encoding import encode, sensitive_read
from privcheck.errors import DataError, PolicyError
from privcheck.models.base import Evaluation, evaluate_models, validate_data
from privcheck.nested import refuse_nested
from privcheck.plan import SUPPRESSED
from privcheck.plugins import model_registry
from privcheck.policy import Policy, aggregated_policy
from privcheck.progress import progress
from privcheck.report import (
    ModelResult,
    Report,
    SizeHistogram,
    ViolatingClass,
    class_requirement,
)

if TYPE_CHECKING:
    import pandas as pd

log = logging.getLogger("privcheck.check")

#: a check shows a progress bar (on a terminal) from this many records on
PROGRESS_MIN_RECORDS = 1_000_000

#: default caps on what a report lists (counts are always complete)
MAX_VIOLATORS = 20
MAX_RECORDS_PER_CLASS = 50


def model_result(
    table: ClassTable,
    ev: Evaluation,
    max_violators: int = MAX_VIOLATORS,
    max_records: int = MAX_RECORDS_PER_CLASS,
    details: bool = False,
    records_of: dict[int, list[int]] | None = None,
) -> ModelResult:
    """A model's verdict on a class table, naming its worst violating classes.

    With ``details`` the result also carries the figures the HTML report plots (histogram of the
    per-class statistic, sensitive distribution of the worst classes): cheap, class-table only.
    ``records_of`` gives the listed classes' row numbers when the caller found them already
    (``check_table`` does, for all its models in one pass over the records).
    """
    bad = np.flatnonzero(~ev.class_ok)
    listed = ev.worst_first(bad, limit=max_violators)
    if table.record_class is None:
        records = [[] for _ in listed]
    elif records_of is not None:
        records = [records_of[c] for c in listed.tolist()]
    else:
        records = table.records_of(listed, cap=max_records)
    violators = [
        ViolatingClass(
            values=values,
            size=int(table.sizes[c]),
            statistic=float(ev.class_value[c]) if np.isfinite(ev.class_value[c]) else None,
            unbounded=not np.isfinite(ev.class_value[c]),
            records=recs,
        )
        for c, values, recs in zip(listed, table.class_labels(listed), records, strict=True)
    ]
    return ModelResult(
        model=ev.config.model,
        params=ev.config.params(),
        passed=ev.passed,
        value=ev.value(),
        unbounded=ev.unbounded(),
        statistic=ev.statistic,
        violating_classes=len(bad),
        violating_records=int(table.sizes[bad].sum()),
        violators=violators,
        histogram=(
            value_histogram(
                ev.class_value,
                table.sizes,
                class_requirement(ev.config.model, ev.config.params()),
            )
            if details
            else None
        ),
        distribution=sensitive_distribution(table, ev) if details else None,
    )


def check_table(
    table: ClassTable,
    policy: Policy,
    source: str | None = None,
    max_violators: int = MAX_VIOLATORS,
    details: bool = False,
) -> Report:
    """Evaluate every model of ``policy`` on a class table.

    Under ``suppressed_cells: wildcard`` the size models (``WILDCARD_MODELS``: k-anonymity) read
    each class's effective size — the records compatible with it, ``*`` matching every value
    (``privcheck.wildcard``); every other model is evaluated on the class's own records, ``*``
    being a value, as under ``category`` (stated in docs/anonymization.md).
    """
    wild = None
    if policy.suppressed_cells == "wildcard" and any(
        c.model in WILDCARD_MODELS for c in policy.models
    ):
        from privcheck.wildcard import wildcard_table

        wild = wildcard_table(table)
    classes = judged_classes(table, policy, wild)
    evaluations = []
    for config in policy.models:
        started = time.perf_counter()
        judged = wild if wild is not None and config.model in WILDCARD_MODELS else table
        (ev,) = evaluate_models(judged, [config])
        evaluations.append((ev, time.perf_counter() - started))
    # the row numbers of every model's listed violators in one pass over the records (a pass
    # per model costs as much as the class count itself on a big typed table)
    records = None
    if table.record_class is not None and evaluations:
        listed = [
            ev.worst_first(np.flatnonzero(~ev.class_ok), limit=max_violators)
            for ev, _ in evaluations
        ]
        # (sorted distinct class numbers; np.unique without counts imports numpy.ma, ~10 ms of a
        # small check's start-up)
        union = np.sort(np.concatenate(listed))
        union = union[np.r_[True, union[1:] != union[:-1]]] if union.size else union
        found = table.records_of(union, cap=MAX_RECORDS_PER_CLASS)
        records = dict(zip(union.tolist(), found, strict=True))
    results = []
    for (ev, seconds), config in zip(evaluations, policy.models, strict=True):
        started = time.perf_counter() - seconds
        results.append(model_result(table, ev, max_violators, details=details, records_of=records))
        log.info(
            "%s %s: %s, value %s (%s) in %.3f s",
            config.model,
            config.params(),
            "passed" if ev.passed else "violated",
            results[-1].value,
            ev.statistic,
            time.perf_counter() - started,
        )
    report = Report(
        passed=all(r.passed for r in results),
        n_records=table.n_records,
        n_individuals=table.n_individuals,
        individual=policy.individual,
        n_classes=table.n_classes,
        quasi_identifiers=table.encoded.qi_names,
        models=results,
        suppressed_cells=policy.suppressed_cells,
        source=source,
        class_sizes=class_size_histogram(table) if details else None,
    )
    report._judged = classes
    return report


def class_size_histogram(table: ClassTable) -> SizeHistogram:
    """Classes per size — in people when the policy counts them (with the records they hold),
    else in records."""
    if table.people is None:
        return size_histogram(table.sizes)
    from privcheck.risk.population.prosecutor import size_distribution

    return SizeHistogram(**size_distribution(table.people, table.sizes))


@dataclass(frozen=True)
class JudgedClasses:
    """The classes a check judged, as an intruder faces them: ``sizes`` per class (effective
    sizes under ``suppressed_cells: wildcard``, ``*`` matching every value; distinct people
    when the policy names an individual) and the ``records`` each class holds. What the
    prosecutor risk of the checked table is computed from
    (``privcheck.risk.population.prosecutor``): an anonymization report's ``risk_after`` equals
    what ``check`` sees of the written release."""

    sizes: np.ndarray
    records: np.ndarray


def judged_classes(
    table: ClassTable, policy: Policy, wild: ClassTable | None = None
) -> JudgedClasses:
    """The class sizes a check reads off ``table`` under the policy's ``suppressed_cells``."""
    records = np.asarray(table.sizes, dtype=np.int64)
    if table.people is not None:  # (wildcard cannot count people: the policy refuses both)
        return JudgedClasses(np.asarray(table.people, dtype=np.int64), records)
    if policy.suppressed_cells != "wildcard":
        return JudgedClasses(records, records)
    if wild is None:
        from privcheck.wildcard import effective_sizes

        return JudgedClasses(effective_sizes(table), records)
    return JudgedClasses(np.asarray(wild.sizes, dtype=np.int64), records)


#: models that read effective class sizes under ``suppressed_cells: wildcard``
WILDCARD_MODELS = frozenset({"k-anonymity"})


def present_identifiers(columns: Any, policy: Policy) -> list[str]:
    """The policy's identifier columns that ``columns`` still holds.

    An identifier absent from the checked data is what a release looks like; one present is a
    failing finding: a release must not carry it (and raw data checked before release is told so
    first).
    """
    have = {str(c) for c in columns}
    named = list(policy.identifiers)
    individual = policy.individual
    if individual is not None and individual not in named:
        named.append(individual)  # a person key is an identifier whatever it is called
    if policy.individual_released:  # released as a keyed pseudonym: expected in a release
        named = [c for c in named if c != individual]
    return [c for c in named if c in have]


#: a column repeats "like a person key" when its values repeat, at most this many times each
#: on average (more: a category, not a person)
PERSON_KEY_REPEATS = 50


def repeated_people(frame: Any, policy: Policy) -> str | None:
    """One line when the checked rows look like several records per person and the policy
    counts records (no ``individual``): an identifier column whose values repeat a few times
    each (a person key), or rows repeating on the identifiers together. Cheap: only the
    identifier columns present (a release holds none) and the columns the policy does not name
    whose name reads as a person's key (``patient_id``), one factorization each."""
    if policy.individual is not None or not len(frame):
        return None
    present = column_names(frame)
    names = [c for c in policy.identifiers if c in set(present)]
    unnamed = [c for c in present if c not in policy.attributes]
    if unnamed:
        from privcheck.profiling.vocabulary import id_name

        names += [c for c in unnamed if id_name(str(c)) == "person"]
    if names:  # a nested column (a list of visits) is no key: it is left alone
        from privcheck.nested import nested_kind

        names = [c for c in names if nested_kind(_column(frame, c)) is None]
    if not names:
        return None
    n = len(frame)
    codes, cards = [], []
    best: tuple[int, bool, str] | None = None
    for name in names:
        code, distinct, uniques = _column_codes(frame, name)
        codes.append(code)
        cards.append(distinct + 1)
        if distinct < n and distinct * PERSON_KEY_REPEATS >= n and distinct >= 2:
            # most values first; on a tie a code (no spaces: a key) before a name
            spaced = any(" " in str(v) for v in uniques[:100])
            if best is None or (distinct, not spaced) > best[:2]:
                best = (distinct, not spaced, name)
    if best is not None:
        distinct, _, name = best
        return (
            f"{name!r} repeats ({distinct:,} values over {n:,} records): if it identifies a "
            f"person, add 'individual: {name}' to the policy so that classes count people, not "
            "records"
        )
    if len(names) < 2:
        return None
    from privcheck.classes import group

    _, distinct = group(codes, cards)
    if distinct < n and distinct * PERSON_KEY_REPEATS >= n:
        return (
            f"records repeat on the identifiers {', '.join(names)} ({distinct:,} combinations "
            f"over {n:,} records): if a person has several records, give each person a key "
            "column and name it with 'individual: COLUMN' so that classes count people"
        )
    return None


def _column(frame: Any, name: str) -> Any:
    """A column of an Arrow table (combined into one array) or a pandas DataFrame."""
    return frame.column(name).combine_chunks() if is_arrow(frame) else frame[name]


def _column_codes(frame: Any, name: str) -> tuple[np.ndarray, int, np.ndarray]:
    """(a code per row, missing values one code of their own; the number of distinct values
    present; those values)."""
    if is_arrow(frame):
        from privcheck.encoding import _arrow_codes

        code, uniques = _arrow_codes(frame.column(name))
    else:
        import pandas as pd

        code, uniques = pd.factorize(frame[name], use_na_sentinel=True)
    code = np.asarray(code, dtype=np.int64)
    used = np.flatnonzero(np.bincount(code[code >= 0], minlength=1)[: len(uniques)])
    remap = np.full(len(uniques) + 1, len(used), dtype=np.int64)
    remap[used] = np.arange(len(used))
    return remap[code], len(used), np.asarray(uniques, dtype=object)[used]


def is_arrow(frame: Any) -> bool:
    """Whether ``frame`` is the Arrow table a file check reads (not a pandas DataFrame)."""
    return hasattr(frame, "column_names") and not hasattr(frame, "iloc")


def individual_absent(columns: Any, policy: Policy) -> tuple[Policy, str | None]:
    """The policy a table is checked under when it lacks the ``individual`` column, and the
    note that says so (None, and the policy unchanged, when the column is there or not named).

    ``anonymize`` removes the person key from its release (unless it pseudonymizes it), so a
    release cannot be counted in people: its classes are counted in records instead. Every
    class of a privcheck release holds at least k people (its anonymization report's re-check
    counted them), hence at least k records, so the release passes its own policy here — but a
    table of records whose people cannot be told apart is judged only as records, and the note
    says so rather than claiming a count of people this check could not make."""
    name = policy.individual
    if name is None or name in set(map(str, columns)):
        return policy, None
    counted = policy.model_copy(update={"individual": None, "pseudonymize_individual": False})
    counted._base_dir = policy.base_dir
    counted._source = policy._source
    note = (
        f"column {name!r}, the policy's individual, is not in the data (a release drops it): "
        "classes are counted in records, which a person's several records could fill alone — "
        "the anonymization report's re-check counted people (check.n_individuals); release a "
        "keyed pseudonym (pseudonymize_individual: true) to check person by person"
    )
    return counted, note


def column_names(frame: Any) -> list[str]:
    """The column names of a pandas DataFrame or an Arrow table."""
    return list(frame.column_names if is_arrow(frame) else frame.columns)


def _arrow_equals(column: Any, value: str) -> np.ndarray:
    """Which rows of an Arrow column hold the string ``value`` (False for nulls and for
    non-string columns), without pandas: the boolean result is cast to int8 and read zero-copy."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        return np.zeros(len(column), dtype=bool)
    hits = pc.fill_null(pc.equal(column, value), False).cast(pa.int8())
    parts = [c.to_numpy(zero_copy_only=True) for c in hits.chunks]
    return (np.concatenate(parts) if parts else np.zeros(0, np.int8)).astype(bool)


def starred_rows(frame: pd.DataFrame, policy: Policy) -> np.ndarray | None:
    """Rows the check counts as suppressed records, or None when there are none.

    Under ``suppressed_records: star`` an anonymizer writes a suppressed record with every
    quasi-identifier as ``*``: such a row releases no quasi-identifier value, so it is counted
    against the suppression limit instead of being judged as an equivalence class by the models
    (ARX semantics: suppressed records are exempt from the models). A table whose every row is
    ``*`` is the fully generalized table — an anonymizer always keeps at least one record — and
    is judged as the one class it is.
    """
    qis = policy.quasi_identifiers
    if policy.suppressed_records != "star" or not qis or len(frame) == 0:
        return None
    star = np.ones(len(frame), dtype=bool)
    arrow = is_arrow(frame)
    for name in qis:
        if arrow:
            star &= _arrow_equals(frame.column(name), SUPPRESSED)
        elif getattr(frame[name].dtype, "name", "") == "category":  # compare the categories
            column = frame[name].cat
            hit = np.asarray(column.categories, dtype=object) == SUPPRESSED
            star &= np.append(hit, False)[column.codes.to_numpy()]  # code -1 (missing): no
        else:
            star &= frame[name].to_numpy(dtype=object, na_value=None) == SUPPRESSED
        if not star.any():
            return None
    if star.all():
        return None
    return star


def released_rows(frame: Any, policy: Policy, weight: str | None = None) -> tuple[Any, Any, int]:
    """The one reading of a release's rows that ``check``, ``compare`` and an anonymizer's
    re-check share: (the rows judged as equivalence classes, the ``starred_rows`` mask or None,
    the suppressed records). Under ``suppressed_records: star`` the rows whose every
    quasi-identifier reads ``*`` are suppressed records (weighted by ``weight`` on an engine's
    counts) and leave the classes; under ``remove`` every row is in a class — an all-``*`` row
    too (local suppression's all-``*`` class)."""
    star = starred_rows(frame, policy)
    if star is None:
        return frame, None, 0
    n_suppressed = int(star.sum()) if weight is None else int(frame.loc[star, weight].sum())
    if is_arrow(frame):
        import pyarrow as pa

        return frame.filter(pa.array(~star)), star, n_suppressed
    return frame[~star].reset_index(drop=True), star, n_suppressed


def suppression_limit_records(policy: Policy, n_rows: int) -> int:
    """The suppression limit in records, as the anonymizers compute it (floor of limit · N)."""
    return int(np.floor(policy.suppression_limit * n_rows + 1e-9))


def finish_report(
    report: Report,
    policy: Policy,
    *,
    identifiers: list[str],
    n_suppressed: int,
    n_rows: int,
) -> Report:
    """Add the release-integrity findings to a models' verdict: identifier columns present,
    and suppressed records (``*`` rows) against the suppression limit."""
    report.identifiers_present = identifiers
    report.n_suppressed = n_suppressed
    if policy.suppressed_records == "star" and policy.quasi_identifiers:
        limit = suppression_limit_records(policy, n_rows)
        report.suppression_limit_records = limit
        report.suppression_ok = n_suppressed <= limit
    report.passed = report.passed and not identifiers and report.suppression_ok
    return report


def check_frame(
    frame: Any,
    policy: Policy,
    *,
    weight: str | None = None,
    identifiers: list[str],
    notes: list[str | None] = (),
    source: str | None = None,
    max_violators: int = MAX_VIOLATORS,
    details: bool = False,
    allow_empty: bool = False,
    explain: bool = False,
    explain_max_size: int | None = None,
) -> Report:
    """Check a table already read — a pandas DataFrame or an Arrow table of records, or an
    engine's counts (one row per distinct combination, its records in column ``weight``) —
    against a policy: rows written ``*`` in every quasi-identifier are suppressed records,
    the rest are encoded, counted and judged by every model (``check_table``), and the
    release-integrity findings added (``finish_report``; ``identifiers``: the policy's
    identifier columns the data holds). ``notes`` (None entries skipped) go on the report."""
    n_rows = len(frame) if weight is None else int(frame[weight].sum())
    refuse_nested(frame, policy)  # (before '*' is looked for in a column of lists)
    frame, star, n_suppressed = released_rows(frame, policy, weight)
    big = len(frame) >= PROGRESS_MIN_RECORDS
    with progress(3, "checking", enabled=None if big else False) as bar:
        t = time.perf_counter()
        encoded = encode(
            frame,
            policy if weight is None else aggregated_policy(policy),
            weight_column=weight,
            as_released=True,
            sensitive=sensitive_read(policy),
        )
        log.info(
            "encoded %d records, quasi-identifiers %s, sensitive %s in %.3f s",
            encoded.n_records,
            encoded.qi_names,
            list(encoded.sensitive),
            _since(t),
        )
        if encoded.n_records == 0 and not allow_empty:
            raise DataError(no_records_message(source))
        validate_data(encoded, policy.models)
        bar.advance()
        t = time.perf_counter()
        table = count(encoded)
        log.info("%d equivalence classes in %.3f s", table.n_classes, _since(t))
        bar.advance()
        report = check_table(table, policy, source, max_violators, details=details)
        finish_report(
            report, policy, identifiers=identifiers, n_suppressed=n_suppressed, n_rows=n_rows
        )
        if star is not None:  # violators name rows of the checked file, '*' rows included
            _renumber(report, np.flatnonzero(~star))
        report.notes.extend(n for n in notes if n is not None)
        if explain:
            from privcheck.risk.population.explain import explain_table

            report.explanation = explain_table(table, policy, frame, max_size=explain_max_size)
            log.info("explanation in %.3f s", report.explanation.seconds)
        bar.advance()
    return report


def _renumber(report: Report, rows: np.ndarray) -> None:
    """Map the record numbers of violators from the judged rows back to the file's rows."""
    for m in report.models:
        for v in m.violators:
            if v.records:
                v.records = rows[np.asarray(v.records, dtype=np.int64)].tolist()


def no_records_message(source: str | None) -> str:
    """Why an empty table is refused, and how to accept it."""
    what = source or "the data"
    return (
        f"{what} has no records (a header only?): an empty extract is usually a broken pipeline, "
        "not a safe release; pass --allow-empty (API: allow_empty=True) to accept it as a "
        "vacuous pass"
    )


def refuse_mechanism_models(policy: Policy) -> None:
    """A model that is a property of the mechanism (differential privacy) cannot be checked on
    a table: say so before reading any data (its ``evaluate`` raises the one-line reason)."""
    registry = model_registry()  # (also loads the plugins before the steps are timed)
    for config in policy.models:
        model = registry[config.model]
        if model.target == "mechanism":
            model.evaluate(None, config)


def refuse_synthetic_risk(policy: Policy) -> None:
    """A policy that bounds ``synthetic_risk`` is a bound on attacks that need the generator's
    training rows and a control set, which a check of one table does not have: refused in one
    line naming the command that evaluates it — a check must never pass it unevaluated."""
    if getattr(policy, "synthetic_risk", None) is None:
        return
    raise PolicyError(
        "the policy bounds synthetic_risk, which a check of one table cannot evaluate (the "
        "attacks need the generator's training rows and a control set): run `privcheck risk "
        "--original TRAINING --masked SYNTHETIC --control CONTROL --policy POLICY --attack A` "
        "for A in singling-out, linkability, inference, membership-inference (or drop "
        "synthetic_risk from a copy of the policy to check its other models)"
    )


def _since(t: float) -> float:
    return time.perf_counter() - t
