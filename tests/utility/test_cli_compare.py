"""``privcheck compare`` as a person and a program read it: text within 100 columns (every
measure with ``--wide``), directions and best values marked, a risk block, one closing
recommendation; JSON an object with ``releases`` and ``recommended``. The new figures — the
suppressed records, the generalized cells and the risk block — equal independent counts made with
plain pandas over the files, on small tables and on Adult releases of MinGen, Mondrian and local
suppression; a shuffled release gets every measure but its accuracy, which reads n/a with the
reason; bad input exits 2 with one line and writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from test_measures import JOB, ZIP

ADULT = Path(__file__).resolve().parents[2] / "privcheck" / "data" / "adult"
QIS = ["zip", "job", "age"]


def write_policy(tmp: Path, **extra) -> Path:
    policy = {
        "attributes": {
            "zip": {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": ZIP}},
            "job": {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": JOB}},
            "age": {"role": "quasi_identifier"},
            "disease": {"role": "sensitive"},
        },
        "models": [{"model": "k-anonymity", "k": 3}],
        "utility": {"target": "disease", "seed": 3},
        **extra,
    }
    path = tmp / "policy.yaml"
    path.write_text(yaml.safe_dump(policy))
    return path


def write_inputs(tmp: Path) -> tuple[Path, list[Path], Path]:
    """An original of 120 records and three releases of it, in its order: ZIPs cut to 3 digits
    and age blanked (passes k = 3), every QI blanked (passes, loses everything) and the
    original itself (fails k = 3)."""
    rng = np.random.default_rng(0)
    n = 120
    frame = pd.DataFrame(
        {
            "zip": rng.choice([r[0] for r in ZIP[:5]], n),
            "job": rng.choice([r[0] for r in JOB], n),
            "age": rng.integers(20, 60, n).astype(str),
            "disease": rng.choice(["flu", "cold"], n),
        }
    )
    frame.to_csv(tmp / "original.csv", index=False)
    coarse = frame.assign(zip=frame["zip"].str[:3] + "*", age="*")
    coarse.to_csv(tmp / "coarse.csv", index=False)
    frame.assign(zip="*", job="*", age="*").to_csv(tmp / "blank.csv", index=False)
    frame.to_csv(tmp / "same.csv", index=False)
    releases = [tmp / "coarse.csv", tmp / "blank.csv", tmp / "same.csv"]
    return tmp / "original.csv", releases, write_policy(tmp)


def counts(
    original: pd.DataFrame,
    release: pd.DataFrame,
    qis: list[str],
    k: int,
    *,
    aligned: bool = True,
    star_policy: bool = False,
) -> dict:
    """The new figures counted by hand: records suppressed (left out, or '*' in every QI under
    ``suppressed_records: star``), cells not released as their original (a release in the
    original's order), and the prosecutor risk over the classes of the released rows — the
    all-'*' rows are suppressed records outside every class under ``suppressed_records: star``
    (unless every row is '*': the fully generalized table is one class), one more class
    otherwise, as ``privcheck check`` reads them."""
    n, q = len(original), len(qis)
    rel = release[qis].astype(str)
    star = (rel == "*").all(axis=1) & star_policy & (not (rel == "*").all(axis=None))
    left_out = n - len(release)
    out = {"suppressed_records": (star.sum() + left_out) / n}
    if aligned:
        changed = (rel.to_numpy() != original[qis].astype(str).to_numpy()).sum()
        out["generalized_cells"] = changed / (n * q)
    sizes = rel[~star].value_counts()
    per_record = np.repeat(1.0 / sizes.to_numpy(), sizes.to_numpy())
    out["risk"] = {
        "highest": float(per_record.max()) if len(per_record) else 0.0,
        "average": float(per_record.mean()) if len(per_record) else 0.0,
        "records_above": float((per_record > 1 / k).mean()) if len(per_record) else 0.0,
    }
    out["passed"] = bool(sizes.min() >= k) if len(sizes) else True
    return out


def test_json_is_an_object_of_releases_and_the_recommendation(cli, tmp_path: Path) -> None:
    original, releases, policy = write_inputs(tmp_path)
    out = tmp_path / "report.json"
    res = cli("compare", original, *releases, "--policy", policy, "-o", out)
    assert res.returncode == 0, res.stderr
    report = json.loads(out.read_text())
    assert set(report) >= {"releases", "recommended"}
    entries = report["releases"]
    assert [e["release"] for e in entries] == [str(p) for p in releases]
    frame = pd.read_csv(original, dtype=str)
    for entry, path in zip(entries, releases, strict=True):
        want = counts(frame, pd.read_csv(path, dtype=str), QIS, 3)
        assert entry["suppressed_records"] == pytest.approx(want["suppressed_records"])
        assert entry["generalized_cells"] == pytest.approx(want["generalized_cells"])
        assert entry["risk"] == pytest.approx(want["risk"])
        assert entry["passed"] is want["passed"]
        # today's measures keep their keys
        assert {"rows", "classes", "prec", "non_uniform_entropy", "kl_divergence"} <= set(entry)
        assert {"changed_share", "suppressed_share", "accuracy_loss_points", "loss"} <= set(entry)
    assert [e["passed"] for e in entries] == [True, True, False]
    # the blank release is the fully generalized table, one class of every record as check
    # reads it (not a release of suppressed records); the original itself passes nothing
    assert entries[1]["suppressed_records"] == 0.0 and entries[1]["classes"] == 1
    assert entries[1]["loss"] == 1.0
    # least loss among the releases that pass: the coarse one (the original has loss 0)
    passing = [e for e in entries if e["passed"]]
    assert report["recommended"] == min(passing, key=lambda e: e["loss"])["release"]
    assert report["recommended"] == str(releases[0]) and entries[2]["loss"] == 0.0


def test_releases_are_named_as_given(cli, tmp_path: Path) -> None:
    write_inputs(tmp_path)
    given = ["./coarse.csv", ".//blank.csv"]
    res = cli("compare", "original.csv", *given, "-p", "policy.yaml", "-f", "json", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    assert [e["release"] for e in report["releases"]] == given
    assert report["recommended"] == "./coarse.csv"


def test_no_release_passes_recommends_none(cli, tmp_path: Path) -> None:
    original, releases, policy = write_inputs(tmp_path)
    res = cli("compare", original, releases[2], "--policy", policy, "--format", "json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["recommended"] is None
    res = cli("compare", original, releases[2], "--policy", policy)
    assert res.stdout.rstrip().splitlines()[-1].startswith("recommended: none")


def test_text_fits_100_columns_marks_directions_best_values_and_recommends(
    cli, tmp_path: Path
) -> None:
    original, releases, policy = write_inputs(tmp_path)
    long_dir = tmp_path / ("a-rather-long-directory-name-for-the-releases" * 2)
    long_dir.mkdir()
    named = []
    for p in releases:
        target = long_dir / f"release-with-a-long-descriptive-name-{p.name}"
        target.write_bytes(p.read_bytes())
        named.append(target)
    res = cli("compare", original, *named, "--policy", policy)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert max(len(x) for x in lines) <= 100, max(lines, key=len)
    header = next(i for i, x in enumerate(lines) if x.startswith("release") and "passes" in x)
    directions = lines[header + 1]
    assert "↑" in directions and "↓" in directions
    assert "loss" in lines[header] and "suppressed" in lines[header]
    assert "•" in "\n".join(lines[header + 3 : header + 6])
    assert any(x.startswith("risk") for x in lines)
    assert lines[-1].startswith("recommended: ") and "coarse.csv" in lines[-1]
    wide = cli("compare", original, *named, "--policy", policy, "--wide")
    assert wide.returncode == 0, wide.stderr
    assert max(len(x) for x in wide.stdout.splitlines()) > 100
    for head in ("Prec", "discern.", "AECS", "changed", "'*'", "accuracy", "highest"):
        assert head in wide.stdout, head


def test_best_values_are_the_column_extremes() -> None:
    """The mark sits on the minimum of a ↓ column and the maximum of a ↑ column."""
    from privcheck.utility.table import render_text

    entries = [
        {"release": "a", "loss": 0.5, "classes": 3, "passed": True, "risk": {"highest": 0.2}},
        {"release": "b", "loss": 0.2, "classes": 9, "passed": False, "risk": {"highest": 0.5}},
    ]
    lines = render_text({"releases": entries, "recommended": "a"}).splitlines()
    a_line = next(x for x in lines if x.startswith("a "))  # the utility table's rows
    b_line = next(x for x in lines if x.startswith("b "))
    assert "0.2000•" in b_line and "9•" in b_line
    assert "0.5000" in a_line and "•" not in a_line
    risk_a = [x for x in lines if x.startswith("a ")][1]
    assert "0.2000•" in risk_a
    assert lines[-1].startswith("recommended: a")


def test_shuffled_release_gets_every_measure_but_accuracy(cli, tmp_path: Path) -> None:
    original, releases, policy = write_inputs(tmp_path)
    shuffled = tmp_path / "shuffled.csv"
    pd.read_csv(releases[0], dtype=str).sample(frac=1.0, random_state=4).to_csv(
        shuffled, index=False
    )
    res = cli("compare", original, releases[0], shuffled, "--policy", policy, "-f", "json")
    assert res.returncode == 0, res.stderr
    aligned, moved = json.loads(res.stdout)["releases"]
    for key, value in aligned.items():
        if key in ("release", "accuracy_release", "accuracy_loss_points"):
            continue
        assert moved[key] == pytest.approx(value), key
    for key in ("accuracy_release", "accuracy_loss_points"):
        assert moved[key] is None and "--keep-order" in moved[f"{key}_reason"]
    text = cli("compare", original, releases[0], shuffled, "--policy", policy).stdout
    assert "n/a" in text and "n/a for shuffled.csv:" in text and "--keep-order" in text


def test_bad_input_exits_2_with_one_line_and_writes_nothing(cli, tmp_path: Path) -> None:
    original, releases, policy = write_inputs(tmp_path)
    release = releases[0]
    out = tmp_path / "t.json"
    longer = tmp_path / "longer.csv"
    frame = pd.read_csv(original, dtype=str)
    pd.concat([frame, frame.iloc[:3]]).to_csv(longer, index=False)
    nozip = tmp_path / "nozip.csv"
    pd.read_csv(release, dtype=str).drop(columns="zip").to_csv(nozip, index=False)
    foreign = tmp_path / "foreign.csv"
    frame.assign(job="banker").to_csv(foreign, index=False)
    cases = [
        ((longer,), "has 123 rows and the original 120"),
        ((foreign,), "'banker'"),
        ((nozip,), "no column 'zip'"),
        ((release, "--target", "zip"), "is a quasi-identifier"),
        ((release, "--target", "nope"), "no column 'nope'"),
        ((release, "--format", "html"), "html"),
        ((release, "-o", original), "never overwrites"),
    ]
    for args, message in cases:
        res = cli("compare", original, "--policy", policy, "-o", out, *args)
        assert res.returncode == 2, (args, res.stderr)
        assert message in res.stderr, (args, res.stderr)
        assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr
        assert not out.exists()


def test_an_empty_release_is_refused_not_passed(cli, tmp_path: Path) -> None:
    """A header-only release was called "passes" (issue 30): no records is no pass, as an
    empty table is no pass for check."""
    original, releases, policy = write_inputs(tmp_path)
    empty = tmp_path / "empty.csv"
    empty.write_text(releases[0].read_text().splitlines()[0] + "\n")
    out = tmp_path / "t.json"
    res = cli("compare", original, releases[0], empty, "--policy", policy, "-o", out)
    assert res.returncode == 2 and "empty.csv has no records" in res.stderr, res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and not out.exists()


def test_records_left_out_are_suppressed_records_against_the_limit(cli, tmp_path) -> None:
    """A release that drops 7-56 % of the original's records passed against a 1 % limit
    (issue 30): check sees the release alone, compare knows the original's size."""
    original, releases, _ = write_inputs(tmp_path)
    policy = write_policy(tmp_path, suppression_limit=0.05)  # 6 of the 120 records
    blank = pd.read_csv(releases[1], dtype=str)  # passes k = 3 with every record
    names = []
    for dropped in (0, 6, 7, 30, 67):
        path = tmp_path / f"dropped-{dropped}.csv"
        blank.iloc[dropped:].to_csv(path, index=False)
        names.append(path)
    res = cli("compare", original, *names, "--policy", policy, "-f", "json")
    assert res.returncode == 0, res.stderr
    entries = json.loads(res.stdout)["releases"]
    assert [e["passed"] for e in entries] == [True, True, False, False, False]
    assert [e["rows"] for e in entries] == [120, 114, 113, 90, 53]
    for path in names[2:]:  # check, which sees the release alone, passes them all
        assert cli("check", path, "--policy", policy).returncode == 0


@pytest.mark.parametrize("label", ["1e999-2e999", "-1e999-1e999", "[1e400, 1e401)"])
def test_an_infinite_range_is_one_line(cli, tmp_path: Path, label: str) -> None:
    """'1e999-2e999' parsed as the range inf-inf and printed two warning lines before the
    error: a range needs finite bounds."""
    original, releases, policy = write_inputs(tmp_path)
    frame = pd.read_csv(releases[0], dtype=str).assign(age=label)
    path = tmp_path / "inf.csv"
    frame.to_csv(path, index=False)
    res = cli("compare", original, path, "--policy", policy)
    assert res.returncode == 2, res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and "not a range" in res.stderr


# ------------------------------------------------------------------------------------ Adult


@pytest.fixture(scope="module")
def adult_releases(tmp_path_factory):
    """Adult (8 QIs, k = 5, 1 % suppression) released by MinGen, Mondrian and local
    suppression, each written twice: in input order with suppressed records as stars, and
    shuffled with them left out."""
    from privcheck.io import read_table
    from privcheck.pipeline.anonymize import anonymize
    from privcheck.policy import load_policy

    tmp = tmp_path_factory.mktemp("adult_compare")
    spec = yaml.safe_load((ADULT / "policy.yaml").read_text())
    for attr in spec["attributes"].values():
        if "hierarchy" in attr:
            attr["hierarchy"]["path"] = str(ADULT / attr["hierarchy"]["path"])
    spec["models"] = [{"model": "k-anonymity", "k": 5}]
    paths = {}
    frame = read_table(ADULT / "adult.csv")
    for mode in ("star", "remove"):
        spec["suppressed_records"] = mode
        policy_path = tmp / f"{mode}.yaml"
        policy_path.write_text(yaml.safe_dump(spec))
        policy = load_policy(policy_path)
        for algorithm in ("mingen", "mondrian", "local-suppression"):
            release, _ = anonymize(frame, policy, algorithm, seed=7, keep_order=mode == "star")
            path = tmp / f"{algorithm}-{mode}.csv"
            release.to_csv(path, index=False)
            paths[algorithm, mode] = path
        paths["policy", mode] = policy_path
    return paths


def test_adult_new_figures_equal_independent_counts(cli, adult_releases) -> None:
    """The releases as the anonymizers write them, in order with stars and shuffled without
    their suppressed records: suppressed records, generalized cells and the risk block counted
    with pandas. MinGen's optimum suppresses at most the 1 % limit of the records, while its
    columns generalized to their top '*' make more than 30 % of the cells read '*'."""
    from privcheck.io import read_table

    original = read_table(ADULT / "adult.csv").astype(str)
    attributes = yaml.safe_load((ADULT / "policy.yaml").read_text())["attributes"]
    qis = [q for q, a in attributes.items() if a["role"] == "quasi_identifier"]
    for mode in ("star", "remove"):
        names = [adult_releases[a, mode] for a in ("mingen", "mondrian", "local-suppression")]
        res = cli(
            "compare",
            ADULT / "adult.csv",
            *names,
            "-p",
            adult_releases["policy", mode],
            "-f",
            "json",
        )
        assert res.returncode == 0, res.stderr
        report = json.loads(res.stdout)
        for entry, path in zip(report["releases"], names, strict=True):
            release = pd.read_csv(path, dtype=str, keep_default_na=False)
            want = counts(
                original, release, qis, 5, aligned=mode == "star", star_policy=mode == "star"
            )
            assert entry["suppressed_records"] == pytest.approx(want["suppressed_records"])
            assert entry["risk"] == pytest.approx(want["risk"]), path
            assert entry["passed"] is True
            if "generalized_cells" in want:
                assert entry["generalized_cells"] == pytest.approx(want["generalized_cells"])
        mingen = report["releases"][0]
        assert 0 < mingen["suppressed_records"] <= 0.01 < 0.3 < mingen["suppressed_share"]


def test_adult_release_shuffled_and_cut_reads_the_same(cli, adult_releases, tmp_path) -> None:
    """Each star release written again shuffled with its suppressed rows left out (what
    ``suppressed_records: remove`` without ``--keep-order`` writes): every figure but the
    release's accuracy is the same."""
    attributes = yaml.safe_load((ADULT / "policy.yaml").read_text())["attributes"]
    qis = [q for q, a in attributes.items() if a["role"] == "quasi_identifier"]
    star, cut = [], []
    for algorithm in ("mingen", "mondrian", "local-suppression"):
        path = adult_releases[algorithm, "star"]
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        kept = frame[~(frame[qis] == "*").all(axis=1)].sample(frac=1.0, random_state=2)
        moved = tmp_path / f"{algorithm}-moved.csv"
        kept.to_csv(moved, index=False)
        star.append(path)
        cut.append(moved)
    policy = adult_releases["policy", "star"]
    target = ("--target", "salary-class")
    res = cli("compare", ADULT / "adult.csv", *star, *cut, "-p", policy, "-f", "json", *target)
    assert res.returncode == 0, res.stderr
    entries = json.loads(res.stdout)["releases"]
    for a, b in zip(entries[:3], entries[3:], strict=True):
        assert b["rows"] < a["rows"] or a["suppressed_records"] == 0
        for key, value in a.items():
            if key in ("release", "rows", "accuracy_release", "accuracy_loss_points"):
                continue
            assert b[key] == pytest.approx(value, rel=1e-9, abs=1e-12), (b["release"], key)
        assert b["accuracy_release"] is None and a["accuracy_release"] > 0.7
