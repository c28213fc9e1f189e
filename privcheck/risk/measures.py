"""The built-in risk measures of ``privcheck risk --attack NAME``, registered as plugins.

Each measure is a class with a ``name`` (the ``--attack`` value), a one-line ``summary``, whether
it needs ``numeric`` attributes, and ``assess(inputs, **params) -> RiskOutcome``. They arrive
through the ``privcheck_risk_measures`` hook like a third-party plugin's measures would, so
``privcheck plugins`` lists them and a plugin can add its own attack with the same interface.

Every measure reduces its attack's result to a ``RiskOutcome``: the two headline rates the CLI
reports for every attack (``reidentification_rate``, ``certain_rate``), the per-record risk the
risk profile is drawn from, the per-attribute contribution and the attack's own figures.
"""

from __future__ import annotations

import inspect
import itertools
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from privcheck.errors import PolicyError
from privcheck.hookspecs import hookimpl
from privcheck.limits import as_bool, check_integers
from privcheck.params import accepted_kinds, check_param_value
from privcheck.risk.attribute_disclosure import rank_interval_disclosure, sd_interval_disclosure
from privcheck.risk.linkage import dbrl
from privcheck.risk.multivariate_transparency import (
    microaggregation_replay,
    multivariate_microaggregation_transparency,
)
from privcheck.risk.outcome import AttackInputs, RiskOutcome, from_linkage
from privcheck.risk.probabilistic import prl
from privcheck.risk.transparency import microaggregation_transparency, rank_swap_transparency
from privcheck.risk.uniqueness import class_sizes_of, record_risks, uniqueness_risk


class RiskMeasure:
    """Base of a risk measure (an attack); subclasses set the class attributes and ``run``."""

    name: ClassVar[str]
    summary: ClassVar[str]
    #: whether every attribute must be numeric (distances, ranks, intervals)
    numeric: ClassVar[bool] = True
    #: whether the release must be the original's rows masked (same columns and row count);
    #: False for attacks on releases that are not (a synthetic table, a table without the
    #: attacked attribute): they get both files as read and check what they need themselves
    aligned: ClassVar[bool] = True
    #: parameters the CLI supplies itself and a user may not pass with --param
    reserved: ClassVar[tuple[str, ...]] = (
        "intruder",
        "masked",
        "original",
        "attributes",
        "true_index",
        "family",
    )

    @classmethod
    def function(cls):
        """The library function whose keyword parameters ``--param`` may set."""
        raise NotImplementedError

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> None:
        """Unknown or reserved ``--param`` keys are an error naming the accepted ones."""
        sig = inspect.signature(cls.function())
        accepted = [
            n
            for n, p in sig.parameters.items()
            if n not in cls.reserved and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]
        for key in params:
            if key not in accepted:
                raise PolicyError(
                    f"attack {cls.name} has no parameter {key!r}; its parameters: "
                    f"{', '.join(accepted) or 'none'}"
                )
            where = f"attack {cls.name} parameter {key}"
            check_integers(params[key], where)
            if isinstance(sig.parameters[key].default, bool):  # spelled true/false, not 'maybe'
                params[key] = as_bool(params[key], where)

    #: parameters the attack function checks itself, type and range, with a message that says
    #: more than "must be a number" (the generic check leaves them to it)
    checks_own: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def check_types(cls, params: dict[str, Any]) -> None:
        """Each ``--param`` value of the type the attack function's hint names: 'nan' is no
        threshold, 5 no list of columns, -1 no seed — one line naming the parameter, where the
        function would otherwise fail on it with a traceback."""
        for key, value in params.items():
            if key in cls.checks_own:
                continue
            where = f"attack {cls.name} parameter {key}"
            params[key] = check_param_value(where, key, value, accepted_kinds(cls.function(), key))

    @classmethod
    def assess(cls, inputs: AttackInputs, **params: Any) -> RiskOutcome:
        cls.check_params(params)
        cls.check_types(params)
        return cls.run(inputs, **params)

    @classmethod
    def run(cls, inputs: AttackInputs, **params: Any) -> RiskOutcome:
        raise NotImplementedError


