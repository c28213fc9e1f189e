"""The search of local suppression: which quasi-identifier cells to blank, on the class table.

A *pattern* is the set of quasi-identifiers a record blanks (bit j: quasi-identifier j reads
``*``); a *unit* is a share of one class's records released with one pattern (``Units``). The
``Problem`` is the class table at the starting node as the blanking sees it. The heuristics
(see ``privcheck.anonymizers.local_suppression`` for how they are combined and what is proven
of them): ``first_stage`` and ``whole_row_routine`` (the routine before partial padding, with
``merge_whole_groups`` and ``pad_starred_class``), ``greedy`` (partial padding, moves applied by
``apply_move``), ``finish_leftovers`` and ``refine``. The exact solver is
``privcheck.anonymizers.blanking_exact``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from privcheck.classes import ClassTable, group
from privcheck.errors import PolicyError
from privcheck.limits import BLANKING_PATTERNS
from privcheck.wildcard import star_codes

#: patterns are bitmasks in int64 (one bit per quasi-identifier), whatever the limits
MAX_PATTERN_BITS = 62


def bound_patterns(m: int) -> None:
    """Refuse, before any work, more blanking patterns (2^m − 2 for m quasi-identifiers) than
    ``BLANKING_PATTERNS``: every stage scores each pattern against the classes."""
    if m > MAX_PATTERN_BITS:
        raise PolicyError(
            f"local suppression handles at most {MAX_PATTERN_BITS} quasi-identifiers; the "
            f"policy has {m}: use a full-domain search or mondrian"
        )
    if m >= 2:
        BLANKING_PATTERNS.check(
            2**m - 2,
            f"local suppression tries every way of blanking some of the {m} quasi-identifiers:",
            "use fewer quasi-identifiers, a full-domain search or mondrian",
        )


def pattern_order(importance: np.ndarray) -> np.ndarray:
    """Every non-empty, non-full blanking pattern (bit j: quasi-identifier j blanked), cheapest
    first: fewer cells, then sparing the more important quasi-identifiers."""
    m = len(importance)
    pats = np.arange(1, (1 << m) - 1, dtype=np.int64)
    bits = (pats[:, None] >> np.arange(m)) & 1
    weight = bits @ (np.int64(1) << importance.astype(np.int64))
    return pats[np.lexsort((weight, bits.sum(axis=1)))]


@dataclass
class Units:
    """A solution on the class table: each unit is a share of one class's records (``parent``)
    blanked in the quasi-identifiers of its pattern (bit j: quasi-identifier j reads ``*``; the
    cells already ``*`` at the node are always set). A class split between patterns has one unit
    per pattern."""

    keys: np.ndarray
    sizes: np.ndarray
    pat: np.ndarray
    parent: np.ndarray


@dataclass
class Problem:
    """The class table at the starting node, as the blanking sees it."""

    keys: np.ndarray  # classes × quasi-identifiers, level codes at the node (int64)
    sizes: np.ndarray  # records per class
    stars: np.ndarray  # per quasi-identifier the code released for '*' (its label, or one more)
    radix: list[int]  # per quasi-identifier codes + 1 (room for a '*' that is no label)
    already: np.ndarray  # per class the pattern of its cells already '*' at the node
    k: int
    importance: np.ndarray
    star_mode: bool
    limit: int

    @property
    def m(self) -> int:
        return self.keys.shape[1]

    @property
    def full(self) -> int:
        return (1 << self.m) - 1

    def start(self, pat: np.ndarray | None = None) -> Units:
        n = len(self.sizes)
        return Units(
            self.keys,
            self.sizes.copy(),
            self.already.copy() if pat is None else pat.copy(),
            np.arange(n, dtype=np.int64),
        )

    @functools.cached_property
    def pattern_rows(self) -> tuple[np.ndarray, np.ndarray, int]:
        """The greedy's patterns (``pattern_order``, then the full pattern), each class's
        released row under every one of them (patterns × classes, row ids numbered pattern
        after pattern) and how many rows there are: a group that a pattern covers reaches the
        row of any of its classes. Made once per table (the greedy runs up to four times)."""
        order = np.array([*pattern_order(self.importance), self.full], dtype=np.int64)
        row_of = np.empty((len(order), len(self.sizes)), dtype=np.int64)
        offset = 0
        for i, p in enumerate(order.tolist()):
            free = [j for j in range(self.m) if not p >> j & 1]
            if free:
                r, n_r = group([self.keys[:, j] for j in free], [self.radix[j] for j in free])
            else:
                r, n_r = np.zeros(len(self.sizes), dtype=np.int64), 1
            row_of[i] = r + offset
            offset += n_r
        return order, row_of, offset

    def released(self, pat: np.ndarray, keys: np.ndarray) -> np.ndarray:
        bits = ((pat[:, None] >> np.arange(self.m, dtype=np.int64)) & 1).astype(bool)
        return np.where(bits, self.stars[None, :], keys)

    def groups(
        self, pat: np.ndarray, keys: np.ndarray, sizes: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(group of each unit, records per group): the groups are the released rows."""
        released = self.released(pat, keys)
        inverse, n_groups = group([released[:, j] for j in range(self.m)], self.radix)
        return inverse, np.bincount(inverse, weights=sizes, minlength=n_groups).astype(np.int64)

    def cells(self, u: Units) -> int:
        """Cells blanked (the cells already '*' at the node cost nothing)."""
        return int(u.sizes @ np.bitwise_count(u.pat & ~self.already[u.parent]).astype(np.int64))

    def over(self, u: Units) -> int:
        """Records beyond the suppression limit (``star`` mode: the all-'*' records)."""
        if not self.star_mode:
            return 0
        return max(0, int(u.sizes[u.pat == self.full].sum()) - self.limit)

    def score(self, u: Units) -> tuple[int, int]:
        return self.over(u), self.cells(u)

    def valid(self, u: Units) -> bool:
        """Every released row is shared by ≥ k records (``star`` mode: the all-'*' exempt)."""
        live = u.sizes > 0
        pat, keys, sizes = u.pat[live], u.keys[live], u.sizes[live]
        inverse, gs = self.groups(pat, keys, sizes)
        small = gs[inverse] < self.k
        if self.star_mode:
            small &= pat != self.full
        return not small.any()


