"""Visit-level tables and an independent brute force of people per class (pandas only).

``visits`` generates a hospital extract with one row per visit: person attributes constant per
person (sex, birth year, zip, name) and visit attributes varying (year and age at the visit,
ward, diagnosis). The oracles read a table with plain pandas group-bys — ``nunique`` of the
person column per class — none of privcheck's encoding, class tables or models.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

QIS = ["sex", "birth_year", "zip", "age", "ward"]

#: a policy for ``visits``: hierarchies for every quasi-identifier, the person key counted
VISIT_POLICY = {
    "individual": "patient_id",
    "attributes": {
        "name": {"role": "identifier"},
        "sex": {"role": "quasi_identifier"},
        "birth_year": {
            "role": "quasi_identifier",
            "hierarchy": {"type": "intervals", "widths": [5, 10, 20]},
        },
        "zip": {"role": "quasi_identifier", "hierarchy": {"type": "masking"}},
        "age": {
            "role": "quasi_identifier",
            "hierarchy": {"type": "intervals", "widths": [5, 10, 20]},
        },
        "ward": {"role": "quasi_identifier"},
        "diagnosis": {"role": "sensitive"},
    },
    "models": [{"model": "k-anonymity", "k": 5}],
    "suppression_limit": 0.1,
}


def visits(n_people: int = 5000, max_visits: int = 8, seed: int = 0) -> pd.DataFrame:
    """``n_people`` patients with 1–``max_visits`` visits each (uniform), one row per visit."""
    rng = np.random.default_rng(seed)
    per_person = rng.integers(1, max_visits + 1, n_people)
    pid = np.repeat(np.arange(n_people), per_person)
    birth = rng.integers(1930, 2005, n_people)
    zips = np.array([f"{z:05d}" for z in rng.integers(10000, 99999, 40)])
    names = np.array(
        [f"Name{i:05d} Surname{(i * 7919) % 100_000:05d}" for i in range(n_people)], dtype=object
    )
    n = len(pid)
    year = rng.integers(2015, 2024, n)
    return pd.DataFrame(
        {
            "patient_id": np.array([f"P{p:06d}" for p in range(n_people)], dtype=object)[pid],
            "name": names[pid],
            "sex": rng.choice(np.array(["F", "M"], dtype=object), n_people)[pid],
            "birth_year": birth[pid].astype(str).astype(object),
            "zip": rng.choice(zips, n_people)[pid].astype(object),
            "age": (year - birth[pid]).astype(str).astype(object),
            "ward": rng.choice(np.array(["A", "B", "C", "D"], dtype=object), n),
            "diagnosis": rng.choice(
                np.array(["I10", "E11", "J45", "C50", "F32", "K21"], dtype=object), n
            ),
        }
    )


def people_per_class(frame: pd.DataFrame, qis: list[str], person: str) -> pd.Series:
    """Distinct people in every class (the classes: distinct quasi-identifier rows)."""
    return frame.groupby(qis, dropna=False, sort=False)[person].nunique()


def people_figures(frame: pd.DataFrame, qis: list[str], person: str, k: int) -> dict:
    """The brute-force figures a report states: people in the smallest class, and the classes
    holding fewer than k people."""
    people = people_per_class(frame, qis, person)
    return {
        "smallest": int(people.min()),
        "below_k": int((people < k).sum()),
        "classes": len(people),
        "people": int(frame[person].nunique()),
    }


def value_people(frame: pd.DataFrame, qis: list[str], person: str, sensitive: str) -> pd.Series:
    """People per (class, sensitive value): those holding the value in at least one record."""
    return frame.groupby([*qis, sensitive], dropna=False, sort=False)[person].nunique()


def l_diversity(frame, qis, person, sensitive, variant: str, l: int = 2) -> float:  # noqa: E741
    """The report's value of l-diversity counted in people, by the documented definitions:
    distinct values; exp(entropy) of the value counts normalised by their sum; recursive
    r1 / (r_l + … + r_m), counts sorted descending."""
    counts = value_people(frame, qis, person, sensitive)
    out = []
    for _, c in counts.groupby(level=list(range(len(qis))), dropna=False, sort=False):
        f = np.sort(c.to_numpy(dtype=float))[::-1]
        if variant == "distinct":
            out.append(len(f))
        elif variant == "entropy":
            p = f / f.sum()
            out.append(math.exp(-(p * np.log(p)).sum()))
        else:
            tail = f[l - 1 :].sum()
            out.append(f[0] / tail if tail > 0 else math.inf)
    return float(min(out) if variant != "recursive" else max(out))


def t_closeness_equal(frame, qis, person, sensitive) -> float:
    """Largest ½·Σ|p − q| with p a class's people counts normalised by their sum and q the
    table's: the people holding each value (once each), normalised."""
    counts = value_people(frame, qis, person, sensitive)
    total = frame.groupby(sensitive)[person].nunique()
    q = total / total.sum()
    worst = 0.0
    for _, c in counts.groupby(level=list(range(len(qis))), dropna=False, sort=False):
        p = c.droplevel(list(range(len(qis))))
        p = p / p.sum()
        diff = p.reindex(q.index, fill_value=0.0) - q
        worst = max(worst, 0.5 * float(diff.abs().sum()))
    return worst


def beta_gain(frame, qis, person, sensitive) -> float:
    """Largest (q − p)/p (0 when nothing is over-represented): q the share of a class's people
    holding a value, p the share of the table's people holding it."""
    counts = value_people(frame, qis, person, sensitive)
    people = people_per_class(frame, qis, person)
    p = frame.groupby(sensitive)[person].nunique() / frame[person].nunique()
    q = counts.to_numpy() / people.reindex(counts.droplevel(len(qis)).index).to_numpy()
    gain = q / p.reindex(counts.index.get_level_values(len(qis))).to_numpy() - 1
    return float(max(gain.max(), 0.0))


def alpha_share(frame, qis, person, sensitive) -> float:
    """Largest share of a class's people holding one value ((α,k) without a named value)."""
    counts = value_people(frame, qis, person, sensitive)
    people = people_per_class(frame, qis, person)
    top = counts.groupby(level=list(range(len(qis))), dropna=False, sort=False).max()
    return float((top / people.reindex(top.index)).max())
