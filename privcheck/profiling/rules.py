"""Role rules: a column's role from what its values are and what its name says.

The order is the order of certainty, and recall of direct identifiers comes first:

1. **values that are identifiers** — most sampled values are e-mail addresses, phone numbers,
   IBANs, card numbers, national identifiers, IP addresses, URLs … (``recognizers``), or free
   text contains them: an identifier whatever the column is called;
2. **a name that reads as an identifier** (``email``, ``first_name``, ``ssn``, ``address``);
3. **dates** are quasi-identifiers (a date of birth first of all);
4. **a name that reads as a quasi-identifier or a sensitive attribute** (age, birth, sex,
   postal code, geography, ethnicity, marital status, education, occupation, nationality;
   health, income, special categories), unless the values contradict it;
5. **a key's name** (``patient_id``, ``customer_number``, ``id``);
6. **a near-unique text or code column** — distinct in nearly every row — is an identifier; a
   unique decimal measure (an amount, a lab value) is not;
7. **values that read as a concept** (sexes, marital statuses, countries, postal codes, ICD-10
   codes, ages …);
8. anything else is undecided: ``insensitive`` with ``review`` and what was seen.

Each rule returns the role, the reason (the policy line's comment), whether a person must
review it, and the concept the hierarchy builder uses.
"""

from __future__ import annotations

import numpy as np

from privcheck.errors import listing
from privcheck.profiling import recognizers, vocabulary
from privcheck.profiling.columns import ColumnData
from privcheck.profiling.dates import format_name
from privcheck.profiling.decision import Decision, pct, sampled
from privcheck.profiling.name_rules import (
    handles_decision,
    name_reading,
    names_contradict,
    names_decision,
    person_name_share,
)
from privcheck.profiling.types import TypeInfo

#: a column is near-unique when at least this share of its rows with a value hold a value no
#: other row holds
NEAR_UNIQUE = 0.9
#: fewer rows than this with a value say nothing about uniqueness
MIN_ROWS_FOR_UNIQUENESS = 10
#: a code column (letters/digits, no spaces) distinct in at least this share of rows is a key
CODE_DISTINCT = 0.5
#: vocabularies are matched on columns with at most this many distinct values
VOCABULARY_DOMAIN = 200


def type_pattern(col: ColumnData, info: TypeInfo) -> str | None:
    """A pattern the type itself shows (dates, digit codes), when no recognizer matched."""
    if info.type == "date" and info.date is not None:
        if info.date.mixed:
            return "date:mixed"
        return f"date:{info.date.format or 'ISO8601'}"
    if info.code:
        width = f"{info.width} digits" if info.width else "digits"
        return f"code:{width}, leading zeros"
    return None


# --------------------------------------------------------------------------- value evidence


def _normalised_values(col: ColumnData) -> tuple[list[str], np.ndarray] | None:
    if col.distinct > VOCABULARY_DOMAIN or col.distinct == 0:
        return None
    return [vocabulary.normalise(str(v)).strip() for v in col.python_values()], col.counts


def vocabulary_evidence(col: ColumnData) -> tuple[str, str, str, float] | None:
    """(concept, role, what the values read as, share of rows) from category vocabularies."""
    found = _normalised_values(col)
    if found is None:
        return None
    values, counts = found
    total = float(counts.sum())
    tokens = [vocabulary.value_tokens(v) for v in values]
    joined = [" ".join(t) for t in tokens]
    # sex: few values, nearly all of them sexes, at least one an unambiguous one
    sex = np.array(
        [
            j in vocabulary.SEX_VALUES or v in vocabulary.SEX_VALUES
            for j, v in zip(joined, values, strict=True)
        ]
    )
    if (
        col.distinct <= 5
        and counts[sex].sum() >= 0.95 * total
        and any(j in vocabulary.SEX_CORE for j in joined)
    ):
        return "sex", "quasi_identifier", "sexes", float(counts[sex].sum()) / total
    countries = np.array([j in vocabulary.COUNTRIES for j in joined])
    if countries.sum() >= 3 and counts[countries].sum() >= 0.8 * total:
        return "geography", "quasi_identifier", "countries", float(counts[countries].sum()) / total
    states = np.array([j in vocabulary.US_STATES for j in joined])
    if states.sum() >= 5 and counts[states].sum() >= 0.9 * total:
        return "geography", "quasi_identifier", "US states", float(counts[states].sum()) / total
    best = None
    for concept, (role, label, words) in vocabulary.VOCABULARIES.items():
        hit = np.array([bool(set(t) & words) for t in tokens])
        share = float(counts[hit].sum()) / total
        enough = 3 if concept in ("occupation", "education", "health") else 2
        enough_values = hit.sum() >= min(enough, col.distinct) and col.distinct >= 2
        if enough_values and share >= 0.8 and (best is None or share > best[3]):
            best = (concept, role, label, share)
    return best


