"""Linking independent releases: the intersection attack across generalized releases.

Several releases of the same individuals — monthly extracts of one register, two hospitals'
publications of overlapping patients — are each k-anonymous, yet an intruder who reads them
together learns more than any one says (Ganta, Kasiviswanathan & Smith 2008, "composition
attacks"; the Ayday lecture's "linking independent releases"). Beyond the complementary-release
check (``privcheck check --linked-with``: two releases of one table paired row by row), this
attack takes any number of releases R1..Rn and the original records, and counts for each record
the *candidate set* an intruder who knows its quasi-identifiers is left with:

- **by a shared row key** (``key=COLUMN``: a pseudonymous id every release carries): the
  individuals whose released rows cover the record's quasi-identifiers in *every* release,
  i.e. ``|{x : for all i, R_i[x] covers q}|`` (an individual absent from a release is not
  constrained by it);
- **by matching on the sensitive value** (the default; releases that share no key): in each
  release the rows covering the record hold some multiset of sensitive values; the same person
  carries the same value everywhere, so at most ``min_i A_i(s)`` individuals with value ``s``
  are consistent with every release, where ``A_i(s)`` counts the rows of release i covering the
  record with value ``s``. The candidate set has ``sum_s min_i A_i(s)`` individuals; when only
  one value ``s`` survives the intersection, the record's sensitive value is disclosed.

A released value *covers* an original value when it is that value, one of its hierarchy labels at
any level, ``*`` (a suppressed record or cell), or a Mondrian range ``[lo, hi]`` holding it. With
one release both modes reduce to the record's class size (plus the suppressed rows, which cover
everyone), so the figures compare directly with k-anonymity: ``share_below_k`` is the share of
records whose candidate set is smaller than k once the releases are intersected,
``share_shrunk_below_k`` those that were at least k in every release alone.

Everything runs over distinct quasi-identifier combinations × released classes (blocks of a
boolean cover matrix, products with the class × value counts), never over record pairs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from privcheck.errors import DataError, PolicyError

#: cells of one block of a cover matrix (distinct originals × released classes)
_BLOCK_CELLS = 4_000_000


def release_intersection(
    original: pd.DataFrame,
    releases: list[pd.DataFrame],
    policy: Any,
    *,
    key: str | None = None,
    sensitive: str | None = None,
    k: int | None = None,
    rows: np.ndarray | None = None,
) -> dict[str, Any]:
    """Candidate sets of every original record across ``releases`` (see the module docstring).

    ``key`` links the releases' rows by a shared row-key column; without it they are matched on
    the ``sensitive`` columns (comma-separated; default: the policy's sensitive attributes). ``k``
    defaults to the policy's k-anonymity (or k-anonymity-across-releases) k. ``rows`` restricts
    the scored records (the intruder's targets; default all). Returns the figures, the
    per-record ``candidates`` array and ``records``, the 0-based original rows it is for (the
    scored rows some release holds).
    """
    from privcheck.policy import load_policy

    policy = load_policy(policy)
    qis = policy.quasi_identifiers
    if not qis:
        raise PolicyError("the release-intersection attack needs quasi-identifiers in the policy")
    if not releases:
        raise DataError("the release-intersection attack needs at least one release (--masked)")
    if len(original) == 0:
        raise DataError("the original has no records; nothing to attack")
    k = _k_of(policy, k)
    names = ["the original"] + [f"release {i + 1}" for i in range(len(releases))]
    linking = "key" if key is not None else "sensitive"
    link_columns = [key] if key is not None else _sensitive_columns(policy, sensitive)
    for frame, name in zip([original, *releases], names, strict=True):
        absent = [c for c in [*qis, *link_columns] if c not in frame.columns]
        if absent:
            what = "the row key" if key is not None and absent[0] == key else "a column"
            raise DataError(f"{name} has no column {absent[0]!r} ({what} the attack needs)")
        if len(frame) == 0:
            raise DataError(f"{name} has no records; nothing to intersect")

    # distinct original quasi-identifier combinations and, per release, its classes
    from privcheck.encoding import encode_column

    encoded = [encode_column(original[q], q, policy.attributes[q], policy) for q in qis]
    codes = [e.codes.astype(np.int64) for e in encoded]
    from privcheck.classes import group

    u_of, n_u = group(codes, [e.levels.cardinality(0) for e in encoded])
    first = np.full(n_u, -1, dtype=np.int64)
    first[u_of[::-1]] = np.arange(len(u_of) - 1, -1, -1)
    u_ground = np.stack([c[first] for c in codes], axis=1)  # n_u × q ground codes
    covers = [_ReleaseCover(r, qis, encoded, names[i + 1]) for i, r in enumerate(releases)]

    n = len(original)
    scored = np.arange(n) if rows is None else np.asarray(rows, dtype=np.int64)
    disclosed = disclosed_single = None
    if key is not None:
        per_u, single, holds = _by_key(original, releases, key, covers, names, u_ground, u_of)
        joint = per_u[u_of]
        # alone: the fewest rows covering the record in one release that holds it
        big = np.iinfo(np.int64).max
        alone_all = np.where(holds, single[u_of], big).min(axis=1)
        absent = ~holds.all(axis=1)
        released = holds.any(axis=1)
    else:
        joint, alone_all, disclosed, disclosed_single, absent, released = _by_sensitive(
            original, releases, link_columns, covers, u_ground, u_of
        )
    # a record no release holds (suppressed from all) is not disclosed by them: not scored
    not_released = int((~released[scored]).sum())
    scored = scored[released[scored]]
    candidates, alone = joint[scored], alone_all[scored]
    figures: dict[str, Any] = {
        "k": k,
        "linking": linking,
        "link_columns": link_columns,
        "n_releases": len(releases),
        "n_records": len(scored),
        "n_not_released": not_released,
        "share_below_k": _share(candidates < k),
        "share_below_k_single": _share(alone < k),
        "share_shrunk_below_k": _share((candidates < k) & (alone >= k)),
        "share_unique": _share(candidates == 1),
        "min_candidates": int(candidates.min()) if len(candidates) else None,
        "median_candidates": float(np.median(candidates)) if len(candidates) else None,
        "mean_candidates": float(candidates.mean()) if len(candidates) else None,
    }
    if disclosed is not None:
        figures["share_sensitive_disclosed"] = _share(disclosed[scored])
        figures["share_sensitive_disclosed_single"] = _share(disclosed_single[scored])
    figures["share_absent"] = _share(absent[scored])
    figures["candidates"] = candidates
    figures["records"] = scored
    return figures


def _share(mask: np.ndarray) -> float | None:
    return float(mask.mean()) if len(mask) else None


def _k_of(policy: Any, k: int | None) -> int:
    if k is not None:
        if int(k) < 1:
            raise PolicyError(f"k must be at least 1; got {k}")
        return int(k)
    for config in policy.models:
        if config.model in ("k-anonymity", "k-anonymity-across-releases"):
            return int(config.k)
    raise PolicyError(
        "the release-intersection attack compares candidate sets with k: give --param k=K or a "
        "k-anonymity model in the policy"
    )


def _sensitive_columns(policy: Any, sensitive: str | None) -> list[str]:
    if sensitive is not None:
        cols = [c.strip() for c in str(sensitive).split(",") if c.strip()]
        if cols:
            return cols
    cols = policy.sensitive_attributes
    if not cols:
        raise PolicyError(
            "releases without a shared row key are matched on their sensitive values, and the "
            "policy has no sensitive attribute: give --param key=COLUMN (a row key every "
            "release carries) or --param sensitive=COLUMN"
        )
    return list(cols)


class _ReleaseCover:
    """Which released classes of one release cover which original values.

    Per quasi-identifier a (ground values × released values) boolean matrix; the release's
    classes are its distinct released tuples, and ``block(u_ground)`` the (originals × classes)
    cover matrix of a block of distinct original combinations (the AND over quasi-identifiers).
    """

    def __init__(self, release: pd.DataFrame, qis: list[str], encoded: list, name: str) -> None:
        from privcheck.classes import group
        from privcheck.encoding import string_labels

        per_q = []
        value_codes = []
        for q, enc in zip(qis, encoded, strict=True):
            labels = string_labels(release[q].to_numpy(dtype=object))
            idx, uniques = pd.factorize(pd.Series(labels, dtype=object), sort=False)
            if (idx < 0).any():  # a missing cell in a release covers only '<missing>'
                labels = np.where(idx < 0, "<missing>", labels)
                idx, uniques = pd.factorize(pd.Series(labels, dtype=object), sort=False)
            per_q.append(_value_cover(enc.levels, np.asarray(uniques, dtype=object), q, name))
            value_codes.append(idx.astype(np.int64))
        self.value_cover = per_q
        self.row_class, self.n_classes = group(value_codes, [m.shape[1] for m in per_q])
        first = np.full(self.n_classes, -1, dtype=np.int64)
        first[self.row_class[::-1]] = np.arange(len(self.row_class) - 1, -1, -1)
        self.class_values = np.stack([v[first] for v in value_codes], axis=1)
        self.class_sizes = np.bincount(self.row_class, minlength=self.n_classes)

    def block(self, u_ground: np.ndarray) -> np.ndarray:
        out = np.ones((len(u_ground), self.n_classes), dtype=bool)
        for j, cover in enumerate(self.value_cover):
            out &= cover[u_ground[:, j][:, None], self.class_values[:, j][None, :]]
        return out


def _value_cover(levels, values: np.ndarray, q: str, name: str) -> np.ndarray:
    """(ground × released values): whether released value v covers ground value g."""
    from privcheck.encoding import _RANGE, _string_labels, is_range, numeric_values
    from privcheck.hierarchy import TOP

    position = pd.Index(values)
    cover = np.zeros((len(levels.ground), len(values)), dtype=bool)
    for level in range(levels.height + 1):
        spelled = _string_labels(levels.labels[level])[levels.maps[level]]
        at = position.get_indexer(spelled)
        hit = at >= 0
        cover[np.flatnonzero(hit), at[hit]] = True
    cover[:, values == TOP] = True
    ranges = [j for j, v in enumerate(values) if not cover[:, j].any() and is_range(v)]
    if ranges:
        x = numeric_values(levels.ground)
        if x is not None:
            for j in ranges:  # (one per released range: a handful of Mondrian boxes' sides)
                m = _RANGE.match(str(values[j]))
                lo, hi = float(m.group(1)), float(m.group(2))
                cover[:, j] = (x >= lo) & (x <= hi)
    empty = np.flatnonzero(~cover.any(axis=0))
    if len(empty):
        raise DataError(
            f"{name} has the value {values[empty[0]]!r} in {q!r}, which covers no value of the "
            "original (neither an original value, one of its hierarchy labels, '*', nor a range "
            "holding one): is it a release of this data under this policy?"
        )
    return cover


def _blocks(n: int, width: int):
    step = max(1, _BLOCK_CELLS // max(width, 1))
    for start in range(0, n, step):
        yield slice(start, min(n, start + step))


def _key_index(frame: pd.DataFrame, key: str, name: str) -> pd.Index:
    from privcheck.encoding import string_labels

    values = pd.Index(string_labels(frame[key].to_numpy(dtype=object)))
    if values.has_duplicates:
        dup = values[values.duplicated()][0]
        raise DataError(
            f"{name} repeats the row key {key}={dup!r}; a row key names one individual per release"
        )
    return values


def _by_key(original, releases, key, covers, names, u_ground, u_of):
    """Candidate counts (jointly, and per release alone) when the releases' rows are linked by
    ``key``: the individuals whose rows cover the combination in every release holding them.
    Each record's own released row must cover it (else the release is of other data)."""
    from privcheck.classes import group

    keys = _key_index(original, key, names[0])
    joint_cols, holds = [], []
    for release, cover, name in zip(releases, covers, names[1:], strict=True):
        rel_keys = _key_index(release, key, name)
        unknown = ~rel_keys.isin(keys)
        if unknown.any():
            raise DataError(
                f"{name} has the row key {key}={rel_keys[unknown][0]!r}, which the original "
                "does not hold; the releases must be of the original's individuals"
            )
        row = rel_keys.get_indexer(keys)  # −1: absent from this release
        _check_own_rows(cover, row, keys, key, u_ground, u_of, name)
        holds.append(row >= 0)
        cls = np.where(row >= 0, cover.row_class[np.maximum(row, 0)], cover.n_classes)
        joint_cols.append(cls.astype(np.int64))
    j_of, n_j = group(joint_cols, [c.n_classes + 1 for c in covers])
    first = np.full(n_j, -1, dtype=np.int64)
    first[j_of[::-1]] = np.arange(len(j_of) - 1, -1, -1)
    j_classes = [col[first] for col in joint_cols]
    j_sizes = np.bincount(j_of, minlength=n_j).astype(np.int64)
    # an individual no release holds is no one the intruder sees: never a candidate
    nowhere = np.ones(n_j, dtype=bool)
    for cover, cls in zip(covers, j_classes, strict=True):
        nowhere &= cls == cover.n_classes
    j_sizes[nowhere] = 0

    joint = np.zeros(len(u_ground), dtype=np.int64)
    single = np.zeros((len(u_ground), len(covers)), dtype=np.int64)
    width = max([n_j, *(c.n_classes for c in covers)])
    for block in _blocks(len(u_ground), width):
        m = np.ones((block.stop - block.start, n_j), dtype=bool)
        for i, (cover, cls) in enumerate(zip(covers, j_classes, strict=True)):
            c = cover.block(u_ground[block])
            single[block, i] = c.astype(np.int64) @ cover.class_sizes
            m &= np.hstack([c, np.ones((len(c), 1), dtype=bool)])[:, cls]
        joint[block] = m.astype(np.int64) @ j_sizes
    return joint, single, np.stack(holds, axis=1)


def _check_own_rows(cover, row, keys, key, u_ground, u_of, name) -> None:
    """Every record a release holds (``row`` ≥ 0: its row there) is covered by that row."""
    present = np.flatnonzero(row >= 0)
    cls = cover.row_class[row[present]]
    ok = np.ones(len(present), dtype=bool)
    for j, vc in enumerate(cover.value_cover):
        ok &= vc[u_ground[u_of[present], j], cover.class_values[cls, j]]
    if not ok.all():
        r = int(present[np.flatnonzero(~ok)[0]])
        raise DataError(
            f"{name}'s row for {key}={keys[r]!r} does not cover that record's "
            "quasi-identifiers in the original; is the row key the same individual in both?"
        )


def _by_sensitive(original, releases, columns, covers, u_ground, u_of):
    """Per record: candidates across the releases matched on the sensitive values, the fewest
    in one release alone, whether one value survives (jointly / in one release alone), whether
    some release does not hold the record and whether any does.

    A release whose rows covering the record never carry the record's own value does not hold
    it (an anonymizer dropped it as suppressed): it constrains nothing about that record.
    """
    from scipy import sparse

    from privcheck.encoding import string_labels

    def spelled(frame: pd.DataFrame) -> np.ndarray:
        parts = [string_labels(frame[c].to_numpy(dtype=object)) for c in columns]
        out = parts[0].astype(object)
        for p in parts[1:]:
            out = out + "\x1f" + p
        return out

    own = spelled(original)
    per_release = [spelled(r) for r in releases]
    space = pd.Index(pd.unique(np.concatenate([own, *per_release])))
    n_s, m = len(space), len(releases)
    own_s = space.get_indexer(own)
    counts = []
    for values, cover in zip(per_release, covers, strict=True):
        s = space.get_indexer(values)
        counts.append(
            sparse.csr_matrix(
                (np.ones(len(s), dtype=np.int64), (cover.row_class, s)),
                shape=(cover.n_classes, n_s),
            )
        )
    n = len(original)
    joint = np.zeros(n, dtype=np.int64)
    alone = np.zeros(n, dtype=np.int64)
    disclosed = np.zeros(n, dtype=bool)
    disclosed_alone = np.zeros(n, dtype=bool)
    absent = np.zeros(n, dtype=bool)
    held = np.zeros(m, dtype=bool)
    pattern_any = np.zeros(n, dtype=bool)
    # the records of each block of distinct combinations
    order = np.argsort(u_of, kind="stable")
    bounds = np.searchsorted(u_of[order], np.arange(len(u_ground) + 1))
    width = m * max([n_s, *(c.n_classes for c in covers)])
    for block in _blocks(len(u_ground), width):
        recs = order[bounds[block.start] : bounds[block.stop]]
        local = u_of[recs] - block.start
        a = np.stack(
            [
                (sparse.csr_matrix(c.block(u_ground[block]).astype(np.int64)) @ n_i).toarray()
                for c, n_i in zip(covers, counts, strict=True)
            ]
        )  # releases × combinations × values
        holds = a[:, local, own_s[recs]] > 0  # releases × records
        pattern = holds.T.astype(np.int64) @ (1 << np.arange(m, dtype=np.int64))
        absent[recs] = pattern != (1 << m) - 1
        pattern_any[recs] = pattern != 0
        held |= holds.any(axis=1)
        totals = a.sum(axis=2)  # releases × combinations
        kinds = (a > 0).sum(axis=2)
        big = np.iinfo(np.int64).max
        for p in np.unique(pattern):  # (one per subset of releases holding records: a few)
            sel = np.flatnonzero(pattern == p)
            used = [i for i in range(m) if p >> i & 1] or list(range(m))
            inter = a[used].min(axis=0)  # combinations × values
            joint[recs[sel]] = inter.sum(axis=1)[local[sel]]
            disclosed[recs[sel]] = ((inter > 0).sum(axis=1) == 1)[local[sel]]
            alone[recs[sel]] = totals[used].min(axis=0)[local[sel]]
            disclosed_alone[recs[sel]] = (
                np.where(kinds[used] > 0, kinds[used], big).min(axis=0) == 1
            )[local[sel]]
    if not held.all():
        i = int(np.flatnonzero(~held)[0])
        raise DataError(
            f"release {i + 1} holds none of the original's records (no row covers a record with "
            f"its own {', '.join(columns)}); matching on the sensitive value needs releases of "
            "the same individuals, with the sensitive values as released"
        )
    return joint, alone, disclosed, disclosed_alone, absent, pattern_any
