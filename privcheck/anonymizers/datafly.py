"""DataFly (Sweeney 1998/2002): greedy full-domain generalization, then suppression.

Starting from the ungeneralized table, DataFly repeatedly generalizes the quasi-identifier with
the most distinct values (in the table as currently generalized) by one level, until the records
of the classes that still violate the policy fit the suppression budget; those are suppressed.
Ties go to the first quasi-identifier in policy order. It evaluates one node per step and makes
no optimality claim — it is the fast baseline, and the steps it took are reported as its path.
"""

from __future__ import annotations

import numpy as np

from privcheck.anonymizers.generalization import GeneralizationAnonymizer
from privcheck.anonymizers.problem import SearchProblem, SearchResult
from privcheck.hookspecs import hookimpl


class DataFly(GeneralizationAnonymizer):
    name = "datafly"
    summary = "greedy: generalize the attribute with the most distinct values, then suppress"
    pruning = False
    optimal = False
    exhaustive = False

    def search(self, problem: SearchProblem) -> SearchResult:
        lat = problem.lattice
        node = list(lat.bottom)
        path = [tuple(node)]
        steps = lat.max_height - sum(lat.bottom) + 1
        none = np.zeros(0, dtype=bool)  # a greedy search knows no node sets
        while True:
            outcome = problem.evaluate(tuple(node))
            problem.progress(len(path), steps)
            if outcome.satisfied:
                problem.progress(steps, steps)
                return SearchResult(none, none, tuple(node), outcome, path=path, exact=False)
            j = most_distinct(problem, tuple(node))
            if j is None:  # every attribute at its top and still failing
                return SearchResult(none, none, None, None, path=path, exact=False)
            node[j] += 1
            path.append(tuple(node))


def most_distinct(problem: SearchProblem, node: tuple[int, ...]) -> int | None:
    """The quasi-identifier with the most distinct values at ``node`` among those that can still
    be generalized (first in policy order on ties), or None."""
    table = problem.evaluator.table(node)
    best, best_count = None, -1
    for j, col in enumerate(problem.encoded.quasi_identifiers):
        if node[j] >= col.height:
            continue
        distinct = int(np.count_nonzero(np.bincount(table.keys[:, j], minlength=1)))
        if distinct > best_count:
            best, best_count = j, distinct
    return best


@hookimpl
def privcheck_anonymizers() -> list[type]:
    return [DataFly]
