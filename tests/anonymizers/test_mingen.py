"""MinGen: the k-minimal distortion and the k-minimal generalizations.

Oracles: the Race/ZIP example of Samarati and Sweeney, and a brute-force decision of every node
of small random tables from the rows (no rollup, no tagging).
"""

from __future__ import annotations

import numpy as np
import pytest
from anon_helpers import race_zip_policy, random_table
from anon_oracle import all_verdicts, best_by_prec, minimal_brute, pareto_brute

from privcheck.encoding import encode
from privcheck.pipeline.anonymize import anonymize
from privcheck.policy import load_policy


def test_race_zip_k2(race_zip):
    release, report = anonymize(race_zip, race_zip_policy(2), "mingen")
    # [0,1] is the k-minimal distortion; [1,0] is k-minimal too but less precise
    assert report.node == {"race": 0, "zip": 1}
    assert report.metrics["prec"] == pytest.approx(0.8333, abs=1e-4)
    minimal = {tuple(m.values()) for m in report.minimal_nodes}
    assert minimal == {(0, 1), (1, 0)}
    assert (0, 2) not in minimal  # 2-anonymous, but it generalizes [0,1]
    assert report.satisfying_nodes == 11  # every node but [0,0]
    assert sorted(release["zip"]) == ["0213*"] * 4 + ["0214*"] * 4
    assert report.n_suppressed == 0 and report.check.passed


def test_race_zip_other_metrics_pick_other_nodes(race_zip):
    # by height both k-minimal nodes cost 1: the tie goes to the first in lattice order
    _, report = anonymize(race_zip, race_zip_policy(2, metric="height"), "mingen")
    assert report.node == {"race": 0, "zip": 1}
    # ARX's loss charges 'Person' (all 3 races) more than '0213*' (2 of 4 ZIPs)
    _, report = anonymize(race_zip, race_zip_policy(2, metric="loss"), "mingen")
    assert report.node == {"race": 0, "zip": 1}
    assert report.metric == "loss"


MODELS = {
    "k3": [{"model": "k-anonymity", "k": 3}],
    "k2-distinct2": [
        {"model": "k-anonymity", "k": 2},
        {"model": "l-diversity", "variant": "distinct", "l": 2},
    ],
    "entropy2": [{"model": "l-diversity", "variant": "entropy", "l": 1.8}],
    "recursive": [{"model": "l-diversity", "variant": "recursive", "l": 2, "c": 3}],
    "t-equal": [{"model": "k-anonymity", "k": 2}, {"model": "t-closeness", "t": 0.3}],
    "t-ordered": [{"model": "t-closeness", "t": 0.35, "distance": "ordered"}],
    "beta": [{"model": "k-anonymity", "k": 2}, {"model": "beta-likeness", "beta": 1.5}],
    "beta-enhanced": [{"model": "beta-likeness", "beta": 2, "variant": "enhanced"}],
    "delta": [{"model": "delta-disclosure", "delta": 1.0}],
    "delta-k": [
        {"model": "k-anonymity", "k": 2},
        {"model": "delta-disclosure", "delta": 1.2, "log_base": 2},
    ],
    "alpha-k": [{"model": "alpha-k-anonymity", "alpha": 0.6, "k": 2}],
    "alpha-k-hiv": [{"model": "alpha-k-anonymity", "alpha": 0.3, "k": 2, "value": "hiv"}],
}


@pytest.mark.parametrize("limit", [0.0, 0.1])
@pytest.mark.parametrize("models", list(MODELS))
@pytest.mark.parametrize("seed", [1, 5])
def test_random_tables_match_row_brute_force(seed, models, limit):
    frame, base = random_table(seed)
    policy = load_policy({**base, "models": MODELS[models], "suppression_limit": limit})
    encoded = encode(frame, policy)
    n_limit = int(np.floor(limit * len(frame) + 1e-9))
    lat, sat, supp = all_verdicts(encoded, policy.models, n_limit, from_rows=True)
    if not sat.any():
        with pytest.raises(Exception, match=r"no generalization|cannot hold"):
            anonymize(frame, policy, "mingen")
        return
    for tagging in (True, False):
        _, report = anonymize(frame, policy, "mingen", tagging=tagging)
        assert report.satisfying_nodes == int(sat.sum())
        assert {tuple(m.values()) for m in report.minimal_nodes} == minimal_brute(lat, sat)
        assert report.metrics["prec"] == pytest.approx(best_by_prec(lat, sat, supp, len(frame)))
        node = tuple(report.node.values())
        assert report.n_suppressed == supp[lat.index(node)]
    assert report.nodes_evaluated == lat.size  # without tagging every node is evaluated
    _, report = anonymize(frame, policy, "mingen", tradeoff=True)
    front = [(round(p["value"], 10), p["suppressed"]) for p in report.tradeoff]
    assert front == pareto_brute(lat, sat, supp, len(frame))


def test_tagging_evaluates_fewer_nodes(race_zip):
    _, tagged = anonymize(race_zip, race_zip_policy(2), "mingen")
    _, plain = anonymize(race_zip, race_zip_policy(2), "mingen", tagging=False)
    assert plain.nodes_evaluated == 12
    assert tagged.nodes_evaluated < plain.nodes_evaluated
    assert tagged.node == plain.node


def test_tradeoff_is_reported_as_text():
    from privcheck.text_report import render_anonymization_text

    frame, base = random_table(5)
    policy = {**base, "models": [{"model": "k-anonymity", "k": 3}], "suppression_limit": 0.1}
    _, report = anonymize(frame, policy, "mingen", tradeoff=True)
    assert len(report.tradeoff) >= 2  # suppressing 4 records buys precision here
    sups = [p["suppressed"] for p in report.tradeoff]
    assert sups == sorted(sups, reverse=True) and sups[-1] < sups[0]
    text = render_anonymization_text(report)
    assert "Pareto front" in text and str(sups[-1]) in text
    _, plain = anonymize(frame, policy, "mingen", tradeoff=False)
    assert plain.tradeoff is None and plain.node == report.node
    _, default = anonymize(frame, policy, "mingen")  # the front is reported by default
    assert default.tradeoff == report.tradeoff


def test_unknown_parameter_is_refused(race_zip):
    with pytest.raises(Exception, match="mingen has no parameter 'tagg'"):
        anonymize(race_zip, race_zip_policy(2), "mingen", tagg=False)
