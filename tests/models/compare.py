"""Run privcheck and the brute-force oracle on the same table and compare class by class."""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path

import numpy as np
import pandas as pd

from privcheck.checker import check_table
from privcheck.classes import ClassTable, count
from privcheck.encoding import encode
from privcheck.models.base import evaluate_models
from privcheck.policy import parse_policy
from tests.conftest import ADULT
from tests.models import bruteforce as bf

ADULT_QIS = [
    "age",
    "sex",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
]
HIERARCHIES = ADULT / "hierarchies"


@cache
def adult_rows() -> list[dict[str, str]]:
    return bf.read_rows(ADULT / "adult.csv")


@cache
def adult_hierarchies() -> dict[str, list[list[str]]]:
    return {p.stem: bf.read_hierarchy(p) for p in sorted(HIERARCHIES.glob("*.csv"))}


def adult_policy(qis: list[str], sensitive: str, models: list[dict]) -> dict:
    """A policy over the Adult columns with ARX's hierarchy files (absolute paths)."""
    attrs = {
        q: {
            "role": "quasi_identifier",
            "hierarchy": {"type": "table", "path": str(HIERARCHIES / f"{q}.csv")},
        }
        for q in qis
    }
    attrs[sensitive] = {
        "role": "sensitive",
        "hierarchy": {"type": "table", "path": str(HIERARCHIES / f"{sensitive}.csv")},
    }
    models = [m if m["model"] == "k-anonymity" else {**m, "attribute": sensitive} for m in models]
    return {"attributes": attrs, "models": models}


def privcheck_per_class(
    table: ClassTable, policy
) -> list[dict[tuple[str, ...], tuple[float, bool]]]:
    """Per model: generalized QI tuple → (class statistic, class satisfies the model)."""
    labels = table.class_labels(np.arange(table.n_classes))
    names = table.encoded.qi_names
    keys = [tuple(lab[q] for q in names) for lab in labels]
    out = []
    for ev in evaluate_models(table, policy.models):
        out.append(
            {
                k: (float(v), bool(ok))
                for k, v, ok in zip(keys, ev.class_value, ev.class_ok, strict=True)
            }
        )
    return out


def close(a: float | None, b: float | None, rel: float = 1e-9) -> bool:
    if a is None or b is None:
        return a is b
    if math.isinf(a) or math.isinf(b):
        return a == b
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-12)


def assert_agrees(
    frame: pd.DataFrame,
    policy_dict: dict,
    rows: list[dict],
    node: tuple[int, ...] | None = None,
    hierarchies: dict[str, list[list[str]]] | None = None,
    order: list[str] | None = None,
    sensitive_tree: bf.Tree | None = None,
    base_dir: Path | None = None,
    encoded=None,
) -> ClassTable:
    """privcheck's classes, per-class statistics, verdicts and report figures equal the oracle's."""
    policy = parse_policy(policy_dict, base_dir=base_dir)
    enc = encoded if encoded is not None else encode(frame, policy)
    table = count(enc, node)
    qis = policy.quasi_identifiers
    sensitive = policy.sensitive_attributes[0] if policy.sensitive_attributes else None
    classes = bf.group_rows(rows, qis, sensitive, node, hierarchies)

    # classes and their sizes
    labels = table.class_labels(np.arange(table.n_classes))
    got_sizes = {
        tuple(lab[q] for q in qis): int(s) for lab, s in zip(labels, table.sizes, strict=True)
    }
    assert got_sizes == {k: len(v) for k, v in classes.items()}

    report = check_table(table, policy, max_violators=5)
    memo: dict = {}
    for model, got, result in zip(
        policy_dict["models"], privcheck_per_class(table, policy), report.models, strict=True
    ):
        want = bf.expected(classes, model, order=order, tree=sensitive_tree, memo=memo)
        assert got.keys() == want.per_class.keys()
        bad = [
            (k, got[k], want.per_class[k])
            for k in got
            if got[k][1] != want.per_class[k][1] or not close(got[k][0], want.per_class[k][0])
        ]
        assert not bad, f"{model}: {len(bad)} classes differ, e.g. {bad[:3]}"
        assert result.passed == want.passed, model
        assert close(result.value, want.value), (model, result.value, want.value)
        assert result.violating_classes == want.violating_classes, model
        assert result.violating_records == want.violating_records, model
    return table
