"""Launching the Hopper matmul kernels: persistent (TMA + wgmma) and split-K.

The operands arrive exactly as `tilelab.ops.matmul._launch` receives them:
[batch, rows, cols] views a3 = [batch, M, K], b3 = [batch, K, N] (batch
stride 0 or a size-1 batch when broadcast) and an output c3 = [batch, M, N]
with a unit inner stride (for the persistent kernel: 16-byte aligned rows,
as `_allocate_output` pads them). Nothing here checks arguments: the public
op has done that.

`HopperConfig` extends `tuning.Config` with the knobs only these kernels
have; the candidate lists below are the starting points for the H200.
"""

import dataclasses
import functools
import math

import torch
import triton

from tilelab.contracts import ContractError, ShapeError
from tilelab.kernels.matmul_persistent import matmul_persistent_kernel
from tilelab.kernels.matmul_splitk import matmul_splitk_descriptor_kernel, matmul_splitk_kernel
from tilelab.ops.bound_launch import stream_getter
from tilelab.ops.descriptors import ensure_descriptor_scratch, host_descriptors, host_operand_descriptors
from tilelab.ops.matmul import _TRITON_TYPE as _MATMUL_TRITON_TYPE
from tilelab.ops.matmul import MAX_GRID_Y, _add_epilogue, class_tile_count, epilogue_args
from tilelab.ops.matmul_plan import OperandLayout, batch_stride, needs_64bit_offsets, pointer_align
from tilelab.tuning import SHARED_MEMORY_BUDGET, Config, ceil_div, padding_limits, tile_count

INTERPRETER_SMS = 4  # programs of the persistent grid under the interpreter: small, so tiles outnumber them


@dataclasses.dataclass(frozen=True)
class HopperConfig(Config):
    """A `tuning.Config` plus the knobs only the Hopper kernels have."""

    num_warps: int = 8  # two consumer warp groups: the classic Hopper tile
    epilogue_subtile: bool = True  # store C as two BLOCK_N/2 halves (persistent and fp8 kernels)
    warp_specialize: bool = False  # persistent kernel only; see `warp_specialize_compiles`
    flatten: bool = False  # persistent and fp8 kernels: fuse the tile and K loops into one pipelined loop
    split_k: int = 1  # split-K kernel only: number of K slices

    def label(self) -> str:
        flags = "".join((
            "-sub" if self.epilogue_subtile else "",
            "-ws" if self.warp_specialize else "",
            "-flat" if self.flatten else "",
            f"-sk{self.split_k}" if self.split_k > 1 else "",
        ))
        return super().label() + flags

    @property
    def store_block_n(self) -> int:
        """Columns of C stored at a time: half the tile with epilogue subtiling (C's descriptor block)."""
        return self.block_n // 2 if self.epilogue_subtile else self.block_n

    def shared_memory_bytes(self, in_size: int, out_size: int) -> int:
        """What Triton 3.6 allocates on sm_90 for the persistent kernels (checked against compiled metadata).

        num_stages A+B buffers for the TMA pipeline, plus a staging tile for
        the TMA store of C (half as wide with epilogue subtiling). They are
        not aliased, so both count. (Warp-specialized, the two halves get a
        buffer each: no saving.)
        """
        pipeline = self.num_stages * (self.block_m + self.block_n) * self.block_k * in_size
        halved = self.epilogue_subtile and not self.warp_specialize
        epilogue = self.block_m * self.block_n * out_size // (2 if halved else 1)
        return pipeline + epilogue


def warp_specialize_compiles(config: HopperConfig, in_size: int = 2) -> bool:
    """Whether Triton 3.6 actually warp-specializes this config on sm_90 (compiled without a GPU).

    `in_size`: bytes per input element (fp16/bf16: 2, fp32: 4).
    - fp16/bf16 only: with float32 inputs (tf32 wgmma) the warp-specialized
      kernel fails to compile (an m64n128k8 tf32 wgmma shape assertion in
      NVGPUToLLVM); with "ieee" there is no wgmma and nothing is specialized.

    - num_warps=4 only: the compiler adds a producer warp group (TMA) and one
      consumer warp group per 64 rows of the tile, 12 warps for BLOCK_M=128.
      With num_warps=8 the flag is accepted and ignored: the code is identical.
    - BLOCK_M=128 is split between two consumer groups, and that split does
      not support the subtiled epilogue's reshape/permute/split: compilation
      fails ("unsupported op type" in WSDataPartition), so no subtiling there.
    - FLATTEN: the fused loop is not specialized (flag ignored).
    """
    if not config.warp_specialize:
        return True
    if in_size != 2 or config.num_warps != 4 or config.flatten:
        return False
    return not (config.epilogue_subtile and config.block_m > 64)


