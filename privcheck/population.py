"""The population a release is drawn from: a table of counts, or only its size.

Journalist and marketer risk, k-map and δ-presence compare each released class with the people it
could be in the population; the population-uniqueness estimators and estimated k-map only need the
population's size N (sampling fraction π = n/N). The policy names it once, at the top level::

    population: {path: census.csv, count_column: n}   # same quasi-identifiers, original values
    population: {size: 1000000}

A population table holds the quasi-identifiers *as collected* (ground values). A released class is
matched with the population records it could be, so the population is generalized with the same
node and hierarchies as the data: for an anonymizer's class table, each quasi-identifier at the
node's level; for a checked release (whose values may be of any hierarchy level, or ``*``), each
released value at the lowest level of its hierarchy where it occurs. Matching goes through the
labels both sides spell, then one group-by over the class keys and the population keys together:
per node it costs a gather per quasi-identifier over the (aggregated) population rows — the
population is never re-read, only its codes are re-mapped.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from privcheck.classes import ClassTable, group
from privcheck.encoding import EncodedColumn, _string_labels, encode_column
from privcheck.errors import DataError, PolicyError
from privcheck.hierarchy import TOP
from privcheck.policy import Policy, PopulationSize, PopulationTable

#: a released value matching every population value (suppressed, or the top of a hierarchy)
_ALL = -2
#: a released value found at no level of the population's hierarchy
_NOWHERE = -1


@dataclass(eq=False)
class Population:
    """A population table, aggregated: one row per distinct combination of quasi-identifier
    values, its count, and each quasi-identifier encoded against the policy's hierarchy."""

    path: Path
    counts: np.ndarray
    columns: dict[str, EncodedColumn]
    #: (column name, id of the data's level labels, data level, population level) → data code of
    #: each population label at that level (−1: the data has no such label)
    _translations: dict[tuple, np.ndarray] = field(default_factory=dict, repr=False)
    #: (column name, id of the data's labels) → the population level of each released label
    _levels: dict[tuple, np.ndarray] = field(default_factory=dict, repr=False)

    @property
    def size(self) -> int:
        return int(self.counts.sum())

    def translation(self, name: str, labels: np.ndarray, pop_level: int) -> np.ndarray:
        """Data code (in the label space ``labels``) of each population label at ``pop_level``."""
        # keyed by identity, holding the labels so that their id cannot be reused while cached
        key = (name, id(labels), pop_level)
        entry = self._translations.get(key)
        hit = entry[1] if entry is not None and entry[0] is labels else None
        if hit is None:
            code_of = {v: i for i, v in enumerate(_string_labels(labels))}
            pop_labels = _string_labels(self.columns[name].levels.labels[pop_level])
            hit = np.fromiter((code_of.get(v, -1) for v in pop_labels), np.int64, len(pop_labels))
            self._translations[key] = (labels, hit)
        return hit

    def label_levels(self, name: str, labels: np.ndarray) -> np.ndarray:
        """The lowest population level at which each released label occurs (``_ALL`` for ``*``,
        ``_NOWHERE`` if none)."""
        key = (name, id(labels))
        entry = self._levels.get(key)
        hit = entry[1] if entry is not None and entry[0] is labels else None
        if hit is None:
            levels = self.columns[name].levels
            hit = np.full(len(labels), _NOWHERE, dtype=np.int64)
            text = _string_labels(labels)
            for lvl in range(levels.height, -1, -1):  # the lowest level wins: written last
                known = set(_string_labels(levels.labels[lvl]))
                hit[np.fromiter((t in known for t in text), bool, len(text))] = lvl
            hit[text == TOP] = _ALL
            self._levels[key] = (labels, hit)
        return hit


_cache: dict[tuple, Population] = {}
_sizes: weakref.WeakKeyDictionary[ClassTable, np.ndarray] = weakref.WeakKeyDictionary()


def population_path(policy: Policy) -> Path | None:
    spec = policy.population
    if not isinstance(spec, PopulationTable):
        return None
    return policy.resolve_path(spec.path)


