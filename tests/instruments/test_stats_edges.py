"""`tilelab.bench.stats` beyond ordering: each summary field is the statistic its name says, checked against
numpy and the standard library's definitions, and the edges a report meets (a zero time, a missing baseline, a
percentile asked of nothing or out of range) get the documented answer instead of a crash or a wrong number.

`test_stats.py` checks only that the summary is ordered (min <= p10 <= median <= p90 <= max); a sample standard
deviation swapped for the population's, a mean for a median or p90 for p80 all passed it.
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tilelab.bench import stats

samples = st.lists(st.floats(min_value=0, max_value=1e4, allow_nan=False), min_size=2, max_size=50)


@given(samples)
def test_every_summary_field_is_its_statistic(values):
    s = stats.summarize(values)
    expected = {"median_ms": np.median(values), "min_ms": min(values), "max_ms": max(values),
                "mean_ms": np.mean(values), "stdev_ms": np.std(values, ddof=1),  # the sample's, not the population's
                "p10_ms": np.percentile(values, 10), "p90_ms": np.percentile(values, 90)}
    assert s.keys() == expected.keys()
    for key, value in expected.items():
        assert s[key] == pytest.approx(float(value), rel=1e-9, abs=1e-6), key


def test_a_small_summary_by_hand():
    s = stats.summarize([4.0, 1.0, 3.0, 2.0])
    assert s["mean_ms"] == 2.5 and s["median_ms"] == 2.5
    assert s["stdev_ms"] == pytest.approx(math.sqrt(5 / 3))  # squares 2.25 + 0.25 + 0.25 + 2.25, over n - 1 = 3
    assert s["p10_ms"] == pytest.approx(1.3) and s["p90_ms"] == pytest.approx(3.7)
    assert stats.summarize([2.0])["stdev_ms"] == 0.0  # one sample: no spread


@pytest.mark.parametrize("q", [-0.5, 100.5, 150])
def test_percentile_refuses_q_out_of_range(q):
    with pytest.raises(ValueError, match="q must be within"):
        stats.percentile([1.0, 2.0], q)


def test_percentile_of_nothing_is_a_value_error():
    with pytest.raises(ValueError, match="no samples"):
        stats.percentile([], 50)


@pytest.mark.parametrize("ms", [0.0, -1.0])
def test_no_speedup_against_a_time_that_is_not_positive(ms):
    assert stats.speedup(2.0, ms) is None


def test_geometric_mean_skips_missing_speedups():
    # A case without a torch baseline has speedup None: the mean is of the others.
    assert stats.geometric_mean([4.0, None, 1.0]) == pytest.approx(2.0)
    assert stats.geometric_mean([None, None]) is None
