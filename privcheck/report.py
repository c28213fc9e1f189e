"""Report models: the JSON contract, and nothing else.

The reports are data. Their renderings sit above them and import them, never the reverse:
``privcheck.text_report`` (text), ``privcheck.html_report`` (one HTML page), and each model's
``to_json`` (JSON).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel as _PydanticBase
from pydantic import ConfigDict, Field, PrivateAttr, model_validator

from privcheck.version import __version__


class BaseModel(_PydanticBase):
    """Every report model's base: its validator is built when first used (``defer_build``), so
    a command pays only for the report models it makes — a check never builds the
    anonymization or risk reports' (building all of them took a tenth of a small check)."""

    model_config = ConfigDict(defer_build=True)


def draft_note(open_reviews: list[str]) -> str:
    """What every rendering of a report made under a draft policy says, visibly."""
    from privcheck.errors import listing

    n = len(open_reviews)
    return (
        f"DRAFT policy: {n} open review item{'s' if n != 1 else ''} ({listing(open_reviews)}) — "
        "this verdict does not mean the release is safe"
    )


def mark_draft(report: Any, policy: Any) -> Any:
    """Record on a report (check, anonymization, risk) or Verdict whether its policy was a
    draft run with --allow-draft, and which columns are still to be decided."""
    report.open_reviews = list(policy.open_reviews)
    report.draft = bool(report.open_reviews)
    return report


class ViolatingClass(BaseModel):
    """One equivalence class that breaks a model: its released values, size and records."""

    values: dict[str, str] = Field(description="Quasi-identifier values of the class")
    size: int
    statistic: float | None = Field(
        None, description="The model's per-class statistic (null when infinite: see unbounded)"
    )
    unbounded: bool = Field(False, description="The per-class statistic is infinite")
    records: list[int | str] = Field(
        description="Row numbers (0-based, input order), or node ids for graphs; possibly capped"
    )


class ValueHistogram(BaseModel):
    """Histogram of a model's per-class statistic: how far the classes are from the bound."""

    edges: list[float] = Field(description="Bin edges (len = bins + 1)")
    classes: list[int] = Field(description="Number of classes per bin")
    records: list[int] = Field(description="Number of records in those classes, per bin")
    unbounded: int = Field(0, description="Classes whose statistic is infinite (not binned)")


class ClassDistribution(BaseModel):
    """One class's sensitive-value counts (aligned with ``SensitiveDistribution.values``)."""

    values: dict[str, str] = Field(description="Quasi-identifier values of the class")
    size: int
    statistic: float | None = None
    counts: list[int]


class SensitiveDistribution(BaseModel):
    """The sensitive attribute's distribution overall and in the worst classes."""

    attribute: str
    values: list[str] = Field(
        description="Sensitive values shown, in order (may end in 'other'); value ranges "
        "'lo–hi' when a numeric attribute's values are grouped (see grouping)"
    )
    overall: list[int] = Field(description="Counts over the whole table")
    classes: list[ClassDistribution] = Field(description="The worst classes, worst first")
    grouping: str | None = Field(
        None, description="How values were grouped for the plot (null: one entry per value)"
    )


class SizeHistogram(BaseModel):
    """How many classes have each size (exact; sizes ascending)."""

    sizes: list[int]
    classes: list[int]
    records: list[int] | None = Field(
        None,
        description="Records in the classes of each size (null: sizes × classes; given when a "
        "class's size is not its own record count, e.g. effective sizes under wildcard)",
    )


class SectionTable(BaseModel):
    columns: list[str]
    rows: list[list[str | float | int | None]]


class SectionPlot(BaseModel):
    """A simple plot: one or more series over shared x labels."""

    kind: Literal["bar", "line", "step"] = "bar"
    x: list[str | float | int]
    series: dict[str, list[float | None]]
    xlabel: str = ""
    ylabel: str = ""
    log_y: bool = False


class Section(BaseModel):
    """A report section another step contributes (anonymization, information loss, risk …).

    Rendered only when present; ``id`` is one of the well-known ids (see ``SECTION_ORDER``) or any
    plugin's own. Keeping the shape generic lets anonymizers, metrics and risk measures add what
    they computed without the HTML renderer knowing about them.
    """

    id: str = Field(description="suppression, information-loss, anonymization, utility, risk …")
    title: str
    summary: str | None = None
    figures: dict[str, float | int | str | None] = Field(
        default_factory=dict, description="Key figures, shown as a two-column table"
    )
    table: SectionTable | None = None
    plot: SectionPlot | None = None


