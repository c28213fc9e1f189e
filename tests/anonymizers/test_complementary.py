"""Complementary releases (Sweeney 2002): two releases of one table joined by an intruder.

Race/ZIP, k = 2: [0,1] and [1,0] are both 2-anonymous, but an intruder who pairs their rows
knows race *and* full ZIP — the classes of [0,0], all singletons. A second release restricted to
generalizations of the first ("--previous") joins back into the first release's classes only.
"""

from __future__ import annotations

import pytest
from anon_helpers import race_zip_policy

from privcheck.errors import DataError, PolicyError
from privcheck.pipeline.anonymize import anonymize
from privcheck.pipeline.check import check_linked, link_releases
from privcheck.pipeline.side_files import previous_node


def test_unguarded_pair_joins_into_classes_below_k(race_zip):
    policy = race_zip_policy(2)
    first, r1 = anonymize(race_zip, policy, "mingen", keep_order=True)
    # another 2-anonymous release of the same table, made without regard to the first
    other, r2 = anonymize(
        race_zip, policy, "mingen", keep_order=True, previous={"race": 1, "zip": 0}
    )
    assert r1.node == {"race": 0, "zip": 1} and r2.node == {"race": 1, "zip": 0}
    assert r1.check.passed and r2.check.passed
    linked = check_linked(first, other, policy)
    assert not linked.passed
    k = linked.models[0]
    assert k.value == 1 and k.violating_classes == 8  # every record is unique again
    joined = link_releases(first, other, policy)
    assert joined["zip"].iloc[0] == "0213* & 02138"


def test_guarded_pair_does_not(race_zip):
    policy = race_zip_policy(2)
    first, r1 = anonymize(race_zip, policy, "mingen", keep_order=True)
    # the second release needs 4-anonymity, and may only coarsen the first release's node
    second, r2 = anonymize(race_zip, race_zip_policy(4), "mingen", keep_order=True, previous=r1)
    assert r2.node == {"race": 0, "zip": 2}
    assert r2.parameters["previous_node"] == [0, 1]
    linked = check_linked(first, second, policy)
    assert linked.passed and linked.n_classes == 4  # the first release's classes, no finer
    # without the guard the 4-anonymous optimum could have been anything, e.g. [2,0]-like nodes
    # of other tables; with it every candidate node coarsens [0,1]:
    assert all(m["zip"] >= 1 for m in r2.minimal_nodes)


def test_previous_report_file_and_errors(race_zip, tmp_path):
    _, r1 = anonymize(race_zip, race_zip_policy(2), "incognito")
    path = tmp_path / "r1.json"
    path.write_text(r1.to_json())
    assert previous_node(path) == {"race": 0, "zip": 1}
    _, r2 = anonymize(race_zip, race_zip_policy(2), "incognito", previous=path)
    assert r2.node == r1.node  # re-applies the previous transformation when it still holds
    with pytest.raises(PolicyError, match="same quasi-identifiers"):
        anonymize(race_zip, race_zip_policy(2), "mingen", previous={"race": 0})
    with pytest.raises(PolicyError, match=r"levels 0\.\.3"):
        anonymize(race_zip, race_zip_policy(2), "mingen", previous={"race": 0, "zip": 7})
    with pytest.raises(PolicyError, match="not found"):
        previous_node(tmp_path / "missing.json")


def test_shuffled_releases_cannot_be_paired(race_zip):
    policy = race_zip_policy(2)
    a, _ = anonymize(race_zip, policy, "mingen", seed=1)
    b, _ = anonymize(race_zip, policy, "mingen", previous={"race": 1, "zip": 0}, seed=2)
    b = b.iloc[:-1]
    with pytest.raises(DataError, match="8 and 7 rows"):
        check_linked(a, b, policy)
