"""The compare table: one row per release, one column per measure (text or JSON)."""

from __future__ import annotations

import json

#: column → (header, format) of the text table, in order; missing columns are left out
TEXT_COLUMNS: dict[str, tuple[str, str]] = {
    "release": ("release", "{}"),
    "rows": ("rows", "{:d}"),
    "classes": ("classes", "{:d}"),
    "prec": ("Prec", "{:.4f}"),
    "non_uniform_entropy": ("NUE bits", "{:.0f}"),
    "non_uniform_entropy_share": ("NUE share", "{:.4f}"),
    "discernibility": ("discernibility", "{:.4g}"),
    "aecs": ("AECS", "{:.1f}"),
    "kl_divergence": ("KL", "{:.4f}"),
    "changed_share": ("changed", "{:.2%}"),
    "suppressed_share": ("suppressed", "{:.2%}"),
    "accuracy_original": ("acc. original", "{:.4f}"),
    "accuracy_release": ("acc. release", "{:.4f}"),
    "accuracy_loss_points": ("loss (points)", "{:+.2f}"),
}


def render_table(rows: list[dict]) -> str:
    """A fixed-width text table of the rows' measures."""
    cols = [c for c in TEXT_COLUMNS if any(c in r for r in rows)]
    cells = [[TEXT_COLUMNS[c][0] for c in cols]]
    for r in rows:
        cells.append([TEXT_COLUMNS[c][1].format(r[c]) if c in r else "-" for c in cols])
    widths = [max(len(line[i]) for line in cells) for i in range(len(cols))]
    out = []
    for n, line in enumerate(cells):
        parts = [
            v.ljust(w) if i == 0 else v.rjust(w)
            for i, (v, w) in enumerate(zip(line, widths, strict=True))
        ]
        out.append("  ".join(parts).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out) + "\n"


def render_json(rows: list[dict]) -> str:
    """A JSON list of objects keyed by measure name."""
    return json.dumps(rows, indent=2) + "\n"