def problem(
    table: ClassTable, k: int, importance: np.ndarray, *, star_mode: bool, limit: int = 0
) -> Problem:
    """The blanking problem of ``table``: its classes, the code of '*' per quasi-identifier (its
    label at the node, else one more code) and the cells already '*'."""
    keys = np.asarray(table.keys, dtype=np.int64)
    m = keys.shape[1]
    cards = [
        col.cardinality(level)
        for col, level in zip(table.encoded.quasi_identifiers, table.node, strict=True)
    ]
    stars = star_codes(table)
    stars = np.where(stars >= 0, stars, np.asarray(cards, dtype=np.int64))
    already = ((keys == stars[None, :]) @ (np.int64(1) << np.arange(m, dtype=np.int64))).astype(
        np.int64
    )
    return Problem(
        keys=keys,
        # counting people, a class's size is its people: a unit is then a share of its
        # (class, person) pairs, each pair's records blanked alike (``people_blanking``)
        sizes=np.asarray(table.subjects, dtype=np.int64),
        stars=stars,
        radix=[c + 1 for c in cards],
        already=already,
        k=k,
        importance=importance,
        star_mode=star_mode,
        limit=limit,
    )


def first_stage(prob: Problem) -> np.ndarray:
    """Each class's pattern after the first stage: patterns cheapest first, a class of a group
    smaller than k moves to the pattern when its group there reaches k."""
    pat = prob.already.copy()
    keys, sizes, k = prob.keys, prob.sizes, prob.k
    for p in pattern_order(prob.importance):
        inverse, gs = prob.groups(pat, keys, sizes)
        unsafe = gs[inverse] < k
        if not unsafe.any():
            break
        cand = unsafe & ((pat & ~p) == 0)
        if not cand.any():
            continue
        tent = np.where(cand, p, pat)
        inverse, gs = prob.groups(tent, keys, sizes)
        accept = cand & (gs[inverse] >= k)
        pat[accept] = p
    return pat


