"""``privcheck init`` on mutated data, tags files, options and paths keeps the contract; it exits
0 or 2, never overwrites a file without ``--force``, and the draft it writes with exit 0 is a
policy ``check`` runs on the same data (``--allow-draft``: exit 0 or 1, never 2)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.harness import assert_contract, fuzz_settings
from tests.fuzz.inputs import (
    BASE_CSV,
    HEADER,
    LOCK_KINDS,
    PATH_KINDS,
    ROWS,
    DataFile,
    csv_text,
    data_files,
    locked_input,
    numbers,
    special_path,
    tag_files,
)

#: a table wider than init profiles (500 columns): refused before the work, in one line
WIDE_CSV = csv_text(
    [*HEADER, *(f"c{i}" for i in range(500))],
    [[*r, *(str(i % 7) for i in range(500))] for r in ROWS],
).encode()


@fuzz_settings(40)
@given(case=st.data())
def test_init_keeps_the_contract(case):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        mutated = case.draw(
            st.sampled_from(["data", "data", "tags", "tags", "options", "paths", "wide", "locked"]),
            label="mutated",
        )
        datafile = case.draw(data_files()) if mutated == "data" else DataFile("d.csv", BASE_CSV)
        if mutated == "wide":
            datafile = DataFile("d.csv", WIDE_CSV)
        data = datafile.write(folder)
        notes = [repr(datafile)]
        suffix = case.draw(st.sampled_from([".yaml", ".yaml", ".yml", ".json"]), label="suffix")
        output = folder / f"policy{suffix}"
        args: list[object] = ["init", data, "-o", output, *datafile.options()]
        hierarchies = folder / "hierarchies"
        tags = None
        if mutated == "tags" or case.draw(st.integers(0, 5), label="tags") == 0:
            tagfile = case.draw(tag_files(), label="tags file")
            notes.append(repr(tagfile))
            tags = tagfile.write(folder)
            args += ["--tags", tags]
        args += case.draw(st.sampled_from([[], [], ["-f", "json"], ["-f", "text"]]))
        outputs, outside = [output, hierarchies], []
        if mutated == "options":
            option = case.draw(
                st.sampled_from(
                    ["--k", "--l", "--suppression", "--suppression", "-f", "--force", "--encoding"]
                )
            )
            if option in ("--k", "--l", "--suppression"):
                args += [option, case.draw(numbers())]
            elif option == "-f":
                args += [option, case.draw(st.sampled_from(["html", "bogus", ""]))]
            elif option == "--encoding":
                args += [option, case.draw(st.sampled_from(["latin-1", "utf-16", "bogus", ""]))]
            else:
                args.append(option)
        elif mutated == "locked":  # (an ordinary user's permission errors: one line)
            kind = case.draw(st.sampled_from(LOCK_KINDS), label="locked")
            args[1] = locked_input(folder, data, kind)
        elif mutated == "paths":
            where = case.draw(st.sampled_from(["data", "-o", "-o", "--hierarchies", "--tags"]))
            kind = case.draw(
                st.sampled_from([*PATH_KINDS, "same as data", "exists", "exists", "-"])
            )
            force = case.draw(st.booleans(), label="--force")
            if force:
                args.append("--force")
            if kind == "same as data":
                path = data
            elif kind == "exists":  # a file init must not replace without --force
                path = folder / f"old{suffix}"
                path.write_bytes(b"attributes: {}\n")
            elif kind == "-":
                path = Path("-")
            else:
                path = special_path(folder, kind, "x.yaml" if where != "data" else "x.csv")
            if path == Path("/dev/null"):
                outside.append(path)
            if where == "data":
                args[1] = path
            elif where == "-o":
                args[3] = path
                outputs = [hierarchies]
                if kind in ("missing", "empty") or (kind == "exists" and force):
                    outputs.append(path)
            elif where == "--hierarchies":
                args += [where, path]
                outputs = [output]
                if kind in ("missing", "folder") or (kind == "exists" and force):
                    outputs.append(path)
            else:
                args += [where, path]
        run = assert_contract(folder, args, outputs=outputs, outside=outside, note="\n".join(notes))
        assert run.code in (0, 2), f"init exits 0 or 2\n{run.describe()}"
        if run.code == 0:
            policy = Path(args[3])
            assert policy.is_file(), run.describe()
            encoding = datafile.options()
            if "--encoding" in args:
                encoding = ["--encoding", str(args[args.index("--encoding") + 1])]
            check = assert_contract(
                folder, ["check", args[1], "-p", policy, "--allow-draft", *encoding]
            )
            assert check.code in (0, 1), f"the draft does not run\n{run.describe()}"