def _is_sequence(col: ColumnData, info: TypeInfo) -> bool:
    """Integers that are consecutive record numbers (1, 2, 3 … each once)."""
    if info.type != "integer" or info.low is None or info.high is None:
        return False
    return col.unique_rows == col.n_present and info.high - info.low + 1 == col.distinct


def _measure_like(info: TypeInfo) -> bool:
    """Numbers that read as a measure (an amount, a count) rather than a key: negative values,
    or values spread over orders of magnitude (keys are spread evenly over their range)."""
    if info.low is None or info.p05 is None or info.p95 is None:
        return False
    if info.low < 0:
        return True
    return info.p05 <= 0 or info.p95 / max(info.p05, 1e-12) > 50


# --------------------------------------------------------------------------- the rules


def decide(col: ColumnData, info: TypeInfo, found: recognizers.Detection) -> Decision:
    """The drafted role of one column (see the module docstring for the order)."""
    named = vocabulary.concept_of_name(col.name)
    pattern = type_pattern(col, info)
    best = found.best()
    if best is not None:
        pattern = best.name
    if col.n_present == 0:
        return Decision(
            "insensitive",
            "review: every value is missing; nothing to protect, or the wrong extract",
            True,
            pattern=pattern,
        )

    # 1. values that are direct identifiers
    if best is not None and best.role == "identifier":
        return Decision(
            "identifier",
            f"{pct(found.shares[best.name])} of {sampled(col)} are {best.label}",
            pattern=best.name,
        )
    if found.identifier_share >= recognizers.KIND_SHARE:
        kinds = [
            r.label
            for r in recognizers.RECOGNIZERS
            if r.role == "identifier" and found.shares.get(r.name)
        ]
        top = max(found.shares, key=found.shares.get)
        return Decision(
            "identifier",
            f"{pct(found.identifier_share)} of {sampled(col)} are {listing(kinds, 3, sep=' or ')}",
            pattern=top,
        )
    inside = {k: v for k, v in found.inside.items() if v >= recognizers.CONTAINS_SHARE}
    if inside:
        kind = max(inside, key=inside.get)
        return Decision(
            "identifier",
            f"free text: {pct(inside[kind])} of {sampled(col)} contain "
            f"{recognizers.by_name(kind).label}",
            pattern=kind,
        )
    evidence = vocabulary_evidence(col)

    # 2. a name that reads as an identifier
    if named is not None and named.concept.role == "identifier":
        if evidence is not None and col.distinct <= 10 and evidence[1] != "identifier":
            concept, role, label, share = evidence
            return Decision(
                role,
                f"review: named like {named.concept.label} ({col.name!r}), but its "
                f"{col.distinct} values read as {label} ({pct(share)} of rows)",
                True,
                concept,
                pattern,
            )
        reason = f"name reads as {named.concept.label} ({named.keyword!r})"
        if _few_values(col):
            return Decision(
                "identifier",
                f"review: {reason}, but it has only {col.distinct} distinct values in "
                f"{col.n_present:,} rows: the name of something else?",
                True,
                pattern=pattern,
            )
        return Decision("identifier", reason + _uniqueness_note(col), pattern=pattern)

    # 3. dates
    if info.type == "date":
        return _date_decision(col, info, named, pattern)

    # 4. a name that reads as a quasi-identifier or a sensitive attribute (values that read as
    # person names or user names ask for a review)
    reading = name_reading(col, info, evidence)
    if named is not None:
        decision = _named_decision(col, info, named, evidence, pattern)
        return names_contradict(col, decision, reading, evidence)

    # 4b. values that read as person names or user names, whatever the column is called
    if reading is not None:
        found_names = names_decision(col, reading, evidence)
        if found_names is not None:
            return found_names
    handles = handles_decision(col, info)
    if handles is not None:
        return handles

    # 5. a key's name
    key = vocabulary.id_name(col.name)
    if key == "person":
        reason = f"name reads as a key of a person or record ({col.name!r})"
        if _few_values(col):
            return Decision(
                "identifier",
                f"review: {reason}, but it has only {col.distinct} distinct values in "
                f"{col.n_present:,} rows: a category?",
                True,
                pattern=pattern,
            )
        return Decision("identifier", reason + _uniqueness_note(col), pattern=pattern)
    if col.distinct == 1:
        return Decision(
            "insensitive",
            "one value in every row: it tells nothing about anyone",
            pattern=pattern,
        )

    # 6. near-unique columns
    unique = col.unique_present_share
    if col.n_present >= MIN_ROWS_FOR_UNIQUENESS and unique >= NEAR_UNIQUE:
        near = _near_unique(col, info, unique, pattern)
        if near is not None:
            return near
    if key == "group":
        return Decision(
            "insensitive",
            f"review: named like the key of a group, not of a person ({col.name!r}, "
            f"{col.distinct:,} values); a quasi-identifier if an intruder can know it",
            True,
            pattern=pattern,
        )
    if info.free_text and col.distinct_share >= 0.5:
        return Decision(
            "identifier",
            f"free text (mean {info.mean_length:.0f} characters, {pct(col.distinct_share)} "
            "distinct): it can name or describe a person; drop it or review it",
            pattern=pattern,
        )
    if info.type == "text" and person_name_share(col) >= 0.8 and col.distinct_share >= 0.3:
        return Decision(
            "identifier",
            f"{pct(person_name_share(col))} of {sampled(col)} read as personal names",
            pattern="person-name",
        )
    if (
        info.type == "text"
        and info.code_share >= 0.8
        and col.distinct_share >= CODE_DISTINCT
        and col.n_present >= MIN_ROWS_FOR_UNIQUENESS
    ):
        return Decision(
            "identifier",
            f"review: codes distinct in {pct(col.distinct_share)} of rows: an account, "
            "record or customer number?",
            True,
            pattern=pattern or "code",
        )

    # 7. values that read as a concept
    if best is not None:  # a postal code or an ICD-10 code
        role = best.role
        return Decision(
            role,
            f"{pct(found.shares[best.name])} of {sampled(col)} are {best.label}",
            concept=best.concept,
            pattern=best.name,
        )
    if evidence is not None:
        concept, role, label, share = evidence
        review = concept in ("occupation", "education", "health", "religion")
        return Decision(
            role,
            ("review: " if review else "") + f"values read as {label} ({pct(share)} of rows)",
            review,
            concept,
            pattern,
        )
    if info.code and info.width in (4, 5) and col.distinct >= 10 and unique < 0.5:
        return Decision(
            "quasi_identifier",
            f"review: {info.width}-digit codes with leading zeros ({col.distinct:,} values): "
            "postal codes?",
            True,
            "postal",
            pattern,
        )
    numeric = _numeric_guess(col, info, pattern)
    if numeric is not None:
        return numeric

    # 8. undecided
    return Decision("insensitive", "review: " + _seen(col, info), True, pattern=pattern)