class _Linkage(RiskMeasure):
    """Linkage of the intruder's rows to the whole release, truth = the same row."""

    defaults: ClassVar[dict[str, Any]] = {}

    @classmethod
    def run(cls, inputs: AttackInputs, **params: Any) -> RiskOutcome:
        params.setdefault("random_state", inputs.seed)
        res = cls.function()(
            inputs.intruder(),
            inputs.masked[inputs.attributes],
            attributes=inputs.attributes,
            true_index=inputs.rows,
            **{**cls.defaults, **params},
        )
        return from_linkage(res)


class DBRL(_Linkage):
    name = "dbrl"
    summary = "distance-based record linkage, Euclidean on standardised attributes"

    @classmethod
    def function(cls):
        return dbrl


class Mahalanobis(_Linkage):
    name = "mahalanobis"
    summary = "distance-based record linkage, Mahalanobis distance"
    defaults: ClassVar[dict[str, Any]] = {"metric": "mahalanobis"}
    reserved = (*RiskMeasure.reserved, "metric")

    @classmethod
    def function(cls):
        return dbrl


class PRL(_Linkage):
    name = "prl"
    summary = "probabilistic record linkage (Fellegi–Sunter, EM-estimated m/u)"
    numeric = False

    @classmethod
    def function(cls):
        return prl


class RankSwapTransparency(_Linkage):
    name = "rank-swap-transparency"
    summary = "transparency attack on rank swapping (params p, variant, coverage)"
    checks_own: ClassVar[frozenset[str]] = frozenset({"variant", "coverage"})

    @classmethod
    def function(cls):
        return rank_swap_transparency


#: the intruder's knowledge in the microaggregation attacks: ``--param knowledge=own|original``
KNOWLEDGE = ("own", "original")


def _knowledge(params: dict[str, Any], default: str, name: str) -> str:
    knowledge = params.pop("knowledge", default)
    if knowledge not in KNOWLEDGE:
        raise PolicyError(
            f"attack {name}: knowledge must be 'own' (the intruder's own records) or 'original' "
            f"(the whole original file); got {knowledge!r}"
        )
    return knowledge


def _whole_file(inputs: AttackInputs, name: str) -> None:
    if not inputs.all_rows and not inputs.scored_sample:
        raise PolicyError(
            f"attack {name} with knowledge=original gives the intruder the whole original file; "
            "drop --intruder-records, or use --param knowledge=own"
        )


class MicroaggregationTransparency(_Linkage):
    """Univariate microaggregation; ``knowledge=original`` aligns the sorted marginals."""

    name = "microaggregation-transparency"
    summary = "transparency attack on univariate microaggregation (params k, knowledge)"

    @classmethod
    def function(cls):
        return microaggregation_transparency

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> None:
        _knowledge(dict(params), "own", cls.name)
        super().check_params({k: v for k, v in params.items() if k != "knowledge"})

    @classmethod
    def run(cls, inputs: AttackInputs, **params: Any) -> RiskOutcome:
        if "k" not in params:
            raise PolicyError(
                "attack microaggregation-transparency needs the published k: --param k=3"
            )
        if _knowledge(params, "own", cls.name) == "original":
            _whole_file(inputs, cls.name)
            params["original"] = inputs.original[inputs.attributes]
        return super().run(inputs, **params)


