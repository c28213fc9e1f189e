"""k-anonymity across a release series: ``{model: k-anonymity-across-releases, k: 5,
previous: [jan.csv, feb.csv]}`` — this release, read together with the earlier ones, still leaves
every individual among at least k candidates.

Releases of the same people made independently (monthly extracts, two publishers) share no row
key, but the same person carries the same sensitive value in each: an intruder who knows a
target's quasi-identifiers finds the target's class in every release and keeps only the values
all of them hold (the composition attack of Ganta, Kasiviswanathan & Smith 2008; the Ayday
lecture's "linking independent releases"). With ``n_c(s)`` the records of value ``s`` in the
target's class of this release and ``A_i(s)`` those in the overlapping class of previous release
i (plus its suppressed records, which cover everyone), at most ``Σ_s min(n_c(s), A_1(s), …)``
individuals are consistent with every release: the candidate set.

The model is checked from the releases alone (``privcheck check`` has no original data), so the
target's class in a previous release is not known — only which classes *overlap* the current one
(labels placed in their hierarchy by ``privcheck.label_space``: a class of ``30-39`` overlaps
classes of ``30-34`` and ``35-39``). The per-class statistic is the worst case over every
combination of overlapping classes, one per release, that could hold a person (some value in
all of them); a class passes when it is at least k. Anonymizers evaluate the same function on
each candidate node's classes, so a search only keeps nodes whose classes do not shrink below k
once intersected with the previous releases — and the release they write passes ``check``.

Scope and conservatism: previous releases must be full-domain generalizations (one hierarchy
level per quasi-identifier, as incognito, mingen and datafly write; suppressed records ``*`` are
understood); their rows with only some cells ``*`` are left out (fewer candidates: stricter).
The sensitive attribute matched on is ``attribute`` (default: the only one). A policy without
sensitive attributes gives the releases nothing to be matched on: each combination then leaves
its smallest class (at most that many people are in all of them), so the model holds when every
overlapping class of every release has k records; a previous release that does not publish the
sensitive attribute likewise bounds a combination by its class size. Releases linked by a shared
row key are measured by the ``release-intersection`` attack (``--param key=``).

Properties: *not monotone* (coarsening this release makes its class overlap more previous
classes, and a newly overlapped one may hold a rare value) and not monotone with suppression;
not table-dependent (a class's candidates involve only itself and the previous releases).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, Literal

import numpy as np
from pydantic import Field

from privcheck.classes import ClassTable
from privcheck.encoding import EncodedTable, _string_labels
from privcheck.errors import DataError, PolicyError
from privcheck.hierarchy import TOP, LevelArrays
from privcheck.hookspecs import hookimpl
from privcheck.models.base import Evaluation, PrivacyModel
from privcheck.policy import Policy, SensitiveModelConfig


class ReleaseSeriesConfig(SensitiveModelConfig):
    """Every individual stays among at least k candidates across this and earlier releases."""

    sensitive_optional: ClassVar[bool] = True

    model: Literal["k-anonymity-across-releases"] = "k-anonymity-across-releases"
    k: int = Field(..., ge=1, description="Smallest allowed candidate set across the releases")
    previous: list[str] = Field(
        ...,
        min_length=1,
        description="The earlier releases of the same individuals (CSV/TSV/Parquet paths, "
        "relative to the policy file)",
    )

    def input_paths(self) -> list[str]:
        return list(self.previous)


@dataclass(eq=False)
class _Previous:
    """One earlier release: its classes (label tuples, suppressed records aside), the class ×
    value counts and the suppressed records' value counts."""

    name: str
    labels: list[np.ndarray]  # per quasi-identifier, the label of each class
    class_of_entry: np.ndarray
    value_of_entry: np.ndarray  # sensitive value, as a string
    count_of_entry: np.ndarray
    star_values: np.ndarray
    star_counts: np.ndarray
    #: whether the release publishes the sensitive attribute; one that does not cannot be
    #: matched on it and bounds a combination only by its class size (plus suppressed records)
    matched: bool = True
    class_sizes: np.ndarray | None = None


_previous_cache: dict[tuple, _Previous] = {}


def previous_paths(policy: Policy, config: ReleaseSeriesConfig) -> list[Path]:
    """The previous releases, each once: a release intersected twice narrows nothing more, and
    a policy listing one file ten thousand times must not cost ten thousand intersections."""
    paths: dict[Path, Path] = {}
    for name in config.previous:
        path = policy.resolve_path(name)
        paths.setdefault(path.resolve(), path)
    return list(paths.values())


