"""Person names from their values, in any script: first names, last names, full names.

A column named ``category`` or ``x1`` holding ``Jürgen``, ``Nakamura`` or ``王秀英`` points at
people as surely as one named ``first_name``: its name is what a person chose, its values are
what an intruder reads. So a column's values are read against a lexicon of given and family
names and weighed with their shape:

- **The lexicon** is the union of the person-name lists of two maintained, MIT-licensed data
  generators installed with privcheck: Faker (its person providers, ~90 locales — zh, ja, ko,
  ru, uk, ar, hi … — many with frequency weights) and Mimesis (its ``person.json`` of ~50
  locales). Each name is kept under one key — case folded, accents removed (``Müller``,
  ``muller`` and ``MULLER`` are one name) — in two sets, given names (with Slavic patronymics)
  and family names. It is built the first time ``privcheck init`` meets a column that could
  hold names (never on import), once per process. docs/own-data.md says why these sources.
- **A value** is read token by token: titles (``Mr.``, ``Dr.``, ``Frau``, ``Mme``, ``Sra.`` …),
  suffixes (``Jr.``, ``III``, ``PhD``), particles (``van der``, ``de la``, ``bin``), initials
  (``J.``, ``J.R.R.``) and parentheses are set aside; ``Last, First`` order, hyphenated and
  double surnames are read as they come. One known token with a title, an initial, a particle
  or ``Last, First`` order — or two known tokens — make a full name; a single known token is a
  first or a last name. Chinese, Japanese and Korean names, usually written without a space
  (``王秀英``, ``佐藤花子``, ``김민준``), are read as a known family name of one to three
  characters followed by one to three characters of given names.
- **Not a name**: digits, ``@``, company or place words (``GmbH``, ``and``, ``Street``), CJK
  place and organisation endings (``市``, ``县``, ``公司``, ``部``), more than eight tokens.

``read_column`` returns the share of sampled rows whose value reads as a name, split by kind,
weighted by rows: a visit-level table that repeats a patient's name on each of her six visits
reads the same as a person-level one (the reading never depends on uniqueness). It reads at
most ``MAX_VALUES`` distinct values of the column's sample — a share is an estimate, and the
work is bounded whatever the table.

``read_handles`` does the same for user names (``jsmith42``, ``maria.garcia``, ``@nick``).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import json
import os
import pkgutil
import re
import threading
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

#: distinct sampled values read per column (a spread of them when there are more)
MAX_VALUES = 2_000


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# --------------------------------------------------------------------------- words

#: titles and forms of address (any case, without their dot); the generators' own prefixes are
#: added when the lexicon is built
TITLES = _words(
    """
    mr mrs ms miss mx mister madam madame dr doctor prof professor sir dame lady lord rev revd
    reverend fr father sr sister br brother master capt captain col colonel major gen lt sgt
    hon judge countess jonkheer herr frau fraulein frl dipl ing mag univ
    m mm mme mlle me monsieur mademoiselle docteur pr
    sra srta sres dna don dona senor senora senorita lic licda ing arq
    sig sigra sigg dott dottssa dottoressa avv geom rag
    dhr mevr mw mej jhr ir drs
    pan pani panna
    hr fru
    snr snra
    г гн г-н гжа г-жа господин госпожа др проф
    """
)
#: what follows a name (``Jr.``, ``III``, degrees)
SUFFIXES = _words(
    """
    jr jnr sr snr ii iii iv vi vii viii phd md dds dmd mba msc bsc ba ma llb lld esq rn cpa
    obe mbe cbe kbe qc kc
    """
)
#: particles of a family name (``van der Berg``, ``de la Cruz``, ``bin Ahmad``)
PARTICLES = _words(
    """
    van der den de del della delle dei degli di da das do dos du la le les lo von zu vom zum
    zur ter ten te t 's bin binti bint ibn ben bat al el ap mac mc st saint ste sainte y e i
    und of
    """
) - {"und", "of"}
#: words that make a value something other than a person's name: companies, places, groups
NOT_NAME = _words(
    """
    and und et & inc llc ltd limited gmbh ag kg ohg ug mbh sa sarl sas sasu spa srl snc sl
    bv nv plc co corp corporation company companies group holding holdings partners associates
    bank hospital clinic klinik clinique university universitat universite college school
    schule ecole institute institut department dept office services service solutions systems
    street road avenue ave lane drive boulevard blvd strasse rue calle via straat
    city town county district region province state village lake river mount port fort
    north south east west new nord sud est ouest nuevo nueva novo nova bad
    restaurant hotel cafe shop store market center centre
    sur sous les lez am im bei ob upon on op aan
    """
)
#: endings of CJK and Korean place and organisation names (a city, a company, a department)
_CJK_NOT_NAME_ENDINGS = tuple(
    _words(
        "市 省 区 區 县 縣 镇 鎮 乡 鄉 村 路 街 巷 都 道 府 県 町 郡 州 港 站 駅 店 厂 廠 部 科 课 "
        "課 局 处 處 院 所 社 馆 館 园 園 场 場 室 组 組 会 會 公司 集团 银行 医院 病院 大学 学院 "
        "学校 中心 시 도 구 군 읍 면 동 리 로 길 대학교 병원 회사"
    )
)

_HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_KANA = r"\u3040-\u309f\u30a0-\u30ff"
_HANGUL = r"\uac00-\ud7af"
_CJK_RUN = re.compile(rf"^[{_HAN}{_KANA}{_HANGUL}]+$")
_HAS_CJK = re.compile(rf"[{_HAN}{_KANA}{_HANGUL}]")
#: a token of letters (any script) with inner apostrophes or hyphens
_WORD = re.compile(r"^[^\W\d_]+(?:['’`\-][^\W\d_]+)*$")
_INITIALS = re.compile(r"^(?:[^\W\d_]\.){1,4}$|^[^\W\d_]$")
#: characters no person's name holds
_NOT_NAME_CHARS = re.compile(r"[\d@/\\&:;_#+=<>|%$€£*!?{}]")
_BRACKETS = re.compile(r"[()\[\]\"“”„«»]")
#: Slavic family-name endings and patronymics (a family name unknown to the lexicon)
_SLAVIC_FAMILY = re.compile(
    r"(?:ov|ova|ev|eva|in|ina|sky|skiy|skaya|ski|ska|cki|cka|dzki|dzka|wicz|vich|enko|chuk|"
    r"ов|ова|ев|ева|ёв|ёва|ин|ина|ский|ская|цкий|цкая|енко|ук|юк|ич)$"
)
_PATRONYMIC = re.compile(r"(?:ович|евич|овна|евна|ична|инична|ovich|evich|ovna|evna)$")

#: what a value reads as (``read_value``)
NONE, GIVEN, FAMILY, EITHER, FULL, FULL_WEAK, UNKNOWN_WORD = range(7)
_SINGLE = (GIVEN, FAMILY, EITHER)


_DROP = str.maketrans("", "", "'’`.")


@functools.cache
def _combining() -> re.Pattern[str]:
    """The combining marks (accents) of the Basic Multilingual Plane, as ranges of one
    character class: what NFKD splits off a letter and a key drops."""
    ranges: list[list[int]] = []
    for code in range(0x300, 0x10000):
        if unicodedata.combining(chr(code)):
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1][1] = code
            else:
                ranges.append([code, code])
    parts = (re.escape(chr(a)) + ("-" + re.escape(chr(b)) if b > a else "") for a, b in ranges)
    return re.compile("[" + "".join(parts) + "]")


def key(token: str) -> str:
    """A name's lexicon key: case folded, accents removed, apostrophes and dots dropped
    (``O'Brien`` → ``obrien``, ``Müller`` → ``muller``, ``ß`` → ``ss``)."""
    token = token.casefold()
    if not token.isascii():
        token = _combining().sub("", unicodedata.normalize("NFKD", token))
    return token.translate(_DROP)


def keys(tokens: list[str]) -> list[str]:
    """``key`` of many tokens at once (one normalisation of their joined text)."""
    text = "\n".join(tokens).casefold()
    text = _combining().sub("", unicodedata.normalize("NFKD", text))
    return text.translate(_DROP).split("\n")


# --------------------------------------------------------------------------- the lexicon


@dataclass(frozen=True)
class Lexicon:
    """Given and family names under their keys, and where they came from."""

    given: frozenset[str]
    family: frozenset[str]
    titles: frozenset[str]
    #: CJK and Korean family names (one to three characters, as written)
    cjk_family: frozenset[str]
    #: characters of CJK and Korean given names
    cjk_given_chars: frozenset[str]
    #: places (cities, towns, regions, countries) under the key of their whole name: a column of
    #: them is not a column of names, though many places are named like people
    places: frozenset[str]
    #: the sources read, e.g. ``Faker 40.1.0 (86 locales)``
    sources: tuple[str, ...]


def _strings(value: object) -> list[str]:
    """The strings of a provider attribute: a tuple, list, dict (keys: names with weights) or
    nested tuples (Japanese name pairs)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [k for k in value if isinstance(k, str)]
    if isinstance(value, tuple | list | set | frozenset):
        out: list[str] = []
        for item in value:
            if isinstance(item, str):
                out.append(item)
            elif isinstance(item, tuple | list):
                out.extend(x for x in item if isinstance(x, str))
        return out
    return []


#: Faker address attributes that list places (cities, towns, regions, countries)
_PLACE_ATTRS = (
    "cities", "city_names", "real_city_names", "towns", "villages", "settlements", "localities",
    "municipalities", "communes", "concelhos", "freguesias", "bairros", "boroughs", "counties",
    "districts", "provinces", "regions", "region_names", "region_oblast", "region_republics",
    "states", "estados", "prefectures", "cantons", "wilayas", "amphoes", "tambons", "countries",
    "places", "departments",
)  # fmt: skip


def _faker_lists() -> dict | None:
    """Given names, family names, titles and places of every Faker locale."""
    spec = importlib.util.find_spec("faker.providers.person")
    if spec is None or not spec.submodule_search_locations:
        return None
    out: dict = {"given": [], "family": [], "titles": [], "places": []}
    locales = 0
    for info in pkgutil.iter_modules(spec.submodule_search_locations):
        if not info.ispkg:
            continue
        try:
            module = importlib.import_module(f"faker.providers.person.{info.name}")
        except Exception:  # pragma: no cover - a broken locale is skipped, not fatal
            continue
        provider = getattr(module, "Provider", None)
        if provider is None:
            continue
        locales += 1
        for attr in dir(provider):
            if attr.startswith("_") or "format" in attr or "name" not in attr:
                if attr.startswith("prefix"):
                    out["titles"].extend(_strings(getattr(provider, attr, None)))
                continue
            # first_names, first_kana_names, first_romanized_names, middle_names (patronymics);
            # last_names, unisex_last_names, last_romanized_names, last_name_pairs
            if attr.startswith("last_") or "last_name" in attr or "surname" in attr:
                out["family"].extend(_strings(getattr(provider, attr, None)))
            elif attr.startswith(("first_", "middle_")):
                out["given"].extend(_strings(getattr(provider, attr, None)))
    places = importlib.util.find_spec("faker.providers.address")
    for info in pkgutil.iter_modules(places.submodule_search_locations if places else []):
        try:
            provider = importlib.import_module(f"faker.providers.address.{info.name}").Provider
        except Exception:  # pragma: no cover
            continue
        for attr in _PLACE_ATTRS:
            out["places"].extend(_strings(getattr(provider, attr, None)))
    from importlib.metadata import version

    out["label"] = f"Faker {version('faker')} ({locales} locales)"
    return out


def _mimesis_lists() -> dict | None:
    """Given names (and patronymics), family names, titles and places of every Mimesis locale
    (read from its data files: the package itself is not imported)."""
    spec = importlib.util.find_spec("mimesis")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations))) / "datasets"
    out: dict = {"given": [], "family": [], "titles": [], "places": []}

    def flat(value: object) -> list[str]:
        if isinstance(value, dict):
            return [s for k, v in value.items() if k != "abbr" for s in flat(v)]
        return _strings(value)

    def read(path: Path) -> dict:
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):  # pragma: no cover
            return {}

    locales = 0
    for path in sorted(root.glob("*/person.json")):
        data = read(path)
        locales += 1
        out["given"].extend(flat(data.get("names", [])) + flat(data.get("patronymic", [])))
        out["family"].extend(flat(data.get("surnames", [])))
        out["titles"].extend(flat(data.get("title", [])))
    for path in sorted(root.glob("*/address.json")):
        data = read(path)
        for field in ("city", "state", "country"):
            out["places"].extend(flat(data.get(field, [])))
    from importlib.metadata import version

    out["label"] = f"Mimesis {version('mimesis')} ({locales} locales)"
    return out


#: Cyrillic → Latin, two common spellings (ISO-like ``ju``/``ja``/``j`` and BGN ``yu``/``ya``/
#: ``y``): a Russian or Ukrainian name written in Latin letters (``Ivanov``, ``Julija``)
_CYRILLIC = {
    "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ё": "e", "ж": "zh", "з": "z",
    "и": "i", "й": "j", "к": "k", "л": "l", "м": "m", "н": "n", "о": "o", "п": "p", "р": "r",
    "с": "s", "т": "t", "у": "u", "ф": "f", "х": "h", "ц": "c", "ч": "ch", "ш": "sh",
    "щ": "sch", "ъ": "", "ы": "y", "ь": "", "э": "e", "ю": "ju", "я": "ja", "і": "i", "ї": "ji",
    "є": "je", "ґ": "g",
}  # fmt: skip
_BGN = {"й": "y", "х": "kh", "ц": "ts", "щ": "shch", "ю": "yu", "я": "ya", "ї": "yi", "є": "ye"}
_TRANSLIT = (
    str.maketrans(_CYRILLIC),
    str.maketrans({**_CYRILLIC, **_BGN}),
)


def _latin(names: list[str]) -> list[str]:
    """Latin spellings of the Cyrillic names among ``names``."""
    out = []
    for name in names:
        if re.search(r"[\u0400-\u04ff]", name):
            low = name.casefold()
            out.extend({low.translate(t) for t in _TRANSLIT})
    return out


def _name_keys(entries: list[str]) -> tuple[set[str], set[str]]:
    """(keys, CJK/Korean entries) of name entries; an entry of several words (``João Felipe``,
    ``van der Laarse``) gives each of its words but the particles."""
    unique = {unicodedata.normalize("NFC", e.strip()) for e in entries if "\n" not in e}
    cjk = {e for e in unique if _CJK_RUN.match(e)}
    words = {w for e in unique - cjk for w in e.replace("-", " ").split()}
    words |= cjk
    found = {
        k for k in keys(sorted(words)) if (len(k) >= 2 or _HAS_CJK.match(k)) and _WORD.match(k)
    }
    return found - PARTICLES, cjk


_LOCK = threading.Lock()
#: bump when what the lexicon holds changes (the cache file names it)
_FORMAT = 2


def _versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    out = []
    for package in ("faker", "mimesis"):
        try:
            out.append(f"{package}{version(package)}")
        except PackageNotFoundError:
            out.append(f"{package}-none")
    return "-".join(out)


def cache_path() -> Path | None:
    """Where the built lexicon is kept between runs: ``$PRIVCHECK_CACHE_DIR``, else the user's
    cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``, ``%LOCALAPPDATA%`` on Windows) under
    ``privcheck/``; the file is named by the versions of its sources. ``PRIVCHECK_CACHE_DIR=``
    (empty) keeps nothing."""
    root = os.environ.get("PRIVCHECK_CACHE_DIR")
    if root is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.environ.get("LOCALAPPDATA")
        root = str(Path(base) / "privcheck") if base else str(Path.home() / ".cache" / "privcheck")
    if not root:
        return None
    return Path(root) / f"names-{_FORMAT}-{_versions()}.json"


def _from_sources(generators: tuple[str, ...] = ("faker", "mimesis")) -> Lexicon:
    """The lexicon built from the generators' data (``generators``: a subset, for the
    evaluation of names outside the lexicon)."""
    readers = {"faker": _faker_lists, "mimesis": _mimesis_lists}
    sources = [s for s in (readers[g]() for g in generators) if s is not None]
    if not sources:
        raise ImportError(
            "no name lexicon: privcheck reads person names with Faker and Mimesis; install "
            "them (pip install faker mimesis)"
        )
    given_entries = [g for s in sources for g in s["given"]]
    family_entries = [f for s in sources for f in s["family"]]
    given, cjk_given = _name_keys(given_entries + _latin(given_entries))
    family, cjk_family = _name_keys(family_entries + _latin(family_entries))
    titles = set(TITLES)
    for title in keys([w for s in sources for t in s["titles"] for w in t.split()]):
        if title and not _HAS_CJK.search(title):
            titles.add(title)
    stop = NOT_NAME | PARTICLES | titles | SUFFIXES
    places = {p for p in keys(sorted({p.strip() for s in sources for p in s["places"]})) if p}
    return Lexicon(
        given=frozenset(given - stop),
        family=frozenset(family - stop),
        titles=frozenset(titles - {"e", "i", "y"}),
        cjk_family=frozenset(f for f in cjk_family if len(f) <= 3),
        cjk_given_chars=frozenset(c for g in cjk_given for c in g),
        places=frozenset(places),
        sources=tuple(s["label"] for s in sources),
    )


_FIELDS = ("given", "family", "titles", "cjk_family", "cjk_given_chars", "places", "sources")


@functools.cache
def _build() -> Lexicon:
    path = cache_path()
    if path is not None:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return Lexicon(
                *(frozenset(data[f]) for f in _FIELDS[:-1]), sources=tuple(data["sources"])
            )
        except (OSError, ValueError, KeyError, TypeError):
            pass  # absent or unreadable: built anew
    lex = _from_sources()
    if path is not None:
        data = {f: sorted(getattr(lex, f)) for f in _FIELDS[:-1]}
        data["sources"] = list(lex.sources)
        try:  # (a cache: a folder that cannot be written only costs the next run a rebuild)
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
            os.replace(tmp, path)
        except OSError:
            pass
    return lex


def lexicon() -> Lexicon:
    """The name lexicon: read from the cache, or built from Faker and Mimesis (a second or
    two) and cached; once per process."""
    with _LOCK:  # (columns are profiled in threads: build it once)
        return _build()


# --------------------------------------------------------------------------- one value


def _read_cjk(token: str, lex: Lexicon) -> int:
    """A CJK or Korean token: a given or family name alone, or family + given names."""
    k = key(token)
    if token.endswith(_CJK_NOT_NAME_ENDINGS) or len(token) > 5:
        return NONE
    g, f = k in lex.given, k in lex.family
    if g or f:
        return EITHER if g and f else GIVEN if g else FAMILY
    for n in (2, 1, 3):  # a family name of two characters first (欧阳, 佐藤), then one
        if len(token) - n < 1 or len(token) - n > 3:
            continue
        head, rest = token[:n], token[n:]
        if head in lex.cjk_family:
            if key(rest) in lex.given or all(c in lex.cjk_given_chars for c in rest):
                return FULL
            return FULL_WEAK
    return UNKNOWN_WORD if len(token) <= 4 else NONE


def read_value(value: str, lex: Lexicon) -> int:
    """What one value reads as: ``NONE``, a single known ``GIVEN`` / ``FAMILY`` / ``EITHER``
    name, a ``FULL`` name (two known tokens, or one with a title, an initial, a particle or
    ``Last, First`` order), a ``FULL_WEAK`` one (one known token among name-shaped words), or
    ``UNKNOWN_WORD`` (shaped like a name, not known)."""
    value = unicodedata.normalize("NFC", value).strip()
    if not value or len(value) > 80 or _NOT_NAME_CHARS.search(value):
        return NONE
    bracketed = bool(_BRACKETS.search(value))
    text = _BRACKETS.sub(" ", value)
    parts = [p.strip() for p in text.split(",")]
    if len(parts) > 2:  # Smith, John, Jr. — a third part only as a suffix
        if not all(key(p) in SUFFIXES for p in parts[2:]):
            return NONE
        parts = parts[:2]
    if any(not p for p in parts):
        return NONE
    comma = len(parts) == 2
    raw = " ".join(parts).split()
    titles = initials = particles = 0
    tokens: list[str] = []
    for token in raw:
        k = key(token)
        if not k:
            continue
        if k in NOT_NAME:
            return NONE
        if k in lex.titles or k.replace("-", "") in lex.titles:
            titles += 1
        elif k in SUFFIXES and tokens:
            continue
        elif k in PARTICLES and (tokens or len(raw) > 1):
            particles += 1
        elif _INITIALS.match(token) and (token[0].isupper() or token[0].islower()):
            initials += 1  # (J., J.R.R.; a CJK character alone is a name, not an initial)
        else:
            parts = [t for t in re.split(r"[\-‐]", token) if t]
            if len(parts) > 1 and any(key(t) in NOT_NAME for t in parts):
                return NONE  # Lecomte-sur-Seguin, Stratford-upon-Avon: a place
            tokens.extend(parts)
    if not tokens:
        return NONE
    if not all(_WORD.match(t.strip(".")) for t in tokens):
        return NONE
    if len(tokens) == 1 and _CJK_RUN.match(tokens[0]) and not (titles or initials):
        return _read_cjk(tokens[0], lex)
    if len(tokens) > (8 if bracketed else 5):
        return NONE
    # (the letter after d' or O' is the one that is capitalised)
    heads = [re.sub(r"^[^\W\d_]['’]", "", t)[:1] for t in tokens]
    cased = [h for h in heads if h.isupper() or h.islower()]
    if cased and any(h.islower() for h in cased) and not all(t.islower() for t in tokens):
        return NONE  # "Port of call", "John smith": not how a name is written
    known = 0
    given = family = False
    morph = 0
    for t in tokens:
        k = key(t)
        g, f = k in lex.given, k in lex.family
        if g or f:
            known += 1
            given |= g
            family |= f
        elif _PATRONYMIC.search(k) or (_SLAVIC_FAMILY.search(k) and len(k) >= 5):
            morph += 1
    context = bool(titles or initials or particles or comma)
    if len(tokens) > 1 and cased and all(t.islower() for t in tokens):
        # "ford torino", "chevrolet chevelle malibu": names are capitalised; written all in
        # lower case, every word must be a known name
        return FULL if known == len(tokens) else NONE
    if len(tokens) == 1:
        if known:
            if context:
                return FULL
            return EITHER if given and family else GIVEN if given else FAMILY
        return FULL_WEAK if titles else UNKNOWN_WORD
    if known >= 2 or (known and (context or morph)):
        return FULL
    if known == 1 or titles:
        return FULL_WEAK
    return UNKNOWN_WORD


# --------------------------------------------------------------------------- a column

#: a value shaped like a name (for the quick Arrow filter): letters, spaces, a few marks
_SHAPE = r"^[^\d@/\\&:;_#+=<>|%$*!?{}]{1,80}$"


@dataclass(frozen=True)
class NameReading:
    """What a column's sampled values read as (shares of sampled rows)."""

    #: rows whose value reads as a name of any kind (single known, full, full weak)
    share: float
    #: rows that are a full name read with confidence, or a single known name
    strong_share: float
    #: rows whose value is a single known given name / family name (either counts for both)
    given_share: float
    family_share: float
    #: rows whose value is a full name (``FULL`` or ``FULL_WEAK``)
    full_share: float
    #: share of the distinct values read that read as names
    distinct_share: float
    #: distinct values read
    n_read: int
    #: rows whose value is a known place (not counted as names)
    place_share: float = 0.0

    @property
    def kind(self) -> str:
        """``full names``, ``first names``, ``last names`` or ``first or last names``."""
        single = self.share - self.full_share
        if self.full_share >= single:
            return "full names"
        if abs(self.given_share - self.family_share) < 0.1:
            return "first or last names"
        return "first names" if self.given_share > self.family_share else "last names"

    @property
    def pattern(self) -> str:
        return {
            "full names": "full-name",
            "first names": "first-name",
            "last names": "last-name",
        }.get(self.kind, "person-name")


