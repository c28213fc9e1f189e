"""Category hierarchies that group by meaning where the values say so.

A quasi-identifier's hierarchy decides what a release can still say about it: grouped by
frequency alone, a job or a city is either itself or ``*``. Where the values carry their own
grouping, the draft uses it:

- **ICD-10 codes**: code → category → chapter → ``*`` (``E11.9`` → ``E11`` → ``E00-E90`` →
  ``*``; the 22 chapters of the WHO classification, by their code ranges);
- **codes written as digits** (industry and occupation codes: NACE ``10.11``, ISCO ``2211``,
  SOC ``15-1252``): the leading characters, one fewer per level (``2211`` → ``221*`` →
  ``22*`` → ``2*`` → ``*``) — these classifications are built so;
- **countries** → region → continent → ``*`` (the UN M49 regions; English names and the
  spellings privcheck's vocabulary reads); **US states** → census division → census region
  → ``*`` (the US Census Bureau's);
- **job titles** that share their head word (``Engineer, civil``, ``Civil engineer``,
  ``Engineer, mining``) → that word (``*engineer*``) → the commonest words → ``*``;
- anything else: **by frequency**, multi-level — values held by at least k records kept, the
  rarer ones gathered into ``other``; then only the commonest values covering 80 %, then 50 %
  of the records; then ``*``.

Each builder returns ARX-style rows (``value;level 1;…;*``) or None when the values do not
fit it; the caller resolves the rows with privcheck's own resolvers before writing them.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

from privcheck.profiling.vocabulary import normalise, value_tokens

TOP = "*"
#: values that must read as the builder's kind for it to apply (share of rows)
FIT_SHARE = 0.9
#: the frequency levels after the first: the commonest values covering these shares of records
COVERAGE = (0.8, 0.5)


def _levels_to_rows(levels: list[list[str]]) -> list[list[str]]:
    """Rows from per-level labels (ground first): a level equal to the one below, or one group
    only (which is ``*`` again), is dropped; ``*`` closes every row."""
    kept = [levels[0]]
    for level in levels[1:]:
        if level != kept[-1] and len(set(level)) > 1:
            kept.append(level)
    kept.append([TOP] * len(levels[0]))
    return [list(row) for row in zip(*kept, strict=True)]


def label_for_other(labels: list[str]) -> str:
    """A label for gathered values that no value of the column spells."""
    taken = {v.casefold() for v in labels}
    for candidate in ("other", "(other)", "(other values)", "(rare values)"):
        if candidate not in taken:
            return candidate
    i = 2
    while f"(other {i})" in taken:
        i += 1
    return f"(other {i})"


def _share(hit: np.ndarray, counts: np.ndarray) -> float:
    total = float(counts.sum())
    return float(counts[hit].sum()) / total if total else 0.0


# --------------------------------------------------------------------------- frequency


def frequency_levels(groups: list[str], counts: np.ndarray, k: int, other: str) -> list[list[str]]:
    """Levels above ``groups`` (one label per row, rows ``counts`` records each): groups of at
    least k records kept, the rest ``other``; then the commonest covering ``COVERAGE``."""
    weight: Counter[str] = Counter()
    for g, c in zip(groups, counts.tolist(), strict=True):
        weight[g] += c
    total = sum(weight.values())
    ordered = sorted(weight, key=lambda g: (-weight[g], g))
    levels = [[g if weight[g] >= k and g != other else other for g in groups]]
    for share in COVERAGE:
        keep, covered = set(), 0
        for g in ordered:
            if covered >= share * total or weight[g] < k or g == other:
                break
            keep.add(g)
            covered += weight[g]
        gathered = {g for g in weight if g not in keep}
        if len(keep) < 2 or len(gathered) < 2:  # one value left, or one renamed 'other'
            levels.append(levels[-1])
            continue
        levels.append([g if g in keep else other for g in groups])
    return levels


def frequency_rows(labels: list[str], counts: np.ndarray, k: int) -> tuple[list[list[str]], str]:
    """The fallback: rows most frequent first, multi-level by frequency (module docstring)."""
    order = np.argsort(-counts, kind="stable")
    ground = [labels[i] for i in order]
    sizes = counts[order]
    other = label_for_other(ground)
    return _levels_to_rows([ground, *frequency_levels(ground, sizes, k, other)]), other


# --------------------------------------------------------------------------- ICD-10

_ICD10 = re.compile(r"^([A-Z])(\d)([0-9A-Z])(?:\.?[0-9A-Z]{1,4})?$")
#: the chapters of ICD-10 (WHO), by the range of their three-character categories
ICD10_CHAPTERS = (
    ("A00", "B99"),
    ("C00", "D48"),
    ("D50", "D89"),
    ("E00", "E90"),
    ("F00", "F99"),
    ("G00", "G99"),
    ("H00", "H59"),
    ("H60", "H95"),
    ("I00", "I99"),
    ("J00", "J99"),
    ("K00", "K93"),
    ("L00", "L99"),
    ("M00", "M99"),
    ("N00", "N99"),
    ("O00", "O99"),
    ("P00", "P96"),
    ("Q00", "Q99"),
    ("R00", "R99"),
    ("S00", "T98"),
    ("V01", "Y98"),
    ("Z00", "Z99"),
    ("U00", "U99"),
)


def icd10_chapter(category: str) -> str | None:
    """``E11`` → ``E00-E90`` (a category past its chapter's end, ``E99``: the chapter too)."""
    for first, last in ICD10_CHAPTERS:
        if first <= category <= last:
            return f"{first}-{last}"
    for first, last in ICD10_CHAPTERS:
        if first[0] <= category[0] <= last[0]:
            return f"{first}-{last}"
    return None


def icd10_rows(labels: list[str], counts: np.ndarray) -> list[list[str]] | None:
    """Code → category → chapter → ``*`` when nearly every value is an ICD-10 code."""
    matches = [_ICD10.match(v.strip().upper()) for v in labels]
    if _share(np.array([m is not None for m in matches]), counts) < FIT_SHARE:
        return None
    other = label_for_other(labels)
    categories, chapters = [], []
    for value, m in zip(labels, matches, strict=True):
        if m is None:
            categories.append(value)
            chapters.append(other)
            continue
        category = "".join(m.groups())
        categories.append(category)
        chapters.append(icd10_chapter(category) or other)
    return _levels_to_rows([labels, categories, chapters])


# --------------------------------------------------------------------------- codes

_DIGIT_CODE = re.compile(r"^[A-Z]?\d[\d.\-/ ]*\d$|^\d$")


def _significant(value: str) -> list[int]:
    """Positions of the characters that carry the code (not its separators)."""
    return [i for i, ch in enumerate(value) if ch.isalnum()]


def code_prefix_rows(labels: list[str], counts: np.ndarray) -> list[list[str]] | None:
    """Digit codes (an optional leading letter, digits, separators): each level keeps one
    significant character fewer (``2211`` → ``221*`` → ``22*`` → ``2*``), then ``*``."""
    fits = np.array([_DIGIT_CODE.match(v) is not None for v in labels])
    if len(labels) < 3 or _share(fits, counts) < FIT_SHARE:
        return None
    positions = [_significant(v) for v in labels]
    widths = {len(p) for p, ok in zip(positions, fits.tolist(), strict=True) if ok}
    if len(widths) != 1 or min(widths) < 3:  # a classification's codes: one width per level
        return None
    other = label_for_other(labels)
    levels = [labels]
    for keep in range(min(widths) - 1, 0, -1):
        levels.append(
            [
                value[: pos[keep - 1] + 1] + "*" if ok else other
                for value, pos, ok in zip(labels, positions, fits.tolist(), strict=True)
            ]
        )
    return _levels_to_rows(levels)


# --------------------------------------------------------------------------- places

#: UN M49 regions: region → (continent, countries as ``vocabulary.value_tokens`` spellings)
_M49 = {
    "Northern Africa": ("Africa", "algeria egypt libya morocco sudan tunisia western-sahara"),
    "Sub-Saharan Africa": (
        "Africa",
        "angola benin botswana burkina-faso burundi cameroon cape-verde central-african-republic "
        "chad comoros congo democratic-republic-of-the-congo djibouti equatorial-guinea eritrea "
        "eswatini ethiopia gabon gambia ghana guinea guinea-bissau ivory-coast cote-d-ivoire "
        "kenya lesotho liberia madagascar malawi mali mauritania mauritius mozambique namibia "
        "niger nigeria rwanda sao-tome-and-principe senegal seychelles sierra-leone somalia "
        "south-africa south-sudan tanzania togo uganda zambia zimbabwe",
    ),
    "Northern America": (
        "Americas",
        "canada united-states usa us united-states-of-america bermuda greenland "
        "outlying-us-guam-usvi-etc",
    ),
    "Latin America and the Caribbean": (
        "Americas",
        "argentina bahamas barbados belize bolivia brazil chile colombia costa-rica cuba "
        "dominica dominican-republic ecuador el-salvador grenada guatemala guyana haiti "
        "honduras jamaica mexico nicaragua panama paraguay peru puerto-rico suriname "
        "trinadad-tobago trinidad-and-tobago uruguay venezuela saint-lucia antigua-and-barbuda",
    ),
    "Central Asia": ("Asia", "kazakhstan kyrgyzstan tajikistan turkmenistan uzbekistan"),
    "Eastern Asia": (
        "Asia",
        "china hong hong-kong japan korea south-korea north-korea mongolia taiwan macao macau",
    ),
    "South-eastern Asia": (
        "Asia",
        "brunei cambodia indonesia laos malaysia myanmar philippines singapore thailand "
        "timor-leste vietnam",
    ),
    "Southern Asia": (
        "Asia",
        "afghanistan bangladesh bhutan india iran maldives nepal pakistan sri-lanka",
    ),
    "Western Asia": (
        "Asia",
        "armenia azerbaijan bahrain cyprus georgia iraq israel jordan kuwait lebanon oman "
        "palestine qatar saudi-arabia syria turkey united-arab-emirates yemen",
    ),
    "Eastern Europe": (
        "Europe",
        "belarus bulgaria czechia czech-republic hungary moldova poland romania russia "
        "slovakia ukraine",
    ),
    "Northern Europe": (
        "Europe",
        "denmark england estonia finland iceland ireland latvia lithuania norway scotland "
        "sweden united-kingdom uk wales great-britain",
    ),
    "Southern Europe": (
        "Europe",
        "albania andorra bosnia bosnia-and-herzegovina croatia greece italy kosovo malta "
        "montenegro north-macedonia portugal san-marino serbia slovenia spain vatican "
        "yugoslavia italien italie italia espana spanien espagne spagna spanje",
    ),
    "Western Europe": (
        "Europe",
        "austria belgium france germany liechtenstein luxembourg monaco netherlands "
        "holand-netherlands switzerland deutschland frankreich osterreich schweiz allemagne "
        "suisse belgique alemania francia suiza paesi-bassi germania nederland duitsland "
        "frankrijk",
    ),
    "Australia and New Zealand": ("Oceania", "australia new-zealand"),
    "Melanesia": ("Oceania", "fiji papua-new-guinea solomon-islands vanuatu"),
    "Micronesia": ("Oceania", "kiribati micronesia palau marshall-islands nauru"),
    "Polynesia": ("Oceania", "samoa tonga tuvalu"),
}
COUNTRY_REGION = {
    " ".join(value_tokens(country)): (region, continent)
    for region, (continent, names) in _M49.items()
    for country in names.split()
}

#: US Census Bureau: division → (region, states by postal abbreviation and name)
_CENSUS = {
    "New England": ("Northeast", "ct me ma nh ri vt connecticut maine massachusetts "
                    "new-hampshire rhode-island vermont"),
    "Middle Atlantic": ("Northeast", "nj ny pa new-jersey new-york pennsylvania"),
    "East North Central": ("Midwest", "il in mi oh wi illinois indiana michigan ohio wisconsin"),
    "West North Central": ("Midwest", "ia ks mn mo ne nd sd iowa kansas minnesota missouri "
                           "nebraska north-dakota south-dakota"),
    "South Atlantic": ("South", "de dc fl ga md nc sc va wv delaware district-of-columbia "
                       "florida georgia maryland north-carolina south-carolina virginia "
                       "west-virginia"),
    "East South Central": ("South", "al ky ms tn alabama kentucky mississippi tennessee"),
    "West South Central": ("South", "ar la ok tx arkansas louisiana oklahoma texas"),
    "Mountain": ("West", "az co id mt nv nm ut wy arizona colorado idaho montana nevada "
                 "new-mexico utah wyoming"),
    "Pacific": ("West", "ak ca hi or wa alaska california hawaii oregon washington"),
}  # fmt: skip
STATE_DIVISION = {
    " ".join(value_tokens(state)): (division, region)
    for division, (region, names) in _CENSUS.items()
    for state in names.split()
}


def _place_rows(
    labels: list[str], counts: np.ndarray, table: dict[str, tuple[str, str]]
) -> list[list[str]] | None:
    keys = [" ".join(value_tokens(normalise(v))) for v in labels]
    known = np.array([key in table for key in keys])
    if known.sum() < 3 or _share(known, counts) < 0.8:
        return None
    other = label_for_other(labels)
    first = [table[key][0] if key in table else other for key in keys]
    second = [table[key][1] if key in table else other for key in keys]
    return _levels_to_rows([labels, first, second])


def country_rows(labels: list[str], counts: np.ndarray) -> list[list[str]] | None:
    """Country → UN M49 region → continent → ``*``."""
    return _place_rows(labels, counts, COUNTRY_REGION)


def state_rows(labels: list[str], counts: np.ndarray) -> list[list[str]] | None:
    """US state → census division → census region → ``*``."""
    return _place_rows(labels, counts, STATE_DIVISION)


# --------------------------------------------------------------------------- job titles

#: words that make no kind of job on their own (function words of the vocabularies' languages,
#: seniority)
_NOT_HEADS = frozenset(
    [
        "and",
        "the",
        "for",
        "with",
        "from",
        "of",
        "des",
        "del",
        "della",
        "delle",
        "dei",
        "degli",
        "dos",
        "das",
        "pour",
        "dans",
        "avec",
        "para",
        "con",
        "und",
        "fur",
        "van",
        "der",
        "het",
        "een",
        "voor",
        "senior",
        "junior",
        "chief",
        "trainee",
        "deputy",
        "apprentice",
        "general",
        "other",
    ]
)


def _title_tokens(value: str) -> list[str]:
    return [t for t in re.findall(r"\w+", normalise(value)) if len(t) >= 3 and not t.isdigit()]


def _heads(value: str) -> list[str]:
    """The words that can name a title's kind: before a comma, its last word (``Engineer,
    civil``); else its first and last words (``Civil engineer``, ``Agent celny``)."""
    before = value.split(",", 1)[0] if "," in value else None
    if before is not None:
        words = [t for t in _title_tokens(before) if t not in _NOT_HEADS]
        return words[-1:]
    words = [t for t in _title_tokens(value) if t not in _NOT_HEADS]
    if not words:
        return []
    return [words[-1], words[0]] if len(words) > 1 else [words[0]]


def title_rows(labels: list[str], counts: np.ndarray, k: int) -> list[list[str]] | None:
    """Titles grouped by a head word that several of them share (module docstring), when the
    groups hold most records and group the titles several to one; else None."""
    heads = [_heads(v) for v in labels]
    spread = Counter(h for hs in heads for h in set(hs))
    chosen: list[str | None] = []
    for hs in heads:
        shared = [h for h in hs if spread[h] >= 2]
        chosen.append(max(shared, key=lambda h: spread[h]) if shared else None)
    grouped = np.array([c is not None for c in chosen])
    n_groups = len({c for c in chosen if c is not None})
    if _share(grouped, counts) < 0.6 or n_groups > len(labels) / 2 or n_groups < 2:
        return None
    spelling: dict[str, Counter[str]] = {}
    for value, head in zip(labels, chosen, strict=True):
        if head is None:
            continue
        for word in re.findall(r"\w+", value):
            if normalise(word) == head:
                spelling.setdefault(head, Counter())[word.lower()] += 1
    other = label_for_other(labels)
    groups = [f"*{spelling[h].most_common(1)[0][0]}*" if h is not None else other for h in chosen]
    order = np.argsort(-counts, kind="stable")
    ground = [labels[i] for i in order]
    first = [groups[i] for i in order]
    sizes = counts[order]
    return _levels_to_rows([ground, first, *frequency_levels(first, sizes, k, other)])
