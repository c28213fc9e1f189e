"""Range checks for the numbers a user writes: policy files and ``--param key=value``.

Python reads an integer of any size, and YAML/JSON parsers stop with a bare ``ValueError`` on one
longer than 4,300 digits. Either way a number no machine type holds must be refused up front, in
one line naming the field, never left to overflow inside numpy (or to end in a traceback). Every
integer a policy or a parameter may carry (k, l, c, steps, positions, widths …) fits in a signed
64-bit integer, so that is the accepted range.

Booleans are spelled ``true``/``false``, ``yes``/``no`` or ``1``/``0`` (any case): YAML reads
``maybe`` as the string "maybe", which Python would treat as true, so a boolean parameter checks
its value here instead of trusting truthiness.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from privcheck.errors import PolicyError

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
#: integers up to this many digits are parsed; longer ones are out of range whatever their value
_MAX_DIGITS = 40

#: accepted spellings of a boolean parameter (compared case-insensitively)
TRUE_WORDS = frozenset({"true", "yes", "1"})
FALSE_WORDS = frozenset({"false", "no", "0"})


class HugeInt(str):
    """An integer literal too long to parse; kept as its text so the field can be named."""

    def __repr__(self) -> str:
        return f"<integer of {len(self.lstrip('+-'))} digits>"


class _Loader(yaml.SafeLoader):
    """SafeLoader whose integers of more than _MAX_DIGITS digits become `HugeInt` markers."""


def _construct_int(loader: _Loader, node: yaml.ScalarNode) -> int | HugeInt:
    text = str(loader.construct_scalar(node))
    if sum(ch.isdigit() for ch in text) > _MAX_DIGITS:
        return HugeInt(text)
    return yaml.SafeLoader.construct_yaml_int(loader, node)


_Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)


def load_yaml(text: str) -> Any:
    """``yaml.safe_load`` that never raises on a long integer (see `HugeInt`)."""
    return yaml.load(text, Loader=_Loader)


def load_json(text: str) -> Any:
    """``json.loads`` that never raises on a long integer (see `HugeInt`)."""
    return json.loads(
        text, parse_int=lambda s: HugeInt(s) if len(s.lstrip("-")) > _MAX_DIGITS else int(s)
    )


def _describe(value: Any) -> str:
    if isinstance(value, HugeInt):
        return repr(value)
    digits = len(str(abs(value)))
    return f"{value}" if digits <= 25 else f"<integer of {digits} digits>"


def check_integers(value: Any, where: str) -> None:
    """Refuse any integer in ``value`` (nested dicts/lists) outside the signed 64-bit range.

    ``where`` names the field (``models[0].k``, ``--param k``); the error says which one.
    """
    plain_int = isinstance(value, int) and not isinstance(value, bool)
    if isinstance(value, HugeInt) or (plain_int and not INT64_MIN <= value <= INT64_MAX):
        raise PolicyError(
            f"{where} is out of range ({_describe(value)}); integers must lie between "
            f"{INT64_MIN} and {INT64_MAX}"
        )
    if isinstance(value, dict):
        for key, item in value.items():
            check_integers(item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            check_integers(item, f"{where}[{i}]")


def as_bool(value: Any, where: str) -> bool:
    """``value`` as a boolean if spelled as one (true/false, yes/no, 1/0), else PolicyError."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in TRUE_WORDS:
            return True
        if word in FALSE_WORDS:
            return False
    raise PolicyError(f"{where} must be true or false (or yes/no, 1/0); got {value!r}")
