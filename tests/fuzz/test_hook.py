"""``privcheck hook`` on mutated configs (globs of every shape, policies, keys, TOML text), data,
policies, file arguments and paths keeps the contract: it writes nothing, exits 0, 1 or 2, and
on 2 says one line per file it could not check (or one ``privcheck: error:`` line for a config
it could not read); a file it calls passed passes ``check`` with that policy."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.harness import assert_contract, fuzz_settings, recheck
from tests.fuzz.inputs import (
    BASE_CSV,
    GLOBS,
    LOCK_KINDS,
    PATH_KINDS,
    POLICY,
    DataFile,
    PolicyFile,
    SideFile,
    base_release,
    data_files,
    dump_policy,
    hook_configs,
    locked_input,
    policy_files,
    special_path,
)

#: a line of hook's stderr on exit 2: a config or draft policy it refused, or a file it could
#: not check (named, with the policy)
HOOK_ERROR = re.compile(r"privcheck: error: \S|.+: ERROR \(.+\): \S")
#: a passed file on stdout: ``FILE: passed (POLICY): …``
PASSED = re.compile(r"(.+): passed \((.+?)\): ")
VALID_CONFIG = b'[[check]]\nfiles = ["*.csv", "data/*.csv"]\npolicy = "policy.yaml"\n'


@fuzz_settings(40)
@given(case=st.data())
def test_hook_keeps_the_contract(case):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        mutated = case.draw(
            st.sampled_from(
                ["config", "config", "config", "data", "policy", "files", "options", "locked"]
            ),
            label="mutated",
        )
        datafile = case.draw(data_files()) if mutated == "data" else DataFile("d.csv", BASE_CSV)
        policyfile = (
            case.draw(policy_files(name="policy"))
            if mutated == "policy"
            else PolicyFile("policy.yaml", dump_policy(POLICY))
        )
        policy = policyfile.write(folder)
        if policy.name != "policy.yaml":  # (the config names policy.yaml)
            policy = policy.rename(folder / "policy.yaml")
        data = datafile.write(folder)
        (folder / "data").mkdir()
        (folder / "data" / "r.csv").write_bytes(base_release())
        config = (
            case.draw(hook_configs(), label="config")
            if mutated == "config"
            else SideFile("privcheck.toml", VALID_CONFIG)
        )
        config_path = config.write(folder)
        args: list[object] = ["hook", *datafile.options()]
        if config_path.name == "pyproject.toml" or case.draw(st.booleans(), label="-c"):
            args += ["-c", config_path]
        files = case.draw(
            st.sampled_from([[], [], [data], [data, folder / "data" / "r.csv"], ["nope.csv"]])
            if mutated != "files"
            else st.sampled_from([[], [data]]),
            label="files",
        )
        outside = []
        if mutated == "files":
            kind = case.draw(st.sampled_from([*PATH_KINDS, "policy", "config", "outside"]))
            if kind == "policy":
                path = policy
            elif kind == "config":
                path = config_path
            elif kind == "outside":
                path = Path("/etc/hostname")
            else:
                path = special_path(folder, kind, "x.csv")
            if path == Path("/dev/null"):
                outside.append(path)
            files = [*files, path]
        elif mutated == "options":
            option = case.draw(st.sampled_from(["-f", "-f", "--allow-draft", "--encoding"]))
            if option == "-f":
                args += [option, case.draw(st.sampled_from(["github", "json", "bogus", ""]))]
            elif option == "--encoding":
                args += [option, case.draw(st.sampled_from(["latin-1", "utf-16", "bogus", ""]))]
            else:
                args.append(option)
        if mutated == "locked":  # (an ordinary user's permission errors: a line per file)
            kind = case.draw(st.sampled_from(LOCK_KINDS), label="locked")
            target = case.draw(st.sampled_from([data, policy, folder / "data" / "r.csv"]))
            moved = locked_input(folder, target, kind)
            files = [moved if Path(f) == target else f for f in files]
        args += files
        notes = [repr(datafile), repr(policyfile), repr(config)]
        run = assert_contract(
            folder,
            args,
            outside=outside,
            note="\n".join(notes),
            error_lines=2 * len(files) + 4,
            error_line=HOOK_ERROR,
        )
        extra = ["--allow-draft"] if "--allow-draft" in args else []
        if "--encoding" in args:
            extra += ["--encoding", str(args[args.index("--encoding") + 1])]
        for line in run.out.splitlines():
            passed = PASSED.match(line)
            if passed:  # a file hook passes passes check with its policy
                recheck(folder, folder / passed[1], folder / passed[2], *extra)


@pytest.mark.parametrize("glob", GLOBS)
def test_every_glob_shape_keeps_the_contract(tmp_path, glob):
    """Each glob the fuzz draws from, alone in a valid config, over a folder of data: the shapes
    that once hung (``**/`` repeated, ``*a*a…b``) answer in time, a reversed class is one line."""
    (tmp_path / "policy.yaml").write_bytes(dump_policy(POLICY))
    (tmp_path / "d.csv").write_bytes(BASE_CSV)
    (tmp_path / "data" / "deep" / ("a" * 40)).mkdir(parents=True)
    (tmp_path / "data" / "r.csv").write_bytes(base_release())
    (tmp_path / "data" / "deep" / ("a" * 40) / "x.csv").write_bytes(base_release())
    config = f'[[check]]\nfiles = [{json.dumps(glob)}]\npolicy = "policy.yaml"\n'
    (tmp_path / "privcheck.toml").write_text(config)
    for files in ([], ["d.csv"]):
        assert_contract(tmp_path, ["hook", *files], error_lines=3, error_line=HOOK_ERROR)
