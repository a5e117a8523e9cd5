"""The sweep: for each case (op, shape, dtype) in shuffled order, check every variant, then time the right ones.

Checking comes first and uses its own fresh random inputs; timing uses
others. A variant that is wrong or failed is never timed: a fast wrong
answer is not a result.
"""

import dataclasses
import random
import time
import zlib
from collections.abc import Callable

import torch

from tilelab.bench import correctness, roofline, stats, timing
from tilelab.bench.registry import DTYPES, OpSpec, Variant, VariantOptions, select_variants


@dataclasses.dataclass
class SweepSettings:
    dtypes: list[str]
    precision: str | None = None
    timing: str = "events"  # "events" | "graph"
    cache: str = "cold"  # "warm" | "cold"
    warmup: int = 10
    samples: int = 50
    seed: int = 0
    check_only: bool = False
    compile: bool = False
    compile_mode: str = "max-autotune-no-cudagraphs"
    variants: list[str] | None = None
    graph_calls: int = 0  # 0: sized automatically
    rounds: int = 1  # > 1: the variants take turns, samples/rounds calls at a time (see _time_variants)
    device: torch.device = dataclasses.field(default_factory=lambda: torch.device("cpu"))


@dataclasses.dataclass(frozen=True)
class CasePlan:
    op: OpSpec
    shape: tuple[int, ...]
    dtype: str
    canonical_index: int  # position in the op's shape list: how reports order cases


def case_seed(seed: int, op: str, shape: tuple[int, ...], dtype: str, purpose: str) -> int:
    """A data seed from what the case is, not when it runs: shuffling never changes a case's inputs."""
    return zlib.crc32(f"{seed}|{op}|{'x'.join(map(str, shape))}|{dtype}|{purpose}".encode())


def plan_cases(ops: list[OpSpec], dtypes: list[str], shapes: list[tuple[int, ...]] | None, seed: int,
               small: bool = False) -> list[CasePlan]:
    """All (op, shape, dtype) cases, shuffled with `seed` so no shape always runs first on a cold GPU.

    Raises ValueError for a shape no op can take, before any work: a bad shape found mid-sweep would stop
    every case shuffled after it."""
    for shape in shapes or ():
        _check_shape(ops, shape)
    cases = []
    index = 0
    for op in ops:
        op_shapes = shapes if shapes is not None else (op.check_shapes if small else op.default_shapes)
        for shape in op_shapes:
            if len(shape) != len(op.dims):
                continue  # --op all with shapes: M N K ones go to matmul, batch M N K ones to bmm
            problem = op.validate(shape)
            if problem:
                raise ValueError(f"--shape {' '.join(map(str, shape))} for {op.name}: {problem}")
            for dtype in dtypes:
                if dtype in op.dtypes:
                    cases.append(CasePlan(op, tuple(shape), dtype, index))
                    index += 1
    random.Random(seed).shuffle(cases)
    return cases


def _check_shape(ops: list[OpSpec], shape: tuple[int, ...]) -> None:
    text = " ".join(map(str, shape))
    lengths = {len(op.dims) for op in ops}
    if len(shape) not in lengths:
        if len(ops) == 1:
            raise ValueError(f"{ops[0].name} takes shapes of {len(ops[0].dims)} numbers ({' '.join(ops[0].dims)}), "
                             f"got {text}")
        by_length = {n: [op.name for op in ops if len(op.dims) == n] for n in sorted(lengths)}
        takes = ", ".join(f"{n} ({', '.join(names)})" for n, names in by_length.items())
        raise ValueError(f"no op takes shapes of {len(shape)} numbers (got {text}); ops take {takes}")
    # Zero is refused too: an empty case "passes" every check vacuously and times nothing worth having.
    if min(shape) < 1:
        dims = next(op.dims for op in ops if len(op.dims) == len(shape))
        bad = ", ".join(f"{dim} = {n}" for dim, n in zip(dims, shape, strict=True) if n < 1)
        raise ValueError(f"--shape: every number must be >= 1; got {text} ({bad})")


def _generator(device: torch.device, seed: int) -> torch.Generator:
    generator = torch.Generator(device=device)
    generator.manual_seed(seed)
    return generator


def variants_for(op: OpSpec, dtype: str, settings: SweepSettings) -> list[Variant]:
    options = VariantOptions(
        dtype=DTYPES[dtype], precision=settings.precision, compile=settings.compile,
        compile_mode=settings.compile_mode, on_gpu=settings.device.type == "cuda",
    )
    return select_variants(op.variants(options), settings.variants)


