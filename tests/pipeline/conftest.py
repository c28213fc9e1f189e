"""Pipeline fixtures: the engines' one Spark session (``tests/engines/conftest.py``)."""

from tests.engines.conftest import spark  # noqa: F401 (a fixture, used by name)
