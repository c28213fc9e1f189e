"""Local suppression: validity under both semantics, reported = diffed cells, the approximation
bound against a brute-force minimum on tiny tables, Adult after the full-domain optimum."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import pytest
from anon_helpers import ADULT, SALARY_QIS, adult_policy

from privcheck.errors import PolicyError
from privcheck.io import read_table
from privcheck.pipeline.anonymize import anonymize
from privcheck.pipeline.check import check
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


def test_adult_after_the_optimum_one_level_below(tmp_path) -> None:
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
                "metrics": report.metrics,
                "seconds": report.elapsed_seconds,
            }
        )
    )
    assert 0 < report.suppressed_cells["total"] < bound
    assert len(release) == len(data)
    for semantics in ("category", "wildcard"):
        assert check(release, load_policy({**policy, "suppressed_cells": semantics})).passed
    # the report's loss, Prec and classes are those of the file written
    path = tmp_path / "release.csv"
    release.to_csv(path, index=False)
    hierarchies = {
        q: [r.split(";") for r in (ADULT / "hierarchies" / f"{q}.csv").read_text().splitlines()]
        for q in SALARY_QIS
    }
    expected = _metrics_of_written(
        read_table(path), SALARY_QIS, report.node, hierarchies, wildcard=False, star=False
    )
    assert report.metrics == pytest.approx(expected, rel=1e-12)


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
        ({"polish": -1}, "polish must be a number of neighbourhoods"),
        ({"polish": "many"}, "polish must be a number of neighbourhoods"),
        ({"exact_seconds": -1}, "exact_seconds must be the seconds"),
        ({"exact_seconds": "long"}, "exact_seconds must be the seconds"),
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


# --- the minimum by an exact integer program (written here, independently of the module) ---


def milp_minimum(frame: pd.DataFrame, m: int, k: int, star_limit: int | None = None) -> int | None:
    """Fewest cells to blank so that every released row ('*' one more value) is shared by ≥ k
    records. ``star_limit``: rows blanked entirely are suppressed records (no k), at most that
    many; None: they form one more class like any other.

    One integer variable per (distinct input row, blanking pattern) — how many of its records
    are released with that pattern — and one binary per released row (used or not)."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_matrix

    counts = frame.groupby([f"q{j}" for j in range(m)]).size()
    rows = [tuple(int(v) for v in (key if m > 1 else (key,))) for key in counts.index]
    sizes = counts.to_numpy()
    full = (1 << m) - 1
    pairs = [(c, p) for c in range(len(rows)) for p in range(1 << m)]

    def released(c: int, p: int) -> tuple:
        return tuple("*" if p >> j & 1 else rows[c][j] for j in range(m))

    exempt = [star_limit is not None and p == full for _, p in pairs]
    targets = sorted(
        {released(c, p) for (c, p), e in zip(pairs, exempt, strict=True) if not e}, key=str
    )
    slot = {r: i for i, r in enumerate(targets)}
    nx, ny = len(pairs), len(targets)
    entries: list[tuple[int, int, float]] = []
    lo: list[float] = []
    hi: list[float] = []

    def constraint(terms: list[tuple[int, float]], low: float, high: float) -> None:
        entries.extend((len(lo), col, val) for col, val in terms)
        lo.append(low)
        hi.append(high)

    for c in range(len(rows)):  # every record released
        constraint([(i, 1.0) for i, (cc, _) in enumerate(pairs) if cc == c], sizes[c], sizes[c])
    members: dict[int, list[int]] = {i: [] for i in range(ny)}
    for i, ((c, p), e) in enumerate(zip(pairs, exempt, strict=True)):
        if e:
            continue
        r = slot[released(c, p)]
        members[r].append(i)
        constraint([(i, 1.0), (nx + r, -float(sizes[c]))], -np.inf, 0.0)  # only into used rows
    for r, cols in members.items():  # a used row holds ≥ k records
        constraint([(i, 1.0) for i in cols] + [(nx + r, -float(k))], 0.0, np.inf)
    if star_limit is not None:
        constraint([(i, 1.0) for i, e in enumerate(exempt) if e], 0.0, star_limit)
    i, j, v = zip(*entries, strict=True)
    cost = [bin(p).count("1") for _, p in pairs] + [0] * ny
    upper = [sizes[c] for c, _ in pairs] + [1] * ny
    result = milp(
        np.array(cost, dtype=float),
        integrality=np.ones(nx + ny),
        bounds=Bounds(np.zeros(nx + ny), np.array(upper, dtype=float)),
        constraints=LinearConstraint(coo_matrix((v, (i, j)), shape=(len(lo), nx + ny)), lo, hi),
    )
    if result.status == 2:  # infeasible: more suppressed records needed than the limit
        return None
    assert result.status == 0, result.message
    return round(result.fun)


