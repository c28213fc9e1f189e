"""``privcheck risk``: load an original file and its release, run one attack, build the report.

The files are aligned by position (row i of the release is the masked row i of the original),
so they must have the same columns and the same number of rows. The intruder knows the policy's
quasi-identifiers (the numeric ones for numeric attacks) unless ``intruder_attributes`` says
otherwise, and holds all original records, a random ``N`` of them (seeded) or the rows a file
lists. The report carries the two headline rates every attack has, the attack's own figures and
report ``Section``s (risk profile, per-attribute contribution) that the one HTML renderer draws.

Randomness (the intruder sample, tie-breaks, shadow models) draws from the operating system's
entropy unless a seed is given (``--seed``, ``seed=``, or an attack's ``random_state``); a given
seed reproduces the report and is never written into it — the report says only ``seed_given``,
as anonymize's does (docs/anonymization.md, "Secret randomness").
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, Field

from privcheck.errors import DataError, PolicyError
from privcheck.messages import shown_columns
from privcheck.report import Section, SectionPlot, SectionTable, _fmt, draft_note
from privcheck.risk.base import RiskMeasure
from privcheck.risk.outcome import AttackInputs, RiskOutcome
from privcheck.risk.results import RecordRiskSummary
from privcheck.version import __version__

#: points of the sorted risk curve in the report (records by risk, highest first)
PROFILE_POINTS = 20


class RiskReport(BaseModel):
    """The JSON contract of ``privcheck risk``."""

    kind: Literal["risk"] = "risk"
    attack: str
    params: dict[str, Any]
    original: str | None = None
    masked: str | None = None
    control: str | None = Field(
        default=None, description="The control set (attacks on a synthetic table), if given"
    )
    attributes: list[str]
    n_intruder_records: int
    n_masked_records: int
    intruder_records: str = Field(description="all, a random N, or the rows of a file")
    seed_given: bool = Field(
        description="Whether a seed was given (--seed or random_state): the report is then "
        "reproducible by whoever holds it; the seed itself is never written"
    )
    reidentification_rate: float | None = Field(
        description="Share of intruder records linked to their true masked record (null for "
        "attacks that do not link records)"
    )
    certain_rate: float | None = Field(
        description="Share of intruder records the intruder can be sure of"
    )
    figures: dict[str, Any] = Field(description="Attack-specific figures")
    advantage: float | None = Field(
        default=None,
        description="Membership inference: the attack's advantage over guessing, TPR − FPR "
        "(null for other attacks)",
    )
    advantage_ci: list[float] | None = Field(
        default=None,
        description="Membership inference: 95 % interval [low, high] of the advantage over "
        "repeated splits",
    )
    auc: float | None = Field(default=None, description="Membership inference: the attack's AUC")
    accuracy: float | None = Field(
        default=None, description="Membership inference: the attack's accuracy (balanced)"
    )
    max_risk: float | None = Field(
        default=None,
        description="The policy's synthetic_risk.max_risk, for the attacks on a synthetic table "
        "(null without one)",
    )
    passed: bool | None = Field(
        default=None,
        description="Whether the policy's max_risk holds: true when the risk's confidence "
        "interval (membership inference: the advantage's; inference: every attribute's) lies "
        "below it (verdict HOLDS); false when VIOLATED or INCONCLUSIVE; null without a bound. "
        "False exits 1",
    )
    verdict: Literal["HOLDS", "VIOLATED", "INCONCLUSIVE"] | None = Field(
        default=None,
        description="synthetic_risk.max_risk judged on the interval: VIOLATED when its lower "
        "end is above the bound, HOLDS when its upper end is below it, else INCONCLUSIVE; null "
        "without a bound",
    )
    attacks_to_decide: int | None = Field(
        default=None,
        description="INCONCLUSIVE: the number of attacks (--attacks N) that would decide at the "
        "observed rate (the interval narrowing as 1/sqrt(N)); null otherwise",
    )
    warnings: list[str] = Field(
        default_factory=list,
        description="What limits the figures, e.g. singling out finding fewer than half the "
        "predicates requested",
    )
    draft: bool = Field(
        default=False,
        description="The policy was a draft (columns still marked review:) run with "
        "--allow-draft: its quasi-identifiers are not decided, so neither is this risk",
    )
    open_reviews: list[str] = Field(
        default_factory=list,
        description="The columns whose role is still to be decided; empty unless draft",
    )
    record_risk_summary: RecordRiskSummary
    attribute_contribution: dict[str, float]
    attribute_contribution_kind: str
    detail: dict[str, Any] = Field(description="The attack's full result")
    elapsed_seconds: float
    privcheck_version: str = __version__
    sections: list[Section] = Field(default_factory=list)

    def to_json(self) -> str:
        return self.model_dump_json(indent=2)


# --------------------------------------------------------------------------- inputs


def _check_alignment(original: pd.DataFrame, masked: pd.DataFrame) -> None:
    missing = [c for c in original.columns if c not in masked.columns]
    extra = [c for c in masked.columns if c not in original.columns]
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"lacks {missing}")
        if extra:
            parts.append(f"has extra {extra}")
        raise DataError(
            f"the masked file's columns differ from the original's: it {' and '.join(parts)}; "
            "both files must have the same schema"
        )
    if len(original) == 0 == len(masked):
        raise DataError(
            "the original and the masked file have no records: there is nothing to attack; "
            "give the files with their rows (a header alone is no table)"
        )
    if len(original) != len(masked):
        raise DataError(
            f"the original file has {len(original)} records and the masked file {len(masked)}; "
            "risk assessment aligns them by position, so they need the same row count"
        )


def _numeric(frame: pd.DataFrame, col: str, which: str) -> pd.Series | None:
    """The column as numbers, or None when a value is not one.

    Integers stay exact int64 (``Int64`` where values are missing): a CSV's digits are parsed
    as integers, not through float64, whose spacing near 2^60 is 256 — IDs there would all read
    as one value. Other numbers become float64. Integers beyond the 64-bit range are refused.
    """
    s = frame[col]
    if pd.api.types.is_integer_dtype(s):
        return _exact_integers(s, col, which)
    if pd.api.types.is_numeric_dtype(s):
        return s.astype(np.float64)
    out = pd.to_numeric(s, errors="coerce", dtype_backend="numpy_nullable")
    bad = out.isna() & s.notna()
    if bad.any():
        return None
    if pd.api.types.is_integer_dtype(out):
        return _exact_integers(out, col, which)
    whole = s.dropna().astype(str).str.fullmatch(r"\s*[+-]?\d+\s*")
    if len(whole) and whole.all():  # digits only, yet not a 64-bit integer
        raise DataError(
            f"column {col!r} of the {which} file holds integers beyond the 64-bit range, which "
            "the attacks cannot compare exactly; shift or rescale the column first"
        )
    return pd.Series(out.to_numpy(dtype=np.float64, na_value=np.nan), index=s.index, name=s.name)


def _plain_cells(frame: pd.DataFrame, policy: Any) -> pd.DataFrame:
    """``frame`` with one comparable value per cell: a column of nested values the policy uses
    is refused (``privcheck.nested``), and a column of bytes (a Parquet binary column) is
    spelled as text the way a CSV release writes it (``b'\\x00'``) — the attacks compare
    values as text, and bytes that are not UTF-8 have no other spelling."""
    if policy is not None:
        from privcheck.nested import refuse_nested

        refuse_nested(frame, policy)
    spelled = {}
    for name in frame.columns:
        column = frame[name]
        if not isinstance(column, pd.Series) or column.dtype != object:
            continue
        present = column.notna().to_numpy()
        if not present.any() or not isinstance(column.iloc[int(present.argmax())], bytes):
            continue
        codes, uniques = pd.factorize(column, use_na_sentinel=True)
        text = np.array([repr(u) if isinstance(u, bytes) else str(u) for u in uniques] + [None])
        spelled[name] = pd.Series(text[codes], index=column.index, dtype=object)
    if not spelled:
        return frame
    frame = frame.copy()
    for name, column in spelled.items():
        frame[name] = column
    return frame


def _refuse_repeated_attributes(attributes: list[str] | None) -> None:
    """Each attribute the intruder knows is named once: a repeated one (``age,age``) would
    select the column twice — a two-column frame where the attacks expect one column — and
    count its evidence twice."""
    seen: set[str] = set()
    for name in attributes or []:
        if name in seen:
            raise PolicyError(
                f"--intruder-attributes names the attribute {name!r} twice; name each once"
            )
        seen.add(name)


def _refuse_nested_attributes(frame: pd.DataFrame, attributes: list[str]) -> None:
    """The attributes the intruder knows (``--intruder-attributes`` may name a column the policy
    does not) must hold one value per cell."""
    from privcheck.nested import ARROW_TYPES, nested_error, nested_kind

    declared = frame.attrs.get(ARROW_TYPES) or {}
    for name in attributes:
        if name in frame.columns and isinstance(frame[name], pd.Series):
            kind = declared.get(name) or nested_kind(frame[name])
            if kind is not None:
                raise nested_error(name, kind)


def _exact_integers(s: pd.Series, col: str, which: str) -> pd.Series:
    """An integer column as int64 (nullable ``Int64`` when values are missing); uint64 values
    above 2^63 − 1 are refused, naming the column."""
    unsigned = s.dtype.kind == "u" or str(s.dtype).lower().startswith("uint")
    if unsigned and len(s) and int(s.max()) > np.iinfo(np.int64).max:
        raise DataError(
            f"column {col!r} of the {which} file holds integers above 9223372036854775807, "
            "which the attacks cannot compare exactly; shift or rescale the column first"
        )
    if s.isna().any():
        return s.astype("Int64")
    return s.astype(np.int64)


def _first_non_numeric(frame: pd.DataFrame, col: str) -> str:
    s = frame[col]
    bad = pd.to_numeric(s, errors="coerce").isna() & s.notna()
    return str(s[bad].iloc[0])


def select_attributes(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    quasi_identifiers: list[str],
    intruder_attributes: list[str] | None,
    measure: type[RiskMeasure],
) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """The attributes the intruder knows, converted to numbers where the attack needs them."""
    explicit = intruder_attributes is not None
    attrs = list(intruder_attributes) if explicit else list(quasi_identifiers)
    if not attrs:
        raise PolicyError(
            "no attributes to attack: the policy has no quasi-identifiers; give "
            "--intruder-attributes a,b,…"
        )
    unknown = [a for a in attrs if a not in original.columns]
    if unknown:
        raise DataError(
            f"attribute {unknown[0]!r} is not a column of the data; columns: "
            f"{shown_columns(original.columns)}"
        )
    original, masked = original.copy(), masked.copy()
    usable = []
    for a in attrs:
        so, sm = _numeric(original, a, "original"), _numeric(masked, a, "masked")
        if so is not None and sm is not None:
            original[a], masked[a] = so, sm
            usable.append(a)
        elif measure.numeric:
            if explicit:
                which, frame = ("original", original) if so is None else ("masked", masked)
                raise DataError(
                    f"attribute {a!r} of the {which} file is not numeric (value "
                    f"{_first_non_numeric(frame, a)!r}); attack {measure.name} needs numeric "
                    "attributes"
                )
        else:
            usable.append(a)
    if not usable:
        raise DataError(
            f"attack {measure.name} needs numeric attributes and none of the quasi-identifiers "
            f"{attrs} is numeric in both files; give --intruder-attributes"
        )
    return original, masked, usable


def intruder_rows(spec: str | None, n: int, seed: int | None) -> tuple[np.ndarray, str]:
    """All rows, a random ``N`` of them (``seed``: None draws from the OS entropy), or the
    0-based rows listed in a file. The description names no seed: it goes into the report."""
    if spec is None or spec == "all":
        return np.arange(n, dtype=np.int64), "all"
    path = Path(spec)
    if spec.strip().isdigit() and not path.exists():
        count = int(spec)
        if not 1 <= count <= n:
            raise PolicyError(f"--intruder-records must be between 1 and {n}; got {count}")
        rng = np.random.default_rng(seed)
        return np.sort(rng.choice(n, size=count, replace=False)), f"random {count}"
    if not path.exists():
        raise DataError(
            f"--intruder-records {spec!r} is neither a number of records nor an existing file"
        )
    from privcheck.io import read_text_file

    tokens = read_text_file(path, "--intruder-records file").replace(",", " ").split()
    if tokens and not tokens[0].lstrip("-").isdigit():
        tokens = tokens[1:]  # a header line
    try:
        numbers = [int(t) for t in tokens]
    except ValueError:
        raise DataError(
            f"{path} must list 0-based row numbers (one per line); found a non-integer"
        ) from None
    if any(not 0 <= r < n for r in numbers):  # (before numpy: a 25-digit number overflows it)
        raise DataError(f"{path}: row numbers must lie in [0, {n - 1}]")
    rows = np.array(numbers, dtype=np.int64)
    if len(rows) == 0:
        raise DataError(f"{path} lists no rows")
    if rows.min() < 0 or rows.max() >= n:
        raise DataError(f"{path}: row numbers must lie in [0, {n - 1}]")
    if len(np.unique(rows)) != len(rows):
        raise DataError(f"{path} lists a row more than once")
    return rows, f"rows of {path} ({len(rows)})"


# --------------------------------------------------------------------------- report

#: the keys under which an attack's parameters and results carry its seed: dropped from reports
SEED_KEYS = frozenset({"random_state", "seed"})


def without_seed(value: Any) -> Any:
    """``value`` with every ``random_state`` / ``seed`` entry of its dicts removed, at any depth
    (a linkage result repeats its ``random_state`` under ``params``): the seed is the key that
    replays the attack's draws, so a report says only whether one was given."""
    if isinstance(value, dict):
        return {k: without_seed(v) for k, v in value.items() if k not in SEED_KEYS}
    if isinstance(value, list | tuple):
        return [without_seed(v) for v in value]
    return value


