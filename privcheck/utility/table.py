"""The compare report as a person reads it (text) or a program does (JSON).

Text: a utility table and a risk table, one row per release, every measure headed by its
direction (↑ higher is better, ↓ lower is better) with the best value of each column marked
``•``; a measure a release cannot have reads ``n/a`` and the reason follows the table; the risk
table starts with the original ("before"); the closing lines say which metric releases are
compared by (the one ``--algorithm auto`` compares by) and recommend the release with the least
of it among those that pass the policy. By
default the tables hold the few measures that decide a choice and fit ``WIDTH`` columns;
``wide`` shows every measure. JSON: ``{"releases": [...], "recommended": path | null,
"compared_by": metric, "before": {...}, ...}``
(``privcheck.utility.compare.compare_releases``).
"""

from __future__ import annotations

import json
import os
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: the widest a default text report gets
WIDTH = 100
#: the mark of the best value of a column
BEST = "•"
UP, DOWN = "↑", "↓"


def _num(fmt: str) -> Callable[[Any], str]:
    return lambda v: fmt.format(v)


def _pct(v: float) -> str:
    return f"{100 * v:.2f}%"


@dataclass(frozen=True)
class Column:
    """One column of the text tables: where its value is, its header, format and direction
    (None: not a measure, never marked)."""

    key: str
    header: str
    unit: str
    fmt: Callable[[Any], str]
    higher_is_better: bool | None

    def value(self, entry: dict) -> Any:
        if self.key.startswith("risk."):
            return (entry.get("risk") or {}).get(self.key[5:])
        return entry.get(self.key)


def _columns() -> dict[str, Column]:
    cols = [
        Column("rows", "rows", "", _num("{:,d}"), None),
        Column("classes", "classes", "", _num("{:,d}"), True),
        Column("prec", "Prec", "", _num("{:.4f}"), True),
        Column("non_uniform_entropy", "NUE", "bits", _num("{:,.0f}"), False),
        Column("non_uniform_entropy_share", "NUE", "share", _num("{:.4f}"), False),
        Column("discernibility", "discern.", "", _num("{:.4g}"), False),
        Column("aecs", "AECS", "", _num("{:.1f}"), False),
        Column("kl_divergence", "KL", "nats", _num("{:.3f}"), False),
        Column("changed_cells", "changed", "cells", _num("{:,d}"), False),
        Column("changed_share", "changed", "share", _pct, False),
        Column("suppressed_cells", "'*'", "cells", _num("{:,d}"), False),
        Column("suppressed_share", "'*'", "share", _pct, False),
        Column("suppressed_records", "suppressed", "records", _pct, False),
        Column("generalized_cells", "generalized", "cells", _pct, False),
        Column("loss", "loss", "", _num("{:.4f}"), False),
        Column("accuracy_original", "accuracy", "original", _num("{:.4f}"), None),
        Column("accuracy_release", "accuracy", "release", _num("{:.4f}"), True),
        Column("accuracy_loss_points", "acc. loss", "points", _num("{:+.2f}"), False),
        Column("risk.highest", "highest", "risk", _num("{:.4f}"), False),
        Column("risk.average", "average", "risk", _num("{:.4f}"), False),
        Column("risk.records_above", "records", "above", _pct, False),
    ]
    return {c.key: c for c in cols}


COLUMNS = _columns()
#: what the default tables show: the figures that decide a choice
UTILITY_DEFAULT = (
    "loss",
    "non_uniform_entropy_share",
    "kl_divergence",
    "classes",
    "suppressed_records",
    "generalized_cells",
    "accuracy_loss_points",
)
RISK_DEFAULT = ("risk.highest", "risk.average", "risk.records_above")


def short_names(paths: list[str], width: int) -> list[str]:
    """Release names for the text tables: file names when they tell the releases apart, else
    the paths; cut from the left to ``width`` characters."""
    names = [os.path.basename(p) or p for p in paths]
    if len(set(names)) < len(names):
        names = list(paths)
    return [n if len(n) <= width else "…" + n[-(width - 1) :] for n in names]


def _grid(
    title: str,
    names: list[str],
    entries: list[dict],
    columns: list[Column],
    leading: list[tuple[str, list[str]]] = (),  # type: ignore[assignment]
) -> list[str]:
    """A table: a name column, ``leading`` plain columns (header, cells), then ``columns``
    with a two-line header (name; unit and direction) and the best value of each marked."""
    heads1 = [title] + [h for h, _ in leading] + [c.header for c in columns]
    heads2 = [""] + ["" for _ in leading]
    for c in columns:
        arrow = "" if c.higher_is_better is None else (UP if c.higher_is_better else DOWN)
        heads2.append(" ".join(p for p in (c.unit, arrow) if p))
    body: list[list[str]] = []
    for i, name in enumerate(names):
        body.append([name] + [cells[i] for _, cells in leading])
    for c in columns:
        values = [c.value(e) for e in entries]
        present = [v for v in values if v is not None]
        best = None
        if c.higher_is_better is not None and len(present) > 1:
            best = max(present) if c.higher_is_better else min(present)
        for row, v in zip(body, values, strict=True):
            if v is None:
                row.append("n/a ")
            else:
                marked = best is not None and abs(v - best) <= 1e-12 * max(1.0, abs(best))
                row.append(c.fmt(v) + (BEST if marked else " "))
    lines_ = [heads1, heads2, *body]
    widths = [max(len(r[i]) for r in lines_) for i in range(len(heads1))]
    out = []
    for n, r in enumerate(lines_):
        cells = [r[0].ljust(widths[0])] + [
            v.rjust(w) for v, w in zip(r[1:], widths[1:], strict=True)
        ]
        out.append("  ".join(cells).rstrip())
        if n == 1:
            out.append("  ".join("-" * w for w in widths))
    return out