def _c(bm, bn, bk, warps, stages, group_m=8, **kw) -> HopperConfig:
    return HopperConfig(bm, bn, bk, group_m, num_warps=warps, num_stages=stages, **kw)


# Persistent fp16/bf16, largest first. 128x256x64 with 8 warps (two consumer warp groups of
# 64x256 wgmma each) is the classic Hopper tile; 4 stages just fits with a subtiled epilogue.
PERSISTENT_CANDIDATES: tuple[HopperConfig, ...] = (
    _c(128, 256, 64, 8, 3),
    _c(128, 256, 64, 8, 4),
    _c(128, 256, 64, 8, 3, epilogue_subtile=False),
    _c(128, 256, 64, 4, 3, epilogue_subtile=False, warp_specialize=True),
    _c(128, 128, 64, 8, 4),
    _c(128, 128, 64, 4, 4, epilogue_subtile=False, warp_specialize=True),
    _c(128, 128, 64, 4, 4),
    _c(64, 256, 64, 4, 4),
    _c(128, 64, 64, 4, 4),
    _c(64, 128, 64, 4, 4, warp_specialize=True),
    _c(64, 64, 64, 4, 4),
    # Added 2026-11-29 for the tuner to try at large shapes: flattened loops, wider groups, tall tiles.
    _c(128, 256, 64, 8, 3, flatten=True),
    _c(128, 256, 64, 8, 4, group_m=16),
    _c(256, 128, 64, 8, 3),
    # Added in session 5, after fp8 gained from fused loops with 4 stages (FP8_CANDIDATES below).
    _c(128, 256, 64, 8, 4, flatten=True),
)

# Split-K for skinny problems (M of 16..256 with a long K): short tiles, long K steps, 1-8 slices (1: no
# split, the plain kernel, so the tuner can also decide against splitting).
SPLIT_K_CANDIDATES: tuple[HopperConfig, ...] = tuple(
    HopperConfig(bm, bn, bk, 8, num_warps=warps, num_stages=stages, epilogue_subtile=False, split_k=s)
    for bm, bn, bk, stages, warps in ((16, 64, 128, 4, 4), (32, 64, 128, 4, 4), (64, 64, 64, 4, 4),
                                      (64, 128, 64, 4, 4), (128, 128, 64, 3, 8),
                                      # Added 2026-11-29 for M=128: all rows in one tile, so B is read once.
                                      (128, 64, 128, 4, 4), (128, 256, 64, 3, 8),
                                      # ... and longer K steps for the short, latency-bound K loops.
                                      (64, 128, 128, 3, 4), (64, 64, 128, 4, 4),
                                      # Added in session 6: the same with 4 stages: 0.91x torch at 128x4096x4096
                                      # in results/h200-skinny-probe.log; 3 stages tuned at 23.3 us, 0.80x.
                                      (64, 128, 128, 4, 4),
                                      # ... and half the K step in twice the stages: 0.91-0.92x there, 16x64x64
                                      # 1.04-1.06x at 16x4096x4096 (results/h200-skinny-evict-probe.log).
                                      (64, 128, 64, 8, 4), (16, 64, 64, 8, 4),
                                      # Added in session 10: a deep pipeline of long K steps, unsplit 0.96x /
                                      # 0.98x torch at 128x4096x4096 (results/h200-skinny-stages-probe.log).
                                      (64, 64, 128, 6, 4), (64, 64, 128, 7, 4),
                                      # Added in session 18: tiles that read A and B 8 times each at 1000 rows
                                      # and columns, for B's rows off sectors: 27.5 us in 2 slices at
                                      # 1000x1000x4000 against 30.6 for the default 64x128x128 (and 28.0 for
                                      # 128x64x128), 42.7 against 54.9 at 1000x1000x8000
                                      # (results/h200-long-k-off-sector-probe.log).
                                      (128, 128, 128, 3, 8))
    # 3 slices: 768x768x16384 (36 tiles of 128x128) took 46.9 us in 3 slices of 64x128 tiles against 58.7 in 2,
    # and torch 40.6 (results/h200-long-k-tuning-probe.log).
    for s in (1, 2, 3, 4, 8)
)

