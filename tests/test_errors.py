"""Lists in messages are whole or say how many more (issue 29): ``privcheck.errors.listing``,
and the messages that used to cut a list silently."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privcheck.errors import DataError, listing
from privcheck.policy import parse_policy

PACKAGE = Path(__file__).resolve().parent.parent / "privcheck"


@pytest.mark.parametrize(
    "items, limit, kwargs, expected",
    [
        (["a", "b"], 10, {}, "a, b"),
        (
            [f"c{i}" for i in range(25)],
            12,
            {},
            ", ".join(f"c{i}" for i in range(12)) + " and 13 more",
        ),
        (list(range(11)), 10, {}, "0, 1, 2, 3, 4, 5, 6, 7, 8, 9 and 1 more"),
        (np.arange(7), 5, {}, "0, 1, 2, 3, 4 and 2 more"),  # numpy values as Python scalars
        (["x", "y"], 5, {"fmt": repr}, "'x', 'y'"),
        (
            ["e-mail", "phone", "IBAN", "SSN"],
            3,
            {"sep": " or "},
            "e-mail or phone or IBAN and 1 more",
        ),
        ([3, 8], 6, {"total": 40}, "3, 8 and 38 more"),  # the first of a longer list
        ([], 6, {"total": 4}, ""),  # nothing known to show: nothing claimed
        (range(1_234), 1, {}, "0 and 1,233 more"),
    ],
)
def test_listing(items, limit, kwargs, expected):
    assert listing(items, limit, **kwargs) == expected


def test_a_missing_column_message_says_how_many_columns_it_leaves_out():
    from privcheck.encoding import encode

    frame = pd.DataFrame({f"col{i:02d}": ["a"] for i in range(25)})
    policy = parse_policy(
        {
            "attributes": {"absent": {"role": "quasi_identifier"}},
            "models": [{"model": "k-anonymity", "k": 1}],
        }
    )
    with pytest.raises(DataError) as info:
        encode(frame, policy)
    shown = ", ".join(f"col{i:02d}" for i in range(12))
    assert f"(columns: {shown} and 13 more)" in str(info.value)


def test_no_message_cuts_a_joined_list_silently():
    """The pattern the issue found (``", ".join(names[:12])`` with nothing saying so) is gone
    from the package: every such list goes through ``listing``."""
    cut = re.compile(r"join\([^)\n]*\[:\s*\w+\]")
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{n}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if cut.search(line)
    ]
    assert not found, found
