"""Planning `tilelab.matmul`: which kernel path and tile a problem takes.

Everything here reads only shapes, strides, dtypes and alignment, never values, and launches nothing:
`plan_matmul` turns [batch, M, K] and [batch, K, N] views into a `MatmulPlan` (`tilelab.ops.matmul` then
launches it). The rules that choose a path by default are measured on the H200; each says where.
"""

import dataclasses
import math

import torch

from tilelab import contracts, env, tuning
from tilelab.alignment import SECTOR_BYTES, TMA_ALIGN, output_row_stride, padded_row_stride
from tilelab.tuning import Config, ceil_div, tile_count

INT32_LIMIT = 2**31


@dataclasses.dataclass(frozen=True)
class OperandLayout:
    """How a [batch, rows, cols] operand sits in memory, as a descriptor sees it."""

    row_major: bool  # unit stride along cols (else along rows)
    row_stride: int  # elements between consecutive rows of the stored matrix
    batch_stride: int
    tma_ok: bool  # 16-byte aligned base, row stride and batch stride


@dataclasses.dataclass(frozen=True)
class MatmulPlan:
    path: str
    config: Config | None  # None: tuned at the first launch
    input_precision: str
    offsets_64: bool
    a_layout: OperandLayout
    b_layout: OperandLayout
    element_size: int
    align: int = 1  # pointer path: `pointer_align`
    row_classes: int = 1  # descriptor path: `row_classes`

    def as_dict(self) -> dict:
        return {
            "path": self.path,
            "config": self.config.as_dict() if self.config else None,
            "input_precision": self.input_precision,
            "offsets_64": self.offsets_64,
            "align": self.align,
            "row_classes": self.row_classes,
            "a_row_major": self.a_layout.row_major,
            "b_row_major": self.b_layout.row_major,
        }


def operand_layout(x: torch.Tensor) -> OperandLayout:
    """Describe a 3-D [batch, rows, cols] view for the descriptor path.

    A descriptor wants a unit stride along its inner dimension: that is
    cols (row-major) or rows (column-major, read as the transpose). A
    dimension of extent 1 has a meaningless stride, so both orientations are
    tried and the first one TMA can use wins.
    """
    batch, rows, cols = x.shape
    s_batch, s_rows, s_cols = x.stride()
    es = x.element_size()
    batch_stride = s_batch if batch > 1 else 0
    aligned_base = x.data_ptr() % TMA_ALIGN == 0 and (batch_stride * es) % TMA_ALIGN == 0
    unusable = OperandLayout(True, s_rows, batch_stride, tma_ok=False)
    for row_major, inner, inner_stride, outer, outer_stride in (
        (True, cols, s_cols, rows, s_rows),
        (False, rows, s_rows, cols, s_cols),
    ):
        if inner_stride != 1 and inner != 1:
            continue
        row_stride = outer_stride if outer > 1 else padded_row_stride(inner, es)
        ok = aligned_base and row_stride >= inner and (row_stride * es) % TMA_ALIGN == 0
        layout = OperandLayout(row_major, row_stride, batch_stride, ok)
        if ok:
            return layout
        unusable = layout
    return unusable


def batch_stride(x: torch.Tensor) -> int:
    """Elements between the matrices of a [batch, rows, cols] view; 0 for a batch of one (its stride is
    meaningless) and for one matrix the batch shares."""
    return x.stride(0) if x.shape[0] > 1 else 0


def _largest_offset(shape, strides, overshoot: int) -> int:
    """Largest element offset a tile of a [batch, rows, cols] tensor may form.

    Lanes past the matrix edges (masked, but still computed) reach `overshoot` past the last row and
    column; the batch index never goes past the last batch.
    """
    (batch, rows, cols), (s_batch, s_rows, s_cols) = shape, strides
    return (batch - 1) * abs(s_batch) + (rows + overshoot) * abs(s_rows) + (cols + overshoot) * abs(s_cols)


def needs_64bit_offsets(a3: torch.Tensor, b3: torch.Tensor, m: int, n: int, batch: int) -> bool:
    overshoot = tuning.MAX_TILE_EDGE  # the longest tile side any configuration may have (`_check_tile`)
    row = output_row_stride(n, 4)  # the widest output row any path allocates
    return max(
        _largest_offset(a3.shape, a3.stride(), overshoot),
        _largest_offset(b3.shape, b3.stride(), overshoot),
        _largest_offset((batch, m, n), (m * row, row, 1), overshoot),
    ) >= INT32_LIMIT


