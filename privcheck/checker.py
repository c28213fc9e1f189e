"""The check pipeline: data + policy → encode → count → evaluate every model → Report."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from privcheck.classes import ClassTable, count
from privcheck.encoding import encode
from privcheck.io import read_table
from privcheck.models.base import Evaluation, evaluate_models
from privcheck.policy import Policy, load_policy
from privcheck.report import ModelResult, Report, ViolatingClass

#: default caps on what a report lists (counts are always complete)
MAX_VIOLATORS = 20
MAX_RECORDS_PER_CLASS = 50


def model_result(
    table: ClassTable,
    ev: Evaluation,
    max_violators: int = MAX_VIOLATORS,
    max_records: int = MAX_RECORDS_PER_CLASS,
) -> ModelResult:
    """A model's verdict on a class table, naming its worst violating classes."""
    bad = np.flatnonzero(~ev.class_ok)
    listed = ev.worst_first(bad, limit=max_violators)
    records = (
        table.records_of(listed, cap=max_records)
        if table.record_class is not None
        else [[] for _ in listed]
    )
    violators = [
        ViolatingClass(
            values=values, size=int(table.sizes[c]),
            statistic=float(ev.class_value[c]) if np.isfinite(ev.class_value[c]) else None,
            records=recs,
        )
        for c, values, recs in zip(listed, table.class_labels(listed), records, strict=True)
    ]
    return ModelResult(
        model=ev.config.model,
        params=ev.config.params(),
        passed=ev.passed,
        value=ev.value(),
        statistic=ev.statistic,
        violating_classes=len(bad),
        violating_records=int(table.sizes[bad].sum()),
        violators=violators,
    )


def check_table(
    table: ClassTable, policy: Policy, source: str | None = None,
    max_violators: int = MAX_VIOLATORS,
) -> Report:
    """Evaluate every model of ``policy`` on a class table."""
    # one model at a time: only one set of per-class statistics is alive at once
    results = [
        model_result(table, evaluate_models(table, [config])[0], max_violators)
        for config in policy.models
    ]
    return Report(
        passed=all(r.passed for r in results),
        n_records=table.n_records,
        n_classes=table.n_classes,
        quasi_identifiers=table.encoded.qi_names,
        models=results,
        source=source,
    )


def check(
    data: pd.DataFrame | str | Path,
    policy: Policy | dict | str | Path,
    *,
    max_violators: int = MAX_VIOLATORS,
) -> Report:
    """Check a table against a policy: does every model hold, and who violates it?"""
    started = time.perf_counter()
    policy = load_policy(policy)
    source = None if isinstance(data, pd.DataFrame) else str(data)
    table = count(encode(read_table(data), policy))
    report = check_table(table, policy, source, max_violators)
    report.elapsed_seconds = round(time.perf_counter() - started, 4)
    return report
