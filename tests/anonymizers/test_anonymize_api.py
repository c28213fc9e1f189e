"""The ``anonymize`` call: registry, progress, guards, and what the plugin list shows."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from anon_helpers import race_zip_policy

from privcheck.anonymizers.generalization import GeneralizationAnonymizer
from privcheck.errors import PolicyError
from privcheck.pipeline.anonymize import anonymize
from privcheck.plugins import anonymizer_registry, plugin_rows


def test_builtins_are_registered_like_plugins():
    registry = anonymizer_registry()
    assert {"incognito", "mingen", "datafly"} <= set(registry)
    assert all(issubclass(registry[n], GeneralizationAnonymizer) for n in ("incognito", "mingen"))
    provides = " ".join(row["provides"] for row in plugin_rows())
    for name in ("incognito", "mingen", "datafly"):
        assert name in provides


@pytest.mark.parametrize("algorithm", ["incognito", "mingen", "datafly"])
def test_progress_reaches_its_total(race_zip, algorithm):
    calls = []
    anonymize(race_zip, race_zip_policy(2), algorithm, progress=lambda d, t: calls.append((d, t)))
    assert calls, "no progress reported"
    done = [d for d, _ in calls]
    assert done == sorted(done) and all(d <= t for d, t in calls)
    assert calls[-1][0] == calls[-1][1]


def test_huge_lattices_are_refused_by_exhaustive_searches_only():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({f"z{i}": rng.choice(["1234", "1299", "5678"], 40) for i in range(10)})
    policy = {
        "attributes": {
            c: {"role": "quasi_identifier", "hierarchy": {"type": "masking", "levels": 4}}
            for c in frame.columns
        },
        "models": [{"model": "k-anonymity", "k": 2}],
    }
    with pytest.raises(PolicyError, match="9,765,625 nodes"):
        anonymize(frame, policy, "mingen")
    release, report = anonymize(frame, policy, "datafly")
    assert report.check.passed and len(release) == 40


def test_impossible_models_say_why(race_zip):
    with pytest.raises(PolicyError, match="k=9 cannot hold: the table has only 8 records"):
        anonymize(race_zip, race_zip_policy(9), "incognito")
    policy = race_zip_policy(2)
    policy["attributes"]["race"] = {"role": "sensitive"}
    policy["models"] = [{"model": "l-diversity", "variant": "entropy", "l": 2.5}]
    with pytest.raises(PolicyError, match="only 2 distinct values"):
        anonymize(race_zip, policy, "mingen")
    policy["models"] = [{"model": "l-diversity", "variant": "recursive", "l": 2, "c": 0.5}]
    with pytest.raises(PolicyError, match="fully generalized"):
        anonymize(race_zip, policy, "datafly")
