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
overlapping class of every release has k records. Releases linked by a shared row key are
measured by the ``release-intersection`` attack (``--param key=``).

Properties: *not monotone* (coarsening this release makes its class overlap more previous
classes, and a newly overlapped one may hold a rare value) and not monotone with suppression;
not table-dependent (a class's candidates involve only itself and the previous releases).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Literal

import numpy as np
from pydantic import Field

from privcheck.classes import ClassTable
from privcheck.encoding import EncodedTable, _string_labels
from privcheck.errors import DataError
from privcheck.hierarchy import TOP
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


_previous_cache: dict[tuple, _Previous] = {}


def previous_paths(policy: Policy, config: ReleaseSeriesConfig) -> list[Path]:
    out = []
    for p in config.previous:
        path = Path(p)
        if not path.is_absolute() and policy.base_dir is not None:
            path = policy.base_dir / path
        out.append(path)
    return out


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
    absent = [c for c in [*qis, *([attribute] if attribute else [])] if c not in frame.columns]
    if absent:
        raise DataError(
            f"the previous release {path.name} has no column {absent[0]!r}; the releases of a "
            "series carry the same quasi-identifiers and sensitive attribute"
        )
    if len(frame) == 0:
        raise DataError(f"the previous release {path.name} has no records")
    labels = [_string_labels(frame[q].to_numpy(dtype=object)) for q in qis]
    star = np.stack([lab == TOP for lab in labels], axis=1)
    full = star.all(axis=1)
    # a row with only some cells '*' covers more than its class: left out (stricter)
    kept = np.flatnonzero((~star.any(axis=1) | _top_columns(star)) & ~full)
    if attribute is None:  # nothing to match on: every row carries the same (empty) value
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
    )
    _previous_cache[key] = out
    return out


def _top_columns(star: np.ndarray) -> np.ndarray:
    """Rows whose '*' cells are all in columns generalized to '*' throughout (top level)."""
    everywhere = star.all(axis=0)
    return ~(star & ~everywhere).any(axis=1)


class ReleaseSeries(PrivacyModel):
    name = "k-anonymity-across-releases"
    config = ReleaseSeriesConfig
    summary = "every individual stays among k candidates once earlier releases are intersected"
    monotone = False

    @classmethod
    def validate_data(cls, encoded: EncodedTable, config: ReleaseSeriesConfig) -> None:
        qis = encoded.qi_names
        for path in previous_paths(encoded.policy, config):
            _load_previous(path, qis, config.attribute)

    @classmethod
    def evaluate(cls, table: ClassTable, config: ReleaseSeriesConfig) -> Evaluation:
        value = candidate_sets(table, config)
        return Evaluation(
            config, value >= config.k, value.astype(float), "candidate set across releases"
        )


def candidate_sets(table: ClassTable, config: ReleaseSeriesConfig) -> np.ndarray:
    """Per class: the smallest candidate set over the combinations of overlapping previous
    classes that could hold a person (see the module docstring)."""
    import pandas as pd

    from privcheck.label_space import codes_at, level_of, resolve_labels

    policy = table.encoded.policy
    qis = table.encoded.quasi_identifiers
    names = [c.name for c in qis]
    previous = [_load_previous(p, names, config.attribute) for p in previous_paths(policy, config)]
    n_c = table.n_classes
    sizes = table.sizes.astype(np.int64)
    if n_c == 0:
        return sizes
    current = [
        _string_labels(col.levels.labels[table.node[j]])[table.keys[:, j]]
        for j, col in enumerate(qis)
    ]
    # per quasi-identifier: the hierarchy over every release's labels, each release's level
    combos = pd.DataFrame({"c0": np.arange(n_c, dtype=np.int64)})
    finest_level, finest_code = {}, {}
    levels_of = []
    for j, name in enumerate(names):
        ground = current[j] if not qis[j].has_hierarchy else qis[j].levels.ground
        every = np.concatenate([_string_labels(ground), *(p.labels[j] for p in previous)])
        levels = resolve_labels(policy, name, every)
        levels_of.append(levels)
        level = level_of(levels, current[j], name, "this release")
        finest_level[name] = np.full(n_c, level, dtype=np.int64)
        code = codes_at(levels, current[j], level)
        finest_code[name] = np.where(current[j] == TOP, -1, code)
    for name in names:
        combos[f"l_{name}"] = finest_level[name]
        combos[f"x_{name}"] = finest_code[name]
    for i, prev in enumerate(previous, start=1):
        combos = _join(combos, prev, i, names, levels_of)
    return _worst_counts(table, config, combos, previous, sizes)