# Multiply-adds of the whole problem (every GEMM of a batch), measured on the H200 (results/README.md). With
# descriptors built on the host (`host_descriptors`), from ~2**29 on TMA's maskless tiles beat the pointer path
# (2048^3: 1.00x torch against 0.93x; 1000^3, whose ragged edges the pointer path masks: 13.3 us against 14.1).
# A batch's descriptors were built inside every program until the thirteenth session, which cost more than TMA
# saved below 2**34; they are host-built now, 3-D, and a batch counts its GEMMs' work together.
HOST_DESCRIPTOR_MIN_WORK = 2**29
PERSISTENT_MIN_WORK = 2**34
BATCH_PERSISTENT_MIN_WORK = 2**30  # fp16/bf16 batches (`_persistent_pays_off`)
BATCH_PINGPONG_MIN_WORK = 2**29  # fp16/bf16 batches (`_pingpong_by_default`)


def rows_on_sectors(x3: torch.Tensor, layout: OperandLayout) -> bool:
    """Whether every row of a TMA-usable operand starts on a 32-byte sector (its base, row and batch strides).

    A row that starts 16 bytes into a sector spreads each 128-byte TMA box row over five sectors instead of
    four. fp16 rows of 3000 and 5000 elements (6000 and 10000 bytes) do; 2000, 4000 and 6000 do not.
    """
    es = x3.element_size()
    return all(v % SECTOR_BYTES == 0 for v in (x3.data_ptr(), layout.row_stride * es, layout.batch_stride * es))


ROW_CLASS_MIN_M = 512  # `row_classes` was measured from 640 rows up
ROW_CLASS_COUNTS = (8, 4, 2)
ROW_CLASS_TILE_M = 128  # the tile height `row_classes` counts with: every winner tuned in classes has it


