"""k-map, δ-presence and population uniqueness: values against a per-class brute force over the
rows (the population generalized by hand through the hierarchy), estimators against independent
computations, and the bad inputs of the issue (exit 2, one line)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import poisson

from privcheck.models.kmap import derived_k
from privcheck.pipeline.check import check

HIER = [["x1", "x", "*"], ["x2", "x", "*"], ["y1", "y", "*"], ["y2", "y", "*"]]


def _setup(tmp_path, seed: int):
    rng = np.random.default_rng(seed)
    n = 50
    data = pd.DataFrame(
        {
            "g": rng.choice(["x1", "x2", "y1", "y2"], n),
            "age": rng.integers(20, 40, n),
            "s": rng.choice(["p", "q"], n),
        }
    )
    pop = data.groupby(["g", "age"]).size().rename("n").reset_index()
    pop["n"] += rng.integers(0, 4, len(pop))
    path = tmp_path / "pop.csv"
    pop.to_csv(path, index=False)
    policy = {
        "attributes": {
            "g": {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": HIER}},
            "age": {"role": "quasi_identifier", "hierarchy": {"type": "intervals", "widths": [5]}},
            "s": {"role": "sensitive"},
        },
        "population": {"path": "pop.csv", "count_column": "n"},
        "models": [],
    }
    return data, pop, policy


def _generalize(frame: pd.DataFrame, g_level: int, age_level: int) -> list[tuple[str, str]]:
    """Each row's released values, by hand (the hierarchy table; 5-year bins)."""
    g_map = {row[0]: row[g_level] for row in HIER}
    out = []
    for g, a in zip(frame["g"], frame["age"], strict=True):
        lo = (int(a) // 5) * 5
        out.append((g_map[g], str(a) if age_level == 0 else f"[{lo}, {lo + 4}]"))
    return out


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("levels", [(0, 0), (1, 0), (1, 1), (2, 1)])
def test_kmap_and_delta_presence_on_a_release(tmp_path, seed, levels):
    """A release generalized by hand is checked as it stands: each class is matched with the
    population generalized the same way."""
    data, pop, policy = _setup(tmp_path, seed)
    released = _generalize(data, *levels)
    release = pd.DataFrame(released, columns=["g", "age"]).assign(s=data["s"].to_numpy())
    if levels[0] == 2:
        release["g"] = "*"
    policy["models"] = [
        {"model": "k-map", "k": 4},
        {"model": "delta-presence", "delta_min": 0.3, "delta_max": 0.9},
    ]
    (tmp_path / "policy.json").write_text(json.dumps(policy))
    report = check(release, tmp_path / "policy.json")
    # brute force: for every released class, the population people it matches
    pop_rows = _generalize(pop, *levels)
    big: dict = {}
    for key, n in zip(pop_rows, pop["n"], strict=True):
        key = ("*", key[1]) if levels[0] == 2 else key
        big[key] = big.get(key, 0) + int(n)
    keys = [("*", k[1]) if levels[0] == 2 else k for k in released]
    f = {k: keys.count(k) for k in set(keys)}
    ratios = [f[k] / big[k] for k in f]
    kmap, dp = report.models
    assert kmap.value == min(big[k] for k in f)
    assert kmap.passed == all(big[k] >= 4 for k in f)
    assert kmap.violating_classes == sum(big[k] < 4 for k in f)
    assert dp.value == pytest.approx([min(ratios), max(ratios)], rel=1e-12)
    assert dp.passed == all(0.3 <= r <= 0.9 for r in ratios)


def test_derived_k_is_the_poisson_test():
    """k' is the smallest f with P[X ≥ f] ≤ significance for X ~ Poisson(πk): computed here by
    summing the Poisson mass term by term (math.exp / factorial)."""
    for k, frac, alpha in [(5, 0.1, 0.01), (10, 0.3, 0.05), (20, 0.05, 0.01), (3, 0.9, 0.01)]:
        lam = frac * k
        cdf, c = 0.0, 0
        while True:
            cdf += math.exp(-lam) * lam**c / math.factorial(c)
            if cdf >= 1 - alpha or c + 1 >= k:
                break
            c += 1
        expected = min(k, c + 1) if cdf >= 1 - alpha else k
        assert derived_k(k, frac, "poisson", alpha) == expected
        # zero-truncated: the same test on P[X ≤ c | X ≥ 1]
        p0 = math.exp(-lam)
        cdf, c = 0.0, 1
        while True:
            cdf += math.exp(-lam) * lam**c / math.factorial(c) / (1 - p0)
            if cdf >= 1 - alpha or c + 1 >= k:
                break
            c += 1
        assert derived_k(k, frac, "zero-truncated-poisson", alpha) == (
            min(k, c + 1) if cdf >= 1 - alpha else k
        )


# k' ARX derives (arx-deidentifier/arx at aacd487f, benchmarks/KMapBench.java: KMap(k, α,
# ARXPopulationModel.create(N), estimator) after an anonymization of n records):
# (n, N, k, α) → (Poisson, zero-truncated Poisson)
ARX_KMAP = {
    (1000, 10000, 10, 0.01): (6, 5),
    (1000, 4600, 5, 0.01): (5, 5),
    (2000, 100000, 20, 0.05): (4, 3),
    (500, 1000, 8, 0.01): (8, 8),
    (1000, 50000, 30, 0.001): (6, 5),
}


@pytest.mark.parametrize("case", list(ARX_KMAP))
def test_derived_k_against_arx(case):
    """The zero-truncated k' equals ARX's; ARX's Poisson k' is one more (capped at k): its
    calculateKPoisson counts once past the test. Pinned departure, e.g. k = 10, π = 0.1, α = 0.01:
    λ = 1, P[X ≤ 4] = 0.9963 ≥ 0.99 > P[X ≤ 3], so counts above 4 reject "fewer than 10 people":
    k' = 5 here, 6 in ARX."""
    n, big_n, k, alpha = case
    arx_poisson, arx_ztp = ARX_KMAP[case]
    assert derived_k(k, n / big_n, "zero-truncated-poisson", alpha) == arx_ztp
    assert min(derived_k(k, n / big_n, "poisson", alpha) + 1, k) == arx_poisson
    assert poisson.cdf(3, 1.0) < 0.99 <= poisson.cdf(4, 1.0)


def test_kmap_with_a_size(tmp_path):
    data, _, policy = _setup(tmp_path, 0)
    policy["population"] = {"size": 500}
    policy["models"] = [{"model": "k-map", "k": 10}]
    report = check(data, policy)
    (m,) = report.models
    sizes = data.groupby(["g", "age"]).size()
    k_prime = derived_k(10, 50 / 500, "poisson", 0.01)
    assert m.value == pytest.approx(sizes.min() * 10)
    assert m.passed == bool((sizes >= k_prime).all())
    assert m.violating_classes == int((sizes < k_prime).sum())


BAD = [
    ({"path": "pop.csv", "count_column": "n"}, "pop_missing_qi", "lacks the quasi-identifier"),
    ({"path": "pop.csv", "count_column": "n"}, "pop_negative", "non-negative"),
    ({"path": "pop.csv", "count_column": "n"}, "pop_absent_class", "absent from"),
    (None, "ok", "needs a population"),
    ({"size": 10}, "ok", "smaller than the data"),
]


@pytest.mark.parametrize(("population", "variant", "message"), BAD)
def test_bad_inputs_exit_2_with_one_line(tmp_path, cli, population, variant, message):
    data, pop, policy = _setup(tmp_path, 1)
    if variant == "pop_missing_qi":
        pop = pop.drop(columns=["age"])
    elif variant == "pop_negative":
        pop.loc[0, "n"] = -3
    elif variant == "pop_absent_class":
        pop = pop.iloc[1:]
    pop.to_csv(tmp_path / "pop.csv", index=False)
    data.to_csv(tmp_path / "data.csv", index=False)
    if population is None:
        policy.pop("population")
    else:
        policy["population"] = population
    policy["models"] = [{"model": "k-map", "k": 2}]
    (tmp_path / "policy.json").write_text(json.dumps(policy))
    r = cli("check", tmp_path / "data.csv", "--policy", tmp_path / "policy.json")
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize(
    "entry",
    [
        {"model": "average-risk", "threshold": 1.5},
        {"model": "record-risk", "threshold": 0.2, "max_share": -0.1},
        {"model": "delta-presence", "delta_min": 0.5, "delta_max": 0.2},
        {"model": "population-uniqueness", "threshold": 2, "estimator": "zayatz"},
        {"model": "average-risk", "threshold": 0.1, "attacker": "journalist"},
    ],
)
def test_bad_parameters_exit_2(tmp_path, cli, entry):
    data, _, policy = _setup(tmp_path, 1)
    data.to_csv(tmp_path / "data.csv", index=False)
    policy["population"] = {"size": 1000}
    policy["models"] = [entry]
    (tmp_path / "policy.json").write_text(json.dumps(policy))
    r = cli("check", tmp_path / "data.csv", "--policy", tmp_path / "policy.json")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_population_file_is_an_input_file(tmp_path):
    from privcheck.policy import load_policy

    _, _, policy = _setup(tmp_path, 0)
    (tmp_path / "policy.json").write_text(json.dumps(policy))
    assert tmp_path / "pop.csv" in load_policy(tmp_path / "policy.json").input_files()


def test_json_report_value_pair(tmp_path, cli):
    data, _, policy = _setup(tmp_path, 2)
    data.to_csv(tmp_path / "data.csv", index=False)
    policy["models"] = [{"model": "delta-presence", "delta_min": 0.0, "delta_max": 1.0}]
    (tmp_path / "policy.json").write_text(json.dumps(policy))
    r = cli(
        "check", tmp_path / "data.csv", "--policy", tmp_path / "policy.json", "--format", "json"
    )
    assert r.returncode == 0, r.stderr
    value = json.loads(r.stdout)["models"][0]["value"]
    assert isinstance(value, list) and len(value) == 2 and 0 < value[0] <= value[1] <= 1


ALL_MODELS = [
    {"model": "average-risk", "threshold": 0.05, "attacker": "journalist"},
    {"model": "record-risk", "threshold": 0.2, "max_share": 0.1},
    {"model": "k-map", "k": 3},
    {"model": "delta-presence", "delta_min": 0.1, "delta_max": 0.9},
    {"model": "population-uniqueness", "threshold": 0.01, "estimator": "dankar"},
]


@pytest.mark.parametrize("suffix", [".txt", ".json", ".html"])
def test_every_report_format_carries_the_models(tmp_path, cli, suffix):
    data, _, policy = _setup(tmp_path, 3)
    data.to_csv(tmp_path / "data.csv", index=False)
    policy["models"] = ALL_MODELS
    (tmp_path / "policy.json").write_text(json.dumps(policy))
    out = tmp_path / f"report{suffix}"
    r = cli("check", tmp_path / "data.csv", "--policy", tmp_path / "policy.json", "-o", out)
    assert r.returncode == 1, r.stderr
    text = out.read_text()
    for entry in ALL_MODELS:
        assert entry["model"] in text


def test_catalog_verdict_accepts_the_pair(tmp_path):
    from privcheck.api import evaluate

    data, _, policy = _setup(tmp_path, 3)
    policy["models"] = ALL_MODELS
    (tmp_path / "policy.json").write_text(json.dumps(policy))
    verdict = evaluate(data, tmp_path / "policy.json", name="sample")
    assert json.loads(verdict.model_dump_json())["models"]
    dp = next(m for m in verdict.models if m.model == "delta-presence")
    assert isinstance(dp.value, list) and dp.required is None
    rr = next(m for m in verdict.models if m.model == "record-risk")
    assert (rr.required, rr.comparison) == (0.1, "<=")


def test_release_mixing_levels_and_suppressed_rows(tmp_path):
    """A release whose rows sit at different levels (local recoding) and suppressed rows ('*'):
    each class matches the population people whose values generalize to its labels at any level
    (pure-Python matching per class)."""
    data, pop, policy = _setup(tmp_path, 5)
    rng = np.random.default_rng(5)
    g_level = rng.integers(0, 3, len(data))
    age_level = rng.integers(0, 2, len(data))
    g_up = {row[0]: row for row in HIER}

    def age_label(a: int, level: int) -> str:
        lo = (int(a) // 5) * 5
        return str(a) if level == 0 else f"[{lo}, {lo + 4}]"

    release = pd.DataFrame(
        {
            "g": [g_up[g][lv] for g, lv in zip(data["g"], g_level, strict=True)],
            "age": [age_label(a, lv) for a, lv in zip(data["age"], age_level, strict=True)],
            "s": data["s"],
        }
    )
    release.loc[:4, ["g", "age"]] = "*"  # five suppressed records
    policy["models"] = [{"model": "k-map", "k": 6}]
    (tmp_path / "policy.json").write_text(json.dumps(policy))
    (m,) = check(release, tmp_path / "policy.json").models

    def matches(label: str, options: list[str]) -> bool:
        return label == "*" or label in options

    big = {}
    for key in set(zip(release["g"], release["age"], strict=True)):
        big[key] = sum(
            int(n)
            for g, a, n in zip(pop["g"], pop["age"], pop["n"], strict=True)
            if matches(key[0], g_up[g]) and matches(key[1], [age_label(a, 0), age_label(a, 1)])
        )
    assert m.value == min(big.values())
    assert m.violating_classes == sum(v < 6 for v in big.values())
