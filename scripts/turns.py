"""Timing for the H200 probe scripts: variants that take turns, as `kernel-bench --rounds` does.

The H200's clock drifts under sustained load (results/h200-sustained-probe.log), so a probe times every
variant a little at a time, round after round, and keeps each one's median.
"""

import statistics

from tilelab import tuning


def first_calls(variants: dict) -> dict:
    """Call each variant once (compiling it); drop from `variants`, and report, those that fail.

    Returns {name: what the call returned} for the ones that work.
    """
    outputs = {}
    for name, launch in list(variants.items()):
        try:
            outputs[name] = launch()
        except Exception as error:  # a variant that does not compile or fit is a result too
            print(f"  {name} failed: {type(error).__name__}: {str(error)[:200]}", flush=True)
            del variants[name]
    return outputs


def medians_in_turns(variants: dict, rounds: int) -> dict[str, float]:
    """Median milliseconds per variant (tuning.measure_ms: CUDA events, cold L2), the variants taking turns."""
    samples = {name: [] for name in variants}
    for _ in range(rounds):
        for name, launch in variants.items():
            samples[name].append(tuning.measure_ms(launch))
    return {name: statistics.median(times) for name, times in samples.items()}
