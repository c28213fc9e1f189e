"""Fixtures for the anonymizer tests (helpers live in anon_helpers.py)."""

from __future__ import annotations

import pandas as pd
import pytest
from anon_helpers import EXAMPLES


@pytest.fixture(scope="session")
def race_zip() -> pd.DataFrame:
    from privcheck.io import read_table

    return read_table(EXAMPLES / "race_zip.csv")
