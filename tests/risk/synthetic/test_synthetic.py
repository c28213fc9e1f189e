"""Attacks on a synthetic table against a control set: the shared machinery (control set,
distances, nearest neighbours, Wilson rates) and the four attacks end to end on Adult."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
import yaml

from privcheck.errors import DataError, PolicyError
from privcheck.plugins import risk_registry
from privcheck.risk.assess import assess, render_risk_text
from privcheck.risk.synthetic.control import (
    MixedEncoding,
    control_set,
    nearest,
    overlap_limit,
    risk_figures,
    split_control,
    success_rate,
)
from tests.risk.synthetic.synthetic_data import QIS

ATTACKS = ("membership-inference", "singling-out", "linkability", "inference")


def _run(data, release: str, attack: str, seed: int = 5, **params):
    policy = {
        "attributes": {
            **{q: {"role": "quasi_identifier"} for q in QIS},
            "salary-class": {"role": "sensitive"},
        }
    }
    from privcheck.policy import parse_policy

    return assess(
        data["members"],
        data[release],
        QIS,
        risk_registry()[attack],
        params,
        seed=seed,
        policy=parse_policy(policy),
        control=data["control"],
    )


def _interval(report) -> tuple[float, float]:
    key = "advantage_ci" if report.attack == "membership-inference" else "risk_ci"
    low, high = report.figures[key]
    return low, high


# --------------------------------------------------------------------------- the scenario


@pytest.mark.parametrize("attack", ATTACKS)
def test_a_leaking_release_lies_above_zero(adult_synthetic, attack):
    """The members with 5 % of cells shuffled: every attack's interval lies above 0."""
    low, _ = _interval(_run(adult_synthetic, "leak", attack))
    assert low > 0


@pytest.mark.parametrize("attack", ATTACKS)
def test_an_independent_draw_contains_zero(adult_synthetic, attack):
    """Rows of the rest of Adult (no member among them): every interval contains 0."""
    low, high = _interval(_run(adult_synthetic, "independent", attack))
    assert low <= 0 <= high


def test_the_figures_the_contract_names(adult_synthetic):
    mi = _run(adult_synthetic, "leak", "membership-inference").figures
    for key in ("advantage", "advantage_ci", "auc", "n_members", "n_controls"):
        assert key in mi
    assert mi["n_members"] == mi["n_controls"] == len(adult_synthetic["members"])
    assert mi["advantage_ci"][0] <= mi["advantage"] <= mi["advantage_ci"][1]
    assert 0.5 < mi["auc"] <= 1
    for attack in ("singling-out", "linkability"):
        f = _run(adult_synthetic, "leak", attack).figures
        for key in ("risk", "risk_ci", "attack_rate", "control_rate", "n_attacks"):
            assert key in f, (attack, key)
        assert f["risk_ci"][0] <= f["risk"] <= f["risk_ci"][1]
    f = _run(adult_synthetic, "leak", "inference").figures
    entry = f["attributes"]["salary-class"]
    for key in ("risk", "risk_ci", "attack_rate", "control_rate", "n_attacks"):
        assert key in entry
    assert f["attribute"] == "salary-class" and f["risk"] == entry["risk"]


def test_reproducible_with_a_seed(adult_synthetic):
    a = _run(adult_synthetic, "leak", "linkability", seed=11).figures
    b = _run(adult_synthetic, "leak", "linkability", seed=11).figures
    assert a == b


def test_model_confidence_attack_on_the_synthetic_table(adult_synthetic):
    """With a target, a model fitted on the release scores members against controls too."""
    pytest.importorskip("sklearn")
    f = _run(adult_synthetic, "leak", "membership-inference", target="salary-class").figures
    conf = f["model_confidence"]
    assert conf["advantage_ci"][0] > 0
    f = _run(adult_synthetic, "independent", "membership-inference", target="salary-class")
    low, high = f.figures["model_confidence"]["advantage_ci"]
    assert low <= 0 <= high


# --------------------------------------------------------------------------- the control set