def population_size(policy: Policy, n_records: int, model: str) -> int:
    """N: the population table's total count, or the policy's ``population.size``."""
    spec = policy.population
    if spec is None:
        raise PolicyError(
            f"{model} needs a population: add 'population: {{size: N}}' or 'population: "
            "{path: FILE, count_column: COLUMN}' to the policy"
        )
    size = spec.size if isinstance(spec, PopulationSize) else load_population(policy).size
    if size < n_records:
        raise PolicyError(
            f"the population ({size:,}) is smaller than the data ({n_records:,} records); the "
            "population must contain the released individuals: fix population.size or the table"
        )
    return size


def require_table(policy: Policy, model: str, why: str) -> Population:
    """The population table, or a one-line refusal when the policy gives none (or only a size)."""
    if not isinstance(policy.population, PopulationTable):
        has = "only a population size" if policy.population is not None else "no population"
        raise PolicyError(
            f"{' '.join(filter(None, (model, why)))} needs a population table, and the policy "
            f"gives {has}; add "
            "'population: {path: FILE, count_column: COLUMN}' with the quasi-identifiers' counts"
        )
    return load_population(policy)


def load_population(policy: Policy) -> Population:
    """Read, validate and encode the policy's population table (cached per file and policy)."""
    spec = policy.population
    assert isinstance(spec, PopulationTable)
    path = population_path(policy)
    if not path.is_file():
        raise DataError(f"population table not found: {path}; fix population.path in the policy")
    qis = policy.quasi_identifiers
    key = (
        str(path.resolve()),
        path.stat().st_mtime_ns,
        spec.count_column,
        policy.model_dump_json(),
    )
    hit = _cache.get(key)
    if hit is not None:
        return hit
    from privcheck.io import read_table

    frame = read_table(path)
    absent = [q for q in qis if q not in frame.columns]
    if absent:
        raise DataError(
            f"the population table {path.name} lacks the quasi-identifier {absent[0]!r}; add the "
            "column (with its original, ungeneralized values) to the population table"
        )
    if spec.count_column is None:
        counts = np.ones(len(frame), dtype=np.int64)
    else:
        if spec.count_column not in frame.columns:
            raise DataError(
                f"the population table {path.name} has no count column {spec.count_column!r}; "
                "fix population.count_column (or leave it out: one row per person)"
            )
        import pandas as pd  # (a population table is read with pandas; listing models is not)

        raw = pd.to_numeric(frame[spec.count_column], errors="coerce").to_numpy(dtype=float)
        bad = np.flatnonzero(~np.isfinite(raw) | (raw < 0) | (np.mod(raw, 1) != 0))
        if len(bad):
            raise DataError(
                f"population count {frame[spec.count_column].iloc[bad[0]]!r} (row {bad[0]}) of "
                f"{path.name} is not a non-negative whole number; counts must be people (>= 0)"
            )
        counts = raw.astype(np.int64)
    # aggregate the rows that agree on every quasi-identifier (a census file may repeat them)
    encoded = {}
    for q in qis:
        try:
            encoded[q] = encode_column(frame[q], q, policy.attributes[q], policy)
        except DataError as exc:
            raise DataError(f"population table {path.name}: {exc}") from None
    cols = [encoded[q].codes for q in qis]
    cards = [encoded[q].levels.cardinality(0) for q in qis]
    inverse, n_groups = group(cols, cards) if qis else (np.zeros(len(frame), np.int64), 1)
    first = np.full(n_groups, -1, dtype=np.int64)
    first[inverse[::-1]] = np.arange(len(inverse) - 1, -1, -1)
    agg = np.bincount(inverse, weights=counts, minlength=n_groups).astype(np.int64)
    keep = agg > 0
    columns = {}
    for q in qis:
        c = encoded[q]
        columns[q] = EncodedColumn(q, c.codes[first[keep]], c.levels, c.has_hierarchy)
    pop = Population(path, agg[keep], columns)
    _cache[key] = pop
    return pop


