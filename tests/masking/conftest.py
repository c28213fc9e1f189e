"""Fixtures for the masking tests: the CASC reference files (copies of shared/data/casc)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

CASC = Path(__file__).resolve().parents[1] / "data" / "casc"


@pytest.fixture(scope="session")
def census() -> pd.DataFrame:
    return pd.read_csv(CASC / "census.csv")


@pytest.fixture(scope="session")
def tarragona() -> pd.DataFrame:
    return pd.read_csv(CASC / "tarragona.csv")
