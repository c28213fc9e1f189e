"""Roles from a data catalog's tags: the catalog wins, the profile only flags a disagreement.

A catalog (OpenMetadata, DataHub …) exports column → tags; the tags that name a role are those
``privcheck.api.policy_from_tags`` reads (``DEFAULT_TAG_ROLES`` here: ``PII:Identifier``,
``PII:Quasi-Identifier``, ``PII:Sensitive``, ``PII:Insensitive``, and OpenMetadata's
``PII.Sensitive`` (identifier), ``PII.NonSensitive`` (quasi-identifier), ``PII.None``
(insensitive), ``PersonalData.SpecialCategory`` (sensitive) and ``PersonalData.Personal``
(review: personal data, its role for a person to decide), with or without the classification
prefix; compared case-insensitively, a DataHub ``urn:li:tag:`` prefix stripped). Other tags are
ignored; a column without a role tag is drafted from its profile like any other. Tags of a
column the data does not have are a warning (``absent_columns``), not a stop: a catalog's tags
describe the table, an extract may leave columns out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from privcheck.errors import PolicyError, PrivcheckError, listing

#: what a tag says when it marks personal data without saying its role: the column gets an open
#: decision (``review:``), which every gate refuses until a person makes it
REVIEW = "review"

#: catalog tag → policy role (compare case-insensitively, after stripping a DataHub tag URN
#: prefix). privcheck's own ``PII:…`` tags name the roles; OpenMetadata's system
#: classifications (its tagFQN, ``PII.Sensitive``, or the tag's name alone, ``Sensitive``) by
#: their definitions: ``PII.Sensitive`` data identifies a person on its own (an identifier),
#: ``PII.NonSensitive`` identifies in combination — zip, race, gender, date of birth (a
#: quasi-identifier) —, ``PII.None`` is not personal (insensitive),
#: ``PersonalData.SpecialCategory`` is GDPR's special categories (sensitive) and
#: ``PersonalData.Personal`` is personal data of an unsaid kind (review)
DEFAULT_TAG_ROLES: dict[str, str] = {
    "pii:identifier": "identifier",
    "pii:quasi-identifier": "quasi_identifier",
    "pii:sensitive": "sensitive",
    "pii:insensitive": "insensitive",
    "pii.sensitive": "identifier",
    "pii.nonsensitive": "quasi_identifier",
    "pii.none": "insensitive",
    "personaldata.specialcategory": "sensitive",
    "personaldata.personal": REVIEW,
}

#: the classifications whose tags may be given by the tag's name alone (OpenMetadata's
#: ``tagLabel.name``, without the classification of its ``tagFQN``)
_CLASSIFICATIONS = ("pii.", "personaldata.")


def normalise_tag(tag: str) -> str:
    """A tag as compared: stripped, a DataHub ``urn:li:tag:`` prefix removed, case-folded."""
    tag = tag.strip()
    tag = tag.removeprefix("urn:li:tag:")
    return tag.casefold()


def tag_role(tag: str, roles: Mapping[str, str]) -> str | None:
    """The role ``tag`` names in ``roles`` (normalised tag → role), or None: the tag as given,
    else — a bare tag name such as ``NonSensitive`` — under an OpenMetadata classification."""
    tag = normalise_tag(tag)
    if tag in roles:
        return roles[tag]
    if "." not in tag and ":" not in tag:
        for prefix in _CLASSIFICATIONS:
            if prefix + tag in roles:
                return roles[prefix + tag]
    return None


def roles_of(tags: Sequence[str], roles: Mapping[str, str]) -> list[str]:
    """The distinct roles a column's tags name, sorted."""
    return sorted({r for r in (tag_role(t, roles) for t in tags) if r is not None})


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
        from privcheck.messages import syntax_error

        raise PolicyError(syntax_error(exc, f"tags file {path}", "YAML/JSON")) from None
    return check_tags(data, f"tags file {path}")


def check_tags(data: Any, where: str = "tags") -> dict[str, list[str]]:
    """``data`` as column → list of tag strings, or one line saying what is wrong — naming the
    column (by position when its name is not a plain name), never quoting a value: a file
    named by mistake (a secrets file) must not be echoed (``privcheck.messages``).

    Tags set the roles of a policy being drafted (``privcheck init``), which a person reviews
    before it is used: there is no policy yet for them to loosen."""
    from privcheck.messages import shown_key

    if not isinstance(data, Mapping):
        raise PolicyError(
            f'{where} must map each column to its list of tags (e.g. {{"email": '
            f'["PII:Identifier"]}}); got {type(data).__name__}'
        )
    out: dict[str, list[str]] = {}
    for i, (column, tags) in enumerate(data.items()):
        if not isinstance(column, str):
            raise PolicyError(
                f"{where}: column names must be strings; entry {i + 1} is named by a "
                f"{type(column).__name__}"
            )
        if tags is None:
            tags = []
        if isinstance(tags, str):
            tags = [tags]
        if not isinstance(tags, list | tuple) or not all(isinstance(t, str) for t in tags):
            raise PolicyError(
                f"{where}: the tags of column {shown_key(column)} (entry {i + 1}) must be a "
                f"list of strings; got a {type(tags).__name__}"
                + (" holding other values" if isinstance(tags, list | tuple) else "")
            )
        out[str(column)] = [str(t) for t in tags]
    return out


def absent_columns(tags: Mapping[str, Sequence[str]], columns: Sequence[str]) -> list[str]:
    """The tagged columns the data does not have (in the tags' order)."""
    have = set(columns)
    return [c for c in tags if c not in have]


def absent_note(absent: Sequence[str]) -> str:
    """The warning for tags of columns the data does not have: all of them, or how many more
    (a name that is not a plain name is not shown: the file may not be a tags file)."""
    from privcheck.messages import shown_key

    return (
        f"the tags name {len(absent)} column(s) the data does not have, ignored: "
        f"{listing(absent, 12, fmt=shown_key)} (a column left out of the extract, or a misspelt "
        "name in the tags file?)"
    )


def require_some_present(
    tags: Mapping[str, Sequence[str]], columns: Sequence[str], where: str = "the tags"
) -> None:
    """Tags of a few absent columns are a warning (the catalog describes more than the
    extract); tags of NO column the data has are a stop: the file is not this table's tags (a
    file named by mistake, another dataset's tags), and drafting on would ignore all of it."""
    if tags and not set(tags) & set(columns):
        from privcheck.messages import shown_columns

        raise PolicyError(
            f"{where} name none of the data's columns ({len(tags)} tagged, none among "
            f"{shown_columns(columns, most=12)}); is it this table's tags file?"
        )


def tag_roles(tags: Mapping[str, Sequence[str]], columns: Sequence[str]) -> dict[str, str]:
    """The role each tagged column's tags name (columns without a role tag are left out;
    ``"review"``: personal data whose role a person decides).

    Columns the data does not have are skipped (``absent_columns`` says which); a column with
    tags for two roles is refused."""
    roles = {normalise_tag(t): r for t, r in DEFAULT_TAG_ROLES.items()}
    have = set(columns)
    out: dict[str, str] = {}
    for column, names in tags.items():
        if column not in have:
            continue
        found = roles_of(names, roles)
        if len(found) > 1:
            raise PolicyError(
                f"column {column!r} carries tags for several roles ({', '.join(found)}); keep "
                "one role tag per column"
            )
        if found:
            out[column] = found[0]
    return out
