"""Reading released cells: range spellings, the lowest matching hierarchy level, and releases
made by whichever cell-recoding anonymizers the code base registers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcheck.pipeline.anonymize import anonymize
from privcheck.plugins import anonymizer_registry
from privcheck.policy import load_policy, parse_policy
from privcheck.utility.compare import compare, recoding
from privcheck.utility.recoding import GENERALIZED, RANGE, SUPPRESSED, UNCHANGED, parse_ranges


def test_range_spellings() -> None:
    labels = np.array(["20-29", "[20, 30)", "(19, 29]", "[20,29]", "(-5, 5)", "-10--1", "x", "5-1"])
    lo, hi, lc, hc = parse_ranges(labels)
    assert list(lo[:6]) == [20, 20, 19, 20, -5, -10]
    assert list(hi[:6]) == [29, 30, 29, 29, 5, -1]
    assert list(lc[:6]) == [True, True, False, True, False, True]
    assert list(hc[:6]) == [True, False, True, True, False, True]
    assert np.isnan(lo[6]) and np.isnan(lo[7])  # not a range; lo > hi is not a range either


def test_each_kind_of_cell() -> None:
    pol = parse_policy(
        {
            "attributes": {
                "age": {
                    "role": "quasi_identifier",
                    "hierarchy": {"type": "intervals", "widths": [10]},
                },
                "x": {"role": "insensitive"},
            },
            "models": [{"model": "k-anonymity", "k": 1}],
        }
    )
    frame = pd.DataFrame({"age": ["21", "25", "30", "38", "40"], "x": ["a"] * 5})
    release = frame.assign(age=["21", "[20, 29]", "*", "[30, 45]", "(39, 40]"])
    rec = recoding(frame, release, pol)
    col = rec.columns[0]
    kinds = list(col.kind[col.item])
    # '*' is this hierarchy's top: read as its level 2 of 2 (cost 1 either way, and counted
    # among the suppressed cells, which go by the marker)
    assert kinds == [UNCHANGED, GENERALIZED, GENERALIZED, RANGE, RANGE]
    assert list(col.level[col.item]) == [0, 1, 2, -1, -1]
    # '[30, 45]' over the domain 21..40 (width 19): 15/19; '(39, 40]': 1/19
    assert list(col.prec_cost[col.item]) == pytest.approx([0, 0.5, 1, 15 / 19, 1 / 19])
    assert list(col.cover_count[col.item]) == [1, 2, 5, 3, 1]
    no_top = frame.assign(age=["*"] * 5)
    pol_flat = parse_policy(
        {**pol.model_dump(), "attributes": {"age": {"role": "quasi_identifier"}}}
    )
    star = recoding(frame, no_top, pol_flat).columns[0]
    assert list(star.kind[star.item]) == [SUPPRESSED] * 5


def _adult(n: int):
    from privcheck.io import read_table

    frame = read_table("privcheck/data/adult/adult.csv").iloc[:n].reset_index(drop=True)
    base = load_policy("privcheck/data/adult/policy.yaml")
    spec = base.model_dump()
    spec["models"] = [{"model": "k-anonymity", "k": 5}]
    spec["suppressed_records"] = "star"
    spec["suppression_limit"] = 0.05
    return frame, parse_policy(spec, base_dir=base.base_dir)


@pytest.mark.parametrize(
    ("algorithm", "params"),
    [("local-suppression", {"generalize_first": True}), ("mondrian", {})],
)
def test_cell_recoding_releases_are_read(algorithm: str, params: dict) -> None:
    """Local suppression's blanks and Mondrian's ranges/ancestors read as containing their
    originals (compare would refuse otherwise); Mondrian keeps more than the optimum."""
    registry = anonymizer_registry()
    if algorithm not in registry:
        pytest.skip(f"{algorithm} is not in this code base")
    frame, pol = _adult(3000)
    release, _ = anonymize(frame, pol, algorithm, keep_order=True, **params)
    row = compare(frame, release, pol)
    optimum, _ = anonymize(frame, pol, "mingen", keep_order=True)
    base = compare(frame, optimum, pol)
    assert 0.0 < row["prec"] <= 1.0 and row["kl_divergence"] >= 0.0
    assert row["classes"] >= base["classes"]
    assert row["non_uniform_entropy"] <= base["non_uniform_entropy"]


def test_typed_release_values_are_spelled_as_the_data() -> None:
    """A release built in memory keeps numbers as numbers next to '*' (39, 39.0 and '39' are
    one value)."""
    pol = parse_policy(
        {
            "attributes": {"age": {"role": "quasi_identifier"}},
            "models": [{"model": "k-anonymity", "k": 1}],
        }
    )
    frame = pd.DataFrame({"age": ["39", "39", "40", "41"]})
    release = pd.DataFrame({"age": np.array([39, 39.0, "40", "*"], dtype=object)})
    col = recoding(frame, release, pol).columns[0]
    assert list(col.kind[col.item]) == [UNCHANGED, UNCHANGED, UNCHANGED, SUPPRESSED]
    assert col.n_items == 3


def test_values_that_differ_by_a_trailing_nul_stay_two_values() -> None:
    """numpy's fixed-width strings drop trailing NUL characters, so ``"10001\\x00"`` and
    ``"10001"`` once became one label twice (a pandas InvalidIndexError traceback from
    compare). They are two values of the original, each read back as itself."""
    pol = parse_policy(
        {
            "attributes": {"zip": {"role": "quasi_identifier"}, "x": {"role": "insensitive"}},
            "models": [{"model": "k-anonymity", "k": 1}],
        }
    )
    frame = pd.DataFrame({"zip": ["10001", "10001\x00", "10002"], "x": ["a"] * 3})
    shuffled = frame.iloc[[2, 0, 1]].reset_index(drop=True)  # (read from its labels)
    col = recoding(frame, shuffled, pol).columns[0]
    assert list(col.kind[col.item]) == [UNCHANGED] * 3
    assert list(col.cover_count[col.item]) == [1, 1, 1]
