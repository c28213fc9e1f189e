"""The two kinds of bad input privcheck reports.

Every input problem surfaces as one of these, with a message that names the column, value or
parameter and says how to fix it. The CLI turns them into one line on stderr and exit code 2;
anything else escaping is a bug.
"""


class PrivcheckError(Exception):
    """Base class of the errors a user can fix (exit code 2)."""


class PolicyError(PrivcheckError):
    """The policy (or a parameter) is malformed or impossible."""


class DataError(PrivcheckError):
    """The data does not fit the policy: missing column, missing value, value not in hierarchy."""


def listing(items, limit: int = 10, *, fmt=str, sep: str = ", ", total: int | None = None) -> str:
    """``items`` for a message: all of them when there are at most ``limit``, else the first
    ``limit`` and how many more ("a, b, c and 13 more") — a reader must never take a cut list
    for the whole one.

    ``fmt`` spells each item (``repr`` to quote names); ``items`` may be any iterable (a numpy
    array's values are spelled as Python scalars). ``total`` is the length of the whole list
    when ``items`` is only its beginning (a report keeps the first row numbers of a class)."""
    values = list(items.tolist() if hasattr(items, "tolist") else items)
    limit = max(limit, 1)
    shown = sep.join(fmt(v) for v in values[:limit])
    more = (len(values) if total is None else max(total, len(values))) - min(limit, len(values))
    return f"{shown} and {more:,} more" if more > 0 and shown else shown
