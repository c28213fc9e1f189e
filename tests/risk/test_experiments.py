"""The judged experiments of the risk issue, on the CASC Census file, kept to a few seconds.

The full tables (p = 2 … 20; every learned family with times) are printed by
``benchmarks/risk_experiments.py``; these tests assert the published shape on subsets:

- rank swapping: the transparency attack (RSLD) links fewer records as p grows and always more
  than plain distance-based linkage (Nin, Herranz & Torra 2008);
- "M4-33" microaggregation (4 attributes in 2 groups of 2, k = 3): every learned family contains
  the smaller one, so at the optimum arithmetic mean ≤ weighted mean ≤ Choquet / bilinear and
  Mahalanobis ≤ bilinear (Abril, Navarro-Arribas & Torra).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pandas as pd
import pytest

from privcheck.masking import mdav, rank_swap
from privcheck.risk import dbrl, learned_distance, rank_swap_transparency

CENSUS = Path(__file__).resolve().parents[1] / "data" / "casc" / "census.csv"
M4 = ["AFNLWGT", "AGI", "EMCONTRB", "FEDTAX"]


@pytest.fixture(scope="module")
def census() -> pd.DataFrame:
    return pd.read_csv(CENSUS)


def test_rank_swap_transparency_falls_with_p_and_beats_dbrl(census):
    rsld, plain = [], []
    for p in (2, 8, 14, 20):
        masked = rank_swap(census, p, seed=0).masked
        rsld.append(rank_swap_transparency(census, masked, p=p).reidentification_rate)
        plain.append(dbrl(census, masked).reidentification_rate)
    for prev, nxt in itertools.pairwise(rsld):
        assert nxt <= prev + 0.01  # monotone up to a point of noise from the random swaps
    assert rsld[-1] < rsld[0] - 0.2
    for r, d in zip(rsld, plain, strict=True):
        assert r > d


def m4_33(census: pd.DataFrame, n: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    x = census[M4].iloc[:n].reset_index(drop=True)
    return x, mdav(x, 3, attribute_groups=[M4[:2], M4[2:]]).masked


def test_learned_distances_link_at_least_as_many_as_dbrl(census):
    """400 records: Euclidean ≤ weighted mean ≤ Choquet and ≤ OWA (fast families, ~3 s)."""
    x, masked = m4_33(census, 400)
    rate = {"euclidean": dbrl(x, masked).anonymity_set_rate}
    for fam in ("weighted_mean", "owa", "choquet"):
        res = learned_distance(x, masked, fam, time_limit=60)
        assert res.figures["optimal"], fam
        rate[fam] = res.anonymity_set_rate
    assert rate["euclidean"] <= rate["weighted_mean"] <= rate["choquet"]
    assert rate["euclidean"] <= rate["owa"]


def test_bilinear_contains_mahalanobis_and_weighted_mean(census):
    """Bilinear on 400 records takes ~30 s; on the first 150 (same set-up) ~4 s."""
    x, masked = m4_33(census, 150)
    maha = dbrl(x, masked, metric="mahalanobis").anonymity_set_rate
    wm = learned_distance(x, masked, "weighted_mean").anonymity_set_rate
    bil = learned_distance(x, masked, "bilinear", time_limit=60)
    assert bil.figures["optimal"]
    assert maha <= bil.anonymity_set_rate and wm <= bil.anonymity_set_rate
