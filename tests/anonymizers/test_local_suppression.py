"""Local suppression: validity under both semantics, reported = diffed cells, the approximation
bound against a brute-force minimum on tiny tables, Adult after the full-domain optimum."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest
from anon_helpers import ADULT, SALARY_QIS, adult_policy

from privcheck.anonymizers.api import anonymize
from privcheck.checker import check
from privcheck.errors import PolicyError
from privcheck.io import read_table
from privcheck.policy import load_policy


def _policy(m: int, k: int, **extra) -> dict:
    attrs = {f"q{j}": {"role": "quasi_identifier"} for j in range(m)}
    attrs["s"] = {"role": "insensitive"}
    return {"attributes": attrs, "models": [{"model": "k-anonymity", "k": k}], **extra}


def _random(seed: int, n: int, m: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({f"q{j}": rng.integers(0, 2 + j % 2, n) for j in range(m)})
    frame["s"] = np.arange(n)
    return frame


def brute_force_minimum(frame: pd.DataFrame, m: int, k: int) -> int:
    """Fewest cells to blank so every record's (partly blanked) row is shared by ≥ k records,
    '*' being one more value: every assignment of a blanking pattern to every record."""
    n = len(frame)
    v = frame[[f"q{j}" for j in range(m)]].to_numpy(dtype=np.int64)
    pats = np.arange(1 << m)
    assign = np.array(list(itertools.product(pats, repeat=n)), dtype=np.int64)  # A × n
    bits = (assign[:, :, None] >> np.arange(m)) & 1  # A × n × m
    released = np.where(bits == 1, -1, v[None, :, :])
    same = (released[:, :, None, :] == released[:, None, :, :]).all(axis=3)  # A × n × n
    ok = (same.sum(axis=2) >= k).all(axis=1)
    cost = bits.sum(axis=(1, 2))
    return int(cost[ok].min())


def _blanked(original: pd.DataFrame, release: pd.DataFrame, m: int) -> int:
    return sum(
        int((release[f"q{j}"].astype(str) != original[f"q{j}"].astype(str)).sum()) for j in range(m)
    )


@pytest.mark.parametrize("seed", range(30))
def test_tiny_tables_within_the_bound_of_the_brute_force_minimum(seed: int) -> None:
    m = 2 + seed % 2
    n = 8 if m == 2 else 6
    k = 2 + seed % 2
    frame = _random(seed, n, m)
    release, report = anonymize(frame, _policy(m, k), "local-suppression", keep_order=True)
    found = _blanked(frame, release, m)
    assert report.suppressed_cells["total"] == found == report.changed_cells
    assert sum(report.suppressed_cells["per_attribute"].values()) == found
    sizes = frame.groupby([f"q{j}" for j in range(m)]).size()
    unsafe = int(sizes[sizes < k].sum())
    best = brute_force_minimum(frame, m, k)
    if unsafe:
        assert best >= max(unsafe, k)  # the lower bound the documented bound rests on
    assert best <= found <= m * (unsafe + k - 1)
    assert found < 2 * m * best or best == found == 0
    # every other cell is identical; the release passes under both semantics
    assert release["s"].tolist() == frame["s"].tolist()
    for j in range(m):
        kept = release[f"q{j}"] != "*"
        assert (release[f"q{j}"][kept].astype(str) == frame[f"q{j}"][kept].astype(str)).all()
    for semantics in ("category", "wildcard"):
        assert check(release, _policy(m, k, suppressed_cells=semantics)).passed


def test_optimum_met_on_most_tiny_tables() -> None:
    """How close the heuristic is: the share of tiny tables where it blanks the minimum."""
    hits = 0
    for seed in range(20):
        frame = _random(100 + seed, 7, 2)
        _, report = anonymize(frame, _policy(2, 2), "local-suppression", keep_order=True)
        hits += report.suppressed_cells["total"] == brute_force_minimum(frame, 2, 2)
    print(f"local suppression met the brute-force minimum on {hits}/20 tables")
    assert hits >= 12


def test_importance_blanks_the_less_important_attribute() -> None:
    # two records differ from their neighbours in both q0 and q1: either column fixes it
    frame = pd.DataFrame({"q0": [1, 1, 2, 2], "q1": [5, 6, 5, 6], "s": range(4)})
    for first, blanked in (("q0", "q1"), ("q1", "q0")):
        rest = "q1" if first == "q0" else "q0"
        _, report = anonymize(
            frame,
            _policy(2, 2)
            | {
                "attributes": {
                    "q0": {"role": "quasi_identifier"},
                    "q1": {"role": "quasi_identifier"},
                    "s": {"role": "insensitive"},
                }
            },
            "local-suppression",
            keep_order=True,
            importance=[first, rest],
        )
        assert report.suppressed_cells["per_attribute"] == {first: 0, blanked: 4}


def test_star_mode_leftovers_are_suppressed_records() -> None:
    frame = pd.DataFrame({"q0": [1, 1, 2, 3], "q1": [5, 5, 6, 7], "s": range(4)})
    policy = _policy(2, 2, suppressed_records="star", suppression_limit=0.5)
    release, report = anonymize(frame, policy, "local-suppression", keep_order=True)
    assert report.n_suppressed == 2
    assert check(release, policy).passed
    with pytest.raises(PolicyError, match="suppressed records"):
        anonymize(frame, {**policy, "suppression_limit": 0.0}, "local-suppression")


def test_other_models_are_refused() -> None:
    policy = _policy(2, 2)
    policy["attributes"]["s"] = {"role": "sensitive"}
    policy["models"].append({"model": "l-diversity", "l": 2, "variant": "distinct"})
    with pytest.raises(PolicyError, match="k-anonymity only"):
        anonymize(_random(0, 8, 2), policy, "local-suppression")


def test_shuffled_release_keeps_the_multiset_of_rows() -> None:
    frame = _random(3, 30, 3)
    a, _ = anonymize(frame, _policy(3, 3), "local-suppression", keep_order=True)
    b, _ = anonymize(frame, _policy(3, 3), "local-suppression", seed=1)
    key = lambda f: sorted(map(tuple, f.astype(str).to_numpy()))  # noqa: E731
    assert key(a) == key(b)


def test_adult_after_the_optimum_one_level_below() -> None:
    data = read_table(ADULT / "adult.csv")
    policy = adult_policy(SALARY_QIS, "salary-class", [{"model": "k-anonymity", "k": 5}], 0.01)
    _, optimum = anonymize(data, policy, "mingen")
    release, report = anonymize(
        data, policy, "local-suppression", keep_order=True, generalize_first=True
    )
    bound = optimum.n_suppressed * len(SALARY_QIS)
    print(
        json.dumps(
            {
                "optimum_node": optimum.node,
                "optimum_suppressed_records": optimum.n_suppressed,
                "records_x_qis": bound,
                "local_node": report.node,
                "blanked_cells": report.suppressed_cells["total"],
                "changed_cells": report.changed_cells,
            }
        )
    )
    assert 0 < report.suppressed_cells["total"] < bound
    assert len(release) == len(data)
    for semantics in ("category", "wildcard"):
        assert check(release, load_policy({**policy, "suppressed_cells": semantics})).passed


def test_node_first_then_blank_counts_only_changed_cells() -> None:
    frame = _random(5, 40, 3)
    policy = _policy(3, 4)
    policy["attributes"]["q0"]["hierarchy"] = {"type": "intervals", "widths": [2], "top": True}
    # q0 at its top level: every q0 cell is already '*', so blanking it costs (and reports) 0
    release, report = anonymize(
        frame, policy, "local-suppression", keep_order=True, node={"q0": 2, "q1": 0, "q2": 0}
    )
    assert report.node == {"q0": 2, "q1": 0, "q2": 0}
    assert (release["q0"] == "*").all()
    assert report.suppressed_cells["per_attribute"]["q0"] == 0
    blanked = sum(int((release[f"q{j}"] == "*").sum()) for j in (1, 2))
    assert report.suppressed_cells["total"] == blanked
    assert report.changed_cells == blanked + len(frame)
    assert check(release, policy).passed


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"node": {"q0": 0}}, "node must give a level for each quasi-identifier"),
        ({"node": {"q0": 0, "q1": 7}}, "node level of 'q1' must be an integer in 0..0"),
        ({"importance": ["q0", "zz"]}, "importance must list every quasi-identifier"),
        ({"node": {"q0": 0, "q1": 0}, "generalize_first": True}, "not both"),
        ({"levels": 2}, "has no parameter 'levels'"),
    ],
)
def test_bad_parameters_are_refused_in_one_line(params: dict, match: str) -> None:
    with pytest.raises(PolicyError, match=match):
        anonymize(_random(0, 10, 2), _policy(2, 2), "local-suppression", **params)


def test_cli_writes_release_and_report_and_check_passes(tmp_path) -> None:
    import subprocess
    import sys

    frame = _random(7, 50, 3)
    data, pol = tmp_path / "d.csv", tmp_path / "p.json"
    frame.to_csv(data, index=False)
    pol.write_text(json.dumps(_policy(3, 3)))
    out, rep = tmp_path / "out.csv", tmp_path / "rep.json"

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "privcheck", *args], capture_output=True, text=True
        )

    done = run(
        "anonymize", str(data), "--policy", str(pol), "--algorithm", "local-suppression",
        "-o", str(out), "--report", str(rep), "--keep-order",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(rep.read_text())
    release = pd.read_csv(out, dtype=str)
    found = sum(int((release[f"q{j}"] == "*").sum()) for j in range(3))
    assert report["suppressed_cells"]["total"] == found == report["changed_cells"]
    assert report["check"]["suppressed_cells"] == "category"
    for semantics in ("category", "wildcard"):
        pol.write_text(json.dumps(_policy(3, 3, suppressed_cells=semantics)))
        checked = run("check", str(out), "--policy", str(pol), "--format", "json")
        assert checked.returncode == 0, checked.stdout
        assert json.loads(checked.stdout)["suppressed_cells"] == semantics
    bad = run(
        "anonymize", str(data), "--policy", str(pol), "--algorithm", "local-suppression",
        "-o", str(tmp_path / "x.csv"), "--param", "importance=[q0]",
    )  # fmt: skip
    assert bad.returncode == 2
    assert len(bad.stderr.strip().splitlines()) == 1 and "importance" in bad.stderr
    assert not (tmp_path / "x.csv").exists()
