"""The in-process engine: a plan's release materialised from codes, shuffled, re-checked.

Only here do codes become strings again: each quasi-identifier column is one gather of the
released records' codes into the few labels of their level (``NodeRecoding``), or of their
units into the units' values (``CombinationRecoding``); a masked column is taken as the plan
gives it (``ValueRecoding``). Identifiers (and columns the policy does not mention, which
nobody vouched for) are removed; suppressed records are left out or written with every
quasi-identifier as ``*``; rows are shuffled so the release order says nothing about the input
order (Sweeney's unsorted-matching attack) unless ``keep_order`` asks otherwise (risk
evaluation needs the original and the release aligned). The shuffle is one
``numpy.random.default_rng(seed).permutation`` of the released rows in input order; it draws
from the operating system's entropy unless a seed is given (tests): the method is public, so
the randomness must be secret to hide anything.

The release is then checked by the ordinary checker (``privcheck.engines.recheck``): a failing
release is a bug in the planner and raises instead of being returned.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privcheck.classes import ClassTable
from privcheck.encoding import EncodedTable, encode, string_labels
from privcheck.engines.base import Engine, Release, Source
from privcheck.engines.dictionary_rows import as_read, read_rows, release_freed_memory
from privcheck.engines.input_classes import input_classes
from privcheck.engines.recheck import (
    recheck,
    recheck_codes,
    recheck_sample,
    recheck_sample_codes,
    recheck_units,
    recheck_values,
)
from privcheck.io import read_table
from privcheck.plan import (
    SUPPRESSED,
    CombinationRecoding,
    NodeRecoding,
    Plan,
    ValueRecoding,
    removed_columns,
)
from privcheck.policy import Policy


def to_pandas(frame: Any) -> pd.DataFrame:
    """An in-process engine frame (polars eager/lazy, pyarrow, DuckDB) as pandas, via Arrow."""
    from privcheck.engines.narwhals_engine import to_narwhals

    nf = to_narwhals(frame)
    if hasattr(nf, "collect"):
        nf = nf.collect()
    return nf.to_arrow().to_pandas()


def pseudonymize(data: pd.DataFrame, policy: Policy) -> pd.DataFrame:
    """``data`` with the individual column replaced by keyed pseudonyms, when the policy asks
    (``pseudonymize_individual``): HMAC-SHA-256 of each distinct value under a 32-byte key
    drawn from the operating system for this release, never written or returned, so nobody —
    the publisher included — can recompute a pseudonym from an identifier or link two
    releases; a person's records share one pseudonym (a re-check counts people from them).
    One HMAC per distinct person, one gather per row."""
    name = policy.individual
    if not policy.individual_released or name not in data.columns:
        return data
    import hmac
    import secrets
    from hashlib import sha256

    key = secrets.token_bytes(32)
    codes, uniques = pd.factorize(data[name], use_na_sentinel=True)
    if (codes < 0).any():  # (encoding refuses it too, naming the row: say it the same way)
        from privcheck.encoding import encode_individual

        encode_individual(data[name], name)
    tokens = np.array(
        [
            hmac.new(key, str(v).encode("utf-8"), sha256).hexdigest()[:20]
            for v in np.asarray(uniques, dtype=object)
        ],
        dtype=object,
    )
    del key
    out = data.copy(deep=False)
    out[name] = pd.Series(tokens).array.take(codes)
    return out


def without_individual(release: pd.DataFrame, policy: Policy) -> pd.DataFrame:
    """The release without the individual column a re-check read (``materialise``'s
    ``keep_individual``), unless the policy releases it as a pseudonym."""
    name = policy.individual
    if name is None or policy.individual_released or name not in release.columns:
        return release
    return release.drop(columns=[name])


def released_columns(data: pd.DataFrame, policy: Policy, keep_individual: bool) -> list[str]:
    """The columns a release writes, in the input's order (``keep_individual``: the individual
    column too, for the re-check to count people from; dropped afterwards)."""
    drop = set(removed_columns(data.columns, policy))
    if keep_individual:
        drop.discard(policy.individual)
    return [c for c in data.columns if c not in drop]


def materialise(
    data: pd.DataFrame,
    encoded: EncodedTable,
    node: tuple[int, ...],
    kept: np.ndarray,
    policy: Policy,
    *,
    keep_order: bool = False,
    seed: Any = None,
    table: ClassTable | None = None,
    keep_individual: bool = False,
    records: np.ndarray | None = None,
) -> tuple[pd.DataFrame, np.ndarray]:
    """The released DataFrame for full-domain ``node`` with the records in ``kept`` kept, and
    which of its rows are suppressed records (all False unless they are written as ``*``).

    ``table``: the class table at ``node`` with the class of every record, when the caller has
    it: the released rows' codes are then gathered from its keys through their classes, one
    scattered read of the records instead of one per column.

    The released rows are chosen and shuffled as row numbers first; each quasi-identifier is
    then one gather of its permuted integer codes into the few labels of its level, and each
    other column one gather of the permuted rows — every column is built once, in release order
    (permuting strings after materialising them cost 4× the whole materialisation on 1 M rows).

    ``records``: the rows of ``data`` and ``encoded`` that ``kept`` (and the release) are about,
    when they are a subset (SafePub's sample): gathered through, never copied out first.
    """
    columns = released_columns(data, policy, keep_individual)
    star = policy.suppressed_records == "star"
    chosen = np.arange(len(kept)) if star else np.flatnonzero(kept)
    if not keep_order:
        chosen = np.random.default_rng(seed).permutation(chosen)
    rows = chosen if records is None else records.take(chosen)
    all_kept = bool(kept.all())  # no '*' written: a numeric column stays numeric
    suppressed = ~kept[chosen]
    del chosen  # (from here on, as few per-row arrays live beside the release as it grows)
    qis = {
        col.name: (j, col, level)
        for j, (col, level) in enumerate(zip(encoded.quasi_identifiers, node, strict=True))
    }
    out: dict = {}
    for name in columns:  # the other columns first: they gather the rows themselves
        if name not in qis:
            out[name] = as_read(data, name, data[name].take(rows).reset_index(drop=True))
    classes = None
    if table is not None and table.record_class is not None and tuple(table.node) == tuple(node):
        classes = table.record_class.take(rows)
        if table.n_classes <= np.iinfo(np.int32).max:
            classes = classes.astype(np.int32)
        del rows  # (the classes stand for them)
    for name in columns:
        if name not in qis:
            continue
        j, col, level = qis[name]
        labels = list(col.levels.labels[level])
        if classes is not None:
            codes = table.keys[:, j].take(classes)
        else:
            # the released rows' ground codes, then their level codes through the small level
            # map (a gather that stays in cache, where ``codes_at`` would map every row first)
            codes = col.codes.take(rows)
            if level:
                codes = col.levels.maps[level].take(codes)
        if star and not all_kept:
            codes = np.where(suppressed, len(labels), codes)
            labels.append(SUPPRESSED)
        values = np.asarray(labels, dtype=object)
        if any(type(v) is str for v in values) and not all(type(v) is str for v in values):
            # ground numbers beside '*' or '<missing>': one column type, spelled as a hierarchy
            # spells them (31.0 → '31'), so that Parquet can hold it and a check reads it back
            values = string_labels(values)
        # the few labels become a column once (dtype inferred as for the whole column), then
        # one take: no Python string object per record
        out[name] = pd.Series(values).array.take(codes)
    # (copy=False: every column was just built; a dict's default copy doubles the peak)
    release = pd.DataFrame(out, columns=pd.Index(columns, dtype=data.columns.dtype), copy=False)
    return release, suppressed


def record_units(recoding: CombinationRecoding, n_records: int) -> np.ndarray:
    """The unit of every record: a group's records (in input order) take its units in turn.

    A group released as one unit needs no ranking: its records take it by one gather; only the
    records of groups released as several units are ranked."""
    if recoding.record_unit is not None:
        return recoding.record_unit
    unit_group = np.asarray(recoding.unit_group, dtype=np.int64)
    sizes = np.asarray(recoding.unit_size, dtype=np.int64)
    row_group = np.asarray(recoding.row_group, dtype=np.int64)
    n_groups = int(max(unit_group.max(initial=-1), row_group.max(initial=-1))) + 1
    live = np.flatnonzero(sizes > 0)
    n_units = np.bincount(unit_group[live], minlength=n_groups)
    only = np.full(n_groups, -1, dtype=np.int64)
    single = live[n_units[unit_group[live]] == 1]
    only[unit_group[single]] = single
    out = only.take(row_group) if n_records else np.zeros(0, dtype=np.int64)
    rows = np.flatnonzero(out < 0)  # records of groups released as several units
    if len(rows):
        rows = rows[np.argsort(row_group[rows], kind="stable")]
        multi = live[n_units[unit_group[live]] > 1]
        multi = multi[np.argsort(unit_group[multi], kind="stable")]
        ends = np.cumsum(sizes[multi])
        out[rows] = multi[np.searchsorted(ends, np.arange(len(rows)), side="right")]
    return out


def unit_arrays(recoding: CombinationRecoding) -> dict[str, Any]:
    """Each released quasi-identifier's values, one per unit, as the pandas array its column is
    gathered from (the dtype inferred once, as for any column): made once per release, shared
    by the release, its variants and its re-check."""
    return {name: pd.Series(values).array for name, values in recoding.released.items()}


def unit_release(
    data: pd.DataFrame,
    arrays: dict[str, Any],
    unit: np.ndarray,
    rows: np.ndarray,
    columns: list[str],
) -> pd.DataFrame:
    """The released rows ``rows`` (record numbers, in release order) of a combination release:
    each quasi-identifier one gather of the records' units into the units' values (the few
    values become a column once: no Python string object per record)."""
    units = unit.take(rows)
    out: dict = {}
    for name in columns:
        if name in arrays:
            out[name] = arrays[name].take(units)
        else:
            out[name] = as_read(data, name, data[name].take(rows).reset_index(drop=True))
    return pd.DataFrame(out, columns=pd.Index(columns, dtype=data.columns.dtype), copy=False)


def changed_cells(
    data: pd.DataFrame,
    arrays: dict[str, Any],
    unit: np.ndarray,
    rows: np.ndarray,
    names: list[str],
) -> int:
    """Quasi-identifier cells whose released value differs from the input's (blanked,
    generalized or top/bottom coded) among the records ``rows`` of a combination release
    (record ``r`` written with unit ``unit[r]``'s values, ``arrays``), both read as a hierarchy
    spells them.

    Compared on codes, never on one string per record: a column's few distinct values and the
    units' values are spelled once and numbered together, and each record compares two
    numbers. A record whose input value is missing, and every record of a column of Python
    objects (whose distinct values a factorization may merge: 1 and True), is compared by its
    spelling, as it stands."""
    total = 0
    units = unit.take(rows)
    for name in names:
        column = data[name]
        released = string_labels(arrays[name].to_numpy(dtype=object))  # (one per unit)
        if column.dtype == object:
            spelled = string_labels(column.take(rows).to_numpy(dtype=object))
            total += int(np.count_nonzero(spelled != released.take(units)))
            continue
        codes, uniques = pd.factorize(column, use_na_sentinel=True)
        ground = string_labels(np.asarray(uniques, dtype=object))
        number, _ = pd.factorize(np.concatenate([ground, released]))
        ground_number, unit_number = number[: len(ground)], number[len(ground) :]
        codes = codes.take(rows)
        present = codes >= 0
        differ = ground_number.take(codes[present]) != unit_number.take(units[present])
        total += int(np.count_nonzero(differ))
        missing = np.flatnonzero(~present)
        if len(missing):
            spelled = string_labels(column.take(rows.take(missing)).to_numpy(dtype=object))
            total += int(np.count_nonzero(spelled != released.take(units.take(missing))))
    return total


class PandasEngine(Engine):
    """The records in this process (see the module docstring)."""

    name = "pandas"
    holds_rows = True
    ordered = False

    def read(
        self,
        data: Any,
        policy: Policy,
        *,
        encoded: bool = True,
        max_groups: int | None = None,
        generalize: bool = False,
        needs_ground: str | None = None,
    ) -> Source:
        """The records (a DataFrame, a file, or an in-process engine frame collected), the
        individual column pseudonymized when the policy asks, and their encoding."""
        name = str(data) if isinstance(data, str | Path) else None
        if not isinstance(data, str | Path | pd.DataFrame):
            data = to_pandas(data)
        # a file's string columns are read as codes (``dictionary_rows``) when they are encoded
        rows = read_rows(data) if name is not None and encoded else read_table(data)
        rows = pseudonymize(rows, policy)
        return Source(rows, encode(rows, policy) if encoded else None, name=name)

    def release(
        self,
        source: Source,
        plan: Plan,
        policy: Policy,
        *,
        seed: int | None = None,
        keep_order: bool = False,
    ) -> Release:
        release_freed_memory()  # (what the planner's search freed)
        shuffle = plan.shuffle_seed if plan.shuffle_seed is not None else seed
        recoding = plan.recoding
        if isinstance(recoding, NodeRecoding):
            out = self.node_release(source, plan, recoding, policy, shuffle, keep_order)
        elif isinstance(recoding, CombinationRecoding):
            out = self.combination_release(source, plan, recoding, policy, shuffle, keep_order)
        else:
            out = self.value_release(source, recoding, policy, shuffle, keep_order)
        out.before = input_classes(source, plan, policy)
        return out

    def node_release(
        self,
        source: Source,
        plan: Plan,
        recoding: NodeRecoding,
        policy: Policy,
        seed: Any,
        keep_order: bool,
    ) -> Release:
        """A full-domain node's release, re-checked from its codes (from the written rows
        when the codes cannot stand for them)."""
        data, encoded = source.rows, source.encoded
        removed = removed_columns(data.columns, policy)
        if recoding.sample is not None:  # SafePub: the sampled records, '*' beyond the QIs
            return self.sample_release(data, encoded, plan, recoding, policy, seed, keep_order)
        table = recoding.table
        kept = recoding.kept_classes[table.record_class]
        # checked from the codes before the release is made: their peaks never add up
        star = policy.suppressed_records == "star"
        n_rows = len(kept) if star else int(np.count_nonzero(kept))
        check = recheck_codes(
            data, encoded, table, kept, policy, n_rows=n_rows, algorithm=plan.algorithm
        )
        release_freed_memory()
        release, suppressed = materialise(
            data, encoded, recoding.node, kept, policy, keep_order=keep_order, seed=seed,
            table=table, keep_individual=True,
        )  # fmt: skip
        if check is None:  # kept records that read back as suppressed: check the written rows
            check = recheck(release, suppressed, policy, plan.algorithm)
        release = without_individual(release, policy)
        utility = None
        if policy.utility is not None:
            from privcheck.utility.report import node_release_utility

            utility = node_release_utility(data, encoded, recoding.node, kept, policy)
        return Release(release, check, len(release), removed, utility=utility)

    def sample_release(
        self,
        data: pd.DataFrame,
        encoded: EncodedTable,
        plan: Plan,
        recoding: NodeRecoding,
        policy: Policy,
        seed: Any,
        keep_order: bool,
    ) -> Release:
        """A node's release drawn from a sample (SafePub): the records not sampled never
        appear; a suppressed record is written ``*`` in every released column (its other
        values are part of the protected tuple too)."""
        sampled = recoding.sample
        kept = recoding.kept_records
        records = np.flatnonzero(sampled)
        # checked from the codes before the release is made: their peaks never add up
        check = recheck_sample_codes(
            data, encoded, recoding.node, records, kept, policy, recoding.check_models,
            plan.algorithm,
        )  # fmt: skip
        release_freed_memory()
        release, suppressed = materialise(
            data,
            encoded,
            recoding.node,
            kept,
            policy,
            keep_order=keep_order,
            seed=seed,
            records=records,
        )
        if suppressed.any():
            for name in recoding.star_columns:
                column = release[name].astype(object)
                column[suppressed] = SUPPRESSED
                release[name] = column
        if check is None:
            check = recheck_sample(
                release, suppressed, policy, recoding.check_models, plan.algorithm
            )
        return Release(release, check, len(release), removed_columns(data.columns, policy))

    def combination_release(
        self,
        source: Source,
        plan: Plan,
        recoding: CombinationRecoding,
        policy: Policy,
        seed: Any,
        keep_order: bool,
    ) -> Release:
        """A combination release: every record written with its unit's values (a suppressed
        unit's records left out under ``suppressed_records: remove``), re-checked from the
        units."""
        data, encoded = source.rows, source.encoded
        n = encoded.n_records
        unit = record_units(recoding, n)
        suppressed = np.zeros(n, dtype=bool)
        if recoding.suppressed_units is not None:
            suppressed = recoding.suppressed_units[unit]
        star = policy.suppressed_records == "star"
        in_order = np.arange(n) if star else np.flatnonzero(~suppressed)
        columns = released_columns(data, policy, keep_individual=False)
        arrays = unit_arrays(recoding)
        changed = utility = None
        if recoding.count_changed:
            changed = changed_cells(data, arrays, unit, in_order, list(recoding.released))
        if policy.utility is not None:  # every record in input order, suppressed as '*'
            from privcheck.utility.report import release_utility

            view = unit_release(data, arrays, unit, np.arange(n), columns)
            if len(in_order) < n:
                view = starred(view, suppressed, list(recoding.released))
            utility = release_utility(data, view, policy, encoded)
        check = None
        if encoded.quasi_identifiers or encoded.sensitive:  # (from the units, before the release)
            check = recheck_units(
                data,
                encoded,
                arrays,
                unit[in_order],
                policy,
                len(in_order),
                algorithm=plan.algorithm,
                planned_suppressed=int(suppressed.sum()) if star else 0,
                advice=plan.failure_advice,
                rows=in_order,
            )
        release_freed_memory()
        rows = in_order if keep_order else np.random.default_rng(seed).permutation(in_order)
        del in_order
        release = unit_release(data, arrays, unit, rows, columns)
        if check is None:  # nothing to group by (every column insensitive): the written rows
            check = recheck(release, suppressed.take(rows), policy, plan.algorithm)
        removed = removed_columns(data.columns, policy)
        return Release(release, check, len(release), removed, changed, utility)

    def value_release(
        self,
        source: Source,
        recoding: ValueRecoding,
        policy: Policy,
        seed: Any,
        keep_order: bool,
    ) -> Release:
        """A masked release: identifiers and unlisted columns removed, the masked columns in
        place, rows shuffled; checked with the masked values as they stand."""
        data = source.rows
        drop = set(removed_columns(data.columns, policy))
        columns = [c for c in data.columns if c not in drop]
        out = pd.DataFrame({c: data[c].to_numpy() for c in columns}, columns=columns)
        for c, values in recoding.columns.items():
            out[c] = values
        if not keep_order:
            rng = np.random.default_rng(seed)
            out = out.iloc[rng.permutation(len(out))].reset_index(drop=True)
        check = recheck_values(out, policy)
        return Release(out, check, len(out), removed_columns(data.columns, policy))


def starred(frame: pd.DataFrame, rows: np.ndarray, names: list[str]) -> pd.DataFrame:
    """``frame`` with the quasi-identifiers ``names`` of ``rows`` written as ``*``."""
    out = frame.copy()
    for name in names:
        values = out[name].to_numpy(dtype=object)
        if not all(type(v) is str for v in values):
            values = string_labels(values)
        values = values.copy()
        values[rows] = SUPPRESSED
        out[name] = values
    return out