def run_case(case: CasePlan, settings: SweepSettings, ceilings: dict | None, l2_bytes: int | None,
             advance: Callable[[str], None] = lambda label: None) -> dict:
    op, shape, dtype = case.op, case.shape, DTYPES[case.dtype]
    device = settings.device
    precision = settings.precision if dtype == torch.float32 else None
    variants = variants_for(op, case.dtype, settings)
    label = f"{op.name} {'x'.join(map(str, shape))} {case.dtype}"

    # 1. correctness, on fresh random inputs of their own
    inputs = op.make_inputs(shape, dtype, device, _generator(device, case_seed(settings.seed, op.name, shape,
                                                                                 case.dtype, "check")))
    reference = op.reference(*inputs)
    tol = op.tolerance(dtype, precision)
    results = []
    for variant in variants:
        advance(f"{label}: checking {variant.name}")
        checked = correctness.check(variant.run, inputs, reference, tol)
        plan = None
        if checked.status in (correctness.OK, correctness.WRONG):
            try:
                plan = variant.plan(*inputs)
            except Exception as exc:  # the plan is context; its absence must not lose the result
                plan = {"error": f"{type(exc).__name__}: {exc}"}
        results.append({
            "name": variant.name, "baseline": variant.baseline, "status": checked.status,
            "error": checked.error, "tolerance": checked.tolerance, "message": checked.message,
            "plan": plan, "timing": None, "timing_error": None,
            "tflops": None, "gbps": None, "speedup_vs_torch": None, "roofline_fraction": None,
        })
    del inputs, reference

    # 2. timing, on other inputs
    if not settings.check_only:
        _time_variants(case, variants, results, settings, l2_bytes, advance, label)

    flops, nbytes = op.flops(shape), op.bytes_moved(shape, dtype)
    _add_rates(results, flops, nbytes, ceilings, roofline.compute_key(case.dtype, precision))
    return {
        "op": op.name, "metric": op.metric, "dims": op.shape_dict(shape), "shape": list(shape), "dtype": case.dtype,
        "precision": precision, "flops": flops, "bytes": nbytes,
        "intensity": flops / nbytes if nbytes else None,
        "order": -1,
        "roofline_bound_tflops": (roofline.attainable_tflops(ceilings, roofline.compute_key(case.dtype, precision),
                                                             flops, nbytes) if ceilings else None),
        "variants": results,
    }


