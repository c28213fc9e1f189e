"""The person behind the rows: a repeated person key, and uniqueness judged per person.

A hospital or HR extract has one row per visit, claim or contract, so a person has several rows.
Counted in rows, a release that passes k = 5 can leave most people in classes of fewer than five
people, and a name repeated over a person's six visits no longer looks "near-unique". So the
draft looks for the column that identifies the person and, when it finds one, writes
``individual: COLUMN`` (every model then counts people) and judges the other columns per person.

**The key.** A candidate is a column of codes or integers whose values repeat a few times each —
between ``MIN_PEOPLE`` (or one in ``MAX_REPEATS`` rows) and ``MAX_DISTINCT_SHARE`` of the rows
distinct, no value on more than ``MAX_RECORDS`` rows — and within whose values the attributes of
a person stay constant: on a sample of up to ``SAMPLE_PEOPLE`` of its repeated values, an
identifier column (a name, an e-mail, a national number) or a date or year of birth or a sex is
the same on every row of at least ``CONSTANT_SHARE`` of them. That tells a person (whose birth
date does not change between visits) from a group key (a ward, a household: its members' birth
dates differ). Among several candidates, the one named like a person's key, then the one with
the most values, then a code (no spaces) before a name.

**Per person.** With the key found, a column that is not an identifier yet but has about as many
values as there are people (at least ``PER_PERSON_SHARE`` of them) is decided again by the same
rules (``rules.decide``) on its values counted per person — how many people hold each value — so
a name repeated over one person's visits reads as unique to that person, which it is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from privcheck.classes import sorted_factorize
from privcheck.errors import listing
from privcheck.profiling import rules, vocabulary
from privcheck.profiling.columns import ColumnData, column_data
from privcheck.profiling.decision import Decision
from privcheck.profiling.recognizers import detect_column
from privcheck.profiling.types import infer

if TYPE_CHECKING:
    from privcheck.profiling.profile import ColumnProfile

#: at least this many people (distinct key values) …
MIN_PEOPLE = 20
#: … and at least one per this many rows: more rows per value is a category, not a person
MAX_REPEATS = 50
#: at most this share of the rows distinct: a key distinct in (nearly) every row is a record's
MAX_DISTINCT_SHARE = 0.95
#: no value of a person key on more rows than this
MAX_RECORDS = 1_000
#: repeated key values whose rows are compared (a sample: the test is per value)
SAMPLE_PEOPLE = 2_000
#: a person attribute is constant within at least this share of the sampled repeated values
CONSTANT_SHARE = 0.98
#: columns with at least this many values per person are judged again per person
PER_PERSON_SHARE = 0.3
#: what a person attribute is (besides any identifier): it does not change between visits
PERSON_CONCEPTS = frozenset({"birth", "sex", "person_name", "national_id"})


@dataclass(frozen=True)
class Individual:
    """The column drafted as ``individual``: its name, people, and why."""

    name: str
    n_people: int
    n_rows: int
    constant: tuple[str, ...]
    reason: str


def _codes(column: pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
    """(code per row, −1 where missing or blank; the values coded, as Arrow) of an Arrow
    column — its dictionary's indices, never a Python object per value."""
    if not pa.types.is_dictionary(column.type):
        column = column.dictionary_encode()
    column = column.unify_dictionaries()
    if column.num_chunks == 0:
        return np.zeros(0, dtype=np.int64), pa.array([], pa.string())
    dictionary = column.chunk(0).dictionary
    indices = pa.chunked_array([c.indices for c in column.chunks]).cast(pa.int64())
    codes = indices.fill_null(-1).to_numpy()
    if pa.types.is_string(dictionary.type) or pa.types.is_large_string(dictionary.type):
        blank = pc.equal(pc.utf8_trim_whitespace(dictionary), "").fill_null(True)
    else:
        blank = dictionary.is_null()
    blank = np.asarray(blank.to_numpy(zero_copy_only=False), dtype=bool)
    if blank.any():
        codes = np.where((codes >= 0) & np.append(blank, False)[codes], -1, codes)
    return np.asarray(codes, dtype=np.int64), dictionary


def _candidates(table: pa.Table, profiles: list[ColumnProfile]) -> list[ColumnProfile]:
    n = table.num_rows
    out = []
    for c in profiles:
        if c.type not in ("text", "integer") or c.missing_share > 0.0:
            continue
        if c.role in ("sensitive",) or c.distinct < max(MIN_PEOPLE, n / MAX_REPEATS):
            continue
        if c.distinct > MAX_DISTINCT_SHARE * n:
            continue
        if _reads_as_attribute(c):
            continue
        out.append(c)
    return out


def _reads_as_attribute(c: ColumnProfile) -> bool:
    """Whether a column reads as an attribute of a person (an age, a birth year, a postcode, a
    place …) rather than a key: an age repeats over the people of that age, and the birth year
    beside it is constant within each age, which looks like a person key but is a dependency
    between two attributes. A column named as a person key (``patient_id``) stays a candidate
    whatever its values look like."""
    if vocabulary.id_name(c.name) is not None:
        return False
    hit = vocabulary.concept_of_name(c.name)
    return c.concept is not None or hit is not None


def _person_attribute(c: ColumnProfile) -> bool:
    if c.distinct < 2:
        return False
    if c.role == "identifier":
        return True
    hit = vocabulary.concept_of_name(c.name)
    concept = c.concept or (hit.concept.name if hit is not None else None)
    return concept in PERSON_CONCEPTS


