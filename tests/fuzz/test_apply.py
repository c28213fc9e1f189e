"""``privcheck apply`` on mutated transformations, batches, policies, options and paths keeps the
contract; a release it writes with exit 0 passes ``check`` with its own policy and suppresses no
more than the policy allows (a transformation may narrow the policy, never loosen it); exit 1
writes no release."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.harness import (
    assert_contract,
    assert_suppression_within_policy,
    fuzz_settings,
    recheck,
)
from tests.fuzz.inputs import (
    BASE_CSV,
    PATH_KINDS,
    POLICY,
    DataFile,
    PolicyFile,
    base_report,
    base_transformation,
    data_files,
    dump_policy,
    numbers,
    policy_files,
    side_files,
    special_path,
)


@fuzz_settings(60)
@given(case=st.data())
def test_apply_keeps_the_contract(case):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        mutated = case.draw(
            st.sampled_from(
                ["transformation", "transformation", "transformation", "data", "data", "policy",
                 "options", "paths"]
            ),
            label="mutated",
        )  # fmt: skip
        datafile = case.draw(data_files()) if mutated == "data" else DataFile("d.csv", BASE_CSV)
        policyfile = (
            case.draw(policy_files())
            if mutated == "policy"
            else PolicyFile("policy.yaml", dump_policy(POLICY))
        )
        base = case.draw(
            st.sampled_from([base_transformation(), json.loads(base_report())]), label="base"
        )
        transformation = (
            case.draw(side_files(base, "t.json")) if mutated == "transformation" else None
        )
        data, policy = datafile.write(folder), policyfile.write(folder)
        t_path = folder / "t.json"
        if transformation is None:
            t_path.write_text(json.dumps(base))
        else:
            t_path = transformation.write(folder)
        release = folder / case.draw(st.sampled_from(["r.csv", "r.parquet"]))
        args: list[object] = ["apply", data, "-t", t_path, "-p", policy, "-o", release]
        args += [*datafile.options(), "--seed", "1"]
        args += case.draw(st.sampled_from([[], [], ["-f", "json"], ["--keep-order"]]))
        outputs, outside = [release], []
        if mutated == "options":
            option = case.draw(st.sampled_from(["--seed", "--engine", "--allow-draft", "-f"]))
            if option == "--seed":
                args += [option, case.draw(numbers())]
            elif option == "--engine":
                args += [option, case.draw(st.sampled_from(["polars", "duckdb", "bogus"]))]
            elif option == "-f":
                args += [option, case.draw(st.sampled_from(["html", "github", "bogus"]))]
            else:
                args.append(option)
        elif mutated == "paths":
            where = case.draw(st.sampled_from(["data", "-t", "policy", "-o", "-o"]))
            kind = case.draw(st.sampled_from([*PATH_KINDS, "same as data", "same as -t"]))
            if kind == "same as data":
                path = data
            elif kind == "same as -t":
                path = t_path
            else:
                path = special_path(folder, kind, "x.yaml" if where == "policy" else "x.csv")
            if path == Path("/dev/null"):
                outside.append(path)
            index = {"data": 1, "-t": 3, "policy": 5, "-o": 7}[where]
            if where == "-o":
                outputs = [path] if kind in ("missing", "empty") else []
            args[index] = path
        run = assert_contract(
            folder,
            args,
            outputs=outputs,
            outside=outside,
            note=f"{datafile!r}\n{policyfile!r}\n{transformation!r}",
        )
        written = Path(args[7])
        if run.code == 1:  # the transformation no longer satisfies the policy: no release
            assert not any(p.exists() for p in outputs), run.describe()
        if run.code == 0:
            draft = ["--allow-draft"] if "--allow-draft" in args else []
            recheck(folder, written, Path(args[5]), *draft)
            assert_suppression_within_policy(Path(args[1]), written, Path(args[5]), None)


def test_a_transformation_looser_than_the_policy_never_releases_more():
    """The issue's finding, as the fuzz states it: every suppression limit a transformation may
    carry, under both modes, gives a release within the policy's limit or none."""
    from tests.fuzz.harness import run_cli

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "d.csv").write_bytes(BASE_CSV)
        for mode in ("remove", "star"):
            policy = folder / f"p-{mode}.yaml"
            policy.write_bytes(dump_policy({**POLICY, "suppressed_records": mode}))
            for limit in (0.0, 0.1, 0.25, 0.26, 0.99, 1.0):
                t = {**base_transformation(), "suppression_limit": limit}
                t["suppressed_records"] = mode
                (folder / "t.json").write_text(json.dumps(t))
                release = folder / f"r-{mode}-{limit}.csv"
                run = assert_contract(
                    folder,
                    ["apply", "d.csv", "-t", "t.json", "-p", policy, "-o", release],
                    outputs=[release],
                )
                assert run.code == (2 if limit > 0.25 else run.code), run.describe()
                if run.code == 0:
                    recheck(folder, release, policy)
                    assert_suppression_within_policy(folder / "d.csv", release, policy)
                assert run_cli(["check", "d.csv", "-p", policy], folder).code in (0, 1)
