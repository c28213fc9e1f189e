"""The options several commands share, and what applying them means.

``Engine`` is the choice of ``--engine`` (``--format``'s choices are the output-format
plugins'); ``SparkMaster``, ``MaxGroups``, ``AllowDraft`` and ``Encoding`` are whole options
a command declares by its type; ``SEED_MAX`` bounds every ``--seed``. ``reads_data`` applies
``--encoding`` to every file a command reads and ``refuse_draft`` applies ``--allow-draft``
before any data is read.
"""

from __future__ import annotations

import functools
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer


class Engine(StrEnum):
    pandas = "pandas"
    polars = "polars"
    duckdb = "duckdb"
    spark = "spark"


#: options shared by every command that can run on an engine
SparkMaster = Annotated[
    str, typer.Option(help="Spark master for --engine spark (an active session wins)")
]
MaxGroups = Annotated[
    int | None,
    typer.Option(
        min=0, max=2**63 - 1, help="Most value combinations an engine may send back (0: no limit)"
    ),
]

AllowDraft = Annotated[
    bool,
    typer.Option(
        "--allow-draft",
        help="Run a draft policy (columns still marked review:) anyway; the report then says "
        "draft: true (default: refused, exit 2)",
    ),
]
Encoding = Annotated[
    str,
    typer.Option(
        "--encoding",
        help="Encoding of the CSV/TSV files read that are not UTF-8 (e.g. cp1252, latin-1, "
        "utf-16); UTF-8 files, a BOM or not, are always read as UTF-8",
    ),
]


#: seeds are whole numbers 0 … 2^32 − 1 (``privcheck.params.SEED_MAX``): the range every random
#: generator privcheck seeds accepts (scikit-learn's random_state is the narrowest), so a seed is
#: refused on the command line in one line instead of failing deep inside an attack
SEED_MAX = 2**32 - 1


def reads_data(command):
    """Run ``command`` with its ``--encoding`` applied to every CSV/TSV file it reads
    (``privcheck.io.csv_encoding``): the data, a population table, earlier releases."""

    @functools.wraps(command)
    def run(*args, **kwargs):
        from privcheck.io import csv_encoding

        with csv_encoding(kwargs.get("encoding")):
            return command(*args, **kwargs)

    return run


def refuse_draft(policy: Path, allow_draft: bool) -> None:
    """A draft policy (columns still marked review:) is refused before any data is read:
    exit 2, one line naming the columns and what to do."""
    from privcheck.policy import load_policy

    load_policy(policy).require_decided(allow_draft=allow_draft)
