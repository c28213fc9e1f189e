"""``--param key=value`` options: the algorithm parameters given on the command line.

Values are read as the YAML scalars they look like (``k=3`` → 3, ``p=2.5`` → 2.5, ``eps=1e-6``
→ 1e-06, ``deletions=true`` → True, ``groups=[[a,b],[c,d]]`` → nested lists), with the YAML 1.2
core schema of every YAML privcheck reads (``privcheck.limits``), so the same parameters can be
written in a policy file or on the command line. A number YAML 1.1 would have read differently
— ``k=010`` (octal 8), ``k=1_000``, ``k=1:20`` (base 60) — is refused naming the parameter.
Every integer must fit in a signed 64-bit integer (a 5,000-digit ``k`` is refused naming
``--param k``), and a parameter whose default is a boolean takes only a boolean spelling
(true/false, yes/no, 1/0): ``tradeoff=maybe`` is refused, where Python's truthiness would have
read it as true.
"""

from __future__ import annotations

from typing import Any

import yaml

from privcheck.errors import PolicyError
from privcheck.limits import as_bool, check_integers, load_yaml
from privcheck.messages import Spelling


def parse_params(items: list[str] | None) -> dict[str, Any]:
    """``["k=3", "aggregate=median"]`` → ``{"k": 3, "aggregate": "median"}``."""
    params: dict[str, Any] = {}
    for item in items or []:
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise PolicyError(f"--param expects key=value; got {item!r}")
        if key in params:
            raise PolicyError(f"--param {key} is given twice")
        try:
            value = load_yaml(raw) if raw.strip() else ""
        except PolicyError as exc:  # nesting or alias expansion beyond the bounds
            raise PolicyError(f"--param {key}: {exc}") from None
        except yaml.constructor.ConstructorError as exc:  # e.g. a key repeated in a mapping
            raise PolicyError(f"--param {key}: {exc.problem}") from None
        except yaml.YAMLError:
            value = raw  # not YAML: the text as written (a:b, a path with spaces …)
        if isinstance(value, Spelling) and value.kind == "number":
            raise PolicyError(f"--param {key}: {value} {value.hint}")
        check_integers(value, f"--param {key}")
        params[key.replace("-", "_")] = value
    return params


def check_param_types(
    algorithm: str,
    defaults: dict[str, Any],
    params: dict[str, Any],
    *,
    skip: frozenset[str] = frozenset(),
) -> dict:
    """``params`` with every integer range-checked and boolean parameters read as booleans.

    A parameter is boolean when its default is; its value must be spelled as one (see
    `privcheck.limits.as_bool`). A parameter whose default is a number or a word takes a value
    of that kind (``check_param_value``), but those in ``skip``. Used for parameters from the CLI
    and from the Python API alike.
    """
    out = {}
    for key, value in params.items():
        where = f"{algorithm} parameter {key}"
        check_integers(value, where)
        default = defaults.get(key)
        if isinstance(default, bool):
            out[key] = as_bool(value, where)
            continue
        # a number where the default is one ('nan' is no tolerance), a seed in its range;
        # ``skip``: parameters the algorithm checks itself, with a more precise message
        plain = type(default) in (int, float, str) and key not in skip
        kinds = Kinds((type(default),)) if plain else None
        out[key] = check_param_value(where, key, value, kinds)
    return out


#: parameters that seed a random generator: a whole number 0 … 2^32 − 1 (scikit-learn's range)
SEED_PARAMS = frozenset({"random_state", "seed"})
SEED_MAX = 2**32 - 1


class Kinds(tuple):
    """The plain types a parameter takes (``int``, ``float``, ``str``, ``list`` …, ``NoneType``)
    and, for a list, the kinds of its items (``items``; None: not checked)."""

    items: Kinds | None = None


