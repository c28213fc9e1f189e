"""Postal codes nested in a place: when every postal code's rows name one place of a place
column, the code's hierarchy becomes postcode → place → the place's own levels
(``nest_postcodes``), the hierarchy an ARX user writes for nested geography.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from privcheck.profiling import hierarchies

if TYPE_CHECKING:
    from privcheck.profiling.profile import ColumnProfile

#: a postal code lies in one place when at least this share of its rows say the same place
NESTED_SHARE = 0.99
#: postal codes are only seen to nest when each is held by this many rows on average (codes
#: held by one or two records each — one person's visits — lie in one place trivially)
NESTED_REPEATS = 5


def nest_postcodes(table: pa.Table, columns: list[ColumnProfile]) -> None:
    """A postal code that lies in one place of a place column (every postcode's rows name one
    city, bar 1 %) generalizes to that place: its hierarchy becomes postcode → place → the
    place's own levels. Masking its digits would group postcodes of different places, and the
    pair (postcode, place) would split every class twice; nested, the postcode at its place
    level costs nothing the place column does not already cost — the hierarchy an ARX user
    writes for nested geography. Only postcodes held by several records each can show it."""
    postal = [c for c in columns if c.role == "quasi_identifier" and c.concept == "postal"]
    places = [
        c
        for c in columns
        if c.role == "quasi_identifier"
        and c.concept == "geography"
        and c.type == "text"
        and c.built is not None
        and c.built.rows is not None
    ]
    if not postal or not places:
        return
    from privcheck.encoding import string_labels

    for code in postal:
        present = table.num_rows - code.n_missing
        if code.distinct > present / NESTED_REPEATS:  # near-unique codes nest in anything
            continue
        candidates = [p for p in places if 5 <= p.distinct <= code.distinct / 2]
        for place in sorted(candidates, key=lambda p: -p.distinct):
            pairs = (
                pa.table({"code": table.column(code.name), "place": table.column(place.name)})
                .group_by(["code", "place"])
                .aggregate([("code", "count")])
            )
            codes = string_labels(np.asarray(pairs.column("code").to_pylist(), dtype=object))
            where = string_labels(np.asarray(pairs.column("place").to_pylist(), dtype=object))
            counts = pairs.column("code_count").to_numpy()
            rows = hierarchies.nested_rows(codes, where, counts, place.built.rows, NESTED_SHARE)
            if rows is None:
                continue
            code.built = hierarchies.table(rows, f"postal codes → the {place.name} they lie in")
            code.hierarchy = code.built.spec
            code.reason += (
                f"; hierarchy: each postal code lies in one {place.name} (as the data shows): "
                f"postal code → its {place.name} → as {place.name!r}"
            )
            break