class MultivariateMicroaggregationTransparency(RiskMeasure):
    """Multivariate microaggregation (MDAV): the replay by an intruder holding the whole
    original file (``knowledge=original``, default) or Nin–Herranz–Torra's nearest-cluster
    linkage from the intruder's own records (``knowledge=own``)."""

    name = "microaggregation-multivariate-transparency"
    summary = (
        "transparency attack on MDAV microaggregation (params k, groups, knowledge, method, "
        "block_size, aggregate)"
    )
    #: parameters of each knowledge level beyond the shared k, groups and random_state
    only: ClassVar[dict[str, tuple[str, ...]]] = {
        "original": ("method", "block_size", "aggregate"),
        "own": ("standardisation", "chunk_size", "memory_limit"),
    }

    @classmethod
    def function(cls):
        return multivariate_microaggregation_transparency

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> None:
        rest = dict(params)
        knowledge = _knowledge(rest, "original", cls.name)
        accepted = ("k", "groups", "random_state", *cls.only[knowledge])
        for key in rest:
            if key not in accepted:
                raise PolicyError(
                    f"attack {cls.name} (knowledge={knowledge}) has no parameter {key!r}; its "
                    f"parameters: knowledge, {', '.join(accepted)}"
                )

    @classmethod
    def run(cls, inputs: AttackInputs, **params: Any) -> RiskOutcome:
        params.setdefault("random_state", inputs.seed)
        knowledge = _knowledge(params, "original", cls.name)
        if knowledge == "own":
            res = multivariate_microaggregation_transparency(
                inputs.intruder(),
                inputs.masked[inputs.attributes],
                attributes=inputs.attributes,
                true_index=inputs.rows,
                **params,
            )
            return from_linkage(res)
        if "k" not in params:
            raise PolicyError(
                f"attack {cls.name} replays MDAV and needs the published k: --param k=3"
            )
        _whole_file(inputs, cls.name)
        res = microaggregation_replay(
            inputs.original[inputs.attributes],
            inputs.masked[inputs.attributes],
            attributes=inputs.attributes,
            **params,
        )
        return from_linkage(res)


class _Learned(RiskMeasure):
    """Worst-case learned distance: supervised on the intruder's rows of both files.

    The programme learns from aligned pairs, so it runs on the intruder's rows of the original
    file against the same rows of the release (all rows by default — the worst case).
    """

    family: ClassVar[str]

    @classmethod
    def function(cls):
        from privcheck.risk.learned import learned_distance  # (scipy's MILP: imported when used)

        return learned_distance

    @classmethod
    def run(cls, inputs: AttackInputs, **params: Any) -> RiskOutcome:
        from privcheck.risk.learned import learned_distance

        params.setdefault("random_state", inputs.seed)
        masked = inputs.masked.iloc[inputs.rows][inputs.attributes].reset_index(drop=True)
        res = learned_distance(
            inputs.intruder(),
            masked,
            family=cls.family,  # type: ignore[arg-type]
            attributes=inputs.attributes,
            **params,
        )
        out = from_linkage(res)
        if not inputs.all_rows:
            out.figures["linked_within"] = "the intruder's rows of the release"
        return out


class LearnedWeightedMean(_Learned):
    name = "learned-weighted-mean"
    summary = "worst-case learned distance: weighted mean (MILP)"
    family = "weighted_mean"


class LearnedOWA(_Learned):
    name = "learned-owa"
    summary = "worst-case learned distance: OWA (MILP)"
    family = "owa"


class LearnedBilinear(_Learned):
    name = "learned-bilinear"
    summary = "worst-case learned distance: symmetric bilinear form (MILP)"
    family = "bilinear"


class LearnedChoquet(_Learned):
    name = "learned-choquet"
    summary = "worst-case learned distance: Choquet integral, ≤ 6 attributes (MILP)"
    family = "choquet"


def _uniques_share(frame: pd.DataFrame) -> float:
    sizes, cls_of = class_sizes_of(frame)
    return float(np.mean(sizes[cls_of] == 1)) if len(frame) else 0.0