def _random_small(seed: int) -> tuple[pd.DataFrame, int, int]:
    """6–30 rows, 2–4 quasi-identifiers of 2–4 values each, k in 2..4."""
    rng = np.random.default_rng(1000 + seed)
    n, m, k = int(rng.integers(6, 31)), int(rng.integers(2, 5)), int(rng.integers(2, 5))
    frame = pd.DataFrame({f"q{j}": rng.integers(0, int(rng.integers(2, 5)), n) for j in range(m)})
    frame["s"] = np.arange(n)
    return frame, m, k


def _today(frame: pd.DataFrame, policy: dict, k: int, star: bool, limit: int) -> tuple[int, int]:
    """(records suppressed beyond the limit, cells) of today's routine (before partial padding)
    on ``frame``."""
    from privcheck.anonymizers import local_suppression as ls
    from privcheck.classes import count
    from privcheck.encoding import encode

    encoded = encode(frame, load_policy(policy))
    table = count(encoded, encoded.bottom, track_records=True)
    importance = ls.LocalSuppression().importance_rank(encoded, table)
    prob = ls.problem(table, k, importance, star_mode=star, limit=limit)
    return prob.score(ls.whole_row_routine(prob, ls.first_stage(prob)))


def _today_cells(frame: pd.DataFrame, policy: dict, k: int, star: bool, limit: int) -> int:
    return _today(frame, policy, k, star, limit)[1]


