"""`scaled_matmul`: fp8 C = (A @ B) * scale_a * scale_b, the contract of torch._scaled_mm with per-tensor scales.

Contract check -> config -> launch of `kernels/matmul_fp8.py`'s persistent
TMA kernel. Layouts as torch._scaled_mm wants them and as Hopper's fp8
wgmma reads them: A [M, K] row-major, B [K, N] column-major (its transpose,
[N, K], is row-major: "K-major"). Nothing is copied or transposed here.

The config is the caller's, else a tuned winner for the problem (the
shipped H200 table or the disk cache, see `tilelab.tuning`), else the first
candidate that fits and keeps the SMs busy (`choose_config`); only
`pretune_scaled` measures.

The first call with a given operand signature records its launch; later
calls with the same signature replay it (`_Replay`), as `tilelab.matmul`
does: no checks, no config lookup, and no descriptors built or encoded
again. Checked once, the signature's shapes, strides, dtypes, devices and
alignments cannot fail the contract the next time.
"""

import dataclasses

import torch

from tilelab import contracts, env, tuning
from tilelab.alignment import TMA_ALIGN, output_row_stride, padded_row_stride
from tilelab.ops.bound_launch import bind_descriptor_launch, no_launch_hooks, stream_getter
from tilelab.ops.descriptors import host_descriptors
from tilelab.ops.matmul import _check_tile
from tilelab.ops.matmul_hopper import FP8_CANDIDATES, HopperConfig, balanced_programs, device_sms, filling_first, prune
from tilelab.ops.matmul_plan import OperandLayout
from tilelab.tuning import tile_count

INPUT_DTYPE = torch.float8_e4m3fn
OUTPUT_DTYPES = (torch.bfloat16, torch.float16, torch.float32)
# Under the interpreter: small tiles, so a test's few tiles still outnumber the programs.
INTERPRETER_CONFIG = HopperConfig(32, 32, 32, group_m=2, num_warps=4, num_stages=1)


def _check(a, b, scale_a, scale_b, out_dtype, use_fast_accum, config=None) -> None:
    for name, x in (("a", a), ("b", b), ("scale_a", scale_a), ("scale_b", scale_b)):
        contracts.require_tensor(x, name)
    for name, x in (("a", a), ("b", b)):
        if x.dim() != 2:
            raise contracts.ShapeError(f"{name} must be a 2-D matrix, got a {x.dim()}-dim tensor of shape "
                                       f"{tuple(x.shape)}")
        contracts.require_dtype(x, name, (INPUT_DTYPE,))
    for name, s in (("scale_a", scale_a), ("scale_b", scale_b)):
        contracts.require_dtype(s, name, (torch.float32,))
        if s.numel() != 1:
            raise contracts.ShapeError(f"{name} must hold exactly one element (a per-tensor scale); got shape "
                                       f"{tuple(s.shape)}")
    if torch.is_grad_enabled():
        wants_grad = [name for name, x in (("a", a), ("b", b), ("scale_a", scale_a), ("scale_b", scale_b))
                      if x.requires_grad]
        if wants_grad:  # a result without a gradient would drop it silently
            raise contracts.ContractError(f"{wants_grad[0]} requires grad, but scaled_matmul has no backward (nor "
                                          "has torch._scaled_mm): detach the inputs, or call it under "
                                          "torch.no_grad()")
    if not isinstance(out_dtype, torch.dtype):
        raise contracts.InputTypeError(f"out_dtype must be a torch.dtype, got {type(out_dtype).__name__}")
    if out_dtype not in OUTPUT_DTYPES:
        raise contracts.DTypeError(f"out_dtype must be bfloat16, float16 or float32; got {out_dtype}")
    if not isinstance(use_fast_accum, bool):
        raise contracts.InputTypeError(f"use_fast_accum must be a bool, got {type(use_fast_accum).__name__}")
    if config is not None:
        _check_config(config)
    contracts.require_runnable_device({"a": a, "b": b, "scale_a": scale_a, "scale_b": scale_b})
    if a.shape[1] != b.shape[0]:
        raise contracts.ShapeError(f"inner dimensions differ: a is {tuple(a.shape)} (K={a.shape[1]}) but b is "
                                   f"{tuple(b.shape)} (K={b.shape[0]})")
    m, k = a.shape
    n = b.shape[1]
    if m == 0 or n == 0 or k == 0:
        return  # nothing is read: any layout will do
    # Layout: the unit stride must run along K in both operands (a size-1 dimension's stride is moot).
    if a.stride(1) != 1 and k > 1:
        raise contracts.AlignmentError(
            f"a must be row-major (unit stride along K), as fp8 tensor cores read it; got strides {a.stride()}. "
            "Pass a.contiguous()."
        )
    if b.stride(0) != 1 and k > 1:
        raise contracts.AlignmentError(
            f"b must be K-major: a [K, N] tensor whose transpose is contiguous (b = bt.t() for a row-major "
            f"[N, K] bt), as torch._scaled_mm wants; got strides {b.stride()}. Pass b.t().contiguous().t()."
        )
    for name, x, row_stride in (("a", a, _row_stride(a.stride(0), m, k)), ("b", b, _row_stride(b.stride(1), n, k))):
        if x.data_ptr() % TMA_ALIGN or row_stride % TMA_ALIGN:
            raise contracts.AlignmentError(
                f"{name} needs a 16-byte aligned data pointer and a row stride (along K) that is a multiple of "
                f"16 fp8 elements, for TMA; got shape {tuple(x.shape)} strides {x.stride()}. Pad K to a "
                "multiple of 16 (torch._scaled_mm has the same rule)."
            )
        if row_stride < k:  # rows that overlap (an expanded view, say): a tensor descriptor cannot describe them
            copy = "a.contiguous()" if name == "a" else "b.t().contiguous().t()"
            raise contracts.AlignmentError(
                f"{name}'s rows overlap (row stride {row_stride} along K is under K={k}), which TMA cannot read; "
                f"got strides {x.stride()}. Pass a copy: {copy}.")


