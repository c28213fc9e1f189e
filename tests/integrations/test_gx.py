"""privcheck_gx in a real GX context: data source → batch definition → suite → validation
definition → checkpoint, on pandas. Oracles: pandas group-bys written here, independently of
privcheck (class sizes, distinct counts), a linear-programming EMD, and Li et al.'s figures."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

gx = pytest.importorskip("great_expectations")

import privcheck_gx as pg  # noqa: E402
from great_expectations.data_context.types.base import ProgressBarsConfig  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ADULT = ROOT / "privcheck" / "data" / "adult"
EXAMPLES = ROOT / "tests" / "data" / "examples"
QIS = [
    "age",
    "sex",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
]
#: a node of the ARX hierarchies (level per QI, in QIS order) at which Adult is 5-anonymous
#: without suppression (found with privcheck.classes.rollup; re-checked below by pandas)
NODE = (1, 1, 1, 2, 3, 2, 2, 1)


def quiet_context(**kwargs):
    ctx = gx.get_context(**kwargs)
    ctx.variables.progress_bars = ProgressBarsConfig(globally=False)
    return ctx


@pytest.fixture(scope="module")
def adult() -> pd.DataFrame:
    return pd.read_csv(ADULT / "adult.csv", sep=";", dtype=str, keep_default_na=False)


@pytest.fixture(scope="module")
def generalized(adult) -> pd.DataFrame:
    """Adult generalized to NODE by reading ARX's hierarchy tables directly (no privcheck)."""
    out = adult.copy()
    for column, level in zip(QIS, NODE, strict=True):
        table = pd.read_csv(
            ADULT / "hierarchies" / f"{column}.csv",
            sep=";",
            header=None,
            dtype=str,
            keep_default_na=False,
        )
        mapping = dict(zip(table[0], table[level], strict=True))
        out[column] = adult[column].map(mapping)
        assert out[column].notna().all()
    return out


def class_sizes(frame: pd.DataFrame, qis: list[str]) -> pd.Series:
    return frame.groupby(qis, dropna=False, observed=True).size()


@pytest.fixture(scope="module")
def context():
    return quiet_context(mode="ephemeral")


def checkpoint(ctx, name: str, expectations):
    """The full GX chain: data source → asset → batch definition → suite → VD → checkpoint."""
    bd = (
        ctx.data_sources.add_pandas(name=f"{name}-source")
        .add_dataframe_asset(name=f"{name}-asset")
        .add_batch_definition_whole_dataframe(f"{name}-batch")
    )
    suite = ctx.suites.add(gx.ExpectationSuite(name=f"{name}-suite"))
    for e in expectations:
        suite.add_expectation(e)
    vd = ctx.validation_definitions.add(
        gx.ValidationDefinition(name=f"{name}-vd", data=bd, suite=suite)
    )
    return ctx.checkpoints.add(gx.Checkpoint(name=f"{name}-cp", validation_definitions=[vd]))


def results(run) -> list:
    (vr,) = run.run_results.values()
    return vr.results


def test_adult_k5_fails_raw_and_passes_generalized(context, adult, generalized):
    cp = checkpoint(
        context,
        "adult",
        [
            pg.ExpectTableToBeKAnonymous(quasi_identifiers=QIS, k=5, max_violators=3),
            pg.ExpectTableToBeLDiverse(quasi_identifiers=QIS, attribute="salary-class", l=2),
        ],
    )
    raw = cp.run(batch_parameters={"dataframe": adult})
    assert raw.success is False
    k_res, l_res = results(raw)
    sizes = class_sizes(adult, QIS)
    assert k_res.success is False and not k_res.exception_info.get("raised_exception")
    assert k_res.result["observed_value"] == sizes.min() == 1
    details = k_res.result["details"]
    assert details["violating_classes"] == int((sizes < 5).sum())
    assert details["violating_records"] == int(sizes[sizes < 5].sum())
    assert details["required"] == 5 and details["comparison"] == ">="
    assert len(details["violators"]) == 3  # capped by max_violators
    first = details["violators"][0]
    assert sizes[tuple(first["values"][q] for q in QIS)] == first["size"] == 1
    assert adult.iloc[first["records"]][QIS].to_dict("records") == [first["values"]]
    distinct = adult.groupby(QIS)["salary-class"].nunique()
    assert l_res.result["observed_value"] == distinct.min()
    assert l_res.result["details"]["violating_classes"] == int((distinct < 2).sum())

    sizes_g = class_sizes(generalized, QIS)
    assert sizes_g.min() >= 5  # the oracle says this release is 5-anonymous
    release = cp.run(batch_parameters={"dataframe": generalized})
    k_ok, l_ok = results(release)
    assert k_ok.success is True
    assert k_ok.result["observed_value"] == sizes_g.min()
    assert k_ok.result["details"]["violating_classes"] == 0
    assert l_ok.result["observed_value"] == generalized.groupby(QIS)["salary-class"].nunique().min()


