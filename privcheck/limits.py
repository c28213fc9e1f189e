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

Work limits. A small input must not buy minutes of work: every quantity an input controls that
multiplies the work — a policy's bytes before it is parsed, a model file's bytes before it is
inflated, levels per hierarchy, nodes of a lattice searched one by one, attribute subsets, columns
profiled … — has a `Limit` here, each with the reason for its value. Each is overridden by its
environment variable ``PRIVCHECK_MAX_<NAME>`` (a whole number; ``0``: no limit), read when the
limit is checked, so a CI job or a hook raises it without a code change. Exceeding one raises
`LimitError` (a `PolicyError`: one line, exit 2) naming the limit, the value seen and the
override, before the work starts. ``docs/limits.md`` lists them all (a test keeps it in step).

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
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import yaml

from privcheck.errors import PolicyError
from privcheck.messages import Spelling, is_name, shown_key

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
#: the largest magnitude of a data value privcheck computes with in floating point — the means,
#: variances, z-scores and squared distances of the record-linkage attacks and of the masking
#: methods. Below it n·(2x)²·m stays far under float64's 1.8e308 for any table (n ≤ 2^53
#: records, m ≤ 2^10 attributes), products on top included, so no figure is computed on inf or
#: nan; beyond it (a column of 1e308s) the column is refused, naming it. Rescaling it (another
#: unit) changes no standardised distance, no group and no rank.
FLOAT_MAGNITUDE = 1e100
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


#: libyaml's parser when PyYAML was built with it (every PyPI wheel is): the same safe
#: constructors, ten times faster than the pure-Python parser (1 MB: ~1 s, not ~10 s)
_SafeBase = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_SafeBase):  # type: ignore[valid-type,misc]
    """SafeLoader (libyaml's parser when PyYAML has it) with the YAML 1.2 core schema's
    scalars (see the module docstring) and only its tags, whose integers of more than
    _MAX_DIGITS digits become `HugeInt` markers and which refuses a key repeated within one
    mapping."""

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


def _events(text: str) -> Iterator[yaml.Event]:
    """The text's YAML events. libyaml scans up to 1,024 characters ahead (a simple key may be
    that long), so a deep ``[[[[…`` reaches its own nesting limit (1,000) before this pass sees
    level MAX_DEPTH: that refusal is worded as ours."""
    try:
        yield from yaml.parse(text, Loader=_SafeBase)
    except yaml.YAMLError as exc:
        if "nesting depth" in str(getattr(exc, "problem", "")):
            raise PolicyError(
                f"its YAML is nested more than {MAX_DEPTH} levels deep; flatten it"
            ) from None
        raise


def _bound_yaml(text: str) -> None:
    """Refuse a YAML text nested deeper than MAX_DEPTH, of more than `DOCUMENT_VALUES` values
    as written, or whose aliases add more than MAX_ALIAS_VALUES values once expanded, from its
    event stream (one pass, nothing built).

    Each collection's expanded size is 1 + its children's; an alias counts its anchor's size,
    so ``[*a, *a, …]`` chains are measured as the tree a consumer would walk."""
    sizes: dict[str, int] = {}
    stack: list[list] = []  # [expanded size, anchor] of each open collection
    written = 0  # values as written in the text
    expanded = 0  # values of finished top-level nodes, aliases expanded

    most = DOCUMENT_VALUES.value()
    events = _events(text)

    def add(size: int) -> None:
        nonlocal expanded
        if most and written > most:  # count the rest (nothing built) to name the total
            rest = sum(isinstance(e, yaml.ScalarEvent | yaml.CollectionStartEvent) for e in events)
            DOCUMENT_VALUES.check(written + rest, "its YAML has")
        if stack:
            stack[-1][0] += size
        else:
            expanded += size
        if max(expanded, stack[-1][0] if stack else 0) > written + MAX_ALIAS_VALUES:
            raise PolicyError(
                f"its YAML aliases expand to more than {MAX_ALIAS_VALUES:,} values beyond what "
                "is written (aliases of aliases: an 'alias bomb'); write the values out"
            )

    for event in events:
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


