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
record blanks; a *unit* is a share of one class's records released with one pattern (a class
split between patterns has several units). Candidates, the one blanking fewest cells released
(under ``suppressed_records: star``: first the fewest suppressed records beyond the limit):

1. Today's routine (``today``; the release before issue 24, kept so that no table is blanked
   more than it was — it wins ties). Patterns are tried cheapest first (fewest cells, then
   sparing the important quasi-identifiers, ``importance``); the classes of groups smaller than
   k move to a pattern when their group there reaches k. Leftovers are blanked entirely — under
   ``star`` suppressed records, otherwise the all-``*`` class, padded to k with whole rows of
   ``*`` — or first merged with whole larger groups; the cheaper.
2. The greedy with partial padding (``greedy``), started from the first stage's result and
   from nothing. A move is a pattern and one released row of it: every small group refining the
   row is blanked to it, and when they and the row's own records are fewer than k the row is
   filled with the cheapest records larger groups can spare (their surplus over k, blanked only
   to the row's pattern — the partial pattern today's routine never pads at: (a,x) + 3×(a,y),
   k = 2, blanks the x and one y, 2 cells, where padding with whole rows of ``*`` costs 4), or
   with one whole group when cheaper. The moves of least cost per record fixed go first (those
   of a round that share no group together); every (group, pattern) pair is scored at once.
3. Each of these refined (``refine``): records of a unit take back one blanked cell while
   their group keeps ≥ k records (or none) and the row they reach holds ≥ k.
4. When the class table has at most ``EXACT_MAX_PAIRS`` (class, pattern) pairs, the exact
   minimum by integer programming (``exact_minimum``, scipy's HiGHS, a node limit so the result
   does not depend on the machine's speed); with ``polish=N``, N neighbourhoods of the best
   candidate (the classes of its most expensive groups and their nearest classes) re-solved
   exactly with everything else fixed (``polish``).

Measured against the exact minimum (an integer program in the tests) on 60 random tables of
6–30 rows, 2–4 quasi-identifiers of 2–4 values, k = 2–4: blanked / minimum is 1 on every table
(the exact program takes them), 1.058 on average without it (median 1, worst 1.5); today's
routine alone 1.147 (median 1.012, worst 2). On larger random tables (60–200 rows, mostly
unique rows) the heuristics are hardly better than today's routine (1.13–1.24× against
1.14–1.25×); ``polish=12`` brings them to 1.08–1.13×. Adult: 653 → 626 cells (minimum ≥ 576).

Bound. Every record of a class smaller than k must lose at least one cell in any solution (kept
whole, its class in the release holds only its own unblanked copies, fewer than k), and any
solution with a blank puts it in a group of at least k blanked records; so OPT ≥ max(U, k) where
U is the number of records in classes smaller than k. Today's routine blanks only those U
records plus at most k − 1 padding records, each in at most m cells (m quasi-identifiers):
``cells ≤ m · (U + k − 1) < 2m · OPT`` (padding takes at most k − 1 records when some group
has them to spare; under ``suppressed_records: star`` the bound holds unless the second stage
had to be rerun without its budget to stay within the suppression limit), and the release
never blanks more than today's routine. The tests check the bound by brute force on tiny tables.

The report's ``metrics`` describe the release written, not the starting node
(``release_metrics``): ARX's ``loss`` and Sweeney's ``prec`` with a ``*`` cell costing 1,
``n_classes``, and ``aecs`` / ``discernibility`` with the class sizes the policy's
``suppressed_cells`` reads (effective sizes under ``wildcard``).

Other models: only k-anonymity is enforced; the other models are refused with one line (blanking
changes no sensitive value, so l-diversity or t-closeness could only be reached by blanking
further towards whole classes, which is record suppression: use a full-domain search).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np

from privcheck.anonymizers.base import Anonymizer, check_possible, suppression_limit_records
from privcheck.classes import ClassTable, count, group, people_per_group, row_classes
from privcheck.encoding import EncodedTable, string_labels
from privcheck.errors import PolicyError
from privcheck.hookspecs import hookimpl
from privcheck.limits import BLANKING_PATTERNS
from privcheck.plan import SUPPRESSED, CombinationRecoding, Plan
from privcheck.policy import Policy
from privcheck.wildcard import star_codes