class RiskFigures(BaseModel):
    """Re-identification risk of a table of classes (record-weighted, prosecutor model)."""

    sample_uniques: int = Field(description="Records unique on the quasi-identifiers")
    n_classes: int
    average_risk: float = Field(description="Prosecutor average risk: #classes / n")
    records_below_k: int | None = Field(
        None, description="Records in classes smaller than k (k of the policy's k-anonymity)"
    )


class QIContribution(BaseModel):
    """How much one quasi-identifier drives the risk: the risk without it, the risk with it one
    hierarchy level coarser, and its share of the SUDA score."""

    attribute: str
    suda_share: float = Field(
        description="% of the total SUDA score from MSUs containing it (sdcMicro's attribute "
        "contribution; the shares add up to more than 100)"
    )
    msus: int = Field(description="MSUs containing it")
    dropped: RiskFigures = Field(description="The risk with this quasi-identifier left out")
    generalized: RiskFigures | None = Field(
        None, description="The risk with it generalized one level (null: see generalized_note)"
    )
    generalized_note: str | None = None


class MSUGroup(BaseModel):
    """One combination of quasi-identifiers that is a minimal sample unique of some records."""

    attributes: list[str]
    records: int = Field(description="Records for which this combination is an MSU")
    score: float = Field(description="The SUDA weight of an MSU of this size")
    examples: list[dict[str, str]] = Field(description="Values of a few of those records")
    rows: list[int] = Field(description="Row numbers (0-based) of a few of those records")


class RecordExplanation(BaseModel):
    """A sample-unique record, its SUDA score and the combinations that single it out."""

    row: int | None = Field(description="Row number (0-based; null for an engine's counts)")
    score: float
    values: dict[str, str]
    msus: list[list[str]]


class Explanation(BaseModel):
    """Which quasi-identifier combinations make records unique (SUDA2's minimal sample uniques,
    Elliot's SUDA scores) and how much each quasi-identifier contributes to the risk."""

    quasi_identifiers: list[str]
    n_records: int
    max_size: int = Field(description="Largest MSU size searched (maxK)")
    complete: bool = Field(description="Whether every subset size was searched")
    k: int | None = Field(None, description="k used for records_below_k")
    current: RiskFigures
    msu_total: int = Field(description="MSUs found (record × combination)")
    msu_by_size: list[int] = Field(description="MSUs of size 1, 2, … max_size")
    records_with_msu: int
    total_score: float
    highest_score: float
    contributions: list[QIContribution]
    msus: list[MSUGroup] = Field(description="Combinations by records, most first (capped)")
    records: list[RecordExplanation] = Field(description="Highest SUDA scores first (capped)")
    seconds: float | None = None

    def sections(self) -> list[Section]:
        """The explanation as report sections (HTML rendering)."""
        cur = self.current
        figures: dict[str, float | int | str | None] = {
            "sample uniques (records)": cur.sample_uniques,
            "average risk (#classes / n)": round(cur.average_risk, 6),
            "records below k": cur.records_below_k,
            "MSU size searched up to": f"{self.max_size}" + ("" if self.complete else " (partial)"),
            "MSUs found": self.msu_total,
            "records with an MSU": self.records_with_msu,
            "highest SUDA score": self.highest_score,
        }
        if self.k is None:
            figures.pop("records below k")
        rows = []
        for c in self.contributions:
            g = c.generalized
            rows.append(
                [
                    c.attribute,
                    round(c.suda_share, 2),
                    c.msus,
                    c.dropped.sample_uniques,
                    round(c.dropped.average_risk, 6),
                    c.dropped.records_below_k,
                    None if g is None else g.sample_uniques,
                    None if g is None else round(g.average_risk, 6),
                    None if g is None else g.records_below_k,
                ]
            )
        contrib = Section(
            id="risk-explanation",
            title="risk explanation: quasi-identifier contributions",
            summary=(
                "The risk with each quasi-identifier dropped, or generalized one hierarchy level, "
                "and its share of the SUDA score (minimal sample uniques containing it)."
            ),
            figures=figures,
            table=SectionTable(
                columns=[
                    "quasi-identifier",
                    "SUDA share %",
                    "MSUs",
                    "uniques if dropped",
                    "avg risk if dropped",
                    "below k if dropped",
                    "uniques if generalized",
                    "avg risk if generalized",
                    "below k if generalized",
                ],
                rows=rows,
            ),
            plot=SectionPlot(
                kind="bar",
                x=[c.attribute for c in self.contributions],
                series={
                    "SUDA share %": [c.suda_share for c in self.contributions],
                    "% of uniques removed by dropping it": [
                        100.0 * (1 - c.dropped.sample_uniques / cur.sample_uniques)
                        if cur.sample_uniques
                        else 0.0
                        for c in self.contributions
                    ],
                },
                ylabel="%",
            ),
        )
        msus = Section(
            id="risk-explanation-msus",
            title="risk explanation: minimal sample uniques",
            summary=(
                "Combinations of quasi-identifiers on which records are unique while no smaller "
                "combination is, by the number of records they single out."
            ),
            table=SectionTable(
                columns=["combination", "size", "records", "SUDA weight", "example", "rows"],
                rows=[
                    [
                        " + ".join(g.attributes),
                        len(g.attributes),
                        g.records,
                        g.score,
                        "; ".join(
                            ", ".join(f"{k}={v}" for k, v in ex.items()) for ex in g.examples
                        ),
                        ", ".join(map(str, g.rows)),
                    ]
                    for g in self.msus
                ],
            ),
        )
        return [contrib, msus]