def _few_values(col: ColumnData) -> bool:
    """A handful of values over many rows: not what a name or a key looks like."""
    return col.n_present >= 50 and col.distinct <= 20 and col.distinct_share < 0.05


def _uniqueness_note(col: ColumnData) -> str:
    if col.n_present >= MIN_ROWS_FOR_UNIQUENESS:
        return f"; {pct(col.unique_present_share)} of its values are unique"
    return ""


def _seen(col: ColumnData, info: TypeInfo) -> str:
    what = {"integer": "integers", "decimal": "decimals", "text": "text", "boolean": "booleans"}
    text = f"{what.get(info.type, info.type)}, {col.distinct:,} distinct"
    if info.numeric and info.low is not None:
        text += f" ({_number(info.low)} to {_number(info.high)})"
    if info.stray is not None:
        text += f"; mostly numbers or dates, but not {info.stray!r}"
    return text + "; no name or value says its role (insensitive until you decide)"


def _number(x: float | None) -> str:
    if x is None:
        return "?"
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.4g}"


def _date_decision(col, info: TypeInfo, named, pattern) -> Decision:
    guess = info.date
    fmt = guess.name if guess is not None else "dates"
    birth = named is not None and named.concept.name == "birth"
    what = "date of birth" if birth else "a date"
    note = ""
    if guess is not None and guess.ambiguous_with is not None:
        note = (
            f"; day and month are ambiguous (read as {format_name(guess.format)}, could be "
            f"{format_name(guess.ambiguous_with)}): the year level is the same either way"
        )
    if guess is not None and guess.mixed:
        return Decision(
            "quasi_identifier",
            f"review: {what} in several formats ({fmt}); a table hierarchy by year was written: "
            "rewrite the column in one format to use a dates hierarchy",
            True,
            "birth" if birth else "date",
            pattern,
        )
    if named is not None and named.concept.role != "quasi_identifier":
        return Decision(
            "quasi_identifier",
            f"review: dates ({fmt}) in a column named like {named.concept.label}; dates are "
            "quasi-identifiers" + note,
            True,
            "date",
            pattern,
        )
    reason = (
        f"{what} ({named.keyword!r}); dates {fmt}"
        if birth
        else f"dates ({fmt}): an intruder can know when things happened"
        if named is None
        else f"dates ({fmt}); name reads as {named.concept.label}"
    )
    return Decision(
        "quasi_identifier", reason + note, bool(note), "birth" if birth else "date", pattern
    )


