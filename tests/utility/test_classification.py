"""Classification utility: exact cases (a target a QI determines; a release that hides every QI
trains the majority-class predictor), determinism with the seed, and the mapping of held-out
original records into a release's recoding."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_measures import JOB, ZIP, policy

from privcheck.utility.classification import classification_utility, split
from privcheck.utility.compare import compare, recoding
from privcheck.utility.kl_divergence import heaviest_boxes

pytest.importorskip("sklearn")


def table(n: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    job = rng.choice(["nurse", "doctor", "clerk"], n, p=[0.5, 0.2, 0.3])
    return pd.DataFrame(
        {
            "zip": rng.choice([r[0] for r in ZIP[:5]], n),
            "job": job,
            "age": rng.integers(20, 60, n).astype(str),
            # a function of the job alone: the original model can be perfect
            "disease": np.where(job == "clerk", "cold", "flu"),
        }
    )


def test_a_determined_target_and_a_release_that_hides_everything() -> None:
    frame = table()
    release = frame.assign(zip="*", job="*", age="*")
    rec = recoding(frame, release, policy())
    got = classification_utility(rec, frame["disease"], release["disease"], seed=4)
    assert got.accuracy_original == 1.0
    # every released row reads the same: the model predicts the training majority ('flu')
    _, test = split(len(frame), 0.3, 4)
    assert got.accuracy_release == pytest.approx(
        np.mean(frame["disease"].to_numpy()[test] == "flu")
    )
    assert got.loss_points == pytest.approx(100 * (1 - got.accuracy_release))


def test_generalizing_the_determining_qi_to_its_parent_costs_what_it_merges() -> None:
    """job → health/office keeps clerk apart: nothing is lost; zip/age noise is irrelevant."""
    frame = table()
    parent = {r[0]: r[1] for r in JOB}
    release = frame.assign(job=frame["job"].map(parent), zip="*")
    row = compare(frame, release, policy(), target="disease", seed=1)
    assert row["accuracy_original"] == 1.0 and row["accuracy_release"] == 1.0
    assert row["accuracy_loss_points"] == 0.0


def test_the_same_seed_gives_the_same_figures() -> None:
    frame = table(seed=2)
    frame["disease"] = np.random.default_rng(9).choice(["flu", "cold"], len(frame))
    release = frame.assign(zip=frame["zip"].str[:3] + "*")
    a = compare(frame, release, policy(), target="disease", seed=7)
    b = compare(frame, release, policy(), target="disease", seed=7)
    assert a == b


def test_held_out_originals_map_to_their_ancestor_in_a_full_domain_release() -> None:
    frame = table(60)
    release = frame.assign(zip=frame["zip"].str[:2] + "**", job="*")
    rec = recoding(frame, release, policy())
    points, _, _ = rec.distinct("grounds")
    mapped = heaviest_boxes(rec, np.arange(len(points)))
    zip_col, job_col = rec.columns[0], rec.columns[1]
    ground_zip = [r[0] for r in ZIP]  # the table hierarchy's ground codes, in file order
    for p, m in zip(points, mapped, strict=True):
        assert zip_col.label[m[0]] == ground_zip[p[0]][:2] + "**"
        assert job_col.label[m[1]] == "*"


def test_a_point_in_several_boxes_goes_to_the_largest() -> None:
    """Local suppression: a record whose zip is blanked sits in the '*' box and in the box of
    its zip; a held-out record with that zip maps to the larger of the two."""
    frame = pd.DataFrame(
        {
            "zip": ["1301"] * 3 + ["1302"] * 2,
            "job": ["nurse"] * 5,
            "age": ["30"] * 5,
            "disease": ["flu"] * 5,
        }
    )
    release = frame.assign(zip=["1301", "1301", "*", "*", "*"])
    rec = recoding(frame, release, policy())
    points, _, _ = rec.distinct("grounds")
    mapped = heaviest_boxes(rec, np.arange(len(points)))
    labels = [rec.columns[0].label[m[0]] for m in mapped]
    assert labels == ["*", "*"]  # '*' box holds 3 records, the 1301 box 2


def test_the_split_caps_large_tables() -> None:
    from privcheck.utility import classification

    train, test = split(200_000, 0.3, 0)
    assert len(test) == classification.MAX_TEST and len(train) == classification.MAX_TRAIN
    assert not set(train) & set(test)
    train, test = split(1000, 0.3, 0)
    assert len(test) == 300 and len(train) == 700