class LocalSuppression(Anonymizer):
    name = "local-suppression"
    summary = "blank the fewest quasi-identifier cells ('*') so k-anonymity holds"
    #: the models blanking cells can enforce
    enforced: ClassVar[frozenset[str]] = frozenset({"k-anonymity"})
    engine_release: ClassVar[bool] = True
    #: counting people, it blanks a class's people (each person's records in it alike) and
    #: then suppresses whole people wherever a released row holds fewer than k of them
    #: (``people_blanking``), within the suppression limit or not at all
    counts_people: ClassVar[bool] = True
    checks_own: ClassVar[frozenset[str]] = frozenset({"polish", "importance", "node"})

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        return {"importance": None, "node": None, "generalize_first": False, "polish": 0}

    def plan(
        self,
        encoded: EncodedTable | None,
        policy: Policy,
        *,
        rows: Any = None,
        seed: int | None = None,
        previous: dict[str, int] | None = None,
        progress: Any = None,
        lower: Any = None,
    ) -> Plan:
        """Blank on the class table: a ``CombinationRecoding`` whose groups are the classes at
        the starting node and whose units are their records' blanked rows."""
        started = time.perf_counter()
        self.refuse_unsupported(policy)
        k = self.required_k(policy)
        if previous is not None:
            raise PolicyError("local-suppression does not take a previous release; leave it out")
        polish_rounds = self.params["polish"]
        if type(polish_rounds) is not int or polish_rounds < 0:
            raise PolicyError(
                f"polish must be a number of neighbourhoods, 0 or more (--param polish=12); "
                f"got {polish_rounds!r}"
            )
        check_possible(encoded, policy)
        bound_patterns(len(encoded.quasi_identifiers))
        node = self.start_node(encoded, policy, k)
        table = count(encoded, node, track_records=True)
        importance = self.importance_rank(encoded, table)
        limit = suppression_limit_records(policy, encoded.n_records)
        star_mode = policy.suppressed_records == "star"
        people = None
        if encoded.individual is None:
            prob, units = solve(
                table, k, importance, star_mode=star_mode, limit=limit, polish_rounds=polish_rounds
            )
        else:  # units count people: spread them over records, people kept whole
            prob, units, people = solve_people(
                table, k, importance, star_mode=star_mode, limit=limit, polish_rounds=polish_rounds
            )
        weighted = units if people is None else people.units
        blanked = unit_blanks(prob, weighted)  # units × quasi-identifiers: cells blanked
        extra = 0 if people is None else people.n_suppressed  # (a suppressed record's cells)
        per = {
            n: int(weighted.sizes @ blanked[:, j]) + extra for j, n in enumerate(encoded.qi_names)
        }
        n_blanked = sum(per.values())
        full_units = units.pat == prob.full if prob.m else np.zeros(len(units.sizes), bool)
        n_full = int(units.sizes[full_units].sum()) if people is None else 0
        if policy.suppressed_records == "star" and n_full > limit:
            raise PolicyError(
                f"local suppression must blank every quasi-identifier of {n_full} records, which "
                f"suppressed_records: star counts as suppressed records, over the limit of "
                f"{limit}; raise suppression_limit, use suppressed_records: remove, or combine "
                "with a node (--param generalize_first=true)"
            )
        wildcard = policy.suppressed_cells == "wildcard"
        if people is None:
            metrics = release_metrics(table, prob, units, wildcard=wildcard)
            per_attribute = blanked_loss_by_attribute(table, prob, units)
            gsize, effective, n_sup = released_classes(prob, units, wildcard=wildcard)
            n_suppressed = n_full if star_mode else 0
            row_group = table.record_class
            if row_group is None:  # an engine's counts: the class of every aggregated row
                row_group = row_classes(encoded, node)
            recoding = CombinationRecoding(
                list(encoded.qi_names),
                row_group,
                units.parent,
                units.sizes,
                released_label_columns(table, units, blanked, prob),
                suppressed_units=full_units if star_mode and prob.m else None,
                # a check of a release entirely '*' judges it as one class, suppressed included
                starred_kept=bool(star_mode and prob.m and full_units[units.sizes > 0].all()),
                count_changed=True,
            )
        else:
            metrics = people_metrics(table, prob, people)
            share = people.n_suppressed / max(table.n_records, 1)
            per_attribute = {
                name: value + share
                for name, value in blanked_loss_by_attribute(table, prob, weighted).items()
            }
            gsize, effective = people.group_records, people.group_people
            n_sup = n_suppressed = people.n_suppressed
            recoding = people_recoding(table, prob, units, people, star_mode)
        report = {
            "algorithm": self.name,
            "parameters": {
                **self.params,
                "importance": [encoded.qi_names[j] for j in np.argsort(-importance)],
                "k": k,
                "models": [{"model": m.model, **m.params()} for m in policy.models],
                "suppression_limit": policy.suppression_limit,
                "suppression_limit_records": limit,
                "suppressed_records": policy.suppressed_records,
                "suppressed_cells_semantics": policy.suppressed_cells,
                "seed_given": None,
                "keep_order": None,
            },
            "quasi_identifiers": encoded.qi_names,
            "node": {n: int(v) for n, v in zip(encoded.qi_names, node, strict=True)},
            "n_records": encoded.n_records,
            "n_kept": encoded.n_records - n_suppressed,
            "n_suppressed": n_suppressed,
            "metrics": metrics,
            "loss_by_attribute": per_attribute,
            "suppressed_cells": {"per_attribute": per, "total": n_blanked},
        }
        return Plan(
            algorithm=self.name,
            recoding=recoding,
            report=report,
            metrics=metrics,
            n_classes=len(gsize),
            n_suppressed=n_sup,
            suppressed_cells=n_blanked,  # (a suppressed record's cells are blanked)
            class_sizes=np.asarray(effective, dtype=np.int64),
            class_records=np.asarray(gsize, dtype=np.int64),
            seconds=time.perf_counter() - started,
            ground_table=table,
        )

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
            unsafe = int(t.sizes[t.subjects < k].sum())
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
        if not isinstance(given, list | tuple) or sorted(map(str, given)) != sorted(names):
            raise PolicyError(
                f"importance must list every quasi-identifier once, most important first "
                f"({', '.join(names)}); got {given!r}"
            )
        position = {str(n): i for i, n in enumerate(given)}
        return np.array([m - 1 - position[n] for n in names], dtype=np.int64)


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


