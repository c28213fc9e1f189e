"""What every masking method returns.

Under the transparency principle (Kerckhoffs' assumption, as in Domingo-Ferrer & Torra's
treatment of disclosure risk) a release is published with its method and parameters, and only the
randomness stays secret. So ``params`` holds everything an attacker may be told — k, p, m1/m2,
the attribute groups, the aggregate — and never the random seed: with the seed, anyone could
replay the masking and undo it. The risk module attacks a release knowing exactly ``params``.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from privcheck.metrics.information_loss import InformationLoss


@dataclass(frozen=True)
class MaskingResult:
    """A masked release with the method, its public parameters and its information loss.

    ``masked`` has the type of the input (DataFrame or ndarray), rows in the input order, only the
    masked columns changed. ``groups`` holds one label array per attribute group for
    microaggregation (records sharing a label share their released values), the drawn centre per
    record for fuzzy microaggregation, and nothing for swapping and noise.
    """

    method: str
    params: dict[str, Any]
    masked: pd.DataFrame | np.ndarray
    information_loss: InformationLoss
    groups: tuple[np.ndarray, ...] = field(default=())
    #: the released values of each integer column (by column), as exact int64: a swap's
    #: permutation, a group mean rounded half to even, the value plus the noise rounded to an
    #: integer. ``masked`` holds the method's real-valued output (a mean as a float).
    integers: dict[Hashable, np.ndarray] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """JSON-ready description for a report: method, public parameters, information loss."""
        return {
            "method": self.method,
            "params": self.params,
            "information_loss": self.information_loss.model_dump(),
        }
