"""A file anonymized with its string columns read as dictionaries writes the release a plain read
writes: the same values, the same dtypes, the same report — for every candidate of ``auto`` and
both suppression modes; and the changed cells counted on codes equal a row-by-row comparison of
the strings (the oracle: what the engine computed before)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcheck.engines.dictionary_rows import PLAIN_DTYPES, as_read, read_rows
from privcheck.engines.pandas_engine import changed_cells, record_units, unit_arrays
from privcheck.io import read_table
from privcheck.pipeline.anonymize import anonymize
from privcheck.policy import parse_policy
from tests.engines.test_release import SPEC, table

DP = [{"model": "differential-privacy", "epsilon": 2.0, "delta": 1e-3}]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    frame = table(n=2500, seed=5)
    frame["note"] = frame["note"].where(frame.index % 97 != 0)  # missing insensitive values
    folder = tmp_path_factory.mktemp("dictionary")
    parquet, csv = folder / "data.parquet", folder / "data.csv"
    frame.to_parquet(parquet, index=False)
    frame.to_csv(csv, index=False)
    return parquet, csv


def test_string_columns_are_read_as_categoricals_with_their_plain_dtypes(files):
    for path in files:
        rows = read_rows(path)
        plain = read_table(path)
        assert isinstance(rows["zip"].dtype, pd.CategoricalDtype)
        assert rows.attrs[PLAIN_DTYPES]["note"] == plain["note"].dtype
        for name in plain.columns:
            back = as_read(rows, name, rows[name])
            pd.testing.assert_series_equal(back, plain[name])


@pytest.mark.parametrize("suppressed", ["remove", "star"])
@pytest.mark.parametrize(
    "algorithm", ["auto", "mingen", "mondrian", "local-suppression", "safepub"]
)
def test_a_file_releases_what_its_plain_read_releases(files, algorithm, suppressed):
    spec = {**SPEC, "suppressed_records": suppressed}
    if algorithm == "safepub":
        spec = {**spec, "models": DP}
    policy = parse_policy(spec)
    for path in files:
        from_file, report = anonymize(path, policy, algorithm, seed=7)
        plain, expected = anonymize(read_table(path), policy, algorithm, seed=7)
        pd.testing.assert_frame_equal(from_file, plain)
        assert report.check.model_dump() == expected.check.model_dump()
        assert report.changed_cells == expected.changed_cells
        assert report.n_suppressed == expected.n_suppressed


def strings_changed(data, arrays, unit, rows, names) -> int:
    """The oracle: every cell spelled as a string and compared, row by row."""
    from privcheck.encoding import string_labels

    total = 0
    for name in names:
        before = string_labels(data[name].take(rows).to_numpy(dtype=object))
        after = string_labels(arrays[name].take(unit.take(rows)).to_numpy(dtype=object))
        total += int(np.count_nonzero(before != after))
    return total


@pytest.mark.parametrize("typed", ["plain", "categorical", "object"])
def test_changed_cells_on_codes_equal_the_string_comparison(typed):
    from privcheck.anonymizers.local_suppression import LocalSuppression
    from privcheck.encoding import encode

    frame = table(n=1500, seed=11)
    if typed == "categorical":
        frame = frame.astype({c: "category" for c in ("zip", "sex")})
    elif typed == "object":
        frame = frame.astype({"age": object})
        frame.loc[frame.index % 5 == 0, "age"] = frame["age"].astype(float)  # 31.0 spells '31'
    policy = parse_policy({**SPEC, "models": [{"model": "k-anonymity", "k": 8}]})
    encoded = encode(frame, policy)
    plan = LocalSuppression().plan(encoded, policy, rows=frame, seed=1)
    recoding = plan.recoding
    unit = record_units(recoding, len(frame))
    arrays = unit_arrays(recoding)
    rows = np.flatnonzero(np.random.default_rng(2).random(len(frame)) < 0.9)
    names = list(recoding.released)
    counted = changed_cells(frame, arrays, unit, rows, names)
    assert counted == strings_changed(frame, arrays, unit, rows, names)
    assert counted > 0


@pytest.mark.parametrize("suppressed", ["remove", "star"])
@pytest.mark.parametrize("models", ["dp", "dp+l"])
def test_safepub_recheck_from_codes_equals_the_check_of_the_written_rows(suppressed, models):
    from privcheck.anonymizers.safepub import SafePub
    from privcheck.encoding import encode
    from privcheck.engines.pandas_engine import materialise
    from privcheck.engines.recheck import recheck_sample, recheck_sample_codes

    frame = table(n=3000, seed=13)
    extra = [{"model": "l-diversity", "variant": "distinct", "l": 2, "attribute": "disease"}]
    spec = {**SPEC, "models": DP + (extra if models == "dp+l" else [])}
    policy = parse_policy({**spec, "suppressed_records": suppressed})
    encoded = encode(frame, policy)
    plan = SafePub(steps=10).plan(encoded, policy, rows=frame, seed=4)
    recoding = plan.recoding
    records = np.flatnonzero(recoding.sample)
    kept = recoding.kept_records
    assert not kept.all()  # (some sampled classes suppressed: the '*' spelling is exercised)
    release, starred = materialise(
        frame, encoded, recoding.node, kept, policy, seed=1, records=records
    )
    written = recheck_sample(release, starred, policy, recoding.check_models, "safepub")
    codes = recheck_sample_codes(
        frame, encoded, recoding.node, records, kept, policy, recoding.check_models, "safepub"
    )
    assert codes is not None
    assert codes.model_dump() == written.model_dump()
