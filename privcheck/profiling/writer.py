"""The draft as files: the policy as YAML with a comment on every attribute line, and table
hierarchies in ARX's CSV format.

A YAML library would drop the comments, and the comments are the point: each attribute line
says why the column got its role (``# 99 % of 10,000 sampled values are e-mail addresses``).
What a person must decide is not a comment but data, the attribute's ``review:`` entry (which
every gate reads: a policy with one left is a draft). So the text is written here, in flow
style, one line per attribute; every string that is not a plain word is written as a
double-quoted scalar, and the result is parsed back with privcheck's own loader before anything
is written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: strings written without quotes in flow YAML (a word YAML 1.1 reads as a boolean or null is
#: quoted: ``no``, ``on``, ``null``)
_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-/]*")
_YAML_WORDS = frozenset(
    {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~", "Y", "N", "Yes", "No"}
    | {"On", "Off", "NULL", "Null", "TRUE", "True", "FALSE", "False", "YES", "NO", "ON", "OFF"}
)
#: characters PyYAML refuses in a stream, or reads as line breaks: escaped
_UNSAFE = re.compile(
    r"[^\t\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|[\u2028\u2029\ufeff]"
)


def _escape(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def scalar(value: Any) -> str:
    """One value in flow YAML."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, float):
        text = repr(value)  # YAML 1.1 reads 1e-05 as a string: a float needs its dot
        if "e" in text and "." not in text:
            text = text.replace("e", ".0e")
        return text
    if value is None:
        return "null"
    text = str(value)
    plain = _PLAIN.fullmatch(text) is not None  # (fullmatch: '$' would let "x\n" through)
    if plain and text not in _YAML_WORDS and text.casefold() not in _YAML_WORDS:
        return text
    quoted = json.dumps(text, ensure_ascii=False)  # JSON strings are YAML double-quoted scalars
    return _UNSAFE.sub(lambda m: _escape(m.group()), quoted)


def flow(value: Any) -> str:
    """A mapping, list or scalar in YAML flow style."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{scalar(k)}: {flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(flow(v) for v in value) + "]"
    return scalar(value)


def comment(text: str) -> str:
    """``text`` as a one-line YAML comment body (line breaks and unsafe characters escaped)."""
    text = " ".join(text.split("\n"))
    return _UNSAFE.sub(lambda m: _escape(m.group()), text).replace("\r", " ")


@dataclass
class AttributeLine:
    """One ``attributes:`` entry and its comment."""

    name: str
    entry: dict[str, Any]
    comment: str


@dataclass
class ModelLine:
    entry: dict[str, Any]
    comment: str = ""


@dataclass
class IndividualLine:
    """The ``individual:`` line (the column that identifies the person) and its comment."""

    name: str
    comment: str


def policy_yaml(
    attributes: Sequence[AttributeLine],
    models: Sequence[ModelLine],
    *,
    suppression_limit: float,
    missing: str | None = None,
    missing_comment: str = "",
    header: Sequence[str] = (),
    individual: IndividualLine | None = None,
) -> str:
    """The policy text: header comments, the individual (if any), one line per attribute and
    per model."""
    lines = [f"# {comment(h)}" if h else "#" for h in header]
    if individual is not None:
        text = f"individual: {scalar(individual.name)}"
        if individual.comment:
            text += f"  # {comment(individual.comment)}"
        lines.append(text)
    lines.append("attributes:")
    keys = [scalar(a.name) + ":" for a in attributes]
    width = min(max((len(k) for k in keys), default=0), 28)
    for key, attr in zip(keys, attributes, strict=True):
        text = f"  {key.ljust(width)} {flow(attr.entry)}"
        if attr.comment:
            text += f"  # {comment(attr.comment)}"
        lines.append(text)
    lines.append("models:")
    for model in models:
        text = f"  - {flow(model.entry)}"
        if model.comment:
            text += f"  # {comment(model.comment)}"
        lines.append(text)
    if not models:
        lines[-1] = "models: []"
    lines.append(f"suppression_limit: {scalar(suppression_limit)}")
    if missing is not None:
        text = f"missing: {missing}"
        if missing_comment:
            text += f"  # {comment(missing_comment)}"
        lines.append(text)
    return "\n".join(lines) + "\n"


def hierarchy_csv(rows: Sequence[Sequence[str]], sep: str = ";") -> str:
    """A table hierarchy in ARX's format: one row per ground value, levels separated by
    ``sep``, no header, no quoting (the caller chose a ``sep`` no value holds)."""
    return "".join(sep.join(row) + "\n" for row in rows)