class Uniqueness(RiskMeasure):
    """Prosecutor / journalist / marketer risk of the release's quasi-identifier classes.

    The expected share of records a prosecutor re-identifies (each record's risk is 1/f of its
    class) is the re-identification rate; records alone in their class are the certain ones.
    """

    name = "uniqueness"
    summary = "sample uniques and prosecutor/journalist/marketer risk of the masked file's QIs"
    numeric = False
    reserved = (*RiskMeasure.reserved, "class_sizes", "population_sizes")

    @classmethod
    def function(cls):
        return uniqueness_risk

    @classmethod
    def run(cls, inputs: AttackInputs, **params: Any) -> RiskOutcome:
        released = inputs.masked[inputs.attributes].astype(str)
        sizes, cls_of = class_sizes_of(released)
        res = uniqueness_risk(sizes, **params)
        risk = record_risks(sizes, cls_of)["prosecutor"][inputs.rows]
        base = res.sample_uniqueness
        contribution = {}
        for a in inputs.attributes:
            rest = [c for c in inputs.attributes if c != a]
            contribution[a] = base - (_uniques_share(released[rest]) if rest else 0.0)
        detail = res.model_dump(mode="json")
        return RiskOutcome(
            reidentification_rate=res.prosecutor_average_risk,
            certain_rate=res.sample_uniqueness,
            record_risk=np.asarray(risk, dtype=np.float64),
            attribute_contribution=contribution,
            contribution_kind="share of records that stop being sample uniques when the "
            "attribute is left out of the quasi-identifiers",
            figures={
                k: v
                for k, v in detail.items()
                if not isinstance(v, dict) and k not in ("has_population",)
            },
            detail=detail,
        )


class IntervalDisclosure(RiskMeasure):
    """Interval disclosure (attribute disclosure): no linkage, so no re-identification rate."""

    name = "interval-disclosure"
    summary = "rank- or SD-based interval disclosure of numeric attributes (param method, p)"

    @classmethod
    def function(cls):
        return rank_interval_disclosure

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> None:
        method = params.get("method", "rank")
        if method not in ("rank", "sd"):
            raise PolicyError(f"interval-disclosure method must be 'rank' or 'sd'; got {method!r}")
        rest = {k: v for k, v in params.items() if k != "method"}
        fn = rank_interval_disclosure if method == "rank" else sd_interval_disclosure
        accepted = [
            n for n, p in inspect.signature(fn).parameters.items() if p.default is not p.empty
        ]
        accepted = [n for n in accepted if n != "attributes"]
        for key in rest:
            if key not in accepted:
                raise PolicyError(
                    f"attack interval-disclosure ({method}) has no parameter {key!r}; its "
                    f"parameters: method, {', '.join(accepted)}"
                )

    @classmethod
    def run(cls, inputs: AttackInputs, **params: Any) -> RiskOutcome:
        method = params.pop("method", "rank")
        fn = rank_interval_disclosure if method == "rank" else sd_interval_disclosure
        orig = inputs.original.iloc[inputs.rows][inputs.attributes].reset_index(drop=True)
        masked = inputs.masked.iloc[inputs.rows][inputs.attributes].reset_index(drop=True)
        res = fn(orig, masked, attributes=inputs.attributes, **params)
        detail = res.model_dump(mode="json")
        return RiskOutcome(
            reidentification_rate=None,
            certain_rate=None,
            record_risk=np.asarray(res.record_risk, dtype=np.float64),
            attribute_contribution=dict(res.per_attribute),
            contribution_kind="share of records whose original value lies in the interval "
            "around the masked value",
            figures={
                "method": res.method,
                "disclosure_rate": res.rate,
                "record_rate": res.record_rate,
            },
            detail=detail,
        )


def _require_target(attack: str, what: str, params: dict[str, Any], seed: int) -> None:
    """The model-based attacks need ``--param target=COLUMN``; their learners draw from the
    run's seed unless ``random_state`` is given."""
    if "target" not in params:
        raise PolicyError(f"attack {attack} needs {what}: --param target=COLUMN")
    params.setdefault("random_state", seed)


