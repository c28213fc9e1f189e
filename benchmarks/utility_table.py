"""Utility of the releases of Adult (8 quasi-identifiers, k = 5) in one table, one run.

Rows: the full-domain optimum (MinGen), and — when the code base has them
(``anonymizer_registry()``) — local suppression after the optimum's best predecessor ("one
level below", ``generalize_first=true``) and Mondrian. Columns: what ``privcheck compare``
measures (docs/utility.md), the classification utility predicting salary-class.

Every release is made with suppressed records written as ``*`` and the rows in input order, so
each is compared cell by cell with the original.

    PYTHONPATH=. python benchmarks/utility_table.py [--k 5] [--limit 0.01] [--wide]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path("/work/shared/data/adult")
ADULT = SHARED if (SHARED / "adult.csv").exists() else ROOT / "privcheck" / "data" / "adult"
QIS = [
    "age",
    "sex",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
]
TARGET = "salary-class"


def make_policy(k: int, limit: float):
    from privcheck.policy import parse_policy

    hier = ADULT / "hierarchies"
    attributes = {
        q: {
            "role": "quasi_identifier",
            "hierarchy": {"type": "table", "path": str(hier / f"{q}.csv")},
        }
        for q in QIS
    }
    attributes[TARGET] = {"role": "sensitive"}
    return parse_policy(
        {
            "attributes": attributes,
            "models": [{"model": "k-anonymity", "k": k}],
            "suppression_limit": limit,
            "suppressed_records": "star",
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--limit", type=float, default=0.01, help="suppression limit")
    parser.add_argument("--wide", action="store_true", help="every measure (a wide table)")
    args = parser.parse_args()

    from privcheck.io import read_table
    from privcheck.pipeline.anonymize import anonymize
    from privcheck.plugins import anonymizer_registry
    from privcheck.utility.compare import compare_releases
    from privcheck.utility.table import render_text

    frame = read_table(ADULT / "adult.csv")
    policy = make_policy(args.k, args.limit)
    registry = anonymizer_registry()
    plan = [("full-domain optimum (mingen)", "mingen", {})]
    if "local-suppression" in registry:
        plan.append(
            (
                "local suppression, optimum − 1 level",
                "local-suppression",
                {"generalize_first": True},
            )
        )
    if "mondrian" in registry:
        plan.append(("mondrian", "mondrian", {}))
    print(
        f"Adult {ADULT / 'adult.csv'}: {len(frame)} records, {len(QIS)} QIs, k = {args.k}, "
        f"suppression limit {args.limit:g}, target {TARGET}"
    )
    missing = [n for n in ("local-suppression", "mondrian") if n not in registry]
    if missing:
        print(f"(not in this code base: {', '.join(missing)})")
    releases = []
    for label, name, params in plan:
        started = time.perf_counter()
        release, report = anonymize(frame, policy, name, keep_order=True, **params)
        print(
            f"  {label}: anonymize {time.perf_counter() - started:.1f} s"
            + (f", node {list(report.node.values())}" if getattr(report, "node", None) else "")
            + f", loss {report.metrics['loss']:.4f}"
        )
        releases.append((label, release))
    started = time.perf_counter()
    result = compare_releases(frame, releases, policy, target=TARGET, seed=0)
    print(f"  compare of {len(releases)} releases: {time.perf_counter() - started:.1f} s")
    print()
    print(render_text(result, wide=args.wide, n_records=len(frame)), end="")


if __name__ == "__main__":
    main()
