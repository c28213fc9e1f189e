"""Linkability: does the synthetic table let an attacker link two records of the same person
held in two separate files? (Article 29 Working Party; measured as Giomi et al., PETS 2023, do
in Anonymeter.)

The attacker holds two files on the same people with different columns — ``aux_cols[0]`` and
``aux_cols[1]`` (default: the known attributes split in two halves) — and uses the synthetic
table as a bridge: each half of a target record is matched to its nearest synthetic record on
that half's columns; when both halves pick the same synthetic record (with ``n_neighbors`` > 1:
when their ``n_neighbors`` nearest share one), the two halves are linked. Run on ``n_attacks``
random members and as many random controls; a random bridge is the baseline.

Nearest neighbours use the mixed distance of `privcheck.risk.synthetic.control` through scipy's
``cdist``, with **ties broken uniformly at random**. Adult's records tie often; an argsort's
first tied record (Anonymeter's choice) makes both halves pick the lowest-numbered of their
tied records, which coincide far more often than chance and link records the table does not
link — on members and controls alike, so the risk moves less than the two rates do.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from privcheck.errors import PolicyError
from privcheck.limits import ATTACKS
from privcheck.risk.synthetic.control import (
    MixedEncoding,
    known_columns,
    nearest,
    require_records,
    risk_figures,
)


def default_halves(columns: list[str]) -> list[list[str]]:
    """The known attributes split in two halves (the first ⌈n/2⌉, the rest)."""
    if len(columns) < 2:
        raise PolicyError(
            "linkability needs at least two attributes to split between the attacker's two "
            "files; give --param 'aux_cols=[[a,b],[c,d]]' or more --intruder-attributes"
        )
    half = (len(columns) + 1) // 2
    return [list(columns[:half]), list(columns[half:])]


def _check_halves(aux_cols: Any, table: pd.DataFrame) -> list[list[str]]:
    ok = (
        isinstance(aux_cols, list | tuple)
        and len(aux_cols) == 2
        and all(isinstance(h, list | tuple) and h for h in aux_cols)
    )
    if not ok:
        raise PolicyError(
            "aux_cols must be two non-empty lists of columns, e.g. "
            "--param 'aux_cols=[[age,sex,race],[education,occupation]]'"
        )
    halves = [[str(c) for c in h] for h in aux_cols]
    for h in halves:
        known_columns(h, table, "linkability column")
    return halves


def _linked(idx0: np.ndarray, idx1: np.ndarray) -> np.ndarray:
    """Whether each attack's two neighbour sets share a synthetic record."""
    return (idx0[:, :, None] == idx1[:, None, :]).any(axis=(1, 2))


def linkability(
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    control: pd.DataFrame,
    *,
    aux_cols: list[list[str]] | None = None,
    attributes: list[str] | None = None,
    n_attacks: int = 500,
    n_neighbors: int = 1,
    confidence: float = 0.95,
    random_state: int | None = None,
) -> dict[str, Any]:
    """Linkability risk of ``synthetic`` for the people of ``original`` against ``control``.

    Targets are ``min(n_attacks, rows)`` records drawn without replacement from each of the
    original and the control set: rates are per attack, so the two sets may differ in size.
    """
    require_records(original=original, synthetic=synthetic, control=control)
    if n_attacks < 1 or n_neighbors < 1:
        raise PolicyError("n_attacks and n_neighbors must be at least 1")
    ATTACKS.check(n_attacks, "n_attacks asks for", "give a smaller n_attacks")
    if aux_cols is None:
        halves = default_halves(known_columns(list(attributes or original.columns), original))
    else:
        halves = _check_halves(aux_cols, original)
    rng = np.random.default_rng(random_state)
    cols = list(dict.fromkeys(halves[0] + halves[1]))
    n_a = min(n_attacks, len(original))
    n_c = min(n_attacks, len(control))
    targets = original.iloc[np.sort(rng.choice(len(original), n_a, replace=False))]
    controls = control.iloc[np.sort(rng.choice(len(control), n_c, replace=False))]
    enc = MixedEncoding.of([synthetic[cols], targets[cols], controls[cols]], cols)
    parts = [enc.select(h) for h in halves]
    k = min(n_neighbors, len(synthetic))

    def successes(frame: int, n: int) -> np.ndarray:
        rows = np.arange(n)
        idx = [
            nearest(p, p.take(frame, rows), p.take(0, np.arange(len(synthetic))), k=k, rng=rng)[0]
            for p in parts
        ]
        return _linked(idx[0], idx[1])

    hit_a = successes(1, n_a)
    hit_c = successes(2, n_c)
    if k == 1:  # the random bridge: k distinct synthetic records per half
        rand = [rng.integers(0, len(synthetic), size=(n_a, 1)) for _ in range(2)]
    else:
        rand = [
            np.argpartition(rng.random((n_a, len(synthetic))), k - 1, axis=1)[:, :k]
            for _ in range(2)
        ]
    baseline = _linked(rand[0], rand[1])
    out = risk_figures(
        int(hit_a.sum()), n_a, int(hit_c.sum()), n_c, int(baseline.sum()), n_a, confidence
    )
    out.update(
        {
            "aux_cols": halves,
            "n_neighbors": k,
            "n_members": len(original),
            "n_controls": len(control),
            "n_synthetic": len(synthetic),
        }
    )
    return out
