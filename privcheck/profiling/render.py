"""What ``privcheck init`` prints: the profile as a table (stdout) and the closing summary
(stderr) — records unique on the drafted quasi-identifiers and what ``privcheck check`` will
say."""

from __future__ import annotations

from privcheck.errors import listing
from privcheck.profiling.decision import pct
from privcheck.profiling.profile import Profile

_ROLE = {
    "identifier": "identifier",
    "quasi_identifier": "quasi-identifier",
    "sensitive": "sensitive",
    "insensitive": "insensitive",
}


def _hierarchy(spec: dict | None) -> str:
    if spec is None:
        return "—"
    kind = spec["type"]
    if kind == "intervals":
        return "intervals " + "/".join(str(w) for w in spec["widths"])
    if kind == "dates":
        return "dates " + "/".join(spec.get("levels", []))
    if kind == "masking":
        return "masking"
    return f"table {spec['path']}" if "path" in spec else f"table ({len(spec['rows'])} rows)"


def profile_text(profile: Profile) -> str:
    """One row per column: type, counts, pattern, role, hierarchy; the reasons below."""
    head = ["column", "type", "distinct", "missing", "unique", "pattern", "role", "hierarchy"]
    rows = [
        [
            c.name,
            c.type,
            f"{c.distinct:,}",
            pct(c.missing_share),
            pct(c.unique_share),
            c.pattern or "—",
            _ROLE[c.role] + (" ?" if c.review else ""),
            _hierarchy(c.hierarchy),
        ]
        for c in profile.columns
    ]
    widths = [min(max(len(r[i]) for r in [head, *rows]), 40) for i in range(len(head))]
    right = {2, 3, 4}

    def line(cells: list[str]) -> str:
        out = [
            (cell.rjust(w) if i in right else cell.ljust(w))[: max(w, len(cell))]
            for i, (cell, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(out).rstrip()

    where = profile.source or "the table"
    text = [
        f"privcheck init: {where} — {profile.rows:,} rows, {len(profile.columns)} columns "
        f"(patterns on a sample of up to {profile.sample_size:,} rows per column)",
        "",
        line(head),
        *(line(r) for r in rows),
        "",
        "why (? = review):",
        *(f"  {c.name}: {c.reason}" for c in profile.columns),
    ]
    return "\n".join(text) + "\n"


def summary_text(profile: Profile, data: str | None = None) -> str:
    """The closing summary: roles drafted, uniqueness, the check's verdict, the next step."""
    counts = {r: sum(c.role == r for c in profile.columns) for r in _ROLE}
    review = [c.name for c in profile.columns if c.review]
    parts = [
        f"{n} {_ROLE[r]}{'s' if n != 1 and r in ('identifier', 'quasi_identifier') else ''}"
        for r, n in counts.items()
    ]
    target = profile.policy_path or "the policy"
    lines = [f"drafted {target}: " + ", ".join(parts)]
    # (the warnings were said on their own line: ``privcheck: warning: …``)
    lines += [f"note: {note}" for note in profile.notes if note not in profile.warnings]
    if review:
        lines.append(
            f"to decide ({len(review)}, the attributes with a 'review:' entry): "
            f"{listing(review, 8)} — check, anonymize and every other gate refuse the draft "
            "until each is decided (set the role, delete its review entry)"
        )
    if profile.hierarchy_files:
        lines.append(f"table hierarchies: {', '.join(profile.hierarchy_files)}")
    qis = profile.quasi_identifiers
    if profile.unique_records is not None:
        if qis:
            alone = (
                "are unique on the"
                if profile.individual is None
                else "belong to the only person of their class on the"
            )
            lines.append(
                f"{profile.unique_records:,} of {profile.rows:,} records "
                f"({pct(profile.unique_records / profile.rows)}) {alone} "
                f"{len(qis)} quasi-identifier(s) {listing(qis, 8)}"
            )
        else:
            lines.append(
                "no quasi-identifier was drafted: k-anonymity holds trivially; review the "
                "columns an intruder could know"
            )
    if profile.check is not None:
        refused = "privcheck check refuses the draft (exit 2) until then; decided as drafted, "
        head = refused + "it" if review else "privcheck check"
        if profile.check["passed"]:
            lines.append(f"{head} will pass (exit 0)")
        else:
            lines.append(f"{head} will fail (exit 1): " + "; ".join(profile.check["findings"]))
    if profile.preview is not None:
        lines += profile.preview.lines()
    if profile.policy_path:
        data = data or "DATA"
        decide = f"decide the {len(review)} review entries, " if review else ""
        lines.append(
            f"next: read {profile.policy_path}, {decide}then privcheck check {data} -p "
            f"{profile.policy_path} and privcheck anonymize {data} -p {profile.policy_path} "
            "-o release.csv"
        )
    return "\n".join(lines) + "\n"
