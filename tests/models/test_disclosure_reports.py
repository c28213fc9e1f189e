"""β-likeness, δ-disclosure and (α,k)-anonymity through every surface: the JSON Schema, the CLI's
JSON / text / HTML reports, the catalog Verdict, bad input (exit 2, one line), and `privcheck
anonymize` with each generalization algorithm (the release re-checks with the same plugins)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from privcheck import PrivcheckError, anonymize, check, load_policy
from privcheck.api import evaluate
from privcheck.plan import release_policy
from tests.conftest import ADULT, ROOT

MODELS = [
    {"model": "beta-likeness", "beta": 1.0, "attribute": "s"},
    {"model": "beta-likeness", "beta": 1.0, "variant": "enhanced", "attribute": "s"},
    {"model": "delta-disclosure", "delta": 1.0, "attribute": "s"},
    {"model": "delta-disclosure", "delta": 1.0, "log_base": 2, "attribute": "s"},
    {"model": "alpha-k-anonymity", "alpha": 0.7, "k": 3, "attribute": "s"},
    {"model": "alpha-k-anonymity", "alpha": 0.5, "k": 2, "value": "hiv", "attribute": "s"},
]


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(11)
    n = 120
    return pd.DataFrame(
        {
            "zip": rng.choice(["a", "b", "c", "d", "e"], n),
            "sex": rng.choice(["F", "M"], n),
            "s": rng.choice(["flu", "cold", "hiv", "ulcer"], n, p=[0.4, 0.3, 0.2, 0.1]),
        }
    )


def _policy(models=MODELS) -> dict:
    return {
        "attributes": {
            "zip": {"role": "quasi_identifier"},
            "sex": {"role": "quasi_identifier"},
            "s": {"role": "sensitive"},
        },
        "models": models,
    }


def _pandas_figures(frame: pd.DataFrame) -> dict[str, float]:
    """The six values, from pandas group-bys (no privcheck)."""
    p = frame["s"].value_counts(normalize=True)
    q = frame.groupby(["zip", "sex"])["s"].value_counts(normalize=True)
    ratio = q / q.index.get_level_values(-1).map(p).to_numpy()
    hiv = frame.assign(h=frame["s"] == "hiv").groupby(["zip", "sex"])["h"].mean()
    top = frame.groupby(["zip", "sex"])["s"].agg(lambda s: s.value_counts(normalize=True).max())
    gain = max(float((ratio - 1).max()), 0.0)
    return {
        "beta": gain,
        "delta": float(np.abs(np.log(ratio)).max()),
        "delta2": float(np.abs(np.log2(ratio)).max()),
        "alpha": float(top.max()),
        "hiv": float(hiv.max()),
    }


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    data = tmp_path / "data.csv"
    _frame().to_csv(data, index=False)
    policy = tmp_path / "policy.yaml"
    policy.write_text(yaml.safe_dump(_policy()))
    return data, policy


def test_committed_schema_knows_the_models():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "schemas" / "policy.schema.json").read_text())
    mapping = schema["properties"]["models"]["items"]["discriminator"]["mapping"]
    assert {"beta-likeness", "delta-disclosure", "alpha-k-anonymity"} <= set(mapping)
    jsonschema.validate(_policy(), schema)
    for bad in (
        {"model": "beta-likeness", "beta": 0},
        {"model": "delta-disclosure", "delta": 1, "log_base": 10},
        {"model": "alpha-k-anonymity", "alpha": 1.5, "k": 2},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(_policy([bad]), schema)


def test_json_report_values(cli, files):
    data, policy = files
    res = cli("check", data, "--policy", policy, "--format", "json")
    assert res.returncode in (0, 1), res.stderr
    report = json.loads(res.stdout)
    want = _pandas_figures(_frame())
    values = [m["value"] for m in report["models"]]
    expected = [
        want["beta"],
        want["beta"],
        want["delta"],
        want["delta2"],
        want["alpha"],
        want["hiv"],
    ]
    assert values == pytest.approx(expected, rel=1e-12)
    assert res.returncode == (0 if report["passed"] else 1)
    assert report["models"][2]["params"]["log_base"] == "e"
    assert report["models"][3]["params"]["log_base"] == 2


def test_text_and_html_reports(cli, files, tmp_path):
    data, policy = files
    text = cli("check", data, "--policy", policy).stdout
    for name in ("beta-likeness", "delta-disclosure", "alpha-k-anonymity", "largest |ln(q/p)|"):
        assert name in text
    html = tmp_path / "r.html"
    res = cli("check", data, "--policy", policy, "--format", "html", "-o", html)
    assert res.returncode in (0, 1), res.stderr
    page = html.read_text()
    assert "delta-disclosure" in page and "&lt; 1" in page and "≤ 0.7" in page


def test_catalog_verdict():
    verdict = evaluate(_frame(), _policy(), name="t")
    got = {
        (m.model, m.params.get("variant") or m.params.get("log_base") or m.params.get("value")): m
        for m in verdict.models
    }
    beta = got[("beta-likeness", "basic")]
    assert (beta.required, beta.comparison) == (1.0, "<=")
    delta = got[("delta-disclosure", 2)]
    assert (delta.required, delta.comparison) == (1.0, "<")
    alpha = got[("alpha-k-anonymity", None)]
    assert (alpha.required, alpha.comparison) == (0.7, "<=")
    want = _pandas_figures(_frame())
    assert math.isclose(delta.value, want["delta2"], rel_tol=1e-12)


@pytest.mark.parametrize(
    ("model", "needle"),
    [
        ({"model": "beta-likeness", "beta": 0}, "beta"),
        ({"model": "beta-likeness", "beta": -1}, "beta"),
        ({"model": "beta-likeness", "beta": 1, "variant": "strong"}, "variant"),
        ({"model": "delta-disclosure", "delta": 0}, "delta"),
        ({"model": "delta-disclosure", "delta": 1, "log_base": 10}, "log_base"),
        ({"model": "alpha-k-anonymity", "alpha": 0, "k": 2}, "alpha"),
        ({"model": "alpha-k-anonymity", "alpha": 1.01, "k": 2}, "alpha"),
        ({"model": "alpha-k-anonymity", "alpha": 0.5, "k": 0}, "k"),
        ({"model": "alpha-k-anonymity", "alpha": 0.5, "k": 2, "value": "typo"}, "does not occur"),
        ({"model": "beta-likeness", "beta": 1, "attribute": "zip"}, "not a sensitive"),
    ],
)
def test_bad_input_is_one_policy_error(model, needle):
    with pytest.raises(PrivcheckError, match=needle) as err:
        check(_frame(), _policy([model]))
    assert "\n" not in str(err.value)
    with pytest.raises(PrivcheckError, match=needle):
        anonymize(_frame(), _policy([model]), "mingen")


@pytest.mark.parametrize(
    "model",
    [
        {"model": "beta-likeness", "beta": 0},
        {"model": "delta-disclosure", "delta": -0.5},
        {"model": "alpha-k-anonymity", "alpha": 1.5, "k": 2},
    ],
)
def test_bad_input_cli_exits_2_with_one_line(cli, tmp_path, model):
    data = tmp_path / "data.csv"
    _frame().to_csv(data, index=False)
    policy = tmp_path / "policy.yaml"
    policy.write_text(yaml.safe_dump(_policy([model])))
    res = cli("check", data, "--policy", policy)
    assert res.returncode == 2 and res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and model["model"] in lines[0], res.stderr


def test_bad_input_anonymize_exits_2_without_output(cli, tmp_path):
    data = tmp_path / "data.csv"
    _frame().to_csv(data, index=False)
    policy = tmp_path / "policy.yaml"
    model = {"model": "alpha-k-anonymity", "alpha": 0.5, "k": 2, "value": "typo"}
    policy.write_text(yaml.safe_dump(_policy([model])))
    out = tmp_path / "release.csv"
    res = cli("anonymize", data, "--policy", policy, "-o", out)
    assert res.returncode == 2 and not out.exists()
    assert res.stderr.strip() == (
        "privcheck: error: alpha-k-anonymity: value 'typo' does not occur in 's'; name a value "
        "of the attribute (or leave 'value' out to cap every value's share)"
    )


QIS = ["age", "sex", "race", "marital-status"]


def _adult_policy(models: list[dict], limit: float) -> dict:
    attrs = {
        q: {
            "role": "quasi_identifier",
            "hierarchy": {"type": "table", "path": str(ADULT / "hierarchies" / f"{q}.csv")},
        }
        for q in QIS
    }
    attrs["occupation"] = {"role": "sensitive"}
    return {"attributes": attrs, "models": models, "suppression_limit": limit}


@pytest.mark.parametrize("algorithm", ["incognito", "mingen", "datafly"])
@pytest.mark.parametrize(
    "models",
    [
        [{"model": "k-anonymity", "k": 5}, {"model": "beta-likeness", "beta": 1.5}],
        [{"model": "delta-disclosure", "delta": 1.2, "log_base": 2}],
        [{"model": "alpha-k-anonymity", "alpha": 0.4, "k": 5}],
    ],
    ids=["beta", "delta", "alpha-k"],
)
def test_adult_anonymize_enforces_and_rechecks(adult_frame, algorithm, models):
    """Adult on four quasi-identifiers (occupation sensitive), 2 % suppression: every algorithm's
    release re-checks under the same plugins, and an independent check of the release passes."""
    policy = _adult_policy(models, 0.02)
    release, report = anonymize(adult_frame, policy, algorithm)
    assert report.check.passed and report.n_suppressed <= 0.02 * len(adult_frame)
    again = check(release, release_policy(load_policy(policy)))
    assert again.passed and [m.model for m in again.models] == [m["model"] for m in models]


def test_cli_anonymize_delta_disclosure(cli, tmp_path):
    policy = tmp_path / "p.yaml"
    models = [{"model": "delta-disclosure", "delta": 1.2, "log_base": 2}]
    policy.write_text(yaml.safe_dump(_adult_policy(models, 0.02)))
    out, rep = tmp_path / "r.csv", tmp_path / "r.json"
    res = cli("anonymize", ADULT / "adult.csv", "-p", policy, "-o", out, "--report", rep)
    assert res.returncode == 0, res.stderr
    report = json.loads(rep.read_text())
    assert report["algorithm"] == "auto" and report["check"]["passed"]
    assert report["chosen"] in ("mingen", "mondrian")
    check = cli("check", out, "--policy", policy, "--format", "json")
    assert check.returncode == 0 and json.loads(check.stdout)["models"][0]["value"] < 1.2
