"""Every ```python block of the docs runs (per page, in order, from the repository root)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
#: the pages with python examples (a page without any has nothing to run, and is not a skip)
PAGES = [
    page
    for page in [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
    if BLOCK.search(page.read_text(encoding="utf-8"))
]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_docs_examples_run(page, monkeypatch, capsys):
    blocks = BLOCK.findall(page.read_text(encoding="utf-8"))
    monkeypatch.chdir(ROOT)
    namespace: dict = {"__name__": f"docs_{page.stem}"}
    for i, code in enumerate(blocks):
        try:
            exec(compile(code, f"{page.name}[block {i}]", "exec"), namespace)
        except Exception as exc:  # pragma: no cover - the message is the point
            raise AssertionError(f"{page.name}, example {i} failed: {exc!r}\n{code}") from exc
    assert os.getcwd() == str(ROOT)