def solve(
    table: ClassTable,
    k: int,
    importance: np.ndarray,
    *,
    star_mode: bool,
    limit: int = 0,
    polish_rounds: int = 0,
) -> tuple[Problem, Units]:
    """The blanking of ``table`` (see the module docstring): the best of today's routine and the
    greedy with partial padding (from the first stage's result and from nothing), each also
    refined; the exact integer program instead when the class table is small, else the best
    polished."""
    prob = problem(table, k, importance, star_mode=star_mode, limit=limit)
    m = prob.m
    if m == 0 or table.n_records == 0:
        return prob, prob.start()
    first = first_stage(prob)
    candidates = [today(prob, first)]  # today's routine first: ties keep it
    for start in (first, prob.already):
        for last in (False, True) if star_mode else (False,):
            candidates.append(
                finish_leftovers(prob, greedy(prob, prob.start(start), suppress_last=last))
            )
    candidates = candidates + [refine(prob, c) for c in candidates]
    exact = exact_minimum(prob)
    if exact is not None:
        candidates.append(exact)
    best = min(candidates, key=prob.score)
    if exact is None and polish_rounds:
        polished = polish(prob, best, polish_rounds)
        if prob.score(polished) < prob.score(best):
            best = polished
    return prob, best


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


def solve_people(
    table: ClassTable,
    k: int,
    importance: np.ndarray,
    *,
    star_mode: bool,
    limit: int,
    polish_rounds: int = 0,
) -> tuple[Problem, Units, PeopleBlanks]:
    """``solve`` on a table counted in people, made safe for people (``people_blanking``).

    A person with records in R classes can put R pairs into one released row, so a row of k
    pairs may hold fewer than k people. The blanking is first asked for k pairs per row; when
    making that safe would suppress more than the limit allows, it is asked for 2k, 4k … pairs
    and at last for k·R (R: the most classes one person has records in), where every row of
    k·R pairs holds at least k people and nobody needs suppressing."""
    m = table.members
    assert m is not None
    most = int(np.bincount(m.pair_person).max()) if len(m.pair_person) else 1
    cap = max(int(table.subjects.sum()), 1)
    factors, f = [], 1
    while f < most:
        factors.append(f)
        f *= 2
    factors.append(most)
    failure: PolicyError | None = None
    for factor in factors:
        asked = min(k * factor, cap)
        prob, units = solve(
            table, asked, importance, star_mode=star_mode, limit=limit,
            polish_rounds=polish_rounds,
        )  # fmt: skip
        try:
            return prob, units, people_blanking(table, prob, units, k=k, limit=limit)
        except PolicyError as exc:
            failure = exc
        if asked == cap:
            break
    assert failure is not None
    raise failure


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


