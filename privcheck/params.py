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
from privcheck.limits import Spelling, as_bool, check_integers, load_yaml


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


def check_param_types(algorithm: str, defaults: dict[str, Any], params: dict[str, Any]) -> dict:
    """``params`` with every integer range-checked and boolean parameters read as booleans.

    A parameter is boolean when its default is; its value must be spelled as one (see
    `privcheck.limits.as_bool`). Used for parameters from the CLI and from the Python API alike.
    """
    out = {}
    for key, value in params.items():
        where = f"{algorithm} parameter {key}"
        check_integers(value, where)
        out[key] = as_bool(value, where) if isinstance(defaults.get(key), bool) else value
    return out
