"""Independent oracles for the privacy models: plain Python over rows, no privcheck inside.

Rows are grouped with a dict keyed by their (generalized) quasi-identifier strings; hierarchies
are read from ARX rows (ground value; level 1; …) into dicts; every statistic is then computed per
class from the class's list of sensitive values. Wherever the model allows it the arithmetic is
exact (Python integers and fractions), so the oracle also decides the cases that sit exactly on a
threshold — a class uniform over l values is entropy-l-diverse, a class at EMD = t is t-close.

The hierarchical EMD has two independent oracles: Li, Li & Venkatasubramanian's closed form
evaluated on an explicit tree (``emd_hierarchical``) and the transport linear programme solved by
scipy (``emd_lp``), which needs no formula at all.
"""

from __future__ import annotations

import csv
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

MISSING = "<missing>"


# --------------------------------------------------------------------------- data and hierarchies


def read_rows(path: Path, sep: str = ";") -> list[dict[str, str]]:
    """A CSV file as a list of row dicts (strings as written)."""
    with path.open(newline="", encoding="utf-8-sig") as fh:
        return list(csv.DictReader(fh, delimiter=sep))


def read_hierarchy(path: Path, sep: str = ";") -> list[list[str]]:
    """An ARX hierarchy file: one row per ground value, column i = the value at level i."""
    with path.open(newline="", encoding="utf-8-sig") as fh:
        return [row for row in csv.reader(fh, delimiter=sep) if row]


@dataclass
class Tree:
    """A value hierarchy as explicit parent links between (level, label) nodes.

    ``levels[g]`` is the path of ground value ``g`` from level 0 to the top; a single root is
    added above the top level when the top level has several values, so every pair of leaves
    has a lowest common ancestor.
    """

    levels: dict[str, tuple[str, ...]]

    @classmethod
    def from_rows(cls, rows: Sequence[Sequence[str]]) -> Tree:
        tops = {row[-1] for row in rows}
        extra = ("<root>",) if len(tops) > 1 else ()
        return cls({row[0]: (*row, *extra) for row in rows})

    @property
    def height(self) -> int:
        return len(next(iter(self.levels.values()))) - 1

    def lca_height(self, a: str, b: str) -> int:
        """Height of the lowest common ancestor of two leaves (0 when a == b)."""
        pa, pb = self.levels[a], self.levels[b]
        return next(i for i in range(len(pa)) if pa[i] == pb[i])

    def label(self, value: str, level: int) -> str:
        return self.levels[value][level]


def generalize(value: str, rows_by_ground: dict[str, list[str]] | None, level: int) -> str:
    """The level-``level`` label of ``value``; a missing value stays its own class at every
    level except a single top ('*'), where everything meets."""
    if rows_by_ground is None or level == 0:
        return value
    if value == MISSING:
        tops = {r[-1] for r in rows_by_ground.values()}
        top_level = len(next(iter(rows_by_ground.values()))) - 1
        return tops.pop() if level == top_level and len(tops) == 1 else value
    return rows_by_ground[value][level]


def group_rows(
    rows: Iterable[dict[str, str | None]],
    qis: Sequence[str],
    sensitive: str | None,
    node: Sequence[int] | None = None,
    hierarchies: dict[str, list[list[str]]] | None = None,
) -> dict[tuple[str, ...], list[str]]:
    """Equivalence classes: generalized QI tuple → the sensitive values of its rows.

    A missing value (None or blank) becomes the label ``<missing>`` (policy ``missing:
    own_class``).
    """
    node = node or [0] * len(qis)
    lookup = {
        q: ({r[0]: r for r in hierarchies[q]} if hierarchies and q in hierarchies else None)
        for q in qis
    }
    classes: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for row in rows:
        key = tuple(
            generalize(_clean(row[q]), lookup[q], level) for q, level in zip(qis, node, strict=True)
        )
        classes[key].append(_clean(row[sensitive]) if sensitive else "")
    return dict(classes)


def _clean(v: object) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return MISSING
    s = str(v)
    return MISSING if not s.strip() else s