def _constant_within(
    key: np.ndarray, table: pa.Table, others: list[ColumnProfile], seed: int
) -> tuple[list[str], int, int] | None:
    """The person attributes constant within the key's repeated values (sampled), the number of
    people, and the largest number of rows of one; None when the key is no person key."""
    counts = np.bincount(key)
    n_people = int(np.count_nonzero(counts))
    if counts.max(initial=0) > MAX_RECORDS:
        return None
    repeated = np.flatnonzero(counts >= 2)
    if not len(repeated):
        return None
    if len(repeated) > SAMPLE_PEOPLE:
        repeated = np.random.default_rng(seed).choice(repeated, SAMPLE_PEOPLE, replace=False)
    chosen = np.zeros(len(counts), dtype=bool)
    chosen[repeated] = True
    rows = np.flatnonzero(chosen[key])
    group = key[rows]
    constant = []
    for c in others:
        if not _person_attribute(c):
            continue
        values, categories = _codes(table.column(c.name).take(pa.array(rows)))
        card = len(categories)
        pair = group * (card + 1) + (values + 1)
        _, uniq = sorted_factorize(pair)
        per_person = np.bincount(np.asarray(uniq, dtype=np.int64) // (card + 1))
        distinct = per_person[repeated]
        if np.count_nonzero(distinct == 1) >= CONSTANT_SHARE * len(repeated):
            constant.append(c.name)
    if not constant:
        return None
    return constant, n_people, int(counts.max())


def find_individual(
    table: pa.Table, profiles: list[ColumnProfile], seed: int = 0
) -> Individual | None:
    """The column that identifies the person of a table with several rows per person, or None
    (see the module docstring)."""
    found = []
    for c in _candidates(table, profiles):
        key, categories = _codes(table.column(c.name))
        if (key < 0).any():
            continue
        others = [o for o in profiles if o.name != c.name]
        hit = _constant_within(key, table, others, seed)
        if hit is None:
            continue
        constant, n_people, most = hit
        named = vocabulary.id_name(c.name) == "person"
        code = not any(" " in str(v) for v in categories.slice(0, 100).to_pylist())
        found.append(((named, n_people, code), c, constant, n_people, most))
    if not found:
        return None
    _, c, constant, n_people, most = max(found, key=lambda f: f[0])
    n = table.num_rows
    shown = listing(constant, 4)
    reason = (
        f"{n_people:,} values over {n:,} rows (1–{most} rows each) with {shown} the same on "
        "every row of each: one person per value, several records per person"
    )
    return Individual(c.name, n_people, n, tuple(constant), reason)


def per_person(
    table: pa.Table,
    individual: Individual,
    profiles: list[ColumnProfile],
    positions: np.ndarray,
) -> list[tuple[str, Decision]]:
    """Columns that are identifiers once their values are counted per person (a name repeated
    over one person's visits): ``(column, decision)`` for each column whose role this changes
    to identifier. Each is typed and its values recognised as the draft does."""
    key, _ = _codes(table.column(individual.name))
    n_people = individual.n_people
    out = []
    for c in profiles:
        if c.name == individual.name or c.role == "identifier" or c.type in ("date", "boolean"):
            continue
        if c.distinct < PER_PERSON_SHARE * n_people:
            continue
        column = table.column(c.name)
        col = column_data(column, c.name, positions)
        people_col = _counted_per_person(col, column, key, n_people)
        if people_col is None:
            continue
        info = infer(col)
        decision = rules.decide(people_col, info, detect_column(col, info))
        if decision.role == "identifier":
            out.append((c.name, decision))
    return out


def _counted_per_person(
    col: ColumnData, column: pa.ChunkedArray, key: np.ndarray, n_people: int
) -> ColumnData | None:
    """``col`` with its values counted in people: each value's count is the people holding
    it, the rows are the (person, value) pairs plus the people with no value."""
    codes, categories = _codes(column)
    card = len(categories)
    present = codes >= 0
    if not present.any():
        return None
    pair = key[present] * card + codes[present]
    _, uniq = sorted_factorize(pair)
    uniq = np.asarray(uniq, dtype=np.int64)
    holders = np.bincount(uniq % card, minlength=card)
    with_value = np.zeros(n_people, dtype=bool)
    with_value[uniq // card] = True
    used = np.flatnonzero(holders)
    values = categories.take(pa.array(used))
    n_missing = int(n_people - with_value.sum())
    return replace(
        col,
        n_rows=len(uniq) + n_missing,
        values=values,
        counts=holders[used].astype(np.int64),
        n_missing=n_missing,
        _python=None,
        _strings=None,
    )


def draft_individual(
    table: pa.Table,
    columns: list[ColumnProfile],
    positions: np.ndarray,
    seed: int,
    notes: list[str],
) -> Individual | None:
    """Find the column that identifies the person (``find_individual``); when there is one,
    make it the draft's ``individual`` (an identifier, left out of the attributes) and turn
    into identifiers the columns that are unique per person, not per row."""
    found = find_individual(table, columns, seed)
    if found is None:
        return None
    key = next(c for c in columns if c.name == found.name)
    key.role, key.review, key.hierarchy, key.built = "identifier", False, None, None
    key.reason = f"the individual (classes count people): {found.reason}"
    for name, decision in per_person(table, found, columns, positions):
        c = next(c for c in columns if c.name == name)
        c.role, c.hierarchy, c.built = "identifier", None, None
        c.review = decision.review or decision.reason.startswith("review:")
        c.pattern = decision.pattern or c.pattern
        c.reason = (
            f"{decision.reason} — counted per person of {found.name!r}: its values repeat "
            "over each person's records"
        )
    notes.append(
        f"a person has several rows: {found.name!r} identifies the person "
        f"({found.n_people:,} people in {found.n_rows:,} records), so the models count people "
        "per class, not records"
    )
    return found
