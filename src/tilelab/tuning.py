"""Tile configurations, and choosing one per problem by measuring.

A `Config` is everything a matmul launch needs besides its operands. The
autotuner times a short candidate list once per problem *kind* (GPU, Triton
version, dtypes, layout, path and a shape bucket) and remembers the winner in
memory and on disk, so a second process pays nothing. Winners measured on the
H200 ship with the package in `tuned/`, consulted before any timing.
"""

import concurrent.futures
import contextlib
import contextvars
import dataclasses
import functools
import json
import math
import os
import statistics
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import torch
import triton

from tilelab import env


@dataclasses.dataclass(frozen=True)
class Config:
    block_m: int
    block_n: int
    block_k: int
    group_m: int = 8
    num_warps: int = 4
    num_stages: int = 3

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)

    def label(self) -> str:
        return f"{self.block_m}x{self.block_n}x{self.block_k}-g{self.group_m}-w{self.num_warps}-s{self.num_stages}"

    @classmethod
    def from_dict(cls, d: dict) -> "Config":
        return cls(**{f.name: d[f.name] for f in dataclasses.fields(cls) if f.name in d})

    def shared_memory_bytes(self, element_size: int, out_element_size: int = 0) -> int:
        """Shared memory: one A and one B tile per pipeline stage, and the C tile when the epilogue stages it
        there (descriptor stores). Triton 3.6 puts a 2-byte C tile in the pipeline's buffers, free after the
        loop; a 4-byte one needs room of its own (sm_90 compiles, tests/unit/test_descriptor_shared_memory.py)."""
        pipeline = (self.block_m + self.block_n) * self.block_k * element_size * self.num_stages
        c_tile = self.block_m * self.block_n * out_element_size
        return max(pipeline, c_tile) if out_element_size <= 2 else pipeline + c_tile


# The seed lesson's configuration: small square-ish tiles, plain row-major tile order.
FIXED = Config(block_m=32, block_n=64, block_k=32, group_m=1, num_warps=4, num_stages=2)
# Under the interpreter each program runs in numpy: one mid-sized tile, GROUP_M order kept.
INTERPRETER = Config(block_m=32, block_n=64, block_k=32, group_m=8, num_warps=4, num_stages=1)

NAMED_CONFIGS: dict[str, Config] = {"fixed": FIXED, "interpreter": INTERPRETER}

# Candidates for the GPU, largest tiles first. 128x256 tiles with 8 warps keep
# Hopper's wgmma busy; the smaller ones exist for narrow or short problems.
GPU_CANDIDATES: tuple[Config, ...] = (
    Config(128, 256, 64, 8, num_warps=8, num_stages=3),
    Config(128, 128, 64, 8, num_warps=8, num_stages=4),
    Config(128, 128, 64, 8, num_warps=4, num_stages=4),
    Config(64, 256, 64, 8, num_warps=4, num_stages=4),
    Config(128, 64, 64, 8, num_warps=4, num_stages=4),
    Config(64, 128, 64, 8, num_warps=4, num_stages=4),
    Config(64, 64, 64, 8, num_warps=4, num_stages=4),
    Config(64, 32, 64, 8, num_warps=4, num_stages=5),
    # Skinny problems (decode-like M=16): few rows, long K steps.
    Config(32, 64, 128, 8, num_warps=4, num_stages=4),
    Config(16, 64, 128, 8, num_warps=4, num_stages=4),
    Config(16, 128, 128, 8, num_warps=4, num_stages=3),
    # Added 2026-11-29: twice the bytes per K step, for mid-sized problems whose few K steps are latency-bound.
    Config(64, 128, 128, 8, num_warps=4, num_stages=3),
    Config(128, 128, 128, 8, num_warps=8, num_stages=3),
    # Added in session 4: on the descriptor path, 1024^3 at 0.94-0.95x torch against 0.86-0.91x for the
    # split-K path's choice (results/h200-small-shapes-probe.log).
    Config(128, 64, 128, 8, num_warps=4, num_stages=4),
    # Added in session 5: for tiny launch-bound problems, more programs that each finish K in one or two steps.
    # At 127x255x65 it and 16x64x128 are within 3% of each other, first one then the other
    # (results/h200-session5-probe.log, h200-retune-tiny.log).
    Config(32, 32, 128, 8, num_warps=4, num_stages=3),
    # Added in session 6: 64x128x128 with a fourth stage. As split-K tiles at 128x4096x4096 they measured 20.5 us
    # (results/h200-skinny-probe.log) where the 3-stage ones took 23.3 us in tuning (tuned/h200.json).
    Config(64, 128, 128, 8, num_warps=4, num_stages=4),
    # Added in session 9: the large tile with a fourth stage, on the descriptor path at fp16 3000^3 (rows off
    # 32-byte sectors) 110.2 us against 119.1 with 3 in a probe (results/h200-line-alignment-paths-probe.log);
    # the re-tune there measured 119.9 against 118.8 and kept 3 (results/h200-retune-rows-off-sectors.log).
    Config(128, 256, 64, 8, num_warps=8, num_stages=4),
    # Added in session 14: at 127x255x65, 64 programs of 16x32 that finish K in one step. In turns with torch.mm
    # (events, cold L2; results/h200-tiny-floor-probe.log): 5.34 us against 5.80 for the shipped 16x64x128 in 4
    # stages and 6.22 for torch.mm; an empty kernel takes 3.0 us.
    Config(16, 32, 128, 8, num_warps=4, num_stages=2),
)

