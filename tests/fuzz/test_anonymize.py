"""``privcheck anonymize`` on mutated data, policies, parameters, options, earlier reports and
paths keeps the contract; every release it writes with exit 0 passes ``check`` with its own
policy, and only a masking method exits 1."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.harness import assert_contract, fuzz_settings, recheck
from tests.fuzz.inputs import (
    ALGORITHMS,
    BASE_CSV,
    MASKING,
    PATH_KINDS,
    REQUIRED_PARAMS,
    DataFile,
    PolicyFile,
    base_report,
    data_files,
    dump_policy,
    numbers,
    param_values,
    policy_files,
    side_files,
    special_path,
)

#: the generalization searches most often (the release path every user takes), then the others
DRAWN = ["auto", "mingen", "mingen", "datafly", "incognito", "mondrian", "mondrian", *ALGORITHMS]


def release_args(case, folder: Path, mutated: str, algorithm: str):
    """The arguments of one anonymize run and the files it may write."""
    base_policy, param_names = ALGORITHMS[algorithm]
    datafile = case.draw(data_files()) if mutated == "data" else DataFile("d.csv", BASE_CSV)
    policyfile = (
        case.draw(policy_files(base_policy))
        if mutated == "policy"
        else PolicyFile("policy.yaml", dump_policy(base_policy))
    )
    data, policy = datafile.write(folder), policyfile.write(folder)
    release = folder / case.draw(st.sampled_from(["r.csv", "r.csv", "r.parquet", "r.tsv"]))
    args: list[object] = ["anonymize", data, "-p", policy, "-a", algorithm, "-o", release]
    args += [*datafile.options(), "--seed", "1"]
    for param in REQUIRED_PARAMS.get(algorithm, []):
        args += ["--param", param]
    outputs: list[Path] = [release]
    report_kind = case.draw(st.sampled_from([None, None, None, "json", "txt", "html"]))
    if report_kind is not None:
        outputs.append(folder / f"report.{report_kind}")
        args += ["--report", outputs[-1]]
    if case.draw(st.booleans(), label="--keep-order"):
        args.append("--keep-order")
    if mutated == "params":
        names = st.sampled_from([*param_names, "k", "x", "random_state", "tradeoff", "node"])
        for name, value in case.draw(
            st.lists(st.tuples(names, param_values()), min_size=1, max_size=2), label="params"
        ):
            args += ["--param", f"{name}={value}"]
    elif mutated == "options":
        option = case.draw(
            st.sampled_from(["--seed", "--max-groups", "--engine", "--encoding", "--allow-draft"])
        )
        if option in ("--seed", "--max-groups"):
            args += [option, case.draw(numbers(), label=option)]
        elif option == "--engine":
            args += [option, case.draw(st.sampled_from(["polars", "duckdb", "bogus"]))]
        elif option == "--encoding":
            args += [option, case.draw(st.sampled_from(["latin-1", "utf-16", "bogus", ""]))]
        else:
            args.append(option)
    elif mutated == "previous":
        previous = case.draw(side_files(json.loads(base_report()), "previous.json"))
        args += ["--previous", previous.write(folder)]
    return args, outputs, data, policy, f"{datafile!r}\n{policyfile!r}"


@fuzz_settings(70)
@given(case=st.data())
def test_anonymize_keeps_the_contract(case):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        algorithm = case.draw(st.sampled_from(DRAWN), label="algorithm")
        mutated = case.draw(
            st.sampled_from(
                ["data", "data", "policy", "policy", "params", "options", "paths", "previous"]
            ),
            label="mutated",
        )
        args, outputs, data, policy, note = release_args(case, folder, mutated, algorithm)
        outside: list[Path] = []
        if mutated == "paths":
            where = case.draw(st.sampled_from(["data", "policy", "-o", "-o", "--report"]))
            kind = case.draw(
                st.sampled_from([*PATH_KINDS, "same as data", "same as policy", "no extension"])
            )
            if kind == "same as data":
                path = data
            elif kind == "same as policy":
                path = policy
            elif kind == "no extension":
                path = folder / "release"
            else:
                path = special_path(folder, kind, "x.yaml" if where == "policy" else "x.csv")
            if path == Path("/dev/null"):
                outside.append(path)
            if where in ("data", "policy"):
                args[{"data": 1, "policy": 3}[where]] = path
            elif where == "-o":
                outputs = [p for p in outputs if p != args[7]]
                args[7] = path
            else:
                args += ["--report", path]
            if where in ("-o", "--report") and kind in ("missing", "empty"):
                outputs.append(path)  # (a new file, or an empty one replaced: both fine)
        run = assert_contract(folder, args, outputs=outputs, outside=outside, note=note)
        if run.code == 1:
            assert algorithm in MASKING, f"only a masking method exits 1\n{run.describe()}"
        if run.code == 0:
            draft = ["--allow-draft"] if "--allow-draft" in args else []
            release = Path(args[7])
            assert release.is_file(), run.describe()
            if algorithm != "safepub":  # (differential privacy: a property of the mechanism)
                recheck(folder, release, Path(args[3]), *draft)


def test_the_fuzz_draws_every_algorithm_with_the_policy_it_enforces(tmp_path):
    """The valid case of each algorithm is a release that passes (the fuzz starts from it)."""
    from tests.fuzz.harness import run_cli

    (tmp_path / "d.csv").write_bytes(BASE_CSV)
    for algorithm, (policy, _) in ALGORITHMS.items():
        (tmp_path / "p.yaml").write_bytes(dump_policy(policy))
        release = tmp_path / f"{algorithm}.csv"
        params = [x for p in REQUIRED_PARAMS.get(algorithm, []) for x in ("--param", p)]
        run = run_cli(
            [
                "anonymize",
                "d.csv",
                "-p",
                "p.yaml",
                "-a",
                algorithm,
                "-o",
                release,
                "--seed",
                "1",
                *params,
            ],
            tmp_path,
        )
        assert run.code in ((0, 1) if algorithm in MASKING else (0,)), run.describe()
        assert release.is_file()