# fp8 tensor-core instructions take K in steps of 32 (Triton refuses a smaller fp8 dot).
FP8_MIN_BLOCK_K = 32


def _check_config(config) -> None:
    if not isinstance(config, HopperConfig):
        raise contracts.InputTypeError("config must be None or a tilelab.ops.matmul_hopper.HopperConfig (the "
                                       f"persistent fp8 kernel's tile); got {type(config).__name__}")
    _check_tile(config, "persistent")  # matmul's rules for a Hopper tile, then fp8's own
    if config.block_k < FP8_MIN_BLOCK_K:
        raise contracts.ContractError(f"config.block_k must be a power of two, at least {FP8_MIN_BLOCK_K}; "
                                      f"got {config.block_k}")
    if config.split_k != 1 or config.warp_specialize is not False:
        raise contracts.ContractError("config: the fp8 kernel has no split-K and no warp specialization; use "
                                      f"split_k=1 and warp_specialize=False (got {config.split_k!r}, "
                                      f"{config.warp_specialize!r})")


def _row_stride(stride: int, rows: int, k: int) -> int:
    """Elements between the K-rows of an operand; a single row's stride is moot, so the padded width stands in."""
    return stride if rows > 1 else padded_row_stride(k, 1)


def candidates(m: int, n: int, out_dtype: torch.dtype, fast_accum: bool = False) -> list[HopperConfig]:
    """The fp8 configs that fit this problem and output dtype, a large problem's untuned default first: with
    fast accumulation the fused-loop tiles (the re-tune's winners at every tuned shape), else 128x256x128 unfused
    (fused loops are slower with promoted accumulation). `choose_config` moves a smaller tile to the front when
    these would leave most SMs idle (`filling_first`)."""
    ordered = sorted(FP8_CANDIDATES, key=lambda c: not c.flatten) if fast_accum else FP8_CANDIDATES
    return prune(ordered, m, n, 1, torch.finfo(out_dtype).bits // 8)


def tuning_key(device: torch.device, out_dtype: torch.dtype, m: int, n: int, k: int, fast_accum: bool) -> str:
    """The tuning-cache key, shaped like `ops.matmul._tuning_key`'s: GPU | path | in dtype | out dtype |
    precision | layout | shape bucket. Fast and promoted accumulation tune apart (different kernels, and
    promotion needs more registers); the layout is always A row-major, B K-major ("abt")."""
    index = device.index if device.index is not None else torch.cuda.current_device()
    return "|".join((env.gpu_name(index), "fp8", "float8_e4m3fn", str(out_dtype).removeprefix("torch."),
                     "fast" if fast_accum else "promoted", "abt", tuning.shape_bucket(m, n, k)))


def choose_config(device: torch.device, out_dtype: torch.dtype, m: int, n: int, k: int, fast_accum: bool,
                  launch=None, *, measure: bool = False) -> HopperConfig:
    """A known winner for this problem, else (measure=False) the first candidate that keeps the SMs busy
    (`filling_first`) without timing anything, or (measure=True) the fastest candidate, timed now with
    `launch(config)` and remembered."""
    if device.type != "cuda" or env.interpreting():
        return INTERPRETER_CONFIG
    ordered = filling_first(candidates(m, n, out_dtype, fast_accum), m, n, 1, device_sms(device))
    return tuning.choose(tuning_key(device, out_dtype, m, n, k, fast_accum), ordered, launch,
                         config_type=HopperConfig, measure=measure)


def scaled_matmul(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor, *,
                  out_dtype: torch.dtype = torch.bfloat16, use_fast_accum: bool = False,
                  config: HopperConfig | None = None) -> torch.Tensor:
    """(A @ B) * scale_a * scale_b for float8_e4m3fn A [M, K] (row-major) and B [K, N] (K-major).

    Products accumulate in float32 on the tensor cores; the scales multiply
    the float32 result once, then it is rounded to `out_dtype`.
    `use_fast_accum` as in torch._scaled_mm: False (default) promotes
    Hopper's reduced-precision fp8 accumulator into float32 after every
    BLOCK_K products; True keeps one reduced-precision accumulator for all
    of K (faster, less accurate for long K). See `kernels/matmul_fp8.py`.

    The result is [M, N]; its rows may be padded (`output_row_stride`: a view of a
    wider buffer), as TMA stores need. `config=None` takes a tuned winner if
    one is known for the problem, else a fitting candidate chosen without
    timing (`choose_config`); nothing is timed here (`pretune_scaled` does).
    """
    key = _replay_key(a, b, scale_a, scale_b, out_dtype, use_fast_accum, config)
    replay = _REPLAYS.get(key) if key is not None else None
    if replay is not None and no_launch_hooks():
        return replay(a, b, scale_a, scale_b)

    _check(a, b, scale_a, scale_b, out_dtype, use_fast_accum, config)
    m, k = a.shape
    n = b.shape[1]
    c = _allocate_output(m, n, out_dtype, a.device)
    if m == 0 or n == 0:
        return c
    if k == 0:
        return c.zero_()
    config = config or choose_config(a.device, out_dtype, m, n, k, use_fast_accum)
    compiled, grid, args = launch_scaled(a, b.t(), c, scale_a, scale_b, m, n, k, config, use_fast_accum,
                                         device_sms(a.device))
    if key is not None and not env.interpreting():
        # Replayed with the same shapes, strides and blocks; only the five addresses change.
        storage = c._base if c._base is not None else c
        _REPLAYS[key] = _Replay(bind_descriptor_launch(compiled, grid, args[5:], args[:3]), a.device.index,
                                tuple(storage.shape), n, out_dtype)
    return c


@dataclasses.dataclass(frozen=True)
class _Replay:
    """A launch recorded for one operand signature (see the module docstring)."""

    launch: object  # bind_descriptor_launch(...) of scaled_matmul_kernel
    device_index: int
    storage_shape: tuple[int, int]  # [M, N padded by `output_row_stride`]
    n: int
    out_dtype: torch.dtype

    def __call__(self, a, b, scale_a, scale_b) -> torch.Tensor:
        stream = stream_getter()(self.device_index)
        c = a.new_empty(self.storage_shape, dtype=self.out_dtype)
        self.launch(stream, a.data_ptr(), b.data_ptr(), c.data_ptr(), scale_a.data_ptr(), scale_b.data_ptr())
        return c if self.storage_shape[1] == self.n else c[:, :self.n]


_REPLAYS: dict[tuple, _Replay] = {}


def _replay_key(a, b, scale_a, scale_b, out_dtype, use_fast_accum, config) -> tuple | None:
    tensors = (a, b, scale_a, scale_b)
    if not all(isinstance(x, torch.Tensor) for x in tensors) or not a.is_cuda:
        return None
    if torch.is_grad_enabled() and any(x.requires_grad for x in tensors):
        return None  # the contract check refuses it: no replay recorded without grad may stand in
    if not (isinstance(out_dtype, torch.dtype) and isinstance(use_fast_accum, bool)
            and (config is None or isinstance(config, HopperConfig))):
        return None  # let the contract check report it
    # Alignment is part of the key: TMA needs 16-byte aligned bases, and Triton specializes pointers on it.
    try:
        return (tuple((x.shape, x.stride(), x.dtype, x.get_device(), x.data_ptr() % 16) for x in tensors),
                out_dtype, use_fast_accum, config)
    except RuntimeError:  # a sparse tensor: no strides or storage, no key (the contract check refuses it)
        return None


def pretune_scaled(shapes, out_dtype: torch.dtype = torch.bfloat16, use_fast_accum=(True, False),
                   device="cuda") -> list[dict]:
    """Measure the fp8 candidates for every (M, N, K) in `shapes` and accumulation mode now, so later
    `scaled_matmul` calls (and later processes, through the disk cache) use the winners.

    Returns one record per tuned (shape, accumulation), as `tilelab.pretune` does; shapes the op would
    refuse (K not a multiple of 16) or with nothing to compute are skipped.
    """
    shapes = contracts.as_shapes(shapes, "shapes", (3,))
    use_fast_accum = contracts.as_choices(use_fast_accum, "use_fast_accum", (True, False))
    tuned = []
    for m, n, k in shapes:
        if 0 in (m, n, k):
            continue
        a = torch.randn(m, k, device=device).to(INPUT_DTYPE)
        b = torch.randn(n, k, device=device).to(INPUT_DTYPE).t()  # K-major, as the op wants it
        one = torch.ones((), device=device)
        try:
            _check(a, b, one, one, out_dtype, True)
        except contracts.AlignmentError:
            continue
        c = _allocate_output(m, n, out_dtype, a.device)
        sms = device_sms(a.device)
        for fast in use_fast_accum:
            config = choose_config(
                a.device, out_dtype, m, n, k, fast,
                lambda cfg: launch_scaled(a, b.t(), c, one, one, m, n, k, cfg, fast, sms),  # noqa: B023 (called now)
                measure=True,
            )
            tuned.append({"shape": [m, n, k], "dtype": "float8_e4m3fn",
                          "out_dtype": str(out_dtype).removeprefix("torch."), "path": "fp8",
                          "use_fast_accum": fast, "config": config.as_dict()})
    _REPLAYS.clear()  # launches recorded before tuning would keep their old configs
    return tuned


def _allocate_output(m: int, n: int, out_dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    # Rows padded so TMA can store them (to a 128-byte line when they are that long); the caller sees the
    # [M, N] view.
    width = output_row_stride(n, torch.finfo(out_dtype).bits // 8)
    return torch.empty((m, width), dtype=out_dtype, device=device)[:, :n]


def launch_scaled(a, bt, c, scale_a, scale_b, m: int, n: int, k: int, config: HopperConfig, fast_accum: bool,
                  num_sms: int):
    """Launch `scaled_matmul_kernel` on a [M, K], bt [N, K] and c [M, N] (all unit inner stride, TMA-aligned).

    Returns (compiled kernel, grid, arguments in signature order), for replays.
    """
    from tilelab.kernels.matmul_fp8 import scaled_matmul_kernel

    tiles = tile_count(m, n, config)
    # A [M, K] and bt [N, K] are both K-major: described as stored, which host_descriptors calls "row-major A"
    # and "column-major B" (B = bt.T).
    a_layout = OperandLayout(True, _row_stride(a.stride(0), m, k), 0, tma_ok=True)
    b_layout = OperandLayout(False, _row_stride(bt.stride(0), n, k), 0, tma_ok=True)
    a_desc, b_desc, c_desc = host_descriptors(a, bt.t(), c, a_layout, b_layout, config.block_m, config.block_n,
                                              config.block_k, config.store_block_n)
    grid = (balanced_programs(tiles, num_sms), 1, 1)
    args = (a_desc, b_desc, c_desc, scale_a, scale_b, m, n, k,
            # BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, NUM_STAGES, EPILOGUE_SUBTILE, FAST_ACCUM, FLATTEN
            config.block_m, config.block_n, config.block_k, config.group_m, config.num_stages,
            config.epilogue_subtile, fast_accum, config.flatten)
    compiled = scaled_matmul_kernel[grid](*args, num_warps=config.num_warps, num_stages=config.num_stages)
    return compiled, grid, args


def scaled_matmul_reference(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor,
                            scale_b: torch.Tensor) -> torch.Tensor:
    """(A @ B) * scale_a * scale_b of the exact fp8 values, in float64 on the CPU."""
    a64 = a.detach().to("cpu").to(torch.float64)
    b64 = b.detach().to("cpu").to(torch.float64)
    scale = scale_a.detach().to("cpu", torch.float64).item() * scale_b.detach().to("cpu", torch.float64).item()
    return (a64 @ b64) * scale
