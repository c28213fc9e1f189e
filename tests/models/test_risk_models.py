"""average-risk and record-risk against a per-record brute force, and their monotonicity claims
checked on every pair of comparable nodes of small lattices."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from privcheck.classes import count
from privcheck.encoding import encode
from privcheck.lattice import Lattice
from privcheck.models.base import evaluate_models
from privcheck.pipeline.check import check
from privcheck.policy import load_policy


def _frame(seed: int, n: int = 60) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    data = pd.DataFrame(
        {
            "a": rng.integers(0, 8, n).astype(str),
            "b": rng.choice(["x", "y", "z"], n),
            "s": rng.choice(["p", "q"], n),
        }
    )
    # the population holds the data's records plus more people of every combination
    combos = data.groupby(["a", "b"]).size().rename("n").reset_index()
    extra = pd.DataFrame(
        {"a": rng.integers(0, 8, 20).astype(str), "b": rng.choice(["x", "y", "z"], 20), "n": 0}
    )
    pop = pd.concat([combos, extra]).groupby(["a", "b"], as_index=False)["n"].sum()
    pop["n"] = pop["n"] + rng.integers(0, 6, len(pop))
    return data, pop


def _policy(tmp_path, pop: pd.DataFrame, models: list[dict], hierarchies: bool = False) -> dict:
    path = tmp_path / "pop.csv"
    pop.to_csv(path, index=False)
    attrs = {"a": {"role": "quasi_identifier"}, "b": {"role": "quasi_identifier"}}
    if hierarchies:
        attrs["a"]["hierarchy"] = {"type": "intervals", "widths": [2, 4]}
        attrs["b"]["hierarchy"] = {"type": "table", "rows": [["x", "xy"], ["y", "xy"], ["z", "z"]]}
    attrs["s"] = {"role": "sensitive"}
    return {
        "attributes": attrs,
        "population": {"path": str(path), "count_column": "n"},
        "models": models,
    }


def _brute(data: pd.DataFrame, pop: pd.DataFrame, attacker: str) -> tuple[list, list]:
    """Per record (pure Python): its class size f and population class size F."""
    rows = list(zip(data["a"], data["b"], strict=True))
    f = {key: rows.count(key) for key in set(rows)}
    big = {}
    for a, b, n in zip(pop["a"].astype(str), pop["b"], pop["n"], strict=True):
        big[(a, b)] = big.get((a, b), 0) + int(n)
    return [f[r] for r in rows], [big[r] for r in rows]


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("attacker", ["prosecutor", "journalist", "marketer"])
def test_values_match_brute_force(tmp_path, seed, attacker):
    data, pop = _frame(seed)
    t_avg, t_rec, share = 0.3, 0.25, 0.1
    models = [
        {"model": "average-risk", "threshold": t_avg, "attacker": attacker},
        {"model": "record-risk", "threshold": t_rec, "max_share": share, "attacker": attacker},
    ]
    report = check(data, _policy(tmp_path, pop, models))
    f, big = _brute(data, pop, attacker)
    n = len(f)
    n_classes = sum(1 / x for x in f)  # each class counted once over its records
    marketer = sum(1 / y for y in big) / n  # Σ_c f_c/F_c / n = mean of 1/F over records
    if attacker == "prosecutor":
        avg = n_classes / n
        risk = [1 / x for x in f]
    else:
        classes = {}
        for y, r in zip(big, zip(data["a"], data["b"], strict=True), strict=True):
            classes[r] = y
        journalist = max(len(classes) / sum(classes.values()), marketer)
        avg = marketer if attacker == "marketer" else journalist
        risk = [1 / y for y in big]
    at_risk = sum(r > t_rec for r in risk) / n
    avg_m, rec_m = report.models
    assert avg_m.value == pytest.approx(avg, rel=1e-12)
    assert avg_m.passed == (avg <= t_avg)
    assert rec_m.value == pytest.approx(at_risk, rel=1e-12)
    assert rec_m.passed == (at_risk <= share)


def test_suppression_removes_the_riskiest_first():
    """The classes a failing average-risk check names are the fewest smallest classes whose
    removal brings #classes/n under t (brute force over every prefix)."""
    data = pd.DataFrame({"a": list("aabbbccccddddd") + ["e"] * 6 + ["f"], "s": ["x"] * 21})
    pol = {
        "attributes": {"a": {"role": "quasi_identifier"}, "s": {"role": "sensitive"}},
        "models": [{"model": "average-risk", "threshold": 0.2}],
    }
    report = check(data, pol)
    (m,) = report.models
    assert not m.passed and m.value == pytest.approx(6 / 21)
    sizes = sorted([2, 3, 4, 5, 6, 1])
    need = next(k for k in range(len(sizes)) if (len(sizes) - k) / sum(sizes[k:]) <= 0.2 + 1e-15)
    assert m.violating_classes == need
    assert m.violating_records == sum(sizes[:need])


