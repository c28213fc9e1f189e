"""Plain-text tables for the check report, laid out as Rich lays out ``Table(show_edge=False)``.

``privcheck check`` prints its verdict as text by default, and a pre-commit hook pays for that on
every commit. Importing Rich's console and table costs ~0.045 s of processor time — about a
tenth of a whole 1,000-row check, the difference between a check that costs no more than
``import pandas`` and one that does not (``benchmarks/startup.py``). The check report needs no
colour, markup or terminal detection, only aligned columns, so it is written here: each cell
padded by one space, columns separated by ``│`` (``┃`` in the header, ruled with ``━`` and
``╇``), text wrapped at spaces when the table is wider than the page — the widest columns give
way first, down to their longest word (a longer word is cut). The other reports, printed after
work that dwarfs the import, keep Rich.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass
class PlainTable:
    """Columns (header, justification) and rows of strings; ``render`` lays them out."""

    headers: list[str] = field(default_factory=list)
    right: list[bool] = field(default_factory=list)
    rows: list[Sequence[str]] = field(default_factory=list)

    def add_column(self, header: str, justify: str = "left") -> None:
        self.headers.append(header)
        self.right.append(justify == "right")

    def add_row(self, *cells: str) -> None:
        self.rows.append([str(cell) for cell in cells])

    def render(self, width: int) -> str:
        """The table within ``width`` characters (wider only when every column is at its
        longest word), lines without trailing blanks."""
        widths = self._widths(width)
        lines = [_line(self.headers, widths, self.right, "┃")]
        lines.append("╇".join("━" * (w + 2) for w in widths))
        for row in self.rows:
            wrapped = [_wrap(cell, w) for cell, w in zip(row, widths, strict=True)]
            for i in range(max(len(cell) for cell in wrapped)):
                parts = [cell[i] if i < len(cell) else "" for cell in wrapped]
                lines.append(_line(parts, widths, self.right, "│"))
        return "\n".join(line.rstrip() for line in lines)

    def _widths(self, width: int) -> list[int]:
        cells = [self.headers, *self.rows]
        natural = [max(len(row[j]) for row in cells) for j in range(len(self.headers))]
        shortest = [
            max(max((len(word) for word in row[j].split()), default=0) for row in cells)
            for j in range(len(self.headers))
        ]
        widths = list(natural)
        budget = width - 3 * len(widths) + 1  # one space each side, a separator between
        while sum(widths) > budget:
            j = max(range(len(widths)), key=lambda i: widths[i] - shortest[i])
            if widths[j] <= shortest[j]:
                break
            widths[j] -= 1
        return widths


def _wrap(text: str, width: int) -> list[str]:
    if len(text) <= width:
        return [text]
    return textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=False) or [""]


def _line(parts: Sequence[str], widths: list[int], right: list[bool], bar: str) -> str:
    cells = [
        (part.rjust(w) if r else part.ljust(w))
        for part, w, r in zip(parts, widths, right, strict=True)
    ]
    return bar.join(f" {cell} " for cell in cells)
