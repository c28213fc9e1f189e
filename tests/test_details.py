"""Report details: the figures behind the plots, against pandas group-bys."""

from __future__ import annotations

import numpy as np
import pytest

from privcheck.details import value_histogram
from privcheck.pipeline.check import check
from tests.conftest import ADULT, EXAMPLES

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


@pytest.fixture(scope="module")
def report():
    return check(ADULT / "adult.csv", ADULT / "policy.yaml", details=True)


def test_class_size_histogram(report, adult_frame):
    sizes = adult_frame.groupby(QIS).size().value_counts().sort_index()
    assert report.class_sizes.sizes == sizes.index.tolist()
    assert report.class_sizes.classes == sizes.tolist()


def test_statistic_histogram_counts_every_class_and_splits_at_the_bound(report):
    for m in report.models:
        h = m.histogram
        assert sum(h.classes) + h.unbounded == report.n_classes
        assert sum(h.records) == report.n_records
    t = report.models[2].histogram
    assert 0.2 + 1e-9 > min(e for e in t.edges if e >= 0.2) >= 0.2  # an edge sits on t
    # classes left of t's edge pass, the rest fail: the failing bins hold the violators
    cut = t.edges.index(min(e for e in t.edges if e >= 0.2))
    assert sum(t.classes[cut:]) == report.models[2].violating_classes


def test_worst_class_distributions(report, adult_frame):
    d = report.models[2].distribution
    assert d.attribute == "salary-class" and d.values == ["<=50K", ">50K"]
    assert d.overall == adult_frame["salary-class"].value_counts().reindex(d.values).tolist()
    emd = report.models[2].value
    for c in d.classes:
        assert c.statistic == pytest.approx(emd)  # the worst classes reach the table's maximum
        rows = adult_frame
        for q, v in c.values.items():
            rows = rows[rows[q] == v]
        assert c.size == len(rows)
        assert (
            c.counts == rows["salary-class"].value_counts().reindex(d.values, fill_value=0).tolist()
        )


def test_ordered_values_and_other_bucket():
    report = check(
        EXAMPLES / "three_diverse.csv",
        {
            "attributes": {
                "zip": {"role": "quasi_identifier"},
                "age": {"role": "quasi_identifier"},
                "salary": {"role": "sensitive"},
            },
            "models": [{"model": "t-closeness", "t": 0.2, "distance": "ordered"}],
        },
        details=True,
    )
    d = report.models[0].distribution
    assert d.values == ["3K", "4K", "5K", "6K", "7K", "8K", "9K", "10K", "11K"]  # natural order
    assert d.classes[0].counts == [1, 1, 1, 0, 0, 0, 0, 0, 0]  # Li et al.'s worst class
    assert d.classes[0].statistic == pytest.approx(0.375)


def test_value_histogram_integer_bins():
    h = value_histogram(np.array([1.0, 1, 2, 5, np.inf]), np.array([1, 2, 3, 4, 5]))
    assert h.edges == [0.5, 1.5, 2.5, 3.5, 4.5, 5.5]
    assert h.classes == [2, 1, 0, 0, 1] and h.records == [3, 3, 0, 0, 4] and h.unbounded == 1
