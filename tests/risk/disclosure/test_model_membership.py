"""Membership inference: an overfitted model leaks membership, a regularised one does not."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import stats

from privcheck.errors import PolicyError
from privcheck.risk.synthetic.membership import membership_inference

pytest.importorskip("sklearn")

#: the Adult extract the package embeds for its demo (ARX's version of the UCI data)
ADULT = Path(__file__).resolve().parents[3] / "privcheck" / "data" / "adult" / "adult.csv"


def _adult() -> pd.DataFrame:
    full = pd.read_csv(ADULT, sep=";")
    return full.sample(6000, random_state=0).reset_index(drop=True)


@pytest.fixture(scope="module")
def adult():
    return _adult()


def _tree_pipeline(train: pd.DataFrame):
    from sklearn.compose import make_column_transformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder
    from sklearn.tree import DecisionTreeClassifier

    feats = [c for c in train.columns if c != "salary-class"]
    cat = [c for c in feats if c != "age"]
    return make_pipeline(
        make_column_transformer(
            (OneHotEncoder(handle_unknown="ignore"), cat), remainder="passthrough"
        ),
        DecisionTreeClassifier(random_state=0),
    ).fit(train[feats], train["salary-class"])


def test_overfitted_model_leaks_membership(adult):
    """A fully grown decision tree fitted on 2 000 Adult rows (the members), 4 000 rows it never
    saw as the control set: advantage clearly positive, interval above 0."""
    release, control = adult.iloc[:2000], adult.iloc[2000:]
    model = _tree_pipeline(release)
    res = membership_inference(adult, release, "salary-class", model=model, control=control)
    assert res["advantage"] > 0.15
    assert res["advantage_ci"][0] > 0.05
    assert res["auc"] > 0.58 and res["accuracy"] > 0.55
    assert res["n_members"] == 2000 and res["n_controls"] == 4000
    # advantage = TPR − FPR on the balanced evaluation set = 2·(accuracy − 0.5)
    assert res["advantage"] == pytest.approx(2 * (res["accuracy"] - 0.5), abs=1e-9)
    assert res["loss_threshold"]["advantage"] > 0.1
    assert res["loss_threshold"]["advantage_ci"][0] > 0
    # the interval is the Student-t 95 % interval of the mean over the repeats
    per = res["advantage_per_repeat"]
    t = stats.t.interval(0.95, len(per) - 1, loc=np.mean(per), scale=stats.sem(per))
    assert res["advantage_ci"] == pytest.approx(list(t))
    again = membership_inference(adult, release, "salary-class", model=model, control=control)
    assert again["advantage_per_repeat"] == res["advantage_per_repeat"]  # seeded


def test_a_model_needs_a_control_set(adult):
    model = _tree_pipeline(adult.iloc[:500])
    with pytest.raises(PolicyError, match="--control PATH, or --param control_share=F"):
        membership_inference(adult, adult.iloc[:500], "salary-class", model=model)
    # control_share: the control set is the share of the original split_control holds out
    from privcheck.risk.synthetic.control import split_control

    members, _ = split_control(adult, 0.5, 4)
    res = membership_inference(
        adult,
        members,
        "salary-class",
        model=_tree_pipeline(members),
        control_share=0.5,
        random_state=4,
        n_repeats=2,
    )
    assert res["n_members"] == res["n_controls"] == 3000 and res["advantage_ci"][0] > 0


def test_regularised_model_on_a_large_sample_includes_zero():
    """A fitted estimator as released: strongly regularised logistic regression (C = 0.01) on
    15,000 Adult rows, the other 15,162 as the control set; the advantage interval includes 0
    (seeded: the same figures again)."""
    from sklearn.compose import make_column_transformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    full = pd.read_csv(ADULT, sep=";").sample(frac=1.0, random_state=1).reset_index(drop=True)
    release, control = full.iloc[:15000], full.iloc[15000:]
    feats = [c for c in full.columns if c != "salary-class"]
    model = make_pipeline(
        make_column_transformer((OneHotEncoder(handle_unknown="ignore"), feats)),
        LogisticRegression(C=0.01, max_iter=1000),
    ).fit(release[feats], release["salary-class"])
    kw = {"model": model, "control": control, "random_state": 3}
    res = membership_inference(full, release, "salary-class", **kw)
    low, high = res["advantage_ci"]
    assert low < 0 < high
    again = membership_inference(full, release, "salary-class", **kw)
    assert again["advantage_per_repeat"] == res["advantage_per_repeat"]


def test_true_label_probability():
    """The attack feature 'probability of the true label' picks the label's column, and a label
    the model never saw gets 0."""
    from sklearn.tree import DecisionTreeClassifier

    from privcheck.risk.disclosure.model_membership import attack_features as _attack_features

    x = np.array([[0.0], [1.0], [2.0]])
    model = DecisionTreeClassifier().fit(x, np.array(["b", "a", "c"]))
    f = _attack_features(model, x, np.array(["b", "a", "zz"]))
    assert f[:, -1].tolist() == [1.0, 1.0, 0.0]
    assert f[:, 0].tolist() == [1.0, 1.0, 1.0]  # sorted vector, highest first


def test_no_predict_proba(adult):
    from sklearn.svm import LinearSVC

    with pytest.raises(PolicyError, match="predict_proba"):
        membership_inference(adult, adult.iloc[:500], "salary-class", model=LinearSVC())


def test_cli_json_and_bad_model(cli, tmp_path, adult):
    import joblib
    import skops.io
    from sklearn.svm import LinearSVC

    orig, rel, ctl = tmp_path / "orig.csv", tmp_path / "rel.csv", tmp_path / "ctl.csv"
    adult.iloc[:3000].to_csv(orig, index=False)
    adult.iloc[:1000].to_csv(rel, index=False)
    adult.iloc[3000:5000].to_csv(ctl, index=False)
    model = tmp_path / "tree.joblib"
    joblib.dump(_tree_pipeline(adult.iloc[:1000]), model)
    pol = tmp_path / "p.yaml"
    pol.write_text(yaml.safe_dump({"attributes": {"age": {"role": "quasi_identifier"}}}))
    base = ["risk", "--original", orig, "--masked", rel, "--policy", pol, "--control", ctl]
    base += ["--attack", "membership-inference", "--param", "target=salary-class"]
    out = cli(
        *base,
        "--param",
        f"model={model}",
        "--trust-model-file",
        "--param",
        "n_repeats=3",
        "--format",
        "json",
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    figures = report["figures"]
    for key in ("advantage", "advantage_ci", "auc", "accuracy", "loss_threshold", "n_controls"):
        assert key in figures
    assert figures["advantage_ci"][0] <= figures["advantage"] <= figures["advantage_ci"][1]
    for key in ("advantage", "advantage_ci", "auc", "accuracy"):  # the contract's top level
        assert report[key] == figures[key]
    fitted = LinearSVC().fit([[0.0], [1.0]], [0, 1])
    svc, pickled = tmp_path / "svc.skops", tmp_path / "svc.joblib"
    skops.io.dump(fitted, svc)
    joblib.dump(fitted, pickled)
    for extra in (
        ["--param", f"model={svc}"],
        ["--param", f"model={pickled}", "--trust-model-file"],
    ):
        bad = cli(*base, *extra, "--format", "json")
        assert bad.returncode == 2
        assert bad.stdout == ""
        lines = bad.stderr.strip().splitlines()
        assert len(lines) == 1 and "predict_proba" in lines[0]
