"""k-anonymity-across-releases against a brute-force worst case, and enforced by anonymize.

The oracle works on leaf sets it spells itself (ages 0–99 in bins of 10 and 20; sex under 'any'):
for every class of the checked release it enumerates every combination of one class per previous
release (or none, when no class overlaps) whose leaf sets all intersect on every
quasi-identifier, counts Σ_s min(n_c(s), n_i(s) + suppressed_i(s)), and keeps the smallest count
that could hold a person (> 0). The anonymize test cross-checks with the exact attack: once the
written release passes, no original record has fewer than k candidates across the releases.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pandas as pd
import pytest
import yaml

from privcheck.classes import count
from privcheck.encoding import encode
from privcheck.errors import DataError
from privcheck.models.release_series import candidate_sets
from privcheck.policy import load_policy
from privcheck.risk.population.intersection import release_intersection

SEXES = ["m", "f", "x"]


def _policy(tmp_path, previous, k=3, suppression_limit=0.0):
    spec = {
        "attributes": {
            "age": {
                "role": "quasi_identifier",
                "hierarchy": {"type": "intervals", "widths": [10, 20], "top": True},
            },
            "sex": {
                "role": "quasi_identifier",
                "hierarchy": {"type": "table", "rows": [[s, "any"] for s in SEXES]},
            },
            "disease": {"role": "sensitive"},
        },
        "models": [{"model": "k-anonymity-across-releases", "k": k, "previous": previous}],
        "suppression_limit": suppression_limit,
    }
    path = tmp_path / "policy.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def _label(q: str, v, level: int) -> str:
    if q == "age":
        if level == 0:
            return str(v)
        if level == 3:
            return "*"
        w = (10, 20)[level - 1]
        return f"[{v // w * w}, {v // w * w + w - 1}]"
    return v if level == 0 else "any"


def _leaves(q: str, label: str) -> frozenset:
    if q == "age":
        if label == "*":
            return frozenset(range(100))
        if label.startswith("["):
            lo, hi = map(int, label.strip("[]").split(","))
            return frozenset(range(lo, hi + 1))
        return frozenset([int(label)])
    return frozenset(SEXES) if label in ("any", "*") else frozenset([label])


def _data(rng, n):
    return pd.DataFrame(
        {
            "age": rng.integers(20, 70, n),
            "sex": rng.choice(SEXES, n),
            "disease": rng.choice(["flu", "hiv", "cancer", "none"], n, p=[0.4, 0.1, 0.2, 0.3]),
        }
    )


def _release(rng, data, node, star=0.0):
    out = data.copy()
    out["age"] = [_label("age", v, node[0]) for v in data["age"]]
    out["sex"] = [_label("sex", v, node[1]) for v in data["sex"]]
    hit = rng.random(len(out)) < star
    out.loc[hit, ["age", "sex"]] = "*"
    return out.sample(frac=1.0, random_state=int(rng.integers(1 << 30))).astype(str)


def _classes(frame):
    rows = frame[(frame["age"] != "*") | (frame["sex"] != "*")]
    stars = Counter(frame.loc[(frame["age"] == "*") & (frame["sex"] == "*"), "disease"])
    return {k: Counter(g["disease"]) for k, g in rows.groupby(["age", "sex"])}, stars


def _brute(current, previous):
    cur, _ = _classes(current)
    prevs = [_classes(p) for p in previous]
    out = {}
    for c, hist in cur.items():
        options = []
        for classes, _stars in prevs:
            hits = [
                k
                for k in classes
                if all(
                    _leaves(q, a) & _leaves(q, b)
                    for q, a, b in zip(("age", "sex"), c, k, strict=True)
                )
            ]
            options.append(hits or [None])
        best = None
        for combo in itertools.product(*options):
            # the combination's classes must share a point on every quasi-identifier
            chosen = [k for k in combo if k is not None]
            if not all(
                frozenset.intersection(_leaves(q, c[j]), *(_leaves(q, k[j]) for k in chosen))
                for j, q in enumerate(("age", "sex"))
            ):
                continue
            total = 0
            for s, n in hist.items():
                m = n
                for (classes, stars), k in zip(prevs, combo, strict=True):
                    if k is None and not stars:
                        continue
                    m = min(m, (classes[k][s] if k is not None else 0) + stars[s])
                total += m
            if total > 0:
                best = total if best is None else min(best, total)
        out[c] = best if best is not None else sum(hist.values())
    return out


def _model_values(tmp_path, current, names):
    policy = load_policy(_policy(tmp_path, names))
    table = count(encode(current, policy, as_released=True))
    values = candidate_sets(table, policy.models[0])
    labels = table.class_labels(np.arange(table.n_classes))
    return {(lab["age"], lab["sex"]): int(v) for lab, v in zip(labels, values, strict=True)}


NODES = [(0, 0), (1, 0), (2, 0), (1, 1), (2, 1), (0, 1), (3, 0)]


@pytest.mark.parametrize("seed", range(16))
def test_matches_brute_force_worst_case(tmp_path, seed):
    rng = np.random.default_rng(seed)
    data = _data(rng, 60)
    cur_node = NODES[int(rng.integers(len(NODES)))]
    current = _release(rng, data, cur_node)
    if seed % 2:  # some cells blanked, as local suppression writes them
        current.loc[rng.random(len(current)) < 0.15, "age"] = "*"
    previous, names = [], []
    for i in range(int(rng.integers(1, 4))):
        prev = _release(
            rng,
            data.sample(frac=0.8, random_state=seed + i),
            NODES[int(rng.integers(len(NODES)))],
            star=0.1,
        )
        prev.to_csv(tmp_path / f"prev{i}.csv", index=False)
        previous.append(prev)
        names.append(f"prev{i}.csv")
    assert _model_values(tmp_path, current, names) == _brute(current, previous)


def test_composition_example_fails_and_coarser_passes(tmp_path):
    """Ganta et al.: two 3-anonymous releases whose classes share only 'hiv' for Bob."""
    prev = pd.DataFrame(
        {
            "age": ["[30, 39]"] * 3 + ["[40, 49]"] * 3,
            "sex": ["m"] * 6,
            "disease": ["hiv", "flu", "cancer", "none", "none", "flu"],
        }
    )
    prev.to_csv(tmp_path / "prev.csv", index=False)
    current = pd.DataFrame(
        {
            "age": ["[20, 39]"] * 3 + ["[40, 59]"] * 3,
            "sex": ["m"] * 6,
            "disease": ["hiv", "none", "none", "flu", "cancer", "none"],
        }
    )
    values = _model_values(tmp_path, current, ["prev.csv"])
    assert values[("[20, 39]", "m")] == 1  # hiv only in both
    current.to_csv(tmp_path / "cur.csv", index=False)
    from privcheck.checker import check

    report = check(tmp_path / "cur.csv", _policy(tmp_path, ["prev.csv"]))
    assert not report.passed
    assert report.models[0].value == 1


def test_anonymize_enforces_and_release_passes_check(tmp_path, cli):
    rng = np.random.default_rng(11)
    data = _data(rng, 400)
    first = _release(rng, data, (1, 0))
    first.to_csv(tmp_path / "jan.csv", index=False)
    data.to_csv(tmp_path / "feb_raw.csv", index=False)
    policy = _policy(tmp_path, ["jan.csv"], k=5, suppression_limit=0.05)
    for algorithm in ("mingen", "datafly"):
        out = tmp_path / f"feb_{algorithm}.csv"
        res = cli(
            "anonymize",
            tmp_path / "feb_raw.csv",
            "--policy",
            policy,
            "-o",
            out,
            "--algorithm",
            algorithm,
        )
        assert res.returncode == 0, res.stderr
        again = cli("check", out, "--policy", policy)
        assert again.returncode == 0, again.stdout + again.stderr
        # the exact attack with the originals: nobody is left among fewer than k
        attack = release_intersection(data, [pd.read_csv(out, dtype=str), first], policy, k=5)
        assert attack["share_below_k"] == 0.0
        assert attack["min_candidates"] >= 5


def test_bad_input(tmp_path, cli):
    rng = np.random.default_rng(2)
    data = _data(rng, 50)
    data.to_csv(tmp_path / "cur.csv", index=False)
    policy = _policy(tmp_path, ["missing.csv"])
    res = cli("check", tmp_path / "cur.csv", "--policy", policy)
    assert res.returncode == 2 and "previous release not found" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
    data.drop(columns="age").to_csv(tmp_path / "noage.csv", index=False)
    res = cli("check", tmp_path / "cur.csv", "--policy", _policy(tmp_path, ["noage.csv"]))
    assert res.returncode == 2 and "has no column 'age'" in res.stderr
    mixed = data.astype(str)
    mixed.loc[:10, "age"] = "[20, 29]"
    mixed.to_csv(tmp_path / "mixed.csv", index=False)
    res = cli("check", tmp_path / "cur.csv", "--policy", _policy(tmp_path, ["mixed.csv"]))
    assert res.returncode == 2 and "one level" in res.stderr
    # an output never overwrites a previous release
    ok = _release(rng, data, (1, 1))
    ok.to_csv(tmp_path / "prev.csv", index=False)
    res = cli(
        "anonymize",
        tmp_path / "cur.csv",
        "--policy",
        _policy(tmp_path, ["prev.csv"]),
        "-o",
        tmp_path / "prev.csv",
    )
    assert res.returncode == 2
    assert pd.read_csv(tmp_path / "prev.csv", dtype=str).equals(ok.reset_index(drop=True))
    with pytest.raises(DataError):
        _model_values(tmp_path, data.astype(str), ["mixed.csv"])


def test_not_monotone_counterexample(tmp_path):
    """Coarsening this release can break the model: its class then overlaps a previous class
    holding a rare value. February at ages 30–39 / 40–49 passes against January's classes;
    generalized to 20–39 / 40–59 its first class also overlaps January's 20–29 class, whose only
    value in common with it is one 'hiv': one candidate."""
    prev = pd.DataFrame(
        {
            "age": ["[20, 29]"] * 3 + ["[30, 39]"] * 3 + ["[40, 49]"] * 3,
            "sex": ["m"] * 9,
            "disease": ["hiv", "none", "none", "flu", "flu", "none", "none", "none", "flu"],
        }
    )
    prev.to_csv(tmp_path / "prev.csv", index=False)
    ages = [31, 32, 33, 41, 42, 43]
    data = pd.DataFrame(
        {"age": ages, "sex": ["m"] * 6, "disease": ["hiv", "flu", "flu", "none", "none", "flu"]}
    )
    policy = load_policy(_policy(tmp_path, ["prev.csv"], k=2))
    encoded = encode(data, policy)
    fine = count(encoded, (1, 0))  # 30-39, 40-49
    coarse = count(encoded, (2, 0))  # 20-39, 40-59
    assert candidate_sets(fine, policy.models[0]).min() >= 2
    assert candidate_sets(coarse, policy.models[0]).min() == 1


def test_without_sensitive_attribute_smallest_overlapping_class(tmp_path):
    """Nothing to match on: a class's value is the smallest overlapping class (or itself)."""
    prev = pd.DataFrame({"age": ["[30, 39]"] * 2 + ["[40, 49]"] * 4, "sex": ["any"] * 6})
    prev.to_csv(tmp_path / "prev.csv", index=False)
    spec = yaml.safe_load(_policy(tmp_path, ["prev.csv"], k=3).read_text())
    del spec["attributes"]["disease"]
    path = tmp_path / "nosens.yaml"
    path.write_text(yaml.safe_dump(spec))
    policy = load_policy(path)
    current = pd.DataFrame({"age": ["[20, 39]"] * 3 + ["[40, 59]"] * 5, "sex": ["m"] * 8})
    table = count(encode(current, policy, as_released=True))
    labels = [lab["age"] for lab in table.class_labels(np.arange(table.n_classes))]
    values = dict(zip(labels, candidate_sets(table, policy.models[0]).tolist(), strict=True))
    assert values == {"[20, 39]": 2, "[40, 59]": 4}


def test_previous_release_without_the_sensitive_attribute_bounds_by_class_size(tmp_path):
    """A previous release that does not publish the value cannot be matched on it: a
    combination keeps at most that release's class ([20, 39] overlaps [20, 29] ×2, [30, 39] ×1)."""
    pd.DataFrame(
        {
            "age": ["[20, 29]", "[20, 29]", "[30, 39]", "[40, 49]", "[40, 49]", "[40, 49]"],
            "sex": "m",
        }
    ).to_csv(tmp_path / "prev.csv", index=False)
    current = pd.DataFrame(
        {
            "age": ["[20, 39]"] * 3 + ["[40, 59]"] * 3,
            "sex": "m",
            "disease": ["hiv", "flu", "flu"] * 2,
        }
    )
    want = {("[20, 39]", "m"): 1, ("[40, 59]", "m"): 3}
    assert _model_values(tmp_path, current, ["prev.csv"]) == want