#: the order well-known sections appear in (unknown ids follow, in report order)
SECTION_ORDER = ("anonymization", "suppression", "information-loss", "utility", "risk")


class ModelResult(BaseModel):
    """How one model fares. ``value`` is the level the data achieves.

    An infinite statistic (recursive (c,l)-diversity of a class with fewer than l values) is
    published as ``value: null`` with ``unbounded: true``; ``value: null`` with ``unbounded:
    false`` means there was no class to measure (an empty table checked with ``allow_empty``).
    """

    model: str
    params: dict[str, Any]
    passed: bool
    value: float | list[float] | None = Field(
        description="The level the data achieves; null when unbounded or when there is no "
        "class; a [min, max] pair for delta-presence"
    )
    unbounded: bool = Field(
        False, description="The worst class's statistic is infinite (value is then null)"
    )
    statistic: str = Field(description="What value measures (class size, EMD, …)")
    violating_classes: int
    violating_records: int
    violators: list[ViolatingClass] = Field(
        default_factory=list, description="The worst violating classes first, capped"
    )
    histogram: ValueHistogram | None = Field(
        None, description="Distribution of the per-class statistic (for plots)"
    )
    distribution: SensitiveDistribution | None = Field(
        None, description="Sensitive-value distribution overall and in the worst classes"
    )