def test_suite_fails_raw_adult_and_passes_the_privcheck_anonymize_release(context, adult, tmp_path):
    """The issue's acceptance test: GX fails Adult for k = 5, and passes the release that
    `privcheck anonymize` wrote, in the same test, through GX's own API."""
    out = tmp_path / "release.csv"
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "privcheck.cli",
            "anonymize",
            str(ADULT / "adult.csv"),
            "-p",
            str(ADULT / "policy.yaml"),
            "-a",
            "incognito",
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 0, res.stderr
    release = pd.read_csv(out, dtype=str, keep_default_na=False)
    cp = checkpoint(
        context,
        "anonymized",
        [
            pg.ExpectTableToBeKAnonymous(quasi_identifiers=QIS, k=5),
            pg.ExpectTableToSatisfyPrivacyPolicy(policy=str(ADULT / "policy.yaml")),
        ],
    )
    assert cp.run(batch_parameters={"dataframe": adult}).success is False
    run = cp.run(batch_parameters={"dataframe": release})
    k_res, policy_res = results(run)
    assert run.success is True, [r.result for r in results(run)]
    assert k_res.result["observed_value"] == class_sizes(release, QIS).min() >= 5
    assert policy_res.success is True


def emd_lp(p: np.ndarray, q: np.ndarray, ground: np.ndarray) -> float:
    """Earth mover's distance as the transport LP (scipy), the definition itself."""
    from scipy.optimize import linprog

    m = len(p)
    a_eq = np.vstack([np.kron(np.eye(m), np.ones(m)), np.kron(np.ones(m), np.eye(m))])
    res = linprog(ground.ravel(), A_eq=a_eq, b_eq=np.r_[p, q], bounds=(0, None))
    return float(res.fun)


def test_t_closeness_ordered_and_hierarchical(context):
    data = pd.read_csv(EXAMPLES / "three_diverse.csv", dtype=str)
    qis = ["zip", "age"]
    rows = [
        ["gastric ulcer", "stomach disease", "digestive system disease", "*"],
        ["gastritis", "stomach disease", "digestive system disease", "*"],
        ["stomach cancer", "stomach disease", "digestive system disease", "*"],
        ["colitis", "colon disease", "digestive system disease", "*"],
        ["colon cancer", "colon disease", "digestive system disease", "*"],
        ["flu", "respiratory infection", "respiratory system disease", "*"],
        ["pneumonia", "respiratory infection", "respiratory system disease", "*"],
        ["bronchitis", "respiratory infection", "respiratory system disease", "*"],
        ["asthma", "chronic respiratory disease", "respiratory system disease", "*"],
    ]
    cp = checkpoint(
        context,
        "tclose",
        [
            pg.ExpectTableToBeTClose(
                quasi_identifiers=qis, attribute="salary", t=0.3, distance="ordered"
            ),
            pg.ExpectTableToBeTClose(
                quasi_identifiers=qis, attribute="salary", t=0.4, distance="ordered"
            ),
            pg.ExpectTableToBeTClose(
                quasi_identifiers=qis,
                attribute="disease",
                t=0.3,
                distance="hierarchical",
                hierarchy=rows,
            ),
        ],
    )
    ordered_03, ordered_04, hier = results(cp.run(batch_parameters={"dataframe": data}))
    # Li, Li & Venkatasubramanian (ICDE 2007): the 3-diverse table is 0.375-close on salary
    assert ordered_03.success is False and ordered_04.success is True
    assert ordered_03.result["observed_value"] == pytest.approx(0.375)

    # hierarchical ground distance: height of the lowest common ancestor / tree height
    values = [r[0] for r in rows if r[0] in set(data["disease"])]
    path = {r[0]: r for r in rows}
    ground = np.array(
        [
            [next(i for i in range(4) if path[a][i] == path[b][i]) / 3 for b in values]
            for a in values
        ]
    )
    q = data["disease"].value_counts(normalize=True).reindex(values).to_numpy()
    worst = max(
        emd_lp(
            g["disease"].value_counts(normalize=True).reindex(values, fill_value=0).to_numpy(),
            q,
            ground,
        )
        for _, g in data.groupby(qis)
    )
    assert hier.result["observed_value"] == pytest.approx(worst, abs=1e-9)
    assert hier.success is (worst <= 0.3 + 1e-12)


