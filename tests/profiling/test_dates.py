"""Date formats: each known format is found from its values, and the format found parses
them back to the dates written (pandas, as the dates hierarchy parses); day/month ambiguity
and columns of several formats are said, not guessed silently."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from privcheck.profiling import dates


def _days(n: int = 300, seed: int = 0) -> pd.Series:
    rng = np.random.default_rng(seed)
    return pd.Series(pd.to_datetime(rng.integers(-20_000, 20_000, n), unit="D"))


def _detect(values: list[str]) -> dates.DateGuess | None:
    return dates.detect(pa.array(values), np.ones(len(values), dtype=np.int64))


FORMATS = [f for f, _, _ in dates.FORMATS if f is not None and "%y" not in f]


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_is_found_and_reads_the_dates_back(fmt):
    when = _days()
    when = when[when.dt.day > 12]  # no day/month ambiguity
    written = when.dt.strftime(fmt).tolist()
    guess = _detect(written)
    assert guess is not None and not guess.mixed
    assert guess.format == fmt
    assert guess.ambiguous_with is None
    parsed = pd.to_datetime(pd.Series(written), format=guess.format)
    assert (parsed == when.reset_index(drop=True).dt.floor("min")).all()


def test_iso_dates_and_timestamps_need_no_format():
    when = _days()
    for written in (when.dt.strftime("%Y-%m-%d"), when.dt.strftime("%Y-%m-%dT%H:%M:%S")):
        guess = _detect(written.tolist())
        assert guess.format is None and guess.share == 1.0


def test_day_and_month_ambiguity_is_reported():
    when = _days()
    when = when[when.dt.day <= 12]
    guess = _detect(when.dt.strftime("%d/%m/%Y").tolist())
    assert guess.format == "%d/%m/%Y" and guess.ambiguous_with == "%m/%d/%Y"
    us = _detect(_days()[lambda s: s.dt.day > 12].dt.strftime("%m/%d/%Y").tolist())
    assert us.format == "%m/%d/%Y" and us.ambiguous_with is None


def test_a_column_of_two_formats_is_mixed():
    when = _days(400)
    written = [
        d.strftime("%Y-%m-%d") if i % 2 else d.strftime("%d.%m.%Y") for i, d in enumerate(when)
    ]
    guess = _detect(written)
    assert set(guess.mixed) == {None, "%d.%m.%Y"}
    years = dates.years(written, guess.mixed)
    assert years.tolist() == when.dt.year.tolist()


@pytest.mark.parametrize(
    "values",
    [
        [str(x) for x in range(1000, 1300)],  # integers
        [f"{x:08d}" for x in range(10_000_000, 10_000_300)],  # 8 digits, months out of range
        ["red", "green", "blue"] * 50,
        [f"{a}.{b}.{c}" for a, b, c in np.random.default_rng(0).integers(20, 99, (200, 3))],
    ],
    ids=["integers", "eight-digit codes", "words", "versions"],
)
def test_non_dates(values):
    assert _detect(values) is None


def test_parse_share_names_values_a_format_does_not_read():
    share, bad = dates.parse_share(["01/02/2020", "31/12/2020", "2020-01-01"], "%d/%m/%Y")
    assert share == pytest.approx(2 / 3) and bad == ["2020-01-01"]