class Report(BaseModel):
    """The verdict of a check."""

    kind: Literal["check", "graph-check"] = "check"
    passed: bool
    n_records: int = Field(description="Records (rows), or nodes of a graph")
    n_individuals: int | None = Field(
        None,
        description="Distinct people (values of the policy's individual column) among the "
        "records judged; null when the policy names no individual (classes count records)",
    )
    individual: str | None = Field(
        None, description="The policy's individual column (classes count its distinct values)"
    )
    n_classes: int = Field(description="Equivalence classes (of the first model, for graphs)")
    n_edges: int | None = Field(None, description="Edges, for a graph check")
    quasi_identifiers: list[str]
    models: list[ModelResult]
    suppressed_cells: Literal["category", "wildcard"] | None = Field(
        None,
        description="How a '*' cell was read: one more value (category) or a value matching "
        "every value of its quasi-identifier (wildcard: k-anonymity judges effective class sizes)",
    )
    draft: bool = Field(
        False,
        description="The policy was a draft (columns still marked review:) run with "
        "--allow-draft: this verdict does not mean the release is safe",
    )
    open_reviews: list[str] = Field(
        default_factory=list,
        description="The columns whose role is still to be decided (the policy's review: "
        "entries); empty unless draft",
    )
    source: str | None = None
    privcheck_version: str = __version__
    elapsed_seconds: float | None = None
    class_sizes: SizeHistogram | None = Field(None, description="Number of classes per size")
    sections: list[Section] = Field(
        default_factory=list, description="Sections contributed by anonymizers, metrics, risk"
    )
    explanation: Explanation | None = Field(
        None, description="What drives the re-identification risk (check --explain)"
    )
    identifiers_present: list[str] = Field(
        default_factory=list,
        description="Identifier columns of the policy that the checked data still holds: a "
        "failing finding (a release must not carry them); absent identifiers are fine",
    )
    n_suppressed: int = Field(
        0,
        description="Rows counted as suppressed records (suppressed_records: star, every "
        "quasi-identifier '*'): not judged by the models, not in n_records",
    )
    suppression_limit_records: int | None = Field(
        None, description="The suppression limit in records (suppressed_records: star)"
    )
    suppression_ok: bool = Field(
        True, description="n_suppressed is within suppression_limit_records"
    )
    notes: list[str] = Field(
        default_factory=list,
        description="What a reader should know that is no failure (e.g. records that repeat "
        "per person while the policy counts records)",
    )
    #: the classes the checker judged (``privcheck.checker.JudgedClasses``): kept out of the
    #: JSON; an anonymizer reads the release's risk from them (``risk_after``)
    _judged: Any = PrivateAttr(default=None)

    def to_json(self) -> str:
        return self.model_dump_json(indent=2)

    def findings(self) -> list[str]:
        """The release-integrity findings beyond the models, one sentence each."""
        out = []
        if self.identifiers_present:
            out.append(
                f"identifier column(s) present: {', '.join(self.identifiers_present)} — a "
                "release must not carry them (drop them, or anonymize the data)"
            )
        if not self.suppression_ok:
            out.append(
                f"{self.n_suppressed} suppressed records ('*' rows) exceed the suppression limit "
                f"of {self.suppression_limit_records} record(s)"
            )
        return out


#: the comparisons ``requirement`` returns, as a reader writes them (≥ 5, ≤ 0.2)
SIGNS: dict[str, str] = {">=": "≥", "<=": "≤", "<": "<"}


def requirement(model: str, params: dict[str, Any]) -> tuple[float, str] | None:
    """What a built-in model requires of its ``value``: (bound, comparison), e.g. (5, ">=").

    ``value`` passes when ``value <comparison> bound``; None for models privcheck does not know
    (a plugin's), whose pass/fail still comes from the model itself.
    """
    if model == "k-anonymity" and "k" in params:
        return float(params["k"]), ">="
    if model == "l-diversity" and "l" in params:
        if params.get("variant") == "recursive" and params.get("c") is not None:
            return float(params["c"]), "<"
        return float(params["l"]), ">="
    if model == "t-closeness" and "t" in params:
        return float(params["t"]), "<="
    # β-likeness: the largest (q − p)/p against β (enhanced also caps each value at −ln p);
    # δ-disclosure: strictly below δ; (α,k): the largest share against α (and every class ≥ k)
    if model == "beta-likeness" and "beta" in params:
        return float(params["beta"]), "<="
    if model == "delta-disclosure" and "delta" in params:
        return float(params["delta"]), "<"
    if model == "alpha-k-anonymity" and "alpha" in params:
        return float(params["alpha"]), "<="
    # risk thresholds: the average risk (or estimated share of population uniques) against t, the
    # share of records above t against max_share. None for k-map (with only a population size
    # the verdict is the Poisson test's, not value ≥ k) and δ-presence (two bounds)
    if model in ("average-risk", "population-uniqueness") and "threshold" in params:
        return float(params["threshold"]), "<="
    if model == "record-risk" and "threshold" in params:
        return float(params.get("max_share", 0.0)), "<="
    return None


def class_requirement(model: str, params: dict[str, Any]) -> tuple[float, str] | None:
    """What each class's statistic (a histogram's bins) is compared with: the model's
    ``requirement`` except for models whose ``value`` is a table-level figure — record-risk's
    classes are at risk above the threshold; an average's or an estimate's classes have no bound
    of their own."""
    if model == "record-risk" and "threshold" in params:
        return float(params["threshold"]), "<="
    if model in ("average-risk", "population-uniqueness", "delta-presence"):
        return None
    return requirement(model, params)