def test_policy_expectation_from_path_and_mapping(context, adult):
    mapping = {
        "attributes": {
            "sex": {"role": "quasi_identifier"},
            "race": {"role": "quasi_identifier"},
            "salary-class": {"role": "sensitive"},
        },
        "models": [
            {"model": "k-anonymity", "k": 5},
            {"model": "l-diversity", "variant": "distinct", "l": 2},
        ],
    }
    cp = checkpoint(
        context,
        "policy",
        [
            pg.ExpectTableToSatisfyPrivacyPolicy(policy=str(ADULT / "policy.yaml")),
            pg.ExpectTableToSatisfyPrivacyPolicy(policy=mapping),
        ],
    )
    from_file, from_mapping = results(cp.run(batch_parameters={"dataframe": adult}))
    assert from_file.success is False
    models = from_file.result["details"]["models"]
    assert [m["model"] for m in models] == ["k-anonymity", "l-diversity", "t-closeness"]
    assert models[0]["value"] == class_sizes(adult, QIS).min()
    assert from_mapping.success is True
    sizes = class_sizes(adult, ["sex", "race"])
    assert from_mapping.result["details"]["models"][0]["value"] == sizes.min()


def test_policy_expectation_with_attribute_disclosure_models(context, adult):
    """β-likeness, δ-disclosure and (α,k) through the generic policy expectation: the figures
    equal pandas group-bys of Adult (sex × race classes, salary-class sensitive)."""
    mapping = {
        "attributes": {
            "sex": {"role": "quasi_identifier"},
            "race": {"role": "quasi_identifier"},
            "salary-class": {"role": "sensitive"},
        },
        "models": [
            {"model": "beta-likeness", "beta": 1.0},
            {"model": "delta-disclosure", "delta": 1.0},
            {"model": "alpha-k-anonymity", "alpha": 0.9, "k": 5, "value": ">50K"},
        ],
    }
    cp = checkpoint(context, "disclosure", [pg.ExpectTableToSatisfyPrivacyPolicy(policy=mapping)])
    (res,) = results(cp.run(batch_parameters={"dataframe": adult}))
    p = adult["salary-class"].value_counts(normalize=True)
    q = adult.groupby(["sex", "race"])["salary-class"].value_counts(normalize=True)
    ratio = q / q.index.get_level_values(-1).map(p).to_numpy()
    share = adult.assign(rich=adult["salary-class"] == ">50K").groupby(["sex", "race"])["rich"]
    beta, delta, alpha = res.result["details"]["models"]
    assert beta["value"] == pytest.approx(max((ratio - 1).max(), 0.0), rel=1e-12)
    assert beta["required"] == 1.0 and beta["comparison"] == "<="
    assert delta["value"] == pytest.approx(np.abs(np.log(ratio)).max(), rel=1e-12)
    assert delta["comparison"] == "<"
    assert alpha["value"] == pytest.approx(share.mean().max(), rel=1e-12)
    sizes = class_sizes(adult, ["sex", "race"])
    assert res.success is bool(
        (ratio - 1).max() <= 1.0
        and np.abs(np.log(ratio)).max() < 1.0
        and share.mean().max() <= 0.9
        and sizes.min() >= 5
    )


BAD = [
    (pg.ExpectTableToBeKAnonymous, {"quasi_identifiers": ["age"], "k": 0}, "k"),
    (pg.ExpectTableToBeKAnonymous, {"quasi_identifiers": [], "k": 5}, "quasi_identifiers"),
    (pg.ExpectTableToBeKAnonymous, {"quasi_identifiers": ["age"], "k": "five"}, "k"),
    (
        pg.ExpectTableToBeKAnonymous,
        {"quasi_identifiers": ["age", "age"], "k": 2},
        "quasi_identifiers",
    ),
    (
        pg.ExpectTableToBeLDiverse,
        {"quasi_identifiers": ["age"], "attribute": "s", "l": 2, "variant": "recursive"},
        "c",
    ),
    (
        pg.ExpectTableToBeLDiverse,
        {"quasi_identifiers": ["age"], "attribute": "s", "l": 2, "variant": "fancy"},
        "variant",
    ),
    (
        pg.ExpectTableToBeLDiverse,
        {"quasi_identifiers": ["age"], "attribute": "age", "l": 2},
        "attribute",
    ),
    (pg.ExpectTableToBeTClose, {"quasi_identifiers": ["age"], "attribute": "s", "t": 1.5}, "t"),
    (
        pg.ExpectTableToBeTClose,
        {"quasi_identifiers": ["age"], "attribute": "s", "t": 0.2, "distance": "hierarchical"},
        "hierarchy",
    ),
    (pg.ExpectTableToSatisfyPrivacyPolicy, {"policy": "no/such/policy.yaml"}, "policy"),
    (
        pg.ExpectTableToSatisfyPrivacyPolicy,
        {
            "policy": {
                "attributes": {"a": {"role": "quasi_identifier"}},
                "models": [{"model": "k-anonymity", "k": -1}],
            }
        },
        "policy",
    ),
]


