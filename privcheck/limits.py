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

YAML is read with the YAML 1.2 core schema's scalars, not PyYAML's YAML 1.1 ones, which change
what a value means: ``k: 010`` was octal (k = 8), ``1_000`` and ``1:20`` (base 60) numbers,
``yes``/``no``/``on``/``off`` booleans (a column named ``no`` became ``False``), ``2024-01-31`` a
date. Here only ``true``/``false`` are booleans, ``null``/``~``/nothing is null, integers are
decimal (``0o17`` octal and ``0x1F`` hexadecimal as YAML 1.2 writes them), floats are YAML 1.2's
(``1e-5`` is a number). A plain scalar YAML 1.1 read as a number or a boolean and YAML 1.2 does
not — above all a leading zero, which YAML 1.2 would read as decimal and YAML 1.1 as octal — is
kept as the text written, a `Spelling` that says how to write what was meant: where a policy
expects a number it is refused in one line (``models[0].k: 010 has a leading zero; write 10``),
where it expects text it is the text as written (a ZIP code ``02139`` in a hierarchy row).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, ClassVar

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


class Spelling(str):
    """A plain YAML scalar that YAML 1.1 reads as a number or a boolean and the YAML 1.2 core
    schema does not (``010``, ``1_000``, ``1:20``, ``0b101``, ``yes``): the text as written, and
    ``hint`` — how to write the number or boolean meant, for the refusal where one is expected.
    ``kind`` is ``"number"`` or ``"boolean"``: what YAML 1.1 would have made of it."""

    hint: str
    kind: str

    def __new__(cls, text: str, hint: str, kind: str) -> Spelling:
        out = super().__new__(cls, text)
        out.hint = hint
        out.kind = kind
        return out


#: YAML 1.2 core schema scalars (https://yaml.org/spec/1.2.2/#1023-core-schema)
_NULL_12 = re.compile(r"~|null|Null|NULL|")
_BOOL_12 = re.compile(r"true|True|TRUE|false|False|FALSE")
_INT_12 = re.compile(r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+")
_FLOAT_12 = re.compile(
    r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)"
)
#: what YAML 1.1 (PyYAML) reads as a number and YAML 1.2 as text, or as another number
_LEADING_ZERO = re.compile(r"[-+]?0[0-9]+")
_NUMBER_11 = re.compile(
    r"[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+"
    r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?"
    r"|[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
)
_BOOL_11 = re.compile(r"yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF")
_SPELLING_TAG = "tag:privcheck,2026:yaml-1.1-spelling"


def _spelling(text: str) -> Spelling:
    """The `Spelling` of a plain scalar YAML 1.1 reads as a number or boolean, with its hint."""
    if _BOOL_11.fullmatch(text):
        word = "true" if text.lower() in ("yes", "on") else "false"
        hint = f"is text in YAML 1.2, not a boolean; write {word} (or quote it as text)"
        return Spelling(text, hint, "boolean")
    if _LEADING_ZERO.fullmatch(text):
        sign = "-" if text.startswith("-") else ""
        decimal = f"{sign}{int(text.lstrip('+-'), 10)}"
        return Spelling(
            text,
            f"has a leading zero (YAML 1.1 reads it as octal); write {decimal}, or quote it "
            "as text",
            "number",
        )
    if ":" in text:
        why = "is a base-60 number in YAML 1.1 only"
    elif "_" in text:
        why = "uses '_' between digits, which YAML 1.2 does not read as a number"
    else:
        why = "is a number in YAML 1.1 only"
    return Spelling(text, f"{why}; write the number in decimal, or quote it as text", "number")


class _Loader(yaml.SafeLoader):
    """SafeLoader with the YAML 1.2 core schema's scalars (see the module docstring) and only
    its tags, whose integers of more than _MAX_DIGITS digits become `HugeInt` markers and which
    refuses a key repeated within one mapping."""

    yaml_implicit_resolvers: ClassVar[dict] = {}  # only the resolvers added below

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
                    from privcheck.messages import shown_key

                    raise yaml.constructor.ConstructorError(
                        None,
                        None,
                        f"the key {shown_key(key)} appears twice in one mapping (a parser would "
                        "keep the last silently); keep one",
                        key_node.start_mark,
                    )
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _not_core(node: yaml.ScalarNode, what: str) -> yaml.constructor.ConstructorError:
    """An explicitly tagged scalar (``!!int 1_000``) that is no YAML 1.2 core value."""
    return yaml.constructor.ConstructorError(
        None,
        None,
        f"a value tagged !!{what} is not a YAML 1.2 {what}; write it plainly",
        node.start_mark,
    )


