"""The risk explanation: per-quasi-identifier contributions against pandas group-bys of the data
dropped / generalized by hand, MSU groups and top records against a brute force, and the
explanation in the check report (API, JSON, text, HTML, CLI)."""

from __future__ import annotations

import itertools
import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest

import privcheck
from privcheck.risk.population.explain import explain


def _frame(seed: int, n: int = 150) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(20, 60, n),
            "zip": rng.choice(["02138", "02139", "02141", "02142", "02150"], n),
            "sex": rng.choice(["F", "M"], n),
            "job": rng.choice(["a", "b", "c", "d", "e", "f"], n),
            "disease": rng.choice(["flu", "cold"], n),
        }
    )


POLICY = {
    "attributes": {
        "age": {"role": "quasi_identifier", "hierarchy": {"type": "intervals", "widths": [10]}},
        "zip": {"role": "quasi_identifier", "hierarchy": {"type": "masking", "levels": 2}},
        "sex": {"role": "quasi_identifier"},
        "job": {
            "role": "quasi_identifier",
            "hierarchy": {
                "type": "table",
                "rows": [[v, "abc" if v in "abc" else "def", "*"] for v in "abcdef"],
            },
        },
        "disease": {"role": "sensitive"},
    },
    "models": [{"model": "k-anonymity", "k": 3}],
}


def _level1(frame: pd.DataFrame, column: str) -> pd.Series:
    """One level up, written out by hand from the policy's hierarchy definitions."""
    if column == "age":
        lo = frame["age"] // 10 * 10
        return lo.astype(str) + "-" + (lo + 10).astype(str)
    if column == "zip":
        return frame["zip"].str[:4] + "*"
    return frame["job"].map(lambda v: "abc" if v in "abc" else "def")


def _figures(frame: pd.DataFrame, columns: list[str], k: int) -> tuple[int, int, int]:
    sizes = frame.groupby(columns).size() if columns else pd.Series([len(frame)])
    return int(sizes[sizes == 1].sum()), len(sizes), int(sizes[sizes < k].sum())


@pytest.mark.parametrize("seed", range(6))
def test_contributions_match_pandas(seed):
    frame = _frame(seed)
    x = explain(frame, POLICY)
    qis = ["age", "zip", "sex", "job"]
    assert (x.current.sample_uniques, x.current.n_classes, x.current.records_below_k) == (
        _figures(frame, qis, 3)
    )
    assert x.current.average_risk == pytest.approx(x.current.n_classes / len(frame))
    for c in x.contributions:
        others = [q for q in qis if q != c.attribute]
        d = c.dropped
        assert (d.sample_uniques, d.n_classes, d.records_below_k) == _figures(frame, others, 3)
        if c.attribute == "sex":
            assert c.generalized is None and c.generalized_note == "no hierarchy"
            continue
        g = c.generalized
        coarser = frame.assign(**{c.attribute: _level1(frame, c.attribute)})
        assert (g.sample_uniques, g.n_classes, g.records_below_k) == _figures(coarser, qis, 3)


def _brute_msus(frame: pd.DataFrame, qis: list[str]) -> dict[int, set[tuple[str, ...]]]:
    rows = [tuple(map(str, r)) for r in frame[qis].itertuples(index=False)]
    unique = {}
    for k in range(1, len(qis) + 1):
        for subset in itertools.combinations(range(len(qis)), k):
            counts = Counter(tuple(r[j] for j in subset) for r in rows)
            unique[subset] = {
                i for i, r in enumerate(rows) if counts[tuple(r[j] for j in subset)] == 1
            }
    out: dict[int, set[tuple[str, ...]]] = {}
    for subset, us in unique.items():
        for i in us:
            if all(
                i not in unique[s] for s in itertools.combinations(subset, len(subset) - 1) if s
            ):
                out.setdefault(i, set()).add(tuple(qis[j] for j in subset))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_msu_groups_and_records_match_brute_force(seed):
    frame = _frame(seed, 80)
    qis = ["age", "zip", "sex", "job"]
    x = explain(frame, POLICY, top=1000)
    want = _brute_msus(frame, qis)
    per_subset = Counter(s for msus in want.values() for s in msus)
    assert {tuple(g.attributes): g.records for g in x.msus} == dict(per_subset)
    assert x.msu_total == sum(per_subset.values())
    assert x.records_with_msu == len(want)
    for g in x.msus:
        for row, ex in zip(g.rows, g.examples, strict=True):
            assert tuple(g.attributes) in want[row]
            assert ex == {a: str(frame.at[row, a]) for a in g.attributes}
    scores = [r.score for r in x.records]
    assert scores == sorted(scores, reverse=True)
    for r in x.records:
        assert {tuple(m) for m in r.msus} == want[r.row]
        assert r.values == {q: str(frame.at[r.row, q]) for q in qis}
        assert r.score == sum(
            {1: 6, 2: 2, 3: 1, 4: 1}[len(m)] for m in want[r.row]
        )  # (M − k)! for M = 4


def test_max_size_bounds_the_search():
    frame = _frame(1)
    x = explain(frame, POLICY, max_size=2)
    assert x.max_size == 2 and not x.complete and len(x.msu_by_size) == 2
    assert all(len(g.attributes) <= 2 for g in x.msus)
    full = explain(frame, POLICY)
    assert full.complete and full.msu_by_size[:2] == x.msu_by_size


def test_generalized_release_cannot_go_one_level_up():
    """An age column already generalized ('20-30') is not the intervals hierarchy's ground: the
    contribution says so instead of guessing."""
    frame = _frame(2).assign(age=lambda f: _level1(f, "age"))
    x = explain(frame, POLICY)
    (age,) = [c for c in x.contributions if c.attribute == "age"]
    assert age.generalized is None and "ground values" in age.generalized_note


def test_check_report_carries_the_explanation(cli, tmp_path):
    frame = _frame(3)
    plain = privcheck.check(frame, POLICY)
    assert plain.explanation is None
    report = privcheck.check(frame, POLICY, explain=True)
    assert report.explanation == explain(frame, POLICY).model_copy(
        update={"seconds": report.explanation.seconds}
    )
    data, policy = tmp_path / "d.csv", tmp_path / "p.json"
    frame.to_csv(data, index=False)
    policy.write_text(json.dumps(POLICY))
    res = cli("check", data, "-p", policy, "--explain", "--format", "json")
    assert res.returncode == 1, res.stderr
    out = json.loads(res.stdout)
    assert (
        out["explanation"]["current"]["sample_uniques"] == report.explanation.current.sample_uniques
    )
    res = cli("check", data, "-p", policy, "--explain", "--explain-max-size", "2")
    assert "risk explanation:" in res.stdout and "minimal sample unique" in res.stdout
    assert "size ≤ 2 (partial search)" in res.stdout
    html = tmp_path / "r.html"
    cli("check", data, "-p", policy, "--explain", "-f", "html", "-o", html)
    page = html.read_text()
    assert "id='section-risk-explanation'" in page and "id='section-risk-explanation-msus'" in page