@pytest.mark.parametrize("cls, kwargs, param", BAD, ids=[f"{c.__name__}-{p}" for c, _, p in BAD])
def test_bad_parameters_are_gx_configuration_errors_naming_the_parameter(cls, kwargs, param):
    from great_expectations.compatibility import pydantic

    with pytest.raises(pydantic.ValidationError) as info:
        cls(**kwargs)
    message = str(info.value)
    # pydantic names a field on its own line; our root validator starts the line with "param:"
    assert re.search(rf"(^|\n)\s*{param}(:|\n|$)", message), message
    if param == "policy" and "models" in kwargs["policy"]:
        assert "(k-anonymity).k" in message  # the policy's own location of the problem


def test_data_docs_render_the_expectations(tmp_path, adult):
    """A file context: the checkpoint's Data Docs page shows our sentences and observed values."""
    ctx = quiet_context(mode="file", project_root_dir=str(tmp_path))
    cp = checkpoint(
        ctx,
        "docs",
        [
            pg.ExpectTableToBeKAnonymous(quasi_identifiers=["sex", "race", "age"], k=5),
            pg.ExpectTableToBeTClose(
                quasi_identifiers=["sex", "race"], attribute="salary-class", t=0.2
            ),
        ],
    )
    cp.actions.append(gx.checkpoint.UpdateDataDocsAction(name="docs"))
    cp.save()
    run = cp.run(batch_parameters={"dataframe": adult})
    assert run.success is False
    pages = list((tmp_path / "gx").rglob("validations/**/*.html"))
    assert pages, "no Data Docs validation page was built"
    html = pages[0].read_text()
    assert "Every combination of the quasi-identifiers" in html
    assert "sex, race, age" in html and "earth mover" in html
    k = class_sizes(adult, ["sex", "race", "age"])
    assert f"{(k < 5).sum():,} classes" in html  # our observed-value renderer


def test_saved_suite_needs_the_import(tmp_path):
    """The GX pitfall: a saved suite loaded without privcheck_gx imported has no expectations."""
    ctx = quiet_context(mode="file", project_root_dir=str(tmp_path))
    suite = ctx.suites.add(gx.ExpectationSuite(name="privacy"))
    suite.add_expectation(pg.ExpectTableToBeKAnonymous(quasi_identifiers=["sex"], k=2))
    suite.add_expectation(pg.ExpectTableToSatisfyPrivacyPolicy(policy=str(ADULT / "policy.yaml")))
    suite.save()

    script = (
        "import json, sys, great_expectations as gx\n"
        f"ctx = gx.get_context(mode='file', project_root_dir={str(tmp_path)!r})\n"
        "without = len(ctx.suites.get('privacy').expectations)\n"
        "import privcheck_gx\n"
        f"ctx = gx.get_context(mode='file', project_root_dir={str(tmp_path)!r})\n"
        "checked = len(privcheck_gx.get_suite(ctx, 'privacy').expectations)\n"
        "print(json.dumps([without, checked]))\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "plugins" / "privcheck-gx")]),
    }
    # a script file, not ``python -c``: pyspark (imported by GX when installed) exits 0 silently
    # from a ``-c`` main module when Spark Connect's grpc is missing, taking it for a doctest run
    script_file = tmp_path / "load_suite.py"
    script_file.write_text(script)
    out = subprocess.run(
        [sys.executable, str(script_file)], capture_output=True, text=True, env=env, timeout=240
    )
    assert out.returncode == 0, out.stderr[-2000:]
    without, checked = json.loads(out.stdout.strip().splitlines()[-1])
    assert without == 0  # what GX does silently
    assert checked == 2  # what get_suite guarantees

    # a stored expectation nobody registered: get_suite refuses the incomplete suite
    stored = next((tmp_path / "gx").rglob("expectations/privacy.json"))
    raw = json.loads(stored.read_text())
    raw["expectations"].append(
        {**raw["expectations"][0], "type": "expect_table_to_be_unknown", "id": None}
    )
    stored.write_text(json.dumps(raw))
    with pytest.raises(pg.SuiteIncompleteError, match="expect_table_to_be_unknown"):
        pg.get_suite(quiet_context(mode="file", project_root_dir=str(tmp_path)), "privacy")


