"""`tilelab.matmul`: contract check -> plan (path, config) -> launch.

The public function has torch.matmul's semantics (1-D and batched operands,
broadcasting, any strides). Everything shape-dependent that does not depend
on the data is decided once per problem and cached, so the eager call path
does little more than allocate the output and launch.
"""

import contextlib
import dataclasses
import itertools
import math

import torch
import triton

from tilelab import contracts, env, tuning
from tilelab.alignment import output_row_stride
from tilelab.kernels.matmul import matmul_descriptor_kernel, matmul_pointer_kernel, matmul_wide_kernel
from tilelab.ops.bound_launch import bind_descriptor_launch, bind_launch, no_launch_hooks, stream_getter
from tilelab.ops.descriptors import ensure_descriptor_scratch, host_descriptors
from tilelab.ops.line_copies import TMA_PATHS, allocate_on_lines, bound_copies, copy_again, operands_to_copy
from tilelab.ops.matmul_plan import (
    ROW_CLASS_COUNTS,
    MatmulPlan,
    batch_stride,
    plan_matmul,
    registers_by_default,
    rows_on_sectors,
)
from tilelab.tuning import Config, ceil_div, tile_count

PATHS = ("pointer", "descriptor", "persistent", "splitk", "registers", "pingpong")
PRECISIONS = ("tf32", "tf32x3", "ieee")
INPUT_DTYPES = (torch.float16, torch.bfloat16, torch.float32)
OUTPUT_DTYPES = (torch.float16, torch.bfloat16, torch.float32)

MAX_GRID_Y = 65535  # CUDA's limit on grid axis 1, which carries the batch


# Planning (which path, which tile) is in tilelab.ops.matmul_plan; `plan_matmul` is its entry point.


# -- launching -----------------------------------------------------------------------------------


