"""The files beside a policy that ``apply`` and ``anonymize --previous`` read, and their strict
schemas: a transformation JSON and an anonymization report.

The policy is the only authority. Such a file is written by privcheck, but it is not the file a
reviewer signs off, and it may be tampered with or stale (saved under an older, looser policy).
So it is validated before anything uses it — unknown keys of a transformation refused (a report
carries dozens of fields; only the few read here are validated, the rest ignored by design),
types strict (``true`` is not level 1, ``"0.01"`` not a number), numbers finite, levels
non-negative integers — and what it says may only narrow a run, never loosen the policy
(``privcheck.pipeline.apply.effective_policy``). Errors name the file and the key,
never the value read (``privcheck.messages``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from privcheck.errors import PolicyError
from privcheck.limits import INT64_MAX, check_integers
from privcheck.report import AnonymizationReport

#: a hierarchy level: a non-negative integer (bool refused: strict); its upper bound, the
#: hierarchy's height, is checked against the policy's hierarchies where the node is used
Level = Annotated[int, Field(ge=0, le=INT64_MAX)]
#: the suppression limit as a share of the records, as a policy writes it
Share = Annotated[float, Field(ge=0.0, le=1.0)]
Mode = Literal["remove", "star"]


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, allow_inf_nan=False, extra="forbid")


class TransformationFile(_Strict):
    """The transformation JSON ``transformation_json`` writes (every key but ``node``
    optional; no other key)."""

    kind: Literal["transformation"] = "transformation"
    node: dict[str, Level] = Field(description="Hierarchy level of every quasi-identifier")
    suppression_limit: Share | None = Field(
        None, description="At most the policy's: a transformation may narrow it, not loosen it"
    )
    suppressed_records: Mode | None = Field(
        None, description="The policy's own value, if given (another is refused)"
    )
    algorithm: str | None = Field(None, max_length=200)


class _ReportParameters(_Strict):
    model_config = ConfigDict(extra="ignore")

    suppression_limit: Share | None = None
    suppressed_records: Mode | None = None


class ReportFile(_Strict):
    """The fields of an anonymization report (``AnonymizationReport`` JSON) that ``apply`` and
    ``anonymize --previous`` read; a report's other fields are ignored by design."""

    model_config = ConfigDict(extra="ignore")

    kind: Literal["anonymization"]
    algorithm: str | None = Field(None, max_length=200)
    node: dict[str, Level] | None = None
    parameters: _ReportParameters = Field(default_factory=_ReportParameters)


def validate_side_file(
    data: Any, schema: type[BaseModel], what: str, text: str | None = None
) -> BaseModel:
    """``data`` validated by ``schema``, or one PolicyError naming ``what`` (the file) and the
    key — integers outside 64 bits named first, as a policy's are."""
    from privcheck.messages import first_error

    try:
        check_integers(data, "")
    except PolicyError as exc:
        raise PolicyError(f"{what}: {exc}") from None
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        raise PolicyError(f"{what}: {first_error(exc, '', text=text)}") from None


def read_side_file(source: Any, what: str) -> tuple[Any, str | None, str]:
    """(parsed JSON, its text, how errors name it) of a file path, or (source, None, ``the
    <what>``) for a dict or object given directly."""
    if isinstance(source, str | Path):
        from privcheck.io import read_json_text

        data, text = read_json_text(source, what)
        return data, text, f"{what} {source}"
    return source, None, f"the {what.removesuffix(' file')}"


def parse_transformation(data: Any, name: str, text: str | None = None) -> dict[str, Any]:
    """A transformation JSON or an anonymization report (dict) as the transformation
    ``apply`` uses: ``{kind, node, suppression_limit, suppressed_records, algorithm}``."""
    if not isinstance(data, dict):
        raise PolicyError(
            f"{name} is not a transformation: give an anonymization report (JSON) or the "
            'transformation JSON of one ({"node": {quasi-identifier: level}, …})'
        )
    if data.get("algorithm") == "safepub":
        raise PolicyError(
            "a safepub release cannot be re-applied to another batch: its node applied without "
            "a fresh sample and budget is not differentially private; run privcheck anonymize "
            "--algorithm safepub on the new batch"
        )
    kind = data.get("kind", "transformation")
    if kind == "anonymization":
        report = validate_side_file(data, ReportFile, name, text)
        assert isinstance(report, ReportFile)
        node, algorithm = report.node, report.algorithm
        limit = report.parameters.suppression_limit
        mode = report.parameters.suppressed_records
    elif kind == "transformation":
        t = validate_side_file(data, TransformationFile, name, text)
        assert isinstance(t, TransformationFile)
        node, algorithm = t.node, t.algorithm
        limit, mode = t.suppression_limit, t.suppressed_records
    else:
        raise PolicyError(
            f"{name}: its 'kind' is neither 'transformation' nor 'anonymization'; give an "
            "anonymization report (JSON) or the transformation JSON of one"
        )
    if node is None:
        raise PolicyError(
            f"{name} has no generalization node (an anonymization report of incognito, mingen "
            "or datafly, or {'node': {quasi-identifier: level}})"
        )
    return {
        "kind": "transformation",
        "node": dict(node),
        "suppression_limit": limit,
        "suppressed_records": mode,
        "algorithm": algorithm,
    }


def parse_previous_node(data: Any, name: str, text: str | None = None) -> dict[str, int]:
    """The node of a previous release from its anonymization report (dict), a transformation
    JSON, or a plain ``{quasi-identifier: level}`` mapping: levels strict non-negative
    integers."""
    if not isinstance(data, dict):
        raise PolicyError(f"{name}: the previous release must be given as its anonymization report")
    kind = data.get("kind")
    if kind == "anonymization":
        report = validate_side_file(data, ReportFile, name, text)
        assert isinstance(report, ReportFile)
        node = report.node
    elif kind == "transformation" or (kind is None and "node" in data):
        node = validate_side_file(data, TransformationFile, name, text).node  # type: ignore[attr-defined]
    elif kind is None:
        node = validate_side_file({"node": data}, TransformationFile, name, text).node  # type: ignore[attr-defined]
    else:
        raise PolicyError(
            f"{name}: its 'kind' is not 'anonymization'; give the previous release's "
            "anonymization report"
        )
    if node is None:
        raise PolicyError(
            f"{name} has no generalization node (was it made by a generalization anonymizer "
            "such as incognito, mingen or datafly?)"
        )
    return dict(node)


def previous_node(previous: Any) -> dict[str, int] | None:
    """The generalization levels of a previous release, from its report (object, dict, JSON
    file) or a plain ``{quasi-identifier: level}`` mapping, validated strictly
    (below): levels are non-negative integers (``true`` is not
    level 1). It only narrows a search — its node is the lattice's lower bound."""
    if previous is None:
        return None
    if isinstance(previous, AnonymizationReport):
        node = previous.node
        if node is None:
            raise PolicyError(
                "the previous release's report has no generalization node (was it made by a "
                "generalization anonymizer such as incognito, mingen or datafly?)"
            )
        return {str(k): int(v) for k, v in node.items()}
    data, text, name = read_side_file(previous, "previous release report")
    return parse_previous_node(data, name, text)