def _scalars(figures: dict[str, Any]) -> dict[str, float | int | str | None]:
    return {
        k: v for k, v in figures.items() if v is None or isinstance(v, bool | int | float | str)
    }


def _wide(counts: list[int]) -> bool:
    """Whether bars span so many orders of magnitude that a log axis reads better."""
    positive = [c for c in counts if c > 0]
    return len(positive) > 1 and max(positive) > 50 * min(positive)


def risk_sections(out: RiskOutcome, attack: str) -> list[Section]:
    """The risk profile (histogram and sorted curve) and the per-attribute contribution."""
    risk = np.sort(out.record_risk)[::-1]
    summary = RecordRiskSummary.of(risk)
    headline = {
        "re-identification rate": out.reidentification_rate,
        "certain rate": out.certain_rate,
        "mean record risk": summary.mean,
        "records with risk > 0": summary.share_positive,
        "records with risk = 1": summary.share_certain,
        **_scalars(out.figures),
    }
    sections = [
        Section(
            id="risk",
            title=f"Disclosure risk — {attack}",
            summary=f"{summary.n_records:,} intruder records; per-record risk = the chance the "
            "intruder's link (or class) points at the true record.",
            figures={k: v for k, v in headline.items() if v is not None},
        )
    ]
    if not len(risk) and out.sections:  # an attack of its own sections, no per-record risk
        return sections
    labels = [f"{lo:.1f}–{lo + 0.1:.1f}" for lo in np.linspace(0, 0.9, 10)]
    sections.append(
        Section(
            id="risk-histogram",
            title="Risk profile: records per risk level",
            plot=SectionPlot(
                kind="bar",
                x=labels,
                series={"records": [float(h) for h in summary.histogram]},
                xlabel="per-record risk",
                ylabel="records",
                log_y=_wide(summary.histogram),
            ),
        )
    )
    if len(risk):
        shares = np.arange(1, PROFILE_POINTS + 1) / PROFILE_POINTS
        at = np.minimum(np.ceil(shares * len(risk)).astype(int) - 1, len(risk) - 1)
        sections.append(
            Section(
                id="risk-profile",
                title="Risk profile: records by risk, highest first",
                summary="The risk of the record at each share of the intruder records sorted by "
                "decreasing risk (at 10 %: the 10 % riskiest records have at least this risk).",
                plot=SectionPlot(
                    kind="line",
                    x=[f"{s:.0%}" for s in shares],
                    series={"risk": [float(risk[i]) for i in at]},
                    xlabel="share of records (sorted by risk)",
                    ylabel="per-record risk",
                ),
            )
        )
    if out.attribute_contribution:
        sections.append(
            Section(
                id="risk-attributes",
                title="Per-attribute contribution",
                summary=out.contribution_kind,
                table=SectionTable(
                    columns=["attribute", "contribution"],
                    rows=[[a, float(v)] for a, v in out.attribute_contribution.items()],
                ),
            )
        )
    return sections