def test_no_control_set_is_refused(adult_synthetic):
    for attack in ATTACKS:
        with pytest.raises(PolicyError, match="--control PATH, or --param control_share=F"):
            assess(
                adult_synthetic["members"],
                adult_synthetic["leak"],
                QIS,
                risk_registry()[attack],
                {},
                seed=1,
            )


@pytest.mark.parametrize("attack", ATTACKS)
def test_an_empty_synthetic_table_is_refused_not_a_traceback(adult_synthetic, attack):
    """A header-only synthetic table crashed membership inference (an IndexError), singling
    out (``high <= 0``) and inference; linkability called it safe. Each refuses it now."""
    empty = adult_synthetic["leak"].iloc[:0]
    params = {"secret": "salary-class"} if attack == "inference" else {}
    data = {**adult_synthetic, "empty": empty}
    with pytest.raises(DataError, match=r"the synthetic table \(--masked\) has no records"):
        _run(data, "empty", attack, **params)


@pytest.mark.parametrize("attack", ATTACKS)
def test_an_empty_original_or_control_set_is_refused(adult_synthetic, attack):
    params = {"secret": "salary-class"} if attack == "inference" else {}
    members, control = adult_synthetic["members"], adult_synthetic["control"]
    for original, ctl in ((members.iloc[:0], control), (members, control.iloc[:0])):
        with pytest.raises(DataError, match=r"at least one record|no records"):
            assess(
                original, adult_synthetic["leak"], QIS, risk_registry()[attack], params,
                seed=1, control=ctl,
            )  # fmt: skip


def test_the_library_functions_refuse_empty_tables_too(adult_synthetic):
    from privcheck.risk.synthetic.inference import inference
    from privcheck.risk.synthetic.linkability import linkability
    from privcheck.risk.synthetic.membership import membership_inference
    from privcheck.risk.synthetic.singling_out import singling_out

    members, control = adult_synthetic["members"], adult_synthetic["control"]
    empty = adult_synthetic["leak"].iloc[:0]
    calls = [
        lambda syn, ctl: singling_out(members, syn, ctl, attributes=QIS),
        lambda syn, ctl: linkability(members, syn, ctl, attributes=QIS),
        lambda syn, ctl: inference(members, syn, ctl, ["salary-class"], attributes=QIS),
        lambda syn, ctl: membership_inference(members, syn, control=ctl, attributes=QIS),
    ]
    for call in calls:
        with pytest.raises(DataError, match="synthetic table"):
            call(empty, control)
        with pytest.raises(DataError, match=r"no records|at least one record"):
            call(adult_synthetic["leak"], control.iloc[:0])


def test_the_cli_refuses_an_empty_synthetic_table_in_one_line(adult_synthetic, tmp_path, cli):
    members, syn, ctl = tmp_path / "m.csv", tmp_path / "s.csv", tmp_path / "c.csv"
    adult_synthetic["members"].to_csv(members, index=False)
    adult_synthetic["leak"].iloc[:0].to_csv(syn, index=False)
    adult_synthetic["control"].to_csv(ctl, index=False)
    policy = tmp_path / "p.yaml"
    policy.write_text(
        yaml.safe_dump(
            {
                "attributes": {q: {"role": "quasi_identifier"} for q in QIS}
                | {"salary-class": {"role": "sensitive"}},
                "models": [{"model": "k-anonymity", "k": 2}],
            }
        )
    )
    for attack in ATTACKS:
        res = cli(
            "risk", "--original", members, "--masked", syn, "--control", ctl, "-p", policy,
            "-a", attack, "--seed", "1",
        )  # fmt: skip
        lines = res.stderr.strip().splitlines()
        assert res.returncode == 2 and len(lines) == 1, res.stderr
        assert "synthetic table (--masked) has no records" in lines[0]


def test_control_columns_must_match(adult_synthetic):
    with pytest.raises(DataError, match=r"control set's columns differ.*lacks \['occupation'\]"):
        control_set(
            adult_synthetic["members"],
            adult_synthetic["control"].drop(columns="occupation"),
            control_share=None,
            seed=0,
            seed_given=True,
        )


