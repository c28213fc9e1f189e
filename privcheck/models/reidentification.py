"""What the re-identification risk models share (El Emam's prosecutor / journalist / marketer
attackers, as ARX implements them), on the class table.

A record of class c (f_c records in the data, F_c people in the population who share its released
values) is re-identified

- by the *prosecutor* (who knows the target is in the data) with probability 1/f_c;
- by the *journalist* (who knows the target is in the population) with probability 1/F_c;
- by the *marketer* (who links every record she can) correctly with probability 1/F_c, so she
  expects Σ_c f_c/F_c correct matches over the n records.

Average risks: prosecutor #classes/n (the mean of 1/f over records); marketer Σ f_c/F_c / n;
journalist the larger of #classes/Σ F_c (the mean risk of the population people a class matches)
and Σ f_c/F_c / n — ARX's ``RiskModelSampleSummary`` (rC = max(rC1, rC2)).

These are table-level verdicts (a threshold on an average, or on a share of records). As in ARX's
``RiskBasedCriterion.enforce``, an anonymizer meets them by suppressing the riskiest classes first
(highest per-record risk, ties in class order) until the table holds; ``class_ok`` marks the
classes that this leaves, so a check lists those it would suppress as its violators.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from privcheck.classes import ClassTable
from privcheck.models.base import Evaluation
from privcheck.population import check_contains, require_table

Attacker = Literal["prosecutor", "journalist", "marketer"]


@dataclass(eq=False)
class TableEvaluation(Evaluation):
    """An evaluation whose ``value`` is a statistic of the whole (kept) table, not the worst
    class's: ``table_value(keep)`` computes it."""

    table_value: Callable[[np.ndarray | None], float | list[float] | None] | None = None

    def value(self, keep: np.ndarray | None = None) -> float | list[float] | None:  # type: ignore[override]
        if (keep is not None and not keep.any()) or len(self.class_ok) == 0:
            return None
        return self.table_value(keep) if self.table_value is not None else None

    def unbounded(self, keep: np.ndarray | None = None) -> bool:
        return False


def population_sizes(table: ClassTable, attacker: Attacker, model: str) -> np.ndarray | None:
    """F of every class for the journalist and marketer (None for the prosecutor)."""
    if attacker == "prosecutor":
        return None
    require_table(table.encoded.policy, f"{model} with attacker {attacker}", "")
    return check_contains(table, f"{model} ({attacker})")


def record_risk(sizes: np.ndarray, pop: np.ndarray | None) -> np.ndarray:
    """Each class's per-record risk: 1/f (prosecutor) or 1/F (journalist, marketer)."""
    base = sizes if pop is None else pop
    return 1.0 / np.asarray(base, dtype=float)


def average_risk(
    sizes: np.ndarray, pop: np.ndarray | None, attacker: Attacker, keep: np.ndarray | None = None
) -> float:
    """The attacker's average risk over the (kept) classes (see module)."""
    f = sizes if keep is None else sizes[keep]
    n = float(f.sum())
    if attacker == "prosecutor" or pop is None:
        return len(f) / n
    big_f = (pop if keep is None else pop[keep]).astype(float)
    marketer = float((f / big_f).sum()) / n
    if attacker == "marketer":
        return marketer
    return max(len(f) / float(big_f.sum()), marketer)


def suppress_riskiest(
    risk: np.ndarray, holds_after: Callable[[np.ndarray], np.ndarray]
) -> np.ndarray:
    """``class_ok``: keep every class but the fewest riskiest ones whose removal makes the table
    hold. ``holds_after(order)`` says, for m = 0 … C, whether the table holds once the first m
    classes of ``order`` (riskiest first) are removed; m = C (nothing left) always holds."""
    order = np.argsort(-risk, kind="stable")
    holds = holds_after(order)
    m = int(np.argmax(holds)) if holds.any() else len(order)
    ok = np.ones(len(risk), dtype=bool)
    ok[order[:m]] = False
    return ok


def prefix_sums(values: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Σ of ``values`` over the first m classes of ``order``, for m = 0 … C."""
    out = np.zeros(len(order) + 1, dtype=float)
    np.cumsum(values[order], out=out[1:])
    return out
