"""The round-trip contract, on random policies: a release anonymize wrote with exit 0 passes
``privcheck check`` with the SAME policy file.

Every case draws a small table and a policy from one seed: every role (identifier,
quasi-identifier, sensitive, insensitive, plus a column the policy does not name), both
``missing`` modes (missing values sprinkled in under ``own_class``), both ``suppressed_records``
modes, table / intervals / masking / dates hierarchies with and without a top level (a table
sometimes with a literal ``*`` value, which a check reads as the suppression mark), and a few
models. It runs every anonymizer that enforces the models (incognito, mingen, datafly, mondrian,
local-suppression; mdav and rank swapping, whose verdict decides its exit code, when every
quasi-identifier is numeric), writes the release as the CLI does (CSV or Parquet) and checks the
written file with the policy file. The oracle is the plain checker reading the file,
independent of the anonymizer's own bookkeeping.

A hypothesis property holds top and bottom coding to the same contract
(``test_top_bottom_coding_never_crashes_and_every_release_rechecks``).

``PRIVCHECK_ROUNDTRIP_CASES`` sets the number of seeds (default 40); 500 were run once locally
(see docs/anonymization.md, "The round-trip contract"). ``PRIVCHECK_CODING_CASES`` sets the
coding property's examples (default 60).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from privcheck.engines.output import write_release
from privcheck.errors import PrivcheckError
from privcheck.pipeline.anonymize import anonymize
from privcheck.pipeline.check import check

CASES = int(os.environ.get("PRIVCHECK_ROUNDTRIP_CASES", "40"))
GENERALIZATION = ("incognito", "mingen", "datafly", "mondrian", "local-suppression")
MASKING = ("mdav", "rank-swapping")
#: why anonymize may refuse a random policy (exit 2): the policy cannot be satisfied, a
#: parameter does not fit the table, or a kept record would be written as all '*' (see
#: ``privcheck.engines.recheck.recheck``); any other refusal is a failure of the contract
REFUSALS = (
    "no generalization satisfies",
    "cannot hold",
    "cannot tell from suppressed records",
    "prunes the lattice",
    "k must be between",
    "less than one rank",
    "needs k",
    "no partitioning satisfies",  # mondrian: the whole table violates the policy
    "enforces k-anonymity only",  # local suppression, under a model it cannot enforce
    "needs a k-anonymity model",
    "must blank every quasi-identifier of",  # … over the suppression limit (star)
    "cannot enforce",  # mondrian, under a model it cannot enforce
)


def _table_qi(rng: np.random.Generator, n: int) -> tuple[list[Any], dict]:
    values = [f"v{i}" for i in range(int(rng.integers(2, 6)))]
    if rng.random() < 0.2:  # a literal '*' value: the suppression mark, written by the data
        values[0] = "*"
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


def release_and_check(
    data: Path | pd.DataFrame,
    policy_file: Path,
    algorithm: str,
    out: Path,
    refusals: tuple[str, ...] = REFUSALS,
    **params: Any,
) -> str | None:
    """What ``privcheck anonymize DATA -p POLICY -a ALGORITHM -o OUT`` then ``privcheck check
    OUT -p POLICY`` do, as the CLI does it; the failure of the contract, or None.

    anonymize may refuse (exit 2, nothing written) only with a one-line message naming one of
    ``refusals``; anything but a ``PrivcheckError`` escaping is a traceback. A release whose
    own check fails (exit 1: a masking method's verdict) is not written; every other release is
    written (CSV or Parquet, by ``out``'s suffix) and must pass ``check`` with the same file.
    """
    try:
        release, report = anonymize(data, policy_file, algorithm, **params)
    except PrivcheckError as exc:  # exit 2, nothing written: only for these reasons
        if "\n" in str(exc) or not any(reason in str(exc) for reason in refusals):
            return f"{algorithm}: anonymize refuses: {exc}"
        return None
    if not report.check.passed:  # exit 1 (a masking method's release fails the policy)
        return None
    write_release(release, out)
    try:
        verdict = check(out, policy_file)
    except PrivcheckError as exc:
        return f"{algorithm}: check exits 2: {exc}"
    if not verdict.passed:
        why = verdict.findings() + [m.model for m in verdict.models if not m.passed]
        return f"{algorithm}: check exits 1: {why}"
    return None


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
        out = folder / f"release{seed}-{algorithm}.{('csv', 'parquet')[seed % 2]}"
        failure = release_and_check(data, policy_file, algorithm, out, **params)
        if failure is not None:
            failures.append(f"seed {seed} {failure}")
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
                    if h["rows"][0][0] == "*" and policy["suppressed_records"] == "star":
                        seen.add("literal-star")
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
        "literal-star",
        *(f"{kind}-top{top}" for kind in QI_KINDS for top in (True, False)),
    ):
        assert needed in seen, needed


# --- top and bottom coding (docs/anonymization.md, "Top and bottom coding") -------------------

CODING_ALGORITHMS = ("incognito", "mingen", "datafly", "mondrian", "local-suppression", "safepub")
CODING_INPUTS = (
    "csv",
    "tsv",
    "parquet",  # integers
    "parquet-str",
    "pandas-int",
    "pandas-str",
    "pandas-float",
    "pandas-category",  # integer categories
    "pandas-category-str",
)


@st.composite
def coding_cases(draw: st.DrawFn) -> dict[str, Any]:
    """One drawn set of coding options: thresholds, a value (default, whole, fractional or a
    label), top and/or bottom, the hierarchy kind, the input format and the algorithm."""

    def value() -> float | str | None:
        kind = draw(st.sampled_from(["default", "whole", "fraction", "label"]))
        if kind == "whole":
            return draw(st.integers(0, 99))
        if kind == "fraction":
            return draw(st.integers(0, 99)) + 0.5
        return draw(st.sampled_from(["90+", "old", "<20"])) if kind == "label" else None

    sides = draw(st.sampled_from([("top",), ("bottom",), ("top", "bottom")]))
    low, high = sorted(draw(st.lists(st.integers(0, 99), min_size=2, max_size=2)))
    coding = {}
    for side in sides:
        threshold = high if side == "top" else low
        coding[f"{side}_coding"] = {"threshold": threshold}
        v = value()
        if v is not None:
            coding[f"{side}_coding"]["value"] = v
    return {
        "coding": coding,
        "hierarchy": draw(st.sampled_from(["table", "intervals", "none"])),
        "input": draw(st.sampled_from(CODING_INPUTS)),
        "algorithm": draw(st.sampled_from(CODING_ALGORITHMS)),
        "seed": draw(st.integers(0, 2**16)),
        "n": draw(st.integers(8, 60)),
        "out": draw(st.sampled_from(["csv", "parquet"])),
    }


def _coding_input(case: dict[str, Any], ages: np.ndarray, folder: Path) -> Path | pd.DataFrame:
    rng = np.random.default_rng(case["seed"])
    frame = pd.DataFrame(
        {
            "age": ages,
            "sex": rng.choice(["F", "M"], len(ages)),
            "disease": rng.choice(["flu", "cold", "none"], len(ages)),
        }
    )
    kind = case["input"]
    if kind in ("csv", "tsv"):
        path = folder / f"data.{kind}"
        frame.to_csv(path, index=False, sep="," if kind == "csv" else "\t")
        return path
    if kind.startswith("parquet"):
        path = folder / "data.parquet"
        frame.assign(age=ages.astype(str) if kind == "parquet-str" else ages).to_parquet(path)
        return path
    age = {
        "pandas-int": lambda: ages,
        "pandas-str": lambda: ages.astype(str),
        "pandas-float": lambda: ages.astype(float),
        "pandas-category": lambda: pd.Categorical(ages),
        "pandas-category-str": lambda: pd.Categorical(ages.astype(str)),
    }[kind]()
    return frame.assign(age=age)


SEX = [["F", "*"], ["M", "*"]]


def _coding_policy(case: dict[str, Any], folder: Path) -> dict[str, Any]:
    age: dict[str, Any] = {"role": "quasi_identifier", **case["coding"]}
    if case["hierarchy"] == "table":
        # every value the data or the coding can hold, as a hierarchy file spells it
        spelled = [str(a) for a in range(100)]
        for coding in case["coding"].values():
            v = coding.get("value")
            if isinstance(v, str):
                spelled.append(v)
            elif isinstance(v, float):
                spelled.append(repr(v))
        decade = {v: f"{int(v) // 10 * 10}-{int(v) // 10 * 10 + 9}" for v in spelled[:100]}
        rows = [[v, decade.get(v, "coded"), "*"] for v in dict.fromkeys(spelled)]
        # a file beside the policy (a hundred inline rows would make YAML the slowest step)
        (folder / "age.csv").write_text("".join(";".join(r) + "\n" for r in rows))
        age["hierarchy"] = {"type": "table", "path": "age.csv"}
    elif case["hierarchy"] == "intervals":
        age["hierarchy"] = {"type": "intervals", "widths": [10, 20]}
    if case["algorithm"] == "safepub":
        models = [{"model": "differential-privacy", "epsilon": 2.0, "delta": 1e-3}]
    else:
        models = [{"model": "k-anonymity", "k": 2}]
    return {
        "attributes": {
            "age": age,
            "sex": {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": SEX}},
            "disease": {"role": "sensitive"},
        },
        "models": models,
        "suppression_limit": 0.5,
    }


@settings(max_examples=int(os.environ.get("PRIVCHECK_CODING_CASES", "60")), deadline=None)
@given(case=coding_cases())
def test_top_bottom_coding_never_crashes_and_every_release_rechecks(case):
    """Any coding options × hierarchy kind × input format × algorithm: anonymize exits 0 with a
    release that ``check`` passes under the same policy file, or refuses in one line (exit 2);
    never a traceback. A label cannot be placed in an intervals hierarchy (refused); integers
    stay spelled as integers (``80``, never ``80.0``) in a CSV release.

    SafePub is held to the first half only: ``check`` refuses a differential-privacy policy (a
    property of the mechanism, not of a table), so its release has no check to pass."""
    label = any(isinstance(c.get("value"), str) for c in case["coding"].values())
    refused_label = label and case["hierarchy"] == "intervals"
    refusals = ("cannot place",) if refused_label else REFUSALS
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        # SafePub's smallest k from (ε, δ) = (2, 10^-3) is 64: a table it can release from
        n = 400 if case["algorithm"] == "safepub" else case["n"]
        ages = np.random.default_rng(case["seed"]).integers(0, 100, n)
        data = _coding_input(case, ages, folder)
        policy_file = folder / "policy.yaml"
        policy_file.write_text(yaml.safe_dump(_coding_policy(case, folder)))
        out = folder / f"release.{case['out']}"
        if case["algorithm"] == "safepub":
            try:
                anonymize(data, policy_file, "safepub", seed=case["seed"])
            except PrivcheckError as exc:
                assert "\n" not in str(exc) and any(r in str(exc) for r in refusals), exc
            else:
                assert not refused_label
            return
        assert release_and_check(data, policy_file, case["algorithm"], out, refusals) is None
        if refused_label:
            assert not out.exists()
        if out.exists() and out.suffix == ".csv" and case["input"] != "pandas-float":
            released = pd.read_csv(out, dtype=str, keep_default_na=False)["age"]
            assert not released.str.contains(r"\d\.0(?!\d)", regex=True).any(), set(released)