# --------------------------------------------------------------------------- per-class statistics


def decimal(x: float) -> Fraction:
    """A parameter as the user wrote it: 0.14 means 14/100, not the double nearest to it."""
    return Fraction(repr(float(x)))


def distinct(values: list[str]) -> int:
    return len(set(values))


def exp_entropy(values: list[str]) -> float:
    """exp of the Shannon entropy (natural log) of the class's sensitive values."""
    n = len(values)
    return math.exp(-sum(f / n * math.log(f / n) for f in Counter(values).values()))


def entropy_ok(values: list[str], l: int) -> bool:  # noqa: E741
    """ARX's exact test Σ f·ln f ≤ n·(ln n − ln l), as the integer inequality l^n·Π f^f ≤ n^n."""
    n = len(values)
    prod = 1
    for f in Counter(values).values():
        prod *= f**f
    return l**n * prod <= n**n


def recursive(values: list[str], l: int, c: float) -> tuple[float, bool]:  # noqa: E741
    """(r1 / (r_l + … + r_m), r1 < c·(r_l + … + r_m)) with counts sorted descending."""
    r = sorted(Counter(values).values(), reverse=True)
    tail = sum(r[l - 1 :])
    ratio = r[0] / tail if tail else math.inf
    return ratio, Fraction(r[0]) < decimal(c) * tail


def _extras(values: list[str], table: Counter, domain: Sequence[str]) -> tuple[list[int], int]:
    """Integer 'extra' of each domain value, scaled by n·N: f_v·N − Q_v·n."""
    n, total = len(values), sum(table.values())
    f = Counter(values)
    return [f[v] * total - table[v] * n for v in domain], n * total


def emd_equal(values: list[str], table: Counter) -> Fraction:
    """½·Σ|p − q| over the table's values."""
    extra, scale = _extras(values, table, sorted(table))
    return Fraction(sum(abs(e) for e in extra), 2 * scale)


def emd_ordered(values: list[str], table: Counter, order: Sequence[str]) -> Fraction:
    """1/(m−1)·Σ_i |Σ_{j≤i} (p_j − q_j)| over the m values observed in the table, in order."""
    observed = [v for v in order if table[v] > 0]
    m = len(observed)
    if m <= 1:
        return Fraction(0)
    extra, scale = _extras(values, table, observed)
    cum, total = 0, 0
    for e in extra:
        cum += e
        total += abs(cum)
    return Fraction(total, scale * (m - 1))


def emd_hierarchical(values: list[str], table: Counter, tree: Tree) -> Fraction:
    """Li et al.'s closed form: Σ over internal nodes N of height(N)/H · min(pos, neg) extra."""
    domain = list(tree.levels)
    extra, scale = _extras(values, table, domain)
    node_extra: dict[tuple[int, str], int] = {(0, v): e for v, e in zip(domain, extra, strict=True)}
    cost = 0
    for level in range(1, tree.height + 1):
        children: dict[str, list[int]] = defaultdict(list)
        for v in domain:
            children[tree.label(v, level)].append((level - 1, tree.label(v, level - 1)))
        for label, kids in children.items():
            kid_extra = [node_extra[k] for k in set(kids)]
            pos = sum(e for e in kid_extra if e > 0)
            neg = -sum(e for e in kid_extra if e < 0)
            cost += level * min(pos, neg)
            node_extra[(level, label)] = sum(kid_extra)
    return Fraction(cost, scale * tree.height) if tree.height else Fraction(0)


def emd_lp(p: np.ndarray, q: np.ndarray, distance: np.ndarray) -> float:
    """Earth mover's distance as the transport linear programme (scipy HiGHS).

    minimise Σ d_ij·x_ij subject to Σ_j x_ij = p_i, Σ_i x_ij = q_j, x ≥ 0.
    """
    from scipy.optimize import linprog

    m = len(p)
    rows = np.kron(np.eye(m), np.ones(m))  # Σ_j x_ij
    cols = np.kron(np.ones(m), np.eye(m))  # Σ_i x_ij
    res = linprog(
        distance.ravel(),
        A_eq=np.vstack([rows, cols]),
        b_eq=np.concatenate([p, q]),
        bounds=(0, None),
        method="highs",
    )
    assert res.status == 0, res.message
    return float(res.fun)