class Exposure(BaseModel):
    """How exposed a masked release is to the transparency attack that fits its method.

    ``reidentified_share`` is the expected share of records the intruder links to their true
    released record (the attack's anonymity-set rate: 1/|A| per record whose true record is
    among the |A| best, averaged); ``warning`` is ``reidentified_share > threshold``, the
    policy's ``exposure_threshold``. See ``privcheck.anonymizers.exposure``.
    """

    attack: str = Field(description="The risk measure (privcheck risk --attack NAME)")
    params: dict[str, Any] = Field(description="Its parameters (privcheck risk --param k=v)")
    intruder: str = Field(description="What the intruder holds and knows")
    n_records: int = Field(description="Records in the release")
    n_attacked: int = Field(description="Records attacked (all, or a random sample)")
    sampled: bool
    reidentified_share: float = Field(
        description="Expected share of records linked to their true released record"
    )
    confidence_interval: list[float] | None = Field(
        None, description="95 % interval of the share when a sample was attacked"
    )
    certain_share: float = Field(
        description="Share of records linked to a single candidate that is their true record "
        "(a unique, correct link; certain when the attack's candidate sets surely hold it)"
    )
    threshold: float = Field(description="The policy's exposure_threshold")
    warning: bool = Field(description="Whether the share exceeds the threshold")
    figures: dict[str, float | int | str | bool | None] = Field(
        default_factory=dict, description="The attack's own figures"
    )
    seconds: float = Field(description="Time the attack took")


class ProsecutorRisk(BaseModel):
    """Prosecutor re-identification risk of a table's records
    (``privcheck.risk.population.prosecutor``): a record's risk is 1 / the size of its
    equivalence class over the quasi-identifiers."""

    highest: float = Field(description="The largest record risk (1 / the smallest class)")
    average: float = Field(description="The mean record risk")
    records_above: float = Field(
        description="Share of records whose risk exceeds 1/k (k of the policy's k-anonymity, "
        "the largest if several), or 0.2 without a k-anonymity model"
    )


class RiskProfile(BaseModel):
    """The plot data of an anonymization: class sizes and record risks before and after.

    Before: the input's classes at ground values; after: the release's classes as ``privcheck
    check`` forms them (suppressed records not counted; a ``*`` cell read per the policy's
    ``suppressed_cells``: under ``wildcard`` a class's size is its effective size).
    """

    threshold: float = Field(description="The risk threshold of records_above (1/k or 0.2)")
    k: int | None = Field(None, description="The policy's k (largest k-anonymity k), if any")
    suppressed_cells: Literal["category", "wildcard"] = "category"
    risk_bins: list[float] = Field(
        description="Edges of the record-risk bins (lo, hi], e.g. 0, 0.01, 0.02, 0.05 … 1"
    )
    records_before: list[int] = Field(description="Input records per risk bin")
    records_after: list[int] = Field(description="Released records per risk bin")
    class_sizes_before: SizeHistogram
    class_sizes_after: SizeHistogram


