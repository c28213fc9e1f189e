"""Garbled command lines keep the contract: any command with arguments drawn from every
command's options and from values of every kind (missing, repeated, in the wrong place, empty,
``-``, ``--``, huge) exits 0, 1 or 2, and a usage error is one line naming where help is —
never Click's multi-line usage block or a traceback."""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.harness import assert_contract, fuzz_settings
from tests.fuzz.inputs import BASE_CSV, POLICY, base_release, dump_policy

#: the commands but demo (its valid run takes seconds on Adult: test_demo covers it)
COMMANDS = ["check", "anonymize", "apply", "risk", "compare", "init", "hook", "schema", "plugins"]
#: options of every command, global ones included, and words that are none
OPTIONS = [
    "-p", "--policy", "-o", "--output", "-f", "--format", "-a", "--algorithm", "--seed",
    "--param", "--report", "--explain", "--explain-max-size", "--max-violators", "--engine",
    "--keep-order", "--previous", "-t", "--transformation", "--original", "--masked",
    "--control", "--attack", "--intruder-records", "--tags", "--k", "--l", "--suppression",
    "--hierarchies", "--force", "-c", "--config", "--verdict", "--target", "--test-share",
    "--wide", "--allow-draft", "--encoding", "--linked-with", "--allow-empty", "-q", "-v",
    "--help", "--version", "--", "-", "-x", "--bogus", "--output=", "--seed=1",
]  # fmt: skip
#: values: the folder's files (inputs and the outputs a run may write), words, numbers, odd text
VALUES = [
    "d.csv", "d.csv", "policy.yaml", "policy.yaml", "r.csv", "out.csv", "out.json", "nope.csv",
    ".", "", " ", "-", "k-anonymity", "mingen", "dbrl", "json", "html", "text", "1", "0", "-1",
    "nan", "1e999", "x" * 5000, "\x00", "é", "$x_$", "a=1", "k=2",
]  # fmt: skip
#: files a run may write (everything else in the folder is an input)
OUTPUTS = ["out.csv", "out.json", "schemas", "hierarchies"]
OUTPUT_OPTIONS = ("-o", "--output", "--report", "--hierarchies")


@fuzz_settings(60)
@given(case=st.data())
def test_garbled_command_lines_keep_the_contract(case):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "d.csv").write_bytes(BASE_CSV)
        (folder / "r.csv").write_bytes(base_release())
        (folder / "policy.yaml").write_bytes(dump_policy(POLICY))
        command = case.draw(st.sampled_from(COMMANDS), label="command")
        tokens = case.draw(
            st.lists(st.sampled_from([*OPTIONS, *VALUES]), max_size=8), label="tokens"
        )
        head = case.draw(st.sampled_from([[], [], ["-q"], ["-v"], ["-q", "-v"], ["--bogus"]]))
        # (a file named after an output option may be replaced: whether it is an input of
        # this command is what the per-command fuzz tests assert)
        named = [b for a, b in itertools.pairwise(tokens) if a in OUTPUT_OPTIONS]
        run = assert_contract(
            folder, [*head, command, *tokens], outputs=[*OUTPUTS, *named], quiet=False
        )
        if run.code == 2:
            assert "Usage:" not in run.err, run.describe()