def _spread(values: pa.Array, weights: np.ndarray, limit: int) -> tuple[list, np.ndarray]:
    if len(values) > limit:
        idx = np.linspace(0, len(values) - 1, limit).astype(np.int64)
        return values.take(pa.array(idx)).to_pylist(), weights[idx]
    return values.to_pylist(), weights


def shape_share(values: pa.Array, weights: np.ndarray) -> float:
    """Share of sampled rows shaped like a name (no digits, no ``@``, at most 80 characters):
    columns below half are not read at all."""
    total = float(weights.sum())
    if len(values) == 0 or total == 0:
        return 0.0
    hit = pc.fill_null(pc.match_substring_regex(values, _SHAPE), False)
    letters = pc.fill_null(pc.match_substring_regex(values, r"\pL"), False)
    mask = np.asarray(pc.and_(hit, letters).to_numpy(zero_copy_only=False), dtype=bool)
    return float(weights[mask].sum()) / total


def read_column(values: pa.Array, weights: np.ndarray) -> NameReading | None:
    """The name reading of a column's sampled distinct values (``values``, trimmed strings)
    weighted by the sampled rows holding each; None when most values are not even shaped like
    names (numbers, codes, e-mail addresses)."""
    if shape_share(values, weights) < 0.5:
        return None
    lex = lexicon()
    texts, w = _spread(values, weights, MAX_VALUES)
    codes = np.fromiter(
        (read_value(t, lex) if isinstance(t, str) else NONE for t in texts),
        dtype=np.int8,
        count=len(texts),
    )
    # a known place (Ávila, Florence, Lincoln) is not read as a name: a column of cities whose
    # names are also surnames stays a column of cities
    place = np.fromiter(
        (isinstance(t, str) and key(t) in lex.places for t in texts), dtype=bool, count=len(texts)
    )
    codes[place] = NONE
    w = np.asarray(w, dtype=np.float64)
    total = float(w.sum()) or 1.0

    def share(*kinds: int) -> float:
        return float(w[np.isin(codes, kinds)].sum()) / total

    named = np.isin(codes, (*_SINGLE, FULL, FULL_WEAK))
    return NameReading(
        share=share(*_SINGLE, FULL, FULL_WEAK),
        strong_share=share(*_SINGLE, FULL),
        given_share=share(GIVEN, EITHER),
        family_share=share(FAMILY, EITHER),
        full_share=share(FULL, FULL_WEAK),
        distinct_share=float(named.mean()) if len(codes) else 0.0,
        n_read=len(codes),
        place_share=float(w[place].sum()) / total,
    )