def whole_row_routine(prob: Problem, pat: np.ndarray) -> Units:
    """The routine before partial padding (kept as a candidate, so no table is blanked more than
    it was): the first stage's leftovers blanked entirely and padded with whole rows of '*', or
    first merged with whole larger groups; the cheaper."""
    keys, sizes, k, m, full = prob.keys, prob.sizes, prob.k, prob.m, prob.full
    star_mode, limit, groups = prob.star_mode, prob.limit, prob.groups
    parent = np.arange(len(sizes))
    shifts = np.arange(m, dtype=np.int64)

    def finish(p: np.ndarray) -> tuple[Units, tuple[int, int]]:
        p = p.copy()
        inverse, gs = groups(p, keys, sizes)
        unsafe = gs[inverse] < k
        kk, ss, pp = keys, sizes.copy(), p
        parents = parent
        if unsafe.any():
            pp[unsafe] = full
            if not star_mode:
                kk, ss, pp, parents = pad_starred_class(prob, kk, ss, pp, parent)
        cells = int((ss * ((pp[:, None] >> shifts) & 1).sum(axis=1)).sum())
        over = max(0, int(ss[pp == full].sum()) - limit) if star_mode else 0
        return Units(kk, ss, pp, parents), (over, cells)

    options = [
        finish(pat),
        finish(merge_whole_groups(prob, pat.copy())),
    ]
    if min(o[1][0] for o in options) > 0:  # star mode over the limit: merge at any cost
        unbounded = merge_whole_groups(prob, pat.copy(), budget=None)
        options.append(finish(unbounded))
    units = min(options, key=lambda r: r[1])[0]
    live = units.sizes > 0
    return Units(units.keys[live], units.sizes[live], units.pat[live], units.parent[live])


def merge_whole_groups(prob: Problem, pat: np.ndarray, budget: float | None = -1) -> np.ndarray:
    """Second stage, for the classes the first left in groups smaller than k: a move may also
    take whole groups that are already large enough (blanking the same pattern in them). Each
    round applies the cheapest move per record it fixes, over every pattern; what a move costs
    beyond blanking its small groups' records entirely comes out of a budget of m·(k − 1)
    cells (the bound in ``privcheck.anonymizers.local_suppression``; ``budget=None``: no
    budget)."""
    keys, sizes, k, m, full = prob.keys, prob.sizes, prob.k, prob.m, prob.full
    star_mode, importance, groups = prob.star_mode, prob.importance, prob.groups
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


