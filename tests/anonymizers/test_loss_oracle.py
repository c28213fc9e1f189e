"""One loss for every algorithm: the ``loss`` each anonymizer reports equals the documented loss
recomputed from the WRITTEN release file, the original file and the policy's hierarchies alone
(``anon_oracle.release_loss``: plain Python and pandas, none of privcheck's metric code).

Random small tables mix every kind of quasi-identifier — table hierarchies listing values the data
lacks, a numeric one with a table hierarchy, intervals, masking, and none — under random k,
suppression limits and ``suppressed_records``; then Adult, and a worked example."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from anon_helpers import SALARY_QIS, adult_policy
from anon_oracle import read_strings, release_loss

from privcheck.pipeline.anonymize import anonymize
from privcheck.policy import parse_policy

ZIP = [
    ["1301", "130*", "13**", "*"],
    ["1302", "130*", "13**", "*"],
    ["1303", "130*", "13**", "*"],
    ["1311", "131*", "13**", "*"],
    ["1411", "141*", "14**", "*"],
    ["1412", "141*", "14**", "*"],
    ["9999", "999*", "99**", "*"],  # in the hierarchy, never in the data
]
JOB = [
    ["nurse", "health", "*"],
    ["doctor", "health", "*"],
    ["midwife", "health", "*"],
    ["clerk", "office", "*"],
    ["typist", "office", "*"],
]
#: a numeric quasi-identifier with a table hierarchy listing 40..99 (the data holds 50..79)
WEIGHT = [
    [str(w), f"{w // 10 * 10}s", "heavy" if w >= 70 else "light", "*"] for w in range(40, 100)
]

ALGORITHMS = [
    ("mingen", {}),
    ("datafly", {}),
    ("incognito", {}),
    ("mondrian", {}),
    ("mondrian", {"relaxed": True}),
]


def random_case(seed: int) -> tuple[pd.DataFrame, dict]:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(60, 160))
    frame = pd.DataFrame(
        {
            "zip": rng.choice([r[0] for r in ZIP[:6]], n, p=[0.3, 0.2, 0.1, 0.2, 0.1, 0.1]),
            "age": rng.integers(18, 80, n),
            "job": rng.choice([r[0] for r in JOB[:4]], n),
            "sex": rng.choice(["F", "M"], n),
            "code": rng.choice(["A11", "A12", "A21", "B11", "B12"], n),
            "weight": rng.integers(50, 80, n),
            "height": rng.choice([160, 170, 180], n),
            "disease": rng.choice(["flu", "cold", "ache"], n),
        }
    )
    models = [{"model": "k-anonymity", "k": int(rng.integers(2, 6))}]
    if rng.random() < 0.3:
        models.append(
            {"model": "l-diversity", "variant": "distinct", "l": 2, "attribute": "disease"}
        )
    policy = {
        "attributes": {
            "zip": {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": ZIP}},
            "age": {
                "role": "quasi_identifier",
                "hierarchy": {"type": "intervals", "widths": [5, 10, 20]},
            },
            "job": {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": JOB}},
            "sex": {"role": "quasi_identifier"},
            "code": {"role": "quasi_identifier", "hierarchy": {"type": "masking"}},
            "weight": {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": WEIGHT}},
            "height": {"role": "quasi_identifier"},
            "disease": {"role": "sensitive"},
        },
        "models": models,
        "suppression_limit": float(rng.choice([0.0, 0.05, 0.2])),
        "suppressed_records": str(rng.choice(["remove", "star"])),
        "metric": str(rng.choice(["prec", "loss"])),
    }
    return frame, policy


def written(frame: pd.DataFrame, tmp_path: Path, name: str) -> pd.DataFrame:
    """The frame as the file privcheck writes and a reader reads back: strings."""
    path = tmp_path / f"{name}.csv"
    frame.to_csv(path, index=False)
    return read_strings(path)


@pytest.mark.parametrize("seed", range(6))
def test_reported_loss_is_the_documented_loss_of_the_written_release(seed, tmp_path) -> None:
    frame, spec = random_case(seed)
    policy = parse_policy(spec)
    original = written(frame, tmp_path, "original")
    for algorithm, params in ALGORITHMS:
        release, report = anonymize(frame, policy, algorithm, seed=seed, **params)
        got = release_loss(original, written(release, tmp_path, algorithm), policy)
        assert report.metrics["loss"] == pytest.approx(got, abs=1e-9), (algorithm, params)


def test_the_random_cases_exercise_what_they_claim(tmp_path) -> None:
    """The oracle meets ranges, masked labels, hierarchy ancestors, '*' and left-out records."""
    seen = set()
    for seed in range(6):
        frame, spec = random_case(seed)
        policy = parse_policy(spec)
        for algorithm, params in ALGORITHMS:
            release, _ = anonymize(frame, policy, algorithm, seed=seed, **params)
            text = release.astype(str)
            if text["weight"].str.startswith("[").any() and algorithm == "mondrian":
                seen.add("range over a table hierarchy")
            if text["code"].str.match(r"^\w+\*+$").any():
                seen.add("masked")
            if text["job"].isin(["health", "office"]).any():
                seen.add("ancestor")
            if (text["sex"] == "*").any():
                seen.add("star")
            if len(release) < len(frame):
                seen.add("records left out")
    assert seen == {
        "range over a table hierarchy",
        "masked",
        "ancestor",
        "star",
        "records left out",
    }


def test_worked_example_mondrian_charges_what_the_release_shows() -> None:
    """(1,*),(1,*),(9,X),(9,X): '*' covers the 3 values of b, X 2 of them; a is released as
    itself. Loss = (2·1 + 2·(2−1)/(3−1)) / 8 = 0.375 (the distinct values in each partition
    would give 0.25)."""
    frame = pd.DataFrame({"a": [1, 1, 9, 9], "b": ["x1", "y", "x1", "x2"], "s": list("pqpq")})
    rows = [["x1", "X", "*"], ["x2", "X", "*"], ["y", "Y", "*"]]
    policy = parse_policy(
        {
            "attributes": {
                "a": {"role": "quasi_identifier"},
                "b": {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": rows}},
                "s": {"role": "sensitive"},
            },
            "models": [{"model": "k-anonymity", "k": 2}],
        }
    )
    release, report = anonymize(frame, policy, "mondrian", keep_order=True)
    assert release.astype(str).values[:, :2].tolist() == [
        ["1", "*"],
        ["1", "*"],
        ["9", "X"],
        ["9", "X"],
    ]
    assert report.metrics["loss"] == pytest.approx(0.375, abs=1e-12)
    assert release_loss(frame.astype(str), release.astype(str), policy) == pytest.approx(0.375)


@pytest.fixture(scope="module")
def adult_releases(adult_frame, tmp_path_factory):
    """Adult (8 quasi-identifiers, k = 5, 1 % suppression) released by every algorithm that
    reports a loss, each written to a file; SafePub under (1, 1e-6)-differential privacy."""
    tmp = tmp_path_factory.mktemp("adult_loss")
    k5 = parse_policy(
        adult_policy(SALARY_QIS, "salary-class", [{"model": "k-anonymity", "k": 5}], 0.01)
    )
    dp = parse_policy(
        adult_policy(
            SALARY_QIS,
            "salary-class",
            [{"model": "differential-privacy", "epsilon": 1.0, "delta": 1e-6}],
            metric="loss",
        )
    )
    out = {}
    for algorithm, policy in [
        ("mingen", k5),
        ("datafly", k5),
        ("incognito", k5),
        ("mondrian", k5),
        ("safepub", dp),
    ]:
        release, report = anonymize(adult_frame, policy, algorithm, seed=3)
        path = tmp / f"{algorithm}.csv"
        release.to_csv(path, index=False)
        out[algorithm] = (path, policy, report)
    return out


@pytest.mark.parametrize("algorithm", ["mingen", "datafly", "incognito", "mondrian", "safepub"])
def test_adult_reported_loss_is_the_documented_loss(algorithm, adult_releases) -> None:
    from anon_helpers import ADULT

    path, policy, report = adult_releases[algorithm]
    got = release_loss(ADULT / "adult.csv", path, policy)
    print(f"{algorithm}: reported {report.metrics['loss']:.6f}, oracle {got:.6f}")
    assert report.metrics["loss"] == pytest.approx(got, abs=1e-9)


def test_microaggregation_reports_nothing_named_loss(adult_frame) -> None:
    """MDAV masks numbers; its report carries SSE/IL1s-style information loss, never a figure
    called ``loss`` that could be read as this one."""
    frame = pd.DataFrame({"x": np.arange(60) % 17, "y": np.arange(60) % 11})
    policy = {
        "attributes": {"x": {"role": "quasi_identifier"}, "y": {"role": "quasi_identifier"}},
        "models": [{"model": "k-anonymity", "k": 3}],
    }
    _, report = anonymize(frame, policy, "mdav", seed=0)
    dumped = report.model_dump()
    assert "loss" not in (dumped.get("metrics") or {})
    assert "loss" not in (dumped.get("information_loss") or {})


@pytest.mark.parametrize("seed", range(3))
def test_loss_by_attribute_is_each_quasi_identifiers_documented_loss(seed, tmp_path) -> None:
    """The report's ``loss_by_attribute`` (the chart of the HTML report) is, per
    quasi-identifier, the oracle's loss of that column alone; their mean is ``loss``."""
    frame, spec = random_case(seed)
    spec["models"] = [m for m in spec["models"] if m["model"] == "k-anonymity"]
    policy = parse_policy(spec)
    original = written(frame, tmp_path, "original")
    qis = policy.quasi_identifiers
    for algorithm, params in [*ALGORITHMS, ("local-suppression", {})]:
        release, report = anonymize(frame, policy, algorithm, seed=seed, **params)
        got = written(release, tmp_path, algorithm)
        per = report.loss_by_attribute
        assert per is not None and list(per) == qis, algorithm
        for name in qis:
            alone = {
                **spec,
                "attributes": {
                    n: (a if n == name or a["role"] != "quasi_identifier" else
                        {"role": "insensitive"})
                    for n, a in spec["attributes"].items()
                },
            }  # fmt: skip
            expected = release_loss(original, got, parse_policy(alone))
            assert per[name] == pytest.approx(expected, abs=1e-9), (algorithm, name)
        assert sum(per.values()) / len(per) == pytest.approx(report.metrics["loss"], abs=1e-12)