def _load_previous(path: Path, qis: list[str], attribute: str | None) -> _Previous:
    if not path.is_file():
        raise DataError(
            f"previous release not found: {path}; fix 'previous' of k-anonymity-across-releases "
            "(paths are relative to the policy file)"
        )
    key = (str(path.resolve()), path.stat().st_mtime_ns, tuple(qis), attribute)
    hit = _previous_cache.get(key)
    if hit is not None:
        return hit
    import pandas as pd

    from privcheck.classes import group
    from privcheck.io import read_table

    frame = read_table(path)
    absent = [c for c in qis if c not in frame.columns]
    if absent:
        raise DataError(
            f"the previous release {path.name} has no column {absent[0]!r}; the releases of a "
            "series carry the same quasi-identifiers"
        )
    matched = attribute is None or attribute in frame.columns
    if len(frame) == 0:
        raise DataError(f"the previous release {path.name} has no records")
    labels = [_string_labels(frame[q].to_numpy(dtype=object)) for q in qis]
    star = np.stack([lab == TOP for lab in labels], axis=1)
    full = star.all(axis=1)
    # a row with only some cells '*' covers more than its class: left out (stricter)
    kept = np.flatnonzero((~star.any(axis=1) | _top_columns(star)) & ~full)
    if attribute is None or not matched:  # nothing to match on: one (empty) value for all
        values = np.full(len(frame), "", dtype=object)
    else:
        values = _string_labels(frame[attribute].to_numpy(dtype=object))
    codes, uniques = [], []
    for lab in labels:
        c, u = pd.factorize(pd.Series(lab[kept], dtype=object), sort=False)
        codes.append(c.astype(np.int64))
        uniques.append(np.asarray(u, dtype=object))
    cls, n_cls = group(codes, [len(u) for u in uniques])
    first = np.full(n_cls, -1, dtype=np.int64)
    first[cls[::-1]] = np.arange(len(cls) - 1, -1, -1)
    vcodes, vuniq = pd.factorize(pd.Series(values[kept], dtype=object), sort=False)
    pair, pair_counts = np.unique(cls * max(len(vuniq), 1) + vcodes, return_counts=True)
    star_v, star_c = np.unique(values[full], return_counts=True)
    entry_cls, entry_val = np.divmod(pair, max(len(vuniq), 1))
    out = _Previous(
        path.name,
        [u[c[first]] for u, c in zip(uniques, codes, strict=True)],
        entry_cls,
        np.asarray(vuniq, dtype=object)[entry_val],
        pair_counts,
        star_v.astype(object),
        star_c,
        matched,
        np.bincount(cls, minlength=n_cls).astype(np.int64),
    )
    _previous_cache[key] = out
    return out


def _top_columns(star: np.ndarray) -> np.ndarray:
    """Rows whose '*' cells are all in columns generalized to '*' throughout (top level)."""
    everywhere = star.all(axis=0)
    return ~(star & ~everywhere).any(axis=1)


def refuse_people(policy: Policy) -> None:
    """People cannot be counted across releases: the earlier releases carry no individual
    column (a release drops it, or pseudonymizes it under a key of its own), so who sits in
    their classes is unknown."""
    if policy.individual is not None:
        raise PolicyError(
            "k-anonymity-across-releases cannot count people: the earlier releases do not "
            f"carry the individual column {policy.individual!r} (a release drops it, or "
            "pseudonymizes it under a key of its own), so the people in their classes are "
            "unknown; check each release with k-anonymity, or leave 'individual' out"
        )


class ReleaseSeries(PrivacyModel):
    name = "k-anonymity-across-releases"
    config = ReleaseSeriesConfig
    summary = "every individual stays among k candidates once earlier releases are intersected"
    monotone = False

    @classmethod
    def validate_data(cls, encoded: EncodedTable, config: ReleaseSeriesConfig) -> None:
        refuse_people(encoded.policy)
        qis = encoded.qi_names
        for path in previous_paths(encoded.policy, config):
            _load_previous(path, qis, config.attribute)

    @classmethod
    def evaluate(cls, table: ClassTable, config: ReleaseSeriesConfig) -> Evaluation:
        refuse_people(table.encoded.policy)
        value = candidate_sets(table, config)
        return Evaluation(
            config, value >= config.k, value.astype(float), "candidate set across releases"
        )