def _bound_size(text: str) -> None:
    """Refuse a text longer than `DOCUMENT_BYTES` before parsing it (files are measured as
    they are read; this covers texts given directly: --param values, a re-read draft)."""
    limit = DOCUMENT_BYTES.value()
    if limit and len(text) > limit // 4:  # (a character is at most four bytes)
        DOCUMENT_BYTES.check(len(text.encode("utf-8", "surrogatepass")), "the text has")


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(
                f"the key {shown_key(key)} appears twice in one object (a parser would keep the "
                "last silently); keep one"
            )
        out[key] = value
    return out


def load_yaml(text: str) -> Any:
    """``yaml.safe_load``, bounded (depth, alias expansion), refusing repeated keys, that never
    raises on a long integer (see `HugeInt`). Bounds raise PolicyError, syntax YAMLError."""
    _bound_size(text)
    _bound_yaml(text)
    return yaml.load(text, Loader=_Loader)


def load_json(text: str) -> Any:
    """``json.loads``, bounded (depth), refusing repeated keys, that never raises on a long
    integer (see `HugeInt`). Bounds raise PolicyError, syntax ValueError."""
    _bound_size(text)
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


# --------------------------------------------------------------------------- work limits


class LimitError(PolicyError):
    """An input asked for more work than a documented `Limit` allows (one line, exit 2)."""


#: counts beyond this are written in scientific notation in a refusal (a lattice of 64^40 nodes)
_SHOWN_EXACTLY = 10**15


def _count(value: int) -> str:
    return f"{value:,}" if value < _SHOWN_EXACTLY else f"about {float(value):.3g}"


@dataclass(frozen=True)
class Limit:
    """A bound on the work one input may ask for; ``why`` says why its value (docs/limits.md).

    The value in force is ``$PRIVCHECK_MAX_<NAME>`` when set (a whole number, ``0``: no limit),
    else ``default``; it is read at each check, so a test or a CI job can change it."""

    name: str
    default: int
    unit: str
    why: str

    @property
    def variable(self) -> str:
        """The environment variable that overrides the limit."""
        return f"PRIVCHECK_MAX_{self.name.upper()}"

    def value(self) -> int:
        """The limit in force (0: no limit)."""
        raw = os.environ.get(self.variable, "").strip()
        if not raw:
            return self.default
        try:
            value = int(raw)
        except ValueError:
            value = -1
        if value < 0 or value > INT64_MAX:
            raise PolicyError(
                f"{self.variable} must be a whole number of {self.unit} (0: no limit); "
                f"got {raw[:40]!r}"
            )
        return value

    def allows(self, seen: int) -> bool:
        """Whether ``seen`` is within the limit in force."""
        limit = self.value()
        return limit == 0 or seen <= limit

    def check(self, seen: int, subject: str, advice: str = "") -> None:
        """Raise `LimitError` when ``seen`` exceeds the limit: ``subject`` says what was counted
        ("the hierarchy of 'age' has"), ``advice`` how to stay within it."""
        if not self.allows(seen):
            raise LimitError(self.message(seen, subject, advice))

    def stop(self, subject: str, advice: str = "") -> None:
        """Raise `LimitError` for work counted as it is done, stopped at the limit (its total
        is not known): ``subject`` says what ("the k-neighbourhood check needs")."""
        fix = f"{advice}, or " if advice else ""
        raise LimitError(
            f"{subject} more than {self.value():,} {self.unit}, the limit "
            f"({self.variable}); {fix}set {self.variable} higher (0: no limit) to allow it"
        )

    def message(self, seen: int, subject: str, advice: str = "") -> str:
        """The refusal: what was counted, the value seen, the limit, the override."""
        raise_to = str(seen) if seen < _SHOWN_EXACTLY else "0"
        fix = f"{advice}, or " if advice else ""
        return (
            f"{subject} {_count(seen)} {self.unit}, more than the limit of "
            f"{self.value():,} ({self.variable}); {fix}set {self.variable}={raise_to} to allow it"
        )


#: every work limit, by name (docs/limits.md documents each; a test checks the two agree)
LIMITS: dict[str, Limit] = {}


def _limit(name: str, default: int, unit: str, why: str) -> Limit:
    LIMITS[name] = limit = Limit(name, default, unit, why)
    return limit