# Tiles 1.5 powers of two wide (`is_wide`), for the descriptor path only (`matmul_wide_kernel`): where powers
# of two fill 132 SMs badly, between powers of two. In turns with torch, fp16 (calls OOOOOO, PPPPPP,
# results/h200-three-halves-probe.log, -2.log): 1536^3 18.3 us against the default's 21.8 (torch 15.6),
# 768x4096x4096 39.6 against 46.1 (39.4), 768x3072x4096 36.3 against 44.0 (33.0); 8 warps were 5-10% slower,
# three dots of 64 columns 5-8%.
WIDE_CANDIDATES: tuple[Config, ...] = (
    Config(128, 192, 64, 8, num_warps=4, num_stages=4),
    Config(128, 192, 64, 8, num_warps=4, num_stages=5),
)

SHARED_MEMORY_BUDGET = 227 * 1024  # bytes per block on Hopper (sm_90)
SPLIT_K_LIMIT = 64  # an explicit config's most K slices (more only multiply partial tiles and counters)


def prune(candidates: Sequence[Config], m: int, n: int, element_size: int, out_element_size: int = 0,
          shared_budget: int = SHARED_MEMORY_BUDGET) -> list[Config]:
    """Drop configs that cannot fit, or that waste most of every tile on this shape."""
    kept = []
    widest_m, widest_n = padding_limits(m, n)
    for c in candidates:
        if c.shared_memory_bytes(element_size, out_element_size) > shared_budget:
            continue
        if c.block_m > widest_m or c.block_n > widest_n:
            continue
        kept.append(c)
    return kept or [min(candidates, key=lambda c: c.block_m * c.block_n)]


# The longest side a matmul tile may have. Masked lanes past a matrix's edge still form offsets, up to one tile
# side past it: the 32- or 64-bit offset choice (`ops.matmul_plan.needs_64bit_offsets`) is made before a config is.
MAX_TILE_EDGE = 256


def is_power_of_two(x: int) -> bool:
    return x > 0 and x & (x - 1) == 0


