"""Brute-force checks of the properties a model claims (``PrivacyModel.monotone``,
``monotone_with_suppression``): every node of a small lattice decided from the records alone,
then every edge of the lattice inspected.

- generalization property: no satisfying node (nothing suppressed) has a failing direct
  generalization;
- monotone with suppression: no node has a direct generalization with more records in violating
  classes.
"""

from __future__ import annotations

import numpy as np

from privcheck.classes import count
from privcheck.encoding import EncodedTable
from privcheck.lattice import Lattice
from privcheck.models.base import evaluate_models
from tests.anonymizers.anon_oracle import all_verdicts


def edges(lat: Lattice):
    """Every (node, direct generalization) pair, as node numbers."""
    for i in range(lat.size):
        for j in range(lat.width):
            s = int(lat.successor_index(np.array([i]), j)[0])
            if s >= 0:
                yield i, s


def generalization_breaks(encoded: EncodedTable, configs) -> list[tuple[tuple, tuple]]:
    """Edges where a node satisfies the models (no suppression) and its generalization fails."""
    lat, sat, _ = all_verdicts(encoded, configs, 0, from_rows=True)
    return [(lat.node(i), lat.node(s)) for i, s in edges(lat) if sat[i] and not sat[s]]


def violators_per_node(encoded: EncodedTable, configs) -> tuple[Lattice, np.ndarray]:
    """Records in violating classes at every node (each node counted from the records)."""
    lat = Lattice(encoded.heights)
    out = np.zeros(lat.size, dtype=np.int64)
    for i in range(lat.size):
        table = count(encoded, lat.node(i), track_records=False)
        ok = np.ones(table.n_classes, dtype=bool)
        for ev in evaluate_models(table, configs):
            ok &= ev.class_ok
        out[i] = int(table.sizes[~ok].sum())
    return lat, out


def suppression_breaks(encoded: EncodedTable, configs) -> list[tuple[tuple, tuple]]:
    """Edges where generalizing adds records to the violating classes."""
    lat, bad = violators_per_node(encoded, configs)
    return [(lat.node(i), lat.node(s)) for i, s in edges(lat) if bad[s] > bad[i]]
