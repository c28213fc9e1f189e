"""The privacy side of ``privcheck compare``: does a release pass its policy, and how exposed is
each record — as ``privcheck check`` reads the release file.

The release is judged exactly as ``check`` judges it (``privcheck.checker``): rows whose every
quasi-identifier reads ``*`` under ``suppressed_records: star`` are suppressed records (counted
against the suppression limit, in no class), the other rows are encoded as released and grouped
into classes, every table model of the policy is evaluated, and ``suppressed_cells: wildcard``
gives k-anonymity each class's effective size. A model that is a property of the mechanism
(differential privacy) cannot be verified on a table and is left out of ``passed``. Beyond what
``check`` sees, ``compare`` holds the original: the records a release leaves out are suppressed
records too, and with the ``*`` rows they must stay within the suppression limit (of the
original's records) for the release to pass.

Risk is the prosecutor's (the intruder knows the target is in the release): a released record's
risk is 1 / the size of its class (the effective size under ``wildcard``). ``highest`` is the
largest, ``average`` the mean over the released records (= classes / records without
wildcards), ``records_above`` the share of released records whose risk exceeds 1/k — k of the
policy's k-anonymity (the largest, if several), 0.2 (ARX's default, k = 5) without one. A
release with no record released has risk 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from privcheck.checker import (
    check_table,
    finish_report,
    individual_absent,
    present_identifiers,
    starred_rows,
    suppression_limit_records,
)
from privcheck.classes import count
from privcheck.encoding import encode, sensitive_read
from privcheck.models.base import table_models
from privcheck.policy import Policy
from privcheck.risk.population.prosecutor import policy_k, prosecutor_risk, threshold


@dataclass(frozen=True)
class ReleaseVerdict:
    """Whether a release passes its policy, and its prosecutor risk."""

    passed: bool
    highest: float
    average: float
    records_above: float
    threshold: float

    def risk(self) -> dict[str, float]:
        return {
            "highest": self.highest,
            "average": self.average,
            "records_above": self.records_above,
        }


def risk_threshold(policy: Policy) -> float:
    """1/k of the policy's k-anonymity (its largest k), else ``DEFAULT_THRESHOLD`` (0.2)."""
    return threshold(policy_k(policy.models))


def checked_policy(policy: Policy) -> Policy:
    """The policy with the models a table can be checked against (no mechanism models)."""
    models = table_models(policy.models)
    if len(models) == len(policy.models):
        return policy
    out = policy.model_copy(update={"models": models})
    out._base_dir = policy.base_dir
    return out


def release_verdict(
    release: pd.DataFrame, policy: Policy, n_original: int | None = None
) -> ReleaseVerdict:
    """Check ``release`` as ``privcheck check`` does and measure its prosecutor risk.

    With ``n_original`` (the original's records), the records the release leaves out count as
    suppressed too, as an anonymizer counts them: the release passes only if they and its ``*``
    rows stay within the policy's suppression limit of the original's records — ``check``,
    which sees the release alone, cannot count what is missing (a release that silently drops
    30 % of the records is no pass against a 1 % limit)."""
    pol, absent = individual_absent(list(release.columns), checked_policy(policy))
    star = starred_rows(release, pol)
    n_suppressed = 0
    frame = release
    if star is not None:
        n_suppressed = int(star.sum())
        frame = release[~star].reset_index(drop=True)
    encoded = encode(frame, pol, as_released=True, sensitive=sensitive_read(pol))
    table = count(encoded)
    report = check_table(table, pol)
    if absent is not None:
        report.notes.append(absent)
    finish_report(
        report,
        pol,
        identifiers=present_identifiers(list(release.columns), pol),
        n_suppressed=n_suppressed,
        n_rows=len(release),
    )
    sizes = table.sizes.astype(np.float64)
    effective = sizes
    if pol.suppressed_cells == "wildcard" and len(sizes):
        from privcheck.wildcard import effective_sizes

        effective = effective_sizes(table).astype(np.float64)
    k = policy_k(policy.models)
    figures = prosecutor_risk(effective, sizes, k)
    passed = bool(report.passed)
    if n_original is not None:
        left_out = max(n_original - len(release), 0)
        limit = suppression_limit_records(pol, n_original)
        passed = passed and n_suppressed + left_out <= limit
    return ReleaseVerdict(passed=passed, **figures, threshold=threshold(k))
