"""pyCANON 1.3.6 as a peer: equal answers where it is right, pinned differences where it is not.

pyCANON computes k, distinct l and t-closeness (equal distance for string sensitive attributes,
ordered distance over the observed values for numeric ones) correctly; privcheck must agree with
it on Adult and on random tables. Its entropy l truncates exp(H) to an integer, its recursive
(c,l) sorts the counts ascending, and its group-by drops rows with a missing quasi-identifier
(../shared/notes/anchors.md): those tests pin privcheck's right answer next to pyCANON's wrong one.

Basic β-likeness, δ-disclosure (base e) and the α of (α,k)-anonymity agree too. Its enhanced β is
min(basic β, −ln p_min) — not the per-value cap min(β, −ln p_v) of Cao & Karras and ARX — and its δ
is a figure, where the definition is strict: pinned below.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import privcheck
from privcheck.checker import check_table
from privcheck.classes import count
from privcheck.encoding import encode
from privcheck.errors import DataError
from privcheck.policy import parse_policy
from tests.models.compare import ADULT_QIS, adult_hierarchies, adult_policy

pytest.importorskip("pycanon")
from pycanon import anonymity

PEER_MODELS = [
    {"model": "k-anonymity", "k": 2},
    {"model": "l-diversity", "variant": "distinct", "l": 2},
    {"model": "t-closeness", "t": 0.2, "distance": "equal"},
    {"model": "t-closeness", "t": 0.2, "distance": "ordered"},
]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pyCANON's pandas idioms warn on pandas 3
        yield


def _policy(qis: list[str], sensitive: str, models=PEER_MODELS) -> dict:
    return {
        "attributes": {
            **{q: {"role": "quasi_identifier"} for q in qis},
            sensitive: {"role": "sensitive"},
        },
        "models": models,
    }


def _values(frame: pd.DataFrame, qis: list[str], sensitive: str, models=PEER_MODELS):
    return [m.value for m in privcheck.check(frame, _policy(qis, sensitive, models)).models]


def _pycanon_t(frame: pd.DataFrame, qis: list[str], sensitive: str) -> float:
    return anonymity.t_closeness(frame, qis, [sensitive])


def _generalized_adult(adult_frame: pd.DataFrame, node: tuple[int, ...]) -> pd.DataFrame:
    """The Adult release at ``node``: every QI replaced by its ARX hierarchy label."""
    out = adult_frame.copy()
    for q, level in zip(ADULT_QIS, node, strict=True):
        lookup = {r[0]: r[level] for r in adult_hierarchies()[q]}
        out[q] = adult_frame[q].map(lookup)
    return out


def test_adult_bottom_k(adult_frame):
    assert anonymity.k_anonymity(adult_frame, ADULT_QIS) == 1
    (k,) = _values(adult_frame, ADULT_QIS, "salary-class", PEER_MODELS[:1])
    assert k == 1


@pytest.mark.parametrize(
    "node", [(3, 1, 1, 2, 3, 2, 2, 2), (3, 0, 1, 1, 3, 2, 2, 2), (2, 1, 1, 2, 3, 2, 2, 1)]
)
def test_adult_generalized_release(adult_frame, node):
    """k, distinct l, equal-distance t (salary-class) and ordered t (salary as 0/1 and age as a
    number) agree with pyCANON on a generalized Adult release — and checking the release as
    plain values gives the same answer as rolling the original up to the node."""
    release = _generalized_adult(adult_frame, node)
    k, l_div, t_equal, t_ordered = _values(release, ADULT_QIS, "salary-class")
    assert k == anonymity.k_anonymity(release, ADULT_QIS)
    assert l_div == anonymity.l_diversity(release, ADULT_QIS, ["salary-class"])
    assert math.isclose(t_equal, _pycanon_t(release, ADULT_QIS, "salary-class"), rel_tol=1e-9)
    numeric = release.assign(**{"salary-class": (release["salary-class"] == ">50K").astype(int)})
    assert math.isclose(t_ordered, _pycanon_t(numeric, ADULT_QIS, "salary-class"), rel_tol=1e-9)

    qis = [q for q in ADULT_QIS if q != "age"]
    ages = release.assign(age=adult_frame["age"].astype(int))
    k, l_div, _, t_ordered = _values(ages, qis, "age")
    assert k == anonymity.k_anonymity(ages, qis)
    assert l_div == anonymity.l_diversity(ages, qis, ["age"])
    assert math.isclose(t_ordered, _pycanon_t(ages, qis, "age"), rel_tol=1e-9)

    policy = parse_policy(adult_policy(ADULT_QIS, "salary-class", PEER_MODELS))
    rolled = check_table(count(encode(adult_frame, policy), node), policy)
    direct = privcheck.check(release, _policy(ADULT_QIS, "salary-class"))
    assert [m.value for m in rolled.models] == pytest.approx([m.value for m in direct.models])
    assert rolled.n_classes == direct.n_classes


@pytest.mark.parametrize("seed", range(15))
def test_random_tables(seed):
    rng = np.random.default_rng(seed)
    n, n_qi = int(rng.integers(2, 200)), int(rng.integers(1, 4))
    qis = [f"q{j}" for j in range(n_qi)]
    frame = pd.DataFrame({q: rng.integers(0, rng.integers(1, 5), size=n) for q in qis})
    m = int(rng.integers(2, 8))
    frame["s"] = rng.integers(0, m, size=n) * 1000 + 3000  # numeric: pyCANON's ordered EMD
    frame.loc[:1, "s"] = [3000, 4000]  # at least two values (pyCANON divides by m − 1)
    frame["label"] = "v" + frame["s"].astype(str)  # string: pyCANON's equal EMD
    k, l_div, t_equal, _ = _values(frame, qis, "label")
    _, _, _, t_ordered = _values(frame, qis, "s")
    assert k == anonymity.k_anonymity(frame, qis)
    assert l_div == anonymity.l_diversity(frame, qis, ["label"])
    assert math.isclose(t_equal, _pycanon_t(frame, qis, "label"), rel_tol=1e-9, abs_tol=1e-12)
    assert math.isclose(t_ordered, _pycanon_t(frame, qis, "s"), rel_tol=1e-9, abs_tol=1e-12)


# --------------------------------------------------------------------------- pinned differences


def test_recursive_5_1_1_pycanon_sorts_the_wrong_way():
    """Counts {5,1,1}. pyCANON sorts ascending and reports (c, l) = (1, 3): "r1 = 1 < 1·5".
    Correct (descending): r1 = 5, so (c,3) needs 5 < c·1, i.e. c > 5; (c,2) needs c > 2.5."""
    frame = pd.DataFrame({"q": "a", "s": ["x"] * 5 + ["y", "z"]})
    assert anonymity.recursive_c_l_diversity(frame, ["q"], ["s"]) == (1, 3)
    models = [
        {"model": "l-diversity", "variant": "recursive", "l": 3, "c": 1},
        {"model": "l-diversity", "variant": "recursive", "l": 2, "c": 2.5},
        {"model": "l-diversity", "variant": "recursive", "l": 2, "c": 2.6},
    ]
    results = privcheck.check(frame, _policy(["q"], "s", models)).models
    assert [(r.value, r.passed) for r in results] == [(5.0, False), (2.5, False), (2.5, True)]


def test_entropy_uniform_over_two_values_pycanon_truncates():
    """A class uniform over 2 values has exp(H) = 2; pyCANON's int(exp(H)) makes it 1."""
    frame = pd.DataFrame({"q": ["a"] * 4 + ["b"] * 6, "s": ["x", "y"] * 5})
    assert anonymity.entropy_l_diversity(frame, ["q"], ["s"]) == 1
    (result,) = privcheck.check(
        frame, _policy(["q"], "s", [{"model": "l-diversity", "variant": "entropy", "l": 2}])
    ).models
    assert result.passed and result.value == pytest.approx(2.0, rel=1e-12)


