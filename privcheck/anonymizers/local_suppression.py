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

1. The whole-row routine (``whole_row_routine``; the release before issue 24, kept so that no
   table is blanked more than it was — it wins ties). Patterns are tried cheapest first (fewest
   cells, then sparing the important quasi-identifiers, ``importance``); the classes of groups
   smaller than k move to a pattern when their group there reaches k (``first_stage``).
   Leftovers are blanked entirely — under ``star`` suppressed records, otherwise the all-``*``
   class, padded to k with whole rows of ``*`` (``pad_starred_class``) — or first merged with
   whole larger groups (``merge_whole_groups``); the cheaper.
2. The greedy with partial padding (``greedy``), started from the first stage's result and
   from nothing. A move is a pattern and one released row of it: every small group refining the
   row is blanked to it, and when they and the row's own records are fewer than k the row is
   filled with the cheapest records larger groups can spare (their surplus over k, blanked only
   to the row's pattern — the partial pattern the whole-row routine never pads at: (a,x) + 3×(a,y),
   k = 2, blanks the x and one y, 2 cells, where padding with whole rows of ``*`` costs 4), or
   with one whole group when cheaper. The moves of least cost per record fixed go first (those
   of a round that share no group together); every (group, pattern) pair is scored at once.
3. Each of these refined (``refine``): records of a unit take back one blanked cell while
   their group keeps ≥ k records (or none) and the row they reach holds ≥ k.
4. The exact minimum by integer programming on the whole class table (``whole_minimum``,
   HiGHS through ``highspy``) when it has at most ``EXACT_MAX_PAIRS`` (class, pattern) pairs,
   started from the best of the above and stopped after a time budget (``exact_seconds``:
   ``EXACT_SECONDS_SMALL`` on tables of at most ``SMALL_TABLE`` records, else 4–8 s growing
   with the program, none above ``LARGE_TABLE`` records unless asked for); it is skipped when
   the best already meets the trivial bound. Inside the budget: the linear relaxation (a
   bound), the relaxation rounded (a start), a ladder of programs restricted to the pairs the
   relaxation and the known blankings use, then the whole program. A table of more than
   ``CHUNK_PAIRS`` pairs (800 rows of 6 quasi-identifiers), whose relaxation alone outlasts
   the budget, is cut into chunks of similar records solved one by one and joined
   (``chunked_minimum``). With ``polish=N``, when the count is not proven
   minimal, N neighbourhoods of the best (the classes of its most expensive groups and their
   nearest classes) re-solved exactly with everything else fixed (``polish``).