def _rate_sections(name: str, rows: dict[str, dict[str, Any]]) -> list[Any]:
    """The success rates on members, controls and the random guesser, per attacked attribute."""
    from privcheck.report import Section, SectionPlot, SectionTable

    labels = list(rows)
    return [
        Section(
            id="synthetic-rates",
            title=f"Success of the {name} attack: members, controls, random guessing",
            summary="The attack's success rate on the people the synthetic table was made from "
            "(members), on people it never saw (the control set: what population knowledge "
            "gives anyway) and of a random guesser. The risk is the share of the control's "
            "failures the members' success removes: (attack − control) / (1 − control).",
            plot=SectionPlot(
                kind="bar",
                x=labels,
                series={
                    "members": [rows[a]["attack_rate"] for a in labels],
                    "controls": [rows[a]["control_rate"] for a in labels],
                    "random guess": [rows[a]["baseline_rate"] for a in labels],
                },
                xlabel="attacked attribute" if len(labels) > 1 else "",
                ylabel="success rate",
            ),
            table=SectionTable(
                columns=[
                    "attack",
                    "risk",
                    "risk low",
                    "risk high",
                    "members",
                    "controls",
                    "random guess",
                    "attacks",
                ],
                rows=[
                    [
                        a,
                        r["risk"],
                        r["risk_ci"][0],
                        r["risk_ci"][1],
                        r["attack_rate"],
                        r["control_rate"],
                        r["baseline_rate"],
                        r["n_attacks"],
                    ]
                    for a, r in rows.items()
                ],
            ),
        )
    ]


class _Synthetic(RiskMeasure):
    """An attack on a synthetic table: members = ``--original``, synthetic = ``--masked``,
    non-members = ``--control`` (or ``--param control_share=F`` with ``--seed``)."""

    numeric = False
    aligned = False
    reserved = (
        *RiskMeasure.reserved,
        "synthetic",
        "release",
        "control",
        "secrets",
        "trust_model_file",
    )
    #: parameters the measure reads itself, beside its function's
    extra: ClassVar[tuple[str, ...]] = ("control_share",)
    #: ``--control`` is this attack's non-members
    takes_control: ClassVar[bool] = True

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> None:
        rest = {k: v for k, v in params.items() if k not in cls.extra}
        try:
            super().check_params(rest)
        except PolicyError as exc:
            text = str(exc)
            if "its parameters:" in text:
                text = text.replace("its parameters: ", f"its parameters: {', '.join(cls.extra)}, ")
            raise PolicyError(text) from None
        params.update(rest)
        for key in cls.extra:
            if key in params:
                check_integers(params[key], f"attack {cls.name} parameter {key}")

    @classmethod
    def members_and_control(
        cls, inputs: AttackInputs, params: dict[str, Any]
    ) -> tuple[pd.DataFrame, pd.DataFrame]:
        from privcheck.risk.synthetic import control_set, same_columns

        same_columns(inputs.original, inputs.masked, "synthetic table")
        return control_set(
            inputs.original,
            inputs.control,
            control_share=params.pop("control_share", None),
            seed=inputs.seed,
            seed_given=inputs.seed_given,
        )

    @classmethod
    def outcome(cls, res: dict[str, Any], sections: list[Any], bounded: str) -> RiskOutcome:
        return RiskOutcome(
            reidentification_rate=None,
            certain_rate=None,
            record_risk=np.zeros(0),
            attribute_contribution={},
            contribution_kind="",
            figures=res,
            detail=res,
            sections=sections,
            bounded_figure=bounded,
        )


class _WholeTableAttack(_Synthetic):
    """An Anonymeter attack whose one result covers the whole table (singling out,
    linkability): the attack function over members, synthetic table and control set."""

    #: the section name of its one rate in the report
    section: ClassVar[str] = ""

    @classmethod
    def run(cls, inputs: AttackInputs, **params: Any) -> RiskOutcome:
        members, control = cls.members_and_control(inputs, params)
        params.setdefault("random_state", inputs.seed)
        res = cls.function()(
            members, inputs.masked, control, attributes=inputs.attributes, **params
        )
        return cls.outcome(res, _rate_sections(cls.name, {cls.section: res}), "risk")


