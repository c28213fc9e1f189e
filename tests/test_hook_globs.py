"""`privcheck.toml` globs: the linear-time matcher against a regular-expression oracle.

The oracle is the translation the hook used before (``**/`` → ``(?:[^/]*/)*``, ``**`` → ``.*``,
``*`` → ``[^/]*``, ``?`` → ``[^/]``, classes never matching ``/``): right, but exponential on
``*a*a…b`` or repeated ``**/``. On random short globs and paths the two must agree everywhere;
on the shapes that made the oracle backtrack, the matcher must stay fast.
"""

from __future__ import annotations

import os
import random
import re
import time
from pathlib import Path

import pytest

from privcheck.hook import BadGlob, compile_glob


def oracle(glob: str) -> re.Pattern[str]:
    out, i = [], 0
    while i < len(glob):
        c = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:[^/]*/)*")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[" and (end := _class_end(glob, i)) is not None:
            negated = glob[i + 1] == "!"
            body = glob[i + 1 + negated : end]
            parts, k = [], 0
            while k < len(body):
                if k + 2 < len(body) and body[k + 1] == "-":
                    parts.append(f"{re.escape(body[k])}-{re.escape(body[k + 2])}")
                    k += 3
                else:
                    parts.append(re.escape(body[k]))
                    k += 1
            out.append("(?!/)[" + ("^" if negated else "") + "".join(parts) + "]")
            i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("".join(out), re.S)


def _class_end(glob: str, start: int) -> int | None:
    j = start + 1
    j += j < len(glob) and glob[j] == "!"
    j += j < len(glob) and glob[j] == "]"
    end = glob.find("]", j)
    return None if end < 0 else end


def test_the_matcher_agrees_with_the_regular_expressions_on_random_globs():
    rng = random.Random(30)
    compared = 0
    for _ in range(6000):
        glob = "".join(rng.choice("ab/*?[]!-.x") for _ in range(rng.randint(1, 9)))
        try:
            matcher = compile_glob(glob)
        except BadGlob:
            continue
        try:
            expected = oracle(glob)
        except re.error:  # (a class the oracle cannot spell, e.g. an empty range)
            continue
        for _ in range(6):
            path = "".join(rng.choice("ab/.x-]") for _ in range(rng.randint(0, 9)))
            assert matcher.fullmatch(path) == bool(expected.fullmatch(path)), (glob, path)
            compared += 1
    assert compared > 20_000


@pytest.mark.parametrize(
    "glob, path, hit",
    [
        ("**/" * 50 + "a.csv", "x/y/z/a.csv", True),
        ("**/**/*.csv", "a.csv", True),
        ("***.csv", "x/y.csv", True),  # ``**`` then ``*``: anything
        ("**/*", "", True),  # as the regular expression: no folders, an empty name
        ("a/**", "a/", True),
        ("[]].csv", "].csv", True),
        ("[!]].csv", "].csv", False),
        ("[!]].csv", "x.csv", True),
        ("[a-c]?", "b/", False),  # ``?`` and classes never match a slash
        ("[!a]", "/", False),
        ("x[", "x[", True),  # an unclosed bracket is a character
        ("*a" * 40 + "b", "a" * 200, False),
        ("*a" * 40 + "b", "a" * 200 + "b", True),
    ],
)
def test_glob_shapes(glob, path, hit):
    assert compile_glob(glob).fullmatch(path) is hit


@pytest.mark.parametrize(
    "glob",
    ["**/" * 500 + "x", "*a" * 500 + "b", "**/*a" * 200 + "/b", "[!z]*" * 300 + "q"],
)
def test_backtracking_shapes_cost_what_they_are_long(glob):
    matcher = compile_glob(glob)
    started = time.process_time()
    for path in ("a" * 300, "a/" * 150, ("a" * 50 + "/") * 6):
        matcher.fullmatch(path)
        matcher.may_match_below(path)
    assert time.process_time() - started < 5  # milliseconds; the regex took minutes


def test_a_reversed_range_is_refused_naming_where():
    with pytest.raises(BadGlob, match="reversed character range at character 7"):
        compile_glob("data/[z-a].csv")


def test_folders_no_glob_reaches_are_not_walked():
    matcher = compile_glob("releases/**/*.csv")
    assert matcher.may_match_below("releases")
    assert matcher.may_match_below("releases/2026/q1")
    assert not matcher.may_match_below("node_modules")
    assert compile_glob("**/*.csv").may_match_below("anything/at/all")


def test_an_unreadable_folder_is_an_error_not_a_silent_skip(tmp_path, monkeypatch):
    """Without file arguments the hook walks the config's folder: a folder it cannot read would
    hide files from the gate, so it is bad input (exit 2), not a pass."""
    from privcheck.errors import DataError
    from privcheck.hook import HookConfig, Rule, all_files

    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "a.csv").write_text("x\n1\n")
    real_scandir = os.scandir

    def scandir(path="."):
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    config = HookConfig(tmp_path, (Rule(("**/*.csv",), tmp_path / "p.yaml"),), tmp_path / "t")
    with pytest.raises(DataError, match=r"cannot read the folder .*locked.*Permission denied"):
        all_files(config)