# --------------------------------------------------------------------------- user names

#: a handle: letters and digits joined by ``.``, ``_`` or ``-``, an optional leading ``@``
_HANDLE = r"^@?[A-Za-z][A-Za-z0-9]*(?:[._\-][A-Za-z0-9]+)*$"


def _joined_names(word: str, lex: Lexicon) -> bool:
    """``word`` (lower case, letters only) is two known names run together (``mariagarcia``,
    ``sakamotomomoko``) or a known name with an initial or two (``jsmith``, ``smithj``)."""

    def name(part: str) -> bool:
        return part in lex.given or part in lex.family

    if len(word) < 5:
        return False
    for i in range(1, len(word)):
        head, tail = word[:i], word[i:]
        if (len(head) == 1 and name(tail)) or (len(tail) == 1 and name(head)):
            return True  # jsmith, smithj
        if min(len(head), len(tail)) >= 3 and name(head) and name(tail):
            return True  # mariagarcia
        short, long_ = (head, tail) if len(head) < len(tail) else (tail, head)
        if len(short) == 2 and short in lex.family and len(long_) >= 4 and name(long_):
            return True  # maxiuying (Ma Xiuying), yuguiying
    return False


def _handle_like(value: str, lex: Lexicon) -> bool:
    """A user name: a leading ``@``, digits or separators in a word with lower-case letters, or
    a lower-case word made of known names (``jsmith``, ``mariagarcia``)."""
    if not 3 <= len(value) <= 32 or not any(c.islower() for c in value):
        return False
    if value.startswith("@") or re.search(r"[._\-]", value) or re.search(r"\d", value):
        return True
    return _joined_names(value.casefold(), lex)


