"""``privcheck compare`` on mutated originals, releases, policies, options and paths keeps the
contract; it exits 0 or 2 (the verdicts are in the report), and every release its JSON calls
``passed`` passes ``check`` with the policy and leaves out no more records than the policy's
suppression limit allows (a header-only release, or one that drops records, is no pass)."""

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
    HEADER,
    LOCK_KINDS,
    PATH_KINDS,
    POLICY,
    DataFile,
    PolicyFile,
    base_release,
    csv_files,
    data_files,
    dump_policy,
    locked_input,
    numbers,
    parquet_files,
    policy_files,
    release_table,
    special_path,
)

#: the releases a run compares: one that passes (shuffled, suppressed records left out), one in
#: the original's order with its suppressed records starred, and the raw table (fails)
RELEASES = {"r1.csv": lambda: base_release(), "r2.csv": lambda: base_release(star=True)}


@fuzz_settings(40)
@given(case=st.data())
def test_compare_keeps_the_contract(case):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        mutated = case.draw(
            st.sampled_from(["data", "release", "release", "policy", "options", "paths", "locked"]),
            label="mutated",
        )
        datafile = case.draw(data_files()) if mutated == "data" else DataFile("d.csv", BASE_CSV)
        policyfile = (
            case.draw(policy_files())
            if mutated == "policy"
            else PolicyFile("policy.yaml", dump_policy(POLICY))
        )
        data, policy = datafile.write(folder), policyfile.write(folder)
        notes = [repr(datafile), repr(policyfile)]
        names = case.draw(
            st.lists(st.sampled_from([*RELEASES, "raw"]), min_size=1, max_size=3, unique=True),
            label="releases",
        )
        releases: list[Path] = []
        encoding = datafile.options()
        for i, name in enumerate(names):
            if name == "raw":
                releases.append(data)
                continue
            content = RELEASES[name]()
            if mutated == "release" and i == 0:
                header, rows = release_table(content)
                mutated_release = case.draw(
                    st.one_of(
                        csv_files(name=name, base_rows=rows, base_header=header),
                        parquet_files(name=name.replace(".csv", ".parquet")),
                    ),
                    label="release",
                )
                notes.append(repr(mutated_release))
                releases.append(mutated_release.write(folder))
                encoding = encoding or mutated_release.options()
            else:
                (folder / name).write_bytes(content)
                releases.append(folder / name)
        args: list[object] = ["compare", data, *releases, "-p", policy, *encoding]
        fmt = case.draw(st.sampled_from([None, "json", "json", "text"]), label="format")
        if fmt is not None:
            args += ["-f", fmt]
        outputs, outside = [], []
        if case.draw(st.integers(0, 3), label="-o") == 0:
            outputs.append(folder / f"compare.{fmt or 'txt'}")
            args += ["-o", outputs[-1]]
        if mutated == "options":
            option = case.draw(
                st.sampled_from(
                    ["--target", "--target", "--test-share", "--seed", "--wide", "-f",
                     "--encoding", "--allow-draft"]
                )
            )  # fmt: skip
            if option == "--target":
                args += [option, case.draw(st.sampled_from([*HEADER, "nope", "", "$x_$"]))]
            elif option in ("--test-share", "--seed"):
                args += [option, case.draw(numbers())]
            elif option == "-f":
                args += [option, case.draw(st.sampled_from(["html", "github", "bogus", ""]))]
            elif option == "--encoding":
                args += [option, case.draw(st.sampled_from(["latin-1", "utf-16", "bogus", ""]))]
            else:
                args.append(option)
        elif mutated == "locked":  # (an ordinary user's permission errors: one line)
            i = case.draw(st.sampled_from([1, 2, args.index("-p") + 1]), label="locked input")
            path = Path(args[i])
            if path.exists():  # (the raw release is the data: moved already)
                args[i] = locked_input(folder, path, case.draw(st.sampled_from(LOCK_KINDS)))
        elif mutated == "paths":
            where = case.draw(st.sampled_from(["data", "release", "policy", "-o", "-o"]))
            kind = case.draw(st.sampled_from([*PATH_KINDS, "same as data", "same as policy"]))
            if kind == "same as data":
                path = data
            elif kind == "same as policy":
                path = policy
            else:
                path = special_path(folder, kind, "x.yaml" if where == "policy" else "x.csv")
            if path == Path("/dev/null"):
                outside.append(path)
            if where == "data":
                args[1] = path
            elif where == "release":
                args[2] = path
            elif where == "policy":
                args[args.index("-p") + 1] = path
            else:
                args += ["-o", path]
                outputs = [path] if kind in ("missing", "empty") else []
        run = assert_contract(folder, args, outputs=outputs, outside=outside, note="\n".join(notes))
        assert run.code in (0, 2), f"compare exits 0 or 2\n{run.describe()}"
        if run.code == 0 and "json" in args and "-o" not in args:
            _assert_passes_are_passes(folder, run, args)


def _assert_passes_are_passes(folder: Path, run, args: list[object]) -> None:
    """Every release the report calls ``passed`` passes ``check`` and keeps within the
    suppression limit; the recommended release is one of them."""
    report = json.loads(run.out)
    policy = Path(args[args.index("-p") + 1])
    original = Path(args[1])
    extra = [str(a) for a in args if a in ("--allow-draft",)]
    if "--encoding" in args:
        extra += ["--encoding", str(args[args.index("--encoding") + 1])]
    passing = [e["release"] for e in report["releases"] if e["passed"]]
    assert report["recommended"] in [*passing, None], run.describe()
    for name in passing:
        release = folder / name
        recheck(folder, release, policy, *extra)
        encoding = extra[extra.index("--encoding") + 1] if "--encoding" in extra else None
        assert_suppression_within_policy(original, release, policy, encoding)
