"""``privcheck demo`` on every kind of ``--output-dir`` keeps the contract: a folder receives
the release and its report (exit 0: the demo's release passes its policy), anything else is
refused in one line with nothing written. Light: the Adult run itself takes seconds, so only
the one valid folder runs it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fuzz.harness import assert_contract
from tests.fuzz.inputs import PATH_KINDS, special_path

OUTPUTS = ("adult-release.csv", "adult-report.html")


@pytest.mark.parametrize(
    "kind", [*PATH_KINDS, "release is a folder", "report is a fifo", "report is a link"]
)
def test_demo_keeps_the_contract(tmp_path, kind):
    outside = []
    if kind == "release is a folder":  # (the folder is valid; an output inside it is not)
        (tmp_path / "out").mkdir()
        (tmp_path / "out" / OUTPUTS[0]).mkdir()
        path = tmp_path / "out"
    elif kind == "report is a fifo":
        (tmp_path / "out").mkdir()
        special_path(tmp_path / "out", "fifo", OUTPUTS[1])
        path = tmp_path / "out"
    elif kind == "report is a link":
        (tmp_path / "out").mkdir()
        (tmp_path / "target.html").write_text("mine\n")
        (tmp_path / "out" / OUTPUTS[1]).symlink_to(tmp_path / "target.html")
        path = tmp_path / "out"
    else:
        path = special_path(tmp_path, kind, "out")
    if path == Path("/dev/null"):
        outside.append(path)
    outputs = [path / name for name in OUTPUTS] if kind == "folder" else []
    run = assert_contract(
        tmp_path, ["demo", "--output-dir", path], outputs=outputs, outside=outside
    )
    assert run.code == (0 if kind == "folder" else 2), run.describe()
    if kind == "folder":
        assert all((path / name).is_file() for name in OUTPUTS), run.describe()
