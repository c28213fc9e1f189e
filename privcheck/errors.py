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