def assess(
    original: pd.DataFrame,
    masked: pd.DataFrame,
    quasi_identifiers: list[str],
    measure: type[RiskMeasure],
    params: dict[str, Any] | None = None,
    *,
    intruder_records: str | None = None,
    intruder_attributes: list[str] | None = None,
    seed: int | None = None,
    original_name: str | None = None,
    masked_name: str | None = None,
    others: list[pd.DataFrame] | None = None,
    policy: Any = None,
    trust_model_file: bool = False,
    control: pd.DataFrame | None = None,
    control_name: str | None = None,
) -> RiskReport:
    """Run ``measure`` on the aligned files and build the ``RiskReport``.

    ``others`` are further releases after ``masked``, for the attacks that take several
    (``several_releases``); ``policy`` is handed to attacks that read its hierarchies.
    ``seed`` None draws every random choice from the OS entropy; a given seed (or an attack's
    ``random_state``) is never written into the report. ``trust_model_file`` lets a model
    file named by a parameter be a pickle, whose loading runs its code
    (`privcheck.risk.model_file`). ``control`` is the control set of the attacks on a
    synthetic table (records of the population the generator never saw); with a policy whose
    ``synthetic_risk.max_risk`` is set, the report says whether the attack's risk stays within it.
    """
    params = dict(params or {})
    measure.check_params(params)
    _refuse_repeated_attributes(intruder_attributes)
    original, masked = _plain_cells(original, policy), _plain_cells(masked, policy)
    others = [_plain_cells(f, policy) for f in others or []]
    control = None if control is None else _plain_cells(control, policy)
    seed_given = seed is not None or any(k in SEED_KEYS for k in params)
    if seed is None:  # one draw from the OS entropy seeds the sample and the attack alike
        seed = int(np.random.SeedSequence().generate_state(1)[0] >> 1)  # < 2**31: sklearn's range
    others = list(others or [])
    if others and not getattr(measure, "several_releases", False):
        raise PolicyError(
            f"attack {measure.name} takes one release (--masked); only attacks across releases "
            "(release-intersection) take several"
        )
    if getattr(measure, "aligned", True):
        _check_alignment(original, masked)
        original, masked, attrs = select_attributes(
            original, masked, quasi_identifiers, intruder_attributes, measure
        )
    else:  # a synthetic table or a release without the attacked attribute: the attack checks
        known = intruder_attributes if intruder_attributes is not None else quasi_identifiers
        attrs = [a for a in known if a in original.columns]
    _refuse_nested_attributes(original, attrs)
    rows, described = intruder_rows(intruder_records, len(original), seed)
    started = time.perf_counter()
    inputs = AttackInputs(
        original,
        masked,
        attrs,
        rows,
        seed,
        others=others,
        policy=policy,
        trust_model_file=trust_model_file,
        control=control,
        seed_given=seed_given,
    )
    if control is not None and not getattr(measure, "takes_control", False):
        raise PolicyError(
            f"attack {measure.name} takes no control set; --control is for the attacks on a "
            "synthetic table (membership-inference, singling-out, linkability, inference)"
        )
    bound = getattr(policy, "synthetic_risk", None)
    if bound is not None and getattr(measure, "takes_control", False):
        _judged_level(measure, params, bound.confidence)
    out = measure.assess(inputs, **dict(params))
    elapsed = time.perf_counter() - started
    out.figures, out.detail = without_seed(out.figures), without_seed(out.detail)
    return RiskReport(
        attack=measure.name,
        params=without_seed(params),
        original=original_name,
        masked=masked_name,
        attributes=attrs,
        n_intruder_records=len(rows),
        n_masked_records=len(masked),
        intruder_records=described,
        seed_given=seed_given,
        reidentification_rate=out.reidentification_rate,
        certain_rate=out.certain_rate,
        figures=out.figures,
        # membership inference's headline figures stand at the top level too (the CLI contract)
        **{
            key: out.figures[key]
            for key in ("advantage", "advantage_ci", "auc", "accuracy")
            if key in out.figures
        },
        record_risk_summary=RecordRiskSummary.of(out.record_risk),
        attribute_contribution=out.attribute_contribution,
        attribute_contribution_kind=out.contribution_kind,
        detail=out.detail,
        elapsed_seconds=elapsed,
        sections=risk_sections(out, measure.name) + list(out.sections),
        control=control_name,
        warnings=list(out.figures.get("warnings") or []),
        **_bound(out, policy),
    )


