"""The round-trip contract, on random policies: a release anonymize wrote with exit 0 passes
``privcheck check`` with the SAME policy file.

Every case draws a small table and a policy from one seed: every role (identifier,
quasi-identifier, sensitive, insensitive, plus a column the policy does not name), both
``missing`` modes (missing values sprinkled in under ``own_class``), both ``suppressed_records``
modes, table / intervals / masking / dates hierarchies with and without a top level, and a few
models. It runs every anonymizer that enforces the models (incognito, mingen, datafly; mdav,
and rank swapping, whose verdict decides its exit code, when every quasi-identifier is numeric),
writes the release as the CLI does (CSV or Parquet) and checks the written file with the policy
file. The oracle
is the plain checker reading the file, independent of the anonymizer's own bookkeeping.

``PRIVCHECK_ROUNDTRIP_CASES`` sets the number of seeds (default 40); 500 were run once locally
(see docs/anonymization.md, "The round-trip contract").
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml

from privcheck.anonymizers import anonymize
from privcheck.checker import check
from privcheck.engines.output import write_release
from privcheck.errors import PrivcheckError

CASES = int(os.environ.get("PRIVCHECK_ROUNDTRIP_CASES", "40"))
GENERALIZATION = ("incognito", "mingen", "datafly")
MASKING = ("mdav", "rank-swapping")
#: why anonymize may refuse a random policy (exit 2): the policy cannot be satisfied, a
#: parameter does not fit the table, or a kept record would be written as all '*' (see
#: ``privcheck.anonymizers.release.recheck``); any other refusal is a failure of the contract
REFUSALS = (
    "no generalization satisfies",
    "cannot hold",
    "cannot tell from suppressed records",
    "prunes the lattice",
    "k must be between",
    "less than one rank",
    "needs k",
)


def _table_qi(rng: np.random.Generator, n: int) -> tuple[list[Any], dict]:
    values = [f"v{i}" for i in range(int(rng.integers(2, 6)))]
    groups = {v: f"g{i % 2}" for i, v in enumerate(values)}
    top = bool(rng.integers(2))
    rows = [[v, groups[v], *(["*"] if top else [])] for v in values]
    return list(rng.choice(values, n)), {"type": "table", "rows": rows}


def _intervals_qi(rng: np.random.Generator, n: int) -> tuple[list[Any], dict]:
    widths = [[10], [10, 20], [5, 10, 40]][int(rng.integers(3))]
    return [int(x) for x in rng.integers(0, 80, n)], {
        "type": "intervals",
        "widths": widths,
        "top": bool(rng.integers(2)),
    }


def _masking_qi(rng: np.random.Generator, n: int) -> tuple[list[Any], dict]:
    length = int(rng.integers(2, 5))
    pool = [f"{int(x):0{length}d}" for x in rng.integers(0, 10**length, 6)]
    if rng.random() < 0.3:  # values of different lengths: short ones mask to '*' early
        pool[0] = pool[0][:1]
    spec: dict[str, Any] = {"type": "masking"}
    if rng.integers(2):  # without masking every character (no all-'*' top)
        spec["levels"] = int(rng.integers(1, length))
    return list(rng.choice(pool, n)), spec


def _dates_qi(rng: np.random.Generator, n: int) -> tuple[list[Any], dict]:
    days = pd.Timestamp("2019-11-01") + pd.to_timedelta(rng.integers(0, 800, n), unit="D")
    levels = [lv for lv in ("month", "quarter", "year") if rng.random() < 0.6] or ["year"]
    return [d.strftime("%Y-%m-%d") for d in days], {
        "type": "dates",
        "levels": levels,
        "top": bool(rng.integers(2)),
    }


QI_KINDS = {
    "table": _table_qi,
    "intervals": _intervals_qi,
    "masking": _masking_qi,
    "dates": _dates_qi,
}


def _models(rng: np.random.Generator, sensitive: list[str], n: int) -> list[dict]:
    out: list[dict] = []
    if rng.random() < 0.8 or not sensitive:
        out.append({"model": "k-anonymity", "k": int(rng.integers(1, min(5, n) + 1))})
    for s in sensitive:
        pick = rng.random()
        if pick < 0.25:
            out.append({"model": "l-diversity", "variant": "distinct", "l": 2, "attribute": s})
        elif pick < 0.4:
            out.append({"model": "l-diversity", "variant": "entropy", "l": 1.5, "attribute": s})
        elif pick < 0.5:
            out.append(
                {"model": "l-diversity", "variant": "recursive", "l": 2, "c": 3, "attribute": s}
            )
        elif pick < 0.7:
            out.append(
                {
                    "model": "t-closeness",
                    "t": float(rng.choice([0.2, 0.4, 0.6])),
                    "distance": str(rng.choice(["equal", "ordered"])),
                    "attribute": s,
                }
            )
        elif pick < 0.8:
            out.append({"model": "alpha-k-anonymity", "alpha": 0.8, "k": 2, "attribute": s})
    return out


def random_case(seed: int) -> tuple[pd.DataFrame, dict, bool]:
    """A table, its policy, and whether every quasi-identifier is numeric (masking fits)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 31))
    missing = "own_class" if rng.random() < 0.4 else "error"
    columns: dict[str, list[Any]] = {}
    attributes: dict[str, dict] = {}
    if rng.random() < 0.6:
        columns["name"] = [f"person{i}" for i in range(n)]
        attributes["name"] = {"role": "identifier"}
    if rng.random() < 0.15:  # an identifier the data does not have: fine, nothing to remove
        attributes["ssn"] = {"role": "identifier"}
    kinds = list(rng.choice(list(QI_KINDS), int(rng.integers(1, 4))))
    for i, kind in enumerate(kinds):
        values, spec = QI_KINDS[kind](rng, n)
        columns[f"q{i}"] = values
        attributes[f"q{i}"] = {"role": "quasi_identifier", "hierarchy": spec}
    sensitive = [f"s{i}" for i in range(int(rng.integers(0, 3)))]
    for s in sensitive:
        domain = ["flu", "cold", "hiv", "none"][: int(rng.integers(2, 5))]
        columns[s] = list(rng.choice(domain, n))
        attributes[s] = {"role": "sensitive"}
    if rng.random() < 0.5:
        columns["weight"] = [int(x) for x in rng.integers(40, 120, n)]
        attributes["weight"] = {"role": "insensitive"}
    if rng.random() < 0.3:
        columns["note"] = ["x"] * n  # not named by the policy: dropped
    frame = pd.DataFrame(columns)
    if missing == "own_class":
        for name in [*(f"q{i}" for i in range(len(kinds))), *sensitive]:
            if rng.random() < 0.5:
                holes = rng.random(n) < 0.15
                frame[name] = frame[name].astype(object).where(~holes, None)
    policy = {
        "attributes": attributes,
        "models": _models(rng, sensitive, n),
        "suppression_limit": float(rng.choice([0.0, 0.1, 0.3, 1.0])),
        "suppressed_records": str(rng.choice(["remove", "star"])),
        "missing": missing,
    }
    numeric = all(k == "intervals" for k in kinds) and missing == "error"
    return frame, policy, numeric