def is_wide(config) -> bool:
    """Whether a tile is 1.5 powers of two wide (block_n 48, 96, 192, ...): two blocks, one half the other's
    width, side by side (`tilelab.kernels.matmul.matmul_wide_kernel`)."""
    return config.block_n % 3 == 0 and is_power_of_two(config.block_n // 3) and config.block_n >= 48


def ceil_div(x: int, d: int) -> int:
    """ceil(x / d) for host-side tile counts. (`triton.cdiv` works on the host too, but as a Triton
    function it costs about 1.4 us a call: a planned split-K call made 227 of them, 0.5 ms in all.)"""
    return -(-x // d)


def tile_count(m: int, n: int, config) -> int:
    """How many config.block_m x config.block_n tiles cover C [m, n] (a partial tile counts whole): the
    programs of a one-tile-per-program grid, the work items of a persistent one."""
    return ceil_div(m, config.block_m) * ceil_div(n, config.block_n)


def padding_limits(m: int, n: int) -> tuple[int, int]:
    """The tallest and widest tiles worth trying for C [m, n] (both tuners' `prune`): a tile more than twice
    the problem's edge, rounded up to a power of two (at least 16), is mostly padding, and a smaller candidate
    does the same job."""
    return 2 * pow2_at_least(m, 16), 2 * pow2_at_least(n, 16)


def pow2_at_least(x: int, floor: int) -> int:
    """The smallest power of two >= x, at least `floor` (on the host: `triton.next_power_of_2` is a Triton
    function, 1.5 us a call)."""
    return max(floor, 1 << max(0, math.ceil(math.log2(max(x, 1)))))


def half_octave_at_least(x: int) -> int:
    """The smallest of 1, 2, 3, 4, 6, 8, 12, ... (powers of two and 1.5 times them) that is >= x."""
    power = pow2_at_least(x, 1)
    return power * 3 // 4 if power >= 4 and power * 3 // 4 >= x else power


def shape_bucket(m: int, n: int, k: int, fine: bool = False) -> str:
    """Problems whose dims round to the same powers of two share a tuned choice; `fine`: to the same half
    octaves (`half_octave_at_least`), as the matmul's tuning keys do since 768 and 1024 rows, which make 36
    and 64 tiles of 128x128, measured different winners (`tilelab.ops.matmul._fallback_key`)."""
    round_up = half_octave_at_least if fine else functools.partial(pow2_at_least, floor=1)
    return "x".join(str(round_up(d)) for d in (m, n, k))


class TuningCache:
    """Tuned winners: the user's disk cache, then the shipped table, then measure."""

    def __init__(self, path: Path | None = None):
        self.path = path or Path(os.environ.get("TILELAB_CACHE_DIR", Path.home() / ".cache" / "tilelab")) / (
            f"tuning-triton{triton.__version__}.json"
        )
        self._lock = threading.Lock()
        self._entries: dict[str, dict] = self._load(self.path)
        self._shipped: dict[str, dict] = {}
        # TILELAB_SHIPPED_TUNING=0 ignores the shipped tables: re-tuning a shape they already cover.
        if os.environ.get("TILELAB_SHIPPED_TUNING", "1") != "0":
            for table in Path(__file__).with_name("tuned").glob("*.json"):
                self._shipped.update(self._load(table))

    @staticmethod
    def _load(path: Path) -> dict:
        """The file's entries; a damaged file (not JSON, or not shaped as `put` writes it) costs a re-tune, never
        a failed call: what cannot be read is left out, and the next `put` writes the file anew."""
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            return {}
        entries = data.get("entries") if isinstance(data, dict) else None
        if not isinstance(entries, dict):
            return {}
        return {key: entry for key, entry in entries.items()
                if isinstance(entry, dict) and isinstance(entry.get("config"), dict)}

    def get(self, key: str, config_type: type = Config):
        """The remembered winner for `key` as a `config_type` (Config, or a subclass-like with from_dict): the
        user's entry, else the shipped one; None when neither can be read as one."""
        for entries in (self._entries, self._shipped):
            if key in entries:
                try:
                    return config_type.from_dict(entries[key]["config"])
                except (TypeError, ValueError):  # a field missing, or a value the config refuses: tune again
                    continue
        return None

    def put(self, key: str, config: Config, timings_ms: dict[str, float]) -> None:
        with self._lock:
            self._entries[key] = {"config": config.as_dict(), "timings_ms": timings_ms}
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                tmp = self.path.with_suffix(".tmp")
                tmp.write_text(json.dumps({"entries": self._entries}, indent=1, sort_keys=True))
                tmp.replace(self.path)
            except OSError:
                pass  # a read-only home still tunes, it just forgets at exit


_cache: TuningCache | None = None


def cache() -> TuningCache:
    global _cache
    if _cache is None:
        _cache = TuningCache()
    return _cache


TUNING_SAMPLES = 16
# The candidates take turns, TUNING_SAMPLES // TUNING_ROUNDS calls at a time, in forward then reverse order.
# Timed one after the other, the first candidates of a large problem ran on a cool GPU and the later ones on a
# clock throttled by sustained load (results/h200-sustained-probe.log): in the shipped table's 8192^3 entries the
# first candidate measured 7-12% ahead of its near-twins. Turns spread a clock drop over all of them, and an even
# number of there-and-back rounds cancels a steady drift (every candidate's turns average the same position).
TUNING_ROUNDS = 4
# GPU head start per sample: more than one un-replayed launch costs on the CPU. Without it, small problems
# time Triton's Python launch path (~0.1-0.2 ms) instead of the kernel, and the winner is noise.
TUNING_HEAD_START_MS = 0.5


@functools.cache
def _flusher(device_index: int):
    from tilelab.bench.timing import L2Flusher

    l2_bytes = torch.cuda.get_device_properties(device_index).L2_cache_size
    return L2Flusher(torch.device("cuda", device_index), l2_bytes)


def measure_ms(launch: Callable[[], None], samples: int = TUNING_SAMPLES) -> float:
    """Median GPU time of `samples` calls of `launch()` in ms, as kernel-bench measures: CUDA events, a cold L2
    before every call, and the CPU queued ahead of the GPU (the first call, which compiles, is not timed)."""
    from tilelab.bench import timing

    flush = _flusher(torch.cuda.current_device())
    result = timing.time_events(launch, [()], warmup=2, samples=samples, flush=flush,
                                head_start_ms_per_sample=TUNING_HEAD_START_MS)
    return statistics.median(result.samples_ms)


def turn_order(candidates: Sequence, rounds: int = TUNING_ROUNDS) -> list:
    """The order `choose` times candidates in: every candidate once per round, forward then back."""
    from tilelab.bench.timing import in_turn

    return [c for turn in range(rounds) for c in in_turn(candidates, turn)]


_EXPLORING = contextvars.ContextVar("tilelab_tuning_exploring", default=False)


@contextlib.contextmanager
def exploring():
    """Inside: `choose` tunes a key it does not know even where its `fallback_key` is known (`pretune`)."""
    token = _EXPLORING.set(True)
    try:
        yield
    finally:
        _EXPLORING.reset(token)


def known(key: str, config_type: type = Config, fallback_key: str | None = None):
    """The remembered winner for `key`; else, outside `exploring()`, `fallback_key`'s; None if neither."""
    found = cache().get(key, config_type)
    if found is None and fallback_key is not None and not _EXPLORING.get():
        found = cache().get(fallback_key, config_type)
    return found


# The candidates compile before any is timed, several at a time: Triton's compiler releases the GIL, so threads
# overlap (8 conv tiles for sm_90 on 2 cores: 4.2 s one by one, 2.3 s on 2 threads, the same cubins; on the H200's
# host, first-sight tuning 1.6-5.3x faster on 8 threads, results/h200-compile-ahead-probe.log).
# TILELAB_COMPILE_THREADS=1 compiles each candidate when it is first timed, as before.
COMPILE_THREADS = 8


def compile_threads() -> int:
    """TILELAB_COMPILE_THREADS, else the CPU count up to COMPILE_THREADS."""
    setting = os.environ.get("TILELAB_COMPILE_THREADS")
    if setting is None:
        return min(COMPILE_THREADS, os.cpu_count() or 1)
    try:
        return max(1, int(setting))
    except ValueError:
        raise ValueError(f"TILELAB_COMPILE_THREADS must be a whole number of threads; got {setting!r}") from None


_COLLECTING = contextvars.ContextVar("tilelab_tuning_collecting", default=False)


@contextlib.contextmanager
def _launches_only_collected(found: list):
    """Inside: a Triton launch that would compile returns instead, compiling and running nothing, and its kernel
    and specialization are appended to `found` (Triton's jit_cache_hook: a hook returning True skips both). The
    hook is global, so launches from other threads go on to the hook that was there before."""
    runtime = triton.knobs.runtime
    previous = runtime.jit_cache_hook

    def collect(**kwargs):
        if not _COLLECTING.get():  # another thread's launch (each thread has its own context)
            return previous(**kwargs) if previous else None
        found.append((kwargs["fn"].jit_function, kwargs["compile"]["specialization_data"]))
        return True

    runtime.jit_cache_hook = collect
    token = _COLLECTING.set(True)
    try:
        yield
    finally:
        _COLLECTING.reset(token)
        runtime.jit_cache_hook = previous


def compile_ahead(launches: Sequence[Callable[[], None]], threads: int | None = None) -> int:
    """Compile every kernel that `launches` would compile, on `threads` threads, without running any: each
    launch runs once with launching switched off, then the kernels it would have compiled compile together into
    Triton's caches (`JITFunction.preload`, what a launch would find). A launch that fails that way (it needed a
    kernel's result) or a kernel that fails to compile is left for the timed launch to meet. Returns how many
    kernels compiled."""
    threads = compile_threads() if threads is None else threads
    if threads <= 1 or not torch.cuda.is_available() or env.interpreting():
        return 0
    found: list = []
    with _launches_only_collected(found):
        for launch in launches:
            try:
                launch()
            except Exception:  # compiled, and its error raised, when timed
                pass
    device = torch.cuda.current_device()

    def compile_one(item) -> bool:
        kernel, specialization = item
        torch.cuda.set_device(device)  # a thread starts on device 0
        try:
            kernel.preload(specialization)
        except Exception:  # compiled, and its error raised, when timed
            return False
        return True

    unique = list({specialization: (kernel, specialization) for kernel, specialization in found}.values())
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        return sum(pool.map(compile_one, unique))


def choose(key: str, candidates: Sequence[Config], launch: Callable[[Config], None], *,
           config_type: type = Config, measure: bool = True, fallback_key: str | None = None):
    """The fastest candidate for this key, measured at most once per key.

    With `measure=False` an unknown key gets the first candidate and nothing is timed: paths whose
    default is already a measured choice tune only when asked to (`pretune`, `kernel-bench --tune`).
    `fallback_key`: a coarser key whose winner an unknown `key` takes instead of being timed, except
    inside `exploring()`, where `key` gets its own.
    """
    found = known(key, config_type, fallback_key)
    if found is not None:
        return found
    if not measure or env.interpreting():
        return candidates[0]
    if torch.cuda.is_current_stream_capturing():
        # Timing inside graph capture would record the trials into the graph.
        return candidates[0]
    if _COLLECTING.get():
        # A launch being collected by compile_ahead runs nothing, so nothing could be timed.
        return candidates[0]
    compile_ahead([lambda c=c: launch(c) for c in candidates])
    rounds: dict = {c: [] for c in candidates}  # per candidate, the median of each of its turns
    for c in turn_order(candidates):
        if c not in rounds:
            continue  # did not fit or compile
        try:
            rounds[c].append(measure_ms(lambda c=c: launch(c), TUNING_SAMPLES // TUNING_ROUNDS))
        except (triton.runtime.errors.OutOfResources, triton.compiler.errors.CompilationError):
            del rounds[c]
    timings = {c: statistics.median(medians) for c, medians in rounds.items()}
    if not timings:
        return candidates[-1]
    best = min(timings, key=timings.get)
    cache().put(key, best, {c.label(): round(t, 5) for c, t in timings.items()})
    return best

