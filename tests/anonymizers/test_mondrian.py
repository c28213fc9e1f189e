"""Mondrian against a row-based pure-Python Mondrian (same split rule), on random tables and
policies (the release re-checks and contains every original value), and on Adult against the
full-domain optimum."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import privcheck
from privcheck.encoding import encode, is_range
from privcheck.errors import PolicyError
from privcheck.pipeline.anonymize import anonymize
from privcheck.plan import release_policy
from tests.anonymizers.anon_helpers import SALARY_QIS, adult_policy
from tests.conftest import run_cli

SEX = [["F", "*"], ["M", "*"]]
ZIP = [
    ["02138", "0213*", "021**", "*"],
    ["02139", "0213*", "021**", "*"],
    ["02141", "0214*", "021**", "*"],
    ["02142", "0214*", "021**", "*"],
    ["02152", "0215*", "021**", "*"],
]
RANGE = re.compile(r"^\[(.+), (.+)\]$")


def tiny_policy(models: list[dict]) -> dict:
    return {
        "attributes": {
            "age": {"role": "quasi_identifier"},
            "zip": {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": ZIP}},
            "sex": {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": SEX}},
            "disease": {"role": "sensitive"},
        },
        "models": models,
    }


# --- the oracle: Mondrian over rows, written from the paper and the documented split rule -----


def _ancestors(rows: list[list[str]]) -> dict[str, list[str]]:
    """value → its labels from the leaf up to a single root."""
    out = {}
    for r in rows:
        chain = list(r)
        if len({row[-1] for row in rows}) > 1:
            chain.append("*")
        out[r[0]] = chain
    return out


def oracle_partitions(frame: pd.DataFrame, models: list[dict]) -> list[list[int]]:
    qis = ["age", "zip", "sex"]
    anc = {"zip": _ancestors(ZIP), "sex": _ancestors(SEX)}
    n = len(frame)
    whole = Counter(frame["disease"])
    values = {q: frame[q].tolist() for q in qis}
    span = {
        "age": max(values["age"]) - min(values["age"]),
        "zip": len(set(values["zip"])) - 1,
        "sex": len(set(values["sex"])) - 1,
    }

    def ok(part: list[int]) -> bool:
        dis = Counter(frame["disease"].iloc[part])
        for m in models:
            if m["model"] == "k-anonymity" and len(part) < m["k"]:
                return False
            if m["model"] == "l-diversity" and len(dis) < m["l"]:
                return False
            if m["model"] == "t-closeness":
                emd = 0.5 * sum(abs(dis[v] / len(part) - whole[v] / n) for v in whole)
                if emd > m["t"] + 1e-12:
                    return False
        return True

    def width(part: list[int], q: str) -> float:
        vs = [values[q][i] for i in part]
        if span[q] <= 0:
            return 0.0
        if q == "age":
            return (max(vs) - min(vs)) / span[q]
        return (len(set(vs)) - 1) / span[q]

    def split(part: list[int], q: str) -> list[list[int]]:
        if q == "age":
            distinct = sorted({values[q][i] for i in part})
            best, cut = None, None
            for v in distinct[:-1]:
                c = sum(1 for i in part if values[q][i] <= v)
                score = abs(2 * c - len(part))
                if best is None or score < best:
                    best, cut = score, v
            return [
                [i for i in part if values[q][i] <= cut],
                [i for i in part if values[q][i] > cut],
            ]
        chains = [anc[q][values[q][i]] for i in part]
        level = next(lv for lv in range(len(chains[0])) if len({c[lv] for c in chains}) == 1)
        children: dict[str, list[int]] = {}
        for i, c in zip(part, chains, strict=True):
            children.setdefault(c[level - 1], []).append(i)
        return list(children.values())

    final, stack = [], [list(range(n))]
    while stack:
        part = stack.pop()
        ws = [(-width(part, q), j, q) for j, q in enumerate(qis) if width(part, q) > 0]
        for _, _, q in sorted(ws):
            parts = split(part, q)
            if all(ok(p) for p in parts):
                stack.extend(parts)
                break
        else:
            final.append(part)
    return final


def random_frame(seed: int, n: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 70, n),
            "zip": rng.choice([r[0] for r in ZIP], n),
            "sex": rng.choice(["F", "M"], n),
            "disease": rng.choice(["flu", "cold", "hiv"], n, p=[0.5, 0.3, 0.2]),
        }
    )


def released_partitions(release: pd.DataFrame) -> set[frozenset[int]]:
    groups = release.groupby(["age", "zip", "sex"], sort=False).indices
    return {frozenset(map(int, rows)) for rows in groups.values()}


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize(
    "models",
    [
        [{"model": "k-anonymity", "k": 2}],
        [{"model": "k-anonymity", "k": 3}, {"model": "l-diversity", "variant": "distinct", "l": 2}],
        [{"model": "k-anonymity", "k": 2}, {"model": "t-closeness", "t": 0.3}],
    ],
)
def test_partitions_equal_row_based_oracle(seed, models):
    frame = random_frame(seed, 40)
    try:
        release, report = anonymize(frame, tiny_policy(models), "mondrian", keep_order=True)
    except PolicyError:
        assert not oracle_partitions(frame, models) or len(oracle_partitions(frame, models)) == 1
        return
    expected = {frozenset(p) for p in oracle_partitions(frame, models)}
    assert released_partitions(release) == expected
    assert report.metrics["n_classes"] == len(expected)
    sizes = np.array([len(p) for p in expected], dtype=float)
    assert report.metrics["discernibility"] == (sizes**2).sum()
    assert report.n_suppressed == 0 and report.n_released_rows == len(frame)


def test_worked_example_labels():
    frame = pd.DataFrame(
        {
            "age": [20, 21, 22, 23, 40, 41, 42, 43],
            "zip": ["02138", "02139", "02138", "02139", "02141", "02142", "02141", "02142"],
            "sex": ["F", "M", "F", "M", "F", "M", "F", "M"],
            "disease": ["flu"] * 8,
        }
    )
    release, _ = anonymize(
        frame, tiny_policy([{"model": "k-anonymity", "k": 2}]), "mondrian", keep_order=True
    )
    # age, zip and sex tie at width 1: age goes first (policy order), cut after 23 (4 | 4);
    # in each half sex is widest (1 against zip 1/3 and age 3/23) and splits it F | M; a
    # further cut of age would leave classes of one record
    assert release["age"].tolist() == ["[20, 22]", "[21, 23]"] * 2 + ["[40, 42]", "[41, 43]"] * 2
    assert release["zip"].tolist() == frame["zip"].tolist()
    assert release["sex"].tolist() == frame["sex"].tolist()


# --- properties on random tables and policies -----------------------------------------------


@st.composite
def tables(draw):
    n = draw(st.integers(4, 50))
    ages = draw(st.lists(st.integers(18, 70), min_size=n, max_size=n))
    zips = draw(st.lists(st.sampled_from([r[0] for r in ZIP]), min_size=n, max_size=n))
    sex = draw(st.lists(st.sampled_from(["F", "M"]), min_size=n, max_size=n))
    disease = draw(st.lists(st.sampled_from(["flu", "cold", "hiv"]), min_size=n, max_size=n))
    return pd.DataFrame({"age": ages, "zip": zips, "sex": sex, "disease": disease})


models_st = st.lists(
    st.one_of(
        st.builds(lambda k: {"model": "k-anonymity", "k": k}, st.integers(1, 6)),
        st.builds(
            lambda v: {"model": "l-diversity", "variant": "distinct", "l": v}, st.integers(1, 2)
        ),
        st.builds(
            lambda v: {"model": "l-diversity", "variant": "entropy", "l": v}, st.floats(1.0, 1.9)
        ),
        st.builds(lambda t: {"model": "t-closeness", "t": t}, st.floats(0.1, 0.6)),
        st.builds(lambda b: {"model": "beta-likeness", "beta": b}, st.floats(0.5, 3.0)),
        st.builds(lambda d: {"model": "delta-disclosure", "delta": d}, st.floats(0.5, 3.0)),
    ),
    min_size=1,
    max_size=3,
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables(), models_st, st.booleans(), st.booleans())
def test_release_rechecks_and_contains_originals(frame, models, hierarchies, relaxed):
    attrs = {
        "age": {"role": "quasi_identifier"},
        "zip": {"role": "quasi_identifier", "hierarchy": {"type": "masking", "levels": 5}},
        "sex": {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": SEX}},
        "disease": {"role": "sensitive"},
    }
    if hierarchies:
        attrs["age"]["hierarchy"] = {"type": "intervals", "widths": [10, 20]}
        attrs["zip"]["hierarchy"] = {"type": "table", "rows": ZIP}
    for m in models:
        if m["model"] != "k-anonymity":
            m["attribute"] = "disease"
    policy = privcheck.load_policy({"attributes": attrs, "models": models})
    try:
        release, report = anonymize(frame, policy, "mondrian", keep_order=True, relaxed=relaxed)
    except PolicyError as exc:
        assert (
            "no partitioning satisfies" in str(exc)
            or "cannot hold" in str(exc)
            or (relaxed and "relaxed partitions fail" in str(exc))
        )
        return
    assert len(release) == len(frame) and report.n_suppressed == 0
    assert privcheck.check(release, release_policy(policy)).passed
    assert report.check.passed
    encoded = encode(frame, policy)
    for col in encoded.quasi_identifiers:
        chains = [
            {str(col.levels.labels[lv][col.levels.maps[lv][c]]) for lv in range(col.height + 1)}
            | {"*"}
            for c in col.codes
        ]
        for original, released, chain in zip(
            frame[col.name], release[col.name], chains, strict=True
        ):
            m = RANGE.match(str(released))
            if col.name == "age" and m:
                assert float(m.group(1)) <= original <= float(m.group(2))
            elif col.name == "age":
                assert str(released) == str(original)
            else:
                assert str(released) in chain


def test_relaxed_cut_divides_the_median_value():
    frame = pd.DataFrame(
        {
            "age": [30, 30, 30, 31],
            "zip": ["02138"] * 4,
            "sex": ["F"] * 4,
            "disease": ["flu", "cold", "flu", "hiv"],
        }
    )
    policy = tiny_policy([{"model": "k-anonymity", "k": 2}])
    strict, _ = anonymize(frame, policy, "mondrian", keep_order=True)
    relaxed, report = anonymize(frame, policy, "mondrian", keep_order=True, relaxed=True)
    # strict: the only cut (30 | 31) leaves one record on the right, so nothing splits
    assert strict["age"].tolist() == ["[30, 31]"] * 4
    # relaxed: two records go left, two right, the age-30 records on both sides; units are
    # (class, sensitive value) in code order — cold, then flu (whose first record goes left)
    assert relaxed["age"].tolist() == ["30", "30", "[30, 31]", "[30, 31]"]
    assert report.metrics["n_classes"] == 2 and report.parameters["relaxed"] is True


def test_relaxed_keeps_at_least_the_strict_classes_on_adult(adult_frame):
    policy = adult_policy(SALARY_QIS, "salary-class", [{"model": "k-anonymity", "k": 5}])
    _, strict = anonymize(adult_frame, policy, "mondrian")
    release, relaxed = anonymize(adult_frame, policy, "mondrian", relaxed=True)
    print(f"Adult k=5: strict {strict.check.n_classes}, relaxed {relaxed.check.n_classes} classes")
    assert relaxed.check.n_classes >= strict.check.n_classes
    assert privcheck.check(release, release_policy(privcheck.load_policy(policy))).passed


def test_no_quasi_identifier_is_one_class():
    frame = pd.DataFrame({"disease": ["flu", "cold"] * 5})
    policy = {
        "attributes": {"disease": {"role": "sensitive"}},
        "models": [{"model": "l-diversity", "l": 2, "attribute": "disease"}],
    }
    release, report = anonymize(frame, policy, "mondrian")
    assert len(release) == 10 and report.metrics["n_classes"] == 1 and report.check.passed


def test_release_checks_from_a_written_file(tmp_path):
    frame = random_frame(3, 60)
    policy = tiny_policy([{"model": "k-anonymity", "k": 4}])
    release, _ = anonymize(frame, policy, "mondrian")
    path = tmp_path / "release.csv"
    release.to_csv(path, index=False)
    assert privcheck.check(path, release_policy(privcheck.load_policy(policy))).passed


def test_ranges_need_a_numeric_quasi_identifier():
    assert is_range("[30, 39]") and is_range("[1.5,2]") and not is_range("[39, 30]")
    assert not is_range("30-39") and not is_range("[a, b]")
    bad = pd.DataFrame({"zip": ["[1, 2]"] * 3, "sex": ["F"] * 3, "age": [1] * 3})
    bad["disease"] = "flu"
    with pytest.raises(Exception, match="not in its hierarchy"):
        privcheck.check(bad, tiny_policy([{"model": "k-anonymity", "k": 1}]))


# --- refusals -----------------------------------------------------------------------------


def test_unsatisfiable_root_is_refused_with_exit_2(tmp_path):
    frame = random_frame(1, 10)
    frame["disease"] = "flu"
    data = tmp_path / "data.csv"
    frame.to_csv(data, index=False)
    policy = tmp_path / "policy.yaml"
    import yaml

    body = tiny_policy(
        [{"model": "l-diversity", "variant": "distinct", "l": 1, "attribute": "disease"}]
    )
    body["models"] = [{"model": "t-closeness", "t": 0.0, "attribute": "disease"}]
    body["models"].append({"model": "k-anonymity", "k": 11})
    policy.write_text(yaml.safe_dump(body))
    out = tmp_path / "out.csv"
    r = run_cli("anonymize", data, "--policy", policy, "--algorithm", "mondrian", "-o", out)
    assert r.returncode == 2, r.stderr
    assert "k-anonymity" in r.stderr and "Traceback" not in r.stderr
    assert not out.exists()


def test_root_violation_names_the_model():
    frame = random_frame(2, 20)
    frame.loc[:, "disease"] = "flu"
    models = [{"model": "l-diversity", "variant": "distinct", "l": 1, "attribute": "disease"}]
    models.append({"model": "beta-likeness", "beta": 0.1, "attribute": "disease"})
    # one value: every class equals the table, beta holds; l=2 cannot
    models[0]["l"] = 2
    with pytest.raises(PolicyError, match="l-diversity"):
        anonymize(frame, tiny_policy(models), "mondrian")


def test_population_models_are_refused():
    policy = tiny_policy([{"model": "k-anonymity", "k": 2}])
    policy["models"].append({"model": "k-map", "k": 2})
    policy["population"] = {"size": 1000}
    with pytest.raises(PolicyError, match="mondrian cannot enforce k-map"):
        anonymize(random_frame(0, 20), policy, "mondrian")


def test_cli_release_passes_check(tmp_path):
    frame = random_frame(5, 80)
    data = tmp_path / "data.csv"
    frame.to_csv(data, index=False)
    import yaml

    policy = tmp_path / "policy.yaml"
    policy.write_text(yaml.safe_dump(tiny_policy([{"model": "k-anonymity", "k": 3}])))
    out, rep = tmp_path / "out.csv", tmp_path / "report.json"
    r = run_cli(
        "anonymize", data, "--policy", policy, "--algorithm", "mondrian", "-o", out, "--report", rep
    )
    assert r.returncode == 0, r.stderr
    assert '"algorithm": "mondrian"' in rep.read_text()
    r = run_cli("check", out, "--policy", policy)
    assert r.returncode == 0, r.stdout + r.stderr


def _literal_star_case(tmp_path, limit: float):
    """A quasi-identifier whose ground value is a literal '*' under suppressed_records: star:
    its ten records, kept by every anonymizer, are written all '*' and a check reads them as
    suppressed records."""
    import yaml

    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "job": ["*"] * 10 + list(rng.choice(["a", "b"], 30)),
            "disease": rng.choice(["flu", "cold"], 40),
        }
    )
    data = tmp_path / "data.csv"
    frame.to_csv(data, index=False)
    policy = tmp_path / "policy.yaml"
    rows = [["*", "any"], ["a", "any"], ["b", "any"]]
    body = {
        "attributes": {
            "job": {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": rows}},
            "disease": {"role": "sensitive"},
        },
        "models": [{"model": "k-anonymity", "k": 3}],
        "suppressed_records": "star",
        "suppression_limit": limit,
    }
    policy.write_text(yaml.safe_dump(body))
    return data, policy


@pytest.mark.parametrize("algorithm", ["mondrian", "mingen"])
def test_literal_star_over_the_limit_is_refused_like_the_others(tmp_path, algorithm):
    """Ten of 40 records read as suppressed, over the limit of 4: refused in one line, exit 2,
    nothing written — Mondrian as the full-domain anonymizers (``release.recheck``)."""
    data, policy = _literal_star_case(tmp_path, 0.1)
    out = tmp_path / "out.csv"
    r = run_cli("anonymize", data, "--policy", policy, "--algorithm", algorithm, "-o", out)
    assert r.returncode == 2, r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert "cannot tell from suppressed records" in lines[0]
    assert "the suppression limit" in lines[0]
    assert not out.exists()


def test_literal_star_within_the_limit_is_released_and_rechecks(tmp_path):
    """Within the limit (10 of 40 ≤ 12) the release is written and ``check`` agrees with it."""
    data, policy = _literal_star_case(tmp_path, 0.3)
    out = tmp_path / "out.csv"
    r = run_cli("anonymize", data, "--policy", policy, "--algorithm", "mondrian", "-o", out)
    assert r.returncode == 0, r.stderr
    r = run_cli("check", out, "--policy", policy)
    assert r.returncode == 0, r.stdout + r.stderr


# --- Adult ---------------------------------------------------------------------------------


def test_adult_keeps_ten_times_the_classes_of_the_full_domain_optimum(adult_frame):
    policy = adult_policy(SALARY_QIS, "salary-class", [{"model": "k-anonymity", "k": 5}])
    release, mondrian = anonymize(adult_frame, policy, "mondrian")
    optimum = {}
    for limit in (0.0, 0.01):
        _, report = anonymize(adult_frame, {**policy, "suppression_limit": limit}, "mingen")
        optimum[limit] = report.check.n_classes
    print(
        f"Adult, 8 QIs, k=5: mondrian {mondrian.check.n_classes} classes; MinGen optimum "
        f"{optimum[0.0]} (0 % suppression), {optimum[0.01]} (1 %)"
    )
    assert mondrian.check.n_classes == mondrian.metrics["n_classes"]
    assert mondrian.check.n_classes >= 10 * max(optimum.values())
    assert len(release) == len(adult_frame)