def row_classes(a3: torch.Tensor, a_layout: OperandLayout, b3: torch.Tensor, b_layout: OperandLayout) -> int:
    """How many classes of rows the descriptor and persistent kernels split A into (1: none);
    `matmul_descriptor_kernel`, `matmul_persistent_kernel`.

    fp16/bf16 rows that start 16 bytes into a 32-byte sector (`rows_on_sectors`) are read by TMA from L2 at
    5.4-5.7 TB/s, against 8.0-9.8 for rows on 128-byte lines (results/h200-row-alignment-read-probe.log). But A's
    rows are C's: with R classes, rows r, r + R, r + 2R, ... all start at one offset within 16R bytes (R rows of
    16 * odd bytes span a multiple of 16R), and a program that owns one class can start reading K that many
    elements early, on the boundary (one more K step). The largest R of 8 (a 128-byte line), 4 and 2 (a sector)
    that divides M, with A's base on such a boundary, and whose classes need no more 128-row tiles than M does.
    Measured on the H200 against torch in turns (call QQQQQ, results/h200-row-class-probe-host.log; 128x64x128
    tiles in 8 classes against the default's 64x128x128 in one): 1000^3 fp16 0.85x -> 0.95x, bf16 0.91x ->
    1.03x; 3000^3 (128x256x64) 0.68x -> 0.71x; 5000^3 0.77x -> 0.80x.

    Only where B's rows are off sectors too: the problem is then bound by L2 reads, which the classes cut. With
    and without classes, each tuned, in turns (call UUUUU, results/h200-row-class-rule-probe.log, fp16):
    2000x2000x1000 19.0 against 18.5 us and 4000x4000x1000 60.8 against 59.1 (B's rows on sectors), and where
    the classes took more tiles, 2600^3 81.5 against 77.4 (24 tiles of 128 rows against 21) and 640x1000x1000
    12.8 against 10.8 (8 against 5); 1000^3 11.2 against 12.5.

    A batch too, when every matrix of A starts on the boundary: A and C are then described in 4-D, [batch,
    classes, rows / classes, K], and the batch's default, the persistent kernel, reads by class. With and
    without classes, each tuned, in turns (call XXXXX, results/h200-batch-row-class-probe.log, fp16):
    16x1000^3 70.4 -> 66.4 us (torch 58.5; bf16 69.4 -> 66.3), 8x2000x1000x1000 71.0 -> 66.9, 16x1000x1000x3000
    180.8 -> 156.2 (torch 147.5). But a batch with B stored [N, K] lost, 16x1000^3 67.0 -> 69.1 us, where one
    GEMM with B stored [N, K] gains (call YYYYY, results/h200-row-class-b-nk-probe.log: 1000^3 fp16 12.3 -> 11.5
    us, bf16 12.3 -> 11.4, 3000^3 129.1 -> 122.1): a batch only with B stored [K, N].

    Not for A stored [K, M] (its rows are K's, shared by every program), 4-byte types (unmeasured) or fewer
    than ROW_CLASS_MIN_M rows.
    """
    _, m, _ = a3.shape
    es = a3.element_size()
    batch = max(a3.shape[0], b3.shape[0])
    if (not a_layout.row_major or (batch > 1 and not b_layout.row_major) or es != 2 or m < ROW_CLASS_MIN_M
            or (a_layout.row_stride * es) % SECTOR_BYTES != SECTOR_BYTES // 2 or rows_on_sectors(b3, b_layout)):
        return 1
    tiles = ceil_div(m, ROW_CLASS_TILE_M)
    for count in ROW_CLASS_COUNTS:
        if (m % count == 0 and all(v % (16 * count) == 0 for v in (a3.data_ptr(), batch_stride(a3) * es))
                and count * ceil_div(m // count, ROW_CLASS_TILE_M) == tiles):
            return count
    return 1


def _persistent_pays_off(a3: torch.Tensor, b3: torch.Tensor, b_layout: OperandLayout, precision: str, batch: int,
                         m: int, n: int, k: int) -> bool:
    """Whether a large TMA-usable problem takes the persistent kernel rather than one program per tile.

    Measured on the H200: large fp16/bf16 and tf32 problems run faster persistent (tf32 at 4096^3: 0.88x torch
    against the descriptor path's 0.75x; tf32x3 is faster on the descriptor path, 1.61x against 1.12x torch's
    ieee). Not fp16/bf16 with B's rows off 32-byte sectors (`rows_on_sectors`). kernel-bench, call MMM
    (results/h200-matmul-float16-rows-off-sectors.json, -bfloat16.json), persistent -> descriptor against
    torch: 3000^3 0.65x -> 0.69x, 5000^3 0.73x -> 0.77x, 2600^3 0.75x -> 0.78x (A's and B's rows off sectors),
    4096x3000x4096 0.91x -> 0.92x (B's); but 4096x4096x3000, where only A's rows are off, 1.00x -> 0.96x.

    An fp16/bf16 batch takes it from BATCH_PERSISTENT_MIN_WORK, rows off sectors or not, when it has more tiles
    than the GPU has SMs (`_batch_outnumbers_the_sms`). One program per tile measured slower at every fp16 batch
    of call UUUU, most where tiles are short-lived (kernel-bench bmm/bmm_nt, descriptor against persistent:
    64x512x512x64 0.73x/1.00x, 32x1024x1024x128 0.63-0.65x/0.94-0.96x, 64x512^3 0.81x/1.01x, 16x1000^3
    0.77-0.80x/0.85x), except 32x1024x128x1024 (0.98x/0.97x); and faster where a tile per SM is all there is
    (call XXXX: 2x1024^3, 128 tiles of 128x128, 1.01x/0.95x). Most batches now take the pingpong kernel first
    (`_pingpong_by_default`).
    """
    if env.interpreting():
        return False
    work = batch * m * n * k
    if a3.element_size() <= 2 and batch > 1:
        return work >= BATCH_PERSISTENT_MIN_WORK and _batch_outnumbers_the_sms(a3, batch, m, n)
    if work < PERSISTENT_MIN_WORK:
        return False
    if a3.element_size() <= 2:
        return rows_on_sectors(b3, b_layout)
    return precision == "tf32"


def _batch_outnumbers_the_sms(a3: torch.Tensor, batch: int, m: int, n: int) -> bool:
    """More 128x128 tiles in the whole batch than SMs: a program that stays on its SM gets more than one."""
    from tilelab.ops import matmul_hopper

    return batch * ceil_div(m, 128) * ceil_div(n, 128) > matmul_hopper.device_sms(a3.device)


def _descriptor_pays_off(device: torch.device, batch: int, m: int, n: int, k: int) -> bool:
    if env.interpreting():
        return True  # teach (and test) the descriptor path wherever it applies
    return env.is_hopper_or_newer(device) and batch * m * n * k >= HOST_DESCRIPTOR_MIN_WORK


VECTOR_BYTES = 16  # the widest load or store one thread issues


def pointer_align(a3: torch.Tensor, b3: torch.Tensor, n: int, k: int) -> int:
    """ALIGN for `matmul_pointer_kernel`: a power of two, at most one 16-byte vector of elements, dividing N, K
    and every row and batch stride of row-major A and B (C is allocated to match). 1 when nothing can be
    proved, or when Triton proves it by itself (values that are multiples of 16 are specialized as such)."""
    if a3.stride(2) != 1 or b3.stride(2) != 1:
        return 1
    common = math.gcd(n, k, a3.stride(1), b3.stride(1), batch_stride(a3), batch_stride(b3))
    if common % 16 == 0:
        return 1
    return math.gcd(common, VECTOR_BYTES // a3.element_size())


def _rows_defeat_vector_loads(a3: torch.Tensor, b3: torch.Tensor) -> bool:
    """Triton vectorizes pointer loads only when it can prove row strides are multiples of 16 elements, or
    `pointer_align` proves whole 16-byte vectors (1000x1000 in fp16 without that measured at a quarter of
    the descriptor path's rate on the H200)."""
    if pointer_align(a3, b3, b3.shape[2], a3.shape[2]) * a3.element_size() >= VECTOR_BYTES:
        return False
    return any(max(x.stride(1), x.stride(2)) % 16 for x in (a3, b3)
               if min(x.stride(1), x.stride(2)) == 1 and x.shape[1] > 1 and x.shape[2] > 1)


# Split-K: few output tiles for the SMs, and a K long enough to share out. Measured on the H200
# (results/README.md): 16x4096x4096 and 128x4096x4096 make 32 tiles of 128x128 for 132 SMs. At K=1024 the
# tuner never split (1024^3 chose one slice), and the descriptor path's 128x64x128 tile beat that
# (results/h200-small-shapes-probe.log): split-K starts at K=2048.
SPLIT_K_MIN_K = 2048
SPLIT_K_TILE = 128  # the tile size the "few tiles" rule counts with


def _split_k_pays_off(device: torch.device, batch: int, m: int, n: int, k: int) -> bool:
    if env.interpreting() or device.type != "cuda":
        return False  # the interpreter teaches the one-pass kernels unless asked (path="splitk")
    from tilelab.ops import matmul_hopper

    tiles = batch * ceil_div(m, SPLIT_K_TILE) * ceil_div(n, SPLIT_K_TILE)
    return k >= SPLIT_K_MIN_K and 2 * tiles <= matmul_hopper.device_sms(device)


def registers_by_default(a3: torch.Tensor, b3: torch.Tensor, precision: str) -> bool:
    """Whether path=None takes the registers kernel (tf32, B row-major, Hopper): where the kernel can take the
    operands, its tiles fill enough SMs (`matmul_registers.pays_off`), and split-K either does not apply or
    measured slower for this shape (`matmul_registers.beats_split_k`)."""
    if a3.dtype != torch.float32 or precision != "tf32":
        return False  # the common cases answer before anything is imported
    from tilelab.ops import matmul_hopper, matmul_registers

    _, m, k = a3.shape
    n = b3.shape[2]
    return ((matmul_registers.beats_split_k(m, n)
             or not _split_k_pays_off(a3.device, max(a3.shape[0], b3.shape[0]), m, n, k))
            and matmul_registers.unsupported_reason(a3, b3, precision) is None
            and matmul_registers.pays_off(m, n, k, matmul_hopper.device_sms(a3.device)))


def _pingpong_by_default(a3: torch.Tensor, b3: torch.Tensor, a_layout: OperandLayout, b_layout: OperandLayout,
                         persistent: bool, batch: int, m: int, n: int, k: int) -> bool:
    """Whether a TMA-usable problem takes the ping-pong kernel by default, where it measured faster
    (`matmul_pingpong.pays_off`), with operands it can take:

    - one GEMM, only where the persistent kernel would run (`persistent`: `_persistent_pays_off`'s answer);
    - a batch from BATCH_PINGPONG_MIN_WORK, with A's and B's rows on 32-byte sectors (`rows_on_sectors`).
      kernel-bench against torch.matmul, the pingpong kernel against the best other path (calls WWWW, XXXX):
      with rows on sectors it led at every batch of the default sweeps and at 256x128^3 (0.94-0.96x against
      0.90x), 32x512x512x64 with B [N, K] (1.02x against 0.91x); with rows off sectors it trailed the
      persistent kernel: 16x1000^3 0.64-0.66x against 0.85-0.88x, 8x1024x1000x1024 0.83x against 0.92x.
    """
    from tilelab.ops import matmul_hopper, matmul_pingpong

    if batch == 1 and not persistent:
        return False
    if batch > 1 and (batch * m * n * k < BATCH_PINGPONG_MIN_WORK
                      or not (rows_on_sectors(a3, a_layout) and rows_on_sectors(b3, b_layout))):
        return False
    return (matmul_pingpong.unsupported_reason(a3, b3) is None
            and matmul_pingpong.pays_off(m, n, k, matmul_hopper.device_sms(a3.device), batch))


WIDE_TILES_MAX_TIME = 0.9  # `_wide_tiles_fill_better`: at most this share of the default kernel's busiest SM's work


def _wide_tiles_fill_better(a3: torch.Tensor, b3: torch.Tensor, a_layout: OperandLayout, b_layout: OperandLayout,
                            path: str, batch: int, m: int, n: int) -> bool:
    """Whether one fp16/bf16 GEMM that would take the persistent or pingpong kernel takes the descriptor path's
    first wide tile instead (`tuning.WIDE_CANDIDATES`), because its tiles fill the SMs' waves that much better:
    the busiest SM's work (whole tiles, in elements of C) is at most WIDE_TILES_MAX_TIME of the default's
    (`matmul_pingpong.waves_in_tiles`, on the default kernel's own tile). Both operands' rows on sectors: the
    wide kernel reads A as stored, never in classes.

    In turns with torch, fp16 (call RRRRRR, results/h200-wide-large-probe.log): at 0.9 of the pingpong
    kernel's work, 3072^3 84.8 us against 89.3 (torch 79.8) and 3072x3072x4096 109.6 against 116.2 (104.0); at
    equal work the default led: 1536x4096x4096 71.5 against 73.8 (pingpong), 4096x3072x4096 137.8 against
    144.8 and 6144x6144x3072 312.1 against 326.8 (persistent, 128x256 tiles).
    """
    from tilelab.ops import matmul_hopper, matmul_pingpong

    if batch != 1 or a3.element_size() != 2 or env.interpreting():
        return False
    if not (rows_on_sectors(a3, a_layout) and rows_on_sectors(b3, b_layout)):
        return False
    sms = matmul_hopper.device_sms(a3.device)
    default = matmul_pingpong.DEFAULT_CONFIG if path == "pingpong" else matmul_hopper.PERSISTENT_CANDIDATES[0]
    default_work = matmul_pingpong.waves_in_tiles(m, n, default, sms) * 128 * 128
    wide = tuning.WIDE_CANDIDATES[0]
    wide_work = ceil_div(tile_count(m, n, wide), sms) * wide.block_m * wide.block_n
    return wide_work <= WIDE_TILES_MAX_TIME * default_work


def _reads_by_class(path: str, config: str | Config | None) -> bool:
    """Whether a path (and the caller's configuration, if any) can read A's rows by class (`row_classes`):
    the descriptor kernel (not with wide tiles, `tuning.is_wide`), and the persistent kernel on host-built
    descriptors (not warp-specialized)."""
    if isinstance(config, Config) and tuning.is_wide(config):
        return False
    return path == "descriptor" or (path == "persistent" and not getattr(config, "warp_specialize", False))


def plan_matmul(a3: torch.Tensor, b3: torch.Tensor, path: str | None, precision: str,
                config: str | Config | None) -> MatmulPlan:
    """Choose the kernel path and (unless tuned later) the tile configuration."""
    a_layout, b_layout = operand_layout(a3), operand_layout(b3)
    tma_ok = a_layout.tma_ok and b_layout.tma_ok
    _, m, k = a3.shape
    n = b3.shape[2]
    batch = max(a3.shape[0], b3.shape[0])
    if path == "registers" or (path is None and config is None and registers_by_default(a3, b3, precision)):
        from tilelab.ops import matmul_registers

        matmul_registers.require_supported(a3, b3, precision)
        if config is not None:
            raise contracts.ContractError("path='registers' chooses its own tiles by the problem's size "
                                          "(tilelab.ops.matmul_registers.choose_config); leave config=None")
        path = "registers"
    elif path == "pingpong":
        from tilelab.ops import matmul_pingpong

        matmul_pingpong.require_supported(a3, b3)
        if config is not None:
            raise contracts.ContractError("path='pingpong' has one configuration (tilelab.ops.matmul_pingpong."
                                          "DEFAULT_CONFIG); leave config=None")
    elif path is None and (getattr(config, "split_k", 1) > 1  # a HopperConfig that asks for slices of K
                           or config is None and _split_k_pays_off(a3.device, batch, m, n, k)):
        path = "splitk"
    elif path in (None, "descriptor") and isinstance(config, Config) and tuning.is_wide(config):
        if not tma_ok:  # wide tiles run on the descriptor path only
            raise contracts.AlignmentError(
                "a config with a wide tile (block_n 48, 96, 192, ...) runs on the descriptor path, which needs a "
                "and b to have a unit stride in one of their last two dimensions and 16-byte aligned data, row and "
                "batch strides; pass contiguous copies or a config whose block_n is a power of two")
        path = "descriptor"
    elif path is None:
        path = "pointer"
        if tma_ok and (_descriptor_pays_off(a3.device, batch, m, n, k) or _rows_defeat_vector_loads(a3, b3)):
            path = "descriptor"
            if config is None:
                persistent = _persistent_pays_off(a3, b3, b_layout, precision, batch, m, n, k)
                if _pingpong_by_default(a3, b3, a_layout, b_layout, persistent, batch, m, n, k):
                    path = "pingpong"
                elif persistent:
                    path = "persistent"
                if path != "descriptor" and _wide_tiles_fill_better(a3, b3, a_layout, b_layout, path, batch, m, n):
                    config = tuning.WIDE_CANDIDATES[0]
                    path = "descriptor"
    elif path in ("descriptor", "persistent") and not tma_ok:
        bad = "a" if not a_layout.tma_ok else "b"
        raise contracts.AlignmentError(
            f"path={path!r} needs {bad} to have a unit stride in one of its last two dimensions, "
            f"a 16-byte aligned data pointer and 16-byte aligned row and batch strides; got shape "
            f"{tuple((a3 if bad == 'a' else b3).shape)} strides {(a3 if bad == 'a' else b3).stride()} "
            f"({(a3 if bad == 'a' else b3).element_size()}-byte elements). Use path='pointer' or pass a "
            "contiguous copy."
        )
    if isinstance(config, str):
        config = tuning.NAMED_CONFIGS[config]
    elif config is None and env.interpreting():
        config = tuning.INTERPRETER
        if path == "splitk":  # nothing is timed under the interpreter: show an actual split
            from tilelab.ops import matmul_hopper

            config = matmul_hopper.HopperConfig(**config.as_dict(), epilogue_subtile=False, split_k=2)
    if path == "splitk" and m * n >= INT32_LIMIT:
        raise contracts.ShapeError(f"path='splitk' is for small M*N (its workspace offsets are 32-bit); got "
                                   f"M={m}, N={n}")
    offsets_64 = path == "pointer" and needs_64bit_offsets(a3, b3, m, n, batch)
    align = pointer_align(a3, b3, n, k) if path == "pointer" else 1
    classes = row_classes(a3, a_layout, b3, b_layout) if _reads_by_class(path, config) else 1
    return MatmulPlan(path, config, precision, offsets_64, a_layout, b_layout, a3.element_size(), align, classes)
