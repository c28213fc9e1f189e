"""A toy anonymizer, written as a plugin writes one: this ONE file and ONE registration.

It generalizes every quasi-identifier by the same number of levels (capped at each one's
height), the fewest with which the policy holds within the suppression limit. Everything else
is privcheck's: the plan and its figures (``Anonymizer.generalize``), reading and encoding the
data, writing the release on whichever engine holds it (pandas in process, Spark where the
rows live), the re-check and the report (``privcheck.pipeline``). The documentation shows the
same file (docs/architecture.md, "Add an anonymizer").
"""

from __future__ import annotations

from typing import Any

from privcheck.anonymizers.base import Anonymizer
from privcheck.encoding import EncodedTable
from privcheck.errors import PolicyError
from privcheck.hookspecs import hookimpl
from privcheck.plan import Plan
from privcheck.policy import Policy


class Toy(Anonymizer):
    name = "toy"
    summary = "every quasi-identifier up the same number of levels"
    #: its plans are full-domain nodes (``NodeRecoding``): an engine can write them in place
    engine_release = True

    def plan(self, encoded: EncodedTable, policy: Policy, **context: Any) -> Plan:
        for step in range(max(encoded.top, default=0) + 1):
            node = [min(step, height) for height in encoded.top]
            try:
                return self.generalize(encoded, policy, node)
            except PolicyError:  # too many records left to suppress at this node
                continue
        raise PolicyError("toy: not even the most general node satisfies the policy")


@hookimpl
def privcheck_anonymizers() -> list[type]:
    return [Toy]
