"""Every utility measure of any release (hierarchy ancestors at mixed levels, ranges, '*')
against a brute-force pure-Python oracle on small random tables, plus worked examples."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from utility_oracle import measures as oracle

from privcheck.errors import DataError
from privcheck.pipeline.anonymize import anonymize
from privcheck.policy import parse_policy
from privcheck.utility import MEASURES
from privcheck.utility.compare import compare, recoding

ZIP = [
    ["1301", "130*", "13**", "*"],
    ["1302", "130*", "13**", "*"],
    ["1311", "131*", "13**", "*"],
    ["1411", "141*", "14**", "*"],
    ["1412", "141*", "14**", "*"],
    ["9999", "999*", "99**", "*"],  # in the hierarchy, never in the data
]
JOB = [["nurse", "health", "*"], ["doctor", "health", "*"], ["clerk", "office", "*"]]


def policy(age_hierarchy: bool = True) -> object:
    age = {"role": "quasi_identifier"}
    if age_hierarchy:
        age["hierarchy"] = {"type": "intervals", "widths": [10, 20]}
    return parse_policy(
        {
            "attributes": {
                "zip": {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": ZIP}},
                "job": {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": JOB}},
                "age": age,
                "disease": {"role": "sensitive"},
            },
            "models": [{"model": "k-anonymity", "k": 2}],
        }
    )


def age_rows(pol) -> list[list[str]]:
    """The intervals hierarchy of age spelt as rows, for the oracle."""
    widths = [int(w) for w in pol.attributes["age"].hierarchy.widths]
    rows = []
    for a in range(0, 100):
        row = [str(a)]
        for w in widths:
            lo = a // w * w
            row.append(f"[{lo}, {lo + w - 1}]")
        rows.append([*row, "*"])
    return rows


def random_release(rng, frame: pd.DataFrame, age_hierarchy: bool) -> pd.DataFrame:
    out = frame.copy()
    ages = frame["age"].astype(int)
    for i in range(len(frame)):
        kind = rng.integers(0, 4)
        z = next(r for r in ZIP if r[0] == frame.at[i, "zip"])
        j = next(r for r in JOB if r[0] == frame.at[i, "job"])
        if kind == 1:
            out.at[i, "zip"] = z[rng.integers(1, 4)]
            out.at[i, "job"] = j[rng.integers(1, 3)]
        elif kind == 2:
            out.at[i, "zip"] = "*"
        a = int(ages[i])
        pick = rng.integers(0, 5)
        if pick == 1:
            out.at[i, "age"] = f"{a - int(rng.integers(0, 6))}-{a + int(rng.integers(0, 6))}"
        elif pick == 2:
            out.at[i, "age"] = f"[{a - int(rng.integers(0, 4))}, {a + int(rng.integers(1, 4))})"
        elif pick == 3:
            out.at[i, "age"] = "*"
        elif pick == 4 and age_hierarchy:
            out.at[i, "age"] = f"[{a // 10 * 10}, {a // 10 * 10 + 9}]"
    return out


def random_table(rng, n: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "zip": rng.choice([r[0] for r in ZIP[:5]], n),
            "job": rng.choice([r[0] for r in JOB], n),
            "age": rng.integers(20, 60, n).astype(str),
            "disease": rng.choice(["flu", "cold"], n),
        }
    )


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("age_hierarchy", [True, False])
def test_measures_match_the_brute_force_oracle(seed: int, age_hierarchy: bool) -> None:
    rng = np.random.default_rng(seed)
    frame = random_table(rng, int(rng.integers(4, 25)))
    release = random_release(rng, frame, age_hierarchy)
    pol = policy(age_hierarchy)
    # a few records suppressed, written as a row of '*'
    starred = rng.random(len(frame)) < 0.15
    release.loc[starred, ["zip", "job", "age"]] = "*"
    got = compare(frame, release, pol)
    cols = ["zip", "job", "age"]
    want = oracle(
        [tuple(r) for r in frame[cols].to_numpy()],
        [tuple(r) for r in release[cols].astype(str).to_numpy()],
        [ZIP, JOB, age_rows(pol) if age_hierarchy else None],
        [[r[0] for r in ZIP], [r[0] for r in JOB], sorted(set(frame["age"]))],
    )
    assert set(want) <= set(got)
    for name, value in want.items():
        assert got[name] == pytest.approx(value, rel=1e-9, abs=1e-9), name
    # the same release shuffled, its suppressed records left out: read from its labels alone,
    # every measure is the same
    unaligned = release[~starred].sample(frac=1.0, random_state=seed).reset_index(drop=True)
    if (~starred).all() and len(unaligned) > 1:
        unaligned = unaligned.iloc[::-1].reset_index(drop=True)
    again = compare(frame, unaligned, pol)
    for name, value in want.items():
        assert again[name] == pytest.approx(value, rel=1e-9, abs=1e-9), ("unaligned", name)


def test_the_registry_lists_every_measure() -> None:
    assert list(MEASURES) == [
        "classes",
        "prec",
        "non_uniform_entropy",
        "non_uniform_entropy_share",
        "discernibility",
        "aecs",
        "kl_divergence",
        "changed_cells",
        "changed_share",
        "suppressed_cells",
        "suppressed_share",
        "suppressed_records",
        "generalized_cells",
        "loss",
    ]


def test_worked_example_by_hand() -> None:
    """Four records, ZIPs 1301 1302 1302 1411 and one job; the release writes 130* 130* 1302 *.

    NUE: P(1301 | 130*) = 1/3, P(1302 | 130*) = 2/3, P(1302 | 1302) = 1, P(1411 | *) = 1/4:
    log2 3 + log2 3/2 + 0 + 2 bits. Prec: 130* is level 1 of 3 → 1/3 twice, '*' → 1, over 12
    cells (job and age unchanged): 1 − (2/3 + 1)/12. KL: the boxes are {1301, 1302} (twice),
    {1302} and the three ZIPs present (for '*'), each spreading 1/N uniformly."""
    frame = pd.DataFrame(
        {
            "zip": ["1301", "1302", "1302", "1411"],
            "job": ["nurse"] * 4,
            "age": ["30"] * 4,
            "disease": ["flu"] * 4,
        }
    )
    release = frame.assign(zip=["130*", "130*", "1302", "*"])
    got = compare(frame, release, policy())
    assert got["non_uniform_entropy"] == pytest.approx(math.log2(3) + math.log2(1.5) + 2)
    assert got["prec"] == pytest.approx(1 - (2 / 3 + 1) / 12)
    assert got["changed_cells"] == 3 and got["suppressed_cells"] == 1
    # '*' covers the 3 ZIPs present (1301, 1302, 1411): p2 = Σ boxes' 1/(N·|box|)
    p2 = {
        "1301": (1 / 2 + 1 / 2 + 1 / 3) / 4,
        "1302": (1 / 2 + 1 / 2 + 1 + 1 / 3) / 4,
        "1411": (1 / 3) / 4,
    }
    p1 = {"1301": 1 / 4, "1302": 2 / 4, "1411": 1 / 4}
    assert got["kl_divergence"] == pytest.approx(
        sum(p * math.log(p / p2[z]) for z, p in p1.items())
    )
    # classes: (130*), (1302), (*): the '*' row is not all-'*' (job, age read values)
    assert got["classes"] == 3 and got["discernibility"] == 4 + 1 + 1


def test_full_domain_release_matches_the_node_metrics(adult_frame) -> None:
    """On a full-domain release (suppressed records as stars) Prec, discernibility and AECS are
    the anonymizer's own figures for its node."""
    from privcheck.policy import load_policy

    base = load_policy("privcheck/data/adult/policy.yaml")
    data = base.model_dump()
    data["suppressed_records"] = "star"
    pol = parse_policy(data, base_dir=base.base_dir)
    frame = adult_frame.iloc[:4000].reset_index(drop=True)
    release, report = anonymize(frame, pol, "mingen", keep_order=True)
    got = compare(frame, release, pol)
    for name in ("prec", "discernibility", "aecs"):
        assert got[name] == pytest.approx(report.metrics[name]), name