def read_handles(values: pa.Array, weights: np.ndarray) -> float:
    """Share of sampled rows whose value reads as a user name (``jsmith42``, ``maria.garcia``,
    ``@nick``, ``Gloria_1981``, ``jsmith``). Shape first, in Arrow; the lexicon is read only
    for the lower-case words without digits or separators (``jsmith``), and only when a column
    has them."""
    total = float(weights.sum())
    if len(values) == 0 or total == 0:
        return 0.0

    def mask(pattern: str) -> np.ndarray:
        hit = pc.fill_null(pc.match_substring_regex(values, pattern), False)
        return np.asarray(hit.to_numpy(zero_copy_only=False), dtype=bool)

    lengths = pc.utf8_length(values).to_numpy(zero_copy_only=False)
    shaped = mask(_HANDLE) & mask(r"[a-z]") & (lengths >= 3) & (lengths <= 32)
    if float(weights[shaped].sum()) < 0.5 * total:
        return 0.0
    marked = shaped & mask(r"^@|[._\-]|\d")
    plain = shaped & ~marked
    share = float(weights[marked].sum()) / total
    if not plain.any():
        return share
    idx = np.flatnonzero(plain)
    texts, w = _spread(values.take(pa.array(idx)), weights[idx], MAX_VALUES)
    lex = lexicon()
    hit = np.fromiter((_handle_like(t, lex) for t in texts), dtype=bool, count=len(texts))
    # the spread stands for all plain rows: scale its share to them
    plain_share = float(weights[plain].sum()) / total
    w = np.asarray(w, dtype=np.float64)
    return share + plain_share * float(w[hit].sum()) / (float(w.sum()) or 1.0)