@dataclass(eq=False)
class _Space:
    """What every node of a search shares: per quasi-identifier the hierarchy over all releases'
    labels and each previous release's level and codes in it; the sensitive values of all
    releases as one index, with each previous release's class × value counts keyed in it."""

    levels: list[LevelArrays]
    previous: list[_Previous]
    prev_level: list[list[int]]
    prev_code: list[list[np.ndarray]]  # −1: '*'
    prev_top: list[list[bool]]  # the release is '*' throughout on that quasi-identifier
    n_values: int
    current_values: np.ndarray  # value id of each ground code of the checked table
    prev_keys: list[np.ndarray]  # sorted class × n_values + value id
    prev_counts: list[np.ndarray]
    prev_star: list[np.ndarray]  # suppressed records per value id
    #: (quasi-identifier, level of the table's labels) → (inferred level, code of each label)
    current: dict[tuple[int, int], tuple[int, np.ndarray]] = field(default_factory=dict)
    #: previous release → comparison pattern → its classes keyed and sorted (``_right_index``)
    right: dict[int, dict[tuple, tuple]] = field(default_factory=dict)


_spaces: weakref.WeakKeyDictionary[EncodedTable, dict[str, _Space]] = weakref.WeakKeyDictionary()


def _space(encoded: EncodedTable, config: ReleaseSeriesConfig) -> _Space:
    import pandas as pd

    from privcheck.label_space import codes_at, level_of, resolve_labels

    key = config.model_dump_json()
    per_table = _spaces.setdefault(encoded, {})
    if key in per_table:
        return per_table[key]
    policy = encoded.policy
    qis = encoded.quasi_identifiers
    names = [c.name for c in qis]
    previous = [_load_previous(p, names, config.attribute) for p in previous_paths(policy, config)]
    levels_of = []
    for j, col in enumerate(qis):
        every = np.concatenate(
            [_string_labels(col.levels.ground), *(p.labels[j] for p in previous)]
        )
        levels_of.append(resolve_labels(policy, col.name, every))
    prev_level, prev_code, prev_top = [], [], []
    for prev in previous:
        lv, cd, top = [], [], []
        for j, name in enumerate(names):
            level = level_of(levels_of[j], prev.labels[j], name, f"previous release {prev.name}")
            code = codes_at(levels_of[j], prev.labels[j], level)
            lv.append(level)
            cd.append(np.where(prev.labels[j] == TOP, -1, code))
            top.append(bool(len(prev.labels[j])) and bool((prev.labels[j] == TOP).all()))
        prev_level.append(lv)
        prev_code.append(cd)
        prev_top.append(top)
    if config.attribute is None:
        ground = np.asarray([""], dtype=object)
    else:
        ground = _string_labels(encoded.sensitive[config.attribute].levels.ground)
    space = pd.Index(
        pd.unique(
            np.concatenate(
                [ground, *(p.value_of_entry for p in previous), *(p.star_values for p in previous)]
            )
        )
    )
    n_values = max(len(space), 1)
    prev_keys, prev_counts, prev_star = [], [], []
    for prev in previous:
        keys = prev.class_of_entry * n_values + space.get_indexer(prev.value_of_entry)
        order = np.argsort(keys, kind="stable")
        prev_keys.append(keys[order])
        prev_counts.append(prev.count_of_entry[order].astype(np.int64))
        star = np.zeros(n_values, dtype=np.int64)
        np.add.at(star, space.get_indexer(prev.star_values), prev.star_counts.astype(np.int64))
        prev_star.append(star)
    out = _Space(
        levels_of,
        previous,
        prev_level,
        prev_code,
        prev_top,
        n_values,
        space.get_indexer(ground).astype(np.int64),
        prev_keys,
        prev_counts,
        prev_star,
    )
    per_table[key] = out
    return out


def _current_codes(space: _Space, table: ClassTable, j: int) -> tuple[int, np.ndarray]:
    """The level the table's labels of quasi-identifier j read at, and each class's code there."""
    from privcheck.label_space import codes_at, level_of

    col = table.encoded.quasi_identifiers[j]
    at = table.node[j]
    hit = space.current.get((j, at))
    if hit is None:
        labels = _string_labels(col.levels.labels[at])
        level = level_of(space.levels[j], labels, col.name, "this release")
        code = np.where(labels == TOP, -1, codes_at(space.levels[j], labels, level))
        hit = space.current[(j, at)] = (level, code)
    return hit[0], hit[1][table.keys[:, j]]


