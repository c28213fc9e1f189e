"""``privcheck plugins`` keeps the contract: exit 0 with the table of plugins (quiet or not),
and an option it does not take is one line, exit 2."""

from __future__ import annotations

import pytest

from tests.fuzz.harness import assert_contract


@pytest.mark.parametrize("quiet", [True, False])
def test_plugins_lists_what_is_installed(tmp_path, quiet):
    run = assert_contract(tmp_path, ["plugins"], quiet=quiet)
    assert run.code == 0, run.describe()
    assert "privcheck plugins" in run.out and "k-anonymity" in run.out, run.describe()


@pytest.mark.parametrize("args", [["--bogus"], ["x"], ["-o", "x"], ["--format", "json"]])
def test_plugins_refuses_what_it_does_not_take(tmp_path, args):
    run = assert_contract(tmp_path, ["plugins", *args])
    assert run.code == 2, run.describe()
