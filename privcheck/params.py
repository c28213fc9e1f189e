"""``--param key=value`` options: the algorithm parameters given on the command line.

Values are read as the YAML scalars they look like (``k=3`` → 3, ``p=2.5`` → 2.5,
``deletions=true`` → True, ``groups=[[a,b],[c,d]]`` → nested lists), so the same parameters can be
written in a policy file or on the command line.
"""

from __future__ import annotations

from typing import Any

import yaml

from privcheck.errors import PolicyError


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
            params[key.replace("-", "_")] = yaml.safe_load(raw) if raw.strip() else ""
        except yaml.YAMLError:
            params[key.replace("-", "_")] = raw
    return params