def today(prob: Problem, pat: np.ndarray) -> Units:
    """The routine before partial padding (kept as a candidate, so no table is blanked more than
    it was): the first stage's leftovers blanked entirely and padded with whole rows of '*', or
    first merged with whole larger groups; the cheaper."""
    keys, sizes, k, m, full = prob.keys, prob.sizes, prob.k, prob.m, prob.full
    star_mode, importance, limit, groups = prob.star_mode, prob.importance, prob.limit, prob.groups
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
                kk, ss, pp, parents = _pad(kk, ss, pp, parent, k, full, groups)
        cells = int((ss * ((pp[:, None] >> shifts) & 1).sum(axis=1)).sum())
        over = max(0, int(ss[pp == full].sum()) - limit) if star_mode else 0
        return Units(kk, ss, pp, parents), (over, cells)

    options = [
        finish(pat),
        finish(_merge(pat.copy(), keys, sizes, k, m, full, star_mode, importance, groups)),
    ]
    if min(o[1][0] for o in options) > 0:  # star mode over the limit: merge at any cost
        unbounded = _merge(pat.copy(), keys, sizes, k, m, full, star_mode, importance, groups, None)
        options.append(finish(unbounded))
    units = min(options, key=lambda r: r[1])[0]
    live = units.sizes > 0
    return Units(units.keys[live], units.sizes[live], units.pat[live], units.parent[live])


