"""Information-loss metrics of generalizations, against hand-computed values on Race/ZIP."""

from __future__ import annotations

import typing
from pathlib import Path

import numpy as np
import pytest

from privcheck.classes import count
from privcheck.encoding import encode
from privcheck.io import read_table
from privcheck.lattice import Lattice
from privcheck.metrics.generalization import (
    DEFAULT_METRIC,
    METRIC_NAMES,
    METRICS,
    all_metrics,
    average_class_size,
    discernibility,
    generalization_height,
    get_metric,
    loss,
    loss_bounds,
    loss_level_sums,
    precision,
)
from privcheck.policy import Policy

EXAMPLES = Path(__file__).resolve().parents[1] / "data" / "examples"
H = EXAMPLES / "race_zip_hierarchies"
POLICY = {
    "attributes": {
        "race": {
            "role": "quasi_identifier",
            "hierarchy": {"type": "table", "path": str(H / "race.csv")},
        },
        "zip": {
            "role": "quasi_identifier",
            "hierarchy": {"type": "table", "path": str(H / "zip.csv")},
        },
    },
    "models": [{"model": "k-anonymity", "k": 2}],
}


@pytest.fixture(scope="module")
def encoded():
    return encode(read_table(EXAMPLES / "race_zip.csv"), POLICY)


def test_prec_of_the_race_zip_generalizations():
    # Race has height 2 (value → Person → *), ZIP height 3; Prec = 1 − Σ h/|DGH| / N_A
    assert precision((0, 1), (2, 3), 8) == pytest.approx(1 - (1 / 3) / 2)  # 0.8333
    assert precision((1, 0), (2, 3), 8) == pytest.approx(1 - (1 / 2) / 2)  # 0.75
    assert precision((0, 0), (2, 3), 8) == 1.0
    assert precision((2, 3), (2, 3), 8) == 0.0


def test_suppressed_records_count_as_fully_generalized():
    # 2 of 8 records suppressed at the bottom: their 2 cells each cost 1
    assert precision((0, 0), (2, 3), 8, suppressed=2) == pytest.approx(1 - 4 / 16)
    # … and a suppressed record costs the same at any node
    assert precision((0, 1), (2, 3), 8, suppressed=8) == 0.0
    # an attribute without a hierarchy (height 0) costs nothing unless suppressed
    assert precision((1, 0), (2, 0), 4) == pytest.approx(1 - 0.5 / 2)
    assert precision((1, 0), (2, 0), 4, suppressed=4) == 0.0


def test_class_based_metrics(encoded):
    table = count(encoded, (0, 1))
    assert list(table.sizes) == [2, 2, 2, 2]
    m = all_metrics(table)
    assert m["prec"] == pytest.approx(5 / 6)
    assert m["discernibility"] == 16  # four classes of 2: Σ size²
    assert m["aecs"] == 2  # 8 records / 4 classes
    assert m["height"] == 1
    # ZIP 0213* covers 2 of the hierarchy's 4 ZIPs: (2−1)/(4−1); race values cost 0
    assert m["loss"] == pytest.approx((0 + 1 / 3) / 2)
    # Race 'Person' covers all 3 of the hierarchy's races (Asian, Black, White)
    assert all_metrics(count(encoded, (1, 0)))["loss"] == pytest.approx((1 + 0) / 2)
    assert all_metrics(count(encoded, (2, 3)))["loss"] == pytest.approx(1.0)


def test_suppression_in_class_based_metrics(encoded):
    table = count(encoded, (0, 0))  # eight singletons
    kept = np.array([True] * 6 + [False] * 2)
    m = all_metrics(table, kept)
    assert m["discernibility"] == 6 * 1 + 2 * 8  # kept Σ size² + suppressed · N
    assert m["aecs"] == 8 / (6 + 1)  # the suppressed records form one more class (ARX)
    assert m["loss"] == pytest.approx((2 * 1 + 2 * 1) / (8 * 2))  # suppressed cells cost 1
    assert m["prec"] == pytest.approx(1 - 4 / 16)
    assert discernibility(np.array([3, 4]), 10, 3) == 9 + 16 + 30
    assert average_class_size(np.array([3, 4]), 10, 0) == 5
    assert generalization_height((1, 2, 0)) == 3
    assert loss(table) == 0.0


def test_loss_bound_is_exact_without_suppression_and_below_with_it(encoded):
    """The searches rank nodes by ``loss_bounds`` (from the bottom table's per-level sums, no
    class table per node): exact where nothing is suppressed, at most the loss otherwise."""
    lat = Lattice(encoded.heights)
    sums = loss_level_sums(count(encoded, lat.bottom))
    bounds = loss_bounds(sums, lat.nodes, encoded.n_records)
    for i, node in enumerate(lat.nodes):
        table = count(encoded, tuple(node))
        assert bounds[i] == pytest.approx(loss(table), abs=1e-15)
        kept = table.sizes >= 2  # suppress the singletons
        if not kept.all():
            assert bounds[i] < loss(table, kept)
    # ZIP 0213* covers 2 of 4 ZIPs: (2−1)/(4−1) per record of the attribute, race costs 0
    assert bounds[lat.index((0, 1))] == pytest.approx((1 / 3) / 2)
    # a table above the bottom starts its sums at its own levels
    above = loss_level_sums(count(encoded, (1, 1)))
    assert above[0][0] == 0 and above[0][1] == pytest.approx(8.0)


def test_metric_registry_matches_the_policy_option():
    allowed = typing.get_args(Policy.model_fields["metric"].annotation)
    assert set(allowed) == set(METRIC_NAMES) == set(METRICS)
    assert Policy.model_fields["metric"].default == DEFAULT_METRIC == "prec"
    assert get_metric("prec").higher_is_better
    assert not get_metric("discernibility").higher_is_better
    with pytest.raises(ValueError, match="unknown metric"):
        get_metric("entropy")
