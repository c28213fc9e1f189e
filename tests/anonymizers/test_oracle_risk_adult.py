"""Adult under average-risk ≤ 0.05, record-risk 0.2 and k-map 5 against a population of Adult's
counts resampled 4.6×: Incognito and MinGen find the optimum a brute-force lattice search finds,
and the release re-checks.

The brute force is pure pandas: each node's released values come from the ARX hierarchy files
read here, the data and the population are grouped on them, and the suppression semantics (the
classes violating a per-class model go, then the smallest classes until the average risk of the
kept ones is ≤ t) decide the node. The population is each combination's Adult count plus a
Poisson(3.6 × count) draw (fixed seed): it contains every Adult record and is 4.6× Adult in
expectation.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from anon_helpers import ADULT, adult_policy

from privcheck.metrics.generalization import precision
from privcheck.pipeline.anonymize import anonymize
from privcheck.pipeline.check import check

QIS = ["age", "sex", "race", "marital-status"]
LIMIT = 0.005
MODELS = [
    {"model": "average-risk", "threshold": 0.05},
    {"model": "record-risk", "threshold": 0.2},
    {"model": "k-map", "k": 5},
]


@pytest.fixture(scope="module")
def setup(adult_frame, tmp_path_factory):
    rng = np.random.default_rng(46)
    counts = adult_frame.groupby(QIS).size().rename("n").reset_index()
    counts["n"] = counts["n"] + rng.poisson(3.6 * counts["n"].to_numpy())
    path = tmp_path_factory.mktemp("population") / "population.csv"
    counts.to_csv(path, index=False)
    policy = adult_policy(
        QIS, "salary-class", MODELS, LIMIT, population={"path": str(path), "count_column": "n"}
    )
    return policy, counts


def _levels(q: str) -> list[dict[str, str]]:
    text = (ADULT / "hierarchies" / f"{q}.csv").read_text()
    rows = [line.split(";") for line in text.splitlines() if line.strip()]
    return [{r[0]: r[level] for r in rows} for level in range(len(rows[0]))]


def _brute(data: pd.DataFrame, pop: pd.DataFrame, limit: int):
    maps = {q: _levels(q) for q in QIS}
    heights = tuple(len(maps[q]) - 1 for q in QIS)
    best = None
    n_sat = 0
    for node in itertools.product(*(range(h + 1) for h in heights)):
        key_d = [data[q].astype(str).map(maps[q][lvl]) for q, lvl in zip(QIS, node, strict=True)]
        key_p = [pop[q].astype(str).map(maps[q][lvl]) for q, lvl in zip(QIS, node, strict=True)]
        f = data.groupby(key_d).size()
        big = pop.groupby(key_p)["n"].sum()
        big = big.reindex(f.index)
        ok = (1 / f <= 0.2) & (big >= 5)
        # average-risk on the whole table: smallest classes first until #classes/n ≤ 0.05
        sizes = np.sort(f.to_numpy())
        m = next(
            m
            for m in range(len(sizes) + 1)
            if m == len(sizes) or (len(sizes) - m) / sizes[m:].sum() <= 0.05
        )
        small = f.sort_values(kind="stable").index[:m] if m else []
        ok[small] = False
        # then again on the kept classes until nothing changes
        while ok.any():
            kept = np.sort(f[ok].to_numpy())
            if len(kept) / kept.sum() <= 0.05:
                break
            m = next(
                m
                for m in range(len(kept) + 1)
                if m == len(kept) or (len(kept) - m) / kept[m:].sum() <= 0.05
            )
            ok[f[ok].sort_values(kind="stable").index[:m]] = False
        suppressed = int(f[~ok].sum())
        if suppressed <= limit and ok.any():
            n_sat += 1
            prec = precision(node, heights, len(data), suppressed)
            if best is None or prec > best[0] + 1e-12:
                best = (prec, node, suppressed)
    return n_sat, best


@pytest.mark.parametrize("algorithm", ["incognito", "mingen"])
def test_optimum_matches_brute_force(setup, adult_frame, algorithm):
    policy, pop = setup
    limit = int(np.floor(LIMIT * len(adult_frame) + 1e-9))
    n_sat, (prec, node, suppressed) = _brute(adult_frame, pop, limit)
    release, report = anonymize(adult_frame, policy, algorithm)
    assert report.satisfying_nodes == n_sat
    assert tuple(report.node.values()) == node
    assert report.metrics["prec"] == pytest.approx(prec, abs=1e-12)
    assert report.n_suppressed == suppressed
    assert report.check.passed
    # the release, re-read as a user would, re-checks under the same plugins
    recheck = check(release, policy)
    assert recheck.passed, [(m.model, m.value) for m in recheck.models]
    kmap = next(m for m in recheck.models if m.model == "k-map")
    assert kmap.value >= 5


def test_datafly_release_rechecks(setup, adult_frame):
    policy, _ = setup
    release, report = anonymize(adult_frame, policy, "datafly")
    assert report.check.passed
    assert check(release, policy).passed