def pad_starred_class(
    prob: Problem, keys: np.ndarray, sizes: np.ndarray, pat: np.ndarray, parent: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Fill the all-``*`` class up to k with the cheapest records of groups larger than k
    (fewest cells left to blank), splitting their classes; whole groups if that is not enough."""
    k, full, groups = prob.k, prob.full, prob.groups
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


def group_view(
    prob: Problem, u: Units
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(group of each unit, size, pattern and released key of each group, which groups are the
    suppressed records — ``star`` mode's all-'*' rows, exempt from k)."""
    inverse, gsize = prob.groups(u.pat, u.keys, u.sizes)
    first = first_units(inverse, len(gsize))
    gpat = u.pat[first]
    gkey = prob.released(gpat, u.keys[first])
    exempt = (gpat == prob.full) if prob.star_mode else np.zeros(len(gsize), dtype=bool)
    return inverse, gsize, gpat, gkey, exempt


def run_starts(sorted_keys: np.ndarray) -> np.ndarray:
    """For each position of a sorted array, the first position of its run of equal keys (what
    ``np.searchsorted(a, a)`` gives, in one pass)."""
    n = len(sorted_keys)
    head = np.ones(n, dtype=bool)
    head[1:] = sorted_keys[1:] != sorted_keys[:-1]
    return np.maximum.accumulate(np.where(head, np.arange(n), 0))


def first_units(inverse: np.ndarray, n_groups: int) -> np.ndarray:
    """A unit of each group (its first)."""
    first = np.zeros(n_groups, dtype=np.int64)
    first[inverse[::-1]] = np.arange(len(inverse) - 1, -1, -1)
    return first


def greedy(prob: Problem, u: Units, *, suppress_last: bool = False) -> Units:
    """``greedy_rounds`` to the end."""
    return greedy_rounds(prob, u, suppress_last=suppress_last)[0]


def greedy_both(prob: Problem, u: Units) -> tuple[Units, Units]:
    """``greedy`` without and with ``suppress_last``, in one run where they agree: both make the
    same moves until the first round whose cheapest moves include blanking records entirely
    while another move is left; the second goes on alone from there."""
    plain, fork = greedy_rounds(prob, u, watch=True)
    if fork is None:
        return plain, plain
    return plain, greedy_rounds(prob, fork, suppress_last=True)[0]


def greedy_rounds(
    prob: Problem, u: Units, *, suppress_last: bool = False, watch: bool = False
) -> tuple[Units, Units | None]:
    """Fix the groups smaller than k, the move of least cost per record fixed first. A move picks
    a pattern and a released row of it: every small group that refines that row is blanked to
    it, and when they and the row's own records are fewer than k the row is filled with the
    cheapest records other groups can spare (a group larger than k gives up to its surplus,
    blanked to the row: the partial padding) or, if cheaper, one whole group.

    Every (group, pattern) pair of the rows holding a small group is scored at once; the moves
    of the round's least cost per record that share no group are applied together.
    ``suppress_last`` (``star`` mode): blanking records entirely — suppressed records, which
    the limit rations — only when no other move is left. With ``watch`` (and not
    ``suppress_last``), also the units at the start of the first round ``suppress_last`` would
    have played differently (None if none did): a round depends on the units alone."""
    k, full = prob.k, prob.full
    fork: Units | None = None
    u = Units(u.keys, u.sizes.copy(), u.pat.copy(), u.parent.copy())
    order, row_of, n_rows_all = prob.pattern_rows
    while True:
        inverse, gsize, gpat, _, exempt = group_view(prob, u)
        unsafe = (gsize < k) & ~exempt
        if not unsafe.any():
            return u, fork
        room = prob.limit - int(gsize[exempt].sum())
        first = first_units(inverse, len(gsize))
        covers = (gpat[None, :] & ~order[:, None]) == 0  # patterns × groups
        rows = row_of[:, u.parent[first]]
        relevant = np.zeros(n_rows_all, dtype=bool)
        relevant[rows[:, unsafe][covers[:, unsafe]]] = True
        flat = np.flatnonzero(covers & relevant[rows])
        pi, gi = np.divmod(flat, rows.shape[1])
        compact = np.cumsum(relevant) - 1
        row = compact[rows.ravel()[flat]]
        n_rows = int(relevant.sum())
        p = order[pi]
        size = gsize[gi]
        small = unsafe[gi]
        add = np.bitwise_count(p & ~gpat[gi]).astype(np.int64)
        fixed = np.bincount(row[small], weights=size[small], minlength=n_rows)
        cost = np.bincount(row[small], weights=size[small] * add[small], minlength=n_rows)
        row_p = np.zeros(n_rows, dtype=np.int64)
        row_p[row] = p
        exempt_row = (row_p == full) if prob.star_mode else np.zeros(n_rows, dtype=bool)
        same = ~small & (gpat[gi] == p)
        own = np.bincount(row[same], weights=size[same], minlength=n_rows)
        need = np.maximum(k - fixed - own, 0)
        need[exempt_row] = 0
        donor = np.flatnonzero(~small & ~same & ~exempt_row[row])
        # by row, cheapest first (one stable sort of the combined key: what a lexsort gives)
        o = donor[np.argsort(row[donor] * (prob.m + 1) + add[donor], kind="stable")]
        dr, surplus, dadd = row[o], size[o] - k, add[o]
        run_start = run_starts(dr)
        before = np.cumsum(surplus) - surplus
        before -= before[run_start]  # surplus of cheaper donors of the same row
        take = np.clip(need[dr] - before, 0, surplus)
        avail = np.bincount(dr, weights=surplus, minlength=n_rows)
        partial = np.where(
            avail >= need, np.bincount(dr, weights=take * dadd, minlength=n_rows), np.inf
        )
        whole = np.full(n_rows, np.inf)
        if len(dr):  # the cheapest whole donor of each row: a minimum over each row's run
            heads = np.flatnonzero(run_start == np.arange(len(dr)))
            whole[dr[heads]] = np.minimum.reduceat(size[o] * dadd, heads)
        cost = cost + np.where(need > 0, np.minimum(partial, whole), 0.0)
        ok = np.isfinite(cost) & (~exempt_row | (fixed <= room))
        if not ok.any():  # star mode, no room left under the limit
            return u, fork
        ratio = np.where(ok, cost / np.maximum(fixed, 1), np.inf)
        if (suppress_last or watch) and (ok & ~exempt_row).any():
            if suppress_last:
                ratio[exempt_row] = np.inf
            elif fork is None and exempt_row[ratio <= ratio.min()].any():
                fork = u
        # the moves of least cost per record, in pattern order (cheapest patterns first)
        chosen = np.flatnonzero(ratio <= ratio.min())
        # the pairs of the chosen rows, row by row, to read each chosen move's groups
        of_chosen = np.flatnonzero(np.isin(row, chosen))
        by_row = of_chosen[np.argsort(row[of_chosen], kind="stable")]
        pair_lo = np.searchsorted(row[by_row], chosen)
        pair_hi = np.searchsorted(row[by_row], chosen, side="right")
        dbounds = np.concatenate([[0], np.cumsum(np.bincount(dr, minlength=n_rows))])
        touched = np.zeros(len(gsize), dtype=bool)
        moves = []
        spent = 0
        for b, lo, hi in zip(chosen.tolist(), pair_lo.tolist(), pair_hi.tolist(), strict=True):
            pairs = by_row[lo:hi]
            moved = gi[pairs[small[pairs]]]
            if exempt_row[b] or need[b] == 0:
                dg, dt = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
            elif partial[b] <= whole[b]:
                mine = np.arange(dbounds[b], dbounds[b + 1])
                mine = mine[take[mine] > 0]
                dg, dt = gi[o[mine]], take[mine].astype(np.int64)
            else:
                mine = np.arange(dbounds[b], dbounds[b + 1])
                g = mine[np.argmin((size[o] * dadd)[mine])]
                dg, dt = gi[o[[g]]], size[o[[g]]]
            involved = np.concatenate([moved, dg])
            if touched[involved].any():
                continue
            if exempt_row[b]:
                if spent + fixed[b] > room:
                    continue
                spent += int(fixed[b])
            touched[involved] = True
            moves.append((int(row_p[b]), moved, dg, dt))
        for p_b, moved, dg, dt in moves:
            u = apply_move(u, inverse, p_b, moved, dg, dt)


def apply_move(
    u: Units, inverse: np.ndarray, p: int, moved: np.ndarray, donors: np.ndarray, takes: np.ndarray
) -> Units:
    """``u`` with the groups ``moved`` blanked to ``p`` and ``takes`` records of each donor group
    (a unit split when a group gives part of it)."""
    hit = np.zeros(int(inverse.max()) + 1, dtype=bool)
    hit[moved] = True
    pat = u.pat.copy()
    # ``inverse`` covers the units the groups were read from (later splits are appended)
    pat[: len(inverse)][hit[inverse]] = p
    sizes = u.sizes.copy()
    new: list[tuple[int, int]] = []  # (unit split, records it gives)
    for g, t in zip(donors.tolist(), takes.tolist(), strict=True):
        members = np.flatnonzero(inverse == g)
        cum = np.cumsum(sizes[members])
        pat[members[cum <= t]] = p
        i = int(np.searchsorted(cum, t, side="right"))
        if i < len(members):
            rest = t - (int(cum[i]) - int(sizes[members[i]]))
            if rest > 0:
                sizes[members[i]] -= rest
                new.append((int(members[i]), rest))
    if not new:
        return Units(u.keys, sizes, pat, u.parent)
    split = np.array([a for a, _ in new], dtype=np.int64)
    return Units(
        np.vstack([u.keys, u.keys[split]]),
        np.concatenate([sizes, np.array([b for _, b in new], dtype=np.int64)]),
        np.concatenate([pat, np.full(len(split), p, dtype=np.int64)]),
        np.concatenate([u.parent, u.parent[split]]),
    )


def finish_leftovers(prob: Problem, u: Units) -> Units:
    """Groups still smaller than k (``star`` mode, the limit reached) blanked entirely: suppressed
    records beyond the limit, which the caller refuses unless another candidate avoids them."""
    inverse, gsize, _, _, exempt = group_view(prob, u)
    small = ((gsize < prob.k) & ~exempt)[inverse]
    if not small.any():
        return u
    pat = u.pat.copy()
    pat[small] = prob.full
    return Units(u.keys, u.sizes, pat, u.parent)


def refine(prob: Problem, u: Units) -> Units:
    """Un-blank cells while the release stays valid: move records of a unit to the pattern one
    cell less when their group keeps ≥ k records (or none) and the row they reach has ≥ k; the
    move freeing the most cells first, until none is left."""
    k, m = prob.k, prob.m
    u = Units(u.keys, u.sizes.copy(), u.pat.copy(), u.parent.copy())
    own = prob.already[u.parent]
    while True:
        inverse, gsize, _, gkey, exempt = group_view(prob, u)
        n_groups = len(gsize)
        rest = gsize[inverse] - u.sizes
        # most records a unit can take out of its group, leaving it ≥ k, empty, or exempt
        most = np.where(
            exempt[inverse] | (rest == 0) | (rest >= k),
            u.sizes,
            np.minimum(u.sizes, gsize[inverse] - k),
        )
        released = prob.released(u.pat, u.keys)
        best = (0, -1, -1)
        for j in range(m):
            c = np.flatnonzero(((u.pat & ~own) >> j & 1).astype(bool) & (most > 0))
            if not len(c):
                continue
            target = released[c].copy()
            target[:, j] = u.keys[c, j]
            both = np.vstack([gkey, target])
            tid, n_t = group([both[:, i] for i in range(m)], prob.radix)
            there = np.bincount(tid[:n_groups], weights=gsize, minlength=n_t)[tid[n_groups:]]
            gain = np.where(there + most[c] >= k, most[c], 0)
            i = int(np.argmax(gain))
            if gain[i] > best[0]:
                best = (int(gain[i]), int(c[i]), j)
        t, c, j = best
        if t == 0:
            return u
        if t == u.sizes[c]:
            u.pat[c] &= ~(1 << j)
            continue
        u.sizes[c] -= t
        u = Units(
            np.vstack([u.keys, u.keys[[c]]]),
            np.append(u.sizes, t),
            np.append(u.pat, u.pat[c] & ~(1 << j)),
            np.append(u.parent, u.parent[c]),
        )
        own = prob.already[u.parent]
