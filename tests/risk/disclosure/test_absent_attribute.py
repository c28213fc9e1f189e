"""DDMBAR (Torra, algorithm 11) against a hand computation on an 8-record table."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml

from privcheck.errors import DataError
from privcheck.risk.disclosure.absent_attribute import ddmbar

pytest.importorskip("sklearn")

#: groups (colour, size): (r, s) 4 × x, (r, l) 2 × y, (g, s) 2 × z — every group pure
ORIGINAL = pd.DataFrame(
    {
        "colour": ["r", "r", "r", "r", "r", "r", "g", "g"],
        "size": ["s", "s", "s", "s", "l", "l", "s", "s"],
        "a": ["x", "x", "x", "x", "y", "y", "z", "z"],
    }
)


def _groupby_oracle(original, release, target):
    """An independent implementation: each model = the majority label per feature combination."""
    feats = ["colour", "size"]
    y_rel = release[target] if target in release else original[target]
    lab_o = original.groupby(feats)[target].agg(lambda s: s.value_counts().idxmax())
    rel = release[feats].assign(_y=y_rel.to_numpy())
    lab_r = rel.groupby(feats)["_y"].agg(lambda s: s.value_counts().idxmax())
    keys = list(original[feats].itertuples(index=False, name=None))
    return sum(lab_o[k] == lab_r[k] for k in keys) / len(keys)


def test_masked_target_by_hand():
    """Release changes a of rows 4 and 5 (y→x): the release model says x for (r, l), the
    original model y, so rows 4 and 5 disagree; 6 of 8 agree = 0.75."""
    release = ORIGINAL.copy()
    release.loc[[4, 5], "a"] = "x"
    res = ddmbar(ORIGINAL, release, "a")
    assert res["agreement"] == pytest.approx(0.75)
    assert res["agree"].tolist() == [True] * 4 + [False, False] + [True, True]
    assert res["target_in_release"]
    assert res["agreement"] == pytest.approx(_groupby_oracle(ORIGINAL, release, "a"))


def test_absent_target_by_hand():
    """Release without a; rows 0–2 published with size l. Release model (labels = original a):
    (r, s) = row 3 → x; (r, l) = rows 0, 1, 2 (x) + 4, 5 (y) → x; (g, s) → z. The original model
    says y for (r, l): rows 4 and 5 disagree → 6/8."""
    release = ORIGINAL.drop(columns="a")
    release.loc[[0, 1, 2], "size"] = "l"
    res = ddmbar(ORIGINAL, release, "a")
    assert res["agreement"] == pytest.approx(0.75)
    assert not res["target_in_release"]
    assert res["release_predictions"].tolist()[4:6] == ["x", "x"]
    assert res["agreement"] == pytest.approx(_groupby_oracle(ORIGINAL, release, "a"))
    # an unmasked release rebuilds the original model exactly
    assert ddmbar(ORIGINAL, ORIGINAL.drop(columns="a"), "a")["agreement"] == 1.0


def test_bad_input():
    with pytest.raises(DataError, match="aligned"):
        ddmbar(ORIGINAL, ORIGINAL.iloc[:5], "a")
    with pytest.raises(DataError, match="target"):
        ddmbar(ORIGINAL, ORIGINAL, "nope")


def test_cli(cli, tmp_path):
    release = ORIGINAL.drop(columns="a")
    release.loc[[0, 1, 2], "size"] = "l"
    orig, rel = tmp_path / "o.csv", tmp_path / "r.csv"
    ORIGINAL.to_csv(orig, index=False)
    release.to_csv(rel, index=False)
    pol = tmp_path / "p.yaml"
    pol.write_text(yaml.safe_dump({"attributes": {"colour": {"role": "quasi_identifier"}}}))
    out = cli(
        "risk", "--original", orig, "--masked", rel, "--policy", pol,
        "--attack", "ddmbar", "--param", "target=a", "--format", "json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["figures"]["agreement"] == pytest.approx(0.75)
