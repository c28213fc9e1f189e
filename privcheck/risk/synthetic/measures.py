"""The attacks on a synthetic table (or a released model) as risk measures, each against a
control set: ``singling-out``, ``linkability`` and ``inference`` (Anonymeter's three risks) and
``membership-inference``. Members are ``--original``, the release ``--masked``, the non-members
``--control`` (or ``--param control_share=F`` held out with ``--seed``).
"""

from __future__ import annotations

import itertools
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from privcheck.errors import PolicyError
from privcheck.limits import check_integers
from privcheck.risk.base import RiskMeasure
from privcheck.risk.outcome import AttackInputs, RiskOutcome


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
        from privcheck.risk.synthetic.control import control_set, same_columns

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
    """Anonymeter's singling-out attack (`privcheck.risk.synthetic.singling_out`)."""

    name = "singling-out"
    summary = (
        "singling-out risk of a synthetic table against a control set (--control; params "
        "n_attacks, n_cols, mode)"
    )

    @classmethod
    def function(cls):
        from privcheck.risk.synthetic.singling_out import singling_out

        return singling_out

    section = "singling out"


class Linkability(_WholeTableAttack):
    """Anonymeter's linkability attack (`privcheck.risk.synthetic.linkability`)."""

    name = "linkability"
    summary = (
        "linkability risk of a synthetic table against a control set (--control; params "
        "aux_cols, n_attacks, n_neighbors)"
    )

    @classmethod
    def function(cls):
        from privcheck.risk.synthetic.linkability import linkability

        return linkability

    section = "linkability"


class Inference(_Synthetic):
    """Anonymeter's inference attack (`privcheck.risk.synthetic.inference`), per sensitive
    attribute."""

    name = "inference"
    summary = (
        "inference risk of each sensitive attribute from a synthetic table against a control "
        "set (--control; params secret, n_attacks, regression)"
    )
    extra = ("control_share", "secret")

    @classmethod
    def function(cls):
        from privcheck.risk.synthetic.inference import inference

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
        from privcheck.risk.synthetic.membership import membership_inference

        return membership_inference

    @classmethod
    def run(cls, inputs: AttackInputs, **params: Any) -> RiskOutcome:
        from privcheck.risk.synthetic.control import control_set

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