DOCUMENT_BYTES = _limit(
    "document_bytes",
    1 << 20,
    "bytes",
    "Largest policy, transformation, report, tags file or privcheck.toml parsed (YAML, JSON, "
    "TOML), measured before parsing. A real policy is a few kilobytes; Adult's nine ARX "
    "hierarchies written inline weigh 9-23 KB, a 20,000-row inline table about 1 MB (bigger "
    "tables belong in a hierarchy file). YAML costs about a second per megabyte to parse even "
    "with libyaml (ten times that without), so 1 MiB keeps the largest accepted policy to "
    "seconds; 64 MB once allowed ten minutes.",
)
DOCUMENT_VALUES = _limit(
    "document_values",
    100_000,
    "values",
    "Most values (scalars, lists, mappings, as written) in a YAML policy, transformation, tags "
    "file or parameter, counted in the parser's event stream before anything is built. Each "
    "costs about 10 microseconds to resolve and build, so 1 MiB of one-character values (half a "
    "million) took 5 s of CPU; 100,000 values is an inline hierarchy of 16,000 rows of five "
    "levels (Adult's nine inline: 1,500).",
)
TEXT_BYTES = _limit(
    "text_bytes",
    64 << 20,
    "bytes",
    "Largest other text file read whole: a table hierarchy file (CSV), an --intruder-records "
    "file. They are parsed in one linear pass (a 20 MB hierarchy of 600,000 rows builds in about "
    "two seconds); a national postcode hierarchy fits.",
)
MODEL_FILE_BYTES = _limit(
    "model_file_bytes",
    1 << 30,
    "bytes",
    "Most bytes a skops model file (a zip) may inflate to, summed from its directory's declared "
    "sizes before any member is read. A fitted scikit-learn model is kilobytes to a few hundred "
    "megabytes; a 9 MB zip bomb declared 4.5 GB.",
)
COMPRESSION_RATIO = _limit(
    "compression_ratio",
    200,
    "times",
    "Largest compression ratio of a member of a skops model file bigger than 1 MiB, from the "
    "zip directory before reading it. Arrays of floats compress 1-10 times, a sparse array of "
    "zeros a few hundred at most; deflate's own maximum (about 1,030) is what a zip bomb uses.",
)
GLOB_CHARACTERS = _limit(
    "glob_characters",
    1_000,
    "characters",
    "Longest file glob in privcheck.toml. Globs are matched in time proportional to the glob's "
    "length times the path's (no backtracking), so a long glob costs in proportion; a real glob "
    "is under a hundred characters.",
)
ATTRIBUTES = _limit(
    "attributes",
    5_000,
    "attributes",
    "Most attributes (columns) a policy may name: a check encodes each one it names (24,000 on "
    "20 rows took 5.5 s of CPU, 5,000 about one). privcheck init drafts at most 500.",
)
MODELS = _limit(
    "models",
    1_000,
    "models",
    "Most model entries a policy may list: each is evaluated and reported on its own (19,000 "
    "copies of one k-anonymity entry took 19 s of CPU to check). A policy with a model per "
    "sensitive attribute and kind lists tens.",
)
HIERARCHY_LEVELS = _limit(
    "hierarchy_levels",
    64,
    "levels",
    "Most generalization levels one hierarchy may have (intervals' widths plus '*', a masking "
    "hierarchy's masked characters, a table's columns after the first), checked before the "
    "level arrays are built, each of which costs a pass over the column's distinct values. "
    "ARX's hierarchies have 2-6 levels; masking a 34-character IBAN to nothing has 34. "
    "100,000 interval widths on 30 rows once took a minute.",
)
LATTICE_NODES = _limit(
    "lattice_nodes",
    1_000_000,
    "nodes",
    "Largest generalization lattice (the product of every quasi-identifier's levels) a search "
    "keeps per-node arrays over (mingen, incognito, the trade-off front). Searches that prune "
    "evaluate a few hundred nodes of it; the arrays and passes over the whole lattice take "
    "about a second at this size. Adult with ARX's hierarchies has 6,480 nodes.",
)
EXHAUSTIVE_NODES = _limit(
    "exhaustive_nodes",
    10_000,
    "nodes",
    "Most lattice nodes (or attribute subsets) a search may evaluate one by one, counted before "
    "it starts: incognito's lattice and its 2^q attribute subsets, the nodes mingen must sweep "
    "when the policy's models do not let it prune (delta-disclosure, t-closeness with a "
    "suppression limit), the satisfying nodes ranked by a metric without a bound. A node costs "
    "about a quarter of a millisecond on a small table, so 10,000 are a few seconds; Adult's "
    "lattice (6,480 nodes) fits.",
)
QUASI_IDENTIFIERS = _limit(
    "quasi_identifiers",
    32,
    "quasi-identifiers",
    "Most quasi-identifiers an anonymization takes (any algorithm), checked before the data is "
    "read: the full-domain searches view their lattice with one array axis each (numpy allows "
    "32), DataFly's steps each regroup every column (5,000 on 20 rows raised a traceback) and "
    "Mondrian cuts along each (5,000 took 9 s of CPU). k-anonymity over more than a few dozen "
    "columns generalizes everything anyway (Aggarwal, VLDB 2005). A check takes any number.",
)
BLANKING_PATTERNS = _limit(
    "blanking_patterns",
    1_022,
    "patterns",
    "Most blanking patterns local suppression tries: 2^m - 2 for m quasi-identifiers, each "
    "scored against every class, so the work doubles with each quasi-identifier (12 on 300 "
    "rows took 3 s of CPU, 14 took 14 s and 1 GB). 1,022 is 10 quasi-identifiers; use a "
    "full-domain search or mondrian for more.",
)
EXPLAIN_SUBSETS = _limit(
    "explain_subsets",
    8_191,
    "combinations",
    "Most quasi-identifier combinations --explain (SUDA2) searches for minimal sample uniques: "
    "each is a group-by of the classes, about 0.3 ms on a small table. 8,191 is every "
    "combination of 13 quasi-identifiers; --explain-max-size 25 over 30 quasi-identifiers "
    "asked for a billion. Without --explain-max-size the sizes that fit 4,095 are searched.",
)
ISOMORPHISM_STEPS = _limit(
    "isomorphism_steps",
    300_000,
    "steps",
    "Most steps (comparisons of two neighbourhoods, and candidate node pairs tried by VF2 "
    "inside one) a k-neighbourhood check may take to sort neighbourhoods that its invariants "
    "and the Weisfeiler-Lehman hash cannot tell apart. Graph isomorphism has no known "
    "polynomial algorithm: 20 nodes joined each to its own random 3-regular graph on 40 nodes "
    "(a 2,000-edge file) took 19 s of CPU. A step costs a few microseconds; sparse real graphs "
    "need a handful.",
)
ITERATIONS = _limit(
    "iterations",
    1_000,
    "iterations",
    "Most rounds an iterative fit may be asked for with --param max_iter: fuzzy "
    "microaggregation (default 300) and probabilistic linkage's EM (default 1,000). A round of "
    "fuzzy c-means on 200 records takes half a millisecond, so max_iter=10^9 with a tiny tol "
    "ran without end.",
)
ATTACKS = _limit(
    "attacks",
    100_000,
    "attacks",
    "Most attacks a synthetic-data risk measure may be asked for with n_attacks (singling-out, "
    "linkability, inference; default 500): each singling-out predicate's matches are counted "
    "in the original and control set, and a random baseline of as many is scanned against "
    "every original record (10^6 took 5 s of CPU on 200 records, 10^8 drew 2.8 GB before the "
    "first match).",
)
ATTACK_QUERIES = _limit(
    "attack_queries",
    1_000_000,
    "queries",
    "Most predicates the singling-out attack may draw looking for ones that single a record "
    "out (max_attempts, default 1,000,000, about 2 s of CPU when none does): each batch is "
    "matched against the synthetic records.",
)
PROFILED_COLUMNS = _limit(
    "profiled_columns",
    500,
    "columns",
    "Most columns privcheck init profiles: each costs about 10 ms of recognizers whatever the "
    "rows (5,000 columns took 16-50 s). Draft a policy for the columns that matter (select them "
    "first), or raise the limit for a wide table.",
)
GROUPS = _limit(
    "groups",
    5_000_000,
    "value combinations",
    "Most distinct (quasi-identifier ..., sensitive ...) combinations an engine (polars, DuckDB, "
    "Spark) sends back to the driver for a check: each is a row of the class table held in "
    "memory. Also --max-groups (API: max_groups=), which wins over the variable.",
)