def _construct_int(loader: _Loader, node: yaml.ScalarNode) -> int | HugeInt | Spelling:
    text = str(loader.construct_scalar(node))
    if _LEADING_ZERO.fullmatch(text):
        return _spelling(text)
    if not _INT_12.fullmatch(text):
        raise _not_core(node, "int")
    if sum(ch.isalnum() for ch in text) > _MAX_DIGITS:
        return HugeInt(text)
    if text.startswith(("0o", "0x")):
        return int(text[2:], 8 if text[1] == "o" else 16)
    return int(text, 10)


def _construct_float(loader: _Loader, node: yaml.ScalarNode) -> float:
    text = str(loader.construct_scalar(node))
    if not _FLOAT_12.fullmatch(text):
        raise _not_core(node, "float")
    if "." in text and text.lstrip("+-")[1:].isalpha():  # .inf, -.Inf, .NaN
        return float(text.replace(".", "", 1))
    return float(text)


def _construct_bool(loader: _Loader, node: yaml.ScalarNode) -> bool:
    text = str(loader.construct_scalar(node))
    if not _BOOL_12.fullmatch(text):
        raise _not_core(node, "bool")
    return text.lower() == "true"


def _construct_spelling(loader: _Loader, node: yaml.ScalarNode) -> Spelling:
    return _spelling(str(loader.construct_scalar(node)))


#: the YAML 1.2 core schema's tags (and the merge key): no timestamps, binary, sets, pairs
_CORE_TAGS = {f"tag:yaml.org,2002:{name}" for name in ("null", "str", "seq", "map", "merge")}
_Loader.yaml_constructors = {
    tag: make for tag, make in yaml.SafeLoader.yaml_constructors.items() if tag in _CORE_TAGS
}
_Loader.yaml_constructors[None] = yaml.SafeLoader.yaml_constructors[None]  # unknown tag: refused
_Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
_Loader.add_constructor("tag:yaml.org,2002:float", _construct_float)
_Loader.add_constructor("tag:yaml.org,2002:bool", _construct_bool)
_Loader.add_constructor(_SPELLING_TAG, _construct_spelling)
# resolvers are tried in the order added for a scalar's first character: the YAML 1.1 spellings
# (leading zero, base 60, '_', yes/no …) before the YAML 1.2 integers and floats they resemble
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(f"(?:{_BOOL_12.pattern})\\Z"), list("tTfF")
)
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:null", re.compile(f"(?:{_NULL_12.pattern})\\Z"), ["~", "n", "N", ""]
)
_Loader.add_implicit_resolver(
    _SPELLING_TAG, re.compile(f"(?:{_LEADING_ZERO.pattern})\\Z"), list("-+0123456789")
)
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:int", re.compile(f"(?:{_INT_12.pattern})\\Z"), list("-+0123456789")
)
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float", re.compile(f"(?:{_FLOAT_12.pattern})\\Z"), list("-+0123456789.")
)
_Loader.add_implicit_resolver(
    _SPELLING_TAG, re.compile(f"(?:{_NUMBER_11.pattern})\\Z"), list("-+0123456789.")
)
_Loader.add_implicit_resolver(
    _SPELLING_TAG, re.compile(f"(?:{_BOOL_11.pattern})\\Z"), list("yYnNoO")
)
_Loader.add_implicit_resolver("tag:yaml.org,2002:merge", re.compile(r"<<\Z"), ["<"])


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
            from privcheck.messages import shown_key

            raise ValueError(
                f"the key {shown_key(key)} appears twice in one object (a parser would keep the "
                "last silently); keep one"
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
        from privcheck.messages import is_name

        for key, item in value.items():
            name = str(key) if is_name(key) else "<key>"  # (a credentials line is no name)
            check_integers(item, f"{where}.{name}" if where else name)
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