def render_text(result: dict, *, wide: bool = False, n_records: int | None = None) -> str:
    """The compare report as text (module docstring); at most ``WIDTH`` columns unless
    ``wide`` (release names are shortened to fit)."""
    entries = result["releases"]
    paths = [e["release"] for e in entries]
    longest = max((len(p) for p in paths), default=7)
    text = _render(result, short_names(paths, longest), wide, n_records)
    overflow = max(len(line) for line in text.splitlines()) - WIDTH
    if not wide and overflow > 0:
        names = short_names(
            paths, max(10, max(len(n) for n in short_names(paths, longest)) - overflow)
        )
        text = _render(result, names, wide, n_records)
    return text


def _render(result: dict, names: list[str], wide: bool, n_records: int | None) -> str:
    entries = result["releases"]
    has = {k for e in entries for k in e}
    has |= {"risk." + k for e in entries for k in e.get("risk") or {}}
    if wide:  # every measure; the risk in its own table, after the original's ("before")
        keys = [k for k in COLUMNS if k in has and not k.startswith("risk.")]
        risk_keys = [k for k in COLUMNS if k in has and k.startswith("risk.")]
    else:
        keys = [k for k in UTILITY_DEFAULT if k in has]
        risk_keys = [k for k in RISK_DEFAULT if k in has]
    threshold = _threshold_label(result)
    if threshold:
        above = Column("risk.records_above", "records", f"> {threshold}", _pct, False)
        COLS = {**COLUMNS, "risk.records_above": above}
    else:
        COLS = COLUMNS
    verdicts = ["yes" if e["passed"] else "NO" for e in entries]
    n = len(entries)
    of = f" against the original ({n_records:,} records)" if n_records is not None else ""
    lines = [
        f"utility of {n} release{'s' if n != 1 else ''}{of}",
        f"{UP} higher is better, {DOWN} lower is better, {BEST} best of its column",
        "",
    ]
    if result.get("draft"):
        from privcheck.report import draft_note

        lines[2:2] = [draft_note(result.get("open_reviews", []))]
    lines += _grid("release", names, entries, [COLS[k] for k in keys], [("passes", verdicts)])
    if risk_keys:
        lines += ["", "risk (prosecutor: 1 / class size, the classes `privcheck check` forms)"]
        before = result.get("before")
        rows, risk_names = entries, names
        if before is not None:  # the original first: what each release brings the risk down from
            rows, risk_names = [before, *entries], ["before (original)", *names]
        lines += _grid("release", risk_names, rows, [COLS[k] for k in risk_keys])
    notes = []
    for name, e in zip(names, entries, strict=True):
        for reason in sorted({str(e[k]) for k in e if k.endswith("_reason") and e[k]}):
            notes.append(f"n/a for {name}: {reason}")
    if notes:
        lines.append("")
        for note in notes:
            lines += textwrap.wrap(note, WIDTH, subsequent_indent="  ", break_on_hyphens=False)
    paths = [e["release"] for e in entries]
    lines += ["", recommendation_line(result, dict(zip(paths, names, strict=True)))]
    return "\n".join(lines) + "\n"


def _threshold_label(result: dict) -> str | None:
    threshold = result.get("risk_threshold")
    if threshold is None:
        return None
    k = 1 / threshold
    return f"1/{round(k)}" if abs(k - round(k)) < 1e-9 else f"{threshold:g}"


def recommendation_line(result: dict, names: dict[str, str]) -> str:
    """The closing lines: which release to publish, and why (the metric ``auto`` compares by)."""
    entries = result["releases"]
    passing = [e for e in entries if e["passed"]]
    metric = result.get("compared_by", "loss")
    why = result.get("compared_by_reason", metric)
    compared = f"compared by {why}"
    chosen = result.get("recommended")
    if chosen is None:
        return f"{compared}\nrecommended: none — no release passes the policy"
    value = next(e[metric] for e in entries if e["release"] == chosen)
    of = f"of the {len(passing)} that pass" if len(passing) > 1 else "the only one that passes"
    shown = f"{value:.4f}" if metric == "loss" else f"{value:.4g}"
    line = f"recommended: {names.get(chosen, chosen)} — least {metric} ({shown}) {of} the policy"
    wrapped = textwrap.wrap(compared, WIDTH, subsequent_indent="  ", break_on_hyphens=False)
    return "\n".join([*wrapped, line])


def render_json(result: dict) -> str:
    """The compare report as JSON: ``{"releases": [...], "recommended": ...}``."""
    return json.dumps(result, indent=2) + "\n"
