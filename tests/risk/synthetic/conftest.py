"""Fixtures of the risk tests: the Adult scenario of the synthetic-table attacks."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.risk.synthetic.synthetic_data import adult_split


@pytest.fixture(scope="session")
def adult_synthetic() -> dict[str, pd.DataFrame]:
    """``members``, ``control``, ``leak`` and ``independent`` (see ``adult_split``)."""
    return adult_split()
