"""The package's version, in a module of its own: the report data and the risk report name it
without importing ``privcheck/__init__.py``, whose public names lead to the checker and the
anonymizers (a report is data and imports nothing of them)."""

__version__ = "0.1.0"