def test_overlapping_control_set_is_refused(adult_synthetic):
    """Adult's rows coincide by chance (about 18 % of a 2,000-row control set equal a member
    row); a control set that is 20 % members on top of that is refused, an honest one is not."""
    members, control = adult_synthetic["members"], adult_synthetic["control"]
    honest = overlap_limit(members, control, list(members.columns))
    assert 0.1 < honest["shared"] < honest["limit"] and not honest["overlaps"]
    assert abs(honest["shared"] - honest["chance"]) < 0.05
    mixed = pd.concat([members.iloc[:400], control.iloc[400:]], ignore_index=True)
    with pytest.raises(DataError, match="control set overlaps the members"):
        control_set(members, mixed, control_share=None, seed=0, seed_given=True)
    with pytest.raises(DataError, match="overlaps"):
        control_set(members, members, control_share=None, seed=0, seed_given=True)


def test_split_control_is_reproducible(adult_synthetic):
    table = adult_synthetic["members"]
    a_members, a_control = split_control(table, 0.25, 9)
    _, b_control = split_control(table, 0.25, 9)
    assert len(a_control) == 500 and len(a_members) == 1500
    pd.testing.assert_frame_equal(a_control, b_control)
    with pytest.raises(PolicyError, match="--seed"):
        control_set(table, None, control_share=0.25, seed=9, seed_given=False)
    members, control = control_set(table, None, control_share=0.25, seed=9, seed_given=True)
    pd.testing.assert_frame_equal(control, a_control)
    pd.testing.assert_frame_equal(members, a_members)
    with pytest.raises(PolicyError, match="strictly between 0 and 1"):
        split_control(table, 1.5, 0)


# --------------------------------------------------------------------------- distances


def _gower(a: pd.Series, b: pd.Series, numeric: list[str], ranges: dict) -> float:
    """The mixed distance record by record (the oracle): |x − y| / range, or 0/1 per category."""
    return sum(
        abs(float(a[c]) - float(b[c])) / ranges[c] if c in numeric else float(a[c] != b[c])
        for c in a.index
    )


def test_nearest_matches_a_brute_force_search():
    rng = np.random.default_rng(3)
    n = 60
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 30, n).astype(str),  # numbers written as text (a CSV)
            "height": rng.normal(170, 10, n).round(1),
            "sex": rng.choice(["f", "m"], n),
            "region": rng.choice(list("abc"), n),
        }
    )
    q, c = frame.iloc[:20], frame.iloc[20:]
    cols = list(frame.columns)
    enc = MixedEncoding.of([c, q], cols)
    assert enc.numeric_columns == ["age", "height"]
    idx, dist = nearest(enc, enc.take(1, np.arange(20)), enc.take(0, np.arange(40)), k=1, rng=rng)
    ranges = {
        x: float(pd.to_numeric(frame[x]).max() - pd.to_numeric(frame[x]).min())
        for x in ["age", "height"]
    }
    for i in range(20):
        d = [_gower(q.iloc[i], c.iloc[j], ["age", "height"], ranges) for j in range(40)]
        assert dist[i, 0] == pytest.approx(min(d), abs=1e-9)
        assert d[idx[i, 0]] == pytest.approx(min(d), abs=1e-9)


def test_ties_are_broken_uniformly_at_random():
    """A query tied with 4 identical candidates picks each about a quarter of the time, never
    a farther one (the first of the tied records would always be candidate 0)."""
    cand = pd.DataFrame({"sex": ["f", "f", "f", "f", "m"], "age": [30, 30, 30, 30, 30]})
    query = pd.DataFrame({"sex": ["f"] * 4000, "age": [30] * 4000})
    enc = MixedEncoding.of([cand, query], ["sex", "age"])
    idx, dist = nearest(
        enc, enc.take(1, np.arange(4000)), enc.take(0, np.arange(5)), rng=np.random.default_rng(0)
    )
    counts = np.bincount(idx[:, 0], minlength=5)
    assert counts[4] == 0 and (dist == 0).all()
    assert (np.abs(counts[:4] - 1000) < 100).all()  # 1000 ± 4.5 standard deviations
    two, _ = nearest(
        enc,
        enc.take(1, np.arange(100)),
        enc.take(0, np.arange(5)),
        k=2,
        rng=np.random.default_rng(1),
    )
    assert (two[:, 0] != two[:, 1]).all() and (two < 4).all()