@pytest.mark.parametrize("method", ["default", "heuristic"])
def test_within_ten_percent_of_the_exact_minimum_never_worse_than_before(
    method: str, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    """Over 60 random small tables: blanked / minimum ≤ 1.10 on average, never below 1, never
    more than today's routine, and the written release passes the checker under both
    semantics. ``heuristic``: without the integer program on the whole table (today's routine,
    the greedy with partial padding, refinement)."""
    from privcheck.anonymizers import local_suppression as ls

    if method == "heuristic":
        monkeypatch.setattr(ls, "EXACT_MAX_PAIRS", 0)
    ratios, before = [], []
    for seed in range(60):
        frame, m, k = _random_small(seed)
        policy = _policy(m, k)
        release, report = anonymize(frame, policy, "local-suppression", keep_order=True)
        found = report.suppressed_cells["total"]
        assert found == _blanked(frame, release, m)
        best = milp_minimum(frame, m, k)
        assert best is not None
        old = _today_cells(frame, policy, k, False, 0)
        assert best <= found <= old
        proven = report.suppressed_cells
        assert proven["lower_bound"] <= best  # the bound is a bound
        assert not proven["optimal"] or found == best  # and the flag true only when it is
        path = tmp_path / f"r{seed}.csv"
        release.to_csv(path, index=False)
        written = read_table(path)
        for semantics in ("category", "wildcard"):
            assert check(written, _policy(m, k, suppressed_cells=semantics)).passed
        ratios.append(found / best if best else 1.0)
        before.append(old / best if best else 1.0)
    r, b = np.array(ratios), np.array(before)
    print(
        f"{method}: blanked / minimum over {len(r)} tables: mean {r.mean():.3f} median "
        f"{np.median(r):.3f} worst {r.max():.3f} (today's routine: mean {b.mean():.3f} median "
        f"{np.median(b):.3f} worst {b.max():.3f}); minimum met on {int((r == 1).sum())}"
    )
    assert r.mean() <= 1.10


@pytest.mark.parametrize("method", ["default", "heuristic"])
def test_star_mode_within_the_limit_near_the_exact_minimum(
    method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """suppressed_records: star — rows blanked entirely are suppressed records, at most the
    limit: the minimum under that rule, and the release never over the limit."""
    from privcheck.anonymizers import local_suppression as ls

    if method == "heuristic":
        monkeypatch.setattr(ls, "EXACT_MAX_PAIRS", 0)
    ratios, refused = [], 0
    for seed in range(25):
        frame, m, k = _random_small(seed)
        limit = len(frame) // 5
        policy = _policy(m, k, suppressed_records="star", suppression_limit=limit / len(frame))
        try:
            release, report = anonymize(frame, policy, "local-suppression", keep_order=True)
        except PolicyError:  # more suppressed records needed than the limit allows
            if method == "default":  # the integer program decides these tables
                assert milp_minimum(frame, m, k, star_limit=limit) is None
            else:  # refused only where today's routine was refused too
                assert _today(frame, policy, k, True, limit)[0] > 0
            refused += 1
            continue
        best = milp_minimum(frame, m, k, star_limit=limit)
        assert best is not None
        found = report.suppressed_cells["total"]
        assert best <= found <= _today_cells(frame, policy, k, True, limit)
        assert report.suppressed_cells["lower_bound"] <= best
        assert not report.suppressed_cells["optimal"] or found == best
        assert report.n_suppressed <= limit
        assert check(release, policy).passed
        ratios.append(found / best if best else 1.0)
    print(
        f"star mode, {method}: mean {np.mean(ratios):.3f} worst {np.max(ratios):.3f} "
        f"on {len(ratios)} tables ({refused} refused: over the limit)"
    )
    assert len(ratios) >= 15 and np.mean(ratios) <= 1.10


@pytest.mark.parametrize("method", ["default", "heuristic"])
def test_worked_example_pads_at_the_partial_pattern(
    method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(a,x) + 3×(a,y), k = 2: the minimum blanks the x of (a,x) and the y of one (a,y) →
    (a,*), (a,*), (a,y), (a,y): 2 cells; today's routine padded with a whole row of '*' (4)."""
    from privcheck.anonymizers import local_suppression as ls

    if method == "heuristic":
        monkeypatch.setattr(ls, "EXACT_MAX_PAIRS", 0)
    frame = pd.DataFrame({"q0": ["a"] * 4, "q1": ["x", "y", "y", "y"], "s": range(4)})
    policy = _policy(2, 2)
    release, report = anonymize(frame, policy, "local-suppression", keep_order=True)
    assert _today_cells(frame, policy, 2, False, 0) == 4
    assert milp_minimum(frame.assign(q0=0, q1=frame.q1.eq("y").astype(int)), 2, 2) == 2
    # 2 meets the trivial bound max(records of classes below k, k) = 2: proven optimal either way
    assert report.suppressed_cells == {
        "per_attribute": {"q0": 0, "q1": 2},
        "total": 2,
        "optimal": True,
        "lower_bound": 2,
        "optimality_gap": 0.0,
    }
    rows = sorted(map(tuple, release[["q0", "q1"]].to_numpy().tolist()))
    assert rows == [("a", "*"), ("a", "*"), ("a", "y"), ("a", "y")]
    assert release.loc[0, "q1"] == "*"  # the x is blanked, with one of the y
    assert check(release, policy).passed


def test_milp_oracle_agrees_with_the_brute_force_minimum() -> None:
    for seed in range(12):
        m = 2 + seed % 2
        n = 8 if m == 2 else 6
        k = 2 + seed % 2
        frame = _random(seed, n, m)
        assert milp_minimum(frame, m, k) == brute_force_minimum(frame, m, k)


# --- the report describes the release written ---


def _metrics_of_written(
    written: pd.DataFrame,
    qis: list[str],
    levels: dict[str, int],
    hierarchies: dict[str, list[list[str]]],
    *,
    wildcard: bool,
    star: bool,
) -> dict[str, float]:
    """loss, prec, classes, aecs and discernibility from the written file and the hierarchies'
    rows (ground value, level 1, …) alone. A value at level l covering c of the D ground values
    costs (c − 1)/(D − 1) of loss and l/height of Prec, '*' costs 1 of both; classes are the
    distinct rows (rows all '*' are suppressed records under ``star``), sized by their records
    or, under ``wildcard``, by the records compatible with them ('*' matches any value)."""
    cells = written[qis].astype(str).to_numpy()
    n, m = cells.shape
    loss = prec = 0.0
    for j, q in enumerate(qis):
        rows, level = hierarchies[q], levels[q]
        covered = pd.Series([r[level] for r in rows]).value_counts()
        for v in cells[:, j]:
            if v == "*":
                loss, prec = loss + 1, prec + 1
            else:
                loss += (covered[v] - 1) / (len(rows) - 1)
                prec += level / (len(rows[0]) - 1) if len(rows[0]) > 1 else 0.0
    suppressed = (cells == "*").all(axis=1) if star else np.zeros(n, dtype=bool)
    kept = [tuple(r) for r in cells[~suppressed]]
    sizes = pd.Series(kept, dtype=object).value_counts() if kept else pd.Series(dtype=int)
    classes = list(sizes.index)

    def compatible(a: tuple, b: tuple) -> bool:
        return all(x == y or x == "*" or y == "*" for x, y in zip(a, b, strict=True))

    effective = [
        sum(sizes[u] for u in classes if compatible(t, u)) if wildcard else sizes[t]
        for t in classes
    ]
    s = int(suppressed.sum())
    return {
        "loss": loss / (n * m),
        "prec": 1 - prec / (n * m),
        "n_classes": float(len(classes)),
        "aecs": (sum(effective) + s) / (len(classes) + (s > 0)),
        "discernibility": float(sum(sizes[t] * e for t, e in zip(classes, effective, strict=True)))
        + s * n,
    }


@pytest.mark.parametrize("semantics", ["category", "wildcard"])
@pytest.mark.parametrize("records", ["remove", "star"])
def test_report_metrics_describe_the_written_release(
    semantics: str, records: str, tmp_path
) -> None:
    rng = np.random.default_rng(11)
    n = 60
    frame = pd.DataFrame(
        {"q0": rng.integers(0, 6, n), "q1": rng.integers(0, 3, n), "q2": rng.integers(0, 4, n)}
    )
    frame["s"] = np.arange(n)
    rows0 = [[str(v), f"{v - v % 2}-{v - v % 2 + 1}", "*"] for v in range(6)]
    (tmp_path / "q0.csv").write_text("\n".join(";".join(r) for r in rows0))
    policy = _policy(3, 4, suppressed_cells=semantics, suppressed_records=records)
    policy["suppression_limit"] = 0.2
    policy["attributes"]["q0"]["hierarchy"] = {"type": "table", "path": str(tmp_path / "q0.csv")}
    release, report = anonymize(
        frame, policy, "local-suppression", seed=3, node={"q0": 1, "q1": 0, "q2": 0}
    )
    path = tmp_path / "release.csv"
    release.to_csv(path, index=False)
    written = read_table(path)
    hierarchies = {"q0": rows0}
    for q in ("q1", "q2"):  # no hierarchy: the input's values are the ground domain
        hierarchies[q] = [[str(v)] for v in sorted(frame[q].unique())]
    expected = _metrics_of_written(
        written,
        ["q0", "q1", "q2"],
        report.node,
        hierarchies,
        wildcard=semantics == "wildcard",
        star=records == "star",
    )
    assert report.suppressed_cells["total"] > 0
    assert report.metrics == pytest.approx(expected, rel=1e-12)
    assert "height" not in report.metrics  # a blanked release is no node


def test_polish_never_costs_cells_on_larger_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """polish=N re-solves neighbourhoods exactly: never more cells than without, still valid."""
    from privcheck.anonymizers import local_suppression as ls

    monkeypatch.setattr(ls, "EXACT_MAX_PAIRS", 0)  # the whole-table program would take over
    gained = 0
    for seed in range(4):
        frame = _random(200 + seed, 60, 4)
        frame["q3"] = np.random.default_rng(seed).integers(0, 4, len(frame))
        policy = _policy(4, 3)
        _, plain = anonymize(frame, policy, "local-suppression", keep_order=True)
        release, polished = anonymize(frame, policy, "local-suppression", keep_order=True, polish=6)
        assert polished.suppressed_cells["total"] <= plain.suppressed_cells["total"]
        gained += plain.suppressed_cells["total"] - polished.suppressed_cells["total"]
        assert polished.parameters["polish"] == 6
        assert check(release, policy).passed
    print(f"polish=6 saved {gained} cells over 4 tables of 60 rows")
    assert gained > 0


def _skewed(seed: int, n: int, m: int) -> pd.DataFrame:
    """``n`` rows, ``m`` quasi-identifiers of 2–6 values drawn with uneven frequencies (the
    shape of real quasi-identifiers: a few common values, a tail of rare ones)."""
    rng = np.random.default_rng(seed)
    columns = {}
    for j in range(m):
        values = int(rng.integers(2, 7))
        columns[f"q{j}"] = rng.choice(values, n, p=rng.dirichlet(np.full(values, 0.8)))
    frame = pd.DataFrame(columns)
    frame["s"] = np.arange(n)
    return frame


@pytest.mark.parametrize(
    ("seed", "n", "m", "k"),
    [(6, 40, 6, 4), (1, 60, 4, 4), (2, 90, 6, 3), (3, 100, 6, 2), (9, 120, 6, 4), (5, 250, 4, 4)],
)
def test_near_the_exact_minimum_and_proven_only_when_it_is(seed: int, n: int, m: int, k: int):
    """Skewed tables of 40–250 rows: cells ≤ 1.10 × the exact minimum (the integer program
    written in this file), the reported lower bound ≤ the minimum, ``optimal`` true only when
    the count is the minimum, the gap what it says, and the release passes ``check``; tables of
    ≤ 100 rows take well under the 1 s target (here < 2 s, the machine being shared)."""
    import time

    frame = _skewed(900 + seed, n, m)
    policy = _policy(m, k)
    started = time.perf_counter()
    release, report = anonymize(frame, policy, "local-suppression", keep_order=True)
    seconds = time.perf_counter() - started
    found = report.suppressed_cells["total"]
    assert found == _blanked(frame, release, m)
    best = milp_minimum(frame, m, k)
    assert best is not None
    proven = report.suppressed_cells
    assert proven["lower_bound"] <= best <= found <= 1.10 * best
    assert not proven["optimal"] or found == best
    assert proven["optimality_gap"] == pytest.approx(
        0.0 if proven["optimal"] else (found - proven["lower_bound"]) / found, abs=1e-6
    )
    assert check(release, policy).passed
    if n <= 100:
        assert seconds < 2.0


def test_exact_seconds_zero_reports_the_trivial_bound() -> None:
    """Without the integer program the bound is the trivial one: every record of a class
    smaller than k loses a cell, and (no cell '*' yet) at least k records are blanked."""
    frame = _skewed(7, 60, 4)
    k = 3
    _, report = anonymize(frame, _policy(4, k), "local-suppression", exact_seconds=0)
    sizes = frame.groupby(["q0", "q1", "q2", "q3"]).size()
    below = int(sizes[sizes < k].sum())
    cells = report.suppressed_cells
    assert cells["lower_bound"] == max(below, k) if below else 0
    assert cells["optimal"] == (cells["total"] == cells["lower_bound"])


def _hard(seed: int, n: int, m: int) -> pd.DataFrame:
    """The hard shape (issue 33): ``n`` rows, ``m`` quasi-identifiers of 2–10 values with very
    uneven (Dirichlet 0.5) frequencies — most records unique, as in
    ``benchmarks/local_suppression_exact.py --hard``, which builds its tables the same way."""
    rng = np.random.default_rng([seed, 5])
    columns = {}
    for j in range(m):
        values = int(rng.integers(2, 11))
        columns[f"q{j}"] = rng.choice(values, n, p=rng.dirichlet(np.full(values, 0.5)))
    frame = pd.DataFrame(columns)
    frame["s"] = np.arange(n)
    return frame


@pytest.mark.parametrize(("seed", "m", "k"), [(10065, 6, 5), (10055, 5, 5)])
def test_hard_shape_near_the_exact_minimum(seed: int, m: int, k: int) -> None:
    """100 rows, 5–6 quasi-identifiers, k = 5, most records unique: within 1.10 × the exact
    minimum (the integer program written in this file; 252 and 142 cells), never more than the
    heuristics alone (exact_seconds=0: 272 and 157, 1.08 and 1.11 × the minimum), the bound a
    bound and ``optimal`` true only when the count is the minimum. (The time, < 1 s, is
    measured by the benchmark: a test's clock is the shared machine's.)"""
    frame = _hard(seed, 100, m)
    policy = _policy(m, k)
    release, report = anonymize(frame, policy, "local-suppression", keep_order=True)
    _, heuristic = anonymize(frame, policy, "local-suppression", exact_seconds=0)
    found = report.suppressed_cells["total"]
    assert found == _blanked(frame, release, m)
    best = milp_minimum(frame, m, k)
    assert best is not None
    proven = report.suppressed_cells
    print(
        f"hard table m={m} k={k}: {found} cells, heuristics alone "
        f"{heuristic.suppressed_cells['total']}, minimum {best}, bound {proven['lower_bound']}"
    )
    assert proven["lower_bound"] <= best <= found <= 1.10 * best
    assert found <= heuristic.suppressed_cells["total"]
    assert not proven["optimal"] or found == best
    assert check(release, policy).passed
