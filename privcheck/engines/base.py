"""What an engine is to the release path: it reads the data where it lives, encodes it, writes
ANY plan's release there and re-checks it — it imports no anonymizer.

One class per engine, chosen by the data's type (``privcheck.engines.engine_for``):

- ``PandasEngine`` (``privcheck.engines.pandas_engine``): a pandas DataFrame or a file, and the
  in-process engine frames (polars, pyarrow, DuckDB) collected to pandas. The records are
  encoded (``Source.rows``, ``Source.encoded``), a release is materialised from codes and
  shuffled unless ``keep_order``.
- ``SparkEngine`` (``privcheck.engines.spark_engine``): the group-by counts come back to the
  driver, encoded with weights; a release is the plan's mapping joined back onto the rows in
  Spark (``privcheck.engines.mapping``, ``privcheck.engines.release``), re-checked there.

The pipeline (``privcheck.pipeline``) asks an engine for a ``Source``, a planner for a plan on
its encoded table, and the engine for the plan's ``Release``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from privcheck.checker import JudgedClasses
    from privcheck.encoding import EncodedTable
    from privcheck.plan import Plan
    from privcheck.policy import Policy
    from privcheck.report import Report


@dataclass(eq=False)
class Source:
    """The data as an engine holds it for planning.

    ``rows``: in process, the records (a pandas DataFrame, the individual column pseudonymized
    when the policy asks); for an engine, its aggregated counts (one row per distinct
    combination). ``encoded`` their encoding (None when the planner reads rows, not codes).
    ``frame`` the engine's own frame, whose rows never leave it. ``start``: the node the engine
    generalized the rows to before counting them (their class table would not fit otherwise),
    which bounds a full-domain search from below; its input risk is then unknown."""

    rows: pd.DataFrame
    encoded: EncodedTable | None
    frame: Any = None
    start: tuple[int, ...] | None = None
    #: what a report names as the source (a file path), else None
    name: str | None = None

    @property
    def ground(self) -> bool:
        """Whether the counts hold the ground values (the input's classes can be read)."""
        return self.start is None


@dataclass(eq=False)
class Release:
    """A plan written: the released table, its re-check, and what only the release knows."""

    table: Any
    check: Report
    n_released_rows: int
    removed: list[str]
    changed_cells: int | None = None
    #: the release's utility against the input (``policy.utility``), when measured
    utility: dict[str, float] | None = None
    #: the input's classes the risk before is measured on (``engines.input_classes``; None:
    #: not known, the engine generalized the rows before counting them)
    before: JudgedClasses | None = None


class Engine:
    """The interface every engine implements (see the module docstring)."""

    name: str = ""
    #: whether the records are in this process (a planner that needs rows runs here only)
    holds_rows: bool = True
    #: whether a release keeps the input's row order (an engine frame has none to hide)
    ordered: bool = False

    def read(
        self,
        data: Any,
        policy: Policy,
        *,
        encoded: bool = True,
        max_groups: int | None = None,
        generalize: bool = False,
        needs_ground: str | None = None,
    ) -> Source:
        """The data as the planner sees it: ``encoded`` (else only the rows); ``generalize``:
        the planner takes a start node, so counts too large to bring back may be generalized
        first (an engine's choice); else a refusal names ``needs_ground`` (the algorithm)."""
        raise NotImplementedError

    def release(
        self,
        source: Source,
        plan: Plan,
        policy: Policy,
        *,
        seed: int | None = None,
        keep_order: bool = False,
    ) -> Release:
        """Write ``plan``'s release, re-check it (a release that fails is a bug, or refused
        with the plan's reason), and measure what only the release knows."""
        raise NotImplementedError
