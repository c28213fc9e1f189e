"""Secret randomness in ``privcheck risk``, as in anonymize (docs/anonymization.md): without a
seed every random choice (the intruder sample, tie-breaks, shadow models) draws from the OS
entropy; a given seed (``--seed``, ``seed=``, an attack's ``random_state``) reproduces the report
and is never written into it — text, JSON or HTML carry only ``seed_given``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd
import pytest
import yaml

from privcheck.html_report import render_risk_html
from privcheck.masking import mdav
from privcheck.plugins import risk_registry
from privcheck.risk.assess import assess, intruder_rows, render_risk_text
from privcheck.risk.base import RiskMeasure
from privcheck.risk.outcome import AttackInputs, RiskOutcome
from tests.risk.population.test_intersection import POLICY as INTERSECTION_POLICY
from tests.risk.population.test_intersection import _release, _table

SEED = 918273645  # distinctive: it cannot appear in a report by chance
CASC = Path(__file__).resolve().parents[1] / "data" / "casc"
ADULT = Path(__file__).resolve().parents[2] / "privcheck" / "data" / "adult" / "adult.csv"


def _outputs(report) -> dict[str, str]:
    return {
        "json": report.to_json(),
        "text": render_risk_text(report),
        "html": render_risk_html(report),
    }


class Probe(RiskMeasure):
    """A measure that reports its seed under the keys attacks use (and remembers it), so the
    test sees both what the attack drew from and what the report says."""

    name = "probe"
    summary = "test probe"
    numeric = False
    seen: ClassVar[list[tuple[int, list[int]]]] = []

    @classmethod
    def function(cls):
        def probe(random_state: int = 0) -> None: ...

        return probe

    @classmethod
    def run(cls, inputs: AttackInputs, **params: Any) -> RiskOutcome:
        seed = params.get("random_state", inputs.seed)
        cls.seen.append((seed, inputs.rows.tolist()))
        figures = {"first_row": int(inputs.rows[0]), "random_state": seed}
        return RiskOutcome(
            reidentification_rate=0.5,
            certain_rate=0.0,
            record_risk=np.full(len(inputs.rows), 0.5),
            attribute_contribution={},
            contribution_kind="",
            figures=figures,
            detail={"params": {"random_state": seed, "seed": seed}, "kept": 1},
        )


@pytest.fixture
def frame() -> pd.DataFrame:
    return pd.DataFrame({"x": np.arange(500) % 7, "y": np.arange(500) % 11})


def test_without_a_seed_every_run_draws_afresh_and_writes_no_seed(frame):
    """Two runs without a seed: different intruder samples and seeds, neither written."""
    Probe.seen.clear()
    reports = [assess(frame, frame, ["x", "y"], Probe, intruder_records="40") for _ in range(2)]
    (s1, rows1), (s2, rows2) = Probe.seen
    assert s1 != s2 and rows1 != rows2  # C(500, 40) samples, 2**31 seeds: equal only by a fluke
    for report, seed in zip(reports, (s1, s2), strict=True):
        assert report.seed_given is False
        assert report.intruder_records == "random 40"
        for kind, out in _outputs(report).items():
            assert str(seed) not in out, kind
            assert "random_state" not in out, kind
        assert "operating system's entropy" in render_risk_text(report)
        data = json.loads(report.to_json())
        assert data["seed_given"] is False and "seed" not in data
        assert data["figures"] == {"first_row": report.figures["first_row"]}
        assert data["detail"] == {"params": {}, "kept": 1}


def test_a_given_seed_reproduces_the_run_and_is_never_written(frame):
    Probe.seen.clear()
    a = assess(frame, frame, ["x", "y"], Probe, intruder_records="40", seed=SEED)
    b = assess(frame, frame, ["x", "y"], Probe, intruder_records="40", seed=SEED)
    assert Probe.seen[0] == Probe.seen[1] and Probe.seen[0][0] == SEED
    assert Probe.seen[0][1] == intruder_rows("40", len(frame), SEED)[0].tolist()
    assert a.figures == b.figures and a.seed_given is True
    for kind, out in _outputs(a).items():
        assert str(SEED) not in out, kind
    assert "a given seed (reproducible)" in render_risk_text(a)
    # an attack's own random_state is a seed too: seed_given, and not written
    c = assess(frame, frame, ["x", "y"], Probe, {"random_state": SEED})
    assert Probe.seen[-1][0] == SEED and c.seed_given is True and c.params == {}
    for kind, out in _outputs(c).items():
        assert str(SEED) not in out, kind


def _numeric_files() -> tuple[pd.DataFrame, pd.DataFrame]:
    census = pd.read_csv(CASC / "census.csv").iloc[:60][["AFNLWGT", "AGI", "FICA"]]
    return census, mdav(census, 3).masked


def _adult() -> pd.DataFrame:
    return pd.read_csv(ADULT, sep=";").sample(600, random_state=0).reset_index(drop=True)


#: every built-in attack, with inputs and parameters it runs on (a few records: this is about
#: what the report writes, not about the figures)
CASES: dict[str, dict[str, Any]] = {
    "dbrl": {},
    "mahalanobis": {},
    "prl": {},
    "learned-weighted-mean": {"time_limit": 20},
    "learned-owa": {"time_limit": 20},
    "learned-bilinear": {"time_limit": 20},
    "learned-choquet": {"time_limit": 20},
    "rank-swap-transparency": {"p": 10},
    "microaggregation-transparency": {"k": 3},
    "microaggregation-multivariate-transparency": {"k": 3},
    "uniqueness": {},
    "interval-disclosure": {"p": 5},
    "membership-inference": {"target": "salary-class", "n_repeats": 2},
    "singling-out": {"n_attacks": 50},
    "linkability": {"n_attacks": 50},
    "inference": {"n_attacks": 50},
    "ddmbar": {"target": "salary-class"},
    "release-intersection": {},
}


def test_the_cases_cover_every_built_in_attack():
    from privcheck.risk.measures import BUILTIN_MEASURES

    assert set(CASES) == {m.name for m in BUILTIN_MEASURES}


@pytest.mark.parametrize("attack", list(CASES))
def test_no_attack_writes_the_seed(attack):
    """Each built-in attack's report path, with the seed given as --seed and as random_state:
    the value appears in none of the three formats, and the reports are reproducible."""
    measure = risk_registry()[attack]
    params = dict(CASES[attack])
    policy, others, records, control = None, None, "40", None
    if attack in ("membership-inference", "singling-out", "linkability", "inference"):
        adult = _adult()  # a synthetic table copying its members, against a control set
        original, release, control = adult.iloc[:300], adult.iloc[:300], adult.iloc[300:600]
        qis = ["age", "sex", "race", "education"]
        policy = {"attributes": {"salary-class": {"role": "sensitive"}}}
    elif attack == "ddmbar":
        original = _adult()
        release = original
        qis = ["age"]
    elif attack == "release-intersection":
        rng = np.random.default_rng(3)
        original = _table(rng, 60)
        release, others = _release(rng, original), [_release(rng, original)]
        policy, qis = INTERSECTION_POLICY, ["age", "zip", "sex"]
    else:
        original, release = _numeric_files()
        qis = list(original.columns)
        if attack.startswith("learned") or attack.startswith("microaggregation"):
            records = None  # supervised / whole-file attacks: all records
    if policy is not None:
        from privcheck.policy import load_policy

        policy = load_policy(policy)

    def run(extra: dict[str, Any], seed: int | None):
        return assess(
            original,
            release,
            qis,
            measure,
            {**params, **extra},
            intruder_records=records,
            seed=seed,
            others=others,
            policy=policy,
            control=control,
        )

    first = run({}, SEED)
    again = run({}, SEED)
    assert first.seed_given is True
    assert _untimed(first.figures) == _untimed(again.figures)
    reports = [first]
    if "random_state" in _keywords(measure):
        reports.append(run({"random_state": SEED}, None))
        assert reports[-1].seed_given is True and "random_state" not in reports[-1].params
    for report in reports:
        for kind, out in _outputs(report).items():
            assert str(SEED) not in out, (attack, kind)
            assert '"random_state"' not in out and '"seed"' not in out, (attack, kind)
    assert run({}, None).seed_given is False


def _untimed(figures: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in figures.items() if "seconds" not in k}


def _keywords(measure) -> set[str]:
    import inspect

    return set(inspect.signature(measure.function()).parameters)


def test_cli_seed_is_optional_and_never_written(cli, tmp_path):
    """The command: no --seed → seed_given false; --seed N twice → the same figures, and N in
    none of the JSON, text and HTML reports (nor on stdout/stderr)."""
    original, masked = _numeric_files()
    original.to_csv(tmp_path / "o.csv", index=False)
    masked.to_csv(tmp_path / "m.csv", index=False)
    attrs = {a: {"role": "quasi_identifier"} for a in original.columns}
    (tmp_path / "p.yaml").write_text(yaml.safe_dump({"attributes": attrs}))
    base = ["risk", "--original", tmp_path / "o.csv", "--masked", tmp_path / "m.csv"]
    base += ["-p", tmp_path / "p.yaml", "--attack", "dbrl", "--intruder-records", "25"]
    res = cli(*base, "--format", "json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["seed_given"] is False
    figures = []
    for fmt in ("json", "text", "html", "json"):
        res = cli(*base, "--seed", str(SEED), "--format", fmt)
        assert res.returncode == 0, res.stderr
        assert str(SEED) not in res.stdout + res.stderr, fmt
        if fmt == "json":
            report = json.loads(res.stdout)
            assert report["seed_given"] is True and "seed" not in report
            figures.append(report["figures"])
    assert figures[0] == figures[1]