def class_population_sizes(table: ClassTable, policy: Policy | None = None) -> np.ndarray:
    """F: the number of population records each class of ``table`` matches (0: none).

    The population is generalized like the class: for an anonymizer's table, to the node's level
    of each quasi-identifier; for a checked release, each released value at the lowest hierarchy
    level where it occurs (``*`` matches everything). Classes of one level pattern share one
    group-by; a release usually has one pattern (plus suppressed records), so this is a handful
    of vectorised passes.
    """
    hit = _sizes.get(table)
    if hit is not None:
        return hit
    policy = table.encoded.policy if policy is None else policy
    pop = load_population(policy)
    qis = table.encoded.quasi_identifiers
    n = table.n_classes
    out = np.zeros(n, dtype=np.int64)
    if n == 0:
        _sizes[table] = out
        return out
    # the population level of every class's value of every quasi-identifier
    lv = np.empty((n, len(qis)), dtype=np.int64)
    label_spaces = []
    for j, col in enumerate(qis):
        labels = col.levels.labels[table.node[j]]
        label_spaces.append(labels)
        if col.has_hierarchy:  # an anonymizer's encoding: the data and population share it
            lv[:, j] = table.node[j]
        else:  # a release as it stands: find each value's level
            lv[:, j] = pop.label_levels(col.name, labels)[table.keys[:, j]]
    matchable = (lv != _NOWHERE).all(axis=1)
    rows = np.flatnonzero(matchable)
    patterns, which = _patterns(lv[rows])
    # the classes of each pattern, grouped once (a release may mix many level patterns)
    order = np.argsort(which, kind="stable")
    bounds = np.searchsorted(which[order], np.arange(len(patterns) + 1))
    for p, pattern in enumerate(patterns):
        members = rows[order[bounds[p] : bounds[p + 1]]]
        cls_cols, pop_cols, cards = [], [], []
        valid = np.ones(len(pop.counts), dtype=bool)
        for j, col in enumerate(qis):
            if pattern[j] == _ALL:
                continue
            pcol = pop.columns[col.name]
            trans = pop.translation(col.name, label_spaces[j], int(pattern[j]))
            codes = trans[pcol.levels.maps[int(pattern[j])][pcol.codes]]
            valid &= codes >= 0
            pop_cols.append(codes)
            cls_cols.append(table.keys[members, j].astype(np.int64))
            cards.append(len(label_spaces[j]))
        if not cls_cols:  # every value suppressed: the whole population matches
            out[members] = pop.size
            continue
        both = [np.concatenate([c, pc[valid]]) for c, pc in zip(cls_cols, pop_cols, strict=True)]
        inverse, n_groups = group(both, cards)
        totals = np.bincount(
            inverse[len(members) :], weights=pop.counts[valid], minlength=n_groups
        ).astype(np.int64)
        out[members] = totals[inverse[: len(members)]]
    _sizes[table] = out
    return out


def _patterns(lv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``lv`` (level patterns) and the pattern of each row: through one
    int64 key per row (``np.unique(axis=0)`` sorts a structured view, 20× slower), with a fast
    path for the usual single pattern."""
    if len(lv) == 0:
        return np.empty((0, lv.shape[1]), np.int64), np.empty(0, np.int64)
    shift = lv - _ALL  # ≥ 0
    base = int(shift.max()) + 1
    key = np.zeros(len(lv), dtype=np.int64)
    for j in range(lv.shape[1]):
        key *= base
        key += shift[:, j]
    if (key == key[0]).all():
        return lv[:1], np.zeros(len(lv), dtype=np.int64)
    import pandas as pd

    which, uniq = pd.factorize(key)
    first = np.full(len(uniq), -1, dtype=np.int64)
    first[which[::-1]] = np.arange(len(which) - 1, -1, -1)
    return lv[first], which.astype(np.int64)


def check_contains(table: ClassTable, model: str) -> np.ndarray:
    """F of every class, refusing a class absent from the population (or larger there than in it):
    the population must contain the released individuals."""
    sizes = class_population_sizes(table)
    here = table.subjects
    unit = "records" if table.people is None else "people"
    bad = np.flatnonzero(sizes < here)
    if len(bad):
        c = bad[np.argmin(sizes[bad])]
        values = ", ".join(f"{k}={v}" for k, v in table.class_labels(np.array([c]))[0].items())
        what = "is absent from" if sizes[c] == 0 else f"has {sizes[c]} {unit} in"
        raise DataError(
            f"{model}: the released class ({values}) of {here[c]} {unit} {what} the "
            "population table; the population must contain the released individuals (use the "
            "full population, with the same quasi-identifier values)"
        )
    return sizes