def _judged_level(measure: type[RiskMeasure], params: dict[str, Any], level: float) -> None:
    """The policy's ``synthetic_risk.confidence`` as the attack's interval level, unless the
    attack was given one (``--param confidence=``) or has none (membership inference: 95 %)."""
    import inspect

    function = getattr(measure, "function", None)
    if function is None or "confidence" in params:
        return
    if "confidence" in inspect.signature(function()).parameters:
        params["confidence"] = level


def _bound(out: RiskOutcome, policy: Any) -> dict[str, Any]:
    """``max_risk`` and ``passed`` from the policy's ``synthetic_risk`` bound, for the attacks
    on a synthetic table (whose outcome names the bounded figure)."""
    from privcheck.risk.synthetic.verdict import judge

    bound = getattr(policy, "synthetic_risk", None)
    if bound is None or out.bounded_figure is None:
        return {}
    judged = judge(out.figures, out.bounded_figure, bound.max_risk)
    return {"max_risk": bound.max_risk, **judged} if judged else {}


def randomness(seed_given: bool) -> str:
    """What the report says of its random draws: never the seed, only whether one was given."""
    return "a given seed (reproducible)" if seed_given else "the operating system's entropy"


def _rate(v: float | None) -> str:
    return "—" if v is None else f"{v:.4f} ({v:.1%})"