class SinglingOut(_WholeTableAttack):
    """Anonymeter's singling-out attack (`privcheck.risk.singling_out`)."""

    name = "singling-out"
    summary = (
        "singling-out risk of a synthetic table against a control set (--control; params "
        "n_attacks, n_cols, mode)"
    )

    @classmethod
    def function(cls):
        from privcheck.risk.singling_out import singling_out

        return singling_out

    section = "singling out"


class Linkability(_WholeTableAttack):
    """Anonymeter's linkability attack (`privcheck.risk.linkability`)."""

    name = "linkability"
    summary = (
        "linkability risk of a synthetic table against a control set (--control; params "
        "aux_cols, n_attacks, n_neighbors)"
    )

    @classmethod
    def function(cls):
        from privcheck.risk.linkability import linkability

        return linkability

    section = "linkability"


class Inference(_Synthetic):
    """Anonymeter's inference attack (`privcheck.risk.inference`), per sensitive attribute."""

    name = "inference"
    summary = (
        "inference risk of each sensitive attribute from a synthetic table against a control "
        "set (--control; params secret, n_attacks, regression)"
    )
    extra = ("control_share", "secret")

    @classmethod
    def function(cls):
        from privcheck.risk.inference import inference

        return inference

    @classmethod
    def run(cls, inputs: AttackInputs, **params: Any) -> RiskOutcome:
        members, control = cls.members_and_control(inputs, params)
        params.setdefault("random_state", inputs.seed)
        secret = params.pop("secret", None)
        if secret is None:
            secrets = list(inputs.policy.sensitive_attributes) if inputs.policy else []
        else:
            secrets = [str(s) for s in (secret if isinstance(secret, list) else [secret])]
        known = [a for a in inputs.attributes if a not in secrets] or None
        res = cls.function()(members, inputs.masked, control, secrets, attributes=known, **params)
        return cls.outcome(res, _rate_sections(cls.name, res["attributes"]), "risk")


class MembershipInference(_Synthetic):
    """Membership inference on a synthetic table (distance to the closest synthetic record,
    model confidence) or a released model (shadow models), members against a control set."""

    name = "membership-inference"
    summary = (
        "membership inference against a synthetic table or a model with a control set "
        "(--control; params target, model, target_model, n_repeats); needs scikit-learn for "
        "a model"
    )

    @classmethod
    def function(cls):
        from privcheck.risk.membership import membership_inference

        return membership_inference

    @classmethod
    def run(cls, inputs: AttackInputs, **params: Any) -> RiskOutcome:
        from privcheck.risk.synthetic import control_set

        params.setdefault("random_state", inputs.seed)
        share = params.pop("control_share", None)
        if params.get("model") is None:
            members, control = cls.members_and_control(inputs, {"control_share": share})
            res = cls.function()(
                members, inputs.masked, control=control, attributes=inputs.attributes, **params
            )
        else:
            if "target" not in params:
                raise PolicyError(
                    f"attack {cls.name} on a model needs the label it predicts: "
                    "--param target=COLUMN"
                )
            members, control = control_set(
                inputs.masked,
                inputs.control,
                control_share=share,
                seed=inputs.seed,
                seed_given=inputs.seed_given,
                split_from=inputs.original,
                what="a model",
            )
            res = cls.function()(
                inputs.original,
                members,
                control=control,
                trust_model_file=inputs.trust_model_file,
                **params,
            )
        hist = res.pop("distance_histogram", None)
        sections = []
        if hist is not None:
            sections.append(_distance_section(hist))
        return cls.outcome(res, sections, "advantage")