def class_tile_count(m: int, n: int, config, row_classes: int = 1) -> int:
    """Tiles of C [m, n] when A's rows are read in `row_classes` classes (`row_classes`), each class tiled
    on its own; one class is all of M (`tile_count`)."""
    return row_classes * tile_count(m // row_classes, n, config)


NO_EPILOGUE = (None, "")  # bias_ptr and ACTIVATION at their defaults: the kernels as they were before linear


def epilogue_args(epilogue) -> tuple:
    """The trailing kernel arguments (bias_ptr, ACTIVATION) of `tilelab.linear`'s fused epilogue
    (`apply_epilogue`): `epilogue` is (bias tensor or None, activation name or ""). None, as every matmul
    launch has it: no arguments, so Triton's binder fills in the defaults (NO_EPILOGUE), with which the kernels
    compile as they did before the epilogue existed (tests/unit/test_linear_compile.py), and a matmul launch's
    arguments are what they were. Its replay passes NO_EPILOGUE itself (`_launch_plan`)."""
    if epilogue is None:
        return ()
    bias, activation = epilogue
    return (bias, activation or "")


def _launch(plan: MatmulPlan, config: Config, a3, b3, c3, m: int, n: int, k: int, epilogue=None):
    """Launch the planned kernel; returns (compiled kernel, grid, arguments) of the last launch. `epilogue`:
    `epilogue_args`' (bias, activation), fused into the pointer and descriptor kernels (not the wide one)."""
    grid_tiles = class_tile_count(m, n, config, plan.row_classes)
    batch = c3.shape[0]
    if plan.path == "pointer":
        kernel = matmul_pointer_kernel
    else:
        kernel = matmul_wide_kernel if tuning.is_wide(config) else matmul_descriptor_kernel
    if epilogue is not None and kernel is matmul_wide_kernel:
        raise ValueError("matmul_wide_kernel has no epilogue: launch a power-of-two tile")
    # Grid axis 1 holds at most 65535 batches: launch larger batches in slices.
    for start in range(0, batch, MAX_GRID_Y):
        stop = min(batch, start + MAX_GRID_Y)
        a_part = a3[start:stop] if a3.shape[0] > 1 else a3
        b_part = b3[start:stop] if b3.shape[0] > 1 else b3
        grid = (grid_tiles, stop - start, 1)
        args = _kernel_args(plan, config, a_part, b_part, c3[start:stop], m, n, k, epilogue)
        compiled = kernel[grid](*args, num_warps=config.num_warps, num_stages=config.num_stages)
    return compiled, grid, args



def _kernel_args(plan: MatmulPlan, config: Config, a3, b3, c3, m, n, k, epilogue=None) -> tuple:
    """Every kernel argument in signature order, constexprs included (the epilogue's trailing ones only when
    there is one: `epilogue_args`)."""
    tiles = (config.block_m, config.block_n, config.block_k, config.group_m, plan.input_precision)
    if plan.path == "pointer":
        return (
            a3, b3, c3, m, n, k,
            batch_stride(a3), a3.stride(1), a3.stride(2),
            batch_stride(b3), b3.stride(1), b3.stride(2),
            c3.stride(0), c3.stride(1), c3.stride(2),
            *tiles, plan.offsets_64, plan.align, *epilogue_args(epilogue),
        )
    a_l, b_l = plan.a_layout, plan.b_layout
    # Descriptors built here, 3-D for a batch: no program builds its own (the strides are then unused).
    bm, bn, bk = config.block_m, config.block_n, config.block_k
    if tuning.is_wide(config):  # B and C described twice: blocks 2/3 and 1/3 of the tile wide
        main, extra = bn * 2 // 3, bn // 3
        a_desc, b_desc, c_desc = host_descriptors(a3, b3, c3, a_l, b_l, bm, main, bk, main)
        _, b_extra, c_extra = host_descriptors(a3, b3, c3, a_l, b_l, bm, extra, bk, extra)
        return (a_desc, b_desc, c_desc, b_extra, c_extra, m, n, k, *tiles, a_l.row_major, not b_l.row_major)
    operands = host_descriptors(a3, b3, c3, a_l, b_l, bm, bn, bk, bn, plan.row_classes)
    return (
        *operands, m, n, k,
        batch_stride(a3), a_l.row_stride,
        batch_stride(b3), b_l.row_stride,
        c3.stride(0), c3.stride(1),
        *tiles, a_l.row_major, not b_l.row_major, True, plan.row_classes, *epilogue_args(epilogue),
    )


def _candidates(element_size: int, m: int, n: int, out_element_size: int = 0, wide: bool = False) -> list[Config]:
    """Tunable configs for this problem; `out_element_size` > 0 when the epilogue stages C in shared memory;
    `wide`: with the descriptor path's wide tiles (`tuning.WIDE_CANDIDATES`)."""
    base = [*tuning.GPU_CANDIDATES, *(tuning.WIDE_CANDIDATES if wide else ())]
    if element_size >= 4:
        # Twice the bytes per element: halve the K step to keep the pipeline in shared memory.
        base = [dataclasses.replace(c, block_k=c.block_k // 2) for c in base]
    return tuning.prune(base, m, n, element_size, out_element_size)


def _tuning_key(plan: MatmulPlan, a3, b3, c3, m, n, k, *, coarse: bool = False) -> str:
    """The tuning-cache key of this plan's problem: its shape in half-octave buckets (`tuning.shape_bucket`
    with fine=True); `coarse`: in powers of two, the key `_fallback_key` offers."""
    layout = ("a" if plan.a_layout.row_major else "at") + ("b" if plan.b_layout.row_major else "bt")
    # A batch has tiles to spare where one GEMM of its size has not: its own entry ("...|batch8"), not the
    # single GEMM's, whose tiles may be chosen small to fill the SMs.
    batch = () if c3.shape[0] == 1 else (f"batch{tuning.pow2_at_least(c3.shape[0], 1)}", )
    # Rows read in classes favour other tiles (taller ones: B is the operand still read off sectors).
    classes = () if plan.row_classes == 1 else (f"rowclasses{plan.row_classes}", )
    return "|".join((
        env.gpu_name(a3.device.index or 0) if a3.device.type == "cuda" else "cpu",
        plan.path, str(a3.dtype).removeprefix("torch."), str(c3.dtype).removeprefix("torch."),
        plan.input_precision, layout, tuning.shape_bucket(m, n, k, fine=not coarse), *batch, *classes,
        *(("b-off-sectors", ) if _split_k_tiles_by_b_sectors(plan, m, b3) else ()),
    ))


def _fallback_key(plan: MatmulPlan, a3, b3, c3, m, n, k) -> str | None:
    """The power-of-two bucket's key, whose winner a problem takes where nothing was tuned in its half-octave
    bucket (`tuning.choose`): every winner shipped before the eighteenth session is keyed so. `pretune` tunes
    the half octave instead (`tuning.exploring`). Shapes between powers of two have winners of their own
    (call KKKKKK, results/h200-bucket-probe.log, fp16): 768^3 8.5 us against 9.3 on the 1024^3 bucket's, 1536^3
    19.9 against 21.6. Split-K has none: it tunes where its key is unknown, since how many slices pay depends on
    how many tiles the SMs get, and 1024x1024x16384 ran 1.45x slower on the 3 slices tuned at 768x768x16384
    (call GGGGGG, results/h200-long-k-wave-split-probe.log: 83.7 against 57.7 us, torch 54.1)."""
    if plan.path == "splitk" or tuning.shape_bucket(m, n, k) == tuning.shape_bucket(m, n, k, fine=True):
        return None
    return _tuning_key(plan, a3, b3, c3, m, n, k, coarse=True)


def _split_k_tiles_by_b_sectors(plan: MatmulPlan, m: int, b3: torch.Tensor) -> bool:
    """Whether split-K through TMA reads a B whose rows are off 32-byte sectors: such problems tune apart
    ("...|b-off-sectors"), since their winners are tiles that read B fewer times. Measured on the H200 in turns
    (call DDDDDD, results/h200-long-k-off-sector-probe.log, fp16): 1000x1000x4000 30.6 us with the
    1024x1024x4096 bucket's 64x128x128 in one slice, 27.5 with 128x128x128 in 2 slices (torch 19.9);
    1000x1000x16000 150.1 against 75.5 (torch 54.4); 1024x1024x4096 itself keeps 64x128x128 (19.0 against
    25.0)."""
    from tilelab.ops import matmul_hopper

    return (plan.path == "splitk" and matmul_hopper.split_k_reads_through_tma(m, plan.a_layout, plan.b_layout)
            and not rows_on_sectors(b3, plan.b_layout))


# -- the public op -------------------------------------------------------------------------------


def _check(a, b, out_dtype, precision, path, config):
    contracts.require_tensor(a, "a")
    contracts.require_tensor(b, "b")
    contracts.require_rank_at_least(a, "a", 1)
    contracts.require_rank_at_least(b, "b", 1)
    contracts.require_dtype(a, "a", INPUT_DTYPES)
    contracts.require_dtype(b, "b", INPUT_DTYPES)
    contracts.require_same_dtype({"a": a, "b": b})
    contracts.require_runnable_device({"a": a, "b": b})
    contracts.require_dot_dtype_runs_here(a, "a")
    if out_dtype is not None:
        if not isinstance(out_dtype, torch.dtype):
            raise contracts.InputTypeError(f"out_dtype must be a torch.dtype, got {type(out_dtype).__name__}")
        if out_dtype not in OUTPUT_DTYPES:
            raise contracts.DTypeError(f"out_dtype must be float16, bfloat16 or float32; got {out_dtype}")
    if precision is not None:
        contracts.require_choice(precision, "precision", PRECISIONS)
        if a.dtype != torch.float32:
            raise contracts.ContractError(
                f"precision={precision!r} applies to float32 inputs only; a and b are {a.dtype}"
            )
    if path is not None:
        contracts.require_choice(path, "path", PATHS)
    if config is not None and not isinstance(config, Config):
        if not isinstance(config, str):
            raise contracts.InputTypeError(
                f"config must be None, a name or a tilelab.tuning.Config; got {type(config).__name__}"
            )
        contracts.require_choice(config, "config", tuning.NAMED_CONFIGS)
    if isinstance(config, Config):
        _check_tile(config, path)
        check_split_k_path(config, path)
    k_a = a.shape[-1]
    k_b = b.shape[0] if b.dim() == 1 else b.shape[-2]
    if k_a != k_b:
        raise contracts.ShapeError(
            f"inner dimensions differ: a is {tuple(a.shape)} (K={k_a}) but b is {tuple(b.shape)} (K={k_b})"
        )


def check_split_k_path(config, path: str | None) -> None:
    """A HopperConfig's split_k > 1 slices K on the split-K path, which path=None takes; another path would ignore
    it, so it is refused by name."""
    split_k = getattr(config, "split_k", 1)
    if split_k > 1 and path not in (None, "splitk"):
        raise contracts.ContractError(f"config.split_k={split_k} slices K on path='splitk' only (path=None takes "
                                      f"it); got path={path!r}")


def _check_tile(config: Config, path: str | None) -> None:
    """A Triton block has a power of two elements on each side, 16 at least (the tensor cores' smallest) and
    `tuning.MAX_TILE_EDGE` at most; the descriptor path also takes tiles 1.5 powers of two wide (`tuning.is_wide`)."""
    for field in ("block_m", "block_n", "block_k"):
        size = getattr(config, field)
        if type(size) is int and size > tuning.MAX_TILE_EDGE:
            raise contracts.ContractError(f"config.{field} must be at most {tuning.MAX_TILE_EDGE} (the offsets of "
                                          f"masked lanes past an edge are sized for it); got {size}")
        if field == "block_n" and path in (None, "descriptor") and tuning.is_wide(config):
            continue
        if not (type(size) is int and tuning.is_power_of_two(size) and size >= 16):
            wide = " (or, on the descriptor path, 3 times one: 48, 96, 192, ...)" if field == "block_n" else ""
            raise contracts.ContractError(f"config.{field} must be a power of two, at least 16{wide}; got {size!r}")
    contracts.require_launch_counts(config)
    if hasattr(config, "split_k"):  # a HopperConfig
        contracts.require_config_int(config, "split_k", high=tuning.SPLIT_K_LIMIT)
        for flag in ("epilogue_subtile", "warp_specialize", "flatten"):
            contracts.require_bool(getattr(config, flag), f"config.{flag}")


@dataclasses.dataclass
class _Problem:
    """Operands as [batch, rows, K] @ [batch, K, N] views, and the shape to give the result."""

    a3: torch.Tensor
    b3: torch.Tensor
    m: int  # rows of each GEMM (batch * M when a shared B folds the batch into rows)
    n: int
    k: int
    batch: int
    out_shape: list[int]
    # b3 is a K-major copy of the caller's B: (the source's data_ptr, compiled, grid, arguments) of the
    # single transpose launch that made it, for replays; None when b3 is the caller's own memory.
    b_copy: tuple | None = None
    # Operands read from copies on 128-byte lines (`_with_rows_on_lines`): ("a" or "b", LineCopy) each.
    line_copies: tuple = ()


def _as_gemm(a: torch.Tensor, b: torch.Tensor) -> _Problem:
    # torch.matmul's 1-D rules: a vector is a 1-row (a) or 1-column (b) matrix, removed afterwards.
    a2 = a.unsqueeze(0) if a.dim() == 1 else a
    b2 = b.unsqueeze(-1) if b.dim() == 1 else b
    batch_shape = contracts.broadcast_batch(a2.shape[:-2], b2.shape[:-2])
    m, k = a2.shape[-2:]
    n = b2.shape[-1]
    out_shape = [*batch_shape, m, n]
    if b.dim() == 1:
        out_shape.pop(-1)
    if a.dim() == 1:
        out_shape.pop(-2 if b.dim() > 1 else -1)
    batch = math.prod(batch_shape)
    a3 = a2.expand(*batch_shape, m, k).reshape(batch, m, k)
    b3 = b2.expand(*batch_shape, k, n).reshape(batch, k, n)
    rows = m
    if batch > 1 and b3.stride(0) == 0 and a3.stride(0) == m * a3.stride(1):
        # A shared B: the batch is just more rows of A, one larger GEMM (as torch does).
        a3, b3, rows = a3.reshape(1, batch * m, k), b3[:1], batch * m
    return _Problem(a3, b3, rows, n, k, batch, out_shape)


# Hopper's tf32 wgmma reads both operands K-major from shared memory (only 16-bit types may be transposed
# there), so a row-major [K, N] float32 B makes Triton transpose every B tile through registers: 0.17-0.22x
# torch at 4096^3 on the H200 against 0.8x with B stored [N, K] (results/h200-tf32-probe.log). Copying B
# once costs about as much as 430 rows of that slow product, so it pays from here on.
TF32_K_MAJOR_MIN_M = 512


def _with_k_major_b(p: _Problem, precision: str | None, path: str | None = None, config=None, *,
                    copy: bool = True) -> _Problem:
    """For large tf32/tf32x3 products on Hopper: B copied to K-major storage, else `p` unchanged. The
    registers path (tf32 only) needs no copy: it takes B as stored.

    copy=False (describing a plan): the K-major buffer is allocated but not filled.
    """
    b3 = p.b3
    if path == "registers" or (path is None and config is None
                               and registers_by_default(p.a3, b3, precision or "tf32")):
        return p
    if (p.a3.dtype != torch.float32 or (precision or "tf32") == "ieee" or p.m < TF32_K_MAJOR_MIN_M
            or b3.stride(2) != 1 or b3.shape[2] == 1 or b3.shape[1] == 1
            or env.interpreting() or not env.is_hopper_or_newer(b3.device)):
        return p
    shared = b3.shape[0] > 1 and b3.stride(0) == 0  # one B broadcast over the batch: copy it once
    source = b3[:1] if shared else b3
    launch = None
    if copy:
        k_major, launch = _transposed_copy(source)
        k_major = k_major.transpose(1, 2)
    else:
        k_major = source.new_empty(source.transpose(1, 2).shape).transpose(1, 2)
    return dataclasses.replace(p, b3=k_major.expand(b3.shape) if shared else k_major,
                               b_copy=(source.data_ptr(), *launch) if launch else None)


def _with_rows_on_lines(p: _Problem, path: str | None, config, *, copy: bool = True) -> _Problem:
    """For large fp16/bf16 products on Hopper with an operand whose rows TMA cannot read (not 16-byte
    aligned): that operand copied onto 128-byte lines, if the plan on the copies takes a TMA path
    (`tilelab.ops.line_copies`, which says what it measured); else `p` unchanged.

    copy=False (describing a plan): the copies are allocated but not filled.
    """
    want_a, want_b = operands_to_copy(p.a3, p.b3, path, config)
    if not (want_a or want_b):
        return p
    try:
        lined = {name: allocate_on_lines(x3)
                 for name, x3, want in (("a", p.a3, want_a), ("b", p.b3, want_b)) if want}
    except torch.OutOfMemoryError:  # a copy needs as much memory again as its operand: without it, the pointer path
        return p
    a3 = lined["a"].view if "a" in lined else p.a3
    b3 = lined["b"].view if "b" in lined else p.b3
    if plan_matmul(a3, b3, None, "tf32", None).path not in TMA_PATHS:
        return p
    made = tuple((name, copy_made.fill() if copy else None) for name, copy_made in lined.items())
    return dataclasses.replace(p, a3=a3, b3=b3, line_copies=made)


TRANSPOSE_BLOCK = 64


def transposed_copy(x: torch.Tensor) -> torch.Tensor:
    """A contiguous [batch, C, R] copy of a [batch, R, C] tensor (`transpose_kernel`: both sides coalesced)."""
    return _transposed_copy(x)[0]


def _transposed_copy(x: torch.Tensor):
    """transposed_copy's result, and (compiled, grid, arguments) of its launch if it took a single one."""
    from tilelab.kernels.transpose import transpose_kernel

    batch, rows, cols = x.shape
    out = torch.empty((batch, cols, rows), dtype=x.dtype, device=x.device)
    launches = []
    for start in range(0, batch, MAX_GRID_Y):
        src, dst = x[start:start + MAX_GRID_Y], out[start:start + MAX_GRID_Y]
        grid = (ceil_div(rows, TRANSPOSE_BLOCK), ceil_div(cols, TRANSPOSE_BLOCK), src.shape[0])
        args = (src, dst, rows, cols, *src.stride(), *dst.stride(), TRANSPOSE_BLOCK, TRANSPOSE_BLOCK)
        launches.append((transpose_kernel[grid](*args, num_warps=4), grid, args))
    return out, (launches[0] if len(launches) == 1 else None)


def _addresses_twice(launch):
    """A launch of `matmul_wide_kernel`, which describes B and C twice, called as the others are: (stream, a, b, c)."""
    def launch_wide(stream, a_address, b_address, c_address):
        launch(stream, a_address, b_address, c_address, b_address, c_address)
    return launch_wide


@dataclasses.dataclass(frozen=True)
class _Replay:
    """A launch recorded for one operand signature: replaying it skips checks, planning and Triton's binder."""

    launch: object  # bind_launch(...) of the matmul kernel
    device: torch.device  # with its index: the key fixed it
    storage_shape: tuple[int, ...]
    out_dtype: torch.dtype
    out_shape: tuple[int, ...]
    out_strides: tuple[int, ...]
    needs_scratch: bool  # in-kernel descriptors: the allocator must be set in this thread
    split_k: tuple | None = None  # split-K: (workspace shape, tile counters needed)
    out_is_storage: bool = False  # storage_shape is the output's shape: return the buffer itself
    b_copy: tuple | None = None  # tf32 K-major B: (bind_launch of the transpose, the copy's shape)
    host_descriptors: bool = False  # `launch` was bound by bind_descriptor_launch
    # Operands copied onto lines first (`line_copies.bound_copies`).
    line_copies: tuple = ()

    def __call__(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        if self.needs_scratch:
            ensure_descriptor_scratch()
        stream = stream_getter()(self.device.index)
        if self.b_copy is not None:
            copy, copy_shape = self.b_copy
            b_k_major = b.new_empty(copy_shape)
            copy(stream, b.data_ptr(), b_k_major.data_ptr())
            b = b_k_major
        a, b = copy_again(self.line_copies, stream, a, b)
        # a.new_empty: the device comes from `a` (the key fixed it) without parsing a device argument, about
        # 1 us less than torch.empty(..., device=) on the H200's host (results/h200-overhead.log).
        storage = a.new_empty(self.storage_shape, dtype=self.out_dtype)
        if self.split_k is None:
            self.launch(stream, a.data_ptr(), b.data_ptr(), storage.data_ptr())
        else:
            workspace, counters = split_k_scratch(self.split_k, a, self.device)
            self.launch(stream, a.data_ptr(), b.data_ptr(), storage.data_ptr(), workspace.data_ptr(),
                        counters.data_ptr())
        if self.out_is_storage:  # the usual case: the output is the whole fresh buffer
            return storage
        return storage.as_strided(self.out_shape, self.out_strides)


def split_k_scratch(split_k: tuple, like: torch.Tensor, device: torch.device) -> tuple:
    """What a replayed split-K launch passes after C: a fresh float32 workspace (allocated like `like`) and the
    tile counters, from `_launch_plan`'s (workspace shape, counters needed)."""
    from tilelab.ops import matmul_hopper

    workspace_shape, counters = split_k
    return like.new_empty(workspace_shape, dtype=torch.float32), matmul_hopper.split_k_counters(device, counters)


_REPLAYS: dict[tuple, _Replay] = {}


def _replay_key(a, b, out_dtype, precision, path, config) -> tuple | None:
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.is_cuda):
        return None
    if not (config is None or isinstance(config, (str, Config))):
        return None  # unhashable or wrong: let the contract check report it
    if (a.requires_grad or b.requires_grad) and torch.is_grad_enabled():
        return None  # autograd goes through the custom op
    # Alignment is part of the key: Triton specializes pointers on 16-byte divisibility.
    try:
        return (a.shape, a.stride(), b.shape, b.stride(), a.dtype, b.dtype, a.get_device(), b.get_device(),
                a.data_ptr() % 16, b.data_ptr() % 16, out_dtype, precision, path, config)
    except RuntimeError:  # a sparse tensor: no strides or storage, no key (the contract check refuses it)
        return None


def matmul(a: torch.Tensor, b: torch.Tensor, *, out_dtype: torch.dtype | None = None,
           precision: str | None = None, path: str | None = None,
           config: str | Config | None = None) -> torch.Tensor:
    """C = A @ B with torch.matmul's semantics, on Triton kernels.

    float16/bfloat16 inputs accumulate in float32 and return the input dtype
    unless `out_dtype` says otherwise. float32 inputs take `precision`:
    "tf32" (default: tensor cores, 10-bit mantissa products), "tf32x3"
    (three tf32 products recover nearly full float32) or "ieee" (exact
    float32 -- and no tensor cores at all: Triton lowers an ieee dot to
    plain FMA instructions, several times slower).

    `path` forces "pointer" (masked loads, any strides), "descriptor"
    (tensor descriptors / TMA; needs 16-byte aligned data), "persistent"
    (one program per SM looping over tiles; Hopper), "splitk" (K shared
    out among programs), "registers" (tf32 with row-major A and B on
    Hopper, B's tiles fed to the tensor cores through registers instead of
    copying B; the default there when its tiles fill the SMs) or "pingpong"
    (fp16/bf16 on Hopper, two warp groups taking turns on whole tiles; the
    default instead of "persistent" when K is short or its smaller tiles
    fill the last wave better). `config` forces a named ("fixed", or
    "interpreter": the one tile the interpreter runs) or explicit `Config`
    instead of the tuned choice. An input that requires grad goes through
    `torch.ops.tilelab.matmul`, which has a backward and carries only names,
    so an explicit `Config` is refused then (pass it under torch.no_grad()).

    The TMA paths store C into rows padded to 16 bytes, or to whole 128-byte
    lines when a row fills one (`output_row_stride`), and return the [.., N]
    view: for N = 1000 in fp16, strides (1024, 1). Where the layout matters
    (`.view`, a C extension), call `.contiguous()` on the result.
    """
    traced = torch.compiler.is_compiling()  # then only the op has a fake implementation (no data pointers)
    key = None if traced else _replay_key(a, b, out_dtype, precision, path, config)
    replay = _REPLAYS.get(key) if key is not None else None
    if replay is not None and no_launch_hooks():
        return replay(a, b)

    _check(a, b, out_dtype, precision, path, config)
    if traced or (a.requires_grad or b.requires_grad) and torch.is_grad_enabled():
        return _differentiable(a, b, out_dtype, precision, path, config)
    out_dtype = out_dtype or a.dtype
    p = _as_gemm(a, b)
    if p.batch == 0 or p.m == 0 or p.n == 0:
        return torch.empty(p.out_shape, dtype=out_dtype, device=a.device)
    if p.k == 0:
        return torch.zeros(p.out_shape, dtype=out_dtype, device=a.device)
    p = _with_rows_on_lines(_with_k_major_b(p, precision, path, config), path, config)
    plan = plan_matmul(p.a3, p.b3, path, precision or "tf32", config)
    c3 = _allocate_output(plan, p, out_dtype)
    with _config_must_fit(config):
        compiled, grid, args, tail_args, split_k = _launch_plan(plan, p, c3)
    out = c3.view(p.out_shape) if c3.is_contiguous() else c3.reshape(p.out_shape)
    if key is not None and _replayable(p, a, b, c3, out):
        storage = c3._base if c3._base is not None else c3
        # An output that is its whole buffer (no row padding) is allocated in its own shape: no view to make.
        whole = out.is_contiguous() and out.numel() == storage.numel()
        b_copy = None
        if p.b_copy is not None:
            _, copy_kernel, copy_grid, copy_args = p.b_copy
            b_copy = (bind_launch(copy_kernel, copy_grid, copy_args[2:]), tuple(copy_args[1].shape))
        # A descriptor built on the host, Triton's or Gluon's (another class, the same launcher arguments).
        descriptors = tuple(itertools.takewhile(lambda arg: hasattr(arg, "block_shape"), args[:5]))
        host = bool(descriptors)
        if len(descriptors) == 5:  # a wide tile's: B and C described twice (`_kernel_args`)
            launch = _addresses_twice(bind_descriptor_launch(compiled, grid, tail_args, descriptors))
        elif host:  # replayed with the same shapes, strides and blocks; only the addresses change
            launch = bind_descriptor_launch(compiled, grid, tail_args, descriptors)
        else:
            launch = bind_launch(compiled, grid, tail_args)
        _REPLAYS[key] = _Replay(launch, a.device, tuple(out.shape if whole else storage.shape), out_dtype,
                                tuple(out.shape), out.stride(), plan.path in ("descriptor", "persistent") and not host,
                                split_k, out_is_storage=whole, b_copy=b_copy, host_descriptors=host,
                                line_copies=bound_copies(p.line_copies))
    return out


# The kernels with `tilelab.linear`'s epilogue (the registers kernel and the wide tiles have none).
EPILOGUE_PATHS = ("pointer", "descriptor", "persistent", "splitk", "pingpong")


def _launch_plan(plan: MatmulPlan, p: _Problem, c3: torch.Tensor, epilogue=None):
    """Launch the planned path's kernel into c3 (tuning it first where it is tuned); returns (compiled kernel,
    grid, arguments, the arguments a replay keeps fixed, split-K's (workspace shape, tile counters) or None).

    `epilogue` (`tilelab.linear`): (bias or None, activation), fused on EPILOGUE_PATHS only. Their tiles (and
    split-K's slices) are the matmul's, tuned under the matmul's key with the plain kernel; a wide tile the tuner
    chose (the wide kernel has no epilogue) gives way to its power-of-two part, 128x192 -> 128x128."""
    if epilogue is not None and plan.path not in EPILOGUE_PATHS:
        raise ValueError(f"path {plan.path!r} has no fused epilogue; linear plans one of {EPILOGUE_PATHS}")
    split_k = None
    wide = False
    if plan.path == "persistent":
        compiled, grid, args = _launch_persistent(plan, p, c3, epilogue=epilogue)
        tail_args = args[3:]
    elif plan.path == "registers":
        from tilelab.ops import matmul_hopper, matmul_registers

        sms = matmul_hopper.device_sms(c3.device)
        compiled, grid, args = matmul_registers.launch(p.a3[0], p.b3[0], c3[0],
                                                       matmul_registers.choose_config(p.m, p.n, sms), sms)
        tail_args = args[3:]
    elif plan.path == "pingpong":
        from tilelab.ops import matmul_hopper, matmul_pingpong

        compiled, grid, args = matmul_pingpong.launch(p.a3, p.b3, c3, matmul_hopper.device_sms(c3.device),
                                                      epilogue=epilogue)
        tail_args = args[3:]
    elif plan.path == "splitk":
        from tilelab.ops import matmul_hopper

        workspace, compiled, grid, args = matmul_hopper._launch_split_k(
            p.a3, p.b3, c3, p.m, p.n, p.k, plan.input_precision, split_k_config(plan, p, c3),
            **split_k_layouts(plan, p.m), epilogue=epilogue)
        split_k = (tuple(workspace.shape), grid[0] * grid[2])
        tail_args = args[5:]  # after a, b, c, workspace, counters (with an epilogue: bias_ptr, ACTIVATION last)
    else:
        chosen = plan.config or tuning.choose(
            _tuning_key(plan, p.a3, p.b3, c3, p.m, p.n, p.k),
            _candidates(p.a3.element_size(), p.m, p.n, c3.element_size() if plan.path == "descriptor" else 0,
                        wide=plan.path == "descriptor" and plan.row_classes == 1),
            lambda cfg: _launch(plan, cfg, p.a3, p.b3, c3, p.m, p.n, p.k),
            fallback_key=_fallback_key(plan, p.a3, p.b3, c3, p.m, p.n, p.k),
        )
        if epilogue is not None and tuning.is_wide(chosen):
            chosen = dataclasses.replace(chosen, block_n=chosen.block_n * 2 // 3)
        compiled, grid, args = _launch(plan, chosen, p.a3, p.b3, c3, p.m, p.n, p.k, epilogue)
        wide = tuning.is_wide(chosen)
        tail_args = args[5:] if wide else args[3:]  # after the descriptors (`_kernel_args`)
    if epilogue is None and plan.path in EPILOGUE_PATHS and not wide:
        # The launch left bias_ptr and ACTIVATION to Triton's binder, but the C launcher that a replay calls
        # (`bind_launch`) takes every parameter, constexprs included: the replay passes their defaults.
        tail_args = (*tail_args, *NO_EPILOGUE)
    return compiled, grid, args, tail_args, split_k


@contextlib.contextmanager
def _config_must_fit(config):
    """A caller's explicit configuration that needs more of the GPU than it has (shared memory, registers)
    is a contract error naming `config`; the tuner's own candidates are pruned to fit and never get here."""
    try:
        yield
    except triton.runtime.errors.OutOfResources as error:
        if config is None:
            raise
        label = config.label() if isinstance(config, Config) else repr(config)
        raise contracts.ContractError(
            f"config {label} does not fit this GPU: it needs {error.required} of {error.name}, the limit is "
            f"{error.limit}; pass a smaller tile, fewer stages, or config=None to let tilelab choose") from error


def split_k_layouts(plan: MatmulPlan, m: int) -> dict:
    """`launch_split_k`'s a_layout and b_layout (the plan's) where split-K reads through TMA
    (`matmul_hopper.split_k_reads_through_tma`), else nothing: pointer loads."""
    from tilelab.ops import matmul_hopper

    if matmul_hopper.split_k_reads_through_tma(m, plan.a_layout, plan.b_layout):
        return {"a_layout": plan.a_layout, "b_layout": plan.b_layout}
    return {}


def split_k_config(plan: MatmulPlan, p: _Problem, c3: torch.Tensor):
    """The caller's tiles (and split) if given, else the tuned split-K configuration for this problem."""
    from tilelab.ops import matmul_hopper

    if plan.config is not None:
        return matmul_hopper.HopperConfig(**plan.config.as_dict())
    candidates = matmul_hopper.split_k_candidates(p.m, p.n, p.k, c3.shape[0], plan.element_size,
                                                  matmul_hopper.device_sms(c3.device))
    layouts = split_k_layouts(plan, p.m)
    return tuning.choose(
        _tuning_key(plan, p.a3, p.b3, c3, p.m, p.n, p.k), candidates,
        lambda cfg: matmul_hopper.launch_split_k(p.a3, p.b3, c3, p.m, p.n, p.k, plan.input_precision, cfg,
                                                 **layouts),
        config_type=matmul_hopper.HopperConfig,
    )


def persistent_candidates(plan: MatmulPlan, m: int, n: int, out_element_size: int) -> list:
    """The persistent kernel's configurations for this problem, the H200's measured default first."""
    from tilelab.ops import matmul_hopper  # imports this module: resolved at call time

    base = matmul_hopper.PERSISTENT_CANDIDATES
    if plan.row_classes > 1:  # rows read by class need host-built descriptors
        base = [c for c in base if matmul_hopper.persistent_host_descriptors(c)]
    if plan.element_size >= 4:
        # 4-byte inputs: half the K step keeps the same shared-memory footprint per stage.
        base = [dataclasses.replace(c, block_k=c.block_k // 2) for c in base]
    kept = matmul_hopper.prune(base, m, n, plan.element_size, out_element_size)
    return kept or [base[0]]


def persistent_config(plan: MatmulPlan, p: _Problem, c3: torch.Tensor, *, measure: bool = False):
    """The caller's tiles if given; else a pre-tuned winner for this problem if one is known; else the
    default measured on the H200, or a smaller tile where its tiles would leave most SMs idle
    (`filling_first`). `measure=True` (pretune) times the candidates now."""
    from tilelab.ops import matmul_hopper

    if plan.config is not None:
        return matmul_hopper.HopperConfig(**plan.config.as_dict())
    sms = matmul_hopper.device_sms(p.a3.device)
    candidates = matmul_hopper.filling_first(persistent_candidates(plan, p.m, p.n, c3.element_size()), p.m, p.n,
                                             c3.shape[0], sms)
    return tuning.choose(
        _tuning_key(plan, p.a3, p.b3, c3, p.m, p.n, p.k), candidates,
        lambda cfg: matmul_hopper.launch_persistent(p.a3, p.b3, c3, p.m, p.n, p.k, plan.a_layout,
                                                    plan.b_layout, plan.input_precision, cfg, sms,
                                                    row_classes=plan.row_classes),
        config_type=matmul_hopper.HopperConfig, measure=measure,
        fallback_key=_fallback_key(plan, p.a3, p.b3, c3, p.m, p.n, p.k),
    )


def _launch_persistent(plan: MatmulPlan, p: _Problem, c3: torch.Tensor, *, measure: bool = False, epilogue=None):
    from tilelab.ops import matmul_hopper

    config = persistent_config(plan, p, c3, measure=measure)
    return matmul_hopper.launch_persistent(p.a3, p.b3, c3, p.m, p.n, p.k, plan.a_layout, plan.b_layout,
                                           plan.input_precision, config, matmul_hopper.device_sms(p.a3.device),
                                           row_classes=plan.row_classes, epilogue=epilogue)


def pretune(shapes, dtypes=(torch.float16, torch.bfloat16), *, paths=(None, "persistent"),
            precision: str | None = None, device="cuda", b_layout: str = "kn") -> list[dict]:
    """Tune every shape in `shapes` for each dtype and path now, so later calls (and later processes, through
    the disk cache) pay nothing. A shape is (M, N, K), or (batch, M, N, K) for a batch with a B per entry;
    b_layout="nk" tunes B stored [.., N, K] (passed transposed, as nn.Linear's weight or attention's K^T).
    Paths an operand layout cannot take are skipped. Each shape is tuned in its own half-octave bucket, where
    a call would take the power-of-two bucket's winner (`_fallback_key`).

    Returns one record per tuned (shape, dtype, path): its b_layout, and `describe_plan`'s path and config.
    """
    contracts.require_choice(b_layout, "b_layout", ("kn", "nk"))
    shapes = contracts.as_shapes(shapes, "shapes", (3, 4))
    dtypes = contracts.as_choices(dtypes, "dtypes", INPUT_DTYPES)
    paths = contracts.as_choices(paths, "paths", (None, *PATHS))
    _REPLAYS.clear()  # a launch recorded before would replay the configuration it was recorded with
    tuned = []
    for shape in shapes:
        *batch, m, n, k = shape
        for dtype in dtypes:
            a = torch.randn(*batch, m, k, device=device).to(dtype)
            b = torch.randn(*batch, k, n, device=device).to(dtype)
            if b_layout == "nk":
                b = b.transpose(-1, -2).contiguous().transpose(-1, -2)
            for path in paths:
                try:
                    _check(a, b, None, precision, path, None)
                    # As matmul() would see it.
                    prob = _with_rows_on_lines(_with_k_major_b(_as_gemm(a, b), precision, path), path, None)
                    plan = plan_matmul(prob.a3, prob.b3, path, precision or "tf32", None)
                    # The persistent path's untuned default is a measured choice, so matmul() does not time its
                    # candidates: tune it here, whether it was asked for or is where path=None leads.
                    with tuning.exploring():
                        if plan.path == "persistent":
                            _launch_persistent(plan, prob, _allocate_output(plan, prob, a.dtype), measure=True)
                        else:
                            matmul(a, b, precision=precision, path=path)
                except contracts.AlignmentError:
                    continue
                record = describe_plan(a, b, precision=precision, path=path)
                tuned.append({"shape": list(shape), "dtype": str(dtype).removeprefix("torch."), "b_layout": b_layout,
                              "path": record["path"], "config": record["config"]})
    _REPLAYS.clear()  # launches recorded before tuning would keep their old configs
    return tuned


def _replayable(p: _Problem, a, b, c3, out) -> bool:
    """One launch over the caller's own memory (B possibly through one K-major copy of it, A or B through one
    copy onto lines each), into a fresh buffer we can re-create."""
    copied = dict(p.line_copies)
    if any(made.launch is None for made in copied.values()):
        return False  # a copy that took several launches (a batch over CUDA's grid limit)
    a_source = copied["a"].source_ptr if "a" in copied else p.a3.data_ptr()
    b_source = p.b3.data_ptr() if p.b_copy is None else p.b_copy[0]
    if "b" in copied:
        b_source = copied["b"].source_ptr
    return (
        a_source == a.data_ptr()
        and b_source == b.data_ptr()
        and c3.shape[0] <= MAX_GRID_Y
        and out.data_ptr() == c3.data_ptr()
        and not env.interpreting()
    )


def _differentiable(a, b, out_dtype, precision, path, config) -> torch.Tensor:
    """Route through `torch.ops.tilelab.matmul`, which has a backward (tilelab/library.py)."""
    if isinstance(config, Config):
        raise contracts.ContractError(
            "config must be a name (e.g. 'fixed') when an input requires grad, or under torch.compile: the op "
            "carries only names; pass an explicit Config to an eager call under torch.no_grad()"
        )
    import tilelab.library  # noqa: F401  registers the op on first use

    dtype_name = str(out_dtype).removeprefix("torch.") if out_dtype is not None else None
    return torch.ops.tilelab.matmul(a, b, dtype_name, precision, path, config)


def _allocate_output(plan: MatmulPlan, p: _Problem, out_dtype: torch.dtype) -> torch.Tensor:
    gemms = max(p.a3.shape[0], p.b3.shape[0])
    if plan.path in ("descriptor", "persistent", "registers", "pingpong"):
        # Rows padded so TMA can store them (to a 128-byte line when they are that long); the caller sees a
        # [.., :n] view.
        width = output_row_stride(p.n, torch.finfo(out_dtype).bits // 8)
        return torch.empty((gemms, p.m, width), dtype=out_dtype, device=p.a3.device)[:, :, : p.n]
    return torch.empty((gemms, p.m, p.n), dtype=out_dtype, device=p.a3.device)


def describe_plan(a: torch.Tensor, b: torch.Tensor, *, out_dtype=None, precision=None, path=None,
                  config=None) -> dict:
    """The path and configuration `matmul` uses for these operands (after tuning, if it ran)."""
    _check(a, b, out_dtype, precision, path, config)
    # The layout matmul() gives B, not the values.
    p = _with_rows_on_lines(_with_k_major_b(_as_gemm(a, b), precision, path, config, copy=False), path, config,
                            copy=False)
    plan = plan_matmul(p.a3, p.b3, path, precision or "tf32", config)
    from tilelab.ops import matmul_hopper

    described = plan.as_dict()
    described["line_copies"] = [name for name, _ in p.line_copies]  # operands copied onto lines first
    # A stand-in for C with as many matrices as the product has: the tuning key and the grid count them.
    c_probe = torch.empty((max(p.a3.shape[0], p.b3.shape[0]), 0, 0), dtype=out_dtype or a.dtype, device=a.device)
    described["host_descriptors"] = plan.path == "descriptor"
    if plan.path == "persistent":
        config = persistent_config(plan, p, c_probe)
        described["config"] = dataclasses.asdict(config)
        described["host_descriptors"] = matmul_hopper.persistent_host_descriptors(config)
        gemms = c_probe.shape[0]
        if not described["host_descriptors"]:
            gemms = min(gemms, MAX_GRID_Y)
        # as launch_persistent's grid gives them: programs in all, or per batch where descriptors are built inside
        described["programs"] = matmul_hopper.persistent_grid(class_tile_count(p.m, p.n, config, plan.row_classes),
                                                              gemms,
                                                              matmul_hopper.device_sms(a.device), config)[0]
    elif plan.path == "registers":
        from tilelab.ops import gluon_launch, matmul_registers

        sms = matmul_hopper.device_sms(a.device)
        config = matmul_registers.choose_config(p.m, p.n, sms)
        described["config"] = config.as_dict()
        described["host_descriptors"] = True
        described["programs"] = gluon_launch.persistent_programs(p.m, p.n, config, sms)
    elif plan.path == "pingpong":
        from tilelab.ops import gluon_launch, matmul_pingpong

        config = matmul_pingpong.config_for(out_dtype or a.dtype)
        described["config"] = config.as_dict()
        described["host_descriptors"] = True
        described["programs"] = gluon_launch.persistent_programs(p.m, p.n, config, matmul_hopper.device_sms(a.device),
                                                                 c_probe.shape[0])
    elif plan.path == "splitk":
        described["host_descriptors"] = bool(split_k_layouts(plan, p.m))
    if plan.path not in ("persistent", "registers", "pingpong") and plan.config is None:
        known = known_config(plan, p, c_probe)
        described["config"] = known.as_dict() if known else None
    return described


def known_config(plan: MatmulPlan, p: _Problem, c_probe: torch.Tensor):
    """The tuned configuration a launch of a tuned path (pointer, descriptor, split-K) would take from the cache,
    untimed: split-K's `HopperConfig`, else a `Config`; None before any tuning of this problem's key."""
    from tilelab.ops import matmul_hopper

    config_type = matmul_hopper.HopperConfig if plan.path == "splitk" else Config
    return tuning.known(_tuning_key(plan, p.a3, p.b3, c_probe, p.m, p.n, p.k), config_type,
                        _fallback_key(plan, p.a3, p.b3, c_probe, p.m, p.n, p.k))


# -- compiling without a GPU ---------------------------------------------------------------------

_TRITON_TYPE = {torch.float16: "fp16", torch.bfloat16: "bf16", torch.float32: "fp32"}


def inspection_source(path: str = "descriptor", dtype: torch.dtype = torch.float16,
                      precision: str | None = None, config: str | Config | None = None, *, b_k_major: bool = False,
                      row_classes: int = 1, bias: bool = False, activation: str | None = None):
    """(kernel, signature, constexprs, config) for `triton.compiler.ASTSource`, as a real launch would specialize it.

    Row-major contiguous operands of a large aligned problem: unit strides
    become constants and pointers/strides are known 16-divisible, exactly
    what Triton's launcher would tell the compiler for such tensors.
    b_k_major (descriptor path): B stored [N, K] instead of [K, N].
    row_classes > 1 (descriptor path): A's rows read in that many classes, through host-built descriptors, as
    `row_classes` plans it for rows off sectors (A and C then 3-D).
    bias, activation: `tilelab.linear`'s fused epilogue (a bias of `dtype`; "relu", "gelu" or "silu"), as
    `epilogue_args` passes it; neither (the default) leaves the trailing parameters out of the signature, which
    compiles as a matmul launch (passing their defaults) does.
    """
    # The Hopper kernels have their own: tilelab.ops.matmul_hopper.inspection_source.
    contracts.require_choice(path, "path", ("pointer", "descriptor"))
    if (b_k_major or row_classes != 1) and path == "pointer":
        raise contracts.ContractError("b_k_major and row_classes apply to the descriptor path; the pointer path is "
                                      "inspected with B [K, N]")
    contracts.require_choice(row_classes, "row_classes", (1, *ROW_CLASS_COUNTS))
    if dtype not in _TRITON_TYPE:
        raise contracts.DTypeError(f"dtype must be float16, bfloat16 or float32; got {dtype}")
    size = torch.finfo(dtype).bits // 8
    # As a launch prunes them: the descriptor kernel also stages its C tile in shared memory.
    candidates = _candidates(size, 4096, 4096, size if path == "descriptor" else 0, wide=path == "descriptor")
    if isinstance(config, str):  # a name, or a tuning candidate's label
        known = {**tuning.NAMED_CONFIGS, **{c.label(): c for c in candidates}}
        contracts.require_choice(config, "config", known)
        config = known[config]
    config = config or candidates[0]
    precision = precision or "tf32"
    ptr = "*" + _TRITON_TYPE[dtype]
    meta = {
        "BLOCK_M": config.block_m, "BLOCK_N": config.block_n, "BLOCK_K": config.block_k,
        "GROUP_M": config.group_m, "INPUT_PRECISION": precision,
    }
    if path == "pointer":
        kernel = matmul_pointer_kernel
        ints = {"M": "i32", "N": "i32", "K": "i32",
                "stride_ab": "i32", "stride_am": "i32", "stride_ak": "i32",
                "stride_bb": "i32", "stride_bk": "i32", "stride_bn": "i32",
                "stride_cb": "i32", "stride_cm": "i32", "stride_cn": "i32"}
        unit = {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1}
        meta["OFFSETS_64"] = False
        meta["ALIGN"] = 1
    else:
        kernel = matmul_descriptor_kernel
        ints = {"M": "i32", "N": "i32", "K": "i32", "stride_ab": "i32", "stride_a_row": "i32",
                "stride_bb": "i32", "stride_b_row": "i32", "stride_cb": "i32", "stride_c_row": "i32"}
        unit = {}
        meta.update(A_K_MAJOR=True, B_K_MAJOR=b_k_major, HOST_DESCRIPTORS=row_classes > 1, ROW_CLASSES=row_classes)
    signature = {"a_ptr": ptr, "b_ptr": ptr, "c_ptr": ptr}
    if row_classes > 1:  # as `_kernel_args` describes them: A and C by class, B as stored
        t, bm, bn, bk = _TRITON_TYPE[dtype], config.block_m, config.block_n, config.block_k
        b_block = f"{bn}, {bk}" if b_k_major else f"{bk}, {bn}"
        signature = {"a_ptr": f"tensordesc<{t}[1, {bm}, {bk}]>", "b_ptr": f"tensordesc<{t}[{b_block}]>",
                     "c_ptr": f"tensordesc<{t}[1, {bm}, {bn}]>"}
    if path == "descriptor" and tuning.is_wide(config):
        if row_classes > 1:
            raise contracts.ContractError("a wide tile reads A's rows as stored: row_classes must be 1")
        kernel, ints = matmul_wide_kernel, {"M": "i32", "N": "i32", "K": "i32"}
        meta = {name: meta[name] for name in ("BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M", "INPUT_PRECISION")}
        meta.update(A_K_MAJOR=True, B_K_MAJOR=b_k_major)
        signature = _wide_signature(_TRITON_TYPE[dtype], config, b_k_major)
    signature.update({name: ("constexpr" if name in unit else kind) for name, kind in ints.items()})
    signature.update({name: "constexpr" for name in meta})
    constexprs = {**unit, **meta}
    if bias or activation:
        if kernel is matmul_wide_kernel:
            raise contracts.ContractError("a wide tile has no epilogue: inspect bias or activation with a "
                                          "power-of-two block_n")
        _add_epilogue(signature, constexprs, ptr, bias, activation)
    return kernel, signature, constexprs, config


def _add_epilogue(signature: dict, constexprs: dict, bias_type: str, bias: bool, activation: str | None) -> None:
    """The epilogue's trailing parameters in an inspection signature: a bias pointer (else a None constexpr)
    and ACTIVATION."""
    contracts.require_choice(activation, "activation", (None, "", "relu", "gelu", "silu"))
    if bias:
        signature["bias_ptr"] = bias_type
    else:
        signature["bias_ptr"] = "constexpr"
        constexprs["bias_ptr"] = None
    signature["ACTIVATION"] = "constexpr"
    constexprs["ACTIVATION"] = activation or ""


def _wide_signature(t: str, config: Config, b_k_major: bool) -> dict:
    """The host-built descriptors `_kernel_args` gives `matmul_wide_kernel`, as signature types."""
    bm, bk = config.block_m, config.block_k
    signature = {"a_desc": f"tensordesc<{t}[{bm}, {bk}]>"}
    for suffix, width in (("", config.block_n * 2 // 3), ("_extra", config.block_n // 3)):
        b_block = f"{width}, {bk}" if b_k_major else f"{bk}, {width}"
        signature[f"b{suffix}_desc"] = f"tensordesc<{t}[{b_block}]>"
        signature[f"c{suffix}_desc"] = f"tensordesc<{t}[{bm}, {width}]>"
    return {name: signature[name] for name in ("a_desc", "b_desc", "c_desc", "b_extra_desc", "c_extra_desc")}


def inspection_attrs(kernel, signature: dict) -> dict:
    """Divisibility hints (16) for every pointer and non-constant integer, as for aligned 4096-wide tensors."""
    return {
        (kernel.arg_names.index(name),): [["tt.divisibility", 16]]
        for name, kind in signature.items()
        if kind != "constexpr" and not kind.startswith("tensordesc")
    }
