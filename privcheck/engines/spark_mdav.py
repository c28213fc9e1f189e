"""Partitioned MDAV on Spark: blocks along the first principal axis, MDAV per block in pandas.

MDAV is sequential and quadratic-ish in the records it sees, so a big table is cut into blocks
of bounded size and microaggregated block by block (``privcheck.masking.mdav_partitioned`` does
this in one process). On Spark:

1. one aggregation job gives the means, variances and covariances of the columns, hence the
   z-scores and the first principal axis of the standardised data (an eigenvector on the driver);
2. every record is projected on that axis and assigned to a range block by approximate
   quantiles of the projection (one ``approxQuantile`` job); the block sizes are counted and
   adjacent blocks with fewer than ``2k`` records are merged into their neighbour on the driver;
3. the records are shuffled so that each block sits in one partition, and ``mapInPandas`` runs
   MDAV on each block — a block that came out larger than ``block_size`` (quantiles are
   approximate) is halved again locally along its own principal axis, so no MDAV run ever sees
   more than ``block_size`` records — replacing each value by its group's mean;
4. the cost is measured: SSE/SST of the whole release (one aggregation job), and, for
   comparison, SSE/SST of whole-file MDAV on a sample of ``sample_size`` records collected to
   the driver (the same sample partitioned into blocks of the same relative size shows what the
   cut alone costs).

Groups never cross blocks, so every record shares its released values with at least ``k − 1``
others of its block.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from privcheck.errors import DataError, PolicyError

BLOCK = "__privcheck_block"
GROUP = "__privcheck_group"
_SCORE = "__privcheck_score"
_SSE = "__privcheck_sse"
#: sub-blocks a range block may be halved into on its executor (ids: block · _SUB + sub)
_SUB = 1 << 16


@dataclass
class SparkMdavResult:
    """The masked frame (lazy) and the cost figures of a partitioned MDAV run on Spark."""

    masked: Any
    k: int
    block_size: int
    n_records: int
    n_blocks: int
    largest_block: int
    sse_sst: float
    sample_size: int
    sample_sse_sst_whole: float
    sample_sse_sst_partitioned: float

    @property
    def cost_ratio(self) -> float:
        """SSE/SST of the partitioned release over whole-file MDAV's on the sample."""
        return self.sse_sst / self.sample_sse_sst_whole if self.sample_sse_sst_whole else 1.0


def _sse_sst(z: np.ndarray, labels: np.ndarray) -> float:
    counts = np.bincount(labels)
    means = np.stack([np.bincount(labels, weights=z[:, j]) for j in range(z.shape[1])], 1)
    means /= counts[:, None]
    sse = float(((z - means[labels]) ** 2).sum())
    sst = float(((z - z.mean(axis=0)) ** 2).sum())
    return sse / sst if sst else 0.0


def _block_udf(columns: list[str], mean: np.ndarray, scale: np.ndarray, k: int, block_size: int):
    """The mapInPandas function: MDAV per block of the partition, values → group means."""

    def run(batches):
        from privcheck.masking.mdav import mdav_groups, partition_blocks

        parts = list(batches)
        if not parts:
            return
        frame = pd.concat(parts, ignore_index=True)
        if frame.empty:
            return
        for block, rows in frame.groupby(BLOCK, sort=False).groups.items():
            whole = frame.loc[rows].reset_index(drop=True)
            z_all = (whole[columns].to_numpy(dtype=np.float64) - mean) / scale
            # a block over the bound (approximate quantiles) is halved again here
            for sub, idx in enumerate(partition_blocks(z_all, block_size)):
                part = whole.iloc[idx].reset_index(drop=True)
                values = part[columns].to_numpy(dtype=np.float64)
                z = z_all[idx]
                labels = mdav_groups(z, k) if len(part) >= 2 * k else np.zeros(len(part), int)
                counts = np.bincount(labels)
                out = part.copy()
                for j, name in enumerate(columns):
                    out[name] = (np.bincount(labels, weights=values[:, j]) / counts)[labels]
                zm = (out[columns].to_numpy(dtype=np.float64) - mean) / scale
                out[_SSE] = ((z - zm) ** 2).sum(axis=1)
                out[BLOCK] = np.int64(block) * _SUB + sub
                out[GROUP] = (np.int64(block) * _SUB + sub) * block_size + labels
                yield out

    return run


