"""Local suppression (sdcMicro's ``localSuppression``): blank the fewest quasi-identifier cells.

Where full-domain generalization recodes a whole column and record suppression drops a whole
row, local suppression replaces single cells by ``*`` until every record shares its
(partly blanked) values with at least k − 1 others. The release has the same rows in the same
order (with ``--keep-order``) and every cell but the blanked ones is the input's (or the
full-domain node's, when combined with one: generalize first, then blank — the production recipe).

Semantics. The blanked release is built to be k-anonymous under ``suppressed_cells: category``
(``*`` is one more value). That is the stricter reading — a class is compatible with itself, so
effective sizes under ``wildcard`` are never smaller — so the release passes ``privcheck check``
under both semantics. (sdcMicro blanks under the wildcard reading, which can need fewer cells.)

Algorithm (on the class table, never on rows). A *pattern* is the set of quasi-identifiers a
class blanks. Patterns are tried in order of cost — fewest blanked cells first, and among equal
counts the ones sparing the most important quasi-identifiers (``importance``) first. For each
pattern, every class still in a group smaller than k (whose blanked set is contained in the
pattern) is tentatively moved to it; the moves whose resulting group reaches k are kept. Only
classes of too-small groups ever move, so a group that reached k is never broken. Whatever is
left after every pattern but the full one is blanked entirely: under ``suppressed_records: star``
those rows are suppressed records (counted against the suppression limit); otherwise they form
the all-``*`` class, padded to k with the cheapest records of groups larger than k.

Bound. Every record of a class smaller than k must lose at least one cell in any solution (kept
whole, its class in the release holds only its own unblanked copies, fewer than k), and any
solution with a blank puts it in a group of at least k blanked records; so OPT ≥ max(U, k) where
U is the number of records in classes smaller than k. The algorithm blanks only those U records
plus at most k − 1 padding records, each in at most m cells (m quasi-identifiers):
``cells ≤ m · (U + k − 1) < 2m · OPT`` (padding takes at most k − 1 records when some group
has them to spare; under ``suppressed_records: star`` the bound holds unless the second stage
had to be rerun without its budget to stay within the suppression limit). The tests confirm the
bound (and report how often the optimum is met) by brute force on tiny tables.

Other models: only k-anonymity is enforced; the other models are refused with one line (blanking
changes no sensitive value, so l-diversity or t-closeness could only be reached by blanking
further towards whole classes, which is record suppression: use a full-domain search).
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from privcheck.anonymizers.base import Anonymizer, check_possible
from privcheck.anonymizers.release import materialise, recheck, removed_columns
from privcheck.anonymizers.risk_profile import attach_risk, ground_classes
from privcheck.checker import SUPPRESSED, suppression_limit_records
from privcheck.classes import ClassTable, count, group
from privcheck.encoding import EncodedTable, encode, string_labels
from privcheck.errors import PolicyError
from privcheck.hookspecs import hookimpl
from privcheck.metrics.generalization import all_metrics
from privcheck.policy import Policy
from privcheck.report import AnonymizationReport
from privcheck.wildcard import star_codes


class LocalSuppression(Anonymizer):
    name = "local-suppression"
    summary = "blank the fewest quasi-identifier cells ('*') so k-anonymity holds"
    #: the models blanking cells can enforce
    enforced: ClassVar[frozenset[str]] = frozenset({"k-anonymity"})

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        return {"importance": None, "node": None, "generalize_first": False}

    def anonymize(
        self,
        data: pd.DataFrame,
        policy: Policy,
        *,
        seed: int | None = None,
        keep_order: bool = False,
        previous: dict[str, int] | None = None,
        progress: Any = None,
    ) -> tuple[pd.DataFrame, AnonymizationReport]:
        started = time.perf_counter()
        self.refuse_mechanism_models(policy)
        k = self.required_k(policy)
        if previous is not None:
            raise PolicyError("local-suppression does not take a previous release; leave it out")
        encoded = encode(data, policy)
        check_possible(encoded, policy)
        node = self.start_node(encoded, policy, k)
        table = count(encoded, node, track_records=True)
        importance = self.importance_rank(encoded, table)
        limit = suppression_limit_records(policy, encoded.n_records)
        star_mode = policy.suppressed_records == "star"
        mask, full_rows = blank_records(table, k, importance, star_mode=star_mode, limit=limit)
        n_full = int(full_rows.sum())
        if policy.suppressed_records == "star" and n_full > limit:
            raise PolicyError(
                f"local suppression must blank every quasi-identifier of {n_full} records, which "
                f"suppressed_records: star counts as suppressed records, over the limit of "
                f"{limit}; raise suppression_limit, use suppressed_records: remove, or combine "
                "with a node (--param generalize_first=true)"
            )
        kept = np.ones(encoded.n_records, dtype=bool)
        release, _ = materialise(data, encoded, node, kept, policy, keep_order=True, table=table)
        release = blank(release, encoded, mask)
        suppressed = full_rows if star_mode and mask.shape[1] else ~kept
        changed = changed_cells(data, release, encoded.qi_names)
        utility = None
        if policy.utility is not None:  # measured on the release in input order, row by row
            from privcheck.utility.report import release_utility

            utility = release_utility(data, release, policy)
        if not keep_order:
            rows = np.random.default_rng(seed).permutation(len(release))
            release = release.take(rows).reset_index(drop=True)
            suppressed = suppressed[rows]
        check = recheck(release, suppressed, policy)
        per = {n: int(mask[:, j].sum()) for j, n in enumerate(encoded.qi_names)}
        n_sup = int(suppressed.sum())
        report = AnonymizationReport(
            algorithm=self.name,
            parameters={
                **self.params,
                "importance": [encoded.qi_names[j] for j in np.argsort(-importance)],
                "k": k,
                "models": [{"model": m.model, **m.params()} for m in policy.models],
                "suppression_limit": policy.suppression_limit,
                "suppression_limit_records": limit,
                "suppressed_records": policy.suppressed_records,
                "suppressed_cells_semantics": policy.suppressed_cells,
                "seed_given": seed is not None,
                "keep_order": keep_order,
            },
            quasi_identifiers=encoded.qi_names,
            node={n: int(v) for n, v in zip(encoded.qi_names, node, strict=True)},
            n_records=encoded.n_records,
            n_kept=encoded.n_records - n_sup,
            n_suppressed=n_sup,
            n_released_rows=len(release),
            removed_columns=removed_columns(data, policy),
            metrics=all_metrics(table, None),
            suppressed_cells={"per_attribute": per, "total": int(mask.sum())},
            changed_cells=changed,
            check=check,
            utility=utility,
        )
        attach_risk(report, policy, ground_classes(encoded, policy, data, table))
        report.elapsed_seconds = round(time.perf_counter() - started, 4)
        return release, report

    def required_k(self, policy: Policy) -> int:
        """The k to reach; every model other than k-anonymity is refused with one line."""
        others = [m.model for m in policy.models if m.model not in self.enforced]
        if others:
            raise PolicyError(
                f"local-suppression enforces k-anonymity only, not {others[0]}: blanking cells "
                "changes no sensitive value; use a full-domain search (mingen) or mondrian"
            )
        ks = [int(m.k) for m in policy.models if m.model == "k-anonymity"]
        if not ks:
            raise PolicyError(
                "local-suppression needs a k-anonymity model in the policy (models: "
                "[{model: k-anonymity, k: 5}])"
            )
        return max(ks)

    def start_node(self, encoded: EncodedTable, policy: Policy, k: int) -> tuple[int, ...]:
        """The full-domain node blanking starts from: ``node`` if given; with
        ``generalize_first`` the MinGen optimum's predecessor (one attribute one level lower)
        leaving the fewest records in classes smaller than k; else the ground values."""
        names = encoded.qi_names
        given = self.params["node"]
        if given is not None and self.params["generalize_first"]:
            raise PolicyError("give either node or generalize_first=true, not both")
        if given is not None:
            if isinstance(given, list | tuple):
                given = dict(zip(names, given, strict=False))
            if not isinstance(given, dict) or sorted(given) != sorted(names):
                raise PolicyError(
                    f"node must give a level for each quasi-identifier ({', '.join(names)}), "
                    "e.g. --param 'node={" + ", ".join(f"{n}: 0" for n in names) + "}'"
                )
            node = []
            for col in encoded.quasi_identifiers:
                level = given[col.name]
                if not isinstance(level, int) or not 0 <= level <= col.height:
                    raise PolicyError(
                        f"node level of {col.name!r} must be an integer in 0..{col.height}; "
                        f"got {level!r}"
                    )
                node.append(level)
            return tuple(node)
        if not self.params["generalize_first"]:
            return encoded.bottom
        from privcheck.anonymizers.mingen import MinGen

        optimum = MinGen().choose(encoded, policy).node
        best, best_unsafe = tuple(optimum), None
        for j in range(len(optimum)):
            if optimum[j] == 0:
                continue
            below = tuple(v - 1 if i == j else v for i, v in enumerate(optimum))
            t = count(encoded, below, track_records=False)
            unsafe = int(t.sizes[t.sizes < k].sum())
            if best_unsafe is None or unsafe < best_unsafe:
                best, best_unsafe = below, unsafe
        return best

    def importance_rank(self, encoded: EncodedTable, table: ClassTable) -> np.ndarray:
        """Each quasi-identifier's importance (higher: blanked later). ``importance`` lists the
        names most important first; by default a column with fewer distinct values is more
        important (blanking a column of many values merges most classes per cell)."""
        names = encoded.qi_names
        m = len(names)
        given = self.params["importance"]
        if given is None:
            distinct = np.array([len(np.unique(table.keys[:, j])) for j in range(m)])
            order = np.argsort(distinct, kind="stable")  # fewest values first: most important
            rank = np.empty(m, dtype=np.int64)
            rank[order] = np.arange(m - 1, -1, -1)
            return rank
        if isinstance(given, str):
            given = [s.strip() for s in given.split(",")]
        if sorted(map(str, given)) != sorted(names):
            raise PolicyError(
                f"importance must list every quasi-identifier once, most important first "
                f"({', '.join(names)}); got {given!r}"
            )
        position = {str(n): i for i, n in enumerate(given)}
        return np.array([m - 1 - position[n] for n in names], dtype=np.int64)


def pattern_order(importance: np.ndarray) -> np.ndarray:
    """Every non-empty, non-full blanking pattern (bit j: quasi-identifier j blanked), cheapest
    first: fewer cells, then sparing the more important quasi-identifiers."""
    m = len(importance)
    pats = np.arange(1, (1 << m) - 1, dtype=np.int64)
    bits = (pats[:, None] >> np.arange(m)) & 1
    weight = bits @ (np.int64(1) << importance.astype(np.int64))
    return pats[np.lexsort((weight, bits.sum(axis=1)))]


def blank_records(
    table: ClassTable, k: int, importance: np.ndarray, *, star_mode: bool, limit: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """records × quasi-identifiers: which cells to blank (see the module docstring), and which
    records end with every quasi-identifier '*'.

    Under ``star_mode`` those records are suppressed records: when more than ``limit`` are
    left, the second stage is run again without its cell budget (the bound then does not hold,
    but the release stays within the suppression limit whenever merging can achieve it)."""
    m = table.keys.shape[1]
    n = table.n_records
    if m == 0 or n == 0:
        return np.zeros((n, m), dtype=bool), np.zeros(n, dtype=bool)
    keys = np.asarray(table.keys, dtype=np.int64)
    cards = [
        col.cardinality(level)
        for col, level in zip(table.encoded.quasi_identifiers, table.node, strict=True)
    ]
    stars = star_codes(table)
    stars = np.where(stars >= 0, stars, np.asarray(cards))
    radix = [c + 1 for c in cards]
    sizes = np.asarray(table.sizes, dtype=np.int64).copy()
    # cells already '*' (a column at its top level, or a '*' in the input) cost nothing
    already = ((keys == stars[None, :]) @ (np.int64(1) << np.arange(m, dtype=np.int64))).astype(
        np.int64
    )
    pat = already.copy()
    parent = np.arange(len(sizes))
    full = (1 << m) - 1
    shifts = np.arange(m, dtype=np.int64)

    def groups(p: np.ndarray, kk: np.ndarray, ss: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        bits = ((p[:, None] >> shifts) & 1).astype(bool)
        released = np.where(bits, stars[None, :], kk)
        inverse, n_groups = group([released[:, j] for j in range(m)], radix)
        return inverse, np.bincount(inverse, weights=ss, minlength=n_groups).astype(np.int64)

    for p in pattern_order(importance):
        inverse, gs = groups(pat, keys, sizes)
        unsafe = gs[inverse] < k
        if not unsafe.any():
            break
        cand = unsafe & ((pat & ~p) == 0)
        if not cand.any():
            continue
        tent = np.where(cand, p, pat)
        inverse, gs = groups(tent, keys, sizes)
        accept = cand & (gs[inverse] >= k)
        pat[accept] = p

    def finish(p: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        p = p.copy()
        inverse, gs = groups(p, keys, sizes)
        unsafe = gs[inverse] < k
        kk, ss, pp = keys, sizes.copy(), p
        parents = parent
        if unsafe.any():
            pp[unsafe] = full
            if not star_mode:
                kk, ss, pp, parents = _pad(kk, ss, pp, parent, k, full, groups)
        cells = int((ss * ((pp[:, None] >> shifts) & 1).sum(axis=1)).sum())
        over = max(0, int(ss[pp == full].sum()) - limit) if star_mode else 0
        return kk, ss, pp, parents, (over, cells)

    # the leftovers blanked entirely (and padded), or first merged with larger groups: the
    # cheaper of the two (so the bound of blanking them entirely holds)
    options = [
        finish(pat),
        finish(_merge(pat.copy(), keys, sizes, k, m, full, star_mode, importance, groups)),
    ]
    if min(o[4][0] for o in options) > 0:  # star mode over the limit: merge at any cost
        unbounded = _merge(pat.copy(), keys, sizes, k, m, full, star_mode, importance, groups, None)
        options.append(finish(unbounded))
    keys, sizes, pat, parent, _ = min(options, key=lambda r: r[4])
    # records: each class's pattern; a split class gives its extra units its first records
    rc = table.record_class
    record_pat = pat[: table.n_classes][rc]
    extra = np.flatnonzero(parent != np.arange(len(parent)))
    for u in extra:  # at most k − 1 padding units
        rows = np.flatnonzero((rc == parent[u]) & (record_pat != full))[: sizes[u]]
        record_pat[rows] = pat[u]
    full_rows = record_pat == full
    record_pat &= ~already[rc]
    return ((record_pat[:, None] >> shifts) & 1).astype(bool), full_rows


def _merge(pat, keys, sizes, k, m, full, star_mode, importance, groups, budget=-1):
    """Second stage, for the classes the first left in groups smaller than k: a move may also
    take whole groups that are already large enough (blanking the same pattern in them). Each
    round applies the cheapest move per record it fixes, over every pattern; what a move costs
    beyond blanking its small groups' records entirely comes out of a budget of m·(k − 1)
    cells (the bound in the module docstring)."""
    shifts = np.arange(m, dtype=np.int64)
    candidates = list(pattern_order(importance)) + ([] if star_mode else [full])
    ones = np.array([bin(int(p)).count("1") for p in candidates])
    if budget == -1:  # cells a move may spend beyond blanking its small groups entirely
        budget = m * (k - 1)
    if budget is None:
        budget = np.inf
    while True:
        inverse, gs = groups(pat, keys, sizes)
        unsafe = gs[inverse] < k
        if not unsafe.any():
            return pat
        blanked = ((pat[:, None] >> shifts) & 1).sum(axis=1)
        best = None
        for p, size_p in zip(candidates, ones, strict=True):
            sub = np.flatnonzero((pat & ~p) == 0)
            if not unsafe[sub].any():
                continue
            free = [j for j in range(m) if not p >> j & 1]
            if free:
                pg, n_groups = group(
                    [keys[sub, j] for j in free], [int(keys[:, j].max()) + 1 for j in free]
                )
            else:
                pg, n_groups = np.zeros(len(sub), dtype=np.int64), 1
            w = sizes[sub]
            total = np.bincount(pg, weights=w, minlength=n_groups)
            cost = np.bincount(pg, weights=w * (size_p - blanked[sub]), minlength=n_groups)
            fixed = np.bincount(pg, weights=w * unsafe[sub], minlength=n_groups)
            fallback = np.bincount(
                pg, weights=w * unsafe[sub] * (m - blanked[sub]), minlength=n_groups
            )
            ok = (total >= k) & (fixed > 0) & (cost <= fallback + budget)
            if not ok.any():
                continue
            ratio = np.where(ok, cost / np.maximum(fixed, 1), np.inf)
            g = int(np.argmin(ratio))
            if best is None or ratio[g] < best[0]:
                best = (ratio[g], p, sub[pg == g], cost[g] - fallback[g])
        if best is None:
            return pat
        pat[best[2]] = best[1]
        budget -= max(0, float(best[3]))


def _pad(keys, sizes, pat, parent, k, full, groups):
    """Fill the all-``*`` class up to k with the cheapest records of groups larger than k
    (fewest cells left to blank), splitting their classes; whole groups if that is not enough."""
    inverse, gs = groups(pat, keys, sizes)
    is_full = pat == full
    need = k - int(sizes[is_full].sum())
    if need <= 0:
        return keys, sizes, pat, parent
    surplus = gs - k
    popcount = np.array([bin(int(x)).count("1") for x in pat])  # per class, not per record
    donors = np.flatnonzero(~is_full & (surplus[inverse] > 0))
    donors = donors[np.lexsort((-surplus[inverse[donors]], popcount[donors]))]
    new_keys, new_sizes, new_parent = [], [], []
    for u in donors:
        if need <= 0:
            break
        take = int(min(need, surplus[inverse[u]], sizes[u]))
        if take <= 0:
            continue
        sizes[u] -= take
        surplus[inverse[u]] -= take
        new_keys.append(keys[u])
        new_sizes.append(take)
        new_parent.append(parent[u])
        need -= take
    if new_sizes:
        keys = np.vstack([keys, np.array(new_keys)])
        sizes = np.concatenate([sizes, new_sizes])
        pat = np.concatenate([pat, np.full(len(new_sizes), full)])
        parent = np.concatenate([parent, new_parent])
    if need > 0:  # no group has enough surplus: blank whole groups, smallest first
        inverse, gs = groups(pat, keys, sizes)
        for g in np.argsort(gs, kind="stable"):
            if need <= 0:
                break
            members = (inverse == g) & (pat != full)
            if members.any():
                need -= int(sizes[members].sum())
                pat[members] = full
    return keys, sizes, pat, parent


def blank(release: pd.DataFrame, encoded: EncodedTable, mask: np.ndarray) -> pd.DataFrame:
    """``release`` (in input order) with the masked quasi-identifier cells written as ``*``."""
    out = release.copy()
    for j, name in enumerate(encoded.qi_names):
        rows = mask[:, j]
        if not rows.any():
            continue
        values = out[name].to_numpy(dtype=object)
        if not all(type(v) is str for v in values):
            values = string_labels(values)
        values = values.copy()
        values[rows] = SUPPRESSED
        out[name] = values
    return out


def changed_cells(data: pd.DataFrame, release: pd.DataFrame, names: list[str]) -> int:
    """Quasi-identifier cells whose released value differs from the input's (blanked,
    generalized or top/bottom coded), both read as a hierarchy spells them (release in input
    order)."""
    total = 0
    for name in names:
        a = string_labels(data[name].to_numpy(dtype=object))
        b = string_labels(release[name].to_numpy(dtype=object))
        total += int(np.count_nonzero(a != b))
    return total


@hookimpl
def privcheck_anonymizers() -> list[type]:
    return [LocalSuppression]
