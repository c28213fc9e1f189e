"""Anonymizer test helpers: Adult policies (both usual set-ups), Race/ZIP, random tables."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
ADULT = ROOT / "privcheck" / "data" / "adult"
EXAMPLES = ROOT / "tests" / "data" / "examples"

#: the literature's set-up: 8 quasi-identifiers, salary-class sensitive
SALARY_QIS = [
    "age",
    "sex",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
]
#: ARX's benchmark set-up: salary-class a quasi-identifier, occupation sensitive
ARX_QIS = [
    "age",
    "sex",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "salary-class",
]


SEX_ROWS = [["F", "*"], ["M", "*"]]


def _table(path: Path) -> dict:
    return {"type": "table", "path": str(path)}


def adult_policy(
    qis: list[str], sensitive: str, models: list[dict], limit: float = 0.0, **extra
) -> dict:
    attrs = {
        q: {"role": "quasi_identifier", "hierarchy": _table(ADULT / "hierarchies" / f"{q}.csv")}
        for q in qis
    }
    attrs[sensitive] = {"role": "sensitive"}
    if sensitive == "salary-class" or sensitive == "occupation":
        attrs[sensitive]["hierarchy"] = {
            "type": "table",
            "path": str(ADULT / "hierarchies" / f"{sensitive}.csv"),
        }
    return {"attributes": attrs, "models": models, "suppression_limit": limit, **extra}


def race_zip_policy(k: int = 2, **extra) -> dict:
    h = EXAMPLES / "race_zip_hierarchies"
    return {
        "attributes": {
            "race": {"role": "quasi_identifier", "hierarchy": _table(h / "race.csv")},
            "zip": {"role": "quasi_identifier", "hierarchy": _table(h / "zip.csv")},
        },
        "models": [{"model": "k-anonymity", "k": k}],
        **extra,
    }


def random_table(seed: int, n: int = 60) -> tuple[pd.DataFrame, dict]:
    """A small random table with three generalizable QIs and a skewed sensitive attribute."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "id": [f"p{i}" for i in range(n)],
            "age": rng.integers(20, 60, n),
            "zip": [f"{z:05d}" for z in rng.choice([2138, 2139, 2141, 2142, 2150, 2151], n)],
            "sex": rng.choice(["F", "M"], n),
            "disease": rng.choice(["flu", "cold", "hiv", "cancer"], n, p=[0.4, 0.3, 0.2, 0.1]),
        }
    )
    policy = {
        "attributes": {
            "id": {"role": "identifier"},
            "age": {
                "role": "quasi_identifier",
                "hierarchy": {"type": "intervals", "widths": [5, 10]},
            },
            "zip": {"role": "quasi_identifier", "hierarchy": {"type": "masking", "levels": 3}},
            "sex": {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": SEX_ROWS}},
            "disease": {"role": "sensitive"},
        },
    }
    return frame, policy
