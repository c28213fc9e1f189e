"""Exact values end to end (issue 18): integers near 2^60 through the CLI and the Python API.

Swaps write an exact permutation of the column, microaggregation writes the exact group means
rounded half to even (oracle: Python ints and fractions), interval labels bound exact integers,
and a method that cannot be exact refuses the column: exit 2, one line, nothing written.
"""

from __future__ import annotations

import datetime as dt
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import yaml

from privcheck.errors import DataError
from privcheck.masking import mdav
from privcheck.pipeline.anonymize import anonymize
from tests.conftest import run_cli

BASE = 2**60


def big_frame(n: int = 60, seed: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "id": BASE + rng.integers(0, 10_000, n) * 3,
            "cents": rng.integers(-(2**62), 2**62, n, dtype=np.int64),
            "age": rng.integers(18, 90, n),
            "note": rng.choice(["a", "b", "c"], n),
        }
    )


def masking_policy(qis=("id", "cents")) -> dict:
    return {
        "attributes": {
            **{c: {"role": "quasi_identifier"} for c in qis},
            "note": {"role": "insensitive"},
        },
        "models": [{"model": "k-anonymity", "k": 3}],
    }


def write(tmp_path, frame: pd.DataFrame, policy: dict):
    data, pol = tmp_path / "data.csv", tmp_path / "policy.yaml"
    frame.to_csv(data, index=False)
    pol.write_text(yaml.safe_dump(policy))
    return data, pol


def read_ints(path, column: str) -> list[int]:
    """A written column read back as exact Python ints (never through float64)."""
    return [int(v) for v in pd.read_csv(path, dtype=str)[column]]


def refused(res, column: str, out) -> None:
    """Exit 2, one line naming the column, no traceback, nothing written."""
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2, res.stderr
    assert len(lines) == 1 and "Traceback" not in res.stderr
    assert repr(column) in lines[0] or column in lines[0]
    assert not out.exists()


@pytest.mark.parametrize(
    "algorithm", ["rank-swapping", "rank-swapping-buckets", "rank-swapping-distribution"]
)
def test_cli_swaps_write_an_exact_permutation_near_2_60(tmp_path, algorithm):
    frame = big_frame()
    data, pol = write(tmp_path, frame, masking_policy())
    out = tmp_path / "release.csv"
    res = run_cli("anonymize", data, "-p", pol, "-a", algorithm, "--param", "p=10", "-o", out)
    assert res.returncode in (0, 1), res.stderr
    for c in ("id", "cents"):
        released = read_ints(out, c)
        assert sorted(released) == sorted(int(v) for v in frame[c])
    assert "." not in (tmp_path / "release.csv").read_text().split("\n", 1)[1].split(",")[0]


def test_cli_mdav_writes_exact_group_means_rounded_half_to_even(tmp_path):
    frame = big_frame()
    data, pol = write(tmp_path, frame, masking_policy())
    out = tmp_path / "release.csv"
    res = run_cli("anonymize", data, "-p", pol, "-a", "mdav", "--keep-order", "-o", out)
    assert res.returncode == 0, res.stderr
    labels = mdav(frame[["id", "cents"]], 3).groups[0]  # the same deterministic grouping
    for c in ("id", "cents"):
        values = [int(v) for v in frame[c]]
        sums: dict[int, list[int]] = {}
        for v, g in zip(values, labels.tolist(), strict=True):
            sums.setdefault(g, []).append(v)
        want = [round(Fraction(sum(sums[g]), len(sums[g]))) for g in labels.tolist()]
        got = read_ints(out, c)
        assert got == want
        assert min(got) >= min(values) and max(got) <= max(values)  # never a wrapped value
    assert res.returncode == 0


@pytest.mark.parametrize(
    ("algorithm", "params"),
    [
        ("mdav", {}),
        ("optimal-univariate", {}),
        ("fuzzy-microaggregation", {}),
        ("noise", {"a": 0.1}),
        ("rank-swapping", {"p": 10}),
    ],
)
def test_api_keeps_integer_columns_integers(algorithm, params):
    frame = big_frame()
    release, _ = anonymize(frame, masking_policy(), algorithm=algorithm, seed=1, **params)
    for c in ("id", "cents"):
        assert release[c].dtype == np.int64
        assert release[c].min() >= frame[c].min() or algorithm == "noise"
    if algorithm == "rank-swapping":
        assert sorted(release["id"].tolist()) == sorted(frame["id"].tolist())


def test_small_integer_columns_are_released_as_integers_too(tmp_path):
    frame = big_frame()
    data, pol = write(tmp_path, frame, masking_policy(qis=("age",)))
    out = tmp_path / "release.csv"
    res = run_cli("anonymize", data, "-p", pol, "-a", "mdav", "-o", out)
    assert res.returncode == 0, res.stderr
    assert all("." not in v for v in pd.read_csv(out, dtype=str)["age"])


