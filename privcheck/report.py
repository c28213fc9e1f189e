"""Report models (the JSON contract) and their text and HTML renderings."""

from __future__ import annotations

import io
from typing import Any, Literal

from pydantic import BaseModel, Field

from privcheck import __version__


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
    n_classes: int = Field(description="Equivalence classes (of the first model, for graphs)")
    n_edges: int | None = Field(None, description="Edges, for a graph check")
    quasi_identifiers: list[str]
    models: list[ModelResult]
    suppressed_cells: Literal["category", "wildcard"] | None = Field(
        None,
        description="How a '*' cell was read: one more value (category) or a value matching "
        "every value of its quasi-identifier (wildcard: k-anonymity judges effective class sizes)",
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
    n_kept: int = Field(description="Records released with their (generalized) values")
    n_suppressed: int = Field(description="Records suppressed (left out, or written as '*')")
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
        "{per_attribute: {name: cells}, total: cells}",
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
    chosen: str | None = Field(
        None,
        description="The algorithm whose release was written (the one asked for, or the one "
        "--algorithm auto chose)",
    )
    candidates: list[dict[str, Any]] | None = Field(
        None,
        description="--algorithm auto: every algorithm considered, each with algorithm, passed, "
        "excluded_reason (null when scored), metric, metric_value, n_classes, n_suppressed, "
        "suppressed_cells, seconds and risk {highest, average, records_above}",
    )
    source: str | None = None
    privcheck_version: str = __version__
    search_seconds: float | None = None
    elapsed_seconds: float | None = None

    def to_json(self) -> str:
        return self.model_dump_json(indent=2)


def render_anonymization_text(report: AnonymizationReport, width: int = 110) -> str:
    """A readable summary of an anonymization: the node, what was suppressed, the metrics."""
    from rich.console import Console
    from rich.table import Table

    buf = io.StringIO()
    console = Console(
        file=buf, width=width, color_system=None, force_terminal=False, soft_wrap=True
    )
    src = f" {report.source}" if report.source else ""
    console.print(
        f"privcheck anonymize{src}: {report.algorithm} — released {report.n_kept} of "
        f"{report.n_records} records, suppressed {report.n_suppressed}"
    )
    if report.node is not None:
        levels = ", ".join(f"{k}={v}" for k, v in report.node.items())
        console.print(f"generalization levels: {levels}")
    if report.suppressed_cells is not None:
        per = ", ".join(f"{k}={v}" for k, v in report.suppressed_cells["per_attribute"].items())
        console.print(
            f"blanked cells ('*'): {report.suppressed_cells['total']} ({per}); "
            f"changed cells: {report.changed_cells}"
        )
    if report.nodes_evaluated is not None:
        console.print(
            (
                f"nodes evaluated: {report.nodes_evaluated} of {report.lattice_size}"
                if report.lattice_size is not None
                else f"splits tried: {report.nodes_evaluated}"  # (Mondrian: no lattice)
            )
            + (
                f"; satisfying: {report.satisfying_nodes}"
                if report.satisfying_nodes is not None
                else ""
            )
            + (f"; time {report.elapsed_seconds:.3f} s" if report.elapsed_seconds else "")
        )
    table = Table(show_edge=False)
    table.add_column("metric")
    table.add_column("value", justify="right")
    for name, value in report.metrics.items():
        mark = " (optimised)" if name == report.metric else ""
        table.add_row(name + mark, _fmt(value))
    if report.metrics:
        console.print(table)
    if report.tradeoff:
        names = ", ".join(report.tradeoff[0]["node"])
        console.print(f"generalization vs suppression (Pareto front; levels of {names}):")
        front = Table(show_edge=False)
        front.add_column(report.metric or "metric", justify="right")
        front.add_column("suppressed", justify="right")
        front.add_column("levels")
        for point in report.tradeoff:
            levels = " ".join(str(v) for v in point["node"].values())
            front.add_row(_fmt(point["value"]), str(point["suppressed"]), levels)
        console.print(front)
    if report.information_loss is not None:
        loss = ", ".join(
            f"{k}={_fmt(v) if v is not None else 'n/a'}" for k, v in report.information_loss.items()
        )
        console.print(f"information loss: {loss}")
    if report.candidates:
        cand = Table(show_edge=False, title="candidates (--algorithm auto)")
        for col in ("algorithm", f"{report.metric} ↓", "classes", "suppressed", "seconds"):
            cand.add_column(col, justify="left" if col == "algorithm" else "right")
        for c in report.candidates:
            if c["passed"]:
                mark = " ✓" if c["algorithm"] == report.chosen else ""
                cand.add_row(
                    c["algorithm"] + mark,
                    _fmt(c["metric_value"]),
                    str(c["n_classes"]),
                    str(c["n_suppressed"]),
                    f"{c['seconds']:.2f}",
                )
            else:
                cand.add_row(c["algorithm"], "—", "—", "—", "excluded")
        console.print(cand)
    if report.utility is not None:
        shown = ("prec", "non_uniform_entropy", "kl_divergence", "changed_share")
        util = ", ".join(f"{k}={_fmt(report.utility[k])}" for k in shown if k in report.utility)
        if "accuracy_loss_points" in report.utility:
            util += (
                f", accuracy {_fmt(report.utility['accuracy_release'])} vs "
                f"{_fmt(report.utility['accuracy_original'])} on the original "
                f"(loss {report.utility['accuracy_loss_points']:.2f} points)"
            )
        console.print(f"utility (docs/utility.md): {util}")
    if report.guarantee:
        console.print(f"guarantee: {report.guarantee}")
    verdict = "passes" if report.check.passed else "FAILS"
    achieved = "; ".join(f"{m.model} {_fmt(m.value, m.unbounded)}" for m in report.check.models)
    console.print(f"re-check of the release: {verdict} ({achieved or 'no models'})")
    for note in report.notes:
        console.print(f"note: {note}")
    if report.exposure is not None:
        for line in exposure_lines(report.exposure):
            console.print(line)
    line = choice_line(report)
    if line is not None:
        console.print(line)
    return buf.getvalue()


def choice_line(report: AnonymizationReport) -> str | None:
    """One line naming the choice and why: "mondrian: loss 0.108 vs mingen 0.469, 302 classes
    vs 19" (every other scored candidate, then the excluded ones)."""
    if not report.candidates or report.chosen is None:
        return None
    by = {c["algorithm"]: c for c in report.candidates}
    best = by[report.chosen]
    metric = best["metric"]
    others = [c for c in report.candidates if c["passed"] and c["algorithm"] != report.chosen]
    line = f"{report.chosen}: {metric} {best['metric_value']:.4g}"
    if others:
        line += " vs " + ", ".join(f"{c['algorithm']} {c['metric_value']:.4g}" for c in others)
        line += f"; {best['n_classes']} classes vs " + ", ".join(
            str(c["n_classes"]) for c in others
        )
    excluded = [c for c in report.candidates if not c["passed"]]
    if excluded:
        line += "; not used: " + ", ".join(
            f"{c['algorithm']} ({_first_clause(c['excluded_reason'])})" for c in excluded
        )
    return "chose " + line


def _first_clause(reason: str) -> str:
    """A refusal's gist: its text up to the first ':' or ';' (the rest says how to fix it)."""
    for stop in (":", ";"):
        reason = reason.split(stop, 1)[0]
    return reason.strip()


def _pct(share: float) -> str:
    return f"{100 * share:.1f} %"


def exposure_lines(x: Exposure) -> list[str]:
    """The exposure in words: the share re-identified, and a warning above the threshold."""
    params = ", ".join(f"{k}={v}" for k, v in x.params.items())
    sample = ""
    if x.sampled and x.confidence_interval is not None:
        lo, hi = x.confidence_interval
        sample = (
            f" (estimated on a random {x.n_attacked:,} of {x.n_records:,} records; 95 % "
            f"interval {_pct(lo)}–{_pct(hi)})"
        )
    lines = [
        f"exposure: the transparency attack {x.attack} ({params}) re-identifies "
        f"{_pct(x.reidentified_share)} of the records{sample}, {_pct(x.certain_share)} by a "
        f"unique, correct link; intruder: {x.intruder}"
    ]
    if x.warning:
        lines.append(
            f"WARNING: {_pct(x.reidentified_share)} of the records are re-identified by an "
            f"intruder who knows the method, above the policy's exposure_threshold of "
            f"{_pct(x.threshold)}: raise k or p, choose a transparency-resistant method, or "
            "release less"
        )
    return lines


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


def render_text(report: Report, max_rows: int = 5, width: int = 110) -> str:
    """A readable summary: verdict, one row per model, then the worst violators."""
    from rich.console import Console
    from rich.table import Table

    buf = io.StringIO()
    console = Console(
        file=buf, width=width, color_system=None, force_terminal=False, soft_wrap=True
    )
    verdict = "PASSED" if report.passed else "FAILED"
    src = f" {report.source}:" if report.source else ""
    if report.kind == "graph-check":
        console.print(
            f"privcheck check --graph{src} {verdict} — {report.n_records} nodes, "
            f"{report.n_edges} edges"
        )
    else:
        starred = ""
        if report.n_suppressed or report.suppression_limit_records is not None:
            starred = (
                f"; {report.n_suppressed} suppressed records ('*' rows, limit "
                f"{report.suppression_limit_records})"
            )
        console.print(
            f"privcheck check{src} {verdict} — {report.n_records} records, {report.n_classes} "
            f"classes over {', '.join(report.quasi_identifiers) or 'no quasi-identifiers'}"
            + starred
        )
        for finding in report.findings():
            console.print(f"FAIL: {finding}")
    table = Table(show_edge=False)
    for col in ("model", "parameters", "result", "achieved", "violating classes", "records"):
        table.add_column(col, justify="right" if col in ("achieved", "records") else "left")
    for m in report.models:
        table.add_row(
            m.model,
            _params(m.params),
            "pass" if m.passed else "FAIL",
            f"{_fmt(m.value, m.unbounded)} ({m.statistic})",
            str(m.violating_classes),
            str(m.violating_records),
        )
    console.print(table)
    for m in report.models:
        if m.passed or not m.violators:
            continue
        console.print(f"\n{m.model} ({_params(m.params)}): worst violating classes")
        vt = Table(show_edge=False)
        vt.add_column("values")
        vt.add_column("size", justify="right")
        vt.add_column(m.statistic, justify="right")
        vt.add_column("nodes" if report.kind == "graph-check" else "records (row numbers)")
        for v in m.violators[:max_rows]:
            recs = ", ".join(map(str, v.records[:6])) + (" …" if v.size > 6 else "")
            vt.add_row(_params(v.values), str(v.size), _fmt(v.statistic, v.unbounded), recs)
        console.print(vt)
    if report.explanation is not None:
        _explanation_text(console, report.explanation, max_rows)
    return buf.getvalue()


def _explanation_text(console: Any, x: Explanation, max_rows: int) -> None:
    """The explanation: the current risk, each quasi-identifier's contribution, the top MSUs."""
    from rich.table import Table

    cur = x.current
    below = f", {cur.records_below_k} records in classes below k={x.k}" if x.k else ""
    partial = "" if x.complete else " (partial search)"
    console.print(
        f"\nrisk explanation: {cur.sample_uniques} sample uniques, average risk "
        f"{_fmt(cur.average_risk)}{below}; {x.msu_total} minimal sample uniques of size ≤ "
        f"{x.max_size}{partial} (by size: {', '.join(map(str, x.msu_by_size))}), highest SUDA "
        f"score {_fmt(x.highest_score)}"
    )
    ct = Table(show_edge=False)
    for col in ("quasi-identifier", "SUDA share %", "uniques if dropped", "if generalized"):
        ct.add_column(col, justify="left" if col == "quasi-identifier" else "right")
    if x.k:
        ct.add_column("below k if dropped / generalized", justify="right")
    for c in sorted(x.contributions, key=lambda c: -c.suda_share):
        g = c.generalized
        row = [
            c.attribute,
            f"{c.suda_share:.1f}",
            str(c.dropped.sample_uniques),
            "—" if g is None else str(g.sample_uniques),
        ]
        if x.k:
            row.append(f"{c.dropped.records_below_k} / {'—' if g is None else g.records_below_k}")
        ct.add_row(*row)
    console.print(ct)
    mt = Table(show_edge=False)
    for col in ("minimal sample unique", "records", "SUDA weight", "example (row)"):
        mt.add_column(col, justify="right" if col in ("records", "SUDA weight") else "left")
    for g in x.msus[:max_rows]:
        ex = ", ".join(f"{k}={v}" for k, v in g.examples[0].items()) if g.examples else ""
        row = f" (row {g.rows[0]})" if g.rows else ""
        mt.add_row(" + ".join(g.attributes), str(g.records), _fmt(g.score), ex + row)
    console.print(mt)


def render_html(report: Report) -> str:
    """One self-contained HTML page (no network); see ``privcheck.html_report``."""
    from privcheck.html_report import render_html as _render

    return _render(report)
