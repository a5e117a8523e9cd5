"""Timing for the H200 probe scripts: variants that take turns, as `kernel-bench --rounds` does.

The H200's clock drifts under sustained load (results/h200-sustained-probe.log), so a probe times every
variant a little at a time, round after round, and keeps each one's median.
"""

import contextlib
import statistics
from unittest import mock

from tilelab import tuning
from tilelab.reference import relative_error


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


def report_in_turns(title: str, variants: dict, rounds: int, *, reference=None, baseline: str = "torch",
                    by_time: bool = False) -> dict[str, float]:
    """Call every variant once (`first_calls`), time them in turns (`medians_in_turns`) and print one line each:
    median, speedup against `baseline`, and the relative error against `reference` (a float64 result, or None
    to skip it). `by_time` lists the fastest first. Returns the medians in ms."""
    outputs = first_calls(variants)
    errors = {} if reference is None else {name: relative_error(out, reference) for name, out in outputs.items()}
    medians = medians_in_turns(variants, rounds)
    base_ms = medians[baseline]
    print(f"{title}: {baseline} {base_ms * 1e3:.1f} us", flush=True)
    width = max(map(len, medians))
    rows = sorted(medians.items(), key=lambda item: item[1]) if by_time else medians.items()
    for name, ms in rows:
        err = f" err {errors[name]:.1e}" if name in errors else ""
        print(f"  {name:{width}s} {ms * 1e3:8.1f} us ({base_ms / ms:.3f}x {baseline}){err}", flush=True)
    return medians


def _replaced(attributes: dict):
    """The named attributes (a threshold, a rule) replaced in whichever of tilelab.ops.matmul and its planner,
    tilelab.ops.matmul_plan, holds them (both, for a name the first imports from the second)."""
    from tilelab.ops import matmul as matmul_op
    from tilelab.ops import matmul_plan

    stack = contextlib.ExitStack()
    for module in (matmul_op, matmul_plan):
        held = {name: value for name, value in attributes.items() if hasattr(module, name)}
        if held:
            stack.enter_context(mock.patch.multiple(module, **held))
    unknown = [name for name in attributes if not any(hasattr(m, name) for m in (matmul_op, matmul_plan))]
    if unknown:
        raise AttributeError(f"neither tilelab.ops.matmul nor matmul_plan has {unknown}")
    return stack


def planned(fn, **attributes):
    """`fn` made to plan every call: tilelab.matmul's recorded launches are forgotten first, and the named
    attributes of tilelab.ops.matmul or matmul_plan (a threshold, a stride rule) are replaced for the call's
    duration."""
    from tilelab.ops import matmul as matmul_op

    def run():
        matmul_op._REPLAYS.clear()
        with _replaced(attributes):
            return fn()
    return run


def recorded_launch(a, b, *, path=None, config=None, **attributes):
    """tilelab.matmul(a, b, path=path, config=config) called once, with the named attributes of tilelab.ops.matmul
    or matmul_plan replaced (a threshold, a rule), then its recorded launch (the replay: no planning in the timing)
    and its plan (`describe_plan`)."""
    import tilelab
    from tilelab.ops import matmul as matmul_op

    matmul_op._REPLAYS.clear()
    with _replaced(attributes):
        tilelab.matmul(a, b, path=path, config=config)
        plan = matmul_op.describe_plan(a, b, path=path, config=config)
    (replay,) = matmul_op._REPLAYS.values()
    return (lambda: replay(a, b)), plan


def rounds_argument(default: int = 10) -> int:
    """The probes' one option, --rounds: how many turns each variant gets."""
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=default)
    return parser.parse_args().rounds


def operands_with_torch(m: int, n: int, k: int, dtype=None):
    """Random A [M, K] and B [K, N] on the GPU (fp16 unless `dtype`), and the variants dict every probe starts
    from: torch.mm on them."""
    import functools

    import torch

    dtype = dtype or torch.float16
    a = torch.randn(m, k, device="cuda", dtype=dtype)
    b = torch.randn(k, n, device="cuda", dtype=dtype)
    return a, b, {"torch": functools.partial(torch.mm, a, b)}


def record_default(variants: dict, a, b) -> dict:
    """Add tilelab.matmul's default for A @ B to `variants` (its recorded launch, as `recorded_launch`), print
    the path and configuration it chose, and return that plan."""
    variants["default"], plan = recorded_launch(a, b)
    print(f"  default: {plan['path']} {plan['config']}", flush=True)
    return plan
