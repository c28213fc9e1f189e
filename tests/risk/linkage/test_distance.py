"""DBRL against brute-force oracles written with plain Python loops."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from privcheck.errors import DataError, PolicyError
from privcheck.risk.linkage.distance import dbrl, nearest_links, one_to_one_links, univariate_rates


def _z(col: list[float]) -> list[float]:
    n = len(col)
    mean = sum(col) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in col) / (n - 1))
    return [(v - mean) / sd if sd > 0 else 0.0 for v in col]


def _standardise_loop(x: np.ndarray) -> list[list[float]]:
    cols = [_z([float(r[j]) for r in x]) for j in range(x.shape[1])]
    return [[cols[j][i] for j in range(x.shape[1])] for i in range(x.shape[0])]


def _oracle(a: np.ndarray, b: np.ndarray, true_index, inv_cov=None):
    """Anonymity sets by nested loops: every masked record at the minimal distance."""
    za, zb = _standardise_loop(a), _standardise_loop(b)
    m = a.shape[1]
    sets = []
    for i, ra in enumerate(za):
        dists = []
        for rb in zb:
            diff = [ra[k] - rb[k] for k in range(m)]
            if inv_cov is None:
                d = sum(v * v for v in diff)
            else:
                d = sum(diff[k] * inv_cov[k][q] * diff[q] for k in range(m) for q in range(m))
            dists.append(d)
        best = min(dists)
        sets.append({j for j, d in enumerate(dists) if d <= best + 1e-9 * (1 + abs(best))})
        del i
    credit = [(1 / len(s) if t in s else 0.0) for s, t in zip(sets, true_index, strict=True)]
    certain = [len(s) == 1 and t in s for s, t in zip(sets, true_index, strict=True)]
    return sets, sum(credit) / len(a), sum(certain) / len(a)


@pytest.fixture
def tied_files():
    """Small integer files: many exact distance ties, as after microaggregation."""
    rng = np.random.default_rng(7)
    a = rng.integers(0, 4, size=(40, 3)).astype(float)
    b = a + rng.integers(-1, 2, size=a.shape)
    b[::5] = b[1::5]  # duplicated masked records → anonymity sets of size ≥ 2
    return a, b


@pytest.mark.parametrize("engine", ["brute", "kdtree"])
def test_dbrl_matches_loop_oracle_with_ties(tied_files, engine):
    a, b = tied_files
    t = np.arange(len(a))
    sets, rate, certain = _oracle(a, b, t)
    res = dbrl(a, b, engine=engine, chunk_size=7)
    assert res.anonymity_set_size.tolist() == [len(s) for s in sets]
    assert res.true_in_set.tolist() == [ti in s for s, ti in zip(sets, t, strict=True)]
    assert res.anonymity_set_rate == pytest.approx(rate)
    assert res.certain_rate == pytest.approx(certain)
    # the single link is always a member of the anonymity set
    assert all(int(li) in s for li, s in zip(res.linked_index, sets, strict=True))
    assert any(len(s) > 1 for s in sets)


def test_single_link_rate_averages_to_anonymity_set_rate(tied_files):
    a, b = tied_files
    res = [dbrl(a, b, random_state=s, engine="brute").reidentification_rate for s in range(300)]
    expected = dbrl(a, b).anonymity_set_rate
    assert np.mean(res) == pytest.approx(expected, abs=0.01)
    assert np.std(res) > 0  # ties really are broken at random


def test_mahalanobis_matches_loop_oracle():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(30, 3)) @ np.array([[1.0, 0.8, 0.0], [0.0, 1.0, 0.5], [0.0, 0.0, 1.0]])
    b = a + rng.normal(scale=0.6, size=a.shape)
    za = np.array(_standardise_loop(a))
    zb = np.array(_standardise_loop(b))
    cov = np.cov(za - zb, rowvar=False)
    cov = cov + 1e-6 * np.trace(cov) / 3 * np.eye(3)
    sets, rate, certain = _oracle(a, b, range(30), inv_cov=np.linalg.inv(cov).tolist())
    for engine in ("brute", "kdtree"):
        res = dbrl(a, b, metric="mahalanobis", covariance="difference", engine=engine)
        assert res.anonymity_set_rate == pytest.approx(rate)
        assert res.certain_rate == pytest.approx(certain)
        assert [int(x) for x in res.linked_index] == [min(s) for s in sets]


def test_subset_intruder_with_true_index_and_dataframes():
    rng = np.random.default_rng(11)
    orig = pd.DataFrame(rng.normal(size=(50, 4)), columns=list("wxyz"))
    masked = orig + rng.normal(scale=0.3, size=orig.shape)
    rows = np.array([3, 17, 29, 41, 8, 44])
    intruder = orig.iloc[rows][["y", "w"]]  # some records, some attributes, any order
    res = dbrl(intruder, masked, attributes=["y", "w"], true_index=rows)
    _, rate, _ = _oracle(intruder.to_numpy(), masked[["y", "w"]].to_numpy(), rows)
    assert res.attributes == ["y", "w"]
    assert res.anonymity_set_rate == pytest.approx(rate)
    assert res.n_intruder_records == 6 and res.n_masked_records == 50


def test_identical_files_are_fully_reidentified():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(200, 5))
    res = dbrl(a, a.copy())
    assert res.reidentification_rate == 1.0
    assert res.certain_rate == 1.0
    assert res.record_risk_summary.share_certain == 1.0


def test_chunking_and_engines_agree_on_continuous_data():
    rng = np.random.default_rng(5)
    a = rng.normal(size=(300, 6))
    b = a + rng.normal(scale=0.8, size=a.shape)
    r1 = dbrl(a, b, engine="brute")
    r2 = dbrl(a, b, engine="brute", chunk_size=13)
    r3 = dbrl(a, b, engine="kdtree")
    assert np.array_equal(r1.linked_index, r2.linked_index)
    assert np.array_equal(r1.linked_index, r3.linked_index)
    assert 0.1 < r1.reidentification_rate < 0.95


def test_one_to_one_matches_permutation_oracle():
    rng = np.random.default_rng(2)
    a = rng.normal(size=(7, 2))
    b = a + rng.normal(scale=0.9, size=a.shape)
    za, zb = np.array(_standardise_loop(a)), np.array(_standardise_loop(b))
    best = min(
        itertools.permutations(range(7)),
        key=lambda p: sum(((za[i] - zb[p[i]]) ** 2).sum() for i in range(7)),
    )
    link = one_to_one_links(za, zb)
    assert link.tolist() == list(best)
    res = dbrl(a, b, assignment="one_to_one")
    assert res.reidentification_rate == pytest.approx(np.mean(np.array(best) == np.arange(7)))
    assert res.figures["one_to_one_rate"] == res.reidentification_rate


def test_one_to_one_refuses_huge_matrices():
    a = np.zeros((100, 2)) + np.arange(100)[:, None]
    with pytest.raises(PolicyError, match="max_cells"):
        dbrl(a, a, assignment="one_to_one", max_cells=1000)


def test_univariate_rates_match_loops(tied_files):
    a, b = tied_files
    za, zb = np.array(_standardise_loop(a)), np.array(_standardise_loop(b))
    t = np.arange(len(a))
    rates = univariate_rates(za, zb, t)
    for j in range(a.shape[1]):
        credit = 0.0
        for i in range(len(a)):
            d = [abs(za[i, j] - zb[k, j]) for k in range(len(b))]
            best = min(d)
            s = {k for k, v in enumerate(d) if v <= best + 1e-9}
            credit += 1 / len(s) if i in s else 0.0
        assert rates[j] == pytest.approx(credit / len(a))


def test_nearest_links_excludes_nothing_and_reports_sets():
    xa = np.array([[0.0, 0.0], [5.0, 5.0]])
    xb = np.array([[1.0, 0.0], [0.0, 1.0], [5.0, 5.0]])
    links = nearest_links(xa, xb, np.array([0, 2]), engine="brute")
    assert links.set_size.tolist() == [2, 1]
    assert links.true_in.tolist() == [True, True]
    kd = nearest_links(xa, xb, np.array([0, 2]), engine="kdtree")
    assert kd.set_size.tolist() == [2, 1]


def test_input_errors():
    a = np.ones((5, 2))
    with pytest.raises(DataError, match="aligned by position"):
        dbrl(a, np.ones((6, 2)))
    bad = a.copy()
    bad[2, 1] = np.nan
    with pytest.raises(DataError, match="missing"):
        dbrl(bad, a)
    df = pd.DataFrame({"x": [1.0, 2.0, 3.0], "s": ["a", "b", "c"]})
    with pytest.raises(DataError, match="not numeric"):
        dbrl(df, df)
    with pytest.raises(DataError, match="no column"):
        dbrl(df, df.rename(columns={"x": "y"}), attributes=["x"])
    with pytest.raises(PolicyError, match="standardisation='masked'"):
        dbrl(a[:1], a, true_index=[0])
    with pytest.raises(DataError, match="covariance"):
        dbrl(
            np.arange(10.0).reshape(5, 2) ** 2,
            np.arange(10.0).reshape(5, 2) ** 2,
            metric="mahalanobis",
        )


def test_result_json_excludes_arrays():
    rng = np.random.default_rng(1)
    a = rng.normal(size=(20, 2))
    res = dbrl(a, a + 0.1)
    data = res.model_dump()
    assert "record_risk" not in data and "linked_index" not in data
    assert data["attack"] == "dbrl"
    assert set(data["attribute_contribution"]) == {"x0", "x1"}
    assert len(res.model_dump_json()) < 3000
