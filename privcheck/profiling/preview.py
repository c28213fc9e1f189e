"""What ``anonymize`` will cost: the default ``auto`` anonymization of the draft, run on a row
sample, and the information loss of its release per quasi-identifier.

A draft that passes ``check`` after ``anonymize`` can still release a table whose job, postcode
and city are all ``*``. ``init`` says so before anyone runs it: it anonymizes the whole table
when it has at most ``PREVIEW_ALL`` rows, else a sample of ``PREVIEW_ROWS`` rows (a fixed seed:
the same table previews the same; bounded work, so ``init`` on a million rows stays within
twice one ``check``), exactly as ``privcheck anonymize`` would — same policy, ``auto`` — and
reports the release's ``loss_by_attribute``, the figure the anonymization report carries (the
average over records of the share of a hierarchy's ground values the released value covers, a
suppressed record's cell 1; its mean over the quasi-identifiers is the report's ``loss``), and
which quasi-identifier costs the most.

A sample has fewer records per combination than the whole table, so it usually needs more
generalization: on a table larger than the sample the figures are an estimate on the high side,
and the preview says it ran on a sample.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from privcheck.errors import PrivcheckError
from privcheck.policy import Policy

#: tables of at most this many rows are previewed whole (the preview is the release's loss)
PREVIEW_ALL = 5_000
#: rows sampled from a bigger table
PREVIEW_ROWS = 2_000
#: a quasi-identifier losing at least this share of its information is worth a sentence
COSTLY = 0.3


@dataclass
class Preview:
    """The preview's figures (``privcheck init --format json``: the ``preview`` key)."""

    #: rows anonymized, and the table's rows
    sample_rows: int
    rows: int
    algorithm: str = "auto"
    #: the candidate ``auto`` chose (mingen, mondrian, local-suppression)
    chosen: str | None = None
    #: the release's loss (the mean of ``loss_by_attribute``) and per quasi-identifier
    loss: float | None = None
    loss_by_attribute: dict[str, float] = field(default_factory=dict)
    #: the quasi-identifier with the highest loss, and that loss
    costliest_attribute: str | None = None
    costliest_loss: float | None = None
    #: records of the sample the release suppressed
    suppressed_records: int | None = None
    seconds: float = 0.0
    #: why there is no release of the sample (the policy cannot be met on it), else None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "algorithm": self.algorithm,
            "chosen": self.chosen,
            "sample_rows": self.sample_rows,
            "rows": self.rows,
            "loss": None if self.loss is None else round(self.loss, 4),
            "loss_by_attribute": {q: round(v, 4) for q, v in self.loss_by_attribute.items()},
            "costliest_attribute": self.costliest_attribute,
            "costliest_loss": (
                None if self.costliest_loss is None else round(self.costliest_loss, 4)
            ),
            "suppressed_records": self.suppressed_records,
            "seconds": round(self.seconds, 4),
            "error": self.error,
        }

    def lines(self) -> list[str]:
        """The preview as the closing summary of ``privcheck init`` prints it."""
        where = (
            f"all {self.rows:,} rows"
            if self.sample_rows >= self.rows
            else f"a sample of {self.sample_rows:,} of {self.rows:,} rows (a sample usually "
            "needs more generalization than the whole table)"
        )
        if self.error is not None:
            return [f"preview of privcheck anonymize (auto) on {where}: no release: {self.error}"]
        if not self.loss_by_attribute:
            return [
                f"preview of privcheck anonymize (auto) on {where}: no quasi-identifier, "
                "nothing to generalize"
            ]
        per = ", ".join(f"{q} {v:.2f}" for q, v in self.loss_by_attribute.items())
        out = [
            f"preview of privcheck anonymize (auto) on {where}: {self.chosen}, loss "
            f"{self.loss:.2f} ({per}), {self.suppressed_records:,} record(s) suppressed"
        ]
        name, worst = self.costliest_attribute, self.costliest_loss
        if name is not None and worst is not None and worst >= COSTLY:
            out.append(
                f"{name} costs most: {worst:.2f} of its information; consider a hierarchy with "
                "coarser groups for it, or dropping it (or another quasi-identifier an intruder "
                "cannot know)"
            )
        elif name is not None:
            out.append(f"{name} costs most: {worst:.2f} of its information")
        return out


def sample_positions(n_rows: int, size: int, seed: int = 0) -> np.ndarray:
    """The rows previewed: all of a table of at most ``max(size, PREVIEW_ALL)`` rows, else
    ``size`` rows drawn without replacement (sorted)."""
    if n_rows <= max(size, PREVIEW_ALL):
        return np.arange(n_rows)
    return np.sort(np.random.default_rng(seed).choice(n_rows, size=size, replace=False))


def _pandas(table: pa.Table) -> Any:
    """The sample as the DataFrame ``anonymize`` reads (dictionary columns as their values)."""
    columns = {}
    for name in table.column_names:
        column = table.column(name)
        if pa.types.is_dictionary(column.type):
            column = column.cast(column.type.value_type)
        columns[name] = column
    return pa.table(columns).to_pandas()


def release_preview(
    table: pa.Table, policy: Policy, size: int = PREVIEW_ROWS, seed: int = 0
) -> Preview:
    """Anonymize ``table`` (``sample_positions``: whole up to ``PREVIEW_ALL`` rows, else
    ``size`` of them) under ``policy`` with ``auto`` and report the release's loss per
    quasi-identifier (see the module docstring)."""
    from privcheck.pipeline.anonymize import anonymize

    started = time.perf_counter()
    positions = sample_positions(table.num_rows, size, seed)
    preview = Preview(sample_rows=len(positions), rows=table.num_rows)
    kept = {
        name: attr
        for name, attr in policy.attributes.items()
        if attr.role.value in ("quasi_identifier", "sensitive")
    }
    if not any(a.role.value == "quasi_identifier" for a in kept.values()):
        return preview
    # only what the release is decided on: the identifiers and insensitive columns it drops or
    # copies change no figure of the preview (the individual's column, when a policy names one,
    # counts people)
    individual = getattr(policy, "individual", None)
    columns = [*kept, *([individual] if individual and individual not in kept else [])]
    sample = _pandas(table.select(columns).take(pa.array(positions)))
    narrowed = policy.model_copy(update={"attributes": kept})
    narrowed._base_dir = policy.base_dir
    try:
        # decided as drafted (the preview is of the draft, open review entries and all)
        _, report = anonymize(sample, narrowed, "auto", seed=seed, allow_draft=True)
    except PrivcheckError as exc:
        preview.error = str(exc)
    else:
        per = dict(report.loss_by_attribute or {})
        preview.chosen = report.chosen
        preview.loss_by_attribute = per
        preview.loss = float(np.mean(list(per.values()))) if per else 0.0
        preview.suppressed_records = report.n_suppressed
        if per:
            worst = max(per, key=lambda q: per[q])
            preview.costliest_attribute, preview.costliest_loss = worst, per[worst]
    preview.seconds = time.perf_counter() - started
    return preview