def test_cli_refuses_integers_beyond_uint64_range_naming_the_column(tmp_path):
    frame = big_frame()
    frame["id"] = frame["id"].astype(object)
    frame.loc[0, "id"] = 2**64 + 1
    data, pol = write(tmp_path, frame, masking_policy())
    out = tmp_path / "release.csv"
    refused(run_cli("anonymize", data, "-p", pol, "-a", "mdav", "-o", out), "id", out)


def test_cli_refuses_integers_above_int64_naming_the_column(tmp_path):
    frame = big_frame()
    frame["id"] = frame["id"].astype(object)
    frame.loc[0, "id"] = 2**64 - 3  # parses as uint64
    data, pol = write(tmp_path, frame, masking_policy())
    out = tmp_path / "release.csv"
    refused(run_cli("anonymize", data, "-p", pol, "-a", "rank-swapping", "--param", "p=5",
                    "-o", out), "id", out)  # fmt: skip


def test_cli_refuses_noise_that_leaves_the_int64_range(tmp_path):
    frame = pd.DataFrame({"big": [2**63 - 1, 2**63 - 2, -(2**63), 0] * 5, "note": ["x"] * 20})
    data, pol = write(tmp_path, frame, masking_policy(qis=("big",)))
    out = tmp_path / "release.csv"
    res = run_cli("anonymize", data, "-p", pol, "-a", "noise", "--param", "a=4", "-o", out)
    refused(res, "big", out)


def test_api_refusal_is_a_data_error():
    frame = pd.DataFrame({"big": [2**63 - 1, 2**63 - 2, -(2**63), 0] * 5, "note": ["x"] * 20})
    with pytest.raises(DataError, match="'big'"):
        anonymize(frame, masking_policy(qis=("big",)), algorithm="noise", a=4.0, seed=1)


# ----------------------------------------------------------------- intervals and dates


def test_cli_interval_labels_bound_exact_integers(tmp_path):
    frame = big_frame()
    policy = {
        "attributes": {
            "id": {
                "role": "quasi_identifier",
                "hierarchy": {"type": "intervals", "widths": [1000, 100000]},
            },
            "note": {"role": "insensitive"},
        },
        "models": [{"model": "k-anonymity", "k": 2}],
    }
    data, pol = write(tmp_path, frame, policy)
    out = tmp_path / "release.csv"
    res = run_cli("anonymize", data, "-p", pol, "-o", out, "-a", "mingen")  # full-domain labels
    assert res.returncode == 0, res.stderr
    labels = pd.read_csv(out, dtype=str)["id"]
    assert not labels.str.contains("e+").any()
    originals = sorted(int(v) for v in frame["id"])
    for label in labels:  # closed ranges of integers: [lo, hi]
        lo, hi = (int(p) for p in label.strip("[]").split(", "))
        width = hi - lo + 1
        assert width in (1000, 100000) and lo % width == 0
    # every original value lies in the bound of its released row (rows are shuffled: as sets)
    bounds = {tuple(int(p) for p in lab.strip("[]").split(", ")) for lab in labels}
    assert all(any(lo <= v <= hi for lo, hi in bounds) for v in originals)


def test_cli_refuses_fractional_bins_over_integers_beyond_2_53(tmp_path):
    frame = big_frame()
    policy = {
        "attributes": {
            "id": {"role": "quasi_identifier", "hierarchy": {"type": "intervals", "widths": [2.5]}}
        },
        "models": [{"model": "k-anonymity", "k": 2}],
    }
    data, pol = write(tmp_path, frame, policy)
    out = tmp_path / "release.csv"
    refused(run_cli("anonymize", data, "-p", pol, "-o", out), "id", out)


def test_cli_iso_week_level_end_to_end(tmp_path):
    rng = np.random.default_rng(0)
    start = dt.date(2019, 12, 20)
    days = [start + dt.timedelta(days=int(d)) for d in rng.integers(0, 800, 200)]
    frame = pd.DataFrame({"day": [d.isoformat() for d in days], "note": ["x"] * 200})
    policy = {
        "attributes": {
            "day": {
                "role": "quasi_identifier",
                "hierarchy": {"type": "dates", "levels": ["week", "year"]},
            },
            "note": {"role": "insensitive"},
        },
        "models": [{"model": "k-anonymity", "k": 2}],
    }
    data, pol = write(tmp_path, frame, policy)
    out = tmp_path / "release.csv"
    res = run_cli("anonymize", data, "-p", pol, "--keep-order", "-o", out, "-a", "mingen")
    assert res.returncode == 0, res.stderr
    released = pd.read_csv(out, dtype=str)["day"].tolist()
    iso = [d.isocalendar() for d in days]
    weeks = [f"{y}-W{w:02d}" for y, w, _ in iso]
    years = [str(y) for y, _, _ in iso]
    assert released in (weeks, years)  # whichever level the search chose, it is the oracle's
    check = run_cli("check", out, "-p", pol)
    assert check.returncode == 0, check.stderr


