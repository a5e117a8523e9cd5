"""Statistics helpers: the numbers every headline rests on."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tilelab.bench import stats

samples = st.lists(st.floats(min_value=0, max_value=1e4, allow_nan=False), min_size=1, max_size=50)


@given(samples, st.floats(min_value=0, max_value=100))
def test_percentile_matches_numpy(values, q):
    assert stats.percentile(values, q) == pytest.approx(float(np.percentile(values, q)), rel=1e-9, abs=1e-9)


@given(samples)
def test_summary_is_ordered(values):
    s = stats.summarize(values)
    assert s["min_ms"] <= s["p10_ms"] <= s["median_ms"] <= s["p90_ms"] <= s["max_ms"]
    assert s["min_ms"] <= s["mean_ms"] * (1 + 1e-12) and s["mean_ms"] <= s["max_ms"] * (1 + 1e-12)


def test_median_ignores_one_outlier():
    assert stats.summarize([1.0, 1.0, 1.0, 1.0, 100.0])["median_ms"] == 1.0


def test_summary_rejects_bad_samples():
    with pytest.raises(ValueError):
        stats.summarize([])
    with pytest.raises(ValueError):
        stats.summarize([1.0, math.nan])
    with pytest.raises(ValueError):
        stats.summarize([-1.0])


def test_rates():
    # 2 * 4096^3 FLOPs in 0.2 ms is 687.2 TFLOP/s
    assert stats.tflops(2 * 4096**3, 0.2) == pytest.approx(687.19476736)
    assert stats.gbps(4.8e9, 1000.0) == pytest.approx(4.8)
    with pytest.raises(ValueError):
        stats.tflops(1, 0.0)


def test_speedup_direction():
    assert stats.speedup(baseline_ms=2.0, ms=1.0) == 2.0  # twice as fast as torch
    assert stats.speedup(None, 1.0) is None
    assert stats.speedup(1.0, None) is None


def test_geometric_mean():
    assert stats.geometric_mean([2.0, 0.5]) == pytest.approx(1.0)
    assert stats.geometric_mean([]) is None
    with pytest.raises(ValueError):
        stats.geometric_mean([1.0, 0.0])
