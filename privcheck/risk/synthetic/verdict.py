"""The verdict of a policy's ``synthetic_risk.max_risk`` on an attack's confidence interval.

A risk estimated from a few hundred attacks fluctuates: an independent synthetic table's
inference risk reads anywhere between 0 and 0.15 from one run to the next. Comparing the point
estimate with the bound would flag leak-free tables at random. The verdict is read off the
interval instead:

- **VIOLATED** when the interval's lower end is above ``max_risk`` — the risk exceeds the bound
  but for chance, and that chance is at most the share of the interval's level left above it:
  2.5 % for a 95 % two-sided interval on a leak-free table, whose true risk is 0;
- **HOLDS** when its upper end is below ``max_risk``;
- **INCONCLUSIVE** otherwise: the attacks run could not tell. The report then names the number
  of attacks that would decide at the observed rate (``attacks_to_decide``): the interval's
  half-width on the undecided side shrinks as 1/√N, so N = n · (half-width / distance from the
  estimate to the bound)², n the attacks run. It is a guide, not a promise: the estimate moves
  with more attacks, and a control set smaller than the members leaves an extrapolation term
  that more attacks do not narrow (``privcheck.risk.synthetic.singling_out``).

Inference attacks every sensitive attribute: VIOLATED when one attribute's interval lies above
the bound, HOLDS when all lie below (each at the Bonferroni level 1 − α/s for s attributes, so
the family's false-alarm rate stays that of one interval).
"""

from __future__ import annotations

from math import ceil
from typing import Any

from privcheck.limits import ATTACKS

HOLDS, VIOLATED, INCONCLUSIVE = "HOLDS", "VIOLATED", "INCONCLUSIVE"


def attacks_needed(value: float, ci: list[float], bound: float, n: int) -> int | None:
    """The attacks that would take the interval off ``bound`` at the observed rate (None when
    the estimate sits on the bound: no number decides it)."""
    if value > bound:
        gap, half = value - bound, value - ci[0]
    elif value < bound:
        gap, half = bound - value, ci[1] - value
    else:
        return None
    if gap <= 0 or half <= 0:
        return None
    need = ceil(max(n, 1) * (half / gap) ** 2 * 1.05)  # 5 % over the exact scaling
    return int(min(max(need, n + 1), ATTACKS.value()))


def judge_one(value: float, ci: list[float], bound: float, n: int) -> tuple[str, int | None]:
    """``(verdict, attacks to decide)`` of one estimate and its interval against ``bound``."""
    if ci[0] > bound:
        return VIOLATED, None
    if ci[1] < bound:
        return HOLDS, None
    return INCONCLUSIVE, attacks_needed(value, ci, bound, n)


def _attacks_run(figures: dict[str, Any]) -> int:
    """The attacks behind an estimate: ``n_attacks``; membership inference: the records
    evaluated per side."""
    for key in ("n_attacks", "n_eval_per_side"):
        if isinstance(figures.get(key), int):
            return int(figures[key])
    nested = figures.get("distance")
    if isinstance(nested, dict) and isinstance(nested.get("n_eval_per_side"), int):
        return int(nested["n_eval_per_side"])
    return min(int(figures.get("n_members", 1)), int(figures.get("n_controls", 1)))


def judge(figures: dict[str, Any], bounded: str, bound: float) -> dict[str, Any]:
    """``verdict``, ``passed`` (HOLDS only) and ``attacks_to_decide`` of an attack's figures
    (``bounded``: the figure the bound applies to, its interval ``bounded + '_ci'``)."""
    nested = figures.get("attributes")
    entries = list(nested.values()) if isinstance(nested, dict) else [figures]
    verdicts = []
    for fig in entries:
        value, ci = fig.get(bounded), fig.get(f"{bounded}_ci")
        if not isinstance(value, int | float) or not isinstance(ci, list | tuple) or len(ci) != 2:
            continue
        verdicts.append(
            judge_one(float(value), [float(ci[0]), float(ci[1])], bound, _attacks_run(fig))
        )
    if not verdicts:
        return {}
    names = [v for v, _ in verdicts]
    if VIOLATED in names:
        verdict = VIOLATED
    elif all(v == HOLDS for v in names):
        verdict = HOLDS
    else:
        verdict = INCONCLUSIVE
    needed = [n for v, n in verdicts if v == INCONCLUSIVE and n is not None]
    return {
        "verdict": verdict,
        "passed": verdict == HOLDS,
        "attacks_to_decide": max(needed) if verdict == INCONCLUSIVE and needed else None,
    }


def inconclusive_line(attacks: int | None, extrapolated: bool = False) -> str:
    """The one line an INCONCLUSIVE verdict prints (``extrapolated``: the control count was
    brought to the members' size by bounds that more attacks do not narrow)."""
    if attacks is None:
        line = (
            "inconclusive: run more attacks (`--attacks N`): the estimate sits on the bound, "
            "so no number of attacks decides it at the observed rate"
        )
    else:
        line = f"inconclusive: run more attacks (`--attacks {attacks}`)"
    if extrapolated:
        line += (
            "; the control set is smaller than the members, so its count is extrapolated "
            "within bounds more attacks do not narrow: a control set as large as the members "
            "decides sooner"
        )
    return line
