"""Roles from a data catalog's tags: the catalog wins, the profile only flags a disagreement.

A catalog (OpenMetadata, DataHub …) exports column → tags; the tags that name a role are those
``privcheck.api.policy_from_tags`` reads (``DEFAULT_TAG_ROLES``: ``PII:Identifier``,
``PII:Quasi-Identifier``, ``PII:Sensitive``, ``PII:Insensitive``, compared case-insensitively,
a DataHub ``urn:li:tag:`` prefix stripped). Other tags are ignored; a column without a role tag
is drafted from its profile like any other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from privcheck.errors import PolicyError, PrivcheckError


def read_tags(path: str | Path) -> dict[str, list[str]]:
    """A tags file (JSON, or YAML for any other suffix): a mapping column → list of tags (a
    single tag may be a string). Read bounded, like a policy."""
    from privcheck.io import read_text_file
    from privcheck.limits import DOCUMENT_BYTES, load_json, load_yaml

    path = Path(path)
    try:
        text = read_text_file(path, "tags file", DOCUMENT_BYTES)
    except PrivcheckError as exc:
        raise PolicyError(str(exc)) from None
    try:
        data = load_json(text) if path.suffix.lower() == ".json" else load_yaml(text)
    except PolicyError as exc:
        raise PolicyError(f"tags file {path}: {exc}") from None
    except (yaml.YAMLError, ValueError) as exc:
        first = (str(exc).splitlines() or ["malformed"])[0]
        raise PolicyError(f"tags file {path} is not valid YAML/JSON: {first}") from None
    return check_tags(data, str(path))


def check_tags(data: Any, where: str = "tags") -> dict[str, list[str]]:
    """``data`` as column → list of tag strings, or one line saying what is wrong."""
    if not isinstance(data, Mapping):
        raise PolicyError(
            f'{where} must map each column to its list of tags (e.g. {{"email": '
            f'["PII:Identifier"]}}); got {type(data).__name__}'
        )
    out: dict[str, list[str]] = {}
    for column, tags in data.items():
        if not isinstance(column, str):
            raise PolicyError(f"{where}: column names must be strings; got {column!r}")
        if tags is None:
            tags = []
        if isinstance(tags, str):
            tags = [tags]
        if not isinstance(tags, Sequence) or not all(isinstance(t, str) for t in tags):
            raise PolicyError(
                f"{where}: the tags of column {column!r} must be a list of strings; got {tags!r}"
            )
        out[column] = list(tags)
    return out


def tag_roles(tags: Mapping[str, Sequence[str]], columns: Sequence[str]) -> dict[str, str]:
    """The role each tagged column's tags name (columns without a role tag are left out).

    A column the data does not have, or one with tags for two roles, is refused."""
    from privcheck.api import DEFAULT_TAG_ROLES, _normalise_tag

    roles = {_normalise_tag(t): r for t, r in DEFAULT_TAG_ROLES.items()}
    have = set(columns)
    out: dict[str, str] = {}
    for column, names in tags.items():
        if column not in have:
            shown = ", ".join(list(columns)[:12])
            raise PolicyError(
                f"the tags name column {column!r}, which the data does not have (columns: "
                f"{shown}); fix the tags file"
            )
        found = sorted({roles[t] for t in map(_normalise_tag, names) if t in roles})
        if len(found) > 1:
            raise PolicyError(
                f"column {column!r} carries tags for several roles ({', '.join(found)}); keep "
                "one role tag per column"
            )
        if found:
            out[column] = found[0]
    return out