def _interval_value(v: Any) -> bool:
    return isinstance(v, list) and len(v) == 2 and all(isinstance(x, float) for x in v)


def _shown(value: Any) -> str:
    if _interval_value(value):
        return f"[{_fmt(value[0])}, {_fmt(value[1])}]"
    return _fmt(value) if isinstance(value, float) else str(value)


def _flat_figures(figures: dict[str, Any], top: dict[str, Any] | None) -> list[tuple[str, str]]:
    """One line per figure of ``figures``: an interval ``k_ci`` (or ``k_bounds``) beside its
    estimate ``k``, an error ``k_error`` as ``± e``; with ``top`` (the enclosing level) a figure
    equal to the one of the same name there is left out — it is already shown."""
    out = []
    for k, v in figures.items():
        if k.endswith(("_ci", "_error", "_bounds")) and any(
            k == f"{base}{tail}" and base in figures
            for tail in ("_ci", "_error", "_bounds")
            for base in [k[: -len(tail)]]
        ):
            continue  # shown beside its estimate
        if not (v is None or isinstance(v, bool | int | float | str) or _interval_value(v)):
            continue
        if top is not None and k in top and top[k] == v:
            continue
        text = _shown(v)
        if _interval_value(figures.get(f"{k}_ci")):
            text += f"  {_shown(figures[f'{k}_ci'])}"
        if isinstance(figures.get(f"{k}_error"), float):
            text += f" ± {_fmt(figures[f'{k}_error'])}"
        if _interval_value(figures.get(f"{k}_bounds")):
            text += f"  (bounds {_shown(figures[f'{k}_bounds'])})"
        out.append((k, text))
    return out