def test_missing_quasi_identifier_pycanon_drops_the_row():
    """pyCANON's group-by silently drops the row with a missing QI and reports k = 2; privcheck
    refuses the data by default and, with ``missing: own_class``, counts the row (k = 1)."""
    frame = pd.DataFrame({"q": ["a", "a", "b", "b", None], "s": ["x", "y", "x", "y", "x"]})
    assert anonymity.k_anonymity(frame, ["q"]) == 2
    policy = _policy(["q"], "s", [{"model": "k-anonymity", "k": 2}])
    with pytest.raises(DataError, match="'q' has 1 missing value"):
        privcheck.check(frame, policy)
    report = privcheck.check(frame, {**policy, "missing": "own_class"})
    (result,) = report.models
    assert report.n_records == 5 and report.n_classes == 3
    assert (result.value, result.passed, result.violators[0].records) == (1, False, [4])
    assert result.violators[0].values == {"q": "<missing>"}


# --------------------------------------------------------------------------- β, δ and (α,k)

DISCLOSURE_MODELS = [
    {"model": "beta-likeness", "beta": 1.0},
    {"model": "delta-disclosure", "delta": 1.0},
    {"model": "alpha-k-anonymity", "alpha": 0.5, "k": 2},
]


def _disclosure_values(frame: pd.DataFrame, qis: list[str], sensitive: str):
    report = privcheck.check(frame, _policy(qis, sensitive, DISCLOSURE_MODELS))
    return [m.value for m in report.models]


def _pycanon_disclosure(frame: pd.DataFrame, qis: list[str], sensitive: str):
    alpha, k = anonymity.alpha_k_anonymity(frame, qis, [sensitive])
    return (
        anonymity.basic_beta_likeness(frame, qis, [sensitive]),
        anonymity.delta_disclosure(frame, qis, [sensitive]),
        alpha,
        k,
    )


