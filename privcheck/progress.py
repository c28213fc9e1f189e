"""Progress bars for long steps: shown on a terminal, silent in pipes, CI logs and with --quiet.

One helper for every long-running command (checks of large tables, anonymizer searches), so all
of them obey the same switches: ``configure(quiet=True)`` (the CLI's ``--quiet``) turns every bar
off, and a bar is only drawn when stderr is a terminal, so logs and captured output stay clean.

>>> with progress(total=10, description="searching") as bar:   # doctest: +SKIP
...     for node in nodes:
...         bar.advance()
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

_state = {"quiet": False}


def configure(*, quiet: bool) -> None:
    """Turn progress bars off (``quiet=True``) or back to automatic for the whole process."""
    _state["quiet"] = quiet


def is_quiet() -> bool:
    return _state["quiet"]


def should_show() -> bool:
    """Bars are shown only when not quiet and stderr is an interactive terminal."""
    stream = sys.stderr
    return not _state["quiet"] and bool(getattr(stream, "isatty", lambda: False)())


class Bar:
    """What ``progress`` yields: ``advance`` and ``describe``; a no-op when disabled."""

    def __init__(self, rich_progress=None, task=None) -> None:
        self._progress = rich_progress
        self._task = task
        self.completed = 0

    @property
    def enabled(self) -> bool:
        return self._progress is not None

    def advance(self, n: float = 1) -> None:
        self.completed += n
        if self._progress is not None:
            self._progress.advance(self._task, n)

    def update(self, completed: float, total: float | None = None) -> None:
        """Set the position (and the total, when a search learns it as it goes)."""
        self.completed = completed
        if self._progress is not None:
            self._progress.update(self._task, completed=completed, total=total)

    def describe(self, description: str) -> None:
        if self._progress is not None:
            self._progress.update(self._task, description=description)


@contextmanager
def progress(total: float | None, description: str, enabled: bool | None = None) -> Iterator[Bar]:
    """A progress bar over ``total`` steps (None: unknown), removed when the block ends.

    ``enabled=None`` decides automatically (see ``should_show``); ``False`` never shows it;
    ``True`` shows it unless the process is quiet.
    """
    show = should_show() if enabled is None else (enabled and not _state["quiet"])
    if not show:
        yield Bar()
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    columns = [
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    ]
    with Progress(*columns, console=Console(stderr=True), transient=True) as rich_progress:
        task = rich_progress.add_task(description, total=total)
        yield Bar(rich_progress, task)