def roundtrip(seed: int, folder: Path) -> list[str]:
    """Anonymize the seed's case with every fitting algorithm; the failures of the contract."""
    frame, policy, numeric = random_case(seed)
    data = folder / f"data{seed}.csv"
    frame.to_csv(data, index=False)
    policy_file = folder / f"policy{seed}.yaml"
    policy_file.write_text(yaml.safe_dump(policy))
    algorithms = GENERALIZATION + (MASKING if numeric else ())
    failures = []
    for algorithm in algorithms:
        params = {"p": 10} if algorithm == "rank-swapping" else {}
        try:
            release, report = anonymize(data, policy_file, algorithm, **params)
        except PrivcheckError as exc:  # exit 2, nothing written: only for these reasons
            if not any(reason in str(exc) for reason in REFUSALS):
                failures.append(f"seed {seed} {algorithm}: anonymize refuses: {exc}")
            continue
        if not report.check.passed:  # exit 1 (a masking method's release fails the policy)
            continue
        out = folder / f"release{seed}-{algorithm}.{('csv', 'parquet')[seed % 2]}"
        write_release(release, out)
        try:
            verdict = check(out, policy_file)
        except PrivcheckError as exc:
            failures.append(f"seed {seed} {algorithm}: check exits 2: {exc}")
            continue
        if not verdict.passed:
            why = verdict.findings() + [m.model for m in verdict.models if not m.passed]
            failures.append(f"seed {seed} {algorithm}: check exits 1: {why}")
    return failures


@pytest.mark.parametrize("seed", range(CASES))
def test_every_release_passes_check_with_its_own_policy(seed, tmp_path):
    assert roundtrip(seed, tmp_path) == []


def test_the_generator_covers_the_space():
    """The cases above do reach every role, mode and hierarchy kind (a guard on the generator)."""
    seen: set[str] = set()
    for seed in range(CASES):
        _, policy, numeric = random_case(seed)
        seen |= {a["role"] for a in policy["attributes"].values()}
        for a in policy["attributes"].values():
            if "hierarchy" in a:
                h = a["hierarchy"]
                if h["type"] == "table":
                    top = h["rows"][0][-1] == "*"
                elif h["type"] == "masking":
                    top = "levels" not in h  # masks every character
                else:
                    top = h["top"]
                seen.add(f"{h['type']}-top{top}")
        seen |= {policy["missing"], policy["suppressed_records"]}
        if numeric:
            seen.add("masking-fits")
    for needed in (
        "identifier",
        "quasi_identifier",
        "sensitive",
        "insensitive",
        "error",
        "own_class",
        "remove",
        "star",
        "masking-fits",
        *(f"{kind}-top{top}" for kind in QI_KINDS for top in (True, False)),
    ):
        assert needed in seen, needed
