"""``privcheck compare``: one row per release, text and JSON, atomic --output, exit 2 on bad
input with one line and nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from test_measures import JOB, ZIP


def write_inputs(tmp: Path) -> tuple[Path, Path, Path]:
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
    frame.assign(zip=frame["zip"].str[:3] + "*", age="*").to_csv(tmp / "release.csv", index=False)
    policy = {
        "attributes": {
            "zip": {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": ZIP}},
            "job": {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": JOB}},
            "age": {"role": "quasi_identifier"},
            "disease": {"role": "sensitive"},
        },
        "models": [{"model": "k-anonymity", "k": 2}],
        "utility": {"target": "disease", "seed": 3},
    }
    (tmp / "policy.yaml").write_text(yaml.safe_dump(policy))
    return tmp / "original.csv", tmp / "release.csv", tmp / "policy.yaml"


def test_text_and_json_tables(cli, tmp_path: Path) -> None:
    original, release, policy = write_inputs(tmp_path)
    res = cli("compare", original, release, original, "--policy", policy)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0].split()[:4] == ["release", "rows", "classes", "Prec"]
    assert len(lines) == 4 and str(release) in lines[2]
    out = tmp_path / "table.json"
    res = cli("compare", original, release, "--policy", policy, "-o", out)
    assert res.returncode == 0, res.stderr and res.stdout == ""
    rows = json.loads(out.read_text())
    assert [r["release"] for r in rows] == [str(release)]
    row = rows[0]
    assert row["suppressed_cells"] == 120 and row["changed_share"] > 1 / 3
    assert {"prec", "non_uniform_entropy", "kl_divergence", "accuracy_loss_points"} <= set(row)


def test_bad_input_exits_2_with_one_line_and_writes_nothing(cli, tmp_path: Path) -> None:
    original, release, policy = write_inputs(tmp_path)
    out = tmp_path / "t.json"
    short = tmp_path / "short.csv"
    pd.read_csv(original).iloc[:50].to_csv(short, index=False)
    shuffled = tmp_path / "shuffled.csv"
    pd.read_csv(release, dtype=str).iloc[::-1].to_csv(shuffled, index=False)
    nozip = tmp_path / "nozip.csv"
    pd.read_csv(release, dtype=str).drop(columns="zip").to_csv(nozip, index=False)
    cases = [
        ((short,), "has 50 rows and the original 120"),
        ((shuffled,), "does not contain the original"),
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
