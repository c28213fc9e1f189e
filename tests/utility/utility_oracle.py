"""Brute-force, pure-Python oracles of the utility measures on small tables, written from the
definitions (docs/utility.md) without the package's recoding: per cell, the set of original
values the released cell stands for is found by walking the hierarchy rows or parsing the
range by hand."""

from __future__ import annotations

import math
from collections import Counter
from itertools import product


def parse_range(label: str):
    """(lo, hi, lo_closed, hi_closed) or None."""
    s = label.strip()
    if s[:1] in "[(" and s[-1:] in "])" and "," in s:
        a, b = s[1:-1].split(",")
        return float(a), float(b), s[0] == "[", s[-1] == "]"
    body = s[1:]
    if "-" in body:
        i = body.index("-") + 1
        try:
            return float(s[:i]), float(s[i + 1 :]), True, True
        except ValueError:
            return None
    return None


def cell(original: str, released: str, hierarchy: list[list[str]] | None, domain: list[str]):
    """(cover set, Prec cost, changed, suppressed) of one released cell."""
    if released == original:
        return {original}, 0.0, False, False
    if hierarchy is not None:
        row = next(r for r in hierarchy if r[0] == original)
        height = len(row) - 1
        for level in range(1, len(row)):
            if row[level] == released:
                cover = {r[0] for r in hierarchy if r[level] == released} & set(domain)
                return cover, level / height, True, released == "*"
    if released == "*":
        return set(domain), 1.0, True, True
    lo, hi, lc, hc = parse_range(released)
    nums = [float(v) for v in domain]

    def inside(x):
        return (x >= lo if lc else x > lo) and (x <= hi if hc else x < hi)

    cover = {v for v in domain if inside(float(v))}
    assert original in cover
    width = max(nums) - min(nums)
    return cover, (min(1.0, (hi - lo) / width) if width else 0.0), True, False


def loss_cost(original: str, released: str, hierarchy, ground: list[str]) -> float:
    """(m − 1)/(D − 1) of one cell: ``m`` of the ``D`` ground values (a table hierarchy's
    rows, else the original's distinct values) its released value covers; ``*`` 1."""
    if released == "*":
        return 1.0
    if released == original:
        cover = {original}
    elif hierarchy is not None and any(released in r[1:] for r in hierarchy if r[0] == original):
        row = next(r for r in hierarchy if r[0] == original)
        level = row.index(released, 1)
        cover = {r[0] for r in hierarchy if r[level] == released} & set(ground)
    else:
        lo, hi, lc, hc = parse_range(released)
        cover = {
            v
            for v in ground
            if (float(v) >= lo if lc else float(v) > lo)
            and (float(v) <= hi if hc else float(v) < hi)
        }
    assert original in cover
    return (len(cover) - 1) / (len(ground) - 1) if len(ground) > 1 else 0.0


def measures(
    original: list[tuple], released: list[tuple], hierarchies: list, grounds: list | None = None
) -> dict:
    """Every measure of a release aligned with its original. ``grounds``: per column, the
    ground values the loss counts (default: the original's distinct values)."""
    n, q = len(original), len(original[0])
    domains = [sorted({r[j] for r in original}) for j in range(q)]
    grounds = grounds or domains
    freqs = [Counter(r[j] for r in original) for j in range(q)]
    covers, cost, nue, changed, suppressed, lost = [], 0.0, 0.0, 0, 0, 0.0
    for o, r in zip(original, released, strict=True):
        row_cov = []
        for j in range(q):
            lost += loss_cost(o[j], r[j], hierarchies[j], grounds[j])
            cov, c, ch, _ = cell(o[j], r[j], hierarchies[j], domains[j])
            row_cov.append(cov)
            cost += c
            changed += ch
            suppressed += r[j] == "*"
            nue += -math.log2(freqs[j][o[j]] / sum(freqs[j][v] for v in cov))
        covers.append(row_cov)
    star = [all(v == "*" for v in r) for r in released]
    n_supp = sum(star)
    sizes = Counter(tuple(r) for r, s in zip(released, star, strict=True) if not s)
    dm = sum(s * s for s in sizes.values()) + n_supp * n
    aecs = n / (len(sizes) + (1 if n_supp else 0))
    # KL over the full product domain of the original's values
    p1 = Counter(original)
    kl = 0.0
    for x in product(*domains):
        if x not in p1:
            continue
        p2 = 0.0
        for cov in covers:
            if all(x[j] in cov[j] for j in range(q)):
                p2 += 1.0 / (n * math.prod(len(c) for c in cov))
        kl += p1[x] / n * math.log(p1[x] / n / p2)
    max_nue = sum(-math.log2(freqs[j][o[j]] / n) for o in original for j in range(q))
    return {
        "classes": len(sizes),
        "prec": 1.0 - cost / (n * q),
        "non_uniform_entropy": nue,
        "non_uniform_entropy_share": nue / max_nue if max_nue else 0.0,
        "discernibility": float(dm),
        "aecs": aecs,
        "kl_divergence": kl,
        "changed_cells": changed,
        "changed_share": changed / (n * q),
        "suppressed_cells": suppressed,
        "suppressed_share": suppressed / (n * q),
        "suppressed_records": n_supp / n,
        "generalized_cells": changed / (n * q),
        "loss": lost / (n * q),
    }
