"""Numeric masking: microaggregation (MDAV, optimal univariate, fuzzy), rank swapping, noise.

Each public function takes a DataFrame (or a 2-D numpy array) and returns a `MaskingResult`:
the masked data in the input's row order, the method, its public parameters and the
information-loss figures. See docs/microaggregation.md.
"""

from privcheck.masking.fuzzy import fuzzy_microaggregation
from privcheck.masking.mdav import (
    aggregate_groups,
    mdav,
    mdav_groups,
    mdav_partitioned,
    mdav_partitioned_groups,
    partition_blocks,
)
from privcheck.masking.noise import add_noise
from privcheck.masking.rank_swapping import rank_swap
from privcheck.masking.result import MaskingResult
from privcheck.masking.univariate import optimal_univariate, optimal_univariate_groups

__all__ = [
    "MaskingResult",
    "add_noise",
    "aggregate_groups",
    "fuzzy_microaggregation",
    "mdav",
    "mdav_groups",
    "mdav_partitioned",
    "mdav_partitioned_groups",
    "optimal_univariate",
    "optimal_univariate_groups",
    "partition_blocks",
    "rank_swap",
]