def _join(combos, prev: _Previous, i: int, names: list[str], levels_of: list) -> object:
    """Pair every combination with each class of ``prev`` that overlaps it on every
    quasi-identifier (rows left unpaired get class −1: only ``prev``'s suppressed records)."""
    import pandas as pd

    from privcheck.label_space import codes_at, level_of

    n_prev = len(prev.labels[0]) if prev.labels else 0
    right = pd.DataFrame({f"c{i}": np.arange(n_prev, dtype=np.int64)})
    right_level, right_code = {}, {}
    for j, name in enumerate(names):
        levels = levels_of[j]
        level = level_of(levels, prev.labels[j], name, f"previous release {prev.name}")
        right_level[name] = level
        code = codes_at(levels, prev.labels[j], level)
        right_code[name] = np.where(prev.labels[j] == TOP, -1, code)
    pattern_cols = [f"l_{n}" for n in names] + [f"x_{n}" for n in names]
    parts = []
    # the combinations' finest levels (and '*' cells of this release) form a few patterns
    wild = np.stack([(combos[f"x_{n}"].to_numpy() < 0) for n in names], axis=1)
    lv = np.stack([combos[f"l_{n}"].to_numpy() for n in names], axis=1)
    pattern_key = np.concatenate([lv, wild.astype(np.int64)], axis=1)
    _, which = np.unique(pattern_key, axis=0, return_inverse=True)
    for p in np.unique(which):
        rows = combos.iloc[np.flatnonzero(which == p)].copy()
        r = right.copy()
        keys = []
        for j, name in enumerate(names):
            a = int(rows[f"l_{name}"].iloc[0])
            b = right_level[name]
            top = levels_of[j].height
            if rows[f"x_{name}"].iloc[0] < 0 or (b == top and (prev.labels[j] == TOP).all()):
                continue  # '*' on either side overlaps everything
            target = max(a, b)
            up_a, up_b = levels_of[j].up(a, target), levels_of[j].up(b, target)
            rows[f"k_{name}"] = up_a[rows[f"x_{name}"].to_numpy()]
            code_b = right_code[name]
            r[f"k_{name}"] = np.where(code_b >= 0, up_b[np.maximum(code_b, 0)], -2)
            keys.append(f"k_{name}")
        merged = rows.merge(r, on=keys, how="left") if keys else rows.merge(r, how="cross")
        merged[f"c{i}"] = merged[f"c{i}"].fillna(-1).astype(np.int64)
        # the finer of the two labels is what the combination now knows of each value
        paired = merged[f"c{i}"].to_numpy() >= 0
        for name in names:
            b = right_level[name]
            code_b = right_code[name]
            finer = paired & (
                (merged[f"x_{name}"].to_numpy() < 0) | (merged[f"l_{name}"].to_numpy() > b)
            )
            cls = merged[f"c{i}"].to_numpy()
            new_code = code_b[np.maximum(cls, 0)] if n_prev else np.zeros(len(cls), np.int64)
            finer &= new_code >= 0
            merged.loc[finer, f"l_{name}"] = b
            merged.loc[finer, f"x_{name}"] = new_code[finer]
        parts.append(merged[["c0", *[f"c{m}" for m in range(1, i + 1)], *pattern_cols]])
    return pd.concat(parts, ignore_index=True)


def _worst_counts(table, config, combos, previous: list[_Previous], sizes) -> np.ndarray:
    """Σ_s min over the releases of each combination's counts; per class the smallest over its
    combinations that could hold a person (count > 0); the class size when none can."""
    import pandas as pd

    cur = combos["c0"].to_numpy()
    if config.attribute is None:  # one value: each class's size
        from privcheck.classes import SensitiveCounts

        n_classes = len(sizes)
        s = SensitiveCounts(
            np.arange(n_classes + 1, dtype=np.int64), np.zeros(n_classes, np.int64), sizes, 1
        )
        ground = np.asarray([""], dtype=object)
    else:
        s = table.sensitive[config.attribute]
        ground = _string_labels(table.encoded.sensitive[config.attribute].levels.ground)
    lengths = s.indptr[cur + 1] - s.indptr[cur]
    combo_of = np.repeat(np.arange(len(cur)), lengths)
    starts = np.repeat(s.indptr[cur] - np.cumsum(lengths) + lengths, lengths)
    entry = starts + np.arange(len(combo_of))
    value = ground[s.values[entry]]
    count = s.counts[entry].astype(np.int64)
    for i, prev in enumerate(previous, start=1):
        cls = combos[f"c{i}"].to_numpy()[combo_of]
        star = pd.Series(prev.star_counts, index=pd.Index(prev.star_values))
        extra = star.reindex(value).fillna(0).to_numpy(dtype=np.int64) if len(star) else 0
        entries = pd.Series(
            prev.count_of_entry,
            index=pd.MultiIndex.from_arrays([prev.class_of_entry, prev.value_of_entry]),
        )
        found = entries.reindex(pd.MultiIndex.from_arrays([cls, value])).fillna(0)
        a = found.to_numpy(dtype=np.int64) + extra
        unconstrained = (cls < 0) & (len(star) == 0)  # the person is in no previous class
        count = np.where(unconstrained, count, np.minimum(count, a))
    per_combo = np.bincount(combo_of, weights=count, minlength=len(cur)).astype(np.int64)
    feasible = per_combo > 0
    worst = np.full(len(sizes), np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(worst, cur[feasible], per_combo[feasible])
    return np.where(worst == np.iinfo(np.int64).max, sizes, worst)


@hookimpl
def privcheck_models() -> list[type[PrivacyModel]]:
    return [ReleaseSeries]