def test_identity_release_loses_nothing() -> None:
    frame = random_table(np.random.default_rng(3), 30)
    got = compare(frame, frame, policy())
    assert got["prec"] == 1.0 and got["non_uniform_entropy"] == 0.0
    assert got["kl_divergence"] == pytest.approx(0.0, abs=1e-12)
    assert got["changed_cells"] == 0 and got["suppressed_cells"] == 0


def test_a_misaligned_release_is_read_from_its_labels() -> None:
    """Rows in another order: the cell-by-cell reading refuses it (``aligned_only``);
    ``compare`` reads it from its labels and says the rows are not aligned."""
    frame = random_table(np.random.default_rng(1), 10)
    release = frame.iloc[::-1].reset_index(drop=True)
    with pytest.raises(DataError, match=r"does not contain the original.*--keep-order"):
        recoding(frame, release, policy(), aligned_only=True)
    rec = recoding(frame, release, policy())
    assert not rec.aligned and "--keep-order" in rec.unaligned
    assert compare(frame, release, policy())["changed_cells"] == 0


def test_row_count_columns_and_labels_are_checked() -> None:
    frame = random_table(np.random.default_rng(1), 10)
    with pytest.raises(DataError, match="has 11 rows and the original 10"):
        compare(frame, pd.concat([frame, frame.iloc[:1]]), policy())
    with pytest.raises(DataError, match=r"has 9 rows and the original 10.*--keep-order"):
        recoding(frame, frame.iloc[:9], policy(), aligned_only=True)
    with pytest.raises(DataError, match="no column 'job'"):
        compare(frame, frame.drop(columns="job"), policy())
    # read from its labels, a release must hold values of this original under this policy
    with pytest.raises(DataError, match=r"'banker'.*no label of its hierarchy"):
        compare(frame, frame.iloc[:9].assign(job="banker"), policy())
    with pytest.raises(DataError, match=r"'9999'.*covers no value of the original"):
        compare(frame, frame.iloc[:9].assign(zip="9999"), policy())


def test_records_left_out_count_as_rows_of_stars() -> None:
    """Two of four records left out, the others released as themselves: 2 × 3 cells of loss 1
    over 12, 2 suppressed records, 6 changed cells; two classes of one plus 2 suppressed records
    charged N each."""
    frame = pd.DataFrame(
        {
            "zip": ["1301", "1302", "1311", "1411"],
            "job": ["nurse", "doctor", "clerk", "nurse"],
            "age": ["30", "31", "32", "33"],
            "disease": ["flu"] * 4,
        }
    )
    got = compare(frame, frame.iloc[[2, 0]], policy())
    assert got["rows"] == 2 and got["classes"] == 2
    assert got["loss"] == pytest.approx(6 / 12) and got["suppressed_records"] == 0.5
    assert got["generalized_cells"] == pytest.approx(0.5) and got["suppressed_cells"] == 6
    assert got["discernibility"] == 1 + 1 + 2 * 4 and got["aecs"] == pytest.approx(4 / 3)
