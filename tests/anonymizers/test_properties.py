"""Properties of every release, on random tables, policies and algorithms:
the release satisfies every model of its policy, and released + suppressed = input, row by row."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import privcheck
from privcheck.encoding import encode
from privcheck.errors import PolicyError
from privcheck.pipeline.anonymize import anonymize
from privcheck.plan import release_policy

SEX = [["F", "*"], ["M", "*"]]


@st.composite
def tables(draw):
    n = draw(st.integers(4, 40))
    ages = draw(st.lists(st.integers(18, 70), min_size=n, max_size=n))
    zips = draw(
        st.lists(st.sampled_from(["02138", "02139", "02141", "02152"]), min_size=n, max_size=n)
    )
    sex = draw(st.lists(st.sampled_from(["F", "M"]), min_size=n, max_size=n))
    disease = draw(st.lists(st.sampled_from(["flu", "cold", "hiv"]), min_size=n, max_size=n))
    return pd.DataFrame({"age": ages, "zip": zips, "sex": sex, "disease": disease})


models_st = st.lists(
    st.one_of(
        st.builds(lambda k: {"model": "k-anonymity", "k": k}, st.integers(1, 5)),
        st.builds(
            lambda v: {"model": "l-diversity", "variant": "distinct", "l": v}, st.integers(1, 2)
        ),
        st.builds(
            lambda v: {"model": "l-diversity", "variant": "entropy", "l": v}, st.floats(1.0, 1.9)
        ),
        st.builds(lambda t: {"model": "t-closeness", "t": t}, st.floats(0.1, 0.6)),
    ),
    min_size=1,
    max_size=3,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tables(),
    models_st,
    st.sampled_from([0.0, 0.1, 0.3]),
    st.sampled_from(["incognito", "mingen", "datafly"]),
    st.sampled_from(["remove", "star"]),
)
def test_release_satisfies_policy_and_keeps_every_record(frame, models, limit, algorithm, mode):
    policy = privcheck.load_policy(
        {
            "attributes": {
                "age": {
                    "role": "quasi_identifier",
                    "hierarchy": {"type": "intervals", "widths": [10, 20]},
                },
                "zip": {"role": "quasi_identifier", "hierarchy": {"type": "masking", "levels": 2}},
                "sex": {"role": "quasi_identifier", "hierarchy": {"type": "table", "rows": SEX}},
                "disease": {"role": "sensitive"},
            },
            "models": models,
            "suppression_limit": limit,
            "suppressed_records": mode,
        }
    )
    try:
        release, report = anonymize(frame, policy, algorithm, keep_order=True)
    except PolicyError as exc:
        assert "cannot hold" in str(exc) or "no generalization" in str(exc)
        return
    # released + suppressed = input
    assert report.n_kept + report.n_suppressed == report.n_records == len(frame)
    assert report.n_suppressed <= int(limit * len(frame) + 1e-9)
    starred = (release[["age", "zip", "sex"]] == "*").all(axis=1).to_numpy()
    if mode == "remove":
        assert len(release) == report.n_kept
    else:
        assert len(release) == len(frame) and starred.sum() >= report.n_suppressed
    # every released row is its input row generalized to the chosen node (order kept)
    encoded = encode(frame, policy)
    expected = {
        col.name: np.asarray(col.levels.labels[report.node[col.name]], dtype=object)[
            col.codes_at(report.node[col.name])
        ]
        for col in encoded.quasi_identifiers
    }
    gen = pd.DataFrame(expected)
    gen["disease"] = frame["disease"].to_numpy()
    if mode == "remove":
        # the kept rows, in order, are a subsequence of the generalized input
        it = iter(gen.itertuples(index=False))
        for row in release.itertuples(index=False):
            assert any(tuple(r) == tuple(row) for r in it)
    else:
        for name in gen.columns:  # a ground-level number beside '*' is released as text
            if pd.api.types.is_string_dtype(release[name]):
                gen[name] = gen[name].astype(str)
        for i, row in enumerate(release.itertuples(index=False)):
            g = tuple(gen.iloc[i])
            assert tuple(row) == g or (starred[i] and row[3] == g[3])
    # the release satisfies every model when checked like any table (starred rows stand for
    # suppressed records; when a kept class is all '*' too, the row comparison above covers it)
    if mode == "remove":
        assert privcheck.check(release, release_policy(policy)).passed
    elif starred.sum() == report.n_suppressed:
        assert privcheck.check(release[~starred], release_policy(policy)).passed
    assert report.check.passed