def _distance_section(hist: dict[str, Any]) -> Any:
    from privcheck.report import Section, SectionPlot

    edges = hist["edges"]
    labels = [f"{a:.3g}–{b:.3g}" for a, b in itertools.pairwise(edges)]
    return Section(
        id="membership-distances",
        title="Distance to the closest synthetic record: members and controls",
        summary="Share of members (the generator's training rows) and of controls (records it "
        "never saw) per distance to their closest synthetic record. A generator that copies its "
        "training rows puts the members at smaller distances than the controls; one that only "
        "learnt the population puts both at the same distances. The last bar holds every "
        "distance beyond it.",
        plot=SectionPlot(
            kind="bar",
            x=labels,
            series={"members": hist["members"], "controls": hist["controls"]},
            xlabel="distance to the closest synthetic record",
            ylabel="share of records",
        ),
    )


class DDMBAR(RiskMeasure):
    """Torra's model-based disclosure for absent attributes (algorithm 11)."""

    name = "ddmbar"
    summary = (
        "agreement of models of an attribute built from the original and from the release "
        "(params target, model); needs scikit-learn"
    )
    numeric = False
    aligned = False
    reserved = (*RiskMeasure.reserved, "release")

    @classmethod
    def function(cls):
        from privcheck.risk.absent_attribute import ddmbar

        return ddmbar

    @classmethod
    def run(cls, inputs: AttackInputs, **params: Any) -> RiskOutcome:
        _require_target(cls.name, "the attacked attribute", params, inputs.seed)
        res = cls.function()(inputs.original, inputs.masked, **params)
        agree = np.asarray(res["agree"], dtype=np.float64)
        return RiskOutcome(
            reidentification_rate=None,
            certain_rate=None,
            record_risk=agree,
            attribute_contribution={},
            contribution_kind="",
            figures={
                "agreement": res["agreement"],
                "target_in_release": res["target_in_release"],
                "features": res["features"],
            },
            detail={"agreement": res["agreement"], "features": res["features"]},
        )


class ReleaseIntersection(RiskMeasure):
    """The intersection attack across several releases of the same individuals."""

    name = "release-intersection"
    summary = (
        "candidate sets after intersecting several releases (--masked repeated; params key, "
        "sensitive, k)"
    )
    numeric = False
    aligned = False
    #: takes every ``--masked`` release, not one
    several_releases = True
    reserved = (*RiskMeasure.reserved, "releases", "policy", "rows")

    @classmethod
    def function(cls):
        from privcheck.risk.intersection import release_intersection

        return release_intersection

    @classmethod
    def run(cls, inputs: AttackInputs, **params: Any) -> RiskOutcome:
        if inputs.policy is None:
            raise PolicyError("the release-intersection attack needs the policy's hierarchies")
        res = cls.function()(
            inputs.original,
            [inputs.masked, *inputs.others],
            inputs.policy,
            rows=inputs.rows,
            **params,
        )
        candidates = res.pop("candidates")
        records = res.pop("records")
        risk = 1.0 / np.maximum(candidates, 1)
        return RiskOutcome(
            reidentification_rate=float(risk.mean()) if len(risk) else None,
            certain_rate=float((candidates == 1).mean()) if len(risk) else None,
            record_risk=risk,
            attribute_contribution={},
            contribution_kind="",
            figures=res,
            detail={**res, "records": records.tolist(), "candidates": candidates.tolist()},
        )


BUILTIN_MEASURES: list[type[RiskMeasure]] = [
    DBRL,
    Mahalanobis,
    PRL,
    LearnedWeightedMean,
    LearnedOWA,
    LearnedBilinear,
    LearnedChoquet,
    RankSwapTransparency,
    MicroaggregationTransparency,
    MultivariateMicroaggregationTransparency,
    Uniqueness,
    IntervalDisclosure,
    MembershipInference,
    SinglingOut,
    Linkability,
    Inference,
    DDMBAR,
    ReleaseIntersection,
]


@hookimpl
def privcheck_risk_measures() -> list[type]:
    return list(BUILTIN_MEASURES)