def _time_variants(case: CasePlan, variants: list[Variant], results: list[dict], settings: SweepSettings,
                   l2_bytes: int | None, advance: Callable[[str], None], label: str) -> None:
    op, shape, dtype = case.op, case.shape, DTYPES[case.dtype]
    device = settings.device
    bytes_per_set = op.bytes_moved(shape, dtype)
    cold = settings.cache == "cold"
    sets = 1
    if cold and settings.timing == "graph" and l2_bytes:
        free, _ = torch.cuda.mem_get_info(device)
        sets = timing.input_sets_for_cold_graph(bytes_per_set, l2_bytes, memory_budget=free // 4)
    input_sets = [
        op.make_inputs(shape, dtype, device, _generator(device, case_seed(settings.seed, op.name, shape,
                                                                           case.dtype, f"time{i}")))
        for i in range(sets)
    ]
    flush = timing.L2Flusher(device, l2_bytes or (64 << 20)) if cold and settings.timing == "events" else None
    # With rounds > 1 the variants take turns: each times its share of the samples, then the next one does.
    # The GPU's clock drifts under sustained load (the H200's fell from 1980 to 1485-1770 MHz within one
    # case, results/h200-sustained-probe.log); taking turns spreads that over every variant alike, instead of
    # penalizing whichever happens to run last. Odd turns go in reverse order: a variant that always followed
    # a slow, low-power one (tilelab-fixed) would always start on a cooler GPU.
    shares = [settings.samples // settings.rounds + (i < settings.samples % settings.rounds)
              for i in range(settings.rounds)]
    timed_parts: dict[int, list] = {i: [] for i, result in enumerate(results) if result["status"] == correctness.OK}
    for turn, share in enumerate(n for n in shares if n):
        for i, variant in timing.in_turn(list(enumerate(variants)), turn):
            if i not in timed_parts or results[i]["timing_error"]:
                continue
            advance(f"{label}: timing {variant.name}" + (f" (round {turn + 1})" if settings.rounds > 1 else ""))
            warmup = settings.warmup if turn == 0 else min(settings.warmup, 2)  # later turns: re-warm briefly
            try:
                if settings.timing == "events":
                    timed = timing.time_events(variant.run, input_sets, warmup=warmup, samples=share, flush=flush)
                else:
                    call_ms = timing.estimate_call_ms(variant.run, input_sets[0])
                    calls = timing.graph_calls(call_ms, len(input_sets), settings.graph_calls)
                    timed = timing.time_graph(variant.run, input_sets, warmup=warmup, samples=share, calls=calls,
                                              cache=settings.cache)
            except Exception as exc:  # e.g. a variant that cannot be captured in a graph
                results[i]["timing_error"] = f"{type(exc).__name__}: {exc}"
                torch.cuda.synchronize(device)  # raises if the failure broke the CUDA context: the sweep stops
                continue
            timed_parts[i].append(timed)
    for i, parts in timed_parts.items():
        if results[i]["timing_error"] or not parts:
            continue
        samples = [ms for part in parts for ms in part.samples_ms]
        last = parts[-1]
        results[i]["timing"] = {
            "mode": last.mode, "cache": last.cache, "samples_ms": samples,
            "calls_per_sample": last.calls_per_sample, "input_sets": last.input_sets,
            **stats.summarize(samples),
        }


def _add_rates(results: list[dict], flops: int, nbytes: int, ceilings: dict | None, compute_key: str) -> None:
    baseline_ms = next((r["timing"]["median_ms"] for r in results if r["baseline"] and r["timing"]), None)
    for r in results:
        if not r["timing"]:
            continue
        ms = r["timing"]["median_ms"]
        if ms <= 0:
            continue
        r["tflops"] = stats.tflops(flops, ms) if flops else None
        r["gbps"] = stats.gbps(nbytes, ms)
        r["speedup_vs_torch"] = stats.speedup(baseline_ms, ms)
        r["roofline_fraction"] = roofline.roofline_fraction(ceilings, compute_key, flops, nbytes, ms)


def summarize_cases(cases: list[dict]) -> dict:
    by_status: dict[str, int] = {s: 0 for s in correctness.STATUSES}
    timed = timing_errors = 0
    for case in cases:
        for v in case["variants"]:
            by_status[v["status"]] += 1
            timed += v["timing"] is not None
            timing_errors += v.get("timing_error") is not None
    return {"cases": len(cases), "checked": sum(by_status.values()), "timed": timed,
            "timing_errors": timing_errors, "by_status": by_status}


class SweepAborted(Exception):
    """The sweep could not go on; `cases` holds what finished before, so it can still be written."""

    def __init__(self, cases: list[dict], reason: str):
        super().__init__(reason)
        self.cases = cases
        self.reason = reason


def record_baseline_kernels(results: list[dict], cases: list[CasePlan], settings: SweepSettings) -> None:
    """Add to each baseline's plan the kernels one call of it launches (`tilelab.bench.kernels`), on the case's
    check inputs. This runs after every case is timed: on the H200, torch's host time per small call measured
    15.3 us before a profiled call and 22.4 us after (results/h200-profiler-overhead.log), and a launch-bound
    case would carry that into its ratio."""
    from tilelab.bench.kernels import launched_kernels

    by_case = {(c.op.name, c.shape, c.dtype): c for c in cases}
    for result in results:
        case = by_case[(result["op"], tuple(result["shape"]), result["dtype"])]
        wanted = {v["name"]: v for v in result["variants"] if v["baseline"] and v["status"] == "ok" and v["plan"]}
        if not wanted:
            continue
        inputs = case.op.make_inputs(case.shape, DTYPES[case.dtype], settings.device,
                                     _generator(settings.device, case_seed(settings.seed, case.op.name, case.shape,
                                                                           case.dtype, "check")))
        for variant in variants_for(case.op, case.dtype, settings):
            if variant.name in wanted:
                wanted[variant.name]["plan"]["kernels"] = launched_kernels(variant.run, *inputs)
        del inputs


def run(cases: list[CasePlan], settings: SweepSettings, ceilings: dict | None, l2_bytes: int | None,
        describe: Callable[[str], None] = lambda text: None,
        case_done: Callable[[], None] = lambda: None,
        checkpoint: Callable[[list[dict]], None] = lambda finished: None,
        time_budget_s: float | None = None) -> list[dict]:
    """Visit the cases in the given (shuffled) order; return them in the ops' own shape order.

    `describe` hears what is running now, `case_done` when a case is finished (for a progress bar),
    `checkpoint` gets every finished case so far (so an interrupted sweep still leaves its evidence).
    With `time_budget_s`, no new case starts once that many seconds have passed.
    """
    started = time.monotonic()
    done = []
    for visit, case in enumerate(cases):
        if time_budget_s is not None and time.monotonic() - started > time_budget_s:
            finished = [result for _, result in sorted(done, key=lambda pair: pair[0])]
            raise SweepAborted(finished, f"the time budget of {time_budget_s:g} s ran out after {len(done)} of "
                                         f"{len(cases)} cases")
        try:
            result = run_case(case, settings, ceilings, l2_bytes, describe)
        except Exception as exc:  # e.g. a kernel fault that poisons the CUDA context for everything after it
            finished = [result for _, result in sorted(done, key=lambda pair: pair[0])]
            shape = "x".join(map(str, case.shape))
            raise SweepAborted(finished, f"{case.op.name} {shape} {case.dtype} failed: {type(exc).__name__}: "
                                         f"{exc}") from exc
        result["order"] = visit
        done.append((case.canonical_index, result))
        if settings.device.type == "cuda":
            torch.cuda.empty_cache()  # the next shape's inputs should not compete with this one's
        case_done()
        checkpoint([result for _, result in sorted(done, key=lambda pair: pair[0])])
    return [result for _, result in sorted(done, key=lambda pair: pair[0])]
