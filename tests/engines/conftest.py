"""Engine fixtures: ONE local[2] Spark session for the whole run, the policies and tables every
engine is compared on, and the report comparison (an engine cannot name record numbers)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

ADULT = Path(__file__).resolve().parents[2] / "privcheck" / "data" / "adult"
HIER = ADULT / "hierarchies"


def _table(name: str) -> dict:
    return {"type": "table", "path": str(HIER / f"{name}.csv")}


ADULT_QIS = ("age", "sex", "race", "marital-status", "education", "native-country", "workclass")

#: every built-in model and variant on Adult: k, three l-diversity variants, t with the three
#: ground distances (hierarchical over ARX's occupation hierarchy)
ADULT_ALL_MODELS = {
    "attributes": {
        **{qi: {"role": "quasi_identifier", "hierarchy": _table(qi)} for qi in ADULT_QIS},
        "occupation": {"role": "sensitive", "hierarchy": _table("occupation")},
        "salary-class": {"role": "sensitive", "hierarchy": _table("salary-class")},
    },
    "models": [
        {"model": "k-anonymity", "k": 5},
        {"model": "l-diversity", "variant": "distinct", "l": 2, "attribute": "occupation"},
        {"model": "l-diversity", "variant": "entropy", "l": 1.5, "attribute": "occupation"},
        {"model": "l-diversity", "variant": "recursive", "l": 2, "c": 3, "attribute": "occupation"},
        {"model": "t-closeness", "t": 0.2, "distance": "equal", "attribute": "salary-class"},
        {"model": "t-closeness", "t": 0.3, "distance": "ordered", "attribute": "occupation"},
        {"model": "t-closeness", "t": 0.3, "distance": "hierarchical", "attribute": "occupation"},
    ],
}

#: the synthetic table: identity QIs with nulls (own class), an ordered and a hierarchical
#: sensitive attribute
DIAGNOSES = [f"d{i:02d}" for i in range(12)]
SYNTHETIC_POLICY = {
    "attributes": {
        "age": {"role": "quasi_identifier"},
        "sex": {"role": "quasi_identifier"},
        "region": {"role": "quasi_identifier"},
        "diagnosis": {
            "role": "sensitive",
            "hierarchy": {
                "type": "table",
                "rows": [[d, f"group{int(d[1:]) // 4}", "*"] for d in DIAGNOSES],
            },
        },
        "income": {"role": "sensitive"},
        "name": {"role": "identifier"},
    },
    "models": [
        {"model": "k-anonymity", "k": 40},
        {"model": "l-diversity", "variant": "distinct", "l": 6, "attribute": "diagnosis"},
        {"model": "l-diversity", "variant": "entropy", "l": 5, "attribute": "diagnosis"},
        {"model": "l-diversity", "variant": "recursive", "l": 3, "c": 2, "attribute": "diagnosis"},
        {"model": "t-closeness", "t": 0.15, "distance": "equal", "attribute": "diagnosis"},
        {"model": "t-closeness", "t": 0.12, "distance": "ordered", "attribute": "income"},
        {"model": "t-closeness", "t": 0.1, "distance": "hierarchical", "attribute": "diagnosis"},
    ],
    "missing": "own_class",
}


def synthetic_table(n: int, seed: int = 0, null_rate: float = 0.001) -> pa.Table:
    """``n`` records drawn with numpy: a skewed class structure so that every model has both
    passing and violating classes, and nulls in two quasi-identifiers."""
    rng = np.random.default_rng(seed)
    age = rng.integers(17, 91, n)
    sex = rng.choice(np.array(["F", "M"], dtype=object), n)
    region = rng.choice(np.array([f"R{i}" for i in range(15)], dtype=object), n, p=None)
    # diagnosis depends on age for some ages (low diversity there), uniform elsewhere
    spread = np.where(age % 7 == 0, 2, 12)
    diagnosis = np.array(DIAGNOSES, dtype=object)[(age + rng.integers(0, 12, n)) % spread]
    income = (rng.gamma(2.0, 10.0, n) + (age - 17) * 0.2).astype(np.int64) // 5 * 5
    age_null = rng.random(n) < null_rate
    region_null = rng.random(n) < null_rate
    return pa.table(
        {
            "age": pa.array(age, mask=age_null),
            "sex": pa.array(sex, type=pa.string()),
            "region": pa.array(region, type=pa.string(), mask=region_null),
            "diagnosis": pa.array(diagnosis, type=pa.string()),
            "income": pa.array(income),
            "name": pa.array(np.arange(n)).cast(pa.string()),
        }
    )


#: dates, intervals (with a NaN) and masking hierarchies over date, float and string columns
TYPED_POLICY = {
    "attributes": {
        "born": {"role": "quasi_identifier", "hierarchy": {"type": "dates"}},
        "age": {"role": "quasi_identifier", "hierarchy": {"type": "intervals", "widths": [5, 10]}},
        "zip": {"role": "quasi_identifier", "hierarchy": {"type": "masking"}},
        "s": {"role": "sensitive"},
    },
    "models": [
        {"model": "k-anonymity", "k": 2},
        {"model": "t-closeness", "t": 0.5, "distance": "ordered"},
    ],
    "missing": "own_class",
}


def typed_frame(n: int = 300, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    days = pd.to_timedelta(rng.integers(0, 20000, n), unit="D")
    frame = pd.DataFrame(
        {
            "born": (pd.Timestamp("1960-01-01") + days).date,
            "age": rng.integers(18, 80, n).astype(float),
            "zip": rng.choice(np.array(["02139", "02141", "10001"], dtype=object), n),
            "s": rng.choice(np.array(list("abc"), dtype=object), n),
        }
    )
    frame.loc[3, "age"] = np.nan
    return frame


def comparable(report, *, keep_order: bool = True) -> dict:
    """A report as a dict without what an engine cannot reproduce (record numbers) or what
    changes run to run (elapsed time). ``keep_order=False`` sorts each model's violators, for
    comparisons where classes tied on the statistic may be listed in another order."""
    d = report.model_dump(exclude={"elapsed_seconds", "source"})
    for m in d["models"]:
        for v in m["violators"]:
            v["records"] = []
        if not keep_order:
            m["violators"] = sorted(m["violators"], key=lambda v: repr(sorted(v.items())))
    return d


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 10)


def summary(report) -> list:
    """The figures every engine must reproduce, whatever the order of tied classes (floats to
    10 decimals: a sum over a class may add its terms in another order)."""
    return [report.passed, report.n_records, report.n_classes] + [
        (
            m.model,
            m.passed,
            _r(m.value),
            m.violating_classes,
            m.violating_records,
            [_r(v.statistic) for v in m.violators],
        )
        for m in report.models
    ]


@pytest.fixture(scope="session")
def adult_parquet(tmp_path_factory, adult_frame) -> Path:
    path = tmp_path_factory.mktemp("adult") / "adult.parquet"
    adult_frame.to_parquet(path, index=False)
    return path


@pytest.fixture(scope="session")
def million_parquet(tmp_path_factory) -> Path:
    """The 1 M-record synthetic table, written once per session (several row groups)."""
    path = tmp_path_factory.mktemp("million") / "million.parquet"
    pq.write_table(synthetic_table(1_000_000, seed=1), path, row_group_size=250_000)
    return path


def _spark_unavailable() -> str | None:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed (pip install 'pyspark>=4.0,<4.2')"
    if shutil.which("java") is None:
        return "Java is not installed (apt-get install openjdk-17-jre-headless)"
    return None


@pytest.fixture(scope="session")
def spark():
    """One local[2] session for the whole test run (starting one takes 5–20 s)."""
    reason = _spark_unavailable()
    if reason:
        pytest.skip(f"Spark tests skipped: {reason}")
    from privcheck.engines.spark_engine import get_spark

    session = get_spark("local[2]", conf={"spark.sql.shuffle.partitions": "4"})
    yield session
    session.stop()


def write_parquet(frame: pd.DataFrame, folder: Path, name: str = "data.parquet") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    frame.to_parquet(path, index=False)
    return path
