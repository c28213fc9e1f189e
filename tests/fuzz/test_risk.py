"""``privcheck risk`` on mutated originals, releases, control sets, intruder-record lists, model
files, parameters, options and paths keeps the contract, for every attack."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.harness import assert_contract, fuzz_settings
from tests.fuzz.inputs import (
    ATTACKS,
    CONTROL_ROWS,
    HEADER,
    LOCK_KINDS,
    NUMERIC_POLICY,
    PATH_KINDS,
    ROWS,
    DataFile,
    PolicyFile,
    csv_files,
    csv_text,
    dump_policy,
    intruder_record_files,
    locked_input,
    masked_rows,
    model_files,
    numbers,
    param_values,
    policy_files,
    special_path,
)


@fuzz_settings(70)
@given(case=st.data())
def test_risk_keeps_the_contract(case):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        attack = case.draw(st.sampled_from(sorted(ATTACKS)), label="attack")
        required, needs_control, release, param_names = ATTACKS[attack]
        mutated = case.draw(
            st.sampled_from(
                ["original", "masked", "masked", "control", "policy", "params", "params",
                 "options", "intruder records", "model file", "paths", "locked"]
            ),
            label="mutated",
        )  # fmt: skip
        files = {
            "original": ("o.csv", ROWS),
            "masked": ("m.csv", masked_rows(release)),
            "control": ("c.csv", CONTROL_ROWS),
        }
        paths, notes, encoding = {}, [], []
        for role, (name, rows) in files.items():
            if mutated == role:
                datafile = case.draw(csv_files(name=name, base_rows=rows), label=role)
                encoding = datafile.options()
            else:
                datafile = DataFile(name, csv_text(HEADER, rows).encode())
            paths[role] = datafile.write(folder)
            notes.append(repr(datafile))
        policyfile = (
            case.draw(policy_files(NUMERIC_POLICY))
            if mutated == "policy"
            else PolicyFile("policy.yaml", dump_policy(NUMERIC_POLICY))
        )
        notes.append(repr(policyfile))
        policy = policyfile.write(folder)
        args: list[object] = ["risk", "--original", paths["original"], "--masked", paths["masked"]]
        args += ["-p", policy, "-a", attack, "--seed", "1", *encoding]
        for param in required:
            args += ["--param", param]
        if needs_control:
            args += ["--control", paths["control"]]
        outputs, outside = [], []
        fmt = case.draw(st.sampled_from([None, None, "json", "text", "html"]), label="format")
        if fmt is not None:
            args += ["-f", fmt]
        if case.draw(st.integers(0, 3), label="-o") == 0:
            outputs.append(folder / f"risk.{fmt or 'txt'}")
            args += ["-o", outputs[-1]]
        if mutated == "params":
            names = st.sampled_from([*param_names, "random_state", "control_share", "x"])
            chosen = case.draw(
                st.lists(
                    st.tuples(names, param_values()),
                    min_size=1,
                    max_size=2,
                    unique_by=lambda t: t[0],
                ),
                label="params",
            )
            args = _without_params(args, {name for name, _ in chosen})
            for name, value in chosen:
                args += ["--param", f"{name}={value}"]
        elif mutated == "options":
            option = case.draw(
                st.sampled_from(
                    ["--seed", "--intruder-records", "--intruder-records", "--intruder-attributes",
                     "--masked", "-f", "--trust-model-file", "--allow-draft"]
                )
            )  # fmt: skip
            if option in ("--seed", "--intruder-records"):
                args += [option, case.draw(numbers())]
            elif option == "--intruder-attributes":
                args += [
                    option,
                    case.draw(
                        st.sampled_from(
                            ["age", "", ",", "age,age", "nope", "salary, age", "$x_$", "zip"]
                        )
                    ),
                ]
            elif option == "--masked":  # a second release (release-intersection's input)
                args += [option, paths["masked"]]
            elif option == "-f":
                args += [option, case.draw(st.sampled_from(["github", "bogus", ""]))]
            else:
                args.append(option)
        elif mutated == "intruder records":
            rows = case.draw(intruder_record_files(), label="rows")
            notes.append(repr(rows))
            args += ["--intruder-records", rows.write(folder)]
        elif mutated == "model file":
            model = case.draw(model_files(), label="model")
            notes.append(repr(model))
            args = ["risk", "--original", paths["original"], "--masked", paths["masked"], "-p",
                    policy, "-a", "membership-inference", "--seed", "1", "--param",
                    "target=disease", "--control", paths["control"], "--param",
                    f"model={model.write(folder)}"]  # fmt: skip
            if case.draw(st.booleans(), label="--trust-model-file"):
                args.append("--trust-model-file")
        elif mutated == "locked":  # (an ordinary user's permission errors: one line)
            where = case.draw(st.sampled_from(["--original", "--masked", "-p"]), label="locked")
            i = args.index(where) + 1
            args[i] = locked_input(folder, Path(args[i]), case.draw(st.sampled_from(LOCK_KINDS)))
        elif mutated == "paths":
            where = case.draw(st.sampled_from(["--original", "--masked", "--control", "-p", "-o"]))
            kind = case.draw(st.sampled_from([*PATH_KINDS, "same as original"]))
            path = (
                paths["original"]
                if kind == "same as original"
                else special_path(folder, kind, "x.yaml" if where == "-p" else "x.csv")
            )
            if path == Path("/dev/null"):
                outside.append(path)
            if where in ("-o", "--control") and where not in args:
                args += [where, path]
            else:
                args[args.index(where) + 1] = path
            if where == "-o":
                outputs = [path] if kind in ("missing", "empty") else []
        run = assert_contract(folder, args, outputs=outputs, outside=outside, note="\n".join(notes))
        if run.code in (0, 1) and fmt == "json" and "-o" not in args:
            json.loads(run.out)


def _without_params(args: list[object], names: set[str]) -> list[object]:
    """``args`` without the ``--param NAME=…`` pairs of ``names`` (the mutation replaces them)."""
    out: list[object] = []
    skip = False
    for i, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if arg == "--param" and str(args[i + 1]).partition("=")[0] in names:
            skip = True
            continue
        out.append(arg)
    return out


# ------------------------------------------------------------------ regressions the fuzz found

#: the numeric attacks, with what each needs beside the two files
NUMERIC_ATTACKS = {
    "dbrl": [],
    "mahalanobis": [],
    "learned-weighted-mean": [],
    "interval-disclosure": [],
    "rank-swap-transparency": ["--param", "p=10"],
    "microaggregation-transparency": ["--param", "k=3"],
    "microaggregation-multivariate-transparency": ["--param", "k=3"],
    "singling-out": ["--control", "c.csv", "--param", "n_cols=2"],
    "linkability": ["--control", "c.csv"],
    "inference": ["--control", "c.csv", "--param", "secret=disease"],
    "membership-inference": ["--control", "c.csv", "--param", "target=disease"],
}


def _scaled(rows: list[list[str]], factor: float) -> list[list[str]]:
    """The rows with salary (column 3) multiplied by ``factor`` (exactly, for a power of 2)."""
    return [[*r[:3], repr(float(r[3]) * factor), *r[4:]] for r in rows]


@pytest.mark.parametrize("attack", sorted(NUMERIC_ATTACKS))
@pytest.mark.parametrize("where", ["original", "masked"])
def test_values_near_the_float_limits_are_refused_not_computed_on_inf(tmp_path, attack, where):
    """Salaries near 1e308: every mean, variance and distance overflowed, and dbrl printed a
    traceback (cKDTree: data must be finite), mahalanobis blamed identical files, the others
    printed figures computed on inf/nan (the overflow warning hidden). Now one line naming the
    column, before any figure."""
    release = "microaggregated" if "microaggregation" in attack else "noise"
    rows = {"original": ROWS, "masked": masked_rows(release)}
    rows[where] = _scaled(rows[where], 2.0**1000)  # (≈ 3e305 … 5e305: finite, beyond 1e100)
    for name, table in (("o.csv", rows["original"]), ("m.csv", rows["masked"])):
        (tmp_path / name).write_text(csv_text(HEADER, table))
    (tmp_path / "c.csv").write_text(csv_text(HEADER, CONTROL_ROWS))
    (tmp_path / "p.yaml").write_bytes(dump_policy(NUMERIC_POLICY))
    args = ["risk", "--original", "o.csv", "--masked", "m.csv", "-p", "p.yaml", "-a", attack]
    run = assert_contract(tmp_path, [*args, "--seed", "1", *NUMERIC_ATTACKS[attack]])
    assert run.code == 2 and "'salary'" in run.err and "1e+100" in run.err, run.describe()


@pytest.mark.parametrize("attack", ["dbrl", "mahalanobis", "rank-swap-transparency"])
def test_large_values_within_the_bound_give_the_figures_of_the_rescaled_data(tmp_path, attack):
    """The bound refuses nothing that computes: salaries × 2^300 (≈ 6e94) give exactly the
    figures of the data as it is — standardised distances do not change with the unit, and a
    power of two changes no rounding."""
    figures = []
    for factor in (1.0, 2.0**300):
        folder = tmp_path / str(factor)
        folder.mkdir()
        (folder / "o.csv").write_text(csv_text(HEADER, _scaled(ROWS, factor)))
        masked = _scaled(masked_rows("heavy noise"), factor)
        (folder / "m.csv").write_text(csv_text(HEADER, masked))
        (folder / "p.yaml").write_bytes(dump_policy(NUMERIC_POLICY))
        args = ["risk", "--original", "o.csv", "--masked", "m.csv", "-p", "p.yaml", "-a", attack]
        params = [x for p in ATTACKS[attack][0] for x in ("--param", p)]
        run = assert_contract(folder, [*args, "--seed", "1", "-f", "json", *params])
        assert run.code == 0, run.describe()
        report = json.loads(run.out)
        keys = ("reidentification_rate", "certain_rate", "figures", "attribute_contribution")
        figures.append({k: report[k] for k in keys})
    assert 0 < figures[0]["reidentification_rate"] < 1  # (a case where links are confused)
    assert figures[0] == figures[1]
