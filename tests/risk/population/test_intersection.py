"""The intersection attack across releases against a brute-force intersection on small tables.

The oracle is pure Python over (record, released row) pairs: it spells every label of a value
with its own arithmetic (intervals of 10 and 20, ZIP masking, a table for the sex), decides
"covers" per cell, and counts the candidate set of each record by the definition — the keys
whose rows cover the record in every release holding them, or Σ_s min_i (rows of release i
covering the record with value s). Releases are generalized per *record* (local recoding), with
suppressed records and cells ('*') and Mondrian ranges, then shuffled when matched on values.
"""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from privcheck.errors import DataError, PolicyError
from privcheck.risk.population.intersection import release_intersection

SEX = {"m": "any", "f": "any", "x": "any"}
POLICY = {
    "attributes": {
        "id": {"role": "insensitive"},
        "age": {"role": "quasi_identifier", "hierarchy": {"type": "intervals", "widths": [10, 20]}},
        "zip": {"role": "quasi_identifier", "hierarchy": {"type": "masking", "levels": 3}},
        "sex": {
            "role": "quasi_identifier",
            "hierarchy": {"type": "table", "rows": [[v, g] for v, g in SEX.items()]},
        },
        "disease": {"role": "sensitive"},
    },
    "models": [{"model": "k-anonymity", "k": 3}],
}


def _labels(q: str, v) -> list[str]:
    """Every label of value v, level 0 up (the oracle's own spelling)."""
    if q == "age":
        a10, a20 = v // 10 * 10, v // 20 * 20
        return [str(v), f"[{a10}, {a10 + 9}]", f"[{a20}, {a20 + 19}]"]
    if q == "zip":
        return [v, v[:4] + "*", v[:3] + "**", v[:2] + "***"]
    return [v, SEX[v]]


def _covers(q: str, released: str, v) -> bool:
    if released == "*" or released in _labels(q, v):
        return True
    if q == "age" and released.startswith("["):
        lo, hi = (float(x) for x in released.strip("[]").split(","))
        return lo <= v <= hi
    return False


def _table(rng: np.random.Generator, n: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "id": [f"p{i:03d}" for i in range(n)],
            "age": rng.integers(20, 60, n),
            "zip": rng.choice(["13053", "13068", "13021", "14850", "14853"], n),
            "sex": rng.choice(list(SEX), n),
            "disease": rng.choice(["flu", "hiv", "cancer", "none"], n, p=[0.4, 0.1, 0.2, 0.3]),
        }
    )


def _release(rng: np.random.Generator, data: pd.DataFrame, drop: float = 0.0) -> pd.DataFrame:
    """Each record generalized to random levels (a local recoding), some suppressed or ranged."""
    rows = []
    for r in data.itertuples(index=False):
        if rng.random() < drop:
            continue
        row = {"id": r.id, "disease": r.disease}
        for q in ("age", "zip", "sex"):
            v = getattr(r, q)
            labels = _labels(q, v)
            row[q] = labels[int(rng.integers(1 if q != "sex" else 0, len(labels)))]
            if q == "age" and rng.random() < 0.1:
                lo = v - int(rng.integers(0, 5))
                row[q] = f"[{lo}, {lo + int(rng.integers(5, 15))}]"
        if rng.random() < 0.05:
            row = {**row, "age": "*", "zip": "*", "sex": "*"}
        elif rng.random() < 0.05:
            row["zip"] = "*"
        rows.append(row)
    return pd.DataFrame(rows).sample(frac=1.0, random_state=int(rng.integers(1 << 30)))


def _brute_by_key(data: pd.DataFrame, releases: list[pd.DataFrame]) -> list[int]:
    """Per record some release holds: the released individuals whose rows cover it in every
    release holding them."""
    by_key = [{row["id"]: row for row in r.to_dict("records")} for r in releases]
    records = [p for p in data.to_dict("records") if any(p["id"] in rel for rel in by_key)]
    out = []
    for p in records:
        n = 0
        for x in records:
            ok = True
            for rel in by_key:
                row = rel.get(x["id"])
                if row is not None and not all(_covers(q, str(row[q]), p[q]) for q in SEX_QIS):
                    ok = False
            n += ok
        out.append(n)
    return out