def _group_view(
    prob: Problem, u: Units
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(group of each unit, size, pattern and released key of each group, which groups are the
    suppressed records — ``star`` mode's all-'*' rows, exempt from k)."""
    inverse, gsize = prob.groups(u.pat, u.keys, u.sizes)
    first = _firsts(inverse, len(gsize))
    gpat = u.pat[first]
    gkey = prob.released(gpat, u.keys[first])
    exempt = (gpat == prob.full) if prob.star_mode else np.zeros(len(gsize), dtype=bool)
    return inverse, gsize, gpat, gkey, exempt


def greedy(prob: Problem, u: Units, *, suppress_last: bool = False) -> Units:
    """Fix the groups smaller than k, the move of least cost per record fixed first. A move picks
    a pattern and a released row of it: every small group that refines that row is blanked to
    it, and when they and the row's own records are fewer than k the row is filled with the
    cheapest records other groups can spare (a group larger than k gives up to its surplus,
    blanked to the row: the partial padding) or, if cheaper, one whole group.

    Every (group, pattern) pair of the rows holding a small group is scored at once; the moves
    of the round's least cost per record that share no group are applied together.
    ``suppress_last`` (``star`` mode): blanking records entirely — suppressed records, which
    the limit rations — only when no other move is left."""
    k, full = prob.k, prob.full
    u = Units(u.keys, u.sizes.copy(), u.pat.copy(), u.parent.copy())
    order = np.array([*pattern_order(prob.importance), full], dtype=np.int64)
    # each class's released row under every pattern (global row ids, pattern by pattern in
    # ``order``): a group that a pattern covers reaches the row of any of its classes
    row_of = np.empty((len(order), len(prob.sizes)), dtype=np.int64)
    offset = 0
    for i, p in enumerate(order.tolist()):
        free = [j for j in range(prob.m) if not p >> j & 1]
        if free:
            r, n_r = group([prob.keys[:, j] for j in free], [prob.radix[j] for j in free])
        else:
            r, n_r = np.zeros(len(prob.sizes), dtype=np.int64), 1
        row_of[i] = r + offset
        offset += n_r
    n_rows_all = offset
    while True:
        inverse, gsize, gpat, _, exempt = _group_view(prob, u)
        unsafe = (gsize < k) & ~exempt
        if not unsafe.any():
            return u
        room = prob.limit - int(gsize[exempt].sum())
        first = _firsts(inverse, len(gsize))
        covers = (gpat[None, :] & ~order[:, None]) == 0  # patterns × groups
        rows = row_of[:, u.parent[first]]
        relevant = np.zeros(n_rows_all, dtype=bool)
        relevant[rows[:, unsafe][covers[:, unsafe]]] = True
        pi, gi = np.nonzero(covers & relevant[rows])
        compact = np.cumsum(relevant) - 1
        row = compact[rows[pi, gi]]
        n_rows = int(relevant.sum())
        p = order[pi]
        size = gsize[gi]
        small = unsafe[gi]
        add = np.bitwise_count(p & ~gpat[gi]).astype(np.int64)
        fixed = np.bincount(row, weights=size * small, minlength=n_rows)
        cost = np.bincount(row, weights=size * small * add, minlength=n_rows)
        row_p = np.zeros(n_rows, dtype=np.int64)
        row_p[row] = p
        exempt_row = (row_p == full) if prob.star_mode else np.zeros(n_rows, dtype=bool)
        same = ~small & (gpat[gi] == p)
        need = np.maximum(k - fixed - np.bincount(row, weights=size * same, minlength=n_rows), 0)
        need[exempt_row] = 0
        donor = np.flatnonzero(~small & ~same & ~exempt_row[row])
        o = donor[np.lexsort((add[donor], row[donor]))]  # by row, cheapest first
        dr, surplus, dadd = row[o], size[o] - k, add[o]
        before = np.cumsum(surplus) - surplus
        before -= before[np.searchsorted(dr, dr)]  # surplus of cheaper donors of the same row
        take = np.clip(need[dr] - before, 0, surplus)
        avail = np.bincount(dr, weights=surplus, minlength=n_rows)
        partial = np.where(
            avail >= need, np.bincount(dr, weights=take * dadd, minlength=n_rows), np.inf
        )
        whole = np.full(n_rows, np.inf)
        np.minimum.at(whole, dr, size[o] * dadd)
        cost = cost + np.where(need > 0, np.minimum(partial, whole), 0.0)
        ok = np.isfinite(cost) & (~exempt_row | (fixed <= room))
        if not ok.any():  # star mode, no room left under the limit
            return u
        ratio = np.where(ok, cost / np.maximum(fixed, 1), np.inf)
        if suppress_last and (ok & ~exempt_row).any():
            ratio[exempt_row] = np.inf
        # the moves of least cost per record, in pattern order (cheapest patterns first)
        chosen = np.flatnonzero(ratio <= ratio.min()).tolist()
        # the pairs row by row, to read each chosen move's groups
        by_row = np.argsort(row, kind="stable")
        bounds = np.searchsorted(row[by_row], np.arange(n_rows + 1))
        dbounds = np.searchsorted(dr, np.arange(n_rows + 1))
        touched = np.zeros(len(gsize), dtype=bool)
        moves = []
        spent = 0
        for b in chosen:
            pairs = by_row[bounds[b] : bounds[b + 1]]
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
            u = _apply(u, inverse, p_b, moved, dg, dt)


def _apply(
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
    inverse, gsize, _, _, exempt = _group_view(prob, u)
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
        inverse, gsize, _, gkey, exempt = _group_view(prob, u)
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


#: the exact integer program is tried on the whole class table when it has at most this many
#: (class, pattern) pairs; a result is trusted only when proven optimal within this many
#: branch-and-bound nodes (a node limit, not a time limit: the release must not depend on the
#: machine's speed)
EXACT_MAX_PAIRS = 600
EXACT_NODE_LIMIT = 500
#: the size of a neighbourhood ``polish`` re-solves exactly, in (class, pattern) pairs
POLISH_PAIRS = 600


def exact_minimum(prob: Problem) -> Units | None:
    """The fewest cells by integer programming, or None when the class table is too large or
    the optimum is not proven within the node limit."""
    everything = np.arange(len(prob.sizes))
    if _pairs(prob, everything) > EXACT_MAX_PAIRS:
        return None
    return _milp(prob, everything, None)


def _pairs(prob: Problem, classes: np.ndarray) -> int:
    """(class, pattern) pairs of ``classes``: each may blank any of its cells not yet '*'."""
    free = prob.m - np.bitwise_count(prob.already[classes]).astype(np.int64)
    return int((np.int64(1) << free).sum())


def polish(prob: Problem, u: Units, rounds: int) -> Units:
    """Re-solve neighbourhoods exactly: the classes of the group whose records lose the most cells
    and the classes nearest them (fewest differing cells, up to ``POLISH_PAIRS`` (class, pattern)
    pairs) are freed, every other unit stays where it is, and the integer program places the
    freed classes' records at least cost. The current placement is one of its solutions, so a
    round never costs cells; each group is a seed once (named by its first class)."""
    tried = np.zeros(len(prob.sizes), dtype=bool)
    index = np.arange(len(prob.sizes))
    for _ in range(rounds):
        inverse, gsize, gpat, _, _ = _group_view(prob, u)
        head = np.full(len(gsize), len(prob.sizes), dtype=np.int64)
        np.minimum.at(head, inverse, u.parent)
        per = np.bitwise_count(gpat & ~prob.already[head]).astype(np.int64)
        open_ = np.flatnonzero((per > 1) & ~tried[head])
        if not len(open_):
            return u
        seed = int(open_[np.lexsort((head[open_], -per[open_]))[0]])
        tried[head[seed]] = True
        own = prob.keys[np.unique(u.parent[inverse == seed])]
        distance = (prob.keys[:, None, :] != own[None, :, :]).sum(axis=2).min(axis=1)
        near = np.lexsort((index, distance))
        weight = np.int64(1) << (prob.m - np.bitwise_count(prob.already[near]).astype(np.int64))
        free = np.sort(near[np.cumsum(weight) <= POLISH_PAIRS])
        if not len(free):
            continue
        out = np.isin(u.parent, free)
        fixed = Units(u.keys[~out], u.sizes[~out], u.pat[~out], u.parent[~out])
        now = Units(u.keys[out], u.sizes[out], u.pat[out], u.parent[out])
        placed = _milp(prob, free, fixed)
        if placed is not None and prob.cells(placed) < prob.cells(now):
            u = Units(
                np.vstack([fixed.keys, placed.keys]),
                np.concatenate([fixed.sizes, placed.sizes]),
                np.concatenate([fixed.pat, placed.pat]),
                np.concatenate([fixed.parent, placed.parent]),
            )
    return u


def _firsts(inverse: np.ndarray, n_groups: int) -> np.ndarray:
    """A unit of each group (its first)."""
    first = np.zeros(n_groups, dtype=np.int64)
    first[inverse[::-1]] = np.arange(len(inverse) - 1, -1, -1)
    return first


def _milp(prob: Problem, free: np.ndarray, fixed: Units | None) -> Units | None:
    """The least-cost placement of the records of the classes ``free``, the units ``fixed``
    staying where they are (scipy's HiGHS), or None when not proven optimal within the node
    limit (or infeasible: ``star`` mode over the limit).

    x[c, P]: records of class c released with pattern P; y[r]: released row r is used. Each
    class's records are all released; a used row holds ≥ k records, the fixed ones included (a
    row a fixed unit already uses must be used); ``star`` mode: the all-'*' row is exempt and
    holds at most ``limit``; cost Σ |P \\ already-'*'| · x."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_matrix, vstack

    m, k = prob.m, prob.k
    pats = np.arange(1 << m, dtype=np.int64)
    allowed = (pats[None, :] & prob.already[free, None]) == prob.already[free, None]
    which, pi = np.nonzero(allowed)
    cls, p = free[which], pats[pi]
    released = prob.released(p, prob.keys[cls])
    n_fixed = 0 if fixed is None else len(fixed.sizes)
    if n_fixed:
        released = np.vstack([released, prob.released(fixed.pat, fixed.keys)])
    row, n_rows = group([released[:, j] for j in range(m)], prob.radix)
    there = np.zeros(n_rows)  # records the fixed units hold in each row
    if n_fixed:
        there = np.bincount(row[len(cls) :], weights=fixed.sizes, minlength=n_rows)
        row = row[: len(cls)]
    exempt = (p == prob.full) if prob.star_mode else np.zeros(len(cls), dtype=bool)
    room = float(prob.limit)
    if prob.star_mode and n_fixed:
        room -= float(fixed.sizes[fixed.pat == prob.full].sum())
    # a row that the classes reaching it cannot fill to k is never used
    reach = np.bincount(row, weights=prob.sizes[cls], minlength=n_rows) + there
    keep = exempt | (reach[row] >= k)
    cls, p, exempt, row = cls[keep], p[keep], exempt[keep], row[keep]
    live = np.flatnonzero(~exempt)
    rows, row_live = np.unique(row[live], return_inverse=True)
    nx, ny = len(cls), len(rows)
    size = prob.sizes[cls].astype(np.float64)
    n_free = len(free)
    slot = np.searchsorted(free, cls)
    blocks = [
        coo_matrix((np.ones(nx), (slot, np.arange(nx))), shape=(n_free, nx + ny)),  # = size
        coo_matrix(  # x − size · y ≤ 0
            (
                np.concatenate([np.ones(len(live)), -size[live]]),
                (np.tile(np.arange(len(live)), 2), np.concatenate([live, nx + row_live])),
            ),
            shape=(len(live), nx + ny),
        ),
        coo_matrix(  # Σ x + fixed − k · y ≥ 0
            (
                np.concatenate([np.ones(len(live)), np.full(ny, -float(k))]),
                (
                    np.concatenate([row_live, np.arange(ny)]),
                    np.concatenate([live, nx + np.arange(ny)]),
                ),
            ),
            shape=(ny, nx + ny),
        ),
    ]
    total = prob.sizes[free].astype(np.float64)
    lo = [total, np.full(len(live), -np.inf), -there[rows]]
    hi = [total, np.zeros(len(live)), np.full(ny, np.inf)]
    if prob.star_mode:
        blocks.append(
            coo_matrix(np.concatenate([exempt, np.zeros(ny)]).astype(np.float64)[None, :])
        )
        lo.append(np.zeros(1))
        hi.append(np.full(1, room))
    cost = np.concatenate([np.bitwise_count(p & ~prob.already[cls]), np.zeros(ny)])
    y_lo = (there[rows] > 0).astype(np.float64)  # a row fixed records use stays in use
    result = milp(
        cost.astype(np.float64),
        integrality=np.ones(nx + ny),
        bounds=Bounds(np.concatenate([np.zeros(nx), y_lo]), np.concatenate([size, np.ones(ny)])),
        constraints=LinearConstraint(
            vstack(blocks).tocsr(), np.concatenate(lo), np.concatenate(hi)
        ),
        options={"node_limit": EXACT_NODE_LIMIT},
    )
    if result.x is None:  # infeasible, or no solution within the node limit
        return None
    x = np.round(result.x[:nx]).astype(np.int64)
    take = x > 0
    return Units(prob.keys[cls[take]], x[take], p[take], cls[take])


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
        first = _firsts(inverse, len(gsize))
        gpat = u.pat[kept][first]
        effective = (
            _effective_sizes(prob, prob.released(gpat, u.keys[kept][first]), gpat, gsize)
            if wildcard
            else gsize
        )
    else:
        gsize = effective = np.full(int(kept.any()), int(u.sizes[kept].sum()))
    return gsize, effective, n_sup


def _effective_sizes(
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


@hookimpl
def privcheck_anonymizers() -> list[type]:
    return [LocalSuppression]
