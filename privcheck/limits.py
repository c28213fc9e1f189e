"""Range checks for the numbers a user writes: policy files and ``--param key=value``.

Python reads an integer of any size, and YAML/JSON parsers stop with a bare ``ValueError`` on one
longer than 4,300 digits. Either way a number no machine type holds must be refused up front, in
one line naming the field, never left to overflow inside numpy (or to end in a traceback). Every
integer a policy or a parameter may carry (k, l, c, steps, positions, widths …) fits in a signed
64-bit integer, so that is the accepted range.

Booleans are spelled ``true``/``false``, ``yes``/``no`` or ``1``/``0`` (any case): YAML reads
``maybe`` as the string "maybe", which Python would treat as true, so a boolean parameter checks
its value here instead of trusting truthiness.

Policies, parameters and transformation files arrive from other people (a pre-commit hook on a
shared repository, a CI job), so their parsing is bounded before a structure is built: nesting
deeper than ``MAX_DEPTH``, YAML aliases that add more than ``MAX_ALIAS_VALUES`` values once
expanded (a 451-byte "billion laughs" document names ~9^10 of them), and a key repeated in one
mapping (the parsers would silently keep the last, letting a later line undo an earlier role)
are refused with one line, in time linear in the text.
"""

from __future__ import annotations

import json
import math
from typing import Any

import yaml

from privcheck.errors import PolicyError

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
#: integers up to this many digits are parsed; longer ones are out of range whatever their value
_MAX_DIGITS = 40
#: deepest nesting of mappings and lists a policy, parameter or transformation may have (a
#: policy needs 5: models → entry → rows → row)
MAX_DEPTH = 64
#: most values YAML aliases may add to a document once expanded (a policy that reuses a
#: hierarchy or a model entry by alias adds a few dozen; a 451-byte alias bomb ~9^10)
MAX_ALIAS_VALUES = 10_000

#: accepted spellings of a boolean parameter (compared case-insensitively)
TRUE_WORDS = frozenset({"true", "yes", "1"})
FALSE_WORDS = frozenset({"false", "no", "0"})


class HugeInt(str):
    """An integer literal too long to parse; kept as its text so the field can be named."""

    def __repr__(self) -> str:
        return f"<integer of {len(self.lstrip('+-'))} digits>"


class _Loader(yaml.SafeLoader):
    """SafeLoader whose integers of more than _MAX_DIGITS digits become `HugeInt` markers and
    which refuses a key repeated within one mapping."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        if isinstance(node, yaml.MappingNode):
            seen: set[Any] = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue  # '<<: *base' merges, and explicit keys override it by design
                key = self.construct_object(key_node, deep=True)
                try:
                    repeated = key in seen
                except TypeError:  # an unhashable key: SafeConstructor reports it
                    break
                if repeated:
                    raise yaml.constructor.ConstructorError(
                        None,
                        None,
                        f"the key {key!r} appears twice in one mapping (a parser would keep the "
                        "last silently); keep one",
                        key_node.start_mark,
                    )
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _construct_int(loader: _Loader, node: yaml.ScalarNode) -> int | HugeInt:
    text = str(loader.construct_scalar(node))
    if sum(ch.isdigit() for ch in text) > _MAX_DIGITS:
        return HugeInt(text)
    return yaml.SafeLoader.construct_yaml_int(loader, node)


_Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)


def _bound_yaml(text: str) -> None:
    """Refuse a YAML text nested deeper than MAX_DEPTH or whose aliases add more than
    MAX_ALIAS_VALUES values once expanded, from its event stream (one pass, nothing built).

    Each collection's expanded size is 1 + its children's; an alias counts its anchor's size,
    so ``[*a, *a, …]`` chains are measured as the tree a consumer would walk."""
    sizes: dict[str, int] = {}
    stack: list[list] = []  # [expanded size, anchor] of each open collection
    written = 0  # values as written in the text
    expanded = 0  # values of finished top-level nodes, aliases expanded

    def add(size: int) -> None:
        nonlocal expanded
        if stack:
            stack[-1][0] += size
        else:
            expanded += size
        if max(expanded, stack[-1][0] if stack else 0) > written + MAX_ALIAS_VALUES:
            raise PolicyError(
                f"its YAML aliases expand to more than {MAX_ALIAS_VALUES:,} values beyond what "
                "is written (aliases of aliases: an 'alias bomb'); write the values out"
            )

    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.AliasEvent) and any(a == event.anchor for _, a in stack):
            raise PolicyError(
                f"its YAML alias *{event.anchor} refers to a value that contains it (a value "
                "without end); write the value out"
            )
        if isinstance(event, yaml.CollectionStartEvent):
            if len(stack) >= MAX_DEPTH:
                raise PolicyError(
                    f"its YAML is nested more than {MAX_DEPTH} levels deep; flatten it"
                )
            written += 1
            stack.append([1, event.anchor])
        elif isinstance(event, yaml.CollectionEndEvent):
            size, anchor = stack.pop()
            if anchor is not None:
                sizes[anchor] = size
            add(size)
        elif isinstance(event, yaml.ScalarEvent):
            written += 1
            if event.anchor is not None:
                sizes[event.anchor] = 1
            add(1)
        elif isinstance(event, yaml.AliasEvent):
            add(sizes.get(event.anchor, 1))


def _bound_json(text: str) -> None:
    """Refuse a JSON text nested deeper than MAX_DEPTH (Python's parser recurses per level),
    scanning brackets outside strings in one pass."""
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise PolicyError(
                    f"its JSON is nested more than {MAX_DEPTH} levels deep; flatten it"
                )
        elif ch in "]}":
            depth -= 1


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(
                f"the key {key!r} appears twice in one object (a parser would keep the last "
                "silently); keep one"
            )
        out[key] = value
    return out


def load_yaml(text: str) -> Any:
    """``yaml.safe_load``, bounded (depth, alias expansion), refusing repeated keys, that never
    raises on a long integer (see `HugeInt`). Bounds raise PolicyError, syntax YAMLError."""
    _bound_yaml(text)
    return yaml.load(text, Loader=_Loader)


def load_json(text: str) -> Any:
    """``json.loads``, bounded (depth), refusing repeated keys, that never raises on a long
    integer (see `HugeInt`). Bounds raise PolicyError, syntax ValueError."""
    _bound_json(text)
    return json.loads(
        text,
        parse_int=lambda s: HugeInt(s) if len(s.lstrip("-")) > _MAX_DIGITS else int(s),
        object_pairs_hook=_unique_pairs,
    )


def _describe(value: Any) -> str:
    if isinstance(value, HugeInt):
        return repr(value)
    digits = len(str(abs(value)))
    return f"{value}" if digits <= 25 else f"<integer of {digits} digits>"


def check_integers(value: Any, where: str) -> None:
    """Refuse any integer in ``value`` (nested dicts/lists) outside the signed 64-bit range, and
    any float that is not finite (``.inf``, JSON ``Infinity``, ``NaN``): no parameter or policy
    number means infinity — l = ∞ once passed a check whose arithmetic overflowed.

    ``where`` names the field (``models[0].k``, ``--param k``); the error says which one.
    """
    if isinstance(value, float) and not math.isfinite(value):
        raise PolicyError(f"{where} is {value}; numbers must be finite")
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