def test_policy_expectation_fails_when_an_identifier_column_is_present(context, adult):
    """A policy's identifier column still in the batch fails the expectation even though every
    model holds; without it (a release) the same expectation succeeds."""
    mapping = {
        "attributes": {
            "name": {"role": "identifier"},
            "sex": {"role": "quasi_identifier"},
        },
        "models": [{"model": "k-anonymity", "k": 2}],
    }
    raw = adult[["sex"]].assign(name=[f"p{i}" for i in range(len(adult))])
    cp = checkpoint(context, "identifier", [pg.ExpectTableToSatisfyPrivacyPolicy(policy=mapping)])
    (res,) = results(cp.run(batch_parameters={"dataframe": raw}))
    details = res.result["details"]
    assert res.success is False and details["identifiers_present"] == ["name"]
    assert details["passed"] is True  # (the one model's own verdict: k-anonymity holds)
    assert any("a release must not carry them" in f for f in details["findings"])
    (ok,) = results(cp.run(batch_parameters={"dataframe": adult[["sex"]]}))
    assert ok.success is True and ok.result["details"]["identifiers_present"] == []


@pytest.fixture(scope="module")
def eia_draft(tmp_path_factory):
    """A draft `privcheck init` writes from the CASC EIA table (columns left for review)."""
    from privcheck.profiling.draft import draft_policy, write_draft

    eia = ROOT / "tests" / "data" / "casc" / "eia.csv"
    folder = tmp_path_factory.mktemp("eia-draft")
    draft = draft_policy(eia)
    write_draft(draft.profile, folder / "policy.yaml", inputs=[eia])
    review = [c.name for c in draft.profile.columns if c.review]
    assert review
    return pd.read_csv(eia, dtype=str, keep_default_na=False), folder / "policy.yaml", review


def test_policy_expectation_refuses_a_draft_unless_allowed(context, eia_draft):
    """A draft is a configuration error naming its open columns where the expectation is
    written; allow_draft=True runs it and the result's details say draft: true."""
    from great_expectations.compatibility import pydantic

    frame, policy, review = eia_draft
    with pytest.raises(pydantic.ValidationError) as info:
        pg.ExpectTableToSatisfyPrivacyPolicy(policy=str(policy))
    message = str(info.value)
    assert re.search(r"(^|\n)\s*policy: .* is a draft", message), message
    assert f"({', '.join(review)})" in message and "allow_draft=True" in message
    allowed = pg.ExpectTableToSatisfyPrivacyPolicy(policy=str(policy), allow_draft=True)
    cp = checkpoint(context, "draft", [allowed])
    (res,) = results(cp.run(batch_parameters={"dataframe": frame}))
    assert not res.exception_info.get("raised_exception"), res.exception_info
    details = res.result["details"]
    assert details["draft"] is True and details["open_reviews"] == review
    sizes = frame.groupby("STATE").size()  # the oracle: the one drafted quasi-identifier
    assert details["quasi_identifiers"] == ["STATE"]
    k = next(m for m in details["models"] if m["model"] == "k-anonymity")
    assert k["value"] == sizes.min()


def test_a_policy_file_that_became_a_draft_fails_when_it_runs(context, adult, tmp_path):
    """Written against a decided policy file that was later given a review entry: the run
    refuses it: the checkpoint, which reloads its suite, cannot load the expectation any more,
    and a batch validating the expectation directly raises the refusal, the open column named."""
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        "attributes:\n  sex: {role: quasi_identifier}\n  race: {role: quasi_identifier}\n"
        "models:\n  - {model: k-anonymity, k: 2}\n"
    )
    expectation = pg.ExpectTableToSatisfyPrivacyPolicy(policy=str(policy))
    cp = checkpoint(context, "became-draft", [expectation])
    (ok,) = results(cp.run(batch_parameters={"dataframe": adult}))
    assert ok.success is True and ok.result["details"]["draft"] is False
    policy.write_text(
        policy.read_text().replace(
            "race: {role: quasi_identifier}",
            'race: {role: quasi_identifier, review: "a quasi-identifier here?"}',
        )
    )
    with pytest.raises(Exception, match="became-draft-suite"):
        cp.run(batch_parameters={"dataframe": adult})
    batch = (
        context.data_sources.add_pandas(name="became-draft-direct")
        .add_dataframe_asset(name="became-draft-direct-asset")
        .add_batch_definition_whole_dataframe("became-draft-direct-batch")
        .get_batch(batch_parameters={"dataframe": adult})
    )
    with pytest.raises(Exception, match=r"is a draft: 1 column\(s\) still marked review \(race\)"):
        batch.validate(expectation)
