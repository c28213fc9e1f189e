"""Python's cyclic garbage collector while a command starts.

A command's start-up imports numpy, pyarrow, pydantic, typer … and builds its models and
options: a few hundred thousand objects, all of which live until the process ends. With the
default thresholds the collector walks them over a hundred times before any data is read — a
tenth of a small check's CPU. ``defer`` raises the first generation's threshold while the
command starts; ``resume``, called as soon as the data work begins (``privcheck.io.read_table``),
freezes what start-up made (``gc.freeze``: later collections no longer walk it) and restores the
thresholds found before, so that the reference cycles a computation leaves behind are collected
as usual and cannot hold a large table longer than they would have. ``release`` (when the
command ends) unfreezes: a process that runs several commands (a test, a notebook) can still
collect what they left. ``paused`` holds the collector off for a block that makes no cycles
(MinGen's search).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: first-generation threshold while a command starts (the default is 700 allocations)
STARTUP_THRESHOLD = 200_000

_before: tuple[int, int, int] | None = None
_frozen = False


def defer() -> None:
    """Collect rarely until ``resume``: the objects a start-up makes are not garbage."""
    global _before
    if _before is None:
        _before = gc.get_threshold()
        gc.set_threshold(max(STARTUP_THRESHOLD, _before[0]), _before[1], _before[2])


def resume() -> None:
    """Freeze the objects made so far and restore the thresholds ``defer`` found (nothing if it
    was not called)."""
    global _before, _frozen
    if _before is not None:
        gc.freeze()
        _frozen = True
        gc.set_threshold(*_before)
        _before = None


def release() -> None:
    """End of the command: thresholds as before, frozen objects collectable again."""
    global _frozen
    resume()
    if _frozen:
        gc.unfreeze()
        _frozen = False


@contextmanager
def paused() -> Iterator[None]:
    """Python's cyclic garbage collector held off for the block (then restored as it was).

    A lattice search allocates a few small objects per node (a class table, its verdict, the
    tuples naming it), none of them in reference cycles — reference counting frees them all —
    but every few hundred allocations the collector still walks the young objects, and now and
    then every object of the process (a loaded DataFrame's included): on Adult with 1 %
    suppression that is ~5 % of the search and most of its run-to-run spread. Whatever cyclic
    garbage the block makes is collected at the next collection after it."""
    enabled = gc.isenabled()
    if enabled:
        gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
