"""Which format a report file gets: the file's extension says it, ``--format`` may repeat it.

What a user reads must be what the name promises: a report written to ``report.html`` is an HTML
page, never JSON under an HTML name. So the extension decides — each output format names the
extensions that ask for it (``privcheck.output_formats``: ``.json`` → JSON, ``.html`` / ``.htm``
→ HTML, ``.txt`` / ``.text`` / ``.md`` → text, and a plugin's own) — and an explicit
``--format`` that contradicts it is refused, in one line, before anything is computed or written.

- ``privcheck anonymize --report FILE`` / ``privcheck check --report FILE``: the extension must
  name a format that renders the report (there is no ``--format`` for it); any other is refused.
- ``privcheck check|risk|compare --output FILE``: a known extension gives the format when
  ``--format`` is not given; an explicit ``--format`` must agree with it (GitHub annotations are
  text lines, so ``--format github`` goes with a text extension). A file with another extension
  (or none) is written in ``--format`` (default text), as before.

The formats a command accepts are the registered ones that render its kind of report; they are
looked up when an option is given, never at start-up (``privcheck --help`` loads no plugin).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from privcheck.errors import PolicyError


def _registry() -> dict:
    from privcheck.plugins import output_format_registry

    return output_format_registry()


def _names(kind: str) -> list[str]:
    return [name for name, fmt in _registry().items() if kind in fmt.kinds]


def _either(words: list[str]) -> str:
    """ "a, b or c" (a message's list of alternatives)."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def format_choice(kind: str) -> Callable[[str], str]:
    """The ``--format`` value check of a command that makes ``kind`` reports: one of the
    registered formats that render them. A wrong value is a usage error naming them all."""

    def registered(value: str) -> str:
        names = _names(kind)
        if value not in names:
            raise ValueError(f"{value!r} is not one of {', '.join(map(repr, names))}.")
        return value

    return registered


def format_of(path: str | Path, kind: str | None = None) -> str | None:
    """The format a file name asks for by its extension, or None when it names none. When
    several formats claim the extension, one that renders ``kind`` wins, the built-ins first."""
    suffix = Path(path).suffix.lower()
    claiming = [name for name, fmt in _registry().items() if suffix and suffix in fmt.suffixes]
    fitting = [name for name in claiming if kind is None or kind in _registry()[name].kinds]
    return (fitting or claiming or [None])[0]


def report_file_format(path: str | Path, kind: str, option: str = "--report") -> str:
    """The format of a report file whose format only its extension gives (refused otherwise)."""
    fmt = format_of(path, kind)
    if fmt is None or kind not in _registry()[fmt].kinds:
        suffix = Path(path).suffix or "no extension"
        names = "none" if fmt is None else f"{fmt}, which writes no {kind} report"
        known = [
            "/".join(_registry()[name].suffixes)
            for name in _names(kind)
            if _registry()[name].suffixes
        ]
        raise PolicyError(
            f"{option} {path}: the report's format follows the file's extension and "
            f"{suffix!r} names {names}; name it {_either(known)}"
        )
    return fmt


def output_format(
    path: str | Path | None,
    explicit: str | None,
    kind: str,
    command: str,
    option: str = "--output",
    default: str = "text",
) -> str:
    """The format ``privcheck COMMAND`` writes: ``explicit`` (``--format``) and the extension of
    ``path`` agreed, and one that renders ``kind`` reports."""
    inferred = None if path is None else format_of(path, kind)
    if explicit is None:
        chosen = inferred or default
    elif inferred is None or inferred == explicit or _both_text_lines(inferred, explicit):
        chosen = explicit
    else:
        raise PolicyError(
            f"--format {explicit} contradicts {option} {path}, whose extension means {inferred}; "
            f"drop --format (the extension decides) or name the file for {explicit}"
        )
    names = _names(kind)
    if chosen not in names:
        raise PolicyError(f"privcheck {command} writes {_either(names)}, not {chosen}")
    return chosen


def _both_text_lines(inferred: str, explicit: str) -> bool:
    """A text file's extension suits every format that writes plain lines (github in .md)."""
    registry = _registry()
    return registry[inferred].text_lines and explicit in registry and registry[explicit].text_lines
