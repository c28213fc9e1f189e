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


def test_spark_mdav_releases_integers_beyond_2_53_exactly_as_pandas_mdav(spark):
    """IDs near 2^60 (float64 spacing 256), amounts spanning ±2^62 and a float column, in one
    block: Spark groups the records as pandas MDAV does and releases every integer column as the
    same exact int64 — the group mean rounded half to even (oracle: Python Fractions)."""
    from fractions import Fraction

    from privcheck.masking import mdav

    rng = np.random.default_rng(11)
    n, k = 90, 3
    data = pd.DataFrame(
        {
            "id": 2**60 + 3 * rng.choice(10**6, n, replace=False).astype(np.int64),
            "cents": rng.integers(-(2**62), 2**62, n, dtype=np.int64),
            "x": rng.normal(size=n),
            "row": np.arange(n),
        }
    )
    columns = ["id", "cents", "x"]
    result = spark_mdav(spark.createDataFrame(data), columns, k, block_size=4 * n)
    out = result.masked.toPandas().sort_values("row").reset_index(drop=True)
    assert result.n_blocks == 1
    local = mdav(data[columns], k)
    for c in ("id", "cents"):
        assert out[c].dtype == np.int64
        assert out[c].tolist() == local.integers[c].tolist()
        members: dict[int, list[int]] = {}
        for v, g in zip(data[c].tolist(), out[GROUP].tolist(), strict=True):
            members.setdefault(g, []).append(v)
        want = [round(Fraction(sum(members[g]), len(members[g]))) for g in out[GROUP].tolist()]
        assert out[c].tolist() == want
    np.testing.assert_allclose(out["x"], local.masked["x"], rtol=1e-12, atol=1e-12)
    # the reported cost is the release's, measured as pandas measures it
    assert np.isclose(100 * result.sse_sst, local.information_loss.sse_sst)  # (pandas: in %)
