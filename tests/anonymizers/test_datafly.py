"""DataFly follows Sweeney's steps on a worked example traced by hand.

Ten records (birth date, ZIP, sex), k = 2, at most one record suppressed:

step 0 [0,0,0]  distinct: birth 10, zip 4, sex 2   violating records 10 → generalize birth
step 1 [1,0,0]  birth → month: 5 distinct           violating 2 (1965-05 F, 1965-05 M) → birth
step 2 [2,0,0]  birth → year: 2; zip 4              violating 2 (still) → generalize zip
step 3 [2,1,0]  zip → 0213* / 0214*                 violating 1 (1965, 0214*, M) ≤ 1 → suppress it
"""

from __future__ import annotations

import pandas as pd
import pytest

from privcheck.pipeline.anonymize import anonymize

FRAME = pd.DataFrame(
    {
        "birth": [
            "1964-09-27",
            "1964-09-30",
            "1964-04-18",
            "1964-04-15",
            "1964-03-13",
            "1964-03-18",
            "1965-09-13",
            "1965-09-07",
            "1965-05-14",
            "1965-05-05",
        ],
        "zip": [
            "02138",
            "02138",
            "02139",
            "02139",
            "02139",
            "02139",
            "02141",
            "02141",
            "02142",
            "02142",
        ],
        "sex": ["M", "M", "M", "M", "F", "F", "F", "F", "F", "M"],
        "problem": [
            "chest pain",
            "obesity",
            "short breath",
            "chest pain",
            "hypertension",
            "obesity",
            "chest pain",
            "obesity",
            "short breath",
            "hypertension",
        ],
    }
)
POLICY = {
    "attributes": {
        "birth": {
            "role": "quasi_identifier",
            "hierarchy": {"type": "dates", "levels": ["month", "year"]},
        },
        "zip": {"role": "quasi_identifier", "hierarchy": {"type": "masking", "levels": 2}},
        "sex": {
            "role": "quasi_identifier",
            "hierarchy": {"type": "table", "rows": [["F", "*"], ["M", "*"]]},
        },
        "problem": {"role": "sensitive"},
    },
    "models": [{"model": "k-anonymity", "k": 2}],
    "suppression_limit": 0.1,
}


def _path(report):
    return [tuple(step.values()) for step in report.path]


def test_sweeney_steps_with_suppression():
    release, report = anonymize(FRAME, POLICY, "datafly", keep_order=True)
    assert _path(report) == [(0, 0, 0), (1, 0, 0), (2, 0, 0), (2, 1, 0)]
    assert report.node == {"birth": 2, "zip": 1, "sex": 0}
    assert report.n_suppressed == 1 and report.nodes_evaluated == 4
    assert release["birth"].tolist() == ["1964"] * 6 + ["1965"] * 3
    assert release["zip"].tolist() == ["0213*"] * 6 + ["0214*"] * 3
    assert "hypertension" in release["problem"].tolist()  # record 5 (F) kept, record 10 gone
    assert release["problem"].tolist()[-1] == "short breath"


def test_ties_go_to_the_first_attribute_and_no_suppression_goes_further():
    """Without suppression: at [2,1,0] birth, zip and sex all have 2 distinct values → birth
    (first) to '*'; then zip (2) and sex (2) tie → zip to 021**, where both sexes have 5."""
    _, report = anonymize(FRAME, {**POLICY, "suppression_limit": 0.0}, "datafly")
    assert _path(report) == [(0, 0, 0), (1, 0, 0), (2, 0, 0), (2, 1, 0), (3, 1, 0), (3, 2, 0)]
    assert report.n_suppressed == 0
    assert report.satisfying_nodes is None and report.minimal_nodes is None  # greedy: no claim


def test_datafly_is_never_more_precise_than_the_optimum():
    _, greedy = anonymize(FRAME, POLICY, "datafly")
    _, best = anonymize(FRAME, POLICY, "mingen")
    assert greedy.metrics["prec"] <= best.metrics["prec"] + 1e-12
    assert best.metrics["prec"] == pytest.approx(max(greedy.metrics["prec"], best.metrics["prec"]))
