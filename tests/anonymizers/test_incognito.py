"""Incognito returns exactly the satisfying nodes (brute force over every node from the rows),
also for models without the generalization property (which it does not prune with)."""

from __future__ import annotations

from typing import Literal

import numpy as np
import pytest
from anon_helpers import race_zip_policy, random_table
from anon_oracle import all_verdicts, best_by_prec, minimal_brute
from test_mingen import MODELS

from privcheck.classes import ClassTable
from privcheck.encoding import encode
from privcheck.errors import PolicyError
from privcheck.hookspecs import hookimpl
from privcheck.models.base import Evaluation, PrivacyModel
from privcheck.pipeline.anonymize import anonymize
from privcheck.plugins import get_plugin_manager, reset_plugins
from privcheck.policy import ModelConfig, load_policy


def test_race_zip_k2(race_zip):
    _, report = anonymize(race_zip, race_zip_policy(2), "incognito")
    assert report.node == {"race": 0, "zip": 1}
    assert report.satisfying_nodes == 11
    assert {tuple(m.values()) for m in report.minimal_nodes} == {(0, 1), (1, 0)}


@pytest.mark.parametrize("limit", [0.0, 0.1])
@pytest.mark.parametrize("models", list(MODELS))
@pytest.mark.parametrize("seed", [3, 5])
def test_random_tables_match_row_brute_force(seed, models, limit):
    frame, base = random_table(seed)
    policy = load_policy({**base, "models": MODELS[models], "suppression_limit": limit})
    encoded = encode(frame, policy)
    n_limit = int(np.floor(limit * len(frame) + 1e-9))
    lat, sat, supp = all_verdicts(encoded, policy.models, n_limit, from_rows=True)
    if not sat.any():
        with pytest.raises(PolicyError):
            anonymize(frame, policy, "incognito")
        return
    _, report = anonymize(frame, policy, "incognito")
    assert report.satisfying_nodes == int(sat.sum())
    assert {tuple(m.values()) for m in report.minimal_nodes} == minimal_brute(lat, sat)
    assert report.metrics["prec"] == pytest.approx(best_by_prec(lat, sat, supp, len(frame)))


class OddConfig(ModelConfig):
    model: Literal["odd-classes"] = "odd-classes"


class OddClasses(PrivacyModel):
    """A toy model without the generalization property: every class has an odd size."""

    name = "odd-classes"
    config = OddConfig
    monotone = False

    @classmethod
    def evaluate(cls, table: ClassTable, config: OddConfig) -> Evaluation:
        return Evaluation(config, table.sizes % 2 == 1, table.sizes.astype(float))


class OddPlugin:
    @hookimpl
    def privcheck_models(self):
        return [OddClasses]


@pytest.fixture
def odd_model():
    reset_plugins()
    get_plugin_manager().register(OddPlugin(), "odd")
    yield
    reset_plugins()


def test_non_monotone_model_is_searched_exactly(odd_model, race_zip):
    """A model without the generalization property is not pruned as if it had it: Incognito and
    MinGen evaluate the nodes they cannot infer and return exactly the satisfying set."""
    policy = load_policy({**race_zip_policy(2), "models": [{"model": "odd-classes"}]})
    frame = race_zip.iloc[:7]
    encoded = encode(frame, policy)
    lat, sat, _supp = all_verdicts(encoded, policy.models, 0, from_rows=True)
    # the odd sizes come and go as the lattice is climbed: the property really is missing
    assert any(
        sat[i] and not sat[j]
        for i in range(lat.size)
        for j in range(lat.size)
        if i != j and all(a <= b for a, b in zip(lat.node(i), lat.node(j), strict=True))
    )
    for algorithm in ("incognito", "mingen"):
        _, report = anonymize(frame, policy, algorithm)
        assert report.satisfying_nodes == int(sat.sum())
        assert {tuple(m.values()) for m in report.minimal_nodes} == minimal_brute(lat, sat)
        assert report.check.passed
    _, report = anonymize(frame, policy, "mingen")
    assert report.nodes_evaluated == 12  # nothing can be inferred: every node is evaluated