def spark_mdav(
    frame: Any,
    columns: Sequence[str],
    k: int,
    block_size: int = 20_000,
    *,
    sample_size: int = 5_000,
    seed: int | None = None,
) -> SparkMdavResult:
    """Microaggregate ``columns`` of a Spark DataFrame with partitioned MDAV (module docstring).

    The masked frame keeps every other column, adds the block (``BLOCK``) and the global group
    id (``GROUP``), and replaces each masked value by its group's mean.
    """
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    columns = list(columns)
    absent = [c for c in columns if c not in frame.columns]
    if absent:
        raise DataError(f"column {absent[0]!r} is not in the frame (columns: {frame.columns})")
    if not columns:
        raise PolicyError("spark_mdav needs at least one numeric column")
    if isinstance(k, bool) or not isinstance(k, int) or k < 2:
        raise PolicyError(f"k must be an integer >= 2; got k={k!r}")
    if block_size < 2 * k:
        raise PolicyError(f"block_size must be at least 2k = {2 * k}; got {block_size}")
    data = frame.select(
        *(F.col(c) for c in frame.columns if c not in columns),
        *(F.col(c).cast("double").alias(c) for c in columns),
    )
    # 1. moments in one job: Σx, Σx·y and the number of records (nulls refused)
    p = len(columns)
    aggs = [F.count(F.lit(1)).alias("n")]
    aggs += [F.count(F.col(c)).alias(f"c{i}") for i, c in enumerate(columns)]
    aggs += [F.sum(F.col(c)).alias(f"s{i}") for i, c in enumerate(columns)]
    aggs += [
        F.sum(F.col(a) * F.col(b)).alias(f"p{i}_{j}")
        for i, a in enumerate(columns)
        for j, b in enumerate(columns)
        if j >= i
    ]
    row = data.agg(*aggs).collect()[0].asDict()
    n = int(row["n"])
    for i, c in enumerate(columns):
        if row[f"c{i}"] != n:
            raise DataError(f"column {c!r} has missing values; MDAV needs finite numbers")
    if k > n:
        raise PolicyError(f"k must be between 2 and the number of records ({n}); got k={k}")
    mean = np.array([row[f"s{i}"] / n for i in range(p)])
    cov = np.empty((p, p))
    for i in range(p):
        for j in range(i, p):
            cov[i, j] = cov[j, i] = row[f"p{i}_{j}"] / n - mean[i] * mean[j]
    sd = np.sqrt(np.clip(np.diag(cov), 0, None))
    scale = np.where(sd > 0, sd, 1.0)
    corr = cov / np.outer(scale, scale)
    _, vecs = np.linalg.eigh(corr)
    axis = vecs[:, -1]
    axis = axis if axis[np.argmax(np.abs(axis))] >= 0 else -axis
    # 2. range blocks on the projection
    score = sum(
        float(a / s) * (F.col(c) - float(m))
        for a, s, c, m in zip(axis, scale, columns, mean, strict=True)
    )
    scored = data.withColumn(_SCORE, score)
    n_blocks = max(1, int(np.ceil(n / block_size)))
    cuts = sorted(
        set(scored.approxQuantile(_SCORE, [i / n_blocks for i in range(1, n_blocks)], 1e-4))
    )
    block = F.lit(0)
    for i, cut in enumerate(cuts):
        block = F.when(F.col(_SCORE) > cut, F.lit(i + 1)).otherwise(block)
    blocked = scored.withColumn(BLOCK, block)
    sizes = dict(blocked.groupBy(BLOCK).count().collect())
    # merge blocks smaller than 2k into their left neighbour (or right, for the first)
    merged, current, acc = {}, None, 0
    for b in sorted(sizes):
        if current is None or acc >= 2 * k:
            current, acc = b, 0
        merged[b] = current
        acc += sizes[b]
    firsts = sorted(set(merged.values()))
    if len(firsts) > 1 and sum(sizes[b] for b in merged if merged[b] == firsts[-1]) < 2 * k:
        for b in merged:
            if merged[b] == firsts[-1]:
                merged[b] = firsts[-2]
    remap = F.create_map(*(F.lit(x) for kv in merged.items() for x in kv))
    blocked = blocked.withColumn(BLOCK, remap[F.col(BLOCK)]).drop(_SCORE)
    block_sizes: dict[int, int] = {}
    for b, target in merged.items():
        block_sizes[target] = block_sizes.get(target, 0) + sizes[b]
    # 3. MDAV per block with mapInPandas (each block in one partition)
    fields = [f for f in blocked.schema.fields if f.name != BLOCK]
    schema = T.StructType(
        [
            *fields,
            T.StructField(BLOCK, T.LongType()),
            T.StructField(_SSE, T.DoubleType()),
            T.StructField(GROUP, T.LongType()),
        ]
    )
    parts = blocked.repartition(max(1, len(block_sizes)), F.col(BLOCK))
    masked = parts.mapInPandas(_block_udf(columns, mean, scale, k, block_size), schema)
    # kept: the release, its cost and the caller's use must be the same grouping
    masked = masked.persist()
    # 4. cost: SSE/SST of the release, and of whole-file MDAV on a sample
    sse = masked.agg(F.sum(_SSE)).collect()[0][0] or 0.0
    sst = float(n * np.count_nonzero(sd > 0))
    frac = min(1.0, sample_size / n)
    sample = data.select(*columns).sample(fraction=frac, seed=seed).toPandas()
    from privcheck.masking._table import standardize
    from privcheck.masking.mdav import mdav_groups, mdav_partitioned_groups

    zs = standardize(sample.to_numpy(dtype=np.float64))
    whole = _sse_sst(zs, mdav_groups(zs, k)) if len(zs) >= k else float("nan")
    relative = max(2 * k, round(block_size * len(zs) / n))
    split = _sse_sst(zs, mdav_partitioned_groups(zs, k, relative)) if len(zs) >= k else float("nan")
    return SparkMdavResult(
        masked=masked.drop(_SSE),
        k=k,
        block_size=block_size,
        n_records=n,
        n_blocks=len(block_sizes),
        largest_block=max(block_sizes.values()),
        sse_sst=float(sse) / sst if sst else 0.0,
        sample_size=len(zs),
        sample_sse_sst_whole=whole,
        sample_sse_sst_partitioned=split,
    )