@pytest.mark.parametrize("algorithm", ["mdav", "rank-swapping", "noise"])
def test_api_values_closer_than_float64_spacing_are_told_apart(algorithm):
    """2^60 + 0, 3, … 87 are all one float64; the release is still exact and the report's
    information loss is defined (computed relative to an even offset)."""
    frame = pd.DataFrame({"id": BASE + np.arange(30) * 3, "note": ["x"] * 30})
    params = {"rank-swapping": {"p": 10}, "noise": {"a": 0.5}}.get(algorithm, {})
    release, report = anonymize(
        frame, masking_policy(qis=("id",)), algorithm=algorithm, seed=1, keep_order=True, **params
    )
    ids = release["id"].tolist()
    assert release["id"].dtype == np.int64 and report.information_loss["sse_sst"] > 0
    if algorithm == "rank-swapping":
        assert sorted(ids) == sorted(frame["id"].tolist())
    if algorithm == "mdav":  # consecutive triples: their exact means are the middle values
        assert sorted(set(ids)) == [BASE + 3 * (3 * g + 1) for g in range(10)]


# ------------------------------------------------------- uint64 values above 2^63 (issue 30)

UNSIGNED = [2**64 - 1, 2**63 + 1, 2**63, 2**64 - 2, 0, 1]


def unsigned_files(tmp_path, hierarchy: dict | None) -> tuple:
    """A Parquet table whose quasi-identifier ``id`` is uint64, half of it above 2^63 − 1,
    and an insensitive uint64 column ``serial`` carried into the release as it is."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = 24
    table = pa.table(
        {
            "id": pa.array([UNSIGNED[i % 6] for i in range(n)], pa.uint64()),
            "sex": pa.array(["f", "m"] * (n // 2)),
            "serial": pa.array([2**64 - 1 - i for i in range(n)], pa.uint64()),
        }
    )
    data, pol = tmp_path / "data.parquet", tmp_path / "policy.yaml"
    pq.write_table(table, data)
    attrs = {
        "id": {"role": "quasi_identifier", **({"hierarchy": hierarchy} if hierarchy else {})},
        "sex": {"role": "quasi_identifier"},
        "serial": {"role": "insensitive"},
    }
    policy = {"attributes": attrs, "models": [{"model": "k-anonymity", "k": 2}]}
    policy["suppression_limit"] = 0.2
    pol.write_text(yaml.safe_dump(policy))
    return data, pol, table


def released_ints(path, column: str) -> list[int]:
    """A release's column as exact Python ints, from either format (never through float64)."""
    import pyarrow.parquet as pq

    if path.suffix == ".parquet":
        return [int(v) for v in pq.read_table(path).column(column).to_pylist()]
    return read_ints(path, column)


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
@pytest.mark.parametrize("algorithm", ["mingen", "incognito", "local-suppression", "auto"])
@pytest.mark.parametrize("hierarchy", [{"type": "intervals", "widths": [10, 20]}, None])
def test_uint64_values_above_2_63_stay_exact_in_every_release(
    tmp_path, suffix, algorithm, hierarchy
):
    """``anonymize -o r.parquet`` crashed on uint64 values above 2^63 (Arrow was handed Python
    ints to type as int64). The release now holds them exactly — 2^64 − 1 and 2^63 + 1 as
    written — in Parquet (a uint64 column) and CSV, and re-checks with its policy."""
    data, pol, table = unsigned_files(tmp_path, hierarchy)
    out = tmp_path / f"release{suffix}"
    res = run_cli(
        "anonymize", data, "-p", pol, "-o", out, "-a", algorithm, "--keep-order", "--seed", "1"
    )
    assert res.returncode == 0, res.stderr
    assert released_ints(out, "serial") == table.column("serial").to_pylist()
    if "id=0" in res.stdout:  # id released at its ground level: the values themselves
        written = released_ints(out, "id") if algorithm != "local-suppression" else None
        assert written in (None, table.column("id").to_pylist())
    assert run_cli("check", out, "-p", pol).returncode == 0


def test_uint64_ground_values_are_written_exactly_by_the_release_writer(tmp_path):
    """The writer itself: a column of Python ints beyond int64 becomes uint64; one mixing
    negative numbers with such ints is written as exact text; both read back unchanged."""
    import pyarrow.parquet as pq

    from privcheck.io import write_table

    frame = pd.DataFrame(
        {
            "u": pd.Series([2**64 - 1, 2**63 + 1, None], dtype=object),
            "mixed": pd.Series([-(2**63), 2**64 - 1, 7], dtype=object),
            "plain": [1, 2, 3],
        }
    )
    path = tmp_path / "r.parquet"
    write_table(frame, path)
    back = pq.read_table(path)
    assert str(back.schema.field("u").type) == "uint64"
    assert back.column("u").to_pylist() == [2**64 - 1, 2**63 + 1, None]
    assert back.column("mixed").to_pylist() == [str(-(2**63)), str(2**64 - 1), "7"]
    assert back.column("plain").to_pylist() == [1, 2, 3]
    csv = tmp_path / "r.csv"
    write_table(frame, csv)
    assert read_ints(csv, "mixed") == [-(2**63), 2**64 - 1, 7]
