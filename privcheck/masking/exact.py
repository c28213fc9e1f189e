"""Exact arithmetic on integer columns for the masking methods.

Integers beyond 2^53 (IDs, nanosecond timestamps, amounts in cents) do not survive a trip through
float64: a group mean of values near 2^60 computed in floats is off by hundreds, and one that
rounds up to 2^63 turns into −9223372036854775808 when cast back. So the means of an integer
column are computed here from exact integer sums, vectorised over the groups:

* each value is split into its high and low 32-bit halves (``x = hi·2^32 + lo``, ``lo`` in
  [0, 2^32)); each half is summed per group with ``np.add.reduceat`` in int64, which cannot
  overflow for groups of fewer than 2^30 records;
* the exact mean ``(H·2^32 + L) / m`` is then divided out as ``q + r/m`` (``q`` = floor, ``0 ≤ r
  < m``) by long division in two int64 steps.

From ``q + r/m`` come the two released forms: the integer release (round half to even of the
exact mean: never outside the group's range, so never an overflow) and the float64 mean, correctly
rounded from the exact rational (exact whenever the mean is representable), both without Python
loops over groups.
"""

from __future__ import annotations

import numpy as np

from privcheck.errors import DataError

_LOW = np.int64(0xFFFFFFFF)
_MAX_GROUP = 1 << 30


def as_int64(values: np.ndarray, column: object) -> np.ndarray:
    """An integer column as int64, or a DataError naming it (uint64 values beyond 2^63 − 1)."""
    arr = np.asarray(values)
    if arr.dtype.kind == "u":
        if arr.size and arr.max() > np.iinfo(np.int64).max:
            raise DataError(
                f"column {column!r} has integers above 9223372036854775807, which the masking "
                "methods cannot compute with exactly; shift or rescale the column first"
            )
        return arr.astype(np.int64)
    return arr.astype(np.int64, copy=False)


