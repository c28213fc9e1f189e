"""``privcheck check`` on mutated data, policies, options and paths keeps the contract."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.harness import assert_contract, fuzz_settings
from tests.fuzz.inputs import (
    BASE_CSV,
    LOCK_KINDS,
    PATH_KINDS,
    POLICY,
    DataFile,
    PolicyFile,
    data_files,
    dump_policy,
    locked_input,
    numbers,
    policy_files,
    special_path,
)

#: path kinds an output may be written to (the others must be refused)
WRITABLE = ("missing", "empty")
FORMATS = [None, None, "text", "json", "json", "github", "html"]


@fuzz_settings(60)
@given(case=st.data())
def test_check_keeps_the_contract(case):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        mutated = case.draw(
            st.sampled_from(["data", "data", "policy", "policy", "options", "paths", "locked"]),
            label="mutated",
        )
        datafile = case.draw(data_files()) if mutated == "data" else DataFile("d.csv", BASE_CSV)
        policyfile = (
            case.draw(policy_files())
            if mutated == "policy"
            else PolicyFile("policy.yaml", dump_policy(POLICY))
        )
        data, policy = datafile.write(folder), policyfile.write(folder)
        args: list[object] = ["check", data, "-p", policy, *datafile.options()]
        outputs: list[Path] = []
        outside: list[Path] = []
        fmt = case.draw(st.sampled_from(FORMATS), label="format")
        if fmt is not None:
            args += ["-f", fmt]
        if case.draw(st.booleans(), label="-o"):
            suffix = {None: ".txt", "text": ".txt", "github": ".txt"}.get(fmt, f".{fmt}")
            outputs.append(folder / f"report{suffix}")
            args += ["-o", outputs[-1]]
        if case.draw(st.integers(0, 4), label="--report") == 0:
            outputs.append(folder / case.draw(st.sampled_from(["r.json", "r.txt", "r.html"])))
            args += ["--report", outputs[-1]]
        if mutated == "options":
            args += case.draw(
                st.lists(
                    st.one_of(
                        st.tuples(st.just("--max-violators"), numbers()),
                        st.tuples(st.just("--max-groups"), numbers()),
                        st.tuples(st.just("--explain-max-size"), numbers()),
                        st.tuples(st.just("--explain"), st.just(None)),
                        st.tuples(st.just("--allow-empty"), st.just(None)),
                        st.tuples(st.just("--allow-draft"), st.just(None)),
                        st.tuples(st.just("--format"), st.sampled_from(["bogus", "", "HTML"])),
                        st.tuples(st.just("--engine"), st.sampled_from(["polars", "duckdb"])),
                        st.tuples(st.just("--encoding"), st.sampled_from(["bogus", "", "rot13"])),
                        st.tuples(st.just("--linked-with"), st.just(str(data))),
                    ),
                    min_size=1,
                    max_size=3,
                ).map(lambda pairs: [x for pair in pairs for x in pair if x is not None]),
                label="options",
            )
        elif mutated == "locked":  # (an ordinary user's permission errors: one line)
            i = case.draw(st.sampled_from([1, 3]), label="locked input")
            args[i] = locked_input(folder, Path(args[i]), case.draw(st.sampled_from(LOCK_KINDS)))
        elif mutated == "paths":
            where = case.draw(
                st.sampled_from(["data", "policy", "-o", "-o", "--report", "--linked-with"]),
                label="where",
            )
            kind = case.draw(st.sampled_from([*PATH_KINDS, "same as data", "same as policy"]))
            if kind == "same as data":
                path = data
            elif kind == "same as policy":
                path = policy
            else:
                path = special_path(folder, kind, "x.csv" if where != "policy" else "x.yaml")
            if path == Path("/dev/null"):
                outside.append(path)
            if where == "data":
                args[1] = path
            elif where == "policy":
                args[3] = path
            else:
                args += [where, path]
                if kind in WRITABLE and where in ("-o", "--report"):
                    outputs.append(path)  # (a new file, or an empty one replaced: both fine)
        run = assert_contract(
            folder,
            args,
            outputs=outputs,
            outside=outside,
            quiet=case.draw(st.booleans(), label="quiet"),
            note=f"{datafile!r}\n{policyfile!r}",
        )
        if run.code in (0, 1) and fmt == "json" and "-o" not in args:
            report = json.loads(run.out)  # the JSON printed says what the exit code says
            assert report["passed"] is (run.code == 0), run.describe()
