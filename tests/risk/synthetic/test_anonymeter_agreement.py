"""privcheck's singling-out, linkability and inference risks agree with Anonymeter's (the peer
tool, Giomi et al. PETS 2023) within their confidence intervals on the same inputs: Adult's
members, a control set and a synthetic table that leaks its members or one that cannot."""

from __future__ import annotations

import pytest

from privcheck.risk.synthetic.inference import inference
from privcheck.risk.synthetic.linkability import default_halves, linkability
from privcheck.risk.synthetic.singling_out import singling_out
from tests.risk.synthetic.anonymeter_peer import anonymeter_risks
from tests.risk.synthetic.synthetic_data import QIS

pytest.importorskip("anonymeter")

N_ATTACKS = 300


def _privcheck(members, synthetic, control, seed):
    columns = [*QIS, "salary-class"]
    return {
        "singling-out": singling_out(
            members,
            synthetic,
            control,
            attributes=columns,
            n_attacks=N_ATTACKS,
            random_state=seed,
        ),
        "linkability": linkability(
            members,
            synthetic,
            control,
            aux_cols=default_halves(QIS),
            n_attacks=N_ATTACKS,
            random_state=seed,
        ),
        "inference": inference(
            members,
            synthetic,
            control,
            ["salary-class"],
            attributes=QIS,
            n_attacks=N_ATTACKS,
            random_state=seed,
        ),
    }


@pytest.fixture(scope="module", params=["leak", "independent"])
def both(request, adult_synthetic):
    d = adult_synthetic
    synthetic = d[request.param]
    ours = _privcheck(d["members"], synthetic, d["control"], seed=5)
    theirs = anonymeter_risks(
        d["members"],
        synthetic,
        d["control"],
        columns=[*QIS, "salary-class"],
        halves=default_halves(QIS),
        secret="salary-class",
        n_attacks=N_ATTACKS,
        seed=4,
    )
    return request.param, ours, theirs


@pytest.mark.parametrize("attack", ["singling-out", "linkability", "inference"])
def test_risks_agree_within_the_intervals(both, attack):
    """The intervals overlap, and each risk lies within the other's interval widened by its own
    half-width (what two estimates of one quantity with these errors allow)."""
    release, ours, theirs = both
    a, b = ours[attack], theirs[attack]
    assert a["risk_ci"][0] <= b["risk_ci"][1] and b["risk_ci"][0] <= a["risk_ci"][1], (
        release,
        a["risk"],
        a["risk_ci"],
        b["risk"],
        b["risk_ci"],
    )
    if release == "leak":  # both see the leak ...
        assert a["risk_ci"][0] > 0 and b["risk_ci"][0] > 0
    else:  # ... and neither sees one in an independent draw
        assert a["risk_ci"][0] == 0 and b["risk_ci"][0] == 0
