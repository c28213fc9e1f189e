"""Assembling check results from class ids."""

import numpy as np

from privcheck.graph.result import build_result


def test_violators_smallest_first_and_capped():
    classes = np.array([0, 0, 0, 1, 2, 2, 3, 4, 4, 4])
    nodes = list("abcdefghij")
    r = build_result("m", 3, classes, nodes, lambda c: {"class": c}, max_violators=2)
    assert r.value == 1 and not r.passed
    assert r.violating_classes == 3 and r.violating_records == 4  # classes 1, 2, 3
    assert r.n_classes == 5 and r.n_records == 10
    assert [(v.values["class"], v.size, v.records) for v in r.violators] == [
        (1, 1, ["d"]),
        (3, 1, ["g"]),
    ]
    ok = build_result("m", 1, classes, nodes, lambda c: {})
    assert ok.passed and ok.violators == []