def accepted_kinds(function: Any, name: str) -> Kinds | None:
    """The plain value types parameter ``name`` of ``function`` accepts, read from its type
    hint (``int | None`` → int, None; ``Literal['a', 'b']`` → str; ``Sequence[str]`` → list of
    str; ``Mapping`` → dict), or None when the hint says nothing checkable (``Any``, a class, a
    parameter the function does not have)."""
    import inspect
    import typing

    try:
        parameter = inspect.signature(function).parameters.get(name)
    except (TypeError, ValueError):
        return None
    if parameter is None:
        return None
    try:
        hint = typing.get_type_hints(function).get(name)
    except Exception:  # a hint that does not evaluate checks nothing
        hint = None
    if hint is None:
        plain = (bool, int, float, str)
        return Kinds((type(parameter.default),)) if type(parameter.default) in plain else None
    return _hint_kinds(hint)


def _hint_kinds(hint: Any) -> Kinds | None:
    import collections.abc as abc
    import types
    import typing

    kinds: list[type] = []
    items: list[Kinds | None] = []

    def add(h: Any) -> bool:
        origin = typing.get_origin(h)
        if origin in (typing.Union, types.UnionType):
            return all(add(a) for a in typing.get_args(h))
        if origin is typing.Literal:
            kinds.extend(type(v) for v in typing.get_args(h))
            return True
        if h is type(None):
            kinds.append(type(None))
            return True
        base = origin or h
        if base in (list, tuple, abc.Sequence):
            kinds.append(list)
            args = typing.get_args(h)
            items.append(_hint_kinds(args[0]) if len(args) == 1 else None)
            return True
        if base in (dict, abc.Mapping):
            kinds.append(dict)
            return True
        if base in (bool, int, float, str):
            kinds.append(base)
            return True
        return False  # Any, a class, a callable: not checked here

    if not add(hint):
        return None
    out = Kinds(dict.fromkeys(kinds))
    if len(items) == 1:
        out.items = items[0]
    return out


def _fits(value: Any, kinds: Kinds) -> bool:
    """Whether ``value`` is of one of ``kinds``: a bool only where a bool is, an int where an
    int or a float is, a whole float where an int is (it is converted by the caller)."""
    if isinstance(value, bool):
        return bool in kinds
    if isinstance(value, int):
        return int in kinds or float in kinds
    if isinstance(value, float):
        return float in kinds or (int in kinds and value.is_integer())
    if value is None:
        return type(None) in kinds
    if isinstance(value, list | tuple):
        inner = getattr(kinds, "items", None)
        return list in kinds and (inner is None or all(_fits(v, inner) for v in value))
    return any(isinstance(value, k) for k in kinds if k in (str, dict))


_WORDS = {
    bool: "true or false", int: "a whole number", float: "a number", str: "a word",
    list: "a list", tuple: "a list", dict: "a mapping",
}  # fmt: skip


def check_param_value(where: str, name: str, value: Any, kinds: Kinds | None) -> Any:
    """``value`` of a parameter if it has one of the ``kinds`` (see ``_fits``), else a
    PolicyError naming the parameter and what it takes. Seeds: whole numbers 0 … 2^32 − 1."""
    if (
        isinstance(value, float)
        and value.is_integer()
        and (name in SEED_PARAMS or (kinds is not None and int in kinds and float not in kinds))
    ):
        value = int(value)
        check_integers(value, where)  # (1e308 is whole, and no machine integer)
    if name in SEED_PARAMS:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= SEED_MAX:
            raise PolicyError(
                f"{where} is a seed: a whole number from 0 to {SEED_MAX}; got {value!r}"
            )
        return value
    if kinds is None or _fits(value, kinds):
        return value
    words = dict.fromkeys(_WORDS[k] for k in kinds if k in _WORDS)
    inner = getattr(kinds, "items", None)
    if list in kinds and inner is not None:
        plural = {bool: "true/false values", int: "whole numbers", float: "numbers", str: "names"}
        items = " or ".join(dict.fromkeys(plural[k] for k in inner if k in plural)) or "values"
        words = {(f"a list of {items}" if w == "a list" else w): None for w in words}
    raise PolicyError(f"{where} must be {' or '.join(words) or 'another value'}; got {value!r}")