@pytest.mark.parametrize("node", [(3, 1, 1, 2, 3, 2, 2, 2), (2, 1, 1, 2, 3, 2, 2, 1)])
def test_adult_disclosure_models(adult_frame, node):
    """Basic β (largest (q − p)/p), δ-disclosure in base e (largest |ln(q/p)|) and (α,k)'s
    largest share agree with pyCANON on generalized Adult releases, for salary-class and for
    occupation (14 values)."""
    release = _generalized_adult(adult_frame, node)
    for qis, sensitive in (
        (ADULT_QIS, "salary-class"),
        ([*ADULT_QIS[:-1], "salary-class"], "occupation"),
    ):
        beta, delta, alpha = _disclosure_values(release, qis, sensitive)
        p_beta, p_delta, p_alpha, p_k = _pycanon_disclosure(release, qis, sensitive)
        assert math.isclose(beta, p_beta, rel_tol=1e-12)
        assert math.isclose(delta, p_delta, rel_tol=1e-12)
        assert math.isclose(alpha, p_alpha, rel_tol=1e-12)
        assert p_k == anonymity.k_anonymity(release, qis)


@pytest.mark.parametrize("seed", range(15))
def test_random_tables_disclosure_models(seed):
    rng = np.random.default_rng(100 + seed)
    n, n_qi = int(rng.integers(2, 200)), int(rng.integers(1, 4))
    qis = [f"q{j}" for j in range(n_qi)]
    frame = pd.DataFrame({q: rng.integers(0, rng.integers(1, 5), size=n) for q in qis})
    m = int(rng.integers(1, 7))
    frame["s"] = "v" + pd.Series(rng.integers(0, m, size=n)).astype(str)
    beta, delta, alpha = _disclosure_values(frame, qis, "s")
    p_beta, p_delta, p_alpha, _ = _pycanon_disclosure(frame, qis, "s")
    assert math.isclose(beta, p_beta, rel_tol=1e-12, abs_tol=1e-15)
    assert math.isclose(delta, p_delta, rel_tol=1e-12, abs_tol=1e-15)
    assert math.isclose(alpha, p_alpha, rel_tol=1e-12)


def test_enhanced_beta_pycanon_caps_the_wrong_thing():
    """pyCANON's enhanced β is min(basic β, −ln p_min) over the whole table, not a per-value cap.
    Classes {9 a, 1 b} and {1 a, 9 b} (p = ½ each) over-represent a value by 0.8 > ln 2: enhanced
    β-likeness (ARX: gain ≤ min(β, −ln p) for every value) fails for every β. pyCANON reports
    ln 2 = 0.693, which a user would read as "holds for β = 0.7"; privcheck fails it and reports
    the largest gain, 0.8."""
    frame = pd.DataFrame({"q": ["x"] * 10 + ["y"] * 10, "s": ["a"] * 9 + ["b", "a"] + ["b"] * 9})
    assert anonymity.enhanced_beta_likeness(frame, ["q"], ["s"]) == pytest.approx(math.log(2))
    models = [{"model": "beta-likeness", "beta": b, "variant": "enhanced"} for b in (0.7, 5.0)]
    results = privcheck.check(frame, _policy(["q"], "s", models)).models
    assert [(r.value, r.passed) for r in results] == [
        (pytest.approx(0.8), False),
        (pytest.approx(0.8), False),
    ]


def test_delta_disclosure_base_and_strictness():
    """pyCANON's δ is max |ln(q/p)| (base e, as the paper): privcheck's default agrees. ARX takes
    log2 — ``log_base: 2`` gives pyCANON's figure / ln 2. The bound is strict: a table whose
    largest |ln(q/p)| is exactly pyCANON's figure is *not* δ-disclosure-private for that δ."""
    frame = pd.DataFrame({"q": ["x", "x", "y", "y"], "s": ["a", "a", "a", "b"]})
    p_delta = anonymity.delta_disclosure(frame, ["q"], ["s"])
    models = [
        {"model": "delta-disclosure", "delta": p_delta},
        {"model": "delta-disclosure", "delta": 10, "log_base": 2},
    ]
    natural, binary = privcheck.check(frame, _policy(["q"], "s", models)).models
    assert natural.value == p_delta and not natural.passed
    assert binary.value == pytest.approx(p_delta / math.log(2), rel=1e-12) and binary.passed


def test_alpha_k_with_a_protected_value_pycanon_has_none():
    """Wong et al. cap one sensitive value (``value: V``); pyCANON only caps the most frequent
    value of each class, so its α is an upper bound of privcheck's per-value share."""
    frame = pd.DataFrame(
        {"q": ["x"] * 4 + ["y"] * 4, "s": ["flu"] * 3 + ["hiv"] + ["flu", "hiv"] * 2}
    )
    p_alpha, _ = anonymity.alpha_k_anonymity(frame, ["q"], ["s"])
    model = {"model": "alpha-k-anonymity", "alpha": 0.5, "k": 2, "value": "hiv"}
    (r,) = privcheck.check(frame, _policy(["q"], "s", [model])).models
    assert p_alpha == 0.75 and r.value == 0.5 and r.passed