# fp8 (1-byte inputs): the K step doubles to 128 so each stage moves as many bytes as fp16's 64.
# Measured on the H200 at 8192^3 (bf16 out, fast accumulation): 128x256x128 with 4 stages 1381 TFLOP/s
# (1.09x torch._scaled_mm), 3 stages 1304, 128x128x128 1204. A float32 output does not fit 4 stages:
# `prune` falls back to 3. The first candidate is what an untuned call gets (`scaled_matmul`).
FP8_CANDIDATES: tuple[HopperConfig, ...] = (
    _c(128, 256, 128, 8, 4),
    _c(128, 256, 128, 8, 3),
    _c(128, 128, 128, 8, 4),
    _c(128, 128, 128, 4, 4),
    _c(64, 128, 128, 4, 4),
    _c(64, 64, 128, 4, 4),
    # For the tuner (`pretune_scaled`, `kernel-bench --op scaled_matmul --tune`): one whole-tile TMA store
    # instead of two halves, wider GROUP_M, tall tiles, a deeper 128x128 pipeline. Measured on the H200
    # (timings in tuned/h200.json): with fast accumulation they tie the first candidate within 0.3%; with
    # promoted accumulation 256x128x128, the one tile whose registers do not spill, is 14% faster at 8192^3.
    # No warp-specialized variant: the fp8 kernel has no such switch, and `warp_specialize_compiles`
    # rejects 1-byte inputs.
    _c(128, 256, 128, 8, 3, epilogue_subtile=False),
    _c(128, 256, 128, 8, 4, group_m=16),
    _c(128, 256, 128, 8, 3, group_m=16),
    _c(256, 128, 128, 8, 3),
    _c(128, 128, 128, 8, 5),
    # Added in session 5: the tile and K loops fused (FLATTEN), so the next tile's loads overlap this tile's
    # epilogue. With fast accumulation at 8192^3, 1.009x and 1.011x torch._scaled_mm against 0.997x and 0.992x
    # for the same tiles unfused (results/h200-session5-probe.log); the re-tune picked the 4-stage one for all
    # four tuned shapes, 14% faster than unfused at 8192x8192x1024 (h200-retune-fp8-fast.log). With promoted
    # accumulation they are slower (0.66x against 0.72x): untuned, fast accumulation starts from them
    # (`scaled_matmul.candidates`), promoted from the first candidate.
    _c(128, 256, 128, 8, 4, flatten=True),
    _c(128, 256, 128, 8, 3, flatten=True),
)


def prune(candidates, m: int, n: int, in_size: int, out_size: int,
          shared_budget: int = SHARED_MEMORY_BUDGET) -> list[HopperConfig]:
    """Drop what cannot fit in shared memory, what Triton cannot warp-specialize, and tiles mostly padding."""
    kept = []
    widest_m, widest_n = padding_limits(m, n)
    for c in candidates:
        if c.shared_memory_bytes(in_size, out_size) > shared_budget or not warp_specialize_compiles(c, in_size):
            continue
        if c.block_m > widest_m or c.block_n > widest_n:
            continue
        kept.append(c)
    return kept or [min(candidates, key=lambda c: c.block_m * c.block_n)]


# An untuned default tile must not leave most of the GPU idle. At 128x256x64 one 128x256 fp8 tile runs on one SM:
# 5.2 us per call in a CUDA graph, where 64x64 tiles spread over 8 SMs take 2.7 us (torch._scaled_mm 2.3); at
# 256x512x512, 6.5 against 3.2 us (results/h200-tiny-tiles-probe.log). The default stands while its tiles give at
# least this fraction of the SMs a program.
MIN_SM_FILL = 0.5


def filling_first(candidates, m: int, n: int, batch: int, sms: int) -> list[HopperConfig]:
    """`candidates` with the first one whose tiles reach MIN_SM_FILL of the SMs moved to the front (or, if none
    does, the one with the most tiles); the rest keep their order. Large problems keep their first candidate."""
    def tiles(c: HopperConfig) -> int:
        return batch * tile_count(m, n, c)

    if not candidates:
        return []
    filling = [i for i, c in enumerate(candidates) if tiles(c) >= MIN_SM_FILL * sms]
    first = filling[0] if filling else max(range(len(candidates)), key=lambda i: tiles(candidates[i]))
    return [candidates[first], *candidates[:first], *candidates[first + 1:]]


@functools.cache
def sm_count(device_index: int) -> int:
    return torch.cuda.get_device_properties(device_index).multi_processor_count


def device_sms(device: torch.device) -> int:
    """Programs for a persistent grid on this device: its SM count (a few under the interpreter)."""
    if device.type != "cuda":
        return INTERPRETER_SMS
    return sm_count(device.index if device.index is not None else torch.cuda.current_device())


# -- persistent ----------------------------------------------------------------------------------