def _figure_lines(figures: dict[str, Any]) -> list[tuple[str, str]]:
    """The attack's figures, each once. Inference: the top level repeats the riskiest
    attribute's figures, which are shown under its name (``attributes.<name>.risk``), each
    attribute in turn; a nested signal's (membership inference's ``distance``) figures are
    shown where they differ from the top level's."""
    groups = figures.get("attributes")
    per_attribute = isinstance(groups, dict) and all(isinstance(d, dict) for d in groups.values())
    worst = groups.get(figures.get("attribute")) if per_attribute else None
    lines = _flat_figures(figures, worst)
    for k, v in figures.items():
        if not isinstance(v, dict):
            continue
        if k == "attributes" and per_attribute:
            for name, d in v.items():
                lines += [(f"{k}.{name}.{kk}", vv) for kk, vv in _flat_figures(d, None)]
        else:
            lines += [(f"{k}.{kk}", vv) for kk, vv in _flat_figures(v, figures)]
    return lines


def render_risk_text(report: RiskReport) -> str:
    """A readable summary: the headline rates, the attack's figures, the contributions."""
    lines = [
        f"privcheck risk — attack {report.attack}" + (f" {report.params}" if report.params else ""),
        f"  original {report.original or '?'}  vs  masked {report.masked or '?'}"
        + (f"  (control set {report.control})" if report.control else ""),
        f"  intruder: {report.intruder_records} of {report.n_masked_records:,} records on "
        f"{len(report.attributes)} attributes ({', '.join(report.attributes)})",
        f"  randomness: {randomness(report.seed_given)}",
    ]
    if report.draft:
        lines.append(f"  {draft_note(report.open_reviews)}")
    if report.reidentification_rate is not None or report.certain_rate is not None:  # linkage
        s = report.record_risk_summary
        lines += [
            "",
            f"  re-identification rate  {_rate(report.reidentification_rate)}",
            f"  certain rate            {_rate(report.certain_rate)}",
            f"  record risk             mean {_fmt(s.mean)}, median {_fmt(s.median)}, "
            f"p90 {_fmt(s.p90)}, max {_fmt(s.maximum)}; {s.share_certain:.1%} at risk 1",
        ]
    shown = _figure_lines(report.figures)
    if shown:
        lines += ["", "  figures"]
        width = max(len(k) for k, _ in shown)
        lines += [f"    {k:<{width}}  {v}" for k, v in shown]
    for warning in report.warnings:
        lines += ["", f"  warning: {warning}"]
    if report.attribute_contribution:
        lines += ["", f"  per-attribute contribution ({report.attribute_contribution_kind})"]
        width = max(len(a) for a in report.attribute_contribution)
        lines += [f"    {a:<{width}}  {_fmt(v)}" for a, v in report.attribute_contribution.items()]
    if report.passed is not None:
        from privcheck.risk.synthetic.verdict import INCONCLUSIVE, inconclusive_line

        said = {"HOLDS": "holds", "VIOLATED": "VIOLATED (exit 1)"}.get(
            report.verdict or "", "INCONCLUSIVE (exit 1)"
        )
        lines += ["", f"  policy synthetic_risk.max_risk {_fmt(report.max_risk)}: {said}"]
        if report.verdict == INCONCLUSIVE:
            extrapolated = str(report.figures.get("control_size_correction", "")).startswith(
                "extrapolated"
            )
            lines.append(f"  {inconclusive_line(report.attacks_to_decide, extrapolated)}")
    lines.append(f"\n  {report.elapsed_seconds:.2f} s")
    return "\n".join(lines) + "\n"
