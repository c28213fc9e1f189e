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
   more than ``block_size`` records — replacing each value by its group's mean (an integer
   column's: the exact mean rounded half to even, in 64-bit integers, as
   ``privcheck.masking.mdav`` releases it; the z-scores, moments and projections read an integer
   column shifted by its ``even_offset`` in integers first, so values beyond 2^53 keep their
   differences);
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
from privcheck.masking.exact import even_offset, group_means, shifted_floats
from privcheck.messages import shown_columns

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


def _shifted(frame: pd.DataFrame, columns: list[str], offsets: list[int | None]) -> np.ndarray:
    """The columns as float64, each integer column minus its offset in exact int64 first."""
    out = np.empty((len(frame), len(columns)))
    for j, (name, offset) in enumerate(zip(columns, offsets, strict=True)):
        if offset is None:
            out[:, j] = frame[name].to_numpy(dtype=np.float64)
        else:
            out[:, j] = shifted_floats(frame[name].to_numpy(dtype=np.int64), offset)
    return out


def _block_udf(
    columns: list[str],
    offsets: list[int | None],
    mean: np.ndarray,
    scale: np.ndarray,
    k: int,
    block_size: int,
):
    """The mapInPandas function: MDAV per block of the partition, values → group means (an
    integer column's: the exact mean rounded half to even, as ``privcheck.masking.mdav``)."""

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
            z_all = (_shifted(whole, columns, offsets) - mean) / scale
            # a block over the bound (approximate quantiles) is halved again here
            for sub, idx in enumerate(partition_blocks(z_all, block_size)):
                part = whole.iloc[idx].reset_index(drop=True)
                values = _shifted(part, columns, offsets)
                z = z_all[idx]
                labels = mdav_groups(z, k) if len(part) >= 2 * k else np.zeros(len(part), int)
                counts = np.bincount(labels)
                out = part.copy()
                centred = np.empty_like(values)
                for j, name in enumerate(columns):
                    if offsets[j] is None:
                        centred[:, j] = (np.bincount(labels, weights=values[:, j]) / counts)[labels]
                        out[name] = centred[:, j]
                    else:  # exact integer sums, no float64 detour (values beyond 2^53)
                        ints = part[name].to_numpy(dtype=np.int64)
                        out[name], _, centred[:, j] = group_means(ints, labels, "mean", offsets[j])
                zm = (centred - mean) / scale
                out[_SSE] = ((z - zm) ** 2).sum(axis=1)
                out[BLOCK] = np.int64(block) * _SUB + sub
                out[GROUP] = (np.int64(block) * _SUB + sub) * block_size + labels
                yield out

    return run


def _offsets(data: Any, columns: list[str], integral: list[bool]) -> list[int | None]:
    """Per column, the even integer an integer column is shifted by before any float (None for
    a float column): ``privcheck.masking.exact.even_offset`` of its exact min and max (one
    aggregation job, only when there are integer columns)."""
    from pyspark.sql import functions as F

    ints = [c for c, whole in zip(columns, integral, strict=True) if whole]
    if not ints:
        return [None] * len(columns)
    aggs = [F.min(F.col(c)).alias(f"min{i}") for i, c in enumerate(ints)]
    aggs += [F.max(F.col(c)).alias(f"max{i}") for i, c in enumerate(ints)]
    row = data.agg(*aggs).collect()[0].asDict()
    found = {}
    for i, c in enumerate(ints):
        lo, hi = row[f"min{i}"], row[f"max{i}"]
        found[c] = 0 if lo is None else even_offset(np.array([lo, hi], dtype=np.int64))
    return [found.get(c) for c in columns]


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
        raise DataError(
            f"column {absent[0]!r} is not in the frame (columns: {shown_columns(frame.columns)})"
        )
    if not columns:
        raise PolicyError("spark_mdav needs at least one numeric column")
    if isinstance(k, bool) or not isinstance(k, int) or k < 2:
        raise PolicyError(f"k must be an integer >= 2; got k={k!r}")
    if block_size < 2 * k:
        raise PolicyError(f"block_size must be at least 2k = {2 * k}; got {block_size}")
    # integer columns stay 64-bit integers (released exactly); the others become doubles
    integral = [isinstance(frame.schema[c].dataType, T.IntegralType) for c in columns]
    data = frame.select(
        *(F.col(c) for c in frame.columns if c not in columns),
        *(
            F.col(c).cast("long" if whole else "double").alias(c)
            for c, whole in zip(columns, integral, strict=True)
        ),
    )
    offsets = _offsets(data, columns, integral)
    # the columns as doubles; an integer one minus its offset in exact 64-bit arithmetic first,
    # so that values near 2^60 (float64 spacing 256) keep their differences
    x = {
        c: (F.col(c) - F.lit(o)).cast("double") if o is not None else F.col(c)
        for c, o in zip(columns, offsets, strict=True)
    }
    # 1. moments in one job: Σx, Σx·y and the number of records (nulls refused)
    p = len(columns)
    aggs = [F.count(F.lit(1)).alias("n")]
    aggs += [F.count(F.col(c)).alias(f"c{i}") for i, c in enumerate(columns)]
    aggs += [F.sum(x[c]).alias(f"s{i}") for i, c in enumerate(columns)]
    aggs += [
        F.sum(x[a] * x[b]).alias(f"p{i}_{j}")
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
        float(a / s) * (x[c] - float(m))
        for a, s, c, m in zip(axis, scale, columns, mean, strict=True)
    )
    scored = data.withColumn(_SCORE, score)
    n_blocks = max(1, int(np.ceil(n / block_size)))
    # (one block needs no quantile: Spark's approxQuantile fails on an empty list)
    probabilities = [i / n_blocks for i in range(1, n_blocks)]
    cuts = sorted(set(scored.approxQuantile(_SCORE, probabilities, 1e-4))) if probabilities else []
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
    masked = parts.mapInPandas(_block_udf(columns, offsets, mean, scale, k, block_size), schema)
    # kept: the release, its cost and the caller's use must be the same grouping
    masked = masked.persist()
    # 4. cost: SSE/SST of the release, and of whole-file MDAV on a sample
    sse = masked.agg(F.sum(_SSE)).collect()[0][0] or 0.0
    sst = float(n * np.count_nonzero(sd > 0))
    frac = min(1.0, sample_size / n)
    sample = data.select(*(x[c].alias(c) for c in columns)).sample(fraction=frac, seed=seed)
    from privcheck.masking._table import standardize
    from privcheck.masking.mdav import mdav_groups, mdav_partitioned_groups

    zs = standardize(sample.toPandas().to_numpy(dtype=np.float64))
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
