"""Stopping on a signal the way Ctrl-C stops: unwinding, so no half-written output is left.

Python turns SIGINT into ``KeyboardInterrupt``, which unwinds the stack: ``privcheck.io`` removes
its temporaries (``.NAME.XXXX.tmp``) on the way out. Every other signal whose default action ends
the process — SIGTERM from a scheduler, ``timeout`` or ``kill``, SIGHUP when the terminal or the
SSH session closes, SIGQUIT, SIGUSR1/2, SIGALRM, SIGXCPU (a CPU-time limit) … — killed it on the
spot and left the hidden temporary behind. ``install`` (the CLI calls it first thing) makes each
of them raise ``Interrupted``, a ``KeyboardInterrupt``, so they take the same path; the command
then exits with 128 + the signal's number, as a shell reports a process the signal killed.
A signal the process inherited as ignored (``nohup`` ignores SIGHUP) stays ignored.

The few steps that must not be cut in half — creating a temporary and recording it for removal,
renaming the outputs into place, removing temporaries — run inside ``uninterrupted()``: a signal
arriving then is remembered and raised when the step ends. Once one signal has been raised, later
ones are only remembered: a second Ctrl-C or SIGTERM cannot cut the cleanup the first one began.
SIGKILL cannot be caught; nothing can clean up after it.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

#: signals whose default action ends the process and that a program may catch
STOP_SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name)
    for name in (
        "SIGINT",
        "SIGTERM",
        "SIGHUP",
        "SIGQUIT",
        "SIGUSR1",
        "SIGUSR2",
        "SIGALRM",
        "SIGVTALRM",
        "SIGPROF",
        "SIGXCPU",
        "SIGIO",
        "SIGPWR",
    )
    if hasattr(signal, name)
)


class Interrupted(KeyboardInterrupt):
    """A stop signal, raised where the program was: every ``except BaseException`` cleanup and
    ``finally`` on the way out runs, as for Ctrl-C."""

    def __init__(self, signum: int) -> None:
        self.signum = int(signum)
        super().__init__(signal.Signals(self.signum).name)

    @property
    def exit_code(self) -> int:
        """128 + the signal's number: what a shell shows for a process the signal ended."""
        return 128 + self.signum


class _State:
    depth = 0  # nesting of uninterrupted() blocks
    pending: int | None = None  # a signal that arrived inside one
    stopping = False  # an Interrupted has been raised: later signals wait
    raised: int | None = None  # the signal that was raised


def _on_signal(signum: int, frame: FrameType | None) -> None:
    if _State.depth or _State.stopping:
        if _State.pending is None:
            _State.pending = signum
        return
    _State.stopping, _State.raised = True, signum
    raise Interrupted(signum)


def stopped_by() -> int | None:
    """The stop signal raised since ``install``, if any."""
    return _State.raised


def install() -> dict[int, Any]:
    """Route every stop signal the process does not ignore to ``Interrupted`` (main thread
    only, as Python requires; a second call resets the state). Returns the handlers replaced,
    for ``restore``."""
    _State.depth, _State.pending, _State.stopping, _State.raised = 0, None, False, None
    replaced: dict[int, Any] = {}
    for signum in STOP_SIGNALS:
        try:
            current = signal.getsignal(signum)
            if current in (signal.SIG_DFL, signal.default_int_handler, _on_signal):
                signal.signal(signum, _on_signal)
                replaced[signum] = current
        except (ValueError, OSError):  # not the main thread, or a signal this system refuses
            continue
    return replaced


def restore(replaced: dict[int, Any]) -> None:
    """Put back the handlers ``install`` replaced (a CLI run inside a test process)."""
    for signum, handler in replaced.items():
        try:
            signal.signal(signum, handler)
        except (ValueError, OSError):
            continue


@contextmanager
def uninterrupted() -> Iterator[None]:
    """Hold back stop signals for the block; one that arrived is raised when it ends."""
    _State.depth += 1
    try:
        yield
    finally:
        _State.depth -= 1
        if not _State.depth and _State.pending is not None and not _State.stopping:
            signum, _State.pending = _State.pending, None
            _State.stopping, _State.raised = True, signum
            raise Interrupted(signum)