def candidate_sets(table: ClassTable, config: ReleaseSeriesConfig) -> np.ndarray:
    """Per class: the smallest candidate set over the combinations of overlapping previous
    classes that could hold a person (see the module docstring)."""
    sizes = table.sizes.astype(np.int64)
    if table.n_classes == 0:
        return sizes
    space = _space(table.encoded, config)
    q = len(space.levels)
    lvl = np.empty((table.n_classes, q), dtype=np.int64)
    code = np.empty((table.n_classes, q), dtype=np.int64)
    for j in range(q):
        level, codes = _current_codes(space, table, j)
        lvl[:, j] = level
        code[:, j] = codes
    classes = [np.arange(table.n_classes, dtype=np.int64)]
    for i in range(len(space.previous)):
        classes, lvl, code = _join(space, i, classes, lvl, code)
    return _worst_counts(table, config, space, classes, sizes)


def _join(space: _Space, i: int, classes: list, lvl: np.ndarray, code: np.ndarray):
    """Pair every combination with each class of previous release i overlapping it on every
    quasi-identifier (a combination no class overlaps is kept with class −1: only the release's
    suppressed records can hold its person). Overlap: both labels generalized to the coarser of
    their two levels agree ('*' overlaps everything)."""
    from privcheck.classes import group

    p_level, p_code, p_top = space.prev_level[i], space.prev_code[i], space.prev_top[i]
    n_prev = len(p_code[0]) if p_code else 0
    wild = code < 0
    # rows sharing (levels, wild cells) generalize alike: usually one such pattern
    which = _pattern_ids(lvl, wild)
    left_parts, right_parts = [], []
    for p in range(int(which.max()) + 1):
        rows = np.flatnonzero(which == p) if which.any() else np.arange(len(which))
        # the quasi-identifiers compared and the level both sides are generalized to
        tops = tuple(
            (j, max(int(lvl[rows[0], j]), p_level[j]))
            for j in range(len(space.levels))
            if not (wild[rows[0], j] or p_top[j])  # '*' on either side overlaps everything
        )
        sorted_keys, order, cards = _right_index(space, i, tops)
        if sorted_keys is not None:
            left_id = np.zeros(len(rows), dtype=np.int64)
            for (j, top), card in zip(tops, cards, strict=True):
                a = int(lvl[rows[0], j])
                left_id = left_id * card + space.levels[j].up(a, top)[code[rows, j]]
        else:  # keys too wide for one int64: group both sides together
            left_cols, right_cols = [], []
            for j, top in tops:
                levels = space.levels[j]
                left_cols.append(levels.up(int(lvl[rows[0], j]), top)[code[rows, j]])
                right = levels.up(p_level[j], top)[np.maximum(p_code[j], 0)]
                right_cols.append(np.where(p_code[j] >= 0, right, levels.cardinality(top)))
            both = [np.concatenate([lc, rc]) for lc, rc in zip(left_cols, right_cols, strict=True)]
            ids, _ = group(both, list(cards))
            left_id, right_id = ids[: len(rows)], ids[len(rows) :]
            order = np.argsort(right_id, kind="stable")
            sorted_keys = right_id[order]
        lo = np.searchsorted(sorted_keys, left_id, "left")
        hi = np.searchsorted(sorted_keys, left_id, "right")
        hits = hi - lo
        reps = np.maximum(hits, 1)
        left = np.repeat(rows, reps)
        offset = np.arange(len(left)) - np.repeat(np.cumsum(reps) - reps, reps)
        matched = np.repeat(hits, reps) > 0
        pick = np.minimum(np.repeat(lo, reps) + offset, max(n_prev - 1, 0))
        right_cls = np.where(matched, order[pick] if n_prev else -1, -1)
        left_parts.append(left)
        right_parts.append(right_cls)
    left = np.concatenate(left_parts)
    right_cls = np.concatenate(right_parts)
    lvl, code = lvl[left].copy(), code[left].copy()
    paired = right_cls >= 0
    for j in range(len(space.levels)):
        # the finer of the two labels is what the combination now knows of each value
        new = p_code[j][np.maximum(right_cls, 0)] if n_prev else np.full(len(left), -1)
        finer = paired & (new >= 0) & ((code[:, j] < 0) | (lvl[:, j] > p_level[j]))
        lvl[finer, j] = p_level[j]
        code[finer, j] = new[finer]
    return [c[left] for c in classes] + [right_cls], lvl, code