def _named_decision(col, info: TypeInfo, named, evidence, pattern) -> Decision:
    concept = named.concept
    reason = f"name reads as {concept.label} ({named.keyword!r})"
    if concept.role == "sensitive":
        return Decision("sensitive", reason, concept=concept.name, pattern=pattern)
    # a quasi-identifier by name: do the values agree?
    unique = col.unique_present_share
    categorical = concept.name in (
        "sex",
        "ethnicity",
        "marital",
        "education",
        "occupation",
        "nationality",
    )
    if (
        info.type == "text"
        and col.n_present >= MIN_ROWS_FOR_UNIQUENESS
        and unique >= NEAR_UNIQUE
        and concept.name != "postal"
    ):
        return Decision(
            "identifier",
            f"review: {reason}, but {pct(unique)} of its values are unique: as precise as an "
            "identifier",
            True,
            concept.name,
            pattern,
        )
    if concept.name == "sex" and col.distinct > 5:
        return Decision(
            "quasi_identifier",
            f"review: {reason}, but it has {col.distinct:,} distinct values",
            True,
            concept.name,
            pattern,
        )
    if (
        categorical
        and evidence is not None
        and evidence[0] != concept.name
        and evidence[0] in ("sex", "marital", "ethnicity", "education", "occupation")
    ):
        return Decision(
            "quasi_identifier",
            f"review: {reason}, but its values read as {evidence[2]}",
            True,
            concept.name,
            pattern,
        )
    if concept.name == "age" and info.numeric and info.high is not None and info.high > 130:
        return Decision(
            "quasi_identifier",
            f"review: {reason}, but values reach {_number(info.high)}",
            True,
            concept.name,
            pattern,
        )
    return Decision("quasi_identifier", reason, concept=concept.name, pattern=pattern)


def _near_unique(col, info: TypeInfo, unique: float, pattern) -> Decision | None:
    share = pct(unique)
    if info.type in ("text",):
        what = (
            "free text"
            if info.free_text
            else "codes"
            if info.code or info.code_share >= 0.8
            else "text"
        )
        return Decision(
            "identifier",
            f"{what} distinct in nearly every row ({share} of values unique)",
            pattern=pattern,
        )
    if info.type == "integer":
        if _is_sequence(col, info):
            return Decision(
                "identifier",
                f"consecutive numbers {_number(info.low)}–{_number(info.high)}, one per row: a "
                "record number",
                pattern=pattern or "sequence",
            )
        measure = vocabulary.measure_name(col.name)
        if not _measure_like(info) and measure is None:
            return Decision(
                "identifier",
                f"review: integers distinct in nearly every row ({share} unique) and no "
                "measure's name: a key? (if it is an amount, make it insensitive or sensitive)",
                True,
                pattern=pattern,
            )
        why = f"named like one ({measure!r})" if measure else "spread like one"
        return Decision(
            "insensitive",
            f"review: integers of a measure ({why}), {share} unique: not an identifier; "
            "sensitive if it is income or health, a quasi-identifier if an intruder can know it",
            True,
            pattern=pattern,
        )
    if info.type == "decimal":
        return Decision(
            "insensitive",
            f"review: a decimal measure, {share} unique: not an identifier; sensitive if it is "
            "income or health, a quasi-identifier if an intruder can know it",
            True,
            pattern=pattern,
        )
    return None


def _numeric_guess(col, info: TypeInfo, pattern) -> Decision | None:
    """Integers that read as ages or years of birth (no name said so): a quasi-identifier to
    review."""
    if info.type != "integer" or info.low is None or col.distinct < 10:
        return None
    if info.low >= 0 and info.high <= 120 and 15 <= (info.p05 + info.p95) / 2 <= 75:
        return Decision(
            "quasi_identifier",
            f"review: integers {_number(info.low)}–{_number(info.high)} spread like ages",
            True,
            "age",
            pattern,
        )
    if info.low >= 1900 and info.high <= 2030:
        return Decision(
            "quasi_identifier",
            f"review: integers {_number(info.low)}–{_number(info.high)}: years (of birth?)",
            True,
            "age",
            pattern,
        )
    return None
