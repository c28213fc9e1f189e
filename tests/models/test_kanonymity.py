"""k-anonymity against a brute-force grouping of the rows and the Samarati/Sweeney example."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcheck.checker import check_table
from privcheck.classes import count
from privcheck.encoding import encode
from privcheck.policy import parse_policy
from tests.conftest import EXAMPLES
from tests.models import bruteforce as bf
from tests.models.compare import (
    ADULT_QIS,
    adult_hierarchies,
    adult_policy,
    adult_rows,
    assert_agrees,
)

K_MODELS = [{"model": "k-anonymity", "k": k} for k in (2, 5, 10, 30162, 30163)]
#: bottom, top and a few nodes in between (age, sex, race, marital, education, country,
#: workclass, occupation; heights 4, 1, 1, 2, 3, 2, 2, 2)
ADULT_NODES = [
    (0, 0, 0, 0, 0, 0, 0, 0),
    (1, 0, 0, 1, 1, 1, 1, 0),
    (2, 1, 0, 1, 2, 2, 0, 1),
    (3, 1, 1, 2, 3, 2, 2, 2),
    (4, 1, 1, 2, 3, 2, 2, 2),
]


@pytest.fixture(scope="module")
def adult_encoded(adult_frame):
    policy = parse_policy(adult_policy(ADULT_QIS, "salary-class", K_MODELS))
    return encode(adult_frame, policy)


@pytest.mark.parametrize("node", ADULT_NODES)
def test_adult_k_matches_brute_force(adult_frame, adult_encoded, node):
    table = assert_agrees(
        adult_frame,
        adult_policy(ADULT_QIS, "salary-class", K_MODELS),
        adult_rows(),
        node=node,
        hierarchies=adult_hierarchies(),
        encoded=adult_encoded,
    )
    if node == ADULT_NODES[0]:
        # the published count: 18,109 classes over the 8 QIs, 14,021 of them unique
        assert table.n_classes == 18109
        assert int(np.count_nonzero(table.sizes == 1)) == 14021


def test_violators_list_exactly_their_rows(adult_frame, adult_encoded):
    """A violating class's records are the rows that generalize to its values, in input order."""
    node = (3, 1, 0, 1, 2, 1, 1, 1)
    policy = parse_policy(adult_policy(ADULT_QIS, "salary-class", [K_MODELS[2]]))
    report = check_table(count(adult_encoded, node), policy, max_violators=50)
    hier = {q: {r[0]: r for r in rows} for q, rows in adult_hierarchies().items()}
    generalized = {
        q: adult_frame[q].map(lambda v, q=q, lv=lv: hier[q][v][lv]).to_numpy()
        for q, lv in zip(ADULT_QIS, node, strict=True)
    }
    (result,) = report.models
    assert result.violators
    for v in result.violators:
        mask = np.logical_and.reduce([generalized[q] == v.values[q] for q in ADULT_QIS])
        assert v.size == mask.sum() < 10
        assert v.records == np.flatnonzero(mask).tolist()
    sizes = [v.size for v in result.violators]
    assert sizes == sorted(sizes)  # worst (smallest) first


@pytest.mark.parametrize("seed", range(12))
def test_random_tables_at_random_nodes(seed):
    rng = np.random.default_rng(seed)
    n, n_qi = int(rng.integers(1, 400)), int(rng.integers(1, 5))
    qis = [f"q{j}" for j in range(n_qi)]
    hierarchies = {
        q: bf.random_tree(
            rng,
            int(rng.integers(1, 9)),
            int(rng.integers(1, 4)),
            q,
            single_top=bool(rng.integers(2)),
        )
        for q in qis
    }
    frame = pd.DataFrame(
        {q: rng.choice([r[0] for r in hierarchies[q]], size=n) for q in qis}
    ).astype(str)
    frame["s"] = rng.choice(["x", "y"], size=n)
    node = tuple(int(rng.integers(0, len(hierarchies[q][0]))) for q in qis)
    policy = {
        "attributes": {
            **{
                q: {
                    "role": "quasi_identifier",
                    "hierarchy": {"type": "table", "rows": hierarchies[q]},
                }
                for q in qis
            },
            "s": {"role": "sensitive"},
        },
        "models": [{"model": "k-anonymity", "k": int(k)} for k in rng.integers(1, 12, size=3)],
    }
    assert_agrees(frame, policy, bf.rows_from_frame(frame), node=node, hierarchies=hierarchies)


@pytest.fixture(scope="module")
def race_zip():
    frame = pd.read_csv(EXAMPLES / "race_zip.csv", dtype=str)
    hier = EXAMPLES / "race_zip_hierarchies"
    policy = parse_policy(
        {
            "attributes": {
                q: {
                    "role": "quasi_identifier",
                    "hierarchy": {"type": "table", "path": str(hier / f"{q}.csv")},
                }
                for q in ("race", "zip")
            },
            "models": [{"model": "k-anonymity", "k": 2}],
        }
    )
    return encode(frame, policy), policy


@pytest.mark.parametrize(
    ("node", "k", "passed"),
    [
        ((0, 0), 1, False),  # the private table PT: every record is unique
        ((1, 0), 2, True),  # Race → Person: a k-minimal generalization
        ((0, 1), 2, True),  # ZIP → 0213*: the other k-minimal generalization
        ((0, 2), 4, True),  # 2-anonymous (but not minimal: it generalizes [0,1])
        ((1, 1), 4, True),
        ((2, 3), 8, True),
    ],
)
def test_samarati_sweeney_race_zip(race_zip, node, k, passed):
    enc, policy = race_zip
    (result,) = check_table(count(enc, node), policy).models
    assert (result.value, result.passed) == (k, passed)