def _right_index(space: _Space, i: int, tops: tuple) -> tuple:
    """Previous release i's classes keyed for one comparison pattern (each compared
    quasi-identifier generalized to its level in ``tops``): the sorted mixed-radix keys and the
    classes in that order, cached per pattern as every node of a search repeats a few; (None,
    None, cards) when the keys would not fit one int64."""
    cache = space.right.setdefault(i, {})
    hit = cache.get(tops)
    if hit is not None:
        return hit
    p_level, p_code = space.prev_level[i], space.prev_code[i]
    n_prev = len(p_code[0]) if p_code else 0
    cards = tuple(space.levels[j].cardinality(top) + 1 for j, top in tops)
    if int(np.prod([float(c) for c in cards])) >= 1 << 62:
        hit = (None, None, cards)
    else:
        key = np.zeros(n_prev, dtype=np.int64)
        for (j, top), card in zip(tops, cards, strict=True):
            levels = space.levels[j]
            right = levels.up(p_level[j], top)[np.maximum(p_code[j], 0)]
            key = key * card + np.where(p_code[j] >= 0, right, card - 1)
        order = np.argsort(key, kind="stable")
        hit = (key[order], order, cards)
    cache[tops] = hit
    return hit


def _pattern_ids(lvl: np.ndarray, wild: np.ndarray) -> np.ndarray:
    """A small id per row for its (levels, '*' cells) pattern: one int64 key per row and a fast
    path for the usual single pattern (``np.unique(axis=0)`` sorts a structured view)."""
    base = int(lvl.max(initial=0)) + 2
    key = np.zeros(len(lvl), dtype=np.int64)
    for j in range(lvl.shape[1]):
        key = key * base + np.where(wild[:, j], base - 1, lvl[:, j])
    if len(key) == 0 or (key == key[0]).all():
        return np.zeros(len(key), dtype=np.int64)
    return np.unique(key, return_inverse=True)[1].ravel()


def _worst_counts(table, config, space: _Space, classes: list, sizes) -> np.ndarray:
    """Σ_s min over the releases of each combination's counts; per class the smallest over its
    combinations that could hold a person (count > 0); the class size when none can."""
    cur = classes[0]
    if config.attribute is None:  # one value: each class's size
        indptr = np.arange(len(sizes) + 1, dtype=np.int64)
        values, counts = np.zeros(len(sizes), np.int64), sizes
    else:
        s = table.sensitive[config.attribute]
        indptr, values, counts = s.indptr, s.values, s.counts
    lengths = indptr[cur + 1] - indptr[cur]
    combo_of = np.repeat(np.arange(len(cur)), lengths)
    entry = np.repeat(indptr[cur] - np.cumsum(lengths) + lengths, lengths) + np.arange(
        len(combo_of)
    )
    vid = space.current_values[values[entry]]
    count = counts[entry].astype(np.int64)
    caps = []  # releases without the sensitive attribute: at most their class holds the person
    for i, prev in enumerate(space.previous):
        if not prev.matched:
            cls = classes[i + 1]
            star_total = int(prev.star_counts.sum())
            size = np.where(cls >= 0, prev.class_sizes[np.maximum(cls, 0)], 0) + star_total
            caps.append(np.where((cls < 0) & (star_total == 0), np.iinfo(np.int64).max, size))
            continue
        cls = classes[i + 1][combo_of]
        keys = np.maximum(cls, 0) * space.n_values + vid
        at = np.minimum(np.searchsorted(space.prev_keys[i], keys), len(space.prev_keys[i]) - 1)
        found = (
            np.where((cls >= 0) & (space.prev_keys[i][at] == keys), space.prev_counts[i][at], 0)
            if len(space.prev_keys[i])
            else np.zeros(len(keys), dtype=np.int64)
        )
        star = space.prev_star[i]
        a = found + star[vid]
        unconstrained = (cls < 0) & (star.sum() == 0)  # the person is in no previous class
        count = np.where(unconstrained, count, np.minimum(count, a))
    per_combo = np.bincount(combo_of, weights=count, minlength=len(cur)).astype(np.int64)
    for cap in caps:
        per_combo = np.minimum(per_combo, cap)
    big = np.iinfo(np.int64).max
    per_combo = np.where(per_combo > 0, per_combo, big)  # 0: no person fits the combination
    if len(cur) > 1 and (np.diff(cur) < 0).any():  # several patterns: order by class
        order = np.argsort(cur, kind="stable")
        cur, per_combo = cur[order], per_combo[order]
    worst = np.full(len(sizes), big, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, cur[1:] != cur[:-1]])
    worst[cur[starts]] = np.minimum.reduceat(per_combo, starts)
    return np.where(worst == big, sizes, worst)


@hookimpl
def privcheck_models() -> list[type[PrivacyModel]]:
    return [ReleaseSeries]
