"""Evaluation.worst_first: the partial selection a report uses equals the full stable sort."""

from __future__ import annotations

import numpy as np
import pytest

from privcheck.models.base import Evaluation
from privcheck.models.kanonymity import KAnonymityConfig


@pytest.mark.parametrize("larger_is_safer", [True, False])
@pytest.mark.parametrize("seed", range(10))
def test_limited_worst_first_is_the_head_of_the_stable_order(seed, larger_is_safer):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 300))
    values = rng.integers(0, 6, size=n).astype(float)  # many ties
    values[rng.random(n) < 0.1] = np.inf
    ev = Evaluation(KAnonymityConfig(k=2), values < 3, values, larger_is_safer=larger_is_safer)
    classes = np.sort(
        rng.choice(max(n, 1), size=min(n, int(rng.integers(0, n + 1))), replace=False)
    )
    classes = classes[classes < n]
    full = ev.worst_first(classes)
    key = values[classes] if larger_is_safer else -values[classes]
    ordered = key[np.searchsorted(classes, full)]
    assert (ordered[:-1] <= ordered[1:]).all()
    for limit in (0, 1, 2, 5, 20, len(classes), len(classes) + 3):
        np.testing.assert_array_equal(ev.worst_first(classes, limit=limit), full[:limit])
