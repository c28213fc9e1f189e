"""How an error names what is wrong in a file without repeating what the file says.

A file given in the wrong place — a secrets file or ``/etc/shadow`` named as the policy, a
credentials JSON as a transformation — must not have its content copied into a terminal, a CI
log or a GitHub annotation (``privcheck hook --format github``). So an error names the file and
where the problem is: the key when it reads as a name (``api_key``, ``models[0].k``), its line
and column when it does not (an ``/etc/shadow`` line read as a YAML key), and never the value
found there. The one exception is a policy's own fields: a number or boolean a policy gives a
field it knows (``k: 0``, ``k: true``, ``k: 010``) is shown, because the fix is to change exactly
that value; text is described by its kind ("a string"), never quoted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from privcheck.errors import listing

if TYPE_CHECKING:
    from pydantic import ValidationError

#: a key that reads as a name: word characters, and the few separators column names use
_NAME = re.compile(r"\w[\w .\-/()+#&]{0,63}")
#: a quoted segment of a parser's message (PyYAML, tomllib, json quote what they read)
_QUOTED = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")


def is_name(key: Any) -> bool:
    """Whether ``key`` may be shown in a message: a number, or a short string that reads as a
    name (no ``:``, ``$``, ``=`` or quotes, which a line of a credentials file carries)."""
    if isinstance(key, bool | int | float) or key is None:
        return True
    return isinstance(key, str) and _NAME.fullmatch(key) is not None and key == key.strip()


def shown_key(key: Any) -> str:
    """``key`` quoted as a message shows it, or a placeholder when it is not a name."""
    if not is_name(key):
        return "(a key that is not a plain name, not shown)"
    return repr(key) if isinstance(key, str) else str(key)


def shown_columns(columns: Sequence[Any], most: int = 20, *, as_list: bool = False) -> str:
    """The column names of a table for a message: names as they are, a column whose name is
    not a name (a credentials line read as a header) as a placeholder, at most ``most``
    (``as_list``: written as a Python list, ``['source', 'dst']``)."""
    names = [str(c) if is_name(c) else "(a name not shown)" for c in list(columns)[:most]]
    more = f" and {len(columns) - most} more" if len(columns) > most else ""
    return f"{names}{more}" if as_list else ", ".join(names) + more


def scrub(message: str) -> str:
    """A parser's message with every quoted segment that is not a name (or one character)
    replaced: PyYAML and tomllib quote tags, aliases and keys they read from the file."""

    def keep(match: re.Match[str]) -> str:
        inner = match.group()[1:-1]
        return match.group() if len(inner) <= 2 or is_name(inner) else "(text not shown)"

    return _QUOTED.sub(keep, message)


def locate(text: str | None, path: Sequence[Any]) -> tuple[int, int] | None:
    """(line, column), from 1, of the key or item at ``path`` (keys and list positions) in a
    YAML or JSON text; None when the text is not at hand or the path cannot be followed."""
    if not text or not path:
        return None
    import yaml

    # composing builds nodes and marks, which no loader's scalar rules change: the plain safe
    # loader finds the key where privcheck's YAML 1.2 reader (privcheck.limits) read it
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        node = yaml.compose(text, Loader=loader)
    except Exception:  # a text that did not parse this way: no position to give
        return None
    mark = None
    for part in path:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode) and key.value == str(part):
                    mark, node = key.start_mark, value
                    break
            else:
                return None
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if not 0 <= part < len(node.value):
                return None
            node = node.value[part]
            mark = node.start_mark
        else:
            return None
    return (mark.line + 1, mark.column + 1) if mark is not None else None


def describe_path(parts: Sequence[Any], text: str | None = None) -> str:
    """``models[0].k`` from ``("models", 0, "k")``; a key that is not a name is given by its
    position in ``text`` (``<key on line 1, column 1>``), never spelled out."""
    out = ""
    for i, part in enumerate(parts):
        if isinstance(part, int) and not isinstance(part, bool):
            out += f"[{part}]"
            continue
        if is_name(part):
            shown = str(part)
        else:
            where = locate(text, parts[: i + 1])
            shown = f"<key on line {where[0]}, column {where[1]}>" if where else "<key>"
        out += f".{shown}" if out else shown
    return out


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    return "nothing" if value is None else "another kind of value"


class Spelling(str):
    """A plain YAML scalar that YAML 1.1 reads as a number or a boolean and the YAML 1.2 core
    schema does not (``010``, ``1_000``, ``1:20``, ``0b101``, ``yes``): the text as written, and
    ``hint`` — how to write the number or boolean meant, for the refusal where one is expected.
    ``kind`` is ``"number"`` or ``"boolean"``: what YAML 1.1 would have made of it. Made by
    the YAML reader (``privcheck.limits``); defined here, where ``first_error`` shows its hint."""

    hint: str
    kind: str

    def __new__(cls, text: str, hint: str, kind: str) -> Spelling:
        out = super().__new__(cls, text)
        out.hint = hint
        out.kind = kind
        return out


#: the errors where a YAML 1.1 spelling's hint applies: a number (boolean) was expected
_SPELLING_ERRORS = {
    "number": frozenset({"int_type", "float_type", "int_parsing", "float_parsing"}),
    "boolean": frozenset({"bool_type", "bool_parsing"}),
}


def first_error(
    exc: ValidationError,
    prefix: str,
    *,
    text: str | None = None,
    show_numbers: bool = False,
) -> str:
    """The first problem of a validation error as ``prefix.path: what is wrong`` (and how many
    more there are), naming never quoting (see the module docstring).

    ``text`` is the file's text, to locate a key that is not a name; ``show_numbers`` shows a
    number or boolean found in a known field (a policy's), never in an unknown key's value."""
    errors = exc.errors()
    err = errors[0]
    parts = [p for p in err["loc"] if not str(p).startswith("function-")]
    msg = err["msg"].removeprefix("Value error, ")
    given = err.get("input")
    kind = err["type"]
    if kind == "union_tag_invalid":
        ctx = err.get("ctx") or {}
        msg = f"{ctx.get('discriminator', 'the tag')} must be one of {ctx.get('expected_tags')}"
    elif kind in ("model_type", "model_attributes_type", "dict_type"):
        msg = f"Input should be a mapping; got {_kind(given)}"
    elif kind == "extra_forbidden":
        msg = "unknown key (Extra inputs are not permitted); remove it or correct its spelling"
    elif isinstance(given, Spelling) and kind in _SPELLING_ERRORS[given.kind]:
        msg = f"{given} {given.hint}"
    elif kind not in ("value_error", "missing", "assertion_error"):
        if show_numbers and isinstance(given, bool | int | float):
            msg += f"; got {given!r}"
        elif kind.endswith("_type"):
            msg += f"; got {_kind(given)}"
    extra = f" ({len(errors) - 1} more problems)" if len(errors) > 1 else ""
    where = describe_path(parts, text)
    if msg.startswith("models["):  # already located by the model-entry validator
        return f"{msg}{extra}"
    if not where and prefix == "policy":  # a whole-policy check: its message says where
        return f"{msg}{extra}"
    located = f"{prefix}.{where}" if prefix and where else (prefix or where)
    return f"{located}: {msg}{extra}" if located else f"{msg}{extra}"


def syntax_error(exc: Exception, what: str, language: str) -> str:
    """One line for a text that does not parse: the file, the line and column, and the parser's
    problem with anything it quoted from the file left out (never the snippet PyYAML prints)."""
    mark = getattr(exc, "problem_mark", None)
    where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
    problem = getattr(exc, "problem", None) or (str(exc).splitlines() or ["malformed"])[0]
    return f"{what} is not valid {language}{where}: {scrub(problem)}"


#: open decisions a refusal names before it says how many more
DRAFT_NAMES_SHOWN = 10


def draft_message(open_reviews: dict[str, str], where: str | None = None) -> str:
    """The one line refusing a draft: the columns left for review and what to do."""
    names = list(open_reviews)
    what = f"{where} is a draft" if where else "the policy is a draft"
    return (
        f"{what}: {len(names)} column(s) still marked review ("
        f"{listing(names, DRAFT_NAMES_SHOWN)}); decide each one's role and delete its "
        "'review:' line, or pass --allow-draft (API: allow_draft=True) to run anyway — the "
        "report then says draft: true"
    )
