"""``privcheck risk`` end to end: the worked example, the JSON contract, text/HTML, bad input."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from privcheck.errors import DataError, PolicyError
from privcheck.html_report import render_risk_html
from privcheck.plugins import risk_registry
from privcheck.risk import dbrl, uniqueness_risk
from privcheck.risk.assess import assess, intruder_rows, render_risk_text
from tests.conftest import EXAMPLES

CASC = Path(__file__).resolve().parents[1] / "data" / "casc"


def policy_file(tmp_path: Path, qis: list[str], extra: dict | None = None) -> Path:
    attrs = {a: {"role": "quasi_identifier"} for a in qis}
    attrs.update(extra or {})
    path = tmp_path / "policy.yaml"
    path.write_text(yaml.safe_dump({"attributes": attrs}))
    return path


def test_cli_rank_swap_worked_example(cli, tmp_path):
    """Intruder record (6, 7, 10, 2) = original row 1, p = 20 %: the single candidate is masked
    row 1, (5, 5, 8, 1) — a certain re-identification."""
    rows = tmp_path / "rows.txt"
    rows.write_text("row\n1\n")
    res = cli(
        "risk",
        "--original",
        EXAMPLES / "rank_swap_original.csv",
        "--masked",
        EXAMPLES / "rank_swap_masked.csv",
        "--policy",
        policy_file(tmp_path, ["a1", "a2", "a3", "a4"]),
        "--attack",
        "rank-swap-transparency",
        "--param",
        "p=20",
        "--intruder-records",
        rows,
        "--format",
        "json",
    )
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["n_intruder_records"] == 1 and out["n_masked_records"] == 10
    assert out["reidentification_rate"] == 1.0 and out["certain_rate"] == 1.0
    assert out["figures"]["window"] == 2 and out["figures"]["mean_candidate_set_size"] == 1.0
    masked = pd.read_csv(EXAMPLES / "rank_swap_masked.csv")
    assert masked.iloc[1].tolist() == [5, 5, 8, 1]


def _rank_swap_cli(cli, tmp_path, *params):
    return cli(
        "risk",
        "--original",
        EXAMPLES / "rank_swap_original.csv",
        "--masked",
        EXAMPLES / "rank_swap_masked.csv",
        "--policy",
        policy_file(tmp_path, ["a1", "a2", "a3", "a4"]),
        "--attack",
        "rank-swap-transparency",
        *[a for p in params for a in ("--param", p)],
        "--format",
        "json",
    )


def test_cli_rank_swap_variant_and_coverage(cli, tmp_path):
    """--param variant=buckets: the certain window is the whole file (9 ranks of 10 records);
    coverage=0.999 the window replayed from the law, as the library computes it."""
    from privcheck.masking.rank_swapping import intruder_window

    res = _rank_swap_cli(cli, tmp_path, "p=20", "variant=buckets")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["params"] == {"p": 20, "variant": "buckets"}
    assert out["figures"]["variant"] == "buckets" and out["figures"]["coverage"] == 1.0
    assert out["figures"]["window"] == 9 and out["figures"]["mean_candidate_set_size"] == 10
    assert out["certain_rate"] == 0.0
    res = _rank_swap_cli(cli, tmp_path, "p=20", "variant=distribution", "coverage=0.999")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["figures"]["window"] == intruder_window(10, 20, "distribution", coverage=0.999)
    assert out["figures"]["window_rule"] == "0.999 of the law"


@pytest.mark.parametrize(
    ("param", "message"),
    [
        ("variant=bucket", "variant must be 'plain', 'buckets' or 'distribution'"),
        ("coverage=2", "coverage must be a number in (0, 1]"),
        ("coverage=most", "coverage must be a number in (0, 1]"),
    ],
)
def test_cli_rank_swap_bad_variant_or_coverage_exits_2(cli, tmp_path, param, message):
    res = _rank_swap_cli(cli, tmp_path, "p=20", param)
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], res.stderr


@pytest.fixture(scope="module")
def census_files(tmp_path_factory):
    from privcheck.masking import rank_swap

    folder = tmp_path_factory.mktemp("census")
    census = pd.read_csv(CASC / "census.csv")
    masked = rank_swap(census, 10, seed=3).masked
    census.to_csv(folder / "original.csv", index=False)
    masked.to_csv(folder / "masked.csv", index=False)
    return folder, census, masked


def test_cli_dbrl_matches_library_and_writes_all_formats(cli, tmp_path, census_files):
    folder, census, masked = census_files
    attrs = ["AFNLWGT", "AGI", "FICA", "WSALVAL"]
    pol = policy_file(tmp_path, attrs)
    args = ["risk", "--original", folder / "original.csv", "--masked", folder / "masked.csv"]
    args += ["--policy", pol, "--attack", "dbrl", "--seed", "4"]
    res = cli(*args, "--format", "json", "--output", tmp_path / "r.json")
    assert res.returncode == 0, res.stderr
    out = json.loads((tmp_path / "r.json").read_text())
    expected = dbrl(census[attrs], masked[attrs], random_state=4)
    assert out["attributes"] == attrs
    assert out["reidentification_rate"] == pytest.approx(expected.reidentification_rate)
    assert out["certain_rate"] == pytest.approx(expected.certain_rate)
    assert out["figures"]["anonymity_set_rate"] == pytest.approx(expected.anonymity_set_rate)
    assert set(out["attribute_contribution"]) == set(attrs)
    text = render_risk_text(assess(census, masked, attrs, risk_registry()["dbrl"]))
    assert "re-identification rate" in text and "per-attribute contribution" in text
    res = cli(*args, "--format", "html", "--output", tmp_path / "r.html")
    assert res.returncode == 0, res.stderr
    page = (tmp_path / "r.html").read_text()
    assert page.count("<svg") == 2  # the risk histogram and the sorted risk curve
    assert "Per-attribute contribution" in page and "WSALVAL" in page
    assert "http" not in page.replace("http://www.w3.org", "")


def test_intruder_records_random_subset_is_seeded_and_linked_to_its_rows(census_files):
    _, census, masked = census_files
    attrs = ["AGI", "FICA"]
    m = risk_registry()["dbrl"]
    params = {"standardisation": "masked"}
    a = assess(census, masked, attrs, m, params, intruder_records="50", seed=0)
    b = assess(census, masked, attrs, m, params, intruder_records="50", seed=0)
    assert a.n_intruder_records == 50 and a.reidentification_rate == b.reidentification_rate
    rows, _ = intruder_rows("50", len(census), 0)
    ref = dbrl(census[attrs].iloc[rows], masked[attrs], true_index=rows, standardisation="masked")
    assert a.figures["anonymity_set_rate"] == pytest.approx(ref.anonymity_set_rate)


def test_uniqueness_on_release_quasi_identifiers():
    released = pd.DataFrame({"age": [30, 30, 40, 40, 40, 50], "zip": list("aabbcc")})
    report = assess(released, released, ["age", "zip"], risk_registry()["uniqueness"])
    ref = uniqueness_risk([2, 2, 1, 1])  # classes (30,a) (40,b) (40,c) (50,c)
    assert report.reidentification_rate == pytest.approx(ref.prosecutor_average_risk)
    assert report.certain_rate == pytest.approx(2 / 6)
    # leaving zip out merges (40,b) and (40,c): both records stop being unique; leaving age out
    # merges (40,c) with (50,c): the same two
    assert report.attribute_contribution == pytest.approx({"age": 2 / 6, "zip": 1 / 6})
    assert "uniqueness" in render_risk_text(report)
    assert "<svg" in render_risk_html(report)


def test_interval_disclosure_has_no_reidentification_rate(census_files):
    _, census, masked = census_files
    r = assess(census, masked, ["AGI", "FICA"], risk_registry()["interval-disclosure"], {"p": 5})
    assert r.reidentification_rate is None and 0 < r.figures["disclosure_rate"] <= 1


def test_plugins_lists_risk_measures(cli):
    res = cli("plugins")
    assert res.returncode == 0, res.stderr
    assert "privcheck.risk.measures" in res.stdout and "rank-swap-transparency" in res.stdout


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("rows", "same row count"),
        ("attack", "unknown attack"),
        ("text", "is not numeric"),
    ],
)
def test_bad_input_exits_2_with_one_line(cli, tmp_path, change, message):
    orig = pd.DataFrame({"x": [1.0, 2, 3, 4], "y": [4.0, 3, 2, 1], "s": list("abab")})
    masked = orig.copy()
    attack, extra = "dbrl", []
    if change == "rows":
        masked = masked.iloc[:3]
    elif change == "attack":
        attack = "nope"
    else:
        extra = ["--intruder-attributes", "x,s"]
    orig.to_csv(tmp_path / "o.csv", index=False)
    masked.to_csv(tmp_path / "m.csv", index=False)
    res = cli(
        "risk",
        "--original",
        tmp_path / "o.csv",
        "--masked",
        tmp_path / "m.csv",
        "--policy",
        policy_file(tmp_path, ["x", "y"]),
        "--attack",
        attack,
        *extra,
    )
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], res.stderr


def test_schema_mismatch_and_unknown_parameter_are_errors():
    orig = pd.DataFrame({"x": [1.0, 2, 3, 4], "y": [4.0, 3, 2, 1]})
    m = risk_registry()["dbrl"]
    with pytest.raises(DataError, match=r"columns differ.*lacks \['y'\] and has extra \['z'\]"):
        assess(orig, orig.rename(columns={"y": "z"}), ["x"], m)
    with pytest.raises(PolicyError, match="has no parameter 'q'"):
        assess(orig, orig, ["x"], m, {"q": 1})
    with pytest.raises(PolicyError, match="needs the published k"):
        assess(orig, orig, ["x"], risk_registry()["microaggregation-transparency"])
    with pytest.raises(PolicyError, match="names the attribute 'x' twice"):
        assess(orig, orig, ["x"], m, intruder_attributes=["x", "y", "x"])


def test_every_keyword_of_the_library_function_is_a_parameter():
    reg = risk_registry()
    for name, key in [
        ("dbrl", "metric"),
        ("prl", "tolerance"),
        ("rank-swap-transparency", "p"),
        ("rank-swap-transparency", "variant"),
        ("rank-swap-transparency", "coverage"),
        ("microaggregation-transparency", "k"),
        ("learned-owa", "time_limit"),
        ("uniqueness", "threshold"),
    ]:
        reg[name].check_params({key: 1})
    for name, key in [
        ("mahalanobis", "metric"),
        ("dbrl", "true_index"),
        ("uniqueness", "class_sizes"),
    ]:
        with pytest.raises(PolicyError, match=f"no parameter '{key}'"):
            reg[name].check_params({key: 1})


def test_microaggregation_transparency_via_assess():
    """Univariate groups of 3 consecutive values: the attack with k = 3 finds every record's
    group; compare with the library call."""
    from privcheck.risk import microaggregation_transparency

    rng = np.random.default_rng(0)
    x = pd.DataFrame(rng.lognormal(size=(90, 2)).round(2), columns=["u", "v"])
    masked = x.copy()
    for c in x.columns:
        group = np.argsort(np.argsort(x[c].to_numpy(), kind="stable"), kind="stable") // 3
        masked[c] = (np.bincount(group, weights=x[c]) / np.bincount(group))[group]
    r = assess(x, masked, ["u", "v"], risk_registry()["microaggregation-transparency"], {"k": 3})
    ref = microaggregation_transparency(x, masked, k=3)
    assert r.reidentification_rate == pytest.approx(ref.reidentification_rate)
    assert r.figures["true_in_candidates_rate"] == 1.0


def test_intruder_rows_file_errors(tmp_path):
    bad = tmp_path / "rows.txt"
    bad.write_text("3\n3\n")
    with pytest.raises(DataError, match="more than once"):
        intruder_rows(str(bad), 10, 0)
    bad.write_text("12\n")
    with pytest.raises(DataError, match=r"\[0, 9\]"):
        intruder_rows(str(bad), 10, 0)
    with pytest.raises(PolicyError, match="between 1 and 10"):
        intruder_rows("11", 10, 0)
    assert np.array_equal(intruder_rows(None, 3, 0)[0], [0, 1, 2])


# --- integers near 2^60 (exact end to end) ------------------------------------------------------

BIG = 2**60


def big_pair(n: int = 40, seed: int = 3) -> tuple[pd.DataFrame, pd.DataFrame]:
    """IDs near 2^60 three apart (all one float64 there, whose spacing is 256), a small column,
    and a release that moves every ID by a few units."""
    rng = np.random.default_rng(seed)
    original = pd.DataFrame(
        {"id": BIG + 3 * rng.permutation(n).astype(np.int64), "age": rng.integers(30, 36, n)}
    )
    masked = original.assign(id=original["id"] + rng.integers(-4, 5, n), age=original["age"])
    return original, masked


def microaggregated(frame: pd.DataFrame, k: int) -> pd.DataFrame:
    """Each column on its own in groups of k consecutive values (the last group takes the rest),
    released as the exact group mean rounded half to even (Python ints)."""
    out = frame.copy()
    for c in frame.columns:
        values = frame[c].tolist()
        order = sorted(range(len(values)), key=values.__getitem__)
        starts = list(range(0, len(order) - len(order) % k - k + 1, k))
        released = [0] * len(values)
        for i, start in enumerate(starts):
            group = order[start : (start + k if i < len(starts) - 1 else len(order))]
            mean = round(Fraction(sum(values[r] for r in group), len(group)))
            for r in group:
                released[r] = mean
        out[c] = np.array(released, dtype=np.int64)
    return out


def _same_report(big, small) -> None:
    keys = ("reidentification_rate", "certain_rate", "record_risk_summary", "figures")
    for key in keys:
        assert getattr(big, key) == getattr(small, key), key


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize(
    ("attack", "params"),
    [
        ("dbrl", {}),
        ("mahalanobis", {}),
        ("prl", {}),
        ("uniqueness", {}),
        ("interval-disclosure", {}),
        ("interval-disclosure", {"method": "sd"}),
        ("rank-swap-transparency", {"p": 10}),
        ("microaggregation-transparency", {"k": 3}),
        ("microaggregation-multivariate-transparency", {"k": 3}),
    ],
)
def test_ids_near_2_60_read_as_the_same_ids_shifted_to_small_numbers(tmp_path, fmt, attack, params):
    """Every attack is unchanged when a column of both files moves by one constant; the oracle
    is the same files with the IDs shifted by −2^60 (small integers, exact in float64). Read
    as the CLI reads them (CSV digits, Parquet int64)."""
    from privcheck.io import read_table

    original, masked = big_pair()
    if attack == "microaggregation-transparency":
        masked = microaggregated(original, 3)
    if attack == "microaggregation-multivariate-transparency":  # MDAV's exact integer release
        from privcheck.masking import mdav

        result = mdav(original, 3)
        masked = original.assign(**{c: result.integers[c] for c in ("id", "age")})
    reports = []
    for shift in (0, BIG):
        paths = []
        for name, frame in (("o", original), ("m", masked)):
            path = tmp_path / f"{name}{shift}.{fmt}"
            shifted = frame.assign(id=frame["id"] - shift)
            shifted.to_csv(path, index=False) if fmt == "csv" else shifted.to_parquet(path)
            paths.append(path)
        measure = risk_registry()[attack]
        reports.append(
            assess(
                read_table(paths[0]), read_table(paths[1]), ["id", "age"], measure, params, seed=0
            )
        )
    _same_report(*reports)
    if attack == "uniqueness":  # the sample uniques, counted on Python ints
        keys = list(zip(masked["id"].tolist(), masked["age"].tolist(), strict=True))
        counts = Counter(keys)
        assert reports[0].certain_rate == pytest.approx(
            sum(counts[k] == 1 for k in keys) / len(keys)
        )


def test_cli_dbrl_links_ids_near_2_60(cli, tmp_path):
    """The release is the original: every record links to itself (before, the IDs read as one
    constant value and only the age column linked)."""
    original, _ = big_pair()
    original.to_csv(tmp_path / "o.csv", index=False)
    res = cli(
        "risk", "--original", tmp_path / "o.csv", "--masked", tmp_path / "o.csv",
        "--policy", policy_file(tmp_path, ["id", "age"]), "--attack", "dbrl", "--format", "json",
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["reidentification_rate"] == 1.0 and out["certain_rate"] == 1.0


@pytest.mark.parametrize(
    ("ids", "message"),
    [
        # 2^62 + 1 and 2^62 + 2 are one float64 even after any shift: the span is 2^63
        ([2**62 + 1, 2**62 + 2, -(2**62), 0] * 5, "float64 can tell apart"),
        ([2**64 + 1, 3, 5, 7] * 5, "beyond the 64-bit range"),
        ([2**63 + 1, 3, 5, 7] * 5, "above 9223372036854775807"),
    ],
)
def test_cli_integers_a_distance_cannot_hold_are_refused_in_one_line(cli, tmp_path, ids, message):
    frame = pd.DataFrame({"id": [str(v) for v in ids], "age": [30, 31, 32, 33] * 5})
    frame.to_csv(tmp_path / "o.csv", index=False)
    res = cli(
        "risk", "--original", tmp_path / "o.csv", "--masked", tmp_path / "o.csv",
        "--policy", policy_file(tmp_path, ["id", "age"]), "--attack", "dbrl",
    )  # fmt: skip
    assert res.returncode == 2, res.stdout + res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    assert message in lines[0] and "'id'" in lines[0], lines[0]


def test_uniqueness_needs_no_float_and_counts_those_integers_exactly(tmp_path):
    """The IDs a distance refuses are still distinct values to count classes of."""
    ids = [2**62 + 1, 2**62 + 2, -(2**62), 0] * 5
    frame = pd.DataFrame({"id": [str(v) for v in ids]})
    frame.to_csv(tmp_path / "o.csv", index=False)
    from privcheck.io import read_table

    data = read_table(tmp_path / "o.csv")
    report = assess(data, data, ["id"], risk_registry()["uniqueness"])
    ref = uniqueness_risk([5, 5, 5, 5])
    assert report.reidentification_rate == pytest.approx(ref.prosecutor_average_risk)