def _monotone_holds(tmp_path, models, seed) -> tuple[bool, bool]:
    """(generalization property, suppression property) over every comparable node pair."""
    data, pop = _frame(seed, n=40)
    raw = _policy(tmp_path, pop, models, hierarchies=True)
    if any("estimator" in m for m in models):  # the estimators need only the population size
        raw["population"] = {"size": 400}
    policy = load_policy(raw)
    enc = encode(data, policy)
    lat = Lattice(enc.heights)
    passed, violating = {}, {}
    for node in lat:
        table = count(enc, node)
        (ev,) = evaluate_models(table, policy.models)
        passed[node] = ev.passed
        violating[node] = int(table.sizes[~ev.class_ok].sum())
    gen = sup = True
    for lo, hi in itertools.permutations(list(lat), 2):
        if all(x <= y for x, y in zip(lo, hi, strict=True)):
            gen &= not passed[lo] or passed[hi]
            sup &= violating[hi] <= violating[lo]
    return gen, sup


@pytest.mark.parametrize(
    "entry",
    [
        {"model": "average-risk", "threshold": 0.4},
        {"model": "average-risk", "threshold": 0.3, "attacker": "journalist"},
        {"model": "average-risk", "threshold": 0.2, "attacker": "marketer"},
        {"model": "record-risk", "threshold": 0.3},
        {"model": "record-risk", "threshold": 0.3, "max_share": 0.2},
        {"model": "record-risk", "threshold": 0.2, "attacker": "journalist"},
        {"model": "k-map", "k": 4},
        {"model": "k-map", "k": 30, "estimator": "poisson", "significance": 0.05},
        {"model": "k-map", "k": 30, "estimator": "zero-truncated-poisson"},
        {"model": "delta-presence", "delta_min": 0.2, "delta_max": 0.8},
    ],
)
def test_declared_monotonicity_holds_by_brute_force(tmp_path, entry):
    from privcheck.plugins import model_registry

    model = model_registry()[entry["model"]]
    config = model.config.model_validate(entry)
    for seed in range(8):
        gen, sup = _monotone_holds(tmp_path, [entry], seed)
        if model.monotone:
            assert gen, f"{entry} declared monotone under generalization (seed {seed})"
        if model.monotone_with_suppression(config):
            assert sup, f"{entry} declared monotone with suppression (seed {seed})"


def test_delta_presence_is_not_monotone_with_suppression(tmp_path):
    """The counterexample behind ``monotone_with_suppression = False``: u has 9 of 10 people
    (0.9 > 0.8, 9 records suppressed), v 3 of 4 (0.75, kept); generalized together they are 12 of
    14 (0.857): all 12 records suppressed."""
    data = pd.DataFrame({"a": ["u"] * 9 + ["v"] * 3, "s": ["x"] * 12})
    pop = pd.DataFrame({"a": ["u", "v"], "n": [10, 4]})
    pop.to_csv(tmp_path / "pop.csv", index=False)
    policy = load_policy(
        {
            "attributes": {
                "a": {"role": "quasi_identifier", "hierarchy": {"type": "masking"}},
                "s": {"role": "sensitive"},
            },
            "population": {"path": str(tmp_path / "pop.csv"), "count_column": "n"},
            "models": [{"model": "delta-presence", "delta_min": 0.2, "delta_max": 0.8}],
        }
    )
    enc = encode(data, policy)
    suppressed = []
    for node in [(0,), (1,)]:
        table = count(enc, node)
        (ev,) = evaluate_models(table, policy.models)
        suppressed.append(int(table.sizes[~ev.class_ok].sum()))
    assert suppressed == [9, 12]


def test_population_uniqueness_is_not_monotone(tmp_path):
    """Why population-uniqueness declares no generalization property: on the small lattice of
    seed 0 (40 records, N = 400) a node passes under SNB while a coarser one fails — the
    estimate is a fitted model, not a count that merging can only lower."""
    from privcheck.plugins import model_registry

    entry = {"model": "population-uniqueness", "threshold": 0.005, "estimator": "snb"}
    assert not _monotone_holds(tmp_path, [entry], 0)[0]
    assert not model_registry()["population-uniqueness"].monotone