def test_numeric_missing_values_are_refused():
    a = pd.DataFrame({"x": [1.0, np.nan]})
    with pytest.raises(DataError, match="numeric column 'x' has missing values"):
        MixedEncoding.of([a, a], ["x"])


# --------------------------------------------------------------------------- statistics


def test_rates_and_risk_are_anonymeters():
    """Wilson-score rates and the residual risk with its propagated error: Anonymeter's own
    functions are the oracle."""
    pytest.importorskip("anonymeter")
    from anonymeter.stats.confidence import EvaluationResults

    for n, s, c, b in ((500, 120, 40, 3), (300, 0, 0, 0), (200, 200, 10, 1), (500, 20, 60, 2)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = EvaluationResults(n_attacks=n, n_success=s, n_baseline=b, n_control=c)
        ours = risk_figures(s, n, c, n, b, n)
        risk = theirs.risk()
        assert ours["risk"] == pytest.approx(risk.value, abs=1e-12)
        assert ours["risk_ci"] == pytest.approx(list(risk.ci), abs=1e-12)
        assert ours["attack_rate"] == pytest.approx(theirs.attack_rate.value, abs=1e-12)
        assert ours["control_rate"] == pytest.approx(theirs.control_rate.value, abs=1e-12)
    rate, err = success_rate(100, 30)
    assert rate == pytest.approx((30 + 1.92073) / (100 + 3.84146), abs=1e-5)
    assert err > 0


# --------------------------------------------------------------------------- CLI, policy, Verdict


@pytest.fixture
def files(tmp_path, adult_synthetic):
    paths = {}
    for name, frame in adult_synthetic.items():
        paths[name] = tmp_path / f"{name}.csv"
        frame.to_csv(paths[name], sep=";", index=False)
    policy = {
        "attributes": {
            **{q: {"role": "quasi_identifier"} for q in QIS},
            "salary-class": {"role": "sensitive"},
        },
        "synthetic_risk": {"max_risk": 0.05},
    }
    paths["policy"] = tmp_path / "p.yaml"
    paths["policy"].write_text(yaml.safe_dump(policy))
    return paths


def _cli_args(files, release, attack, *extra):
    return [
        "risk",
        "--original",
        files["members"],
        "--masked",
        files[release],
        "--policy",
        files["policy"],
        "--attack",
        attack,
        "--seed",
        "3",
        *extra,
    ]


def test_cli_json_exit_codes_and_policy_bound(cli, files):
    out = cli(
        *_cli_args(files, "leak", "singling-out", "--control", files["control"]), "--format", "json"
    )
    assert out.returncode == 1, out.stderr  # above synthetic_risk.max_risk
    report = json.loads(out.stdout)
    assert report["passed"] is False and report["max_risk"] == 0.05
    assert report["control"] == str(files["control"])
    assert report["figures"]["risk"] > 0.05
    ok = cli(
        *_cli_args(files, "independent", "linkability", "--control", files["control"]),
        "--format",
        "json",
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["passed"] is True
    text = cli(*_cli_args(files, "leak", "inference", "--control", files["control"]))
    assert text.returncode == 1
    assert "attributes.salary-class.risk" in text.stdout and "VIOLATED" in text.stdout


def test_cli_bad_input_exits_2_in_one_line(cli, files, tmp_path, adult_synthetic):
    def one_line(out, *words):
        assert out.returncode == 2 and out.stdout == ""
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1, out.stderr
        for w in words:
            assert w in lines[0]

    for attack in ("membership-inference", "inference"):  # (all four: in-process above)
        one_line(cli(*_cli_args(files, "leak", attack)), "--control", "control_share")
    narrow = tmp_path / "narrow.csv"
    adult_synthetic["control"].drop(columns="race").to_csv(narrow, sep=";", index=False)
    one_line(cli(*_cli_args(files, "leak", "linkability", "--control", narrow)), "columns differ")
    one_line(
        cli(*_cli_args(files, "leak", "singling-out", "--control", files["members"])),
        "overlaps the members",
    )
    synthetic_narrow = tmp_path / "syn.csv"
    adult_synthetic["leak"].drop(columns="race").to_csv(synthetic_narrow, sep=";", index=False)
    one_line(
        cli(
            "risk",
            "--original",
            files["members"],
            "--masked",
            synthetic_narrow,
            "--policy",
            files["policy"],
            "--attack",
            "inference",
            "--control",
            files["control"],
        ),
        "synthetic table's columns differ",
    )
    one_line(
        cli(*_cli_args(files, "leak", "dbrl", "--control", files["control"])),
        "takes no control set",
    )
    one_line(
        cli(
            *_cli_args(
                files,
                "leak",
                "linkability",
                "--control",
                files["control"],
                "--output",
                files["control"],
            )
        ),
        "--output",
    )


def test_control_share_on_the_command_line(cli, files, tmp_path, adult_synthetic):
    """--param control_share=F with the seed the split was made with: the generator's training
    rows are the rest of --original."""
    whole = pd.concat([adult_synthetic["members"], adult_synthetic["control"]], ignore_index=True)
    members, _ = split_control(whole, 0.5, 3)
    original = tmp_path / "whole.csv"
    whole.to_csv(original, sep=";", index=False)
    leak = tmp_path / "leak_split.csv"
    members.to_csv(leak, sep=";", index=False)  # a release copying the members exactly
    args = [
        "risk",
        "--original",
        original,
        "--masked",
        leak,
        "--policy",
        files["policy"],
        "--attack",
        "membership-inference",
        "--param",
        "control_share=0.5",
        "--format",
        "json",
    ]
    out = cli(*args, "--seed", "3")
    assert out.returncode == 1, out.stderr
    figures = json.loads(out.stdout)["figures"]
    assert figures["n_members"] == figures["n_controls"] == len(whole) // 2
    assert figures["advantage_ci"][0] > 0.5
    no_seed = cli(*args)
    assert no_seed.returncode == 2 and "--seed" in no_seed.stderr


def test_html_draws_the_distances(cli, files, tmp_path):
    page = tmp_path / "mi.html"
    out = cli(
        *_cli_args(files, "leak", "membership-inference", "--control", files["control"]),
        "--output",
        page,
    )
    assert out.returncode == 1, out.stderr
    html = page.read_text()
    assert "Distance to the closest synthetic record: members and controls" in html
    assert "<svg" in html


def test_text_report(adult_synthetic):
    text = render_risk_text(_run(adult_synthetic, "leak", "membership-inference"))
    assert "advantage_ci" in text and "distance.auc" in text


def test_verdict_of_a_synthetic_table(adult_synthetic):
    from privcheck.api import evaluate_synthetic
    from privcheck.catalog import to_openmetadata

    policy = {
        "attributes": {
            **{q: {"role": "quasi_identifier"} for q in QIS},
            "salary-class": {"role": "sensitive"},
        },
        "synthetic_risk": {"max_risk": 0.05},
    }
    v = evaluate_synthetic(
        adult_synthetic["members"],
        adult_synthetic["leak"],
        adult_synthetic["control"],
        policy,
        seed=2,
        name="synthetic.csv",
    )
    assert not v.passed
    assert [m.model for m in v.models] == list(ATTACKS)
    assert v.models[-1].params == {"attribute": "salary-class"}
    assert all(m.required == 0.05 and m.comparison == "<=" and not m.passed for m in v.models)
    safe = evaluate_synthetic(
        adult_synthetic["members"],
        adult_synthetic["independent"],
        adult_synthetic["control"],
        policy,
        seed=2,
        attacks=("linkability",),
    )
    assert safe.passed and safe.models[0].value <= 0.05
    bodies = to_openmetadata(v, "hive.default.synthetic")
    assert bodies[0]["testCaseStatus"] == "Failed"
    with pytest.raises(PolicyError, match="not an attack on a synthetic table"):
        evaluate_synthetic(
            adult_synthetic["members"],
            adult_synthetic["leak"],
            adult_synthetic["control"],
            policy,
            attacks=("dbrl",),
        )
