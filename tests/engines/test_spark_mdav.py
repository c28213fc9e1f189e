"""Partitioned MDAV on Spark: blocks within the bound, groups of at least k inside one block,
released values are the group means, and SSE/SST close to whole-file MDAV (computed here on
the same records in one process, the oracle)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privcheck.engines.spark_mdav import BLOCK, GROUP, _sse_sst, spark_mdav
from privcheck.masking._table import standardize
from privcheck.masking.mdav import mdav_groups


def test_spark_mdav_blocks_groups_and_cost(spark):
    rng = np.random.default_rng(3)
    n = 2400
    base = rng.normal(size=(n, 1))
    data = pd.DataFrame(
        {
            "a": base[:, 0] * 3 + rng.normal(size=n),
            "b": base[:, 0] + rng.normal(size=n) * 0.5,
            "c": rng.exponential(size=n),
            "id": np.arange(n),
        }
    )
    k, block_size = 5, 400
    result = spark_mdav(spark.createDataFrame(data), ["a", "b", "c"], k, block_size)
    out = result.masked.toPandas().sort_values("id").reset_index(drop=True)
    assert len(out) == n and (out["id"].to_numpy() == np.arange(n)).all()  # no record lost
    block_sizes = out.groupby(BLOCK).size()
    assert block_sizes.max() <= block_size and result.n_blocks >= n // block_size
    groups = out.groupby(GROUP)
    assert groups.size().min() >= k
    assert (groups[BLOCK].nunique() == 1).all()  # a group never crosses blocks
    for col in ("a", "b", "c"):  # released value = mean of the group's original values
        means = data[col].groupby(out[GROUP]).transform("mean")
        assert np.allclose(out[col], means)
    z = standardize(data[["a", "b", "c"]].to_numpy())
    whole = _sse_sst(z, mdav_groups(z, k))
    labels = pd.factorize(out[GROUP])[0]
    assert np.isclose(result.sse_sst, _sse_sst(z, labels))  # the reported cost is the release's
    assert whole <= result.sse_sst <= 1.5 * whole
    assert result.sample_size > 0 and result.sample_sse_sst_whole > 0
