"""privcheck's version: one constant, importable without the rest of the package.

``privcheck.__version__`` names it; the reports stamp it on what they publish
(``privcheck_version``) and import it from here, so that report data depends on nothing but this
file (``privcheck/__init__.py`` names the checker and the anonymizers).
"""

__version__ = "0.1.0"
