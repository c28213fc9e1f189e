"""MaskingResult: the public, JSON-ready summary of a release."""

from __future__ import annotations

import json

import numpy as np

from privcheck.masking import fuzzy_microaggregation, mdav, rank_swap


def test_summary_is_json_and_never_carries_the_seed():
    x = np.random.default_rng(0).normal(size=(30, 2))
    for result in (mdav(x, 3), rank_swap(x, 20, seed=4), fuzzy_microaggregation(x, k=3, seed=4)):
        text = json.dumps(result.summary())
        assert "seed" not in text
        back = json.loads(text)
        assert back["method"] == result.method
        assert back["information_loss"]["sse_sst"] == result.information_loss.sse_sst