SEX_QIS = ("age", "zip", "sex")


def _brute_by_value(data: pd.DataFrame, releases: list[pd.DataFrame]) -> tuple[list, list]:
    """Per record some release holds (a covering row with its own value): Σ_s min over the
    releases holding it, whether one value survives, and the fewest covering rows alone."""
    out, disclosed, alone = [], [], []
    for p in data.to_dict("records"):
        per = []
        for rel in releases:
            c = Counter(
                row["disease"]
                for row in rel.to_dict("records")
                if all(_covers(q, str(row[q]), p[q]) for q in SEX_QIS)
            )
            per.append(c)
        holding = [c for c in per if c[p["disease"]] > 0]
        if not holding:
            continue
        values = set.intersection(*(set(c) for c in holding))
        out.append(sum(min(c[s] for c in holding) for s in values))
        disclosed.append(len(values) == 1)
        alone.append(min(sum(c.values()) for c in holding))
    return out, disclosed, alone


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n_releases", [1, 2, 3])
def test_matches_brute_force_by_key(seed, n_releases):
    rng = np.random.default_rng(seed)
    data = _table(rng, 40)
    releases = [_release(rng, data, drop=0.3) for _ in range(n_releases)]
    res = release_intersection(data, releases, POLICY, key="id")
    expected = _brute_by_key(data, releases)
    released = set().union(*(set(r["id"]) for r in releases))
    assert res["n_not_released"] == len(data) - len(released)
    assert res["candidates"].tolist() == expected
    assert res["linking"] == "key"
    assert res["share_below_k"] == pytest.approx(np.mean(np.array(expected) < 3))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n_releases", [1, 2, 3])
def test_matches_brute_force_by_sensitive_value(seed, n_releases):
    rng = np.random.default_rng(100 + seed)
    data = _table(rng, 40)
    releases = [_release(rng, data, drop=0.1).drop(columns="id") for _ in range(n_releases)]
    res = release_intersection(data, releases, POLICY)
    expected, disclosed, alone = _brute_by_value(data, releases)
    assert res["candidates"].tolist() == expected
    assert res["share_sensitive_disclosed"] == pytest.approx(np.mean(disclosed))
    alone = np.array(alone)
    shrunk = (np.array(expected) < 3) & (alone >= 3)
    assert res["share_shrunk_below_k"] == pytest.approx(shrunk.mean())
    assert res["share_below_k_single"] == pytest.approx(np.mean(alone < 3))


def test_one_full_domain_release_is_k_anonymity():
    """One release: the candidate set is the record's class size (classes by released tuple)."""
    rng = np.random.default_rng(7)
    data = _table(rng, 200)
    release = data.copy()
    release["age"] = [_labels("age", v)[2] for v in data["age"]]
    release["zip"] = [v[:3] + "**" for v in data["zip"]]
    res = release_intersection(data, [release], POLICY, key="id")
    sizes = release.groupby(["age", "zip", "sex"])["id"].transform("size")
    assert res["candidates"].tolist() == sizes.tolist()
    by_value = release_intersection(data, [release.drop(columns="id")], POLICY)
    assert by_value["candidates"].tolist() == sizes.tolist()


