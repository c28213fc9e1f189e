"""Local suppression and Mondrian carry the utility measures in their anonymization report, equal
to ``privcheck compare`` of the same release (the issue's report contract)."""

import numpy as np
import pandas as pd
import pytest

from privcheck.pipeline.anonymize import anonymize
from privcheck.policy import load_policy
from privcheck.utility.compare import compare


def _table(seed: int = 3, n: int = 120) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = rng.integers(20, 70, n)
    return pd.DataFrame(
        {
            "age": age,
            "sex": rng.choice(["F", "M"], n),
            "zip": rng.choice(["130", "131", "148", "149"], n),
            "y": np.where(age > 45, "high", "low"),
        }
    )


@pytest.mark.parametrize("algorithm", ["local-suppression", "mondrian"])
def test_cell_level_release_reports_compare_figures(algorithm):
    frame = _table()
    policy = {
        "attributes": {
            "age": {"role": "quasi_identifier"},
            "sex": {"role": "quasi_identifier"},
            "zip": {"role": "quasi_identifier"},
            "y": {"role": "insensitive"},
        },
        "models": [{"model": "k-anonymity", "k": 4}],
        "utility": {"target": "y", "seed": 1},
    }
    release, report = anonymize(frame, policy, algorithm, keep_order=True, seed=2)
    assert report.utility is not None
    expected = compare(frame, release, load_policy(policy))
    assert set(report.utility) == set(expected)
    for key, value in expected.items():
        assert report.utility[key] == pytest.approx(float(value)), key
    if algorithm == "mondrian":  # one loss: compare's reading and the anonymizer's figure
        assert report.utility["loss"] == pytest.approx(report.metrics["loss"], abs=1e-12)
