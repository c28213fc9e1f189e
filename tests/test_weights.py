"""An engine's pre-aggregated counts walk the same path as the rows they stand for."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcheck.checker import check_table
from privcheck.classes import count
from privcheck.encoding import encode
from privcheck.errors import DataError
from privcheck.policy import load_policy

POLICY = {
    "attributes": {
        "a": {"role": "quasi_identifier"},
        "b": {"role": "quasi_identifier"},
        "s": {"role": "sensitive"},
    },
    "models": [
        {"model": "k-anonymity", "k": 3},
        {"model": "l-diversity", "variant": "entropy", "l": 1.5},
        {"model": "l-diversity", "variant": "recursive", "l": 2, "c": 3},
        {"model": "t-closeness", "t": 0.3, "distance": "ordered"},
    ],
}


def summary(report):
    """The verdict figures of a report as one flat list (pytest.approx takes no nesting)."""
    flat: list = [report.n_records, report.n_classes]
    for m in report.models:
        flat += [m.passed, m.value, m.violating_classes, m.violating_records]
    return flat


@pytest.mark.parametrize("seed", range(5))
def test_aggregated_equals_rows(seed):
    rng = np.random.default_rng(seed)
    n = 400
    rows = pd.DataFrame(
        {
            "a": rng.choice(list("pqrs"), n),
            "b": rng.integers(0, 6, n).astype(str),
            "s": rng.integers(0, 5, n).astype(str),
        }
    )
    policy = load_policy(POLICY)
    agg = rows.groupby(["a", "b", "s"]).size().reset_index(name="n")
    # an engine may also send rows that no longer count (e.g. filtered): weight 0
    agg = pd.concat([agg, pd.DataFrame({"a": ["zz"], "b": ["9"], "s": ["1"], "n": [0]})])
    by_rows = check_table(count(encode(rows, policy)), policy)
    by_counts = check_table(count(encode(agg, policy, weight_column="n")), policy)
    rows_summary, counts_summary = summary(by_rows), summary(by_counts)
    assert len(rows_summary) == len(counts_summary)
    for a, b in zip(rows_summary, counts_summary, strict=True):
        assert a == (pytest.approx(b) if isinstance(b, float) else b)


def test_weights_must_be_counts():
    frame = pd.DataFrame({"a": ["x"], "b": ["1"], "s": ["u"], "n": [-1]})
    with pytest.raises(DataError, match="record counts"):
        encode(frame, load_policy(POLICY), weight_column="n")
