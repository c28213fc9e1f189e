"""One age-like quasi-identifier: an age, a year or date of birth and an age group are the
same information to an intruder, so a draft keeps the one that loses least and drafts the
others as identifiers to review (``one_age_like``; ``keep_one_age_like`` applies it to the
profile's columns).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from privcheck.profiling.vocabulary import concept_of_name

if TYPE_CHECKING:
    from privcheck.profiling.profile import ColumnProfile


#: concepts that say when a person was born: an age, a date or year of birth, an age group
AGE_LIKE = frozenset({"age", "birth"})


@dataclass
class AgeLike:
    """A quasi-identifier whose name says it is an age, a date or year of birth."""

    name: str
    concept: str
    type: str
    #: the catalog set its role (the profile does not override a catalog)
    tagged: bool


def age_like_rank(column: AgeLike) -> tuple[int, str]:
    """How much a release loses by keeping ``column`` rather than another age-like column, for
    the same protection (lower is better), and what it is.

    An age or a birth year in whole years generalizes to every band the others could show (5,
    10, 20 years) through one intervals hierarchy, at the least loss; a full date of birth
    only reaches the same protection at its year level, and its finer levels are near-unique
    (a release never keeps them); an age group is already banded and can show no less."""
    numeric = column.type in ("integer", "decimal")
    if column.concept == "age" and numeric:
        return 0, "an age in years"
    if column.concept == "birth" and numeric:
        return 1, "a year of birth"
    if column.type == "date":
        return 2, "a full date of birth" if column.concept == "birth" else "a date"
    return 3, "an age group" if column.concept == "age" else "a banded birth date"


def one_age_like(columns: list[AgeLike]) -> tuple[str, dict[str, str]] | None:
    """Of several age-like quasi-identifiers, the one to draft (the least loss for the same
    protection) and, for each other one, the reason it is drafted an identifier with a review
    mark instead. None when there are fewer than two.

    They are the same information to an intruder — who knows a birth date knows the age —, so
    drafting them all multiplies the quasi-identifiers without protecting anyone more, and the
    release loses more everywhere; releasing the others in clear beside a generalized one would
    undo its generalization. An identifier is left out of the release, which is what an ARX
    user does with a redundant attribute (type 'identifying'); the review mark makes someone
    decide to keep one as a second quasi-identifier. A catalog's choice stands: when the
    catalog tagged an age-like column, only the untagged ones are left out.
    """
    if len(columns) < 2:
        return None
    tagged = [c for c in columns if c.tagged]
    free = [c for c in columns if not c.tagged]
    if not free:
        return None
    kept = tagged[0] if tagged else min(free, key=lambda c: age_like_rank(c)[0])
    what = age_like_rank(kept)[1]
    others = {}
    for c in free:
        if c is kept:
            continue
        theirs = age_like_rank(c)[1]
        others[c.name] = (
            f"review: {theirs}: to an intruder the same information as {kept.name!r} ({what}, "
            "the one age-like quasi-identifier drafted); left out of the release (identifier) "
            f"so it cannot undo the generalization of {kept.name!r}; make it a "
            "quasi-identifier if the release needs it"
        )
    return kept.name, others


def keep_one_age_like(columns: list[ColumnProfile]) -> None:
    """Of the quasi-identifiers named like an age, a date or year of birth, keep one; the
    others become identifiers with a review mark (``one_age_like``)."""
    found = []
    for c in columns:
        named = concept_of_name(c.name)
        if c.role == "quasi_identifier" and named and named.concept.name in AGE_LIKE:
            concept = c.concept if c.concept in AGE_LIKE else named.concept.name
            found.append(AgeLike(c.name, concept, c.type, c.tagged))
    chosen = one_age_like(found)
    if chosen is None:
        return
    kept, others = chosen
    for c in columns:
        if c.name in others:
            c.role, c.reason, c.review = "identifier", others[c.name], True
            c.hierarchy = c.built = None
    names = ", ".join(repr(n) for n in others)
    keeper = next(c for c in columns if c.name == kept)
    what = age_like_rank(next(a for a in found if a.name == kept))[1]
    keeper.reason += (
        f"; the one age-like quasi-identifier: {what} loses least for the same protection "
        f"({names}: the same information, left out and marked for review)"
    )
