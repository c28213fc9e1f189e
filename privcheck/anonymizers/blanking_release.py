"""What a blanking releases: its units as a recoding, its metrics, and its people.

``released_label_columns`` and ``people_recoding`` turn a solution (``Units``) into the
``CombinationRecoding`` an engine writes; ``release_metrics`` and ``blanked_loss_by_attribute``
measure the release written (not the starting node), ``released_classes`` its classes as a check
forms them. Counting people, ``people_blanking`` makes a blanking safe for people
(``PeopleBlanks``) and ``people_metrics`` measures it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from privcheck.anonymizers.blanking_search import Problem, Units, first_units
from privcheck.classes import ClassTable, group, people_per_group
from privcheck.encoding import string_labels
from privcheck.errors import PolicyError
from privcheck.plan import SUPPRESSED, CombinationRecoding


@dataclass
class PeopleBlanks:
    """A blanking counted in people, spread over the records: each record's unit (a class's
    units take its (class, person) pairs in turn, a pair's records follow it), the people
    suppressed with all their records, and the units weighted by the records they keep."""

    record_unit: np.ndarray
    removed: np.ndarray
    record_kept: np.ndarray
    units: Units
    n_suppressed: int
    group_records: np.ndarray
    group_people: np.ndarray


def people_blanking(
    table: ClassTable, prob: Problem, units: Units, *, k: int, limit: int
) -> PeopleBlanks:
    """The blanking ``solve`` found on a table counted in people (``Problem.sizes`` are people:
    every released row holds at least k (class, person) pairs), made safe for people.

    Two pairs of one person in two classes blanked into the same released row count once, so
    a row can hold fewer than k distinct people: those people are suppressed with all their
    records (under ``star`` also anyone with a record blanked entirely, which is a suppressed
    record), which can leave other rows short in turn — repeated to the fixed point, one
    vectorised pass over the pairs per round. Raises ``PolicyError`` when that suppresses more
    records than the limit allows."""
    m = table.members
    assert m is not None and table.record_class is not None
    person = table.encoded.individual
    assert person is not None
    unit_order = np.argsort(units.parent, kind="stable")  # the units, class by class
    ends = np.cumsum(units.sizes[unit_order])
    by_class = np.argsort(m.pair_class, kind="stable")  # the pairs, class by class
    pair_unit = np.empty(len(by_class), dtype=np.int64)
    pair_unit[by_class] = unit_order[np.searchsorted(ends, np.arange(len(by_class)), "right")]
    live = units.sizes > 0
    group_of = np.full(len(units.sizes), -1, dtype=np.int64)
    if prob.m:
        inverse, _ = prob.groups(units.pat[live], units.keys[live], units.sizes[live])
        group_of[live] = inverse
    else:
        group_of[live] = 0
    n_groups = int(group_of.max()) + 1 if live.any() else 0
    pair_group = group_of[pair_unit]
    removed = np.zeros(m.n_people, dtype=bool)
    if prob.star_mode and prob.m:  # a record blanked entirely is suppressed: its person too
        removed[m.pair_person[units.pat[pair_unit] == prob.full]] = True
    group_full = np.zeros(n_groups, dtype=bool)
    if prob.star_mode and prob.m:
        group_full[pair_group[units.pat[pair_unit] == prob.full]] = True
    while True:
        alive = ~removed.take(m.pair_person)
        people = people_per_group(pair_group[alive], n_groups, m.pair_person[alive], m.n_people)
        short = (people > 0) & (people < k) & ~group_full
        newly = alive & short.take(pair_group)
        if not newly.any():
            break
        removed[m.pair_person[newly]] = True
    gone = removed.take(m.pair_person)
    n_suppressed = int(m.pair_records[gone].sum())
    if n_suppressed > limit:
        raise PolicyError(
            f"local suppression cannot keep {k} distinct people in every released row: "
            f"people with records in several classes blanked alike count once, and "
            f"suppressing them would take {n_suppressed} records, over the suppression limit "
            f"of {limit}; raise suppression_limit or use a full-domain search (mingen)"
        )
    # the pairs of a table counted from the rows are in (person, class) order
    n_classes = max(table.n_classes, 1)
    key = np.multiply(m.pair_person, n_classes, dtype=np.int64) + m.pair_class
    record_key = np.multiply(person, n_classes, dtype=np.int64) + table.record_class
    record_pair = np.searchsorted(key, record_key)
    kept_records = np.bincount(
        pair_unit[~gone], weights=m.pair_records[~gone], minlength=len(units.sizes)
    )
    sizes = np.rint(kept_records).astype(np.int64)
    held = sizes > 0
    weighted = Units(units.keys[held], sizes[held], units.pat[held], units.parent[held])
    group_records = np.bincount(
        pair_group[~gone], weights=m.pair_records[~gone], minlength=n_groups
    ).astype(np.int64)
    people = people_per_group(pair_group[~gone], n_groups, m.pair_person[~gone], m.n_people)
    present = group_records > 0
    return PeopleBlanks(
        record_unit=pair_unit[record_pair],
        removed=removed,
        record_kept=~removed.take(person),
        units=weighted,
        n_suppressed=n_suppressed,
        group_records=group_records[present],
        group_people=people[present],
    )


def people_metrics(table: ClassTable, prob: Problem, blanks: PeopleBlanks) -> dict[str, float]:
    """``release_metrics`` of a blanking counted in people: the kept records' units, and the
    suppressed people's records charged as suppressed (every cell '*', one more class for the
    average class size, N each for discernibility)."""
    kept_prob = replace(prob, star_mode=False)  # (no kept record is blanked entirely in star)
    out = release_metrics(table, kept_prob, blanks.units, wildcard=False)
    n, n_sup = table.n_records, blanks.n_suppressed
    if n and n_sup:
        out["prec"] -= n_sup / n if prob.m else 0.0
        out["loss"] += n_sup / n if prob.m else 0.0
        sizes = blanks.group_records.astype(np.float64)
        out["aecs"] = (float(sizes.sum()) + n_sup) / (len(sizes) + 1)
        out["discernibility"] = float(sizes @ sizes) + n_sup * n
    return out


def unit_blanks(prob: Problem, units: Units) -> np.ndarray:
    """Units × quasi-identifiers: the cells each unit's records blank (cells already ``*`` at
    the node left out) — ``record_mask`` per unit instead of per record."""
    blank_pat = units.pat & ~prob.already[units.parent]
    return ((blank_pat[:, None] >> np.arange(prob.m, dtype=np.int64)) & 1).astype(bool)


def released_label_columns(
    table: ClassTable, units: Units, blanked: np.ndarray, prob: Problem
) -> dict[str, np.ndarray]:
    """Per quasi-identifier, the value each unit's records are written with — exactly as
    ``materialise`` then ``blank`` write it: the node's label, ``*`` for a blanked cell; the
    labels as strings when the column mixes them with strings or has a blanked cell, else the
    labels as they are (ground numbers stay numbers)."""
    out = {}
    bits = ((units.pat[:, None] >> np.arange(prob.m, dtype=np.int64)) & 1).astype(bool)
    live = units.sizes > 0
    for j, (col, level) in enumerate(zip(table.encoded.quasi_identifiers, table.node, strict=True)):
        labels = np.asarray(col.levels.labels[level], dtype=object)
        strings = [type(v) is str for v in labels]
        # mixed labels (materialise), or a blanked cell beside labels that are no strings
        if not all(strings) and (any(strings) or blanked[live, j].any()):
            labels = string_labels(labels)
        code = np.minimum(units.keys[:, j], len(labels) - 1)  # (a '*' without label: blanked)
        out[col.name] = np.where(bits[:, j], SUPPRESSED, labels[code]).astype(object)
    return out


def people_recoding(
    table: ClassTable, prob: Problem, units: Units, people: PeopleBlanks, star_mode: bool
) -> CombinationRecoding:
    """A blanking counted in people as a recoding: every record placed in its (class, person)
    pair's unit, the suppressed people's records in one more unit, written ``*`` in every
    quasi-identifier under ``suppressed_records: star`` (left out under ``remove``). Each
    unit's values are written as the release spells them: the node's labels (as strings when
    the column mixes them with strings — ``*`` among them — or blanks a cell beside labels that
    are no strings), ``*`` for a blanked cell."""
    n_units = len(units.sizes)
    kept = people.record_kept
    record_unit = np.where(kept, people.record_unit, n_units)
    written = record_unit if star_mode else record_unit[kept]
    used = np.bincount(written, minlength=n_units + 1)[:n_units] > 0
    bits = unit_blanks(prob, units)
    starred_rows = star_mode and not kept.all()
    released = {}
    for j, (col, level) in enumerate(zip(table.encoded.quasi_identifiers, table.node, strict=True)):
        labels = list(col.levels.labels[level])
        if starred_rows:
            labels.append(SUPPRESSED)
        values = np.asarray(labels, dtype=object)
        if any(type(v) is str for v in values) and not all(type(v) is str for v in values):
            values = string_labels(values)
        per_unit = values[units.keys[:, j]]
        # the suppressed records' unit: '*' when written, else a value the column holds anyway
        per_unit = np.append(per_unit, SUPPRESSED if starred_rows else per_unit[:1])
        blanked = bits[:, j] & used
        if blanked.any():
            present = per_unit[np.append(used, starred_rows)]
            if not all(type(v) is str for v in present):
                per_unit = string_labels(per_unit)
            per_unit = per_unit.copy()
            per_unit[:n_units][blanked] = SUPPRESSED
        released[col.name] = per_unit
    suppressed_units = np.zeros(n_units + 1, dtype=bool)
    suppressed_units[n_units] = True
    return CombinationRecoding(
        list(table.encoded.qi_names),
        table.record_class,
        np.append(units.parent, -1),
        np.append(units.sizes, 0),
        released,
        record_unit=record_unit,
        suppressed_units=suppressed_units,
        count_changed=True,
    )


def release_metrics(
    table: ClassTable, prob: Problem, u: Units, *, wildcard: bool
) -> dict[str, float]:
    """The generalization metrics of the release written (not of the starting node), from its
    units — one pass over the quasi-identifiers, no records:

    - ``loss`` (ARX's, as ``privcheck.metrics.generalization.loss`` defines it): a released
      value covering m of the D ground values of its hierarchy costs (m − 1)/(D − 1), a ``*``
      cell 1 (blanked, or ``*`` at the node); averaged over every quasi-identifier cell of every
      record (a suppressed record's cells are ``*``).
    - ``prec`` (Sweeney's): a kept value at level h of a hierarchy of height H costs h/H, a ``*``
      cell 1; one minus the average.
    - ``n_classes``: the distinct released quasi-identifier rows of the records not suppressed
      (``star`` mode: the all-``*`` rows are suppressed records).
    - ``aecs`` and ``discernibility`` read each class's size as the policy's ``suppressed_cells``
      does: under ``category`` its records; under ``wildcard`` its effective size, the records
      compatible with it (``*`` matches every value). ``aecs`` = Σ class sizes / classes,
      ``discernibility`` = Σ records × their class's size; suppressed records are one more
      class of their number for ``aecs`` and are charged N each by ``discernibility`` — under
      ``category`` exactly the node metrics' formulas (N / classes, Σ size² + suppressed · N).
    """
    n, m = table.n_records, prob.m
    if n == 0:
        return {"prec": 1.0, "loss": 0.0, "n_classes": 0.0, "aecs": 0.0, "discernibility": 0.0}
    bits = ((u.pat[:, None] >> np.arange(m, dtype=np.int64)) & 1).astype(bool)
    prec_cells = np.zeros(len(u.sizes))
    for j, (col, level) in enumerate(zip(table.encoded.quasi_identifiers, table.node, strict=True)):
        height = col.levels.height
        prec_cells += np.where(bits[:, j], 1.0, level / height if height else 0.0)
    per_attribute = blanked_loss_by_attribute(table, prob, u)
    sizes = u.sizes.astype(np.float64)
    width = max(m, 1)
    gsize, effective, n_sup = released_classes(prob, u, wildcard=wildcard)
    gsize, effective = gsize.astype(np.float64), effective.astype(np.float64)
    n_classes = len(gsize)
    return {
        "prec": 1.0 - float(sizes @ prec_cells) / (n * width) if m else 1.0,
        "loss": sum(per_attribute.values()) / m if m else 0.0,
        "n_classes": float(n_classes),
        "aecs": (float(effective.sum()) + n_sup) / (n_classes + (n_sup > 0)),
        "discernibility": float(gsize @ effective) + n_sup * n,
    }


def blanked_loss_by_attribute(table: ClassTable, prob: Problem, u: Units) -> dict[str, float]:
    """The loss of each quasi-identifier's cells in the release (their mean is ``loss``): a
    value covering m of the D ground values of its hierarchy costs (m − 1)/(D − 1), a ``*`` 1."""
    m, n = prob.m, table.n_records
    bits = ((u.pat[:, None] >> np.arange(m, dtype=np.int64)) & 1).astype(bool)
    sizes = u.sizes.astype(np.float64)
    out = {}
    for j, (col, level) in enumerate(zip(table.encoded.quasi_identifiers, table.node, strict=True)):
        levels = col.levels
        card, domain = levels.cardinality(level), len(levels.ground)
        leaves = np.bincount(levels.maps[level], minlength=card)
        share = (leaves - 1) / (domain - 1) if domain > 1 else np.zeros(card)
        code = np.minimum(u.keys[:, j], card - 1)  # a '*' that is no label: masked below
        out[col.name] = float(sizes @ np.where(bits[:, j], 1.0, share[code])) / n if n else 0.0
    return out


def released_classes(
    prob: Problem, u: Units, *, wildcard: bool
) -> tuple[np.ndarray, np.ndarray, int]:
    """The release's classes as ``check`` forms them: (records per class, the size a check
    reads — its records under ``category``, its compatible records under ``wildcard`` — and the
    number of suppressed records, the all-``*`` rows under ``star``)."""
    m = prob.m
    suppressed = (u.pat == prob.full) if prob.star_mode and m else np.zeros(len(u.sizes), bool)
    n_sup = int(u.sizes[suppressed].sum())
    kept = ~suppressed
    if kept.any() and m:
        inverse, gsize = prob.groups(u.pat[kept], u.keys[kept], u.sizes[kept])
        first = first_units(inverse, len(gsize))
        gpat = u.pat[kept][first]
        effective = (
            effective_row_sizes(prob, prob.released(gpat, u.keys[kept][first]), gpat, gsize)
            if wildcard
            else gsize
        )
    else:
        gsize = effective = np.full(int(kept.any()), int(u.sizes[kept].sum()))
    return gsize, effective, n_sup


def effective_row_sizes(
    prob: Problem, keys: np.ndarray, pat: np.ndarray, sizes: np.ndarray
) -> np.ndarray:
    """Each released row's compatible records (``*`` matches every value of its column), per
    pair of patterns as ``privcheck.wildcard.effective_sizes`` computes it on a check's table."""
    m = prob.m
    patterns, of = np.unique(pat, return_inverse=True)
    members = [np.flatnonzero(of == i) for i in range(len(patterns))]
    out = np.zeros(len(sizes), dtype=np.int64)
    for s, receivers in zip(patterns.tolist(), members, strict=True):
        for p, givers in zip(patterns.tolist(), members, strict=True):
            free = [j for j in range(m) if not (s | p) >> j & 1]
            if not free:
                out[receivers] += sizes[givers].sum()
                continue
            both = np.concatenate([givers, receivers])
            inverse, n_groups = group([keys[both, j] for j in free], [prob.radix[j] for j in free])
            sums = np.bincount(inverse[: len(givers)], weights=sizes[givers], minlength=n_groups)
            out[receivers] += sums[inverse[len(givers) :]].astype(np.int64)
    return out