def hierarchical_distance(tree: Tree, domain: Sequence[str]) -> np.ndarray:
    """Ground distance matrix: height of the lowest common ancestor / H."""
    return np.array(
        [[tree.lca_height(a, b) / tree.height for b in domain] for a in domain], dtype=float
    )


def ordered_distance(m: int) -> np.ndarray:
    i = np.arange(m)
    return np.abs(i[:, None] - i[None, :]) / max(m - 1, 1)


# --------------------------------------------------------------------------- a whole model


def _natural_key(v: str) -> tuple:
    """Digit runs compare as numbers ('3K' < '11K'), as a user reading the values would."""
    parts = [p for p in re.split(r"(\d+(?:\.\d+)?)", v) if p]
    return tuple(
        (0, float(p), "") if re.fullmatch(r"\d+(?:\.\d+)?", p) else (1, 0.0, p) for p in parts
    )


def natural_order(values: Iterable[str]) -> list[str]:
    vals = sorted(set(values))
    try:
        return sorted(vals, key=float)
    except ValueError:
        return sorted(vals, key=_natural_key)


@dataclass
class Expected:
    """One model's oracle answer: per-class statistic and verdict, and the report figures."""

    per_class: dict[tuple[str, ...], tuple[float, bool]]
    sizes: dict[tuple[str, ...], int]
    larger_is_safer: bool

    @property
    def passed(self) -> bool:
        return all(ok for _, ok in self.per_class.values())

    @property
    def value(self) -> float | None:
        stats = [v for v, _ in self.per_class.values()]
        worst = min(stats) if self.larger_is_safer else max(stats)
        return None if math.isinf(worst) else worst

    @property
    def violating_classes(self) -> int:
        return sum(not ok for _, ok in self.per_class.values())

    @property
    def violating_records(self) -> int:
        return sum(self.sizes[k] for k, (_, ok) in self.per_class.items() if not ok)


def expected(
    classes: dict[tuple[str, ...], list[str]],
    model: dict,
    order: Sequence[str] | None = None,
    tree: Tree | None = None,
    memo: dict | None = None,
) -> Expected:
    """The oracle's answer for one policy model entry (same dict a privcheck policy takes).

    ``memo`` caches per-class EMDs between entries that differ only in t.
    """
    name = model["model"]
    sizes = {k: len(v) for k, v in classes.items()}
    stat: Callable[[list[str]], tuple[float, bool]]
    if name == "k-anonymity":
        k = model["k"]
        stat = lambda v: (float(len(v)), len(v) >= k)  # noqa: E731
        return Expected({c: stat(v) for c, v in classes.items()}, sizes, True)
    if name == "l-diversity":
        variant, l = model.get("variant", "distinct"), model["l"]  # noqa: E741
        if variant == "distinct":
            stat = lambda v: (float(distinct(v)), distinct(v) >= l)  # noqa: E731
        elif variant == "entropy":
            if float(l).is_integer():
                stat = lambda v: (exp_entropy(v), entropy_ok(v, int(l)))  # noqa: E731
            else:
                stat = lambda v: (exp_entropy(v), exp_entropy(v) >= l)  # noqa: E731
        else:
            stat = lambda v: recursive(v, int(l), model["c"])  # noqa: E731
        return Expected({c: stat(v) for c, v in classes.items()}, sizes, variant != "recursive")
    if name == "t-closeness":
        table = Counter(x for v in classes.values() for x in v)
        t = decimal(model["t"])
        distance = model.get("distance", "equal")
        if distance == "equal":
            emd = lambda v: emd_equal(v, table)  # noqa: E731
        elif distance == "ordered":
            ordering = list(order) if order is not None else natural_order(table)
            emd = lambda v: emd_ordered(v, table, ordering)  # noqa: E731
        else:
            assert tree is not None
            emd = lambda v: emd_hierarchical(v, table, tree)  # noqa: E731
        cache = (memo if memo is not None else {}).setdefault(distance, {})
        out = {}
        for c, v in classes.items():
            if c not in cache:
                cache[c] = emd(v)
            out[c] = (float(cache[c]), cache[c] <= t)
        return Expected(out, sizes, False)
    if name in ("beta-likeness", "delta-disclosure"):
        table = Counter(x for v in classes.values() for x in v)
        total = sum(table.values())
        stat = (
            (lambda v: beta_likeness(v, table, total, model))
            if name == "beta-likeness"
            else (lambda v: delta_disclosure(v, table, total, model))
        )
        return Expected({c: stat(v) for c, v in classes.items()}, sizes, False)
    if name == "alpha-k-anonymity":
        stat = lambda v: alpha_k(v, model)  # noqa: E731
        return Expected({c: stat(v) for c, v in classes.items()}, sizes, False)
    raise ValueError(f"no oracle for {name}")