# How much of the grid an even split may give up. Measured only where it gave up a few SMs (128 and 126 programs
# of 132); a grid that idles more SMs for the same longest program is untested, so it keeps every SM.
BALANCED_MIN_FILL = 0.95


def balanced_programs(tiles: int, budget: int) -> int:
    """Programs for `tiles` tiles on at most `budget`: the fewest that give no program more tiles than `budget`
    programs would, if that keeps BALANCED_MIN_FILL of the budget; else min(tiles, budget).

    512 tiles on 132 SMs: 132 programs leave 116 with 4 tiles and 16 with 3; 128 programs take exactly 4 each,
    the same longest program. On the H200 the even grid measured 0.4-1.9% faster at all five large shapes, in
    fp16 and bf16 alike (results/h200-grid-probe.log).
    """
    budget = max(1, budget)
    if tiles <= budget:
        return max(1, tiles)
    even = -(-tiles // -(-tiles // budget))
    return even if even >= BALANCED_MIN_FILL * budget else budget


def persistent_grid(tiles: int, batch: int, num_sms: int, config: HopperConfig) -> tuple[int, int]:
    """The persistent kernel's grid for `batch` GEMMs of `tiles` tiles each: (programs, grid axis 1).

    Host-built descriptors: one list of every matrix's tiles, spread evenly (`balanced_programs`) over the SMs.
    Otherwise each batch (grid axis 1) gets its share of the SMs, rounded down: rounded up, 8 batches of
    ceil(132 / 8) = 17 programs made 136 for 132 SMs, and the last 4 ran after the others (8x4096x4096x1024
    fp16 took 770 us against torch's 376 on the H200, call SSSS).
    """
    if persistent_host_descriptors(config):
        return balanced_programs(batch * tiles, num_sms), 1
    return balanced_programs(tiles, max(1, num_sms // batch)), batch


def persistent_host_descriptors(config: HopperConfig) -> bool:
    """Whether `matmul_persistent_kernel` gets its descriptors from the host (`host_descriptors`, 3-D for a
    batch).

    Not when warp-specialized: Triton 3.6's warp specialization splits C's store between its consumer groups by
    rewriting the descriptor's block, which it can only do to a descriptor built in the kernel (a host-built
    one fails to compile in NVGPUWarpSpecialization, results/h200-host-descriptor-probe-float16.log).
    """
    return not config.warp_specialize


def launch_persistent(a3, b3, c3, m: int, n: int, k: int, a_layout: OperandLayout, b_layout: OperandLayout,
                      precision: str, config: HopperConfig, num_sms: int, *, row_classes: int = 1,
                      epilogue=None):
    """C = A @ B with `matmul_persistent_kernel`; needs a_layout.tma_ok and b_layout.tma_ok. row_classes > 1:
    A's rows read in that many classes (`tilelab.ops.matmul_plan.row_classes` decides; host-built descriptors).
    epilogue: (bias or None, activation) fused before each tile's store (`tilelab.linear`; `epilogue_args`).

    Returns (compiled kernel, grid, arguments) of the last launch, for replays.
    """
    tiles = class_tile_count(m, n, config, row_classes)
    batch = c3.shape[0]
    host = persistent_host_descriptors(config)
    if row_classes > 1 and not host:
        raise ContractError(f"row_classes={row_classes} reads A through host-built descriptors, which a "
                            f"warp-specialized configuration cannot take; got {config.label()}")
    # Host-built descriptors: one launch for the whole batch. Built in the kernel: grid axis 1 is the batch, in
    # slices of at most MAX_GRID_Y.
    slices = [(0, batch)]
    if not host:
        ensure_descriptor_scratch()
        slices = [(first, min(batch, first + MAX_GRID_Y)) for first in range(0, batch, MAX_GRID_Y)]
    for start, stop in slices:
        a_part = a3[start:stop] if a3.shape[0] > 1 else a3
        b_part = b3[start:stop] if b3.shape[0] > 1 else b3
        c_part = c3[start:stop]
        grid = persistent_grid(tiles, stop - start, num_sms, config)
        operands = (a_part, b_part, c_part)
        if host:
            operands = host_descriptors(a_part, b_part, c_part, a_layout, b_layout, config.block_m,
                                        config.block_n, config.block_k, config.store_block_n, row_classes)
        args = (*operands, m, n, k,
                batch_stride(a_part), a_layout.row_stride,
                batch_stride(b_part), b_layout.row_stride,
                c_part.stride(0), c_part.stride(1),
                # BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, INPUT_PRECISION, A_K_MAJOR, B_K_MAJOR, NUM_STAGES,
                # EPILOGUE_SUBTILE, WARP_SPECIALIZE, FLATTEN, HOST_DESCRIPTORS, ROW_CLASSES
                config.block_m, config.block_n, config.block_k, config.group_m, precision,
                a_layout.row_major, not b_layout.row_major, config.num_stages,
                config.epilogue_subtile, config.warp_specialize, config.flatten, host, row_classes,
                *epilogue_args(epilogue))
        compiled = matmul_persistent_kernel[grid](*args, num_warps=config.num_warps, num_stages=config.num_stages)
    return compiled, (*grid, 1), args


# -- split-K -------------------------------------------------------------------------------------


# A split whose programs fill more than two waves of SMs only adds partial tiles to sum. In the H200 tuning of
# 16x4096x4096 and 128x4096x4096 (split-K entries of tuned/h200.json) every such candidate took at least 1.2x the
# winner's time; dropping them before timing spares a new skinny shape most of its first call's tuning.
SPLIT_K_MAX_WAVES = 2


# Split-K reads A and B through TMA (host-built descriptors) from this many rows of C on, through pointers
# below. Each kind's best tuned candidate on the H200, TMA against pointers (fp16, cold L2;
# results/h200-split-k-tma-tuning.log, h200-split-k-pointers-tuning.log): 16x4096x4096 17.2 / 16.8 us;
# 128x4096x4096 17.3 / 17.8; 256x4096x4096 21.4 / 21.7; 256x1024x8192 16.8 / 18.5; 512x512x8192 16.9 / 18.6;
# 1024x1024x4096 18.1 / 20.5; 1024x1024x8192 31.9 / 34.9. 128 rows would gain 3%, but the table ships their
# tuning measured through pointers.
SPLIT_K_TMA_MIN_M = 256


def split_k_reads_through_tma(m: int, a_layout: OperandLayout, b_layout: OperandLayout) -> bool:
    """Whether split-K reads A and B through tensor descriptors (`matmul_splitk_descriptor_kernel`)."""
    return m >= SPLIT_K_TMA_MIN_M and a_layout.tma_ok and b_layout.tma_ok


def split_k_candidates(m: int, n: int, k: int, batch: int, in_size: int, sms: int) -> list[HopperConfig]:
    """The split-K configurations worth timing for this problem: they fit, split no finer than K's steps, keep
    workspace offsets 32-bit, and make at most SPLIT_K_MAX_WAVES waves of programs (one slice always may)."""
    kept = []
    for c in prune(SPLIT_K_CANDIDATES, m, n, in_size, 0):
        programs = batch * tile_count(m, n, c) * c.split_k
        if c.split_k > 1 and (programs > SPLIT_K_MAX_WAVES * sms or c.split_k * m * n >= 2**31
                              or c.split_k > ceil_div(k, c.block_k)):
            continue
        kept.append(c)
    return kept or [dataclasses.replace(SPLIT_K_CANDIDATES[0], split_k=1)]


def split_k_slices(k: int, block_k: int, split_k: int) -> list[tuple[int, int]]:
    """The [start, stop) K range of each slice, as the kernel computes it (for tests and docs)."""
    per = ceil_div(ceil_div(k, block_k), split_k) * block_k
    return [(min(s * per, k), min((s + 1) * per, k)) for s in range(split_k)]


# Counters the split-K kernel leaves at zero after every launch, so one buffer per (device, stream) serves
# every call: kernels on one stream run one after the other. Grown (never shrunk) on demand.
_SPLIT_K_COUNTERS: dict[tuple, torch.Tensor] = {}


def split_k_counters(device: torch.device, needed: int) -> torch.Tensor:
    """At least `needed` int32 tile counters, all zero between launches, for this device's current stream."""
    if device.type == "cuda":
        index = device.index if device.index is not None else torch.cuda.current_device()
        key = (index, stream_getter()(index))
    else:
        key = (device.type, 0)
    counters = _SPLIT_K_COUNTERS.get(key)
    if counters is None or counters.numel() < needed:
        counters = torch.zeros(max(needed, 4096), dtype=torch.int32, device=device)
        _SPLIT_K_COUNTERS[key] = counters
    return counters


def split_k_align(a3: torch.Tensor, b3: torch.Tensor, c3: torch.Tensor, n: int, k: int) -> int:
    """ALIGN for `matmul_splitk_kernel`: `pointer_align`'s, cut to what C's row and batch strides share.

    Without it, fp16 rows of 1000 elements (16-byte aligned, but not multiples of 16 elements, which is all
    Triton proves by itself) load two bytes at a time: on the H200 245 us at 1000^3 instead of 15, and 42.1 us
    at 16x3000x4000 instead of 16.0 (results/h200-splitk-align-probe.log).
    """
    if c3.stride(2) != 1:
        return 1
    return math.gcd(pointer_align(a3, b3, n, k), c3.stride(1), c3.stride(0) if c3.shape[0] > 1 else 0)


def split_k_workspace(batch: int, split_k: int, m: int, n: int, device) -> torch.Tensor:
    """The float32 partial tiles, [batch, split_k, M, N] (a 1-element stand-in when split_k is 1)."""
    if split_k == 1:
        return torch.empty((1, 1, 1, 1), dtype=torch.float32, device=device)
    return torch.empty((batch, split_k, m, n), dtype=torch.float32, device=device)


def launch_split_k(a3, b3, c3, m: int, n: int, k: int, precision: str, config: HopperConfig,
                   split_k: int | None = None, *, a_layout: OperandLayout | None = None,
                   b_layout: OperandLayout | None = None, epilogue=None) -> torch.Tensor:
    """C = A @ B as split_k partial products in a float32 workspace, summed by the last slice of each tile.

    Masked pointer loads (any strides), or, when `a_layout` and `b_layout`
    are given and both TMA-usable, tensor descriptors. Returns the workspace
    ([batch, split_k, M, N] float32) so a caller or test can inspect the
    partial products (plain products: the epilogue applies to their sum).
    epilogue: (bias or None, activation) fused into the final sum before C's store (`tilelab.linear`;
    `epilogue_args`); None, the kernels' defaults.
    """
    return _launch_split_k(a3, b3, c3, m, n, k, precision, config, split_k, a_layout, b_layout, epilogue)[0]


def _launch_split_k(a3, b3, c3, m, n, k, precision, config, split_k=None, a_layout=None, b_layout=None,
                    epilogue=None):
    """`launch_split_k`, also returning (compiled kernel, grid, arguments) of the last launch for replays."""
    split_k = split_k or config.split_k
    if split_k * m * n >= 2**31:
        raise ShapeError(f"split-K is for small M*N (32-bit workspace offsets): split_k={split_k} x M={m} x N={n} "
                         "is 2**31 or more")
    batch = c3.shape[0]
    workspace = split_k_workspace(batch, split_k, m, n, c3.device)
    descriptors = a_layout is not None and b_layout is not None and a_layout.tma_ok and b_layout.tma_ok
    offsets_64 = not descriptors and needs_64bit_offsets(a3, b3, m, n, max(a3.shape[0], b3.shape[0]))
    align = 1 if descriptors else split_k_align(a3, b3, c3, n, k)
    tiles = tile_count(m, n, config)
    counters = split_k_counters(c3.device, tiles * min(batch, MAX_GRID_Y))
    for start in range(0, batch, MAX_GRID_Y):
        stop = min(batch, start + MAX_GRID_Y)
        if batch <= MAX_GRID_Y:  # the common case: no slicing, no extra views
            a_part, b_part, c_part, ws_part = a3, b3, c3, workspace
        else:
            a_part = a3[start:stop] if a3.shape[0] > 1 else a3
            b_part = b3[start:stop] if b3.shape[0] > 1 else b3
            c_part = c3[start:stop]
            ws_part = workspace[start:stop] if split_k > 1 else workspace
        grid = (tiles, split_k, stop - start)
        tiling = {"BLOCK_M": config.block_m, "BLOCK_N": config.block_n, "BLOCK_K": config.block_k,
                  "GROUP_M": config.group_m, "SPLIT_K": split_k, "INPUT_PRECISION": precision}
        if descriptors:
            # A's and B's descriptors built here (3-D for a batch), not in every program.
            operands = host_operand_descriptors(a_part, b_part, a_layout, b_layout, config.block_m,
                                                config.block_n, config.block_k)
            args = (*operands, c_part, ws_part, counters, m, n, k,
                    batch_stride(a_part), a_layout.row_stride, batch_stride(b_part), b_layout.row_stride,
                    c_part.stride(0), c_part.stride(1), c_part.stride(2),
                    *tiling.values(), a_layout.row_major, not b_layout.row_major, True,
                    *epilogue_args(epilogue))
            kernel = matmul_splitk_descriptor_kernel
        else:
            args = (a_part, b_part, c_part, ws_part, counters, m, n, k,
                    batch_stride(a_part), a_part.stride(1), a_part.stride(2),
                    batch_stride(b_part), b_part.stride(1), b_part.stride(2),
                    c_part.stride(0), c_part.stride(1), c_part.stride(2),
                    *tiling.values(), offsets_64, k % config.block_k == 0, align, *epilogue_args(epilogue))
            kernel = matmul_splitk_kernel
        compiled = kernel[grid](*args, num_warps=config.num_warps, num_stages=config.num_stages)
    return workspace, compiled, grid, args


# -- compiling without a GPU ---------------------------------------------------------------------

_TRITON_TYPE = {**_MATMUL_TRITON_TYPE, torch.float8_e4m3fn: "fp8e4nv"}


def inspection_source(kernel_name: str, dtype: torch.dtype = torch.float16, config: HopperConfig | None = None,
                      *, out_dtype: torch.dtype | None = None, precision: str = "tf32", a_k_major: bool = True,
                      b_k_major: bool = False, fast_accum: bool = True, host_descriptors: bool | None = None,
                      batched: bool = False, row_classes: int = 1, bias: bool = False,
                      activation: str | None = None):
    """(kernel, signature, constexprs, attrs, options) for `triton.compile(ASTSource(...), target, options)`.

    kernel_name: "persistent", "splitk", "splitk_descriptor" or "fp8". Pointers and
    integer arguments get 16-divisibility hints, as aligned 4096-wide tensors would.
    host_descriptors (persistent, splitk_descriptor): descriptors as kernel parameters;
    None: as the library launches one GEMM (`persistent_host_descriptors`; split-K
    through TMA always builds A's and B's on the host). The fp8 kernel always takes them.
    batched (persistent, splitk_descriptor; host-built descriptors): the 3-D descriptors of a batch with
    an A and a B per entry.
    row_classes > 1 (persistent, host-built descriptors, A stored [M, K]): A's rows read
    in that many classes (`tilelab.ops.matmul_plan.row_classes`); A and C described by class.
    bias, activation (persistent, splitk, splitk_descriptor): `tilelab.linear`'s fused epilogue, a bias of
    `dtype` (`tilelab.ops.matmul.inspection_source`); neither leaves the parameters out.
    """
    from tilelab.kernels.matmul_fp8 import scaled_matmul_kernel

    out_dtype = out_dtype or (torch.bfloat16 if dtype == torch.float8_e4m3fn else dtype)
    ptr, out_ptr = "*" + _TRITON_TYPE[dtype], "*" + _TRITON_TYPE[out_dtype]
    if kernel_name == "persistent":
        config = config or PERSISTENT_CANDIDATES[0]
        kernel = matmul_persistent_kernel
        if host_descriptors is None:
            host_descriptors = persistent_host_descriptors(config)
        if row_classes > 1 and not (host_descriptors and a_k_major):
            raise ContractError("row_classes > 1 reads A stored [M, K] through host-built descriptors "
                                "(a_k_major=True, a configuration that is not warp-specialized)")
        if host_descriptors:
            pointers = _descriptor_signature(dtype, out_dtype, config, a_k_major, b_k_major,
                                             ("a_ptr", "b_ptr", "c_ptr"), batched, row_classes)
        else:
            pointers = {"a_ptr": ptr, "b_ptr": ptr, "c_ptr": out_ptr}
        ints = ["M", "N", "K", "stride_ab", "stride_a_row", "stride_bb", "stride_b_row", "stride_cb", "stride_c_row"]
        meta = {"BLOCK_M": config.block_m, "BLOCK_N": config.block_n, "BLOCK_K": config.block_k,
                "GROUP_M": config.group_m, "INPUT_PRECISION": precision, "A_K_MAJOR": a_k_major,
                "B_K_MAJOR": b_k_major, "NUM_STAGES": config.num_stages,
                "EPILOGUE_SUBTILE": config.epilogue_subtile, "WARP_SPECIALIZE": config.warp_specialize,
                "FLATTEN": config.flatten, "HOST_DESCRIPTORS": host_descriptors, "ROW_CLASSES": row_classes}
    elif kernel_name in ("splitk", "splitk_descriptor"):
        config = config or SPLIT_K_CANDIDATES[0]
        pointers = {"a_ptr": ptr, "b_ptr": ptr, "c_ptr": out_ptr, "ws_ptr": "*fp32", "counters_ptr": "*i32"}
        meta = {"BLOCK_M": config.block_m, "BLOCK_N": config.block_n, "BLOCK_K": config.block_k,
                "GROUP_M": config.group_m, "SPLIT_K": config.split_k, "INPUT_PRECISION": precision}
        c_strides = ["stride_cb", "stride_cm", "stride_cn"]
        if kernel_name == "splitk":
            kernel = matmul_splitk_kernel
            ints = ["M", "N", "K", "stride_ab", "stride_am", "stride_ak", "stride_bb", "stride_bk", "stride_bn",
                    *c_strides]
            meta.update(OFFSETS_64=False, EVEN_K=True, ALIGN=1)
        else:
            kernel = matmul_splitk_descriptor_kernel
            ints = ["M", "N", "K", "stride_ab", "stride_a_row", "stride_bb", "stride_b_row", *c_strides]
            host = host_descriptors is not False  # as `_launch_split_k` launches it
            if host:  # A's and B's descriptors; C and the workspace stay pointers
                described = _descriptor_signature(dtype, out_dtype, config, a_k_major, b_k_major,
                                                  ("a_ptr", "b_ptr", "c_ptr"), batched)
                pointers.update(a_ptr=described["a_ptr"], b_ptr=described["b_ptr"])
            meta.update(A_K_MAJOR=a_k_major, B_K_MAJOR=b_k_major, HOST_DESCRIPTORS=host)
    elif kernel_name == "fp8":
        config = config or FP8_CANDIDATES[0]
        kernel = scaled_matmul_kernel
        pointers = {**_descriptor_signature(dtype, out_dtype, config, True, True, ("a_desc", "b_desc", "c_desc")),
                    "scale_a_ptr": "*fp32", "scale_b_ptr": "*fp32"}
        ints = ["M", "N", "K"]
        meta = {"BLOCK_M": config.block_m, "BLOCK_N": config.block_n, "BLOCK_K": config.block_k,
                "GROUP_M": config.group_m, "NUM_STAGES": config.num_stages,
                "EPILOGUE_SUBTILE": config.epilogue_subtile, "FAST_ACCUM": fast_accum, "FLATTEN": config.flatten}
    else:
        raise ValueError(f"unknown kernel_name {kernel_name!r}: 'persistent', 'splitk', 'splitk_descriptor' "
                         "or 'fp8'")
    # Unit inner strides are constants at a real launch (Triton specializes on 1).
    unit = {"stride_ak", "stride_bn", "stride_cn"} & set(ints)
    signature = {**pointers, **{name: ("constexpr" if name in unit else "i32") for name in ints},
                 **{name: "constexpr" for name in meta}}
    constexprs = {**{name: 1 for name in unit}, **meta}
    if bias or activation:
        if kernel_name == "fp8":
            raise ContractError("bias and activation apply to the persistent and split-K kernels, not 'fp8'")
        _add_epilogue(signature, constexprs, ptr, bias, activation)
    attrs = {(kernel.arg_names.index(name),): [["tt.divisibility", 16]]
             for name, kind in signature.items() if kind != "constexpr" and not kind.startswith("tensordesc")}
    options = {"num_warps": config.num_warps, "num_stages": config.num_stages}
    return kernel, signature, constexprs, attrs, options


def _descriptor_signature(dtype, out_dtype, config: HopperConfig, a_k_major: bool, b_k_major: bool,
                          names: tuple[str, str, str], batched: bool = False, row_classes: int = 1) -> dict:
    """Signature types of host-built A, B and C descriptors, with the blocks `host_descriptors` gives them
    (batched: a batch's, [1, rows, cols]); with row_classes > 1, A's and C's have one leading 1 more (by
    class, `row_class_descriptor`)."""
    bm, bn, bk = config.block_m, config.block_n, config.block_k
    blocks = ([bm, bk] if a_k_major else [bk, bm], [bn, bk] if b_k_major else [bk, bn], [bm, config.store_block_n])
    types = (_TRITON_TYPE[dtype], _TRITON_TYPE[dtype], _TRITON_TYPE[out_dtype])
    leads = [int(batched) + int(row_classes > 1), int(batched), int(batched) + int(row_classes > 1)]
    return {name: f"tensordesc<{t}[{'1, ' * lead}{r}, {c}]>"
            for name, t, (r, c), lead in zip(names, types, blocks, leads, strict=True)}


def compile_for(kernel_name: str, target_arch: int = 90, **kwargs):
    """Compile a Hopper kernel for `sm_<target_arch>` without a GPU; returns Triton's CompiledKernel."""
    from triton.backends.compiler import GPUTarget

    kernel, signature, constexprs, attrs, options = inspection_source(kernel_name, **kwargs)
    source = triton.compiler.ASTSource(fn=kernel, signature=signature, constexprs=constexprs, attrs=attrs)
    return triton.compile(source, target=GPUTarget("cuda", target_arch, 32), options=options)