def group_floor_means(
    x: np.ndarray, inv: np.ndarray, sizes: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Exact group means of int64 ``x`` as ``(q, r)``: mean = q + r/size, q floor, 0 ≤ r < size.

    ``inv`` is each row's group (0 … G−1, every group non-empty) and ``sizes`` the group sizes.
    """
    if sizes.size and sizes.max() >= _MAX_GROUP:  # pragma: no cover - 2^30 records in a group
        raise DataError("a group of 2^30 records or more is too large to average exactly")
    order = np.argsort(inv, kind="stable")
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.intp)
    xs = x[order]
    high = np.add.reduceat(xs >> 32, starts)  # |Σ hi| ≤ m·2^31
    low = np.add.reduceat(xs & _LOW, starts)  # 0 ≤ Σ lo < m·2^32
    m = sizes.astype(np.int64)
    qh, rh = np.divmod(high, m)  # floor division: 0 ≤ rh < m
    q2, r = np.divmod(rh * (1 << 32) + low, m)  # rh·2^32 + low < m·2^33 < 2^63
    with np.errstate(over="ignore"):
        q = qh * np.int64(1 << 32) + q2  # wraps in between, but the floor of a mean fits
    return q, r


def round_half_even(q: np.ndarray, r: np.ndarray, m: np.ndarray) -> np.ndarray:
    """The integer nearest q + r/m (ties to even); within the values averaged, so no overflow."""
    twice = 2 * r
    up = (twice > m) | ((twice == m) & (q % 2 == 1))
    return q + up.astype(np.int64)


def _bit_length(v: np.ndarray) -> np.ndarray:
    """Bit length of each uint64 (0 for 0), by binary search on shifts (6 vectorised steps)."""
    length = np.zeros(v.shape, dtype=np.int64)
    rest = v.copy()
    for b in (32, 16, 8, 4, 2, 1):
        big = (rest >> np.uint64(b)) != 0
        length += np.where(big, b, 0)
        rest = np.where(big, rest >> np.uint64(b), rest)
    return length + (rest != 0)


def to_float(q: np.ndarray, r: np.ndarray, m: np.ndarray) -> np.ndarray:
    """float64 nearest to the rational q + r/m (ties to even): correctly rounded, exact if it can.

    Works on the magnitude ``a + b/m`` (a ≥ 0 as uint64) with N = the 53 leading bits of it and
    the remainder deciding the rounding, all in integers: long division by m in chunks small
    enough for int64 when the mean is below 2^53, a shift with a sticky remainder above.
    """
    q = np.asarray(q, dtype=np.int64)
    r = np.asarray(r, dtype=np.int64)
    m = np.broadcast_to(np.asarray(m, dtype=np.int64), q.shape)
    neg = q < 0
    # −(q + r/m) = (−q − 1) + (m − r)/m when r > 0
    a = np.where(neg, (~q).astype(np.uint64) + (r == 0).astype(np.uint64), q.astype(np.uint64))
    b = np.where(neg & (r > 0), m - r, r)
    length = _bit_length(a)
    out = np.empty(q.shape, dtype=np.float64)

    zero = length == 0  # the magnitude is below 1: one IEEE division is correctly rounded
    out[zero] = b[zero] / m[zero]

    small = (length > 0) & (length <= 53)  # N = floor(v · 2^s), s = 53 − length
    if small.any():
        s = 53 - length[small]
        mm = m[small]
        acc = np.zeros(s.shape, dtype=np.int64)
        rem = b[small].copy()
        chunk = max(1, 62 - int(mm.max()).bit_length())
        left = s.copy()
        while left.any():
            step = np.minimum(left, chunk)
            num = rem << step
            acc = (acc << step) + num // mm
            rem = num % mm
            left -= step
        n = (a[small].astype(np.int64) << s) + acc
        n += (2 * rem > mm) | ((2 * rem == mm) & (n % 2 == 1))
        out[small] = np.ldexp(n.astype(np.float64), -s)

    large = length > 53  # N = a >> t, rounding from the t low bits plus b/m
    if large.any():
        t = length[large] - 53
        al = a[large]
        n = (al >> t.astype(np.uint64)).astype(np.int64)
        low = (al & ((np.uint64(1) << t.astype(np.uint64)) - np.uint64(1))).astype(np.int64)
        mm = m[large]
        twice = 2 * (low * mm + b[large])  # low < 2^11: no overflow for groups below 2^50
        half = mm << t
        n += (twice > half) | ((twice == half) & (n % 2 == 1))
        out[large] = np.ldexp(n.astype(np.float64), t)
    return np.where(neg, -out, out)


def even_offset(x: np.ndarray) -> int:
    """An even integer near the middle of int64 ``x``, for computing in floats relative to it.

    Values near 2^60 that differ by less than 256 are all the same float64; ``x − offset`` is
    exact in int64 and small, so the float methods (distances, z-scores, information loss) see
    the differences. 0 when every value is exact in float64 (|x| ≤ 2^53: ordinary data is
    computed with as it is) or when the column spans more than 2^62 (not collapsed in floats
    anyway, and the shift could wrap).
    """
    if not len(x):
        return 0
    lo, hi = int(x.min()), int(x.max())
    if max(-lo, hi) <= 2**53 or hi - lo > 2**62:
        return 0
    return (lo + (hi - lo) // 2) & ~1


def shifted_floats(x: np.ndarray, offset: int) -> np.ndarray:
    """float64 of ``x − offset``, subtracted in exact integers before the conversion."""
    x = np.asarray(x, dtype=np.int64)
    if offset == 0:
        return x.astype(np.float64)
    info = np.iinfo(np.int64)
    if (offset > 0 and x.min() < info.min + offset) or (offset < 0 and x.max() > info.max + offset):
        return x.astype(np.float64) - float(offset)  # pragma: no cover - far outside the range
    return (x - np.int64(offset)).astype(np.float64)


def group_means(
    x: np.ndarray, labels: np.ndarray, how: str, offset: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-row group mean (or median) of int64 ``x``: (integer release, float64 value, float64
    value minus ``offset``), all from the one exact rational.

    The integer release is the exact mean (median) rounded half to even; the floats are the
    exact values correctly rounded. The median of an even-sized group is the mean of its two
    middle values, computed as ``lo + (hi − lo)/2`` with the difference in uint64 (no overflow).
    ``offset`` is the column's `even_offset` (with 0 the third value is the second).
    """
    _, inv = np.unique(labels, return_inverse=True)
    inv = inv.reshape(-1)
    sizes = np.bincount(inv)
    if how == "mean":
        q, r = group_floor_means(x, inv, sizes)
        m = sizes.astype(np.int64)
    else:
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        lo_pos, hi_pos = starts + (sizes - 1) // 2, starts + sizes // 2
        sorted_x = x[np.lexsort((x, inv))]
        lo, hi = sorted_x[lo_pos], sorted_x[hi_pos]
        diff = hi.astype(np.uint64) - lo.astype(np.uint64)  # exact in [0, 2^64)
        with np.errstate(over="ignore"):
            q = lo + (diff >> np.uint64(1)).astype(np.int64)
        r = (diff & np.uint64(1)).astype(np.int64)
        m = np.full(q.shape, 2, dtype=np.int64)
    absolute = to_float(q, r, m)[inv]
    # the floor of a mean minus a mid-range offset fits in int64
    centred = absolute if offset == 0 else to_float(q - np.int64(offset), r, m)[inv]
    return round_half_even(q, r, m)[inv], absolute, centred


def float_to_int(values: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """float64 → int64 rounded half to even and kept within [lo, hi] (never a wrapped value)."""
    rounded = np.rint(values)
    out = np.empty(rounded.shape, dtype=np.int64)
    above, below = rounded >= 2.0**63, rounded < -(2.0**63)
    inside = ~(above | below)
    out[inside] = rounded[inside].astype(np.int64)
    out[above], out[below] = hi, lo
    return np.clip(out, lo, hi)


def add_int(x: np.ndarray, step: np.ndarray, column: object) -> np.ndarray:
    """x + step in int64, or a DataError naming the column if a sum leaves the int64 range."""
    info = np.iinfo(np.int64)
    over = ((step > 0) & (x > info.max - step)) | ((step < 0) & (x < info.min - step))
    if over.any():
        raise DataError(
            f"column {column!r}: the noise pushes a value beyond the 64-bit integer range, so it "
            "cannot be released as an exact integer; rescale the column or lower a"
        )
    return x + step