def beta_likeness(values: list[str], table: Counter, total: int, model: dict) -> tuple[float, bool]:
    """(largest (q − p)/p over the class's values, 0 if none is over-represented; verdict).

    Basic: the largest gain ≤ β. Enhanced: every value's gain ≤ min(β, −ln p). Exact fractions,
    except −ln p (a float, as the definition is).
    """
    n, beta = len(values), decimal(model["beta"])
    gains = {
        v: (Fraction(f, n) - Fraction(table[v], total)) / Fraction(table[v], total)
        for v, f in Counter(values).items()
    }
    worst = max(max(gains.values()), Fraction(0))
    if model.get("variant", "basic") == "basic":
        return float(worst), worst <= beta
    ok = all(
        g <= 0 or float(g) <= min(float(beta), -math.log(table[v] / total))
        for v, g in gains.items()
    )
    return float(worst), ok


def delta_disclosure(
    values: list[str], table: Counter, total: int, model: dict
) -> tuple[float, bool]:
    """(largest |log(q/p)| over the values present in the class, < δ)."""
    n = len(values)
    log = math.log2 if model.get("log_base", "e") in (2, "2") else math.log
    worst = max(
        abs(log(Fraction(f, n) / Fraction(table[v], total))) for v, f in Counter(values).items()
    )
    return worst, worst < model["delta"]


def alpha_k(values: list[str], model: dict) -> tuple[float, bool]:
    """(share of the protected value — or of the most frequent one — in the class; n ≥ k and
    share ≤ α)."""
    counts = Counter(values)
    top = counts[str(model["value"])] if model.get("value") is not None else max(counts.values())
    share = Fraction(top, len(values))
    return float(share), len(values) >= model["k"] and share <= decimal(model["alpha"])


# --------------------------------------------------------------------------- random tables


def random_tree(
    rng: np.random.Generator, m: int, height: int, prefix: str, single_top: bool = True
) -> list[list[str]]:
    """ARX rows of a random hierarchy over ``m`` ground values, all leaves at depth ``height``.

    Each level merges the level below into a random number of groups (every group non-empty);
    the top level is '*' when ``single_top``.
    """
    current = [f"{prefix}{i}" for i in range(m)]
    columns = [current]
    n_nodes = m
    for level in range(1, height + 1):
        if level == height and single_top:
            columns.append(["*"] * m)
            break
        groups = int(rng.integers(1, max(n_nodes, 1) + 1))
        parent = rng.permutation(np.arange(n_nodes) % groups)  # every group gets a node
        below = columns[-1]
        names = sorted(set(below), key=below.index)
        pick = {name: f"{prefix}L{level}g{parent[i]}" for i, name in enumerate(names)}
        columns.append([pick[b] for b in below])
        n_nodes = groups
    return [list(r) for r in zip(*columns, strict=True)]


def rows_from_frame(frame) -> list[dict[str, str | None]]:
    """Rows of a pandas frame as dicts, missing values as None (no privcheck involved)."""
    out = []
    for rec in frame.to_dict("records"):
        out.append({k: (None if _clean(v) == MISSING else str(v)) for k, v in rec.items()})
    return out
