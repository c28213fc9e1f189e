"""The policy: what each column is, how it may be generalized, and which privacy models must hold.

A policy is plain data (YAML or JSON) validated by Pydantic. Model entries are validated by
looking their name up in the plugin registry, so a model contributed by a third-party plugin is
accepted (and documented in the JSON Schema) exactly like a built-in one.
"""

from __future__ import annotations

import hashlib
import itertools
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

import yaml
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializeAsAny,
    ValidationError,
    create_model,
    field_validator,
    model_validator,
)

from privcheck.errors import PolicyError, PrivcheckError, listing
from privcheck.limits import check_integers, load_json, load_yaml
from privcheck.messages import draft_message


class Role(StrEnum):
    """What a column is to an intruder."""

    identifier = "identifier"
    quasi_identifier = "quasi_identifier"
    sensitive = "sensitive"
    insensitive = "insensitive"


class _Strict(BaseModel):
    """Base of every policy section: unknown keys are errors, and values are taken as written.

    Strict types: ``k: true`` is not k = 1, ``k: 5.0`` or ``k: "5"`` not 5, ``top: "yes"`` not a
    boolean (YAML already reads true/false/yes/no as booleans); an integer is a valid float.
    Floats must be finite: ``l: .inf`` once passed a check whose arithmetic overflowed.
    Validators are built when first used (``defer_build``): a command that reads no policy
    section of a kind does not pay for building its validator."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, defer_build=True)


# --------------------------------------------------------------------------- hierarchies


class TableHierarchy(_Strict):
    """ARX-style value table: one row per ground value, column i = its value at level i."""

    type: Literal["table"] = "table"
    path: str | None = Field(
        None, description="CSV file (ARX format); relative paths resolve against the policy file"
    )
    rows: list[list[str]] | None = Field(None, description="The table inline instead of a file")
    sep: str = Field(";", description="Field separator of the CSV file")

    @model_validator(mode="after")
    def _one_source(self) -> TableHierarchy:
        if (self.path is None) == (self.rows is None):
            raise ValueError("a table hierarchy needs exactly one of 'path' or 'rows'")
        return self


class IntervalsHierarchy(_Strict):
    """Numeric bins: level i groups values into intervals of width ``widths[i-1]``.

    Each width must be a multiple of the one below so that every level is a coarsening of the
    previous one (the hierarchy is a tree). A final ``*`` level is added when ``top`` is true.
    """

    type: Literal["intervals"] = "intervals"
    widths: list[int | float] = Field(
        ..., min_length=1, description="Bin width per level, e.g. [5, 10]"
    )
    origin: int | float = Field(0, description="Bins are [origin + i·w, origin + (i+1)·w)")
    top: bool = Field(True, description="Add a last level where every value becomes '*'")

    @field_validator("widths")
    @classmethod
    def _nested(cls, widths: list[int | float]) -> list[int | float]:
        for w in widths:
            if not w > 0 or w == float("inf"):
                raise ValueError(f"interval widths must be positive and finite; got {w}")
        for lo, hi in itertools.pairwise(widths):
            if isinstance(lo, int) and isinstance(hi, int):  # exact: no float ratio
                nested = hi % lo == 0
            else:
                ratio = hi / lo
                nested = abs(ratio - round(ratio)) <= 1e-9 and round(ratio) >= 1
            if not nested:
                raise ValueError(
                    f"interval width {hi} is not a multiple of {lo}: the levels would not form "
                    "a tree; use widths that divide each other, e.g. [5, 10, 20]"
                )
        return widths


class MaskingHierarchy(_Strict):
    """Replace the right-most characters: level i masks i characters (02139 → 0213* → 021**)."""

    type: Literal["masking"] = "masking"
    levels: int | None = Field(
        None, ge=1, description="How many characters the top level masks (default: all)"
    )
    char: str = Field("*", min_length=1, max_length=1)


#: calendar levels of a dates hierarchy, finest first
DATE_LEVELS = ("week", "month", "quarter", "year", "decade", "century")


class DatesHierarchy(_Strict):
    """Calendar generalization of dates: day → month → year → decade (levels to use, in order).

    ``week`` is the ISO 8601 week ("2026-W48", from ``date.isocalendar()``). A week can straddle
    two months, quarters or years, so it is only followed by year-based levels, and those then
    count ISO week-numbering years (29 Dec 2025 is in 2026-W01, hence in year 2026): the
    levels stay a tree, which every generalization needs.
    """

    type: Literal["dates"] = "dates"
    levels: list[Literal["week", "month", "quarter", "year", "decade", "century"]] = Field(
        default_factory=lambda: ["month", "year", "decade"],
        description="Levels from fine to coarse; 'week' (ISO week) may only be followed by "
        "year, decade and century, counted in ISO week-numbering years",
    )
    format: str | None = Field(None, description="strptime format of the data (default: ISO)")
    top: bool = Field(True, description="Add a last level where every value becomes '*'")

    @field_validator("levels")
    @classmethod
    def _fine_to_coarse(cls, levels: list[str]) -> list[str]:
        ranks = [DATE_LEVELS.index(lv) for lv in levels]
        if ranks != sorted(set(ranks)):
            raise ValueError(
                f"levels {levels} must go from fine to coarse without repeats "
                f"({', '.join(DATE_LEVELS)})"
            )
        if "week" in levels and ({"month", "quarter"} & set(levels)):
            raise ValueError(
                "a week can straddle two months or quarters, so 'week' cannot be followed by "
                "'month' or 'quarter'; use week with year, decade or century (ISO years), or "
                "drop week"
            )
        return levels


Hierarchy = Annotated[
    TableHierarchy | IntervalsHierarchy | MaskingHierarchy | DatesHierarchy,
    Field(discriminator="type"),
]


class Coding(_Strict):
    """Top or bottom coding of a numeric quasi-identifier (sdcMicro's ``topBotCoding``).

    Top coding replaces every value above ``threshold`` by ``value`` (bottom coding: below);
    ``value`` defaults to the threshold itself, so a numeric column stays numeric and an
    intervals hierarchy bins it like any other value. A label such as ``"90+"`` is allowed for a
    quasi-identifier without a hierarchy or with a table hierarchy that lists it.
    """

    threshold: float = Field(..., description="Values above (top) / below (bottom) it are coded")
    value: float | str | None = Field(
        None, description="What a coded value becomes (default: the threshold)"
    )


class Attribute(_Strict):
    """One column of the data and its role."""

    role: Role = Field(strict=False)  # the enum from its YAML/JSON spelling
    hierarchy: Hierarchy | None = None
    top_coding: Coding | None = Field(
        None,
        description="Quasi-identifiers: replace values above a threshold before any search "
        "(e.g. {threshold: 90, value: 90}); anonymizers apply it, a check reads values as they are",
    )
    bottom_coding: Coding | None = Field(
        None,
        description="Quasi-identifiers: replace values below a threshold before any search",
    )
    order: list[str] | None = Field(
        None,
        description="Order of the values for ordered t-closeness (default: numeric if the values "
        "are numbers, else natural sort order)",
    )
    review: str | None = Field(
        None,
        description="An open decision: what was seen of the column and what a person must "
        "decide (written by `privcheck init`). A policy with any review left is a draft: check, "
        "anonymize, apply, hook, risk, compare, the GX expectation and the catalog API refuse "
        "it unless told --allow-draft (allow_draft=True). Resolve it by setting the role and "
        "deleting the review entry",
    )

    @field_validator("review")
    @classmethod
    def _says_what(cls, review: str | None) -> str | None:
        # (null is no open decision: what a dumped, decided policy writes back)
        if review is not None and not review.strip():
            raise ValueError(
                "an open decision must say what was seen and what to decide; once the role is "
                "decided, delete the review entry"
            )
        return review

    @field_validator("order")
    @classmethod
    def _distinct(cls, order: list[str] | None) -> list[str] | None:
        seen: set[str] = set()
        for value in order or []:
            if value in seen:
                raise ValueError(
                    f"lists the value {value!r} twice; each value takes one position in the order"
                )
            seen.add(value)
        return order


# --------------------------------------------------------------------------- models


class ModelConfig(_Strict):
    """Base of every privacy-model entry; plugins subclass it with ``model: Literal[name]``."""

    model: str

    #: Whether the model needs a sensitive attribute (``attribute``) to be evaluated.
    needs_sensitive: ClassVar[bool] = False

    def input_paths(self) -> list[str]:
        """Files the model reads (relative to the policy file): an output must never overwrite
        one. None for most models; k-anonymity-across-releases lists its previous releases."""
        return []

    def params(self) -> dict[str, Any]:
        """The parameters as published in a report (everything but the model name)."""
        return self.model_dump(exclude={"model"}, exclude_none=True, mode="json")


class SensitiveModelConfig(ModelConfig):
    """A model that protects one sensitive attribute."""

    needs_sensitive: ClassVar[bool] = True
    #: whether the model also applies to a policy without sensitive attributes (``attribute``
    #: then stays None)
    sensitive_optional: ClassVar[bool] = False
    attribute: str | None = Field(
        None, description="The sensitive column protected (may be omitted if there is only one)"
    )


def _validate_model_entries(value: Any) -> Any:
    """Validate each model entry against the config class its plugin registered."""
    if not isinstance(value, list):
        return value
    from privcheck.plugins import model_registry

    registry = model_registry()
    out = []
    for i, entry in enumerate(value):
        if isinstance(entry, ModelConfig):
            out.append(entry)
            continue
        if not isinstance(entry, dict) or "model" not in entry:
            kind = type(entry).__name__
            raise ValueError(f"models[{i}] must be a mapping with a 'model' key; got a {kind}")
        name = entry["model"]
        cls = registry.get(name) if isinstance(name, str) else None
        if cls is None:
            from privcheck.messages import is_name

            known = ", ".join(sorted(registry))
            shown = repr(name) if isinstance(name, str) and is_name(name) else "(not shown)"
            raise ValueError(
                f"unknown model {shown} in models[{i}]; known models: {known} "
                "(install the plugin that provides it)"
            )
        try:
            out.append(cls.config.model_validate(entry))
        except ValidationError as exc:
            raise ValueError(_first_error(exc, prefix=f"models[{i}] ({name})")) from None
    return out


# --------------------------------------------------------------------------- population


class PopulationTable(_Strict):
    """The population as a table of the same quasi-identifiers (original values) with counts."""

    path: str = Field(
        ..., description="CSV/Parquet file; relative paths resolve against the policy file"
    )
    count_column: str | None = Field(
        None,
        description="Column holding how many people share each row's values (e.g. census "
        "counts); without it every row is one person",
    )


class PopulationSize(_Strict):
    """Only the population's size N (sampling fraction n/N), for the estimators."""

    size: int = Field(..., ge=1, description="Number of people in the population (N)")


class SyntheticRisk(_Strict):
    """The bound a synthetic table's disclosure risks must stay within (``privcheck risk``
    exits 1 above it): singling-out, linkability and inference risk (the riskiest sensitive
    attribute) and the membership-inference advantage, each against a control set."""

    max_risk: float = Field(
        ...,
        ge=0.0,
        le=1.0,
        description="Largest risk (membership inference: advantage) a release may show",
    )
    confidence: float = Field(
        0.99,
        gt=0.5,
        lt=1.0,
        description="Level of the two-sided interval the bound is judged on (singling-out, "
        "linkability, inference; membership inference: 95 %): VIOLATED when its lower end is "
        "above max_risk, HOLDS when its upper end is below, else INCONCLUSIVE. A table that "
        "leaks nothing is VIOLATED with probability at most (1 - confidence) / 2",
    )


class UtilityOptions(_Strict):
    """How ``privcheck compare`` (and the anonymization report) measure a release's utility."""

    target: str | None = Field(
        None,
        description="Column a classifier predicts for the classification utility (e.g. "
        "salary-class): a sensitive or insensitive attribute of the policy; without it the "
        "classification measures are left out",
    )
    test_share: float = Field(
        0.3, gt=0.0, lt=1.0, description="Share of the original's rows held out for evaluation"
    )
    seed: int = Field(0, ge=0, description="Seed of the split and of the model")


# --------------------------------------------------------------------------- policy


class Policy(_Strict):
    """What must hold before a table is released."""

    attributes: dict[str, Attribute] = Field(
        default_factory=dict,
        description="Column roles and hierarchies (required for table policies; a graph policy "
        "has no columns and may leave it out)",
    )
    models: Annotated[
        list[SerializeAsAny[ModelConfig]], BeforeValidator(_validate_model_entries)
    ] = Field(default_factory=list)
    suppression_limit: float = Field(
        0.0, ge=0.0, le=1.0, description="Fraction of records an anonymizer may suppress"
    )
    metric: Literal["prec", "discernibility", "aecs", "height", "loss"] = Field(
        "prec",
        description="Information-loss metric the generalization anonymizers minimise: Sweeney's "
        "precision, discernibility, average class size, generalization height or ARX's loss",
    )
    suppressed_records: Literal["remove", "star"] = Field(
        "remove",
        description="How an anonymizer releases suppressed records: left out, or kept with every "
        "quasi-identifier written as '*'",
    )
    suppressed_cells: Literal["category", "wildcard"] = Field(
        "category",
        description="What a '*' in a quasi-identifier cell (local suppression) means to a check: "
        "one more value (category, ARX's convention) or a value matching every value of that "
        "quasi-identifier (wildcard, sdcMicro's convention: a record's class size is then the "
        "number of records compatible with it)",
    )
    missing: Literal["error", "own_class"] = Field(
        "error",
        description="Missing values in quasi-identifiers / sensitive attributes: an input error, "
        "or a class of their own",
    )
    population: PopulationTable | PopulationSize | None = Field(
        None,
        description="The population the data is drawn from, for journalist / marketer risk, "
        "k-map, delta-presence and population uniqueness: a table of counts, or its size",
    )
    exposure_threshold: float = Field(
        0.05,
        ge=0.0,
        le=1.0,
        description="Masking methods: the share of records their transparency attack may "
        "re-identify before the anonymization report warns (0.05: the prosecutor risk of "
        "20-anonymity)",
    )
    utility: UtilityOptions | None = Field(
        None,
        description="Utility measurement options (classification target, held-out share, seed)",
    )
    synthetic_risk: SyntheticRisk | None = Field(
        None,
        description="Synthetic releases: the largest singling-out, linkability or inference "
        "risk (membership inference: advantage) `privcheck risk` lets pass (exit 1 above it)",
    )
    individual: str | None = Field(
        None,
        min_length=1,
        description="The column that identifies the person when a person can have several "
        "records (one row per visit, claim or contract): every model then counts distinct "
        "people per class, not records, and anonymizers suppress a person's records together. "
        "The column is removed from a release (see pseudonymize_individual)",
    )
    pseudonymize_individual: bool = Field(
        False,
        description="Release the individual column as a keyed pseudonym (HMAC-SHA-256 under a "
        "key drawn from the operating system for each release and never written) instead of "
        "removing it, so that a release can be re-checked person by person",
    )

    #: Directory relative hierarchy paths are resolved against (set when loaded from a file).
    _base_dir: Path | None = PrivateAttr(None)
    #: The file the policy was loaded from (named in a draft's refusal).
    _source: Path | None = PrivateAttr(None)

    @property
    def base_dir(self) -> Path | None:
        return self._base_dir

    @model_validator(mode="after")
    def _cross_checks(self) -> Policy:
        sensitive = self.sensitive_attributes
        resolved = []
        for i, m in enumerate(self.models):
            if isinstance(m, SensitiveModelConfig):
                if m.attribute is None:
                    if not sensitive and m.sensitive_optional:
                        resolved.append(m)
                        continue
                    if len(sensitive) != 1:
                        raise ValueError(
                            f"models[{i}] ({m.model}) must name its 'attribute': the policy has "
                            f"{len(sensitive)} sensitive attributes ({', '.join(sensitive)})"
                        )
                    m = m.model_copy(update={"attribute": sensitive[0]})
                elif m.attribute not in sensitive:
                    raise ValueError(
                        f"models[{i}] ({m.model}) protects {m.attribute!r}, which is not a "
                        f"sensitive attribute of the policy (sensitive: {', '.join(sensitive)})"
                    )
            resolved.append(m)
        self.models = resolved
        for name, attr in self.attributes.items():
            _bound_levels(name, attr.hierarchy)
            if (attr.top_coding or attr.bottom_coding) and attr.role is not Role.quasi_identifier:
                raise ValueError(
                    f"attribute {name!r} has top/bottom coding but is not a quasi_identifier; "
                    "code only quasi-identifiers"
                )
            top, bottom = attr.top_coding, attr.bottom_coding
            if top and bottom and bottom.threshold > top.threshold:
                raise ValueError(
                    f"attribute {name!r}: bottom_coding threshold "
                    f"{attr.bottom_coding.threshold:g} is above the top_coding threshold "
                    f"{attr.top_coding.threshold:g}; use bottom <= top"
                )
        self._check_individual()
        target = self.utility.target if self.utility is not None else None
        if target is not None:
            attr = self.attributes.get(target)
            if attr is None or attr.role not in (Role.sensitive, Role.insensitive):
                raise ValueError(
                    f"utility.target {target!r} must be a sensitive or insensitive attribute of "
                    "the policy (a release generalizes quasi-identifiers and drops identifiers "
                    "and unlisted columns)"
                )
        return self

    def _check_individual(self) -> None:
        """The individual column is a person key: counted, never a quasi-identifier, sensitive
        or insensitive value (listed at most as an identifier, which it is)."""
        name = self.individual
        if name is None:
            if self.pseudonymize_individual:
                raise ValueError(
                    "pseudonymize_individual needs 'individual: COLUMN' (the column to "
                    "pseudonymize); name the column that identifies the person"
                )
            return
        attr = self.attributes.get(name)
        if attr is not None and attr.role is not Role.identifier:
            raise ValueError(
                f"{name!r} is the individual column and cannot also be a {attr.role.value}: "
                "classes are counted in its distinct values and it is removed from every "
                "release; take it out of 'attributes'"
            )
        if self.suppressed_cells == "wildcard":
            raise ValueError(
                "suppressed_cells: wildcard cannot count people (a class's size is the sum of "
                "the records of every class compatible with it, and distinct people do not add "
                "up across classes); use suppressed_cells: category with 'individual'"
            )

    def require_attributes(self) -> None:
        """Refuse to check or anonymize a table under a policy without column roles: it would
        pass vacuously (one class holding every record). A graph policy needs none."""
        if not self.attributes:
            from privcheck.plugins import model_registry

            registry = model_registry()
            for m in self.models:
                if getattr(registry.get(m.model), "target", "table") == "graph":
                    raise PolicyError(
                        f"the model {m.model!r} applies to graphs; check a graph with "
                        "`privcheck check --graph EDGES --policy P`"
                    )
            raise PolicyError(
                "a table policy needs 'attributes': name each column's role (quasi_identifier, "
                "sensitive, identifier, insensitive); only a graph policy (k-degree, "
                "k-neighbourhood models) may leave them out"
            )

    @property
    def quasi_identifiers(self) -> list[str]:
        return [n for n, a in self.attributes.items() if a.role is Role.quasi_identifier]

    @property
    def sensitive_attributes(self) -> list[str]:
        return [n for n, a in self.attributes.items() if a.role is Role.sensitive]

    @property
    def identifiers(self) -> list[str]:
        return [n for n, a in self.attributes.items() if a.role is Role.identifier]

    @property
    def open_reviews(self) -> dict[str, str]:
        """The open decisions, column → what was seen and what to decide (the attributes'
        ``review`` entries, in policy order). A policy with any is a draft."""
        return {n: a.review for n, a in self.attributes.items() if a.review is not None}

    @property
    def is_draft(self) -> bool:
        """Whether decisions are still open (``review`` entries left)."""
        return any(a.review is not None for a in self.attributes.values())

    def decide(self, column: str, role: Role | str | None = None) -> Policy:
        """A copy of the policy with ``column``'s open decision resolved: its ``review`` entry
        deleted, its role set to ``role`` (default: the drafted role, kept). What editing the
        file does, for a policy held in Python (``privcheck.draft_policy``)."""
        attr = self.attributes.get(column)
        if attr is None:
            raise PolicyError(
                f"the policy has no attribute {column!r}; columns: {listing(self.attributes)}"
            )
        data = self.model_dump(mode="json", exclude_none=True)
        entry = data["attributes"][column]
        entry.pop("review", None)
        if role is not None:
            entry["role"] = Role(role).value
            if entry["role"] != Role.quasi_identifier.value:
                for key in ("top_coding", "bottom_coding"):
                    entry.pop(key, None)
        decided = parse_policy(data, base_dir=self.base_dir)
        decided._source = self._source
        return decided

    def require_decided(self, *, allow_draft: bool = False, where: str | None = None) -> None:
        """Refuse a draft: a policy with open ``review`` entries must not decide a release
        (every column left for review would silently pass as what it was drafted).
        ``allow_draft`` runs it anyway — the caller's report then says ``draft: true``."""
        if allow_draft or not self.is_draft:
            return
        if where is None and self._source is not None:
            where = str(self._source)
        raise PolicyError(draft_message(self.open_reviews, where))

    def require_anonymizable(self, *, allow_draft: bool = False) -> None:
        """Refuse, before the data is read, a policy no release should be made under: a draft
        (``require_decided``), or more quasi-identifiers than ``QUASI_IDENTIFIERS`` — every
        algorithm's work grows with them (lattice axes, DataFly's steps × columns, Mondrian's
        cuts)."""
        from privcheck.limits import QUASI_IDENTIFIERS

        self.require_decided(allow_draft=allow_draft)
        QUASI_IDENTIFIERS.check(
            len(self.quasi_identifiers),
            "the policy has",
            "anonymize a release of fewer (a release generalizing dozens is rarely useful)",
        )

    @property
    def individual_released(self) -> bool:
        """Whether a release carries the individual column (as a keyed pseudonym)."""
        return self.individual is not None and self.pseudonymize_individual

    def resolve_path(self, name: str | Path) -> Path:
        """A path the policy names, relative to the policy file's folder (to the working
        directory for a policy given as a dict)."""
        path = Path(name)
        if not path.is_absolute() and self.base_dir is not None:
            path = self.base_dir / path
        return path

    def input_files(self) -> list[Path]:
        """The files the policy reads (table hierarchies, population table, a model's inputs such
        as previous releases), resolved against its folder: an output must never overwrite one."""
        named = [
            attr.hierarchy.path
            for attr in self.attributes.values()
            if isinstance(attr.hierarchy, TableHierarchy) and attr.hierarchy.path is not None
        ]
        if isinstance(self.population, PopulationTable):
            named.append(self.population.path)
        for model in self.models:
            named.extend(model.input_paths())
        return [self.resolve_path(name) for name in named]

    def model_entries(self, name: str) -> list[ModelConfig]:
        return [m for m in self.models if m.model == name]


def _bound_entries(data: dict) -> None:
    """Refuse, before validating them, a number no 64-bit integer or finite float holds
    (``check_integers``), and more attributes or model entries than ``ATTRIBUTES`` /
    ``MODELS``: every check encodes each attribute and evaluates and reports each model."""
    from privcheck.limits import ATTRIBUTES, MODELS

    try:
        check_integers(data, "")
    except PolicyError as exc:
        raise PolicyError(f"invalid policy: {exc}") from None
    attributes, models = data.get("attributes"), data.get("models")
    if isinstance(attributes, dict):
        ATTRIBUTES.check(
            len(attributes),
            "the policy names",
            "name the columns that matter (an unnamed column is left out of a release)",
        )
    if isinstance(models, list):
        MODELS.check(len(models), "the policy lists", "list each model once")


def _bound_levels(name: str, hierarchy: Any) -> None:
    """Refuse, when the policy is loaded, a hierarchy whose levels it spells out beyond
    ``HIERARCHY_LEVELS`` (intervals' widths, a masking hierarchy's levels, an inline table's
    columns); hierarchy files and masking by the longest value are bounded as they are built
    (``privcheck.hierarchy.check_levels``)."""
    from privcheck.limits import HIERARCHY_LEVELS

    if isinstance(hierarchy, IntervalsHierarchy):
        levels, advice = len(hierarchy.widths) + hierarchy.top, "use fewer widths"
    elif isinstance(hierarchy, MaskingHierarchy) and hierarchy.levels is not None:
        levels, advice = hierarchy.levels, "mask fewer characters"
    elif isinstance(hierarchy, TableHierarchy) and hierarchy.rows:
        levels, advice = len(hierarchy.rows[0]) - 1, "use fewer columns"
    else:
        return
    HIERARCHY_LEVELS.check(levels, f"the hierarchy of {name!r} has", advice)


def _first_error(exc: ValidationError, prefix: str = "policy", text: str | None = None) -> str:
    """The first problem, located and named (``privcheck.messages.first_error``): a number or
    boolean of a known field is shown, text never, an unknown key's value never."""
    from privcheck.messages import first_error

    return first_error(exc, prefix, text=text, show_numbers=True)


def parse_policy(data: Any, base_dir: Path | None = None, text: str | None = None) -> Policy:
    """Validate a policy given as a dict (or return a Policy unchanged). ``text``: the file it
    was read from, to give a key that is not a name by its line and column."""
    if isinstance(data, Policy):
        return data
    if not isinstance(data, dict):
        raise PolicyError(
            f"a policy must be a mapping with 'attributes' and 'models'; got {type(data).__name__}"
        )
    _bound_entries(data)
    try:
        policy = Policy.model_validate(data)
    except ValidationError as exc:
        raise PolicyError(f"invalid policy: {_first_error(exc, text=text)}") from None
    policy._base_dir = base_dir
    return policy


def aggregated_policy(policy: Policy) -> Policy:
    """The policy restricted to the columns an aggregated frame carries (an engine's counts, a
    release's distinct rows): identifiers and insensitive columns do not enter the group-by,
    so ``encode`` must not look for them there."""
    keep = {Role.quasi_identifier, Role.sensitive}
    attributes = {n: a for n, a in policy.attributes.items() if a.role in keep}
    return policy.model_copy(update={"attributes": attributes})


def load_policy(source: Policy | dict | str | Path) -> Policy:
    """Load a policy from a Policy, a dict, or a YAML/JSON file path.

    A file that is not a policy at all (a secrets file, ``/etc/shadow``) is refused naming the
    file and the line, column or key of the problem, never its content
    (``privcheck.messages``)."""
    if isinstance(source, Policy | dict):
        return parse_policy(source)
    from privcheck.io import read_text_file
    from privcheck.limits import DOCUMENT_BYTES
    from privcheck.messages import syntax_error

    path = Path(source)
    try:
        text = read_text_file(path, "policy file", DOCUMENT_BYTES)
    except PrivcheckError as exc:  # missing, not a regular file, not UTF-8: the policy's fault
        raise PolicyError(str(exc)) from None
    # a command reads its policy more than once (its outputs are checked against the files the
    # policy names before the work): parsed once per content, folder and limits in force, so
    # the largest policy the limits accept costs its parse once (a copy each time after)
    from privcheck.limits import LIMITS

    key = (
        path.suffix.lower() == ".json",
        hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest(),
        path.parent.resolve(),
        tuple(limit.value() for limit in LIMITS.values()),
    )
    if key in _LOADED:
        policy = _LOADED[key].model_copy(deep=True)
        policy._source = path
        return policy
    try:
        data = load_json(text) if path.suffix.lower() == ".json" else load_yaml(text)
    except PolicyError as exc:  # nesting or alias expansion beyond the bounds
        raise PolicyError(f"policy file {path}: {exc}") from None
    except (yaml.YAMLError, ValueError) as exc:  # json.JSONDecodeError is a ValueError
        raise PolicyError(syntax_error(exc, f"policy file {path}", "YAML/JSON")) from None
    try:
        policy = parse_policy(data, base_dir=path.parent.resolve(), text=text)
    except PolicyError as exc:  # the file is named: "invalid policy file p.yaml: models[0].k …"
        message = str(exc).removeprefix("invalid policy: ").removeprefix("policy.")
        raise PolicyError(f"invalid policy file {path}: {message}") from None
    _remember(key, policy)
    policy._source = path
    return policy


#: policies already parsed in this process, by content (see ``load_policy``)
_LOADED: dict[tuple, Policy] = {}
_LOADED_SIZE = 8


def _remember(key: tuple, policy: Policy) -> None:
    if len(_LOADED) >= _LOADED_SIZE:
        _LOADED.pop(next(iter(_LOADED)))
    _LOADED[key] = policy.model_copy(deep=True)


def policy_json_schema() -> dict[str, Any]:
    """JSON Schema of the policy with every registered model (built-in and plugin) spelled out."""
    from privcheck.plugins import model_registry

    configs = tuple(cls.config for cls in model_registry().values())
    entry = Annotated[
        (configs[0] if len(configs) == 1 else _union(configs)), Field(discriminator="model")
    ]
    schema_model = create_model(
        "Policy",
        __base__=Policy,
        __doc__=Policy.__doc__,
        models=(list[entry], Field(default_factory=list)),  # type: ignore[valid-type]
    )
    schema = schema_model.model_json_schema(mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "privcheck policy"
    return schema


def _union(types: tuple[type, ...]) -> Any:
    from functools import reduce
    from operator import or_

    return reduce(or_, types)
