"""Summaries of timing samples and the rates derived from them. Pure functions, no GPU."""

import math
import statistics
from collections.abc import Sequence


def percentile(samples: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100), linear between closest ranks, like numpy's default."""
    if not samples:
        raise ValueError("percentile of no samples")
    if not 0 <= q <= 100:
        raise ValueError(f"q must be within 0..100, got {q}")
    ordered = sorted(samples)
    position = (len(ordered) - 1) * q / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summarize(samples_ms: Sequence[float]) -> dict:
    """Median first: one descheduled sample should not move the headline number."""
    if not samples_ms:
        raise ValueError("no samples to summarize")
    if any(not math.isfinite(s) or s < 0 for s in samples_ms):
        raise ValueError("samples must be finite and non-negative")
    return {
        "median_ms": statistics.median(samples_ms),
        "min_ms": min(samples_ms),
        "max_ms": max(samples_ms),
        "mean_ms": statistics.fmean(samples_ms),
        "stdev_ms": statistics.stdev(samples_ms) if len(samples_ms) > 1 else 0.0,
        "p10_ms": percentile(samples_ms, 10),
        "p90_ms": percentile(samples_ms, 90),
    }


def tflops(flops: float, ms: float) -> float:
    """FLOPs done in `ms` milliseconds, in TFLOP/s."""
    if ms <= 0:
        raise ValueError(f"time must be positive, got {ms} ms")
    return flops / (ms * 1e-3) / 1e12


def gbps(nbytes: float, ms: float) -> float:
    """Bytes moved in `ms` milliseconds, in GB/s (10^9 bytes per second)."""
    if ms <= 0:
        raise ValueError(f"time must be positive, got {ms} ms")
    return nbytes / (ms * 1e-3) / 1e9


def speedup(baseline_ms: float | None, ms: float | None) -> float | None:
    """How many times faster than the baseline (>1 is faster); None when either is missing."""
    if baseline_ms is None or ms is None or ms <= 0:
        return None
    return baseline_ms / ms


def geometric_mean(values: Sequence[float]) -> float | None:
    """The right average of ratios such as speedups; None for an empty list."""
    values = [v for v in values if v is not None]
    if not values:
        return None
    if any(v <= 0 for v in values):
        raise ValueError("geometric mean needs positive values")
    return math.exp(sum(math.log(v) for v in values) / len(values))
