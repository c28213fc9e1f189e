"""The release: identifiers removed, generalized labels, suppressed records removed or starred,
seeded shuffling, the re-check, and the t-closeness-with-suppression semantics."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from anon_helpers import race_zip_policy, random_table

import privcheck
from privcheck.anonymizers import anonymize
from privcheck.anonymizers.release import release_policy
from privcheck.io import write_table


def test_identifiers_and_unlisted_columns_are_removed():
    frame, policy = random_table(7)
    frame["note"] = "free text nobody vouched for"
    policy["models"] = [{"model": "k-anonymity", "k": 3}]
    release, report = anonymize(frame, policy, "mingen")
    assert list(release.columns) == ["age", "zip", "sex", "disease"]
    assert report.removed_columns == ["id", "note"]


def test_labels_come_from_the_hierarchies(race_zip):
    release, _ = anonymize(race_zip, race_zip_policy(2), "mingen", keep_order=True)
    assert release["zip"].tolist() == ["0213*", "0213*", "0214*", "0214*"] * 2
    assert release["race"].tolist() == race_zip["race"].tolist()


def test_rows_are_shuffled_by_seed_unless_keep_order():
    frame, policy = random_table(8, n=80)
    policy["models"] = [{"model": "k-anonymity", "k": 2}]
    kept, _ = anonymize(frame, policy, "mingen", keep_order=True)
    a, _ = anonymize(frame, policy, "mingen", seed=1)
    b, _ = anonymize(frame, policy, "mingen", seed=1)
    c, _ = anonymize(frame, policy, "mingen", seed=2)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(kept) and not a.equals(c)
    key = list(kept.columns)
    pd.testing.assert_frame_equal(
        a.sort_values(key).reset_index(drop=True), kept.sort_values(key).reset_index(drop=True)
    )
    assert kept["disease"].tolist() == frame["disease"].tolist()


def _frame_with_outliers() -> tuple[pd.DataFrame, dict]:
    frame = pd.DataFrame(
        {
            "zip": ["02138", "02138", "02139", "02139", "02141", "02141", "02142"] * 2 + ["09999"],
            "disease": ["flu", "cold"] * 7 + ["hiv"],
        }
    )
    zips = sorted(set(frame["zip"]))
    policy = {
        "attributes": {
            "zip": {
                "role": "quasi_identifier",
                "hierarchy": {"type": "table", "rows": [[z, z[:3] + "**", "*"] for z in zips]},
            },
            "disease": {"role": "sensitive"},
        },
        "models": [{"model": "k-anonymity", "k": 2}],
        "suppression_limit": 0.1,
    }
    return frame, policy


@pytest.mark.parametrize("mode", ["remove", "star"])
def test_suppressed_records_removed_or_starred(mode):
    frame, policy = _frame_with_outliers()
    release, report = anonymize(frame, {**policy, "suppressed_records": mode}, "mingen")
    assert report.node == {"zip": 0}  # one outlier (09999) suppressed instead of generalizing
    assert report.n_suppressed == 1 and report.n_kept == 14
    assert report.n_kept + report.n_suppressed == report.n_records == len(frame)
    if mode == "remove":
        assert len(release) == report.n_released_rows == 14
        assert "09999" not in set(release["zip"])
    else:
        assert len(release) == report.n_released_rows == 15
        starred = release[release["zip"] == "*"]
        assert len(starred) == 1 and starred["disease"].tolist() == ["hiv"]
    assert report.metrics["prec"] == pytest.approx(1 - 1 / 15)
    assert report.check.passed and report.check.n_records == 14


def test_t_closeness_with_suppression_reaches_a_fixed_point():
    """Suppressing the classes that violate t-closeness changes the kept records' distribution,
    which the release's own check uses; suppressing once is not enough here.

    G1 = 4×b, G2 = 1a+3b, G3 = 7a+1b (Q: a = 1/2), t = 0.4: only G1 violates (EMD 0.5). Without
    G1 the release has a = 2/3 and G2 is 0.417 away: it must go too; then G3 is the table."""
    frame = pd.DataFrame(
        {
            "g": ["g1"] * 4 + ["g2"] * 4 + ["g3"] * 8,
            "s": ["b"] * 4 + ["a"] + ["b"] * 3 + ["a"] * 7 + ["b"],
        }
    )
    policy = {
        "attributes": {
            "g": {
                "role": "quasi_identifier",
                "hierarchy": {"type": "table", "rows": [["g1", "*"], ["g2", "*"], ["g3", "*"]]},
            },
            "s": {"role": "sensitive"},
        },
        "models": [{"model": "t-closeness", "t": 0.4}],
        "suppression_limit": 0.5,
    }
    naive = frame[frame["g"] != "g1"]
    assert not privcheck.check(naive, release_policy(privcheck.load_policy(policy))).passed
    for algorithm in ("mingen", "incognito", "datafly"):
        release, report = anonymize(frame, policy, algorithm)
        assert report.node == {"g": 0}
        assert report.n_suppressed == 8
        assert set(release["g"]) == {"g3"}
        assert privcheck.check(release, policy).passed  # the plain checker agrees
    # with a limit below 8 records the bottom node does not satisfy: the top does
    _, report = anonymize(frame, {**policy, "suppression_limit": 0.4}, "mingen")
    assert report.node == {"g": 1} and report.n_suppressed == 0


def test_released_file_checks_with_the_original_policy(tmp_path):
    """A release of table hierarchies ('0213*', '*') can be checked with the policy that made it."""
    frame, policy = _frame_with_outliers()
    release, _ = anonymize(frame, {**policy, "suppressed_records": "remove"}, "mingen")
    assert privcheck.check(release, policy).passed


def test_every_metric_is_reported():
    frame, policy = random_table(9)
    policy["models"] = [{"model": "k-anonymity", "k": 4}]
    _, report = anonymize(frame, {**policy, "metric": "discernibility"}, "incognito")
    assert set(report.metrics) == {"prec", "discernibility", "aecs", "height", "loss"}
    assert report.metric == "discernibility"
    assert report.parameters["metric"] == "discernibility"
    assert report.parameters["models"] == [{"model": "k-anonymity", "k": 4}]
    assert report.nodes_evaluated >= 1 and report.elapsed_seconds >= report.search_seconds >= 0
    assert np.isfinite(report.metrics["loss"])


@pytest.mark.parametrize("mode", ["remove", "star"])
def test_numbers_beside_star_or_missing_are_written_as_one_type(tmp_path, mode):
    """A numeric quasi-identifier released at its ground level beside '*' (a suppressed record)
    or '<missing>' (own class) is one column of strings spelled as a hierarchy spells them, so
    Parquet can hold it and the written file re-checks with the policy."""
    frame = pd.DataFrame({"age": [30, 31, None, 30, 31, None, 99], "s": list("abababa")})
    policy = {
        "attributes": {
            "age": {"role": "quasi_identifier", "hierarchy": {"type": "intervals", "widths": [10]}},
            "s": {"role": "sensitive"},
        },
        "models": [{"model": "k-anonymity", "k": 2}],
        "missing": "own_class",
        "suppressed_records": mode,
        "suppression_limit": 0.2,
    }
    release, report = anonymize(frame, policy, "mingen")
    assert report.node == {"age": 0} and report.n_suppressed == 1
    expected = {"30", "31", "<missing>"} | ({"*"} if mode == "star" else set())
    assert set(release["age"]) == expected
    path = tmp_path / "release.parquet"
    write_table(release, path)
    assert privcheck.check(path, policy).passed
