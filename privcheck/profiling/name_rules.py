"""Role rules over person names: values that read as people's names or user names make a
column an identifier (or one to review), whatever it is called, and a first-name column
beside a last-name column is one identifier pair (``pair_names``). The names are read by
``names`` (a lexicon of given and family names, any script); ``rules.decide`` calls these.
"""

from __future__ import annotations

import numpy as np
import pyarrow.compute as pc

from privcheck.profiling import names, vocabulary
from privcheck.profiling.columns import ColumnData
from privcheck.profiling.decision import Decision, pct, sampled
from privcheck.profiling.types import TypeInfo

#: a person's full name: capitalised words (an initial, a particle) — Mary Smith, Anna van Dijk
_PERSON_NAME = (
    r"^[A-Z][a-z'\-]+(?:\s(?:[A-Z]\.|[A-Z][a-z'\-]+|van|von|de|da|del|di|le|la))*"
    r"\s[A-Z][a-z'\-]+$"
)


def person_name_share(col: ColumnData) -> float:
    """Share of sampled rows whose value reads as a person's full name (``Mary Smith``)."""
    sample, weights = col.sample_values, col.sample_weights
    if len(sample) == 0:
        return 0.0
    hit = np.asarray(
        pc.fill_null(pc.match_substring_regex(sample, _PERSON_NAME), False).to_numpy(
            zero_copy_only=False
        ),
        dtype=bool,
    )
    return float(weights[hit].sum()) / float(weights.sum())


#: a column reads as person names when at least this share of its sampled rows do …
NAME_SHARE = 0.5
#: … and at least this share of its distinct values (a category with one frequent value that
#: happens to be a name is not a column of names)
NAME_DISTINCT_SHARE = 0.4
#: from this share on (below NAME_SHARE) the column is a names column to review
NAME_REVIEW_SHARE = 0.3
#: a column of names has at least this many distinct values, and at least
#: ``NAME_MANY`` of them or one per ``1 / NAME_SPREAD`` rows (departments, job titles and a
#: handful of cities are categories, whatever their words)
NAME_MIN_DISTINCT = 8
NAME_MANY = 30
NAME_SPREAD = 0.2
#: a column of user names: at least this share of sampled rows read as handles
HANDLE_SHARE = 0.6


def _name_candidate(col: ColumnData, info: TypeInfo) -> bool:
    """Text that could be names: enough distinct values, not long free text."""
    if info.type != "text" or info.mean_length > 60:
        return False
    if col.distinct < min(NAME_MIN_DISTINCT, max(3, col.n_present // 2)):
        return False
    return col.distinct >= NAME_MANY or col.distinct_share >= NAME_SPREAD


def name_reading(col: ColumnData, info: TypeInfo, evidence=None) -> names.NameReading | None:
    """How the column's sampled values read as person names (None: not a candidate, or its
    values already read as a vocabulary — countries, sexes, statuses — in 80 % of rows)."""
    if not _name_candidate(col, info) or (evidence is not None and evidence[3] >= 0.8):
        return None
    return names.read_column(col.sample_values, col.sample_weights)


def _reads_as_names(reading: names.NameReading | None, evidence) -> bool:
    if reading is None or reading.share < NAME_SHARE:
        return False
    if reading.distinct_share < NAME_DISTINCT_SHARE or reading.strong_share < NAME_REVIEW_SHARE:
        return False
    return evidence is None or evidence[3] < reading.share


def names_decision(col: ColumnData, reading: names.NameReading, evidence) -> Decision | None:
    """An identifier when the values read as person names, whatever the column is called."""
    what = f"{pct(reading.share)} of {sampled(col)} read as {reading.kind}"
    if _reads_as_names(reading, evidence):
        return Decision(
            "identifier",
            f"{what} (known given and family names, any script): a person's name",
            pattern=reading.pattern,
        )
    if (
        reading.share >= NAME_REVIEW_SHARE
        and reading.distinct_share >= NAME_REVIEW_SHARE
        and (evidence is None or evidence[3] < reading.share)
    ):
        return Decision(
            "identifier",
            f"review: {what}: a column of names? (an identifier until you decide)",
            True,
            pattern=reading.pattern,
        )
    return None


def handles_decision(col: ColumnData, info: TypeInfo) -> Decision | None:
    """User names (``jsmith42``, ``maria.garcia``, ``@nick``): an identifier by their shape."""
    if not _name_candidate(col, info) or info.spaced_share > 0.2:
        return None
    share = names.read_handles(col.sample_values, col.sample_weights)
    if share < HANDLE_SHARE:
        return None
    review = share < 0.8
    return Decision(
        "identifier",
        ("review: " if review else "")
        + f"{pct(share)} of {sampled(col)} read as user names (handles such as jsmith42, "
        "maria.garcia, @nick): they point at one person",
        review,
        pattern="user-name",
    )


def names_contradict(col, decision: Decision, reading, evidence) -> Decision:
    """A column named like a quasi-identifier or a sensitive attribute whose values read as
    person names keeps its role, marked for review: which one is it?"""
    if decision.role == "identifier" or not _reads_as_names(reading, evidence):
        return decision
    reason = decision.reason.removeprefix("review: ")
    return Decision(
        decision.role,
        f"review: {reason}, but {pct(reading.share)} of {sampled(col)} read as "
        f"{reading.kind}: if they are people's names, it is an identifier",
        True,
        decision.concept,
        decision.pattern,
    )


# --------------------------------------------------------------------------- columns together

#: words of a column name that make it a first-name or a last-name column
FIRST_NAME_WORDS = vocabulary._words(
    "first_name firstname given_name givenname forename fname vorname prenom nombre voornaam "
    "primeiro_nome nome_proprio"
)
LAST_NAME_WORDS = vocabulary._words(
    "last_name lastname lname surname family_name familyname nachname familienname "
    "nom_de_famille apellido apellidos cognome achternaam familienaam sobrenome"
)


def name_part(name: str, pattern: str | None) -> str | None:
    """``first`` or ``last`` when a column holds first names or last names (its values said
    so, or its name)."""
    if pattern in ("first-name", "last-name"):
        return pattern.split("-")[0]
    tokens = vocabulary.name_tokens(name)
    joined = "".join(tokens)
    for part, words in (("first", FIRST_NAME_WORDS), ("last", LAST_NAME_WORDS)):
        if any(vocabulary._keyword_matches(w, tokens, joined) for w in words):
            return part
    return None


def pair_names(columns: list) -> None:
    """A first-name column beside a last-name column name one person together: say so in the
    reason of each (``columns``: the profile's columns, roles decided)."""
    parts: dict[str, list] = {"first": [], "last": []}
    for c in columns:
        if c.role == "identifier" and not c.review:
            part = name_part(c.name, c.pattern)
            if part is not None:
                parts[part].append(c)
    if not parts["first"] or not parts["last"]:
        return
    for part, other in (("first", "last"), ("last", "first")):
        names_ = ", ".join(repr(c.name) for c in parts[other])
        for c in parts[part]:
            c.reason += (
                f"; with {names_} ({other} names) it names a person: one identifier pair, drop both"
            )
