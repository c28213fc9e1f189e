"""Brute-force oracles for the generalization searches: every lattice node, decided on its own.

``verdict_from_rows`` decides one node from the records alone (``count`` at the node, no rollup,
no search state), including the suppression semantics: suppress the records of violating classes,
re-check the *kept records* from scratch (so table-dependent models see the kept distribution),
repeat until nothing changes; satisfied when at most ``limit`` records went and some remain.
``all_verdicts`` does it for every node of the lattice, optionally taking each node's class table
from a fixed spanning tree of rollups instead of the rows (fast enough for Adult's lattices).

``release_loss`` recomputes the documented loss of ANY written release (docs/anonymization.md,
"Metrics") from the release file, the original file and the policy's hierarchy files alone —
plain Python and pandas, none of privcheck's encoding, hierarchy or metric code — so that every
anonymizer's reported ``loss`` can be held against it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from privcheck.classes import ClassTable, count, rollup
from privcheck.encoding import EncodedTable
from privcheck.lattice import Lattice
from privcheck.metrics.generalization import loss, precision
from privcheck.models.base import evaluate_models

#: models that compare each class with the kept records' distribution (suppression changes it)
TABLE_DEPENDENT = {
    "t-closeness",
    "beta-likeness",
    "delta-disclosure",
    "average-risk",
    "record-risk",
    "population-uniqueness",
}


def restrict_rows(encoded: EncodedTable, rows: np.ndarray) -> EncodedTable:
    """The encoded table with only ``rows`` (a boolean mask) — a fresh table of those records."""
    qis = [replace(c, codes=c.codes[rows]) for c in encoded.quasi_identifiers]
    sens = {n: replace(c, codes=c.codes[rows]) for n, c in encoded.sensitive.items()}
    return replace(encoded, n_records=int(rows.sum()), quasi_identifiers=qis, sensitive=sens)


def class_ok(table: ClassTable, configs) -> np.ndarray:
    ok = np.ones(table.n_classes, dtype=bool)
    for ev in evaluate_models(table, configs):
        ok &= ev.class_ok
    return ok


def verdict(
    encoded: EncodedTable, table: ClassTable, configs, limit: int
) -> tuple[bool, int, np.ndarray]:
    """(satisfied, suppressed records, kept-class mask) of a node's class table.

    When suppressing changes what table-dependent models see, the kept records are counted again
    from the rows (the table must then track records) until no kept class violates anything.
    """
    ok = class_ok(table, configs)
    suppressed = int(table.sizes[~ok].sum())
    if suppressed == 0:
        return True, 0, ok
    if suppressed > limit or not ok.any():
        return False, suppressed, ok
    if not any(c.model in TABLE_DEPENDENT for c in configs):
        return True, suppressed, ok  # the other models decide each class on its own
    kept = ok[table.record_class]
    while True:
        sub = restrict_rows(encoded, kept)
        sub_table = count(sub, table.node, track_records=True)
        sub_ok = class_ok(sub_table, configs)[sub_table.record_class]
        if sub_ok.all():
            break
        idx = np.flatnonzero(kept)
        kept = kept.copy()
        kept[idx[~sub_ok]] = False
        suppressed = int(encoded.n_records - kept.sum())
        if suppressed > limit or not kept.any():
            return False, suppressed, ok
    ok = np.bincount(table.record_class, weights=kept, minlength=table.n_classes) > 0
    return True, suppressed, ok


def verdict_from_rows(encoded: EncodedTable, node, configs, limit: int):
    return verdict(encoded, count(encoded, tuple(node), track_records=True), configs, limit)


def all_verdicts(
    encoded: EncodedTable,
    configs,
    limit: int,
    *,
    from_rows: bool = True,
    scores: np.ndarray | None = None,
) -> tuple[Lattice, np.ndarray, np.ndarray]:
    """Satisfied flag and suppressed count of every node of the full lattice.

    ``from_rows``: each node counted from the records. Otherwise each node's table is rolled up
    from its parent in a fixed spanning tree (the node with its last raised level lowered), a
    depth-first walk that shares nothing with the searches' caches, tagging or pruning.
    ``scores`` (one float per node): filled with ARX's loss of each satisfying node's release,
    scored on the node's own table and kept classes (NaN elsewhere).
    """
    lat = Lattice(encoded.heights)
    sat = np.zeros(lat.size, dtype=bool)
    supp = np.zeros(lat.size, dtype=np.int64)

    def decide(table: ClassTable) -> None:
        ok, s, kept = verdict(encoded, table, configs, limit)
        i = lat.index(table.node)
        sat[i], supp[i] = ok, s
        if scores is not None:
            scores[i] = loss(table, kept) if ok else np.nan

    if from_rows:
        for node in lat:
            decide(count(encoded, node, track_records=True))
        return lat, sat, supp

    # the fixed point of suppression goes back to the rows
    track = limit > 0 and any(c.model in TABLE_DEPENDENT for c in configs)

    def visit(table: ClassTable, first: int) -> None:
        decide(table)
        for j in range(first, lat.width):
            if table.node[j] < lat.heights[j]:
                child = (*table.node[:j], table.node[j] + 1, *table.node[j + 1 :])
                visit(rollup(table, child), j)

    visit(count(encoded, lat.bottom, track_records=track), 0)
    return lat, sat, supp


def best_by_prec(lat: Lattice, sat: np.ndarray, supp: np.ndarray, n: int) -> float | None:
    """The highest Prec over the satisfying nodes."""
    if not sat.any():
        return None
    return max(precision(lat.node(i), lat.heights, n, int(supp[i])) for i in np.flatnonzero(sat))


def minimal_brute(lat: Lattice, sat: np.ndarray) -> set[tuple]:
    """Satisfying nodes with no other satisfying node below them (pairwise comparison)."""
    nodes = [lat.node(i) for i in np.flatnonzero(sat)]
    return {
        a
        for a in nodes
        if not any(b != a and all(x <= y for x, y in zip(b, a, strict=True)) for b in nodes)
    }


def pareto_brute(lat: Lattice, sat: np.ndarray, supp: np.ndarray, n: int) -> list[tuple]:
    """(Prec, suppressed) of every satisfying node that no other satisfying node beats on both
    (higher or equal Prec and fewer or equal suppressed, one strictly), best Prec first; one
    entry per distinct pair. Pairwise over all satisfying nodes."""
    pts = {
        (round(precision(lat.node(i), lat.heights, n, int(supp[i])), 10), int(supp[i]))
        for i in np.flatnonzero(sat)
    }
    front = [
        (p, s) for p, s in pts if not any(q >= p and t <= s and (q, t) != (p, s) for q, t in pts)
    ]
    return sorted(front, reverse=True)


# --------------------------------------------------------------------------- the documented loss

_INT_DASH = re.compile(r"^(-?\d+)-(-?\d+)$")
_BRACKETS = re.compile(r"^([\[(])\s*([^,\s]+)\s*,\s*([^,\s\])]+)\s*([\])])$")


def _as_float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _range_cover(label: str, ground: list[str]) -> set[str] | None:
    """The ground values (read as numbers) inside ``label`` when it is a range: ``[lo, hi]``
    (Mondrian), ``[lo, hi)`` (a fractional intervals level) or ``lo-hi`` (an integral one)."""
    m = _INT_DASH.match(label)
    if m:
        lo, hi, lo_in, hi_in = float(m.group(1)), float(m.group(2)), True, True
    else:
        m = _BRACKETS.match(label)
        if not m or _as_float(m.group(2)) is None or _as_float(m.group(3)) is None:
            return None
        lo, hi = float(m.group(2)), float(m.group(3))
        lo_in, hi_in = m.group(1) == "[", m.group(4) == "]"
    out = set()
    for g in ground:
        x = _as_float(g)
        if x is None:
            continue
        if (x >= lo if lo_in else x > lo) and (x <= hi if hi_in else x < hi):
            out.add(g)
    return out


def _table_rows(spec, base_dir: Path | None) -> list[list[str]]:
    if spec.rows is not None:
        return [[str(v) for v in row] for row in spec.rows]
    path = Path(spec.path)
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    frame = pd.read_csv(path, sep=spec.sep, header=None, dtype=str, keep_default_na=False)
    return frame.values.tolist()


def _covers(spec, base_dir: Path | None, original: pd.Series) -> tuple[list[str], dict]:
    """(ground values, label → set of ground values it covers) of one quasi-identifier.

    A table hierarchy's ground values are its rows, and a label of any level covers the rows
    under it (a label spelled at two levels with different rows under it is ambiguous in a
    release file: refused). Any other quasi-identifier's ground values are the distinct values
    of the original; its labels are read from their spelling (``_cover_of``)."""
    if spec is not None and spec.type == "table":
        rows = _table_rows(spec, base_dir)
        ground = [r[0] for r in rows]
        assert len(set(ground)) == len(ground), "a ground value listed twice"
        covers: dict[str, set[str]] = {}
        for level in range(len(rows[0])):
            at: dict[str, set[str]] = {}
            for r in rows:
                at.setdefault(r[level], set()).add(r[0])
            for label, under in at.items():
                if label in covers and covers[label] != under:
                    raise AssertionError(f"label {label!r} covers different values at two levels")
                covers[label] = under
        return ground, covers
    ground = sorted(set(original.tolist()))
    return ground, {g: {g} for g in ground}


def _cover_of(label: str, spec, ground: list[str], covers: dict) -> set[str]:
    if label in covers:
        return covers[label]
    if label == "*":
        return set(ground)
    in_range = _range_cover(label, ground)
    if in_range is not None:
        return in_range
    if spec is not None and spec.type == "masking" and label.endswith(spec.char):
        prefix = label.rstrip(spec.char)
        return {g for g in ground if len(g) == len(label) and g.startswith(prefix)}
    raise AssertionError(f"the released {label!r} is no value the oracle can read")


def read_strings(path: Path) -> pd.DataFrame:
    """A CSV file as the strings it holds (separator sniffed: Adult's is ';')."""
    return pd.read_csv(path, sep=None, engine="python", dtype=str, keep_default_na=False)


def release_loss(original: pd.DataFrame | Path, release: pd.DataFrame | Path, policy) -> float:
    """The documented loss of ``release`` (a written release of ``original`` under ``policy``):
    a released value covering ``m`` of the ``D`` ground values of its quasi-identifier costs
    ``(m − 1)/(D − 1)``, a ``*`` cell 1, the mean over every quasi-identifier cell of every
    INPUT record — records the release leaves out cost 1 per cell.

    Frames are read as strings (the files' spellings); row order does not matter."""
    if not isinstance(original, pd.DataFrame):
        original = read_strings(original)
    if not isinstance(release, pd.DataFrame):
        release = read_strings(release)
    qis = [n for n, a in policy.attributes.items() if a.role == "quasi_identifier"]
    n, q = len(original), len(qis)
    if n == 0 or q == 0:
        return 0.0
    total = float((n - len(release)) * q)  # records left out: every cell suppressed
    for name in qis:
        spec = policy.attributes[name].hierarchy
        ground, covers = _covers(spec, policy.base_dir, original[name].astype(str))
        d = len(ground)
        for label, times in release[name].astype(str).value_counts().items():
            if label == "*":
                total += times
                continue
            m = len(_cover_of(label, spec, ground, covers))
            assert m >= 1, f"{name}: the released {label!r} covers no ground value"
            total += times * ((m - 1) / (d - 1) if d > 1 else 0.0)
    return total / (n * q)
