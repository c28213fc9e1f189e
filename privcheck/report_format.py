"""Which format a report file gets: the file's extension says it, ``--format`` may repeat it.

What a user reads must be what the name promises: a report written to ``report.html`` is an HTML
page, never JSON under an HTML name. So the extension decides (``.json`` → JSON, ``.html`` /
``.htm`` → HTML, ``.txt`` / ``.md`` / ``.text`` → text) and an explicit ``--format`` that
contradicts it is refused, in one line, before anything is computed or written.

- ``privcheck anonymize --report FILE``: the extension must be one of those (there is no
  ``--format`` for the report); any other is refused.
- ``privcheck check --output FILE`` / ``privcheck risk --output FILE``: a known extension gives the
  format when ``--format`` is not given; an explicit ``--format`` must agree with it (GitHub
  annotations are text, so ``--format github`` goes with a text extension). A file with another
  extension (or none) is written in ``--format`` (default text), as before.
"""

from __future__ import annotations

from pathlib import Path

from privcheck.errors import PolicyError

#: extension → format
EXTENSIONS: dict[str, str] = {
    ".json": "json",
    ".html": "html",
    ".htm": "html",
    ".txt": "text",
    ".text": "text",
    ".md": "text",
}
#: formats written as plain text lines (a text extension suits them)
TEXT_LIKE = frozenset({"text", "github"})


def _known() -> str:
    return ".json, .html/.htm or .txt/.md"


def format_of(path: str | Path) -> str | None:
    """The format a file name asks for, or None when its extension names none."""
    return EXTENSIONS.get(Path(path).suffix.lower())


def report_file_format(path: str | Path, option: str = "--report") -> str:
    """The format of a report file whose format only its extension gives (refused otherwise)."""
    fmt = format_of(path)
    if fmt is None:
        suffix = Path(path).suffix or "no extension"
        raise PolicyError(
            f"{option} {path}: the report's format follows the file's extension and "
            f"{suffix!r} names none; name it {_known()}"
        )
    return fmt


def output_format(
    path: str | Path | None, explicit: str | None, option: str = "--output", default: str = "text"
) -> str:
    """The format to write: ``explicit`` (``--format``) and the extension of ``path`` agreed."""
    inferred = None if path is None else format_of(path)
    if explicit is None:
        return inferred or default
    if inferred is None or inferred == explicit:
        return explicit
    if inferred == "text" and explicit in TEXT_LIKE:
        return explicit
    raise PolicyError(
        f"--format {explicit} contradicts {option} {path}, whose extension means {inferred}; "
        f"drop --format (the extension decides) or name the file for {explicit}"
    )