class AnonymizationReport(BaseModel):
    """What an anonymizer did, published with the release (the transparency principle: the
    algorithm and its parameters are not secret). ``n_kept + n_suppressed = n_records``."""

    kind: Literal["anonymization"] = "anonymization"
    algorithm: str
    parameters: dict[str, Any] = Field(description="Algorithm parameters, models, limits, seed")
    quasi_identifiers: list[str]
    node: dict[str, int] | None = Field(
        None, description="Chosen generalization level per quasi-identifier"
    )
    n_records: int = Field(description="Records in the input")
    n_individuals: int | None = Field(
        None,
        description="Distinct people in the input (the policy's individual column); null when "
        "the policy names no individual",
    )
    n_kept: int = Field(description="Records released with their (generalized) values")
    n_suppressed: int = Field(description="Records suppressed (left out, or written as '*')")
    n_suppressed_individuals: int | None = Field(
        None,
        description="People whose records were suppressed — all of a person's records go "
        "together; null when the policy names no individual",
    )
    n_released_rows: int = Field(description="Rows in the release")
    removed_columns: list[str] = Field(
        default_factory=list, description="Identifiers and columns the policy does not list"
    )
    metric: str | None = Field(None, description="The metric the search optimised")
    metrics: dict[str, float] = Field(default_factory=dict)
    nodes_evaluated: int | None = None
    lattice_size: int | None = None
    satisfying_nodes: int | None = Field(
        None, description="Lattice nodes that satisfy the policy (exhaustive searches)"
    )
    minimal_nodes: list[dict[str, int]] | None = Field(
        None, description="The minimal satisfying nodes (k-minimal generalizations)"
    )
    path: list[dict[str, int]] | None = Field(None, description="Greedy searches' steps")
    tradeoff: list[dict[str, Any]] | None = Field(
        None,
        description=(
            "The Pareto front of the metric and the suppressed records (mingen tradeoff=true): "
            "each release that no other beats on both, best metric first"
        ),
    )
    suppressed_cells: dict[str, Any] | None = Field(
        None,
        description="Local suppression: quasi-identifier cells blanked to '*', "
        "{per_attribute: {name: cells}, total: cells, optimal: whether total is proven the "
        "fewest, lower_bound: cells every valid blanking blanks (null: none proven), "
        "optimality_gap: (total - lower_bound) / total}",
    )
    changed_cells: int | None = Field(
        None,
        description="Quasi-identifier cells whose released value differs from the input's "
        "(blanked, generalized or top/bottom coded)",
    )
    check: Report = Field(description="The release re-checked by the checkers")
    information_loss: dict[str, float | None] | None = Field(
        None, description="Masking methods: SSE/SST (%), IL1s and moment divergences"
    )
    guarantee: str | None = Field(
        None, description="Masking methods: what the method itself guarantees of the release"
    )
    utility: dict[str, float] | None = Field(
        None,
        description="The release's utility measured against the input, cell by cell (Prec, "
        "non-uniform entropy, discernibility, AECS, KL divergence, changed/suppressed cells, "
        "classification accuracy; docs/utility.md): present when the policy has a 'utility' "
        "section",
    )
    notes: list[str] = Field(
        default_factory=list, description="What a reader of the release must know (masking)"
    )
    exposure: Exposure | None = Field(
        None,
        description="Masking methods: the share of records their transparency attack "
        "re-identifies on the release",
    )
    risk_before: ProsecutorRisk | None = Field(
        None,
        description="Prosecutor risk of the input: its classes at ground values, as `privcheck "
        "check` groups the raw data",
    )
    risk_after: ProsecutorRisk | None = Field(
        None,
        description="Prosecutor risk of the release: its classes as `privcheck check` forms "
        "them from the written file (suppressed records are not released and do not count)",
    )
    risk_profile: RiskProfile | None = Field(
        None, description="Class sizes and record risks before and after (the report's plots)"
    )
    loss_by_attribute: dict[str, float] | None = Field(
        None, description="Information loss per quasi-identifier (0: none, 1: all)"
    )
    candidates: list[dict[str, Any]] | None = Field(
        None,
        description="--algorithm auto: every candidate algorithm tried, {algorithm, passed, "
        "excluded_reason, metric, metric_value, n_classes, n_suppressed, suppressed_cells, "
        "seconds, risk: {highest, average, records_above}}",
    )
    chosen: str | None = Field(
        None, description="The algorithm whose release was written (the algorithm's own name)"
    )
    draft: bool = Field(
        False,
        description="The policy was a draft (columns still marked review:) run with "
        "--allow-draft: this verdict does not mean the release is safe",
    )
    open_reviews: list[str] = Field(
        default_factory=list,
        description="The columns whose role is still to be decided (the policy's review: "
        "entries); empty unless draft",
    )
    source: str | None = None
    privcheck_version: str = __version__
    search_seconds: float | None = None
    elapsed_seconds: float | None = None

    @model_validator(mode="after")
    def _chosen_defaults_to_the_algorithm(self) -> AnonymizationReport:
        """A named algorithm wrote its own release: ``chosen`` is its name unless set."""
        if self.chosen is None:
            self.chosen = self.algorithm
        return self

    def to_json(self) -> str:
        return self.model_dump_json(indent=2)


def _fmt(value: float | list[float] | None, unbounded: bool = True) -> str:
    """A figure for text output: ∞ for an unbounded statistic, n/a for one not defined; a
    [min, max] pair (delta-presence) as both figures."""
    if isinstance(value, list):
        return "[" + ", ".join(_fmt(v, unbounded) for v in value) + "]"
    if value is None:
        return "∞" if unbounded else "n/a"
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.4g}"


def _params(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in params.items())