def test_composition_attack_discloses_the_shared_value():
    """Ganta et al.'s example: two 3-anonymous releases, Bob's classes {flu, hiv, cancer} and
    {hiv, none, none}: only hiv is in both — disclosed, one candidate."""
    data = pd.DataFrame(
        {
            "age": [31, 32, 33, 34, 35, 36],
            "zip": ["13053"] * 6,
            "sex": ["m"] * 6,
            "disease": ["hiv", "flu", "cancer", "none", "none", "flu"],
        }
    )
    r1 = data.copy()
    r1["age"] = ["[30, 39]"] * 6
    r1["zip"] = ["130**"] * 6
    r1.loc[3:, "disease"] = ["none", "none", "flu"]
    r2 = data.copy()
    r2["age"] = ["[31, 33]"] * 3 + ["[34, 36]"] * 3
    r2.loc[:, "disease"] = ["hiv", "none", "none", "flu", "cancer", "flu"]
    r2.loc[:, "age"] = ["[31, 31]", "[32, 36]", "[32, 36]", "[32, 36]", "[32, 36]", "[32, 36]"]
    policy = {**POLICY, "attributes": {k: v for k, v in POLICY["attributes"].items() if k != "id"}}
    res = release_intersection(data, [r1, r2], policy, k=3)
    assert res["candidates"][0] == 1  # Bob (31, hiv): only row 0 of r2 covers him
    expected, disclosed, _ = _brute_by_value(data, [r1, r2])
    assert res["candidates"].tolist() == expected
    assert disclosed[0]


def test_bad_input():
    rng = np.random.default_rng(1)
    data = _table(rng, 20)
    release = _release(rng, data)
    with pytest.raises(DataError, match="no column 'ssn'"):
        release_intersection(data, [release], POLICY, key="ssn")
    dup = pd.concat([release, release.iloc[:1]])
    with pytest.raises(DataError, match="repeats the row key"):
        release_intersection(data, [dup], POLICY, key="id")
    alien = release.copy()
    alien.iloc[0, alien.columns.get_loc("zip")] = "99999"
    with pytest.raises(DataError, match="covers no value of the original"):
        release_intersection(data, [alien], POLICY, key="id")
    other = release.copy()
    other["disease"] = "measles"
    with pytest.raises(DataError, match="holds none of the original's records"):
        release_intersection(data, [other.drop(columns="id")], POLICY)
    no_sensitive = {
        **POLICY,
        "attributes": {k: v for k, v in POLICY["attributes"].items() if k != "disease"},
    }
    with pytest.raises(PolicyError, match="key=COLUMN"):
        release_intersection(data.drop(columns="disease"), [release], no_sensitive)
    with pytest.raises(PolicyError, match="k must be"):
        release_intersection(data, [release], POLICY, key="id", k=0)


def test_cli_several_masked(cli, tmp_path):
    rng = np.random.default_rng(3)
    data = _table(rng, 60)
    paths = []
    for i in range(2):
        p = tmp_path / f"r{i}.csv"
        _release(rng, data).drop(columns="id").to_csv(p, index=False)
        paths.append(p)
    data.to_csv(tmp_path / "orig.csv", index=False)
    (tmp_path / "p.json").write_text(json.dumps(POLICY))
    args = ["risk", "--original", str(tmp_path / "orig.csv"), "--policy", str(tmp_path / "p.json")]
    args += [x for p in paths for x in ("--masked", str(p))]
    res = cli(*args, "--attack", "release-intersection", "--format", "json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    expected, _, _ = _brute_by_value(data, [pd.read_csv(p, dtype=str) for p in paths])
    assert out["figures"]["share_below_k"] == pytest.approx(np.mean(np.array(expected) < 3))
    assert out["figures"]["linking"] == "sensitive"
    assert out["detail"]["candidates"] == expected
    assert out["detail"]["records"] == list(range(len(expected)))
    assert out["masked"] == f"{paths[0]}, {paths[1]}"
    text = cli(*args, "--attack", "release-intersection")
    assert text.returncode == 0 and "share_below_k" in text.stdout, text.stderr
    one_only = cli(*args, "--attack", "dbrl")
    assert one_only.returncode == 2 and "one release" in one_only.stderr
    assert len(one_only.stderr.strip().splitlines()) == 1