Optimality (the report's ``suppressed_cells``): ``optimal`` is true only when the count is
proven the fewest — it equals the trivial bound below, or HiGHS finished its search and its dual
bound rounds up to the count; otherwise ``lower_bound`` is the best bound proven (HiGHS's dual
bound, or the trivial one) and ``optimality_gap`` is (total − lower_bound) / total. A solve cut
short by the budget makes the release depend on the machine's speed; the flag says so.

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

Where it lives: this module holds the planner and ``solve`` (which candidates, in which order);
``blanking_search`` the problem and the heuristics, ``blanking_exact`` the integer programs,
``blanking_release`` what a solution releases (its recoding, metrics, and people).

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
from privcheck.anonymizers.blanking_exact import pattern_pairs, polish, whole_minimum
from privcheck.anonymizers.blanking_release import (
    PeopleBlanks,
    blanked_loss_by_attribute,
    people_blanking,
    people_metrics,
    people_recoding,
    release_metrics,
    released_classes,
    released_label_columns,
    unit_blanks,
)
from privcheck.anonymizers.blanking_search import (
    Problem,
    Units,
    bound_patterns,
    finish_leftovers,
    first_stage,
    greedy,
    greedy_both,
    problem,
    refine,
    whole_row_routine,
)
from privcheck.classes import ClassTable, count, row_classes
from privcheck.encoding import EncodedTable
from privcheck.errors import PolicyError
from privcheck.hookspecs import hookimpl
from privcheck.plan import CombinationRecoding, Plan
from privcheck.policy import Policy


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
    checks_own: ClassVar[frozenset[str]] = frozenset(
        {"polish", "importance", "node", "exact_seconds"}
    )

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        return {
            "importance": None,
            "node": None,
            "generalize_first": False,
            "polish": 0,
            "exact_seconds": None,
        }

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
        exact_seconds = self.params["exact_seconds"]
        if exact_seconds is not None and (
            isinstance(exact_seconds, bool)
            or not isinstance(exact_seconds, int | float)
            or not 0 <= exact_seconds <= 3600
        ):
            raise PolicyError(
                "exact_seconds must be the seconds the exact integer program may take, 0 to 3600 "
                f"(--param exact_seconds=4; 0: heuristics only); got {exact_seconds!r}"
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
            prob, units, proven = solve(
                table, k, importance, star_mode=star_mode, limit=limit,
                polish_rounds=polish_rounds, exact_seconds=exact_seconds,
            )  # fmt: skip
        else:  # units count people: spread them over records, people kept whole
            prob, units, people, proven = solve_people(
                table, k, importance, star_mode=star_mode, limit=limit,
                polish_rounds=polish_rounds, exact_seconds=exact_seconds,
            )  # fmt: skip
        weighted = units if people is None else people.units
        blanked = unit_blanks(prob, weighted)  # units × quasi-identifiers: cells blanked
        extra = 0 if people is None else people.n_suppressed  # (a suppressed record's cells)
        per = {
            n: int(weighted.sizes @ blanked[:, j]) + extra for j, n in enumerate(encoded.qi_names)
        }
        n_blanked = sum(per.values())
        if people is not None:
            proven = Optimality(
                proven.bound is not None and n_blanked <= proven.bound, proven.bound
            )
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
            "suppressed_cells": {
                "per_attribute": per,
                "total": n_blanked,
                **optimality_keys(n_blanked, proven),
            },
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


#: the exact integer program is tried on the whole class table when it has at most this many
#: (class, pattern) pairs (``privcheck.anonymizers.blanking_exact``); above it the model alone
#: would cost more than the heuristics
EXACT_MAX_PAIRS = 60_000
#: seconds HiGHS may spend on the whole table (``exact_seconds``): small tables get a short
#: budget so that ``auto`` stays fast on them; larger ones, where the heuristics fall furthest
#: from the minimum, a longer one
EXACT_SECONDS_SMALL = 0.6
EXACT_SECONDS = 4.0
EXACT_SECONDS_MOST = 8.0
PAIRS_PER_SECOND = 3_000
#: above this many (class, pattern) pairs (on tables of at most ``LARGE_TABLE`` records) the
#: whole program is not solved but the table cut into chunks of about ``CHUNK_SIZE_PAIRS``
#: pairs, each solved on its own (``chunked_minimum``): at 800 rows of 6 quasi-identifiers
#: (35,000 pairs) the relaxation alone takes longer than 8 s. Larger tables (Adult) keep the
#: whole program when ``exact_seconds`` asks for it: their classes are few and large. The
#: whole program is still tried first, for ``RELAXATION_SHARE`` of the budget: when its
#: relaxation is solved by then (near-uniform tables of 5 quasi-identifiers: many classes, an
#: easy relaxation) the whole program goes on — it proves the minimum where chunks cannot
RELAXATION_SHARE = 0.35
#: above this many pairs (800 rows of 6 quasi-identifiers) the relaxation is not tried: the
#: chunks get the whole budget
CHUNK_ONLY_PAIRS = 30_000
CHUNK_PAIRS = 16_000
CHUNK_SIZE_PAIRS = 12_000
#: a table of at most this many records is small
SMALL_TABLE = 100
#: above this many records the whole-table program is left out unless asked for
#: (``exact_seconds``): on Adult (30,162 records, 8 quasi-identifiers) its relaxation alone takes
#: ~1.5 s, and 4 s bring 626 cells to 587 (bound 571) — a choice of time the caller makes
LARGE_TABLE = 2_000


@dataclass
class Optimality:
    """What is proven of a blanking's cells: ``optimal`` when no valid blanking blanks fewer;
    ``bound`` cells no valid blanking goes below."""

    optimal: bool
    bound: int | None


def optimality_keys(cells: int, proven: Optimality) -> dict[str, Any]:
    """The report's word on the count: ``optimal`` (true only when no valid blanking blanks
    fewer cells), ``lower_bound`` (cells every valid blanking blanks; null when nothing is
    proven) and ``optimality_gap``, (total − lower_bound) / total (0 when optimal, null when
    no bound)."""
    if proven.optimal:
        return {"optimal": True, "lower_bound": cells, "optimality_gap": 0.0}
    gap = None if proven.bound is None else round((cells - proven.bound) / max(cells, 1), 6)
    return {"optimal": False, "lower_bound": proven.bound, "optimality_gap": gap}


def exact_budget(n_records: int, pairs: int) -> float:
    """The default time budget of the whole-table integer program: short on small tables, else
    ``EXACT_SECONDS`` growing with the program (its relaxation alone takes ~2.5 s at 25,000
    (class, pattern) pairs) up to ``EXACT_SECONDS_MOST``; none on large tables."""
    if n_records <= SMALL_TABLE:
        return EXACT_SECONDS_SMALL
    if n_records > LARGE_TABLE:
        return 0.0
    return min(EXACT_SECONDS_MOST, max(EXACT_SECONDS, pairs / PAIRS_PER_SECOND))


def trivial_bound(prob: Problem) -> int:
    """Cells any valid blanking blanks: every record of a class smaller than k loses at least
    one cell it does not already have blanked (kept, its row holds its class alone); with no
    cell already '*' and outside ``star`` mode, those records' rows hold ≥ k blanked records."""
    small = (prob.sizes < prob.k) & (prob.already != prob.full)
    records = int(prob.sizes[small].sum())
    if records and not prob.star_mode and not prob.already.any():
        return max(records, prob.k)
    return records


def solve(
    table: ClassTable,
    k: int,
    importance: np.ndarray,
    *,
    star_mode: bool,
    limit: int = 0,
    polish_rounds: int = 0,
    exact_seconds: float | None = None,
) -> tuple[Problem, Units, Optimality]:
    """The blanking of ``table`` (see the module docstring): the best of today's routine and the
    greedy with partial padding (from the first stage's result and from nothing), each also
    refined; then the exact integer program on the whole table, started from that best, for
    ``exact_seconds`` (default ``exact_budget``; 0: none) when it has at most
    ``EXACT_MAX_PAIRS`` (class, pattern) pairs — above ``CHUNK_PAIRS`` only if its relaxation is
    solved within ``RELAXATION_SHARE`` of the budget, above ``CHUNK_ONLY_PAIRS`` not at all,
    the table being solved in chunks instead (``chunked_minimum``); polished when not proven
    optimal."""
    prob = problem(table, k, importance, star_mode=star_mode, limit=limit)
    m = prob.m
    if m == 0 or table.n_records == 0:
        return prob, prob.start(), Optimality(True, 0)
    best = heuristic_best(prob)
    bound = trivial_bound(prob)
    pairs = pattern_pairs(prob, np.arange(len(prob.sizes)))
    seconds = exact_budget(int(prob.sizes.sum()), pairs) if exact_seconds is None else exact_seconds
    if seconds > 0 and (prob.over(best) > 0 or prob.cells(best) > bound):
        started = time.perf_counter()
        chunks = pairs > CHUNK_PAIRS and table.n_records <= LARGE_TABLE
        if pairs <= (CHUNK_ONLY_PAIRS if chunks else EXACT_MAX_PAIRS):
            # a large table gets the whole program only if its relaxation is quickly solved
            exact = whole_minimum(
                prob, best, seconds, seconds * RELAXATION_SHARE if chunks else None
            )
            bound = max(bound, exact.bound)
            if exact.units is not None and prob.score(exact.units) < prob.score(best):
                best = exact.units
            chunks = chunks and not exact.relaxed
        if chunks:
            left = seconds - (time.perf_counter() - started)
            pieces = chunked_minimum(prob, left, -(-pairs // CHUNK_SIZE_PAIRS))
            if prob.score(pieces) < prob.score(best):
                best = pieces
    if prob.over(best) == 0 and prob.cells(best) > bound and polish_rounds:
        polished = polish(prob, best, polish_rounds)
        if prob.score(polished) < prob.score(best):
            best = polished
    cells = prob.cells(best)
    return prob, best, Optimality(prob.over(best) == 0 and cells <= bound, min(bound, cells))


def heuristic_best(prob: Problem) -> Units:
    """The best of the heuristics (steps 1–3 of the module docstring): today's routine, the
    greedy with partial padding from the first stage's result and from nothing, each refined;
    today's routine wins ties."""
    first = first_stage(prob)
    candidates = [whole_row_routine(prob, first)]  # today's routine first: ties keep it
    for start in (first, prob.already):
        if prob.star_mode:  # suppressed records taken in turn, or only when nothing else is left
            plain, last = greedy_both(prob, prob.start(start))
            runs = (plain,) if last is plain else (plain, last)
        else:
            runs = (greedy(prob, prob.start(start)),)
        candidates += [finish_leftovers(prob, run) for run in runs]
    candidates = candidates + [refine(prob, c) for c in candidates]
    return min(candidates, key=prob.score)


def chunked_minimum(prob: Problem, seconds: float, parts: int) -> Units:
    """A valid blanking of a table whose whole program is too large to solve in ``seconds``
    (its relaxation alone takes longer at 800 rows of 6 quasi-identifiers): the classes sorted
    by their values (the most important quasi-identifier first, so that a chunk holds similar
    records) and cut into ``parts`` chunks of about equal records, each blanked on its own —
    its heuristics, then its whole program for its share of the time left — and the blankings
    joined, then refined.

    The join is valid: a released row two chunks share holds ≥ k records from each, and
    under ``star`` the chunks' suppression limits add up to the table's. It is no minimum (rows
    across chunks are not tried), and proves nothing: a chunk's bound does not bound the
    table. Measured (``benchmarks/local_suppression_exact.py --hard``): on 800 rows of 6
    quasi-identifiers, k = 5, 1,234 → 1,167 cells, the relaxation's bound 1,091."""
    deadline = time.perf_counter() + seconds
    ranked = np.argsort(-prob.importance, kind="stable")  # most important first
    order = np.lexsort([prob.keys[:, j] for j in ranked[::-1]])
    records = np.cumsum(prob.sizes[order])
    total = int(records[-1])
    cuts = np.searchsorted(records, np.arange(1, parts) * total / parts, side="right")
    pieces: list[Units] = []
    limit_left = prob.limit
    for i, chunk in enumerate(np.split(order, cuts)):
        chunk = np.sort(chunk)
        if not len(chunk):
            continue
        share = int(prob.sizes[chunk].sum())
        limit = limit_left if i == parts - 1 else min(limit_left, prob.limit * share // total)
        sub = replace(
            prob,
            keys=prob.keys[chunk],
            sizes=prob.sizes[chunk],
            already=prob.already[chunk],
            limit=limit,
        )
        best = heuristic_best(sub)
        left = (deadline - time.perf_counter()) / (parts - i)
        if left > 0.02 and (sub.over(best) > 0 or sub.cells(best) > trivial_bound(sub)):
            exact = whole_minimum(sub, best, left)
            if exact.units is not None and sub.score(exact.units) < sub.score(best):
                best = exact.units
        limit_left -= min(limit_left, int(best.sizes[best.pat == prob.full].sum()))
        pieces.append(Units(best.keys, best.sizes, best.pat, chunk[best.parent]))
    joined = Units(
        np.vstack([u.keys for u in pieces]),
        np.concatenate([u.sizes for u in pieces]),
        np.concatenate([u.pat for u in pieces]),
        np.concatenate([u.parent for u in pieces]),
    )
    return refine(prob, joined)


def solve_people(
    table: ClassTable,
    k: int,
    importance: np.ndarray,
    *,
    star_mode: bool,
    limit: int,
    polish_rounds: int = 0,
    exact_seconds: float | None = None,
) -> tuple[Problem, Units, PeopleBlanks, Optimality]:
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
        prob, units, proven = solve(
            table, asked, importance, star_mode=star_mode, limit=limit,
            polish_rounds=polish_rounds, exact_seconds=exact_seconds,
        )  # fmt: skip
        try:
            people = people_blanking(table, prob, units, k=k, limit=limit)
            # a row of k people holds ≥ k (class, person) pairs, and a pair's cells are blanked
            # in each of its ≥ 1 records: the pairs' bound at k bounds the records' cells
            # (``plan`` compares); asked for more than k, nothing is proven
            return prob, units, people, Optimality(False, proven.bound if asked == k else None)
        except PolicyError as exc:
            failure = exc
        if asked == cap:
            break
    assert failure is not None
    raise failure


@hookimpl
def privcheck_anonymizers() -> list[type]:
    return [LocalSuppression]
