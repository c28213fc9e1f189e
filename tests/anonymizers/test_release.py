"""The release: identifiers removed, generalized labels, suppressed records removed or starred,
seeded shuffling, the re-check, and the t-closeness-with-suppression semantics."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from anon_helpers import ADULT, race_zip_policy, random_table

import privcheck
from privcheck.io import write_table
from privcheck.pipeline.anonymize import anonymize
from privcheck.plan import release_policy


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


def _both_rechecks(frame: pd.DataFrame, policy: dict, algorithm: str = "mingen"):
    """The re-check anonymize runs (on codes) and the plain one (re-encoding the release)."""
    from privcheck.encoding import encode
    from privcheck.engines.pandas_engine import materialise
    from privcheck.engines.recheck import recheck, recheck_codes
    from privcheck.plugins import anonymizer_registry
    from privcheck.policy import load_policy

    pol = load_policy(policy)
    encoded = encode(frame, pol)
    choice = anonymizer_registry()[algorithm]().choose(encoded, pol)
    kept = choice.kept_classes[choice.table.record_class]
    release, suppressed = materialise(frame, encoded, choice.node, kept, pol, seed=5)
    ours = recheck_codes(frame, encoded, choice.table, kept, pol, n_rows=len(release))
    return ours, recheck(release, suppressed, pol)


T_MODELS = [
    [{"model": "k-anonymity", "k": 3}],
    [{"model": "k-anonymity", "k": 2}, {"model": "l-diversity", "l": 2, "variant": "entropy"}],
    [{"model": "t-closeness", "t": 0.3, "distance": "equal"}],
    [{"model": "k-anonymity", "k": 2}, {"model": "t-closeness", "t": 0.35, "distance": "ordered"}],
]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("models", T_MODELS, ids=lambda m: "+".join(x["model"] for x in m))
@pytest.mark.parametrize("mode", ["remove", "star"])
def test_recheck_on_codes_equals_recheck_of_the_release(seed, models, mode):
    """anonymize re-checks its release from the codes (the distinct released rows with their
    counts, checked like an engine's aggregate) instead of re-encoding 1 M strings: the report
    is the one checking the materialised release gives — with suppression, numeric and ordered
    sensitive values (t-closeness on the kept records' own domain), a missing value, both
    suppression modes."""
    frame, policy = random_table(seed, n=90)
    frame["disease"] = frame["disease"].where(np.arange(len(frame)) != 4, None)
    frame["score"] = np.random.default_rng(seed).integers(0, 6, len(frame))
    models = [
        {**m, "attribute": "score"}
        if m["model"] == "t-closeness" and "ordered" in m.values()
        else {**m, "attribute": "disease"}
        if m["model"] != "k-anonymity"
        else m
        for m in models
    ]
    policy["attributes"]["score"] = {"role": "sensitive"}
    policy.update(
        models=models, suppression_limit=0.1, suppressed_records=mode, missing="own_class"
    )
    ours, plain = _both_rechecks(frame, policy)
    assert ours.model_dump() == plain.model_dump()


def test_recheck_on_codes_on_adult(adult_frame):
    policy = ADULT / "policy.yaml"
    ours, plain = _both_rechecks(adult_frame, policy, "datafly")
    assert ours.model_dump() == plain.model_dump()


def test_chosen_node_record_classes_roll_up_from_the_root(adult_frame):
    """The release's record classes come from the search's root table (a gather, not a second
    group-by of the rows): the same table as counting the rows at the node."""
    from privcheck.anonymizers.problem import SearchProblem
    from privcheck.classes import count
    from privcheck.encoding import encode
    from privcheck.metrics.generalization import get_metric
    from privcheck.policy import load_policy

    policy = load_policy(ADULT / "policy.yaml")
    encoded = encode(adult_frame, policy)
    problem = SearchProblem(encoded, policy.models, 301, get_metric("prec"))
    for node in [(0,) * 8, (1, 0, 1, 1, 2, 1, 0, 1), (4, 1, 1, 2, 3, 2, 2, 2)]:
        table = problem.evaluator.records_table(node)
        expected = count(problem.evaluator.encoded, node, track_records=True)
        assert np.array_equal(table.record_class, expected.record_class)
        assert np.array_equal(table.keys, expected.keys)
        assert np.array_equal(table.sizes, expected.sizes)
        for name, s in expected.sensitive.items():
            assert np.array_equal(table.sensitive[name].counts, s.counts)
    # the search's own tables carry no record classes
    assert problem.evaluator.table((1,) * 8).record_class is None


@pytest.mark.parametrize("mode", ["remove", "star"])
@pytest.mark.parametrize("keep_order", [False, True])
def test_release_built_in_release_order_equals_permuting_strings(adult_frame, mode, keep_order):
    """The release is built column by column in release order (row numbers permuted first,
    codes gathered from the chosen node's classes or from the records): the same frame as
    writing every record's strings in input order and permuting the rows afterwards."""
    from privcheck.classes import count
    from privcheck.encoding import encode
    from privcheck.engines.pandas_engine import materialise
    from privcheck.plan import SUPPRESSED
    from privcheck.policy import load_policy

    frame = adult_frame.set_axis(np.arange(len(adult_frame)) * 3 + 7)  # not a RangeIndex
    policy = load_policy(ADULT / "policy.yaml").model_copy(update={"suppressed_records": mode})
    policy._base_dir = load_policy(ADULT / "policy.yaml").base_dir
    encoded = encode(frame, policy)
    node = (1, 0, 1, 1, 2, 1, 0, 1)
    table = count(encoded, node)
    kept = np.arange(len(frame)) % 7 != 0
    # the oracle: strings for every record in input order, then the rows chosen and permuted
    full = frame.reset_index(drop=True).copy()
    for col, level in zip(encoded.quasi_identifiers, node, strict=True):
        labels, codes = [*col.levels.labels[level], SUPPRESSED], col.codes_at(level)
        codes = np.where(kept | (mode != "star"), codes, len(labels) - 1)
        full[col.name] = pd.Series(np.asarray(labels, dtype=object)).array.take(codes)
    rows = np.arange(len(frame)) if mode == "star" else np.flatnonzero(kept)
    if not keep_order:
        rows = np.random.default_rng(4).permutation(rows)
    expected = full.iloc[rows].reset_index(drop=True)
    for given in (None, table):
        got, suppressed = materialise(
            frame, encoded, node, kept, policy, keep_order=keep_order, seed=4, table=given
        )
        pd.testing.assert_frame_equal(got, expected, check_exact=True)
        assert np.array_equal(suppressed, ~kept[rows])


@pytest.mark.parametrize("mode", ["remove", "star"])
def test_recheck_on_codes_with_missing_qi_insensitive_and_big_integers(mode):
    """A quasi-identifier with missing values as their own class, an insensitive column the check
    does not read, and a sensitive integer column near 2^60 (its released values are the
    originals, taken from the input, never through floats): the same report either way."""
    frame, policy = random_table(3, n=120)
    frame["age"] = frame["age"].astype("float").where(np.arange(len(frame)) % 11 != 3)
    frame["note"] = np.arange(len(frame))
    frame["big"] = (np.arange(len(frame)) % 5 + 2**60).astype(np.int64)
    policy["attributes"]["note"] = {"role": "insensitive"}
    policy["attributes"]["big"] = {"role": "sensitive"}
    policy.update(
        models=[
            {"model": "k-anonymity", "k": 4},
            {"model": "l-diversity", "l": 3, "attribute": "big"},
        ],
        suppression_limit=0.1,
        missing="own_class",
        suppressed_records=mode,
    )
    ours, plain = _both_rechecks(frame, policy)
    assert ours.model_dump() == plain.model_dump()


def test_star_mode_without_suppression_keeps_numbers_numeric():
    """Under ``suppressed_records: star`` with nothing suppressed no '*' is written, so a numeric
    quasi-identifier released at its ground level keeps its values and type (found by the
    hypothesis property test: 18 came out as '18')."""
    frame = pd.DataFrame({"age": [18] * 4, "zip": ["02138"] * 4, "disease": ["flu"] * 4})
    policy = {
        "attributes": {
            "age": {"role": "quasi_identifier", "hierarchy": {"type": "intervals", "widths": [10]}},
            "zip": {"role": "quasi_identifier"},
            "disease": {"role": "sensitive"},
        },
        "models": [{"model": "k-anonymity", "k": 1}],
        "suppressed_records": "star",
    }
    release, report = anonymize(frame, policy, "incognito")
    assert report.n_suppressed == 0
    assert release["age"].tolist() == [18] * 4
