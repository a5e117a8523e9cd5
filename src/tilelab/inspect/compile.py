"""Compile a tilelab kernel for a target, exactly as a launch would specialize it, and keep every stage."""

import contextlib
import dataclasses
import json
import re
from pathlib import Path

from tilelab.inspect import census, targets, tools

STAGE_SUFFIXES = {"ttir": ".ttir", "ttgir": ".ttgir", "llir": ".ll", "ptx": ".ptx", "cubin": ".cubin"}


@dataclasses.dataclass
class Inspection:
    kernel: str
    op: str
    path: str
    dtype: str
    precision: str | None  # the dot precision (matmul, conv2d_bn_silu); None for scaled_matmul (fp8 has no choice)
    config: dict
    target: str
    stages: dict  # stage name -> text (bytes for the cubin)
    metadata: dict
    census: dict
    accumulate: str | None = None  # scaled_matmul: "fast" or "promoted" (use_fast_accum True / False)
    b_layout: str = "kn"  # B as stored: "kn" ([K, N] rows) or "nk" ([N, K] rows, K-major; conv2d_bn_silu's weight)
    batched: bool = False  # a batch with an A and a B per entry: 3-D descriptors
    row_classes: int = 1  # descriptor/persistent: A's rows read in classes (`tilelab.ops.matmul_plan.row_classes`)
    epilogue: str | None = None  # matmul: tilelab.linear's fused epilogue, e.g. "bias-gelu", "silu"
    groups: int = 1  # conv2d_bn_silu: the convolution's groups (of the channels inspected)
    channels: int = 64  # conv2d_bn_silu: the inspected channels, in (and out, unless out_channels says otherwise)
    out_channels: int = 64  # conv2d_bn_silu: the inspected output channels (`--out-channels`, default `channels`)


OPS = ("matmul", "scaled_matmul", "conv2d_bn_silu")
MATMUL_DTYPES = ("float16", "bfloat16", "float32")
CONV_DTYPES = MATMUL_DTYPES  # conv2d_bn_silu's input dtypes (`tilelab.ops.conv.INPUT_DTYPES`)
CONV_PATH = "implicit-gemm"  # conv2d_bn_silu's kernel for dense convolutions: the convolution as an implicit GEMM
CONV_DIRECT_PATH = "direct"  # conv2d_bn_silu's kernel for groups under 16 input channels (`--groups`): FMAs, no dot
CONV_KERNEL_SIZE = 3  # conv2d_bn_silu is inspected with a 3x3 filter on channels-last 56x56 images
CONV_CHANNELS = 64  # ... of this many channels in and out, unless `--channels` (`--out-channels`) says otherwise
FP8_DTYPE = "float8_e4m3fn"  # scaled_matmul's only input dtype
FP8_MIN_ARCH = 89  # fp8 tensor cores: Ada's mma.sync on e4m3 (sm_89), Hopper's wgmma (sm_90); Triton refuses below
B_LAYOUTS = ("kn", "nk")  # B stored [K, N] or [N, K]
# the kernels with tilelab.linear's fused epilogue
EPILOGUE_PATHS = ("pointer", "descriptor", "persistent", "splitk", "splitk-descriptor", "pingpong")
TMA_PATHS = ("descriptor", "persistent", "splitk-descriptor")  # the paths that can read a K-major B as stored
BATCH_PATHS = ("persistent", "pingpong")  # the kernels inspected as a batch (`--batch`)
CLASS_PATHS = ("descriptor", "persistent")  # the kernels that read A's rows in classes (`--row-classes`)
INSPECTED_BATCH = 8  # matrices per operand when `--batch` compiles a batch


def resolve(op: str, path: str | None, dtype: str | None, precision: str | None,
            accumulate: str | None, b_layout: str | None = None, batched: bool = False,
            row_classes: int = 1) -> tuple[str, str, str | None, str]:
    """(path, dtype, accumulate, b_layout) after defaults; ValueError for a combination that means nothing.

    batched and row_classes are checked here for conv2d_bn_silu only (inspect_kernel checks them for the others).
    """
    from tilelab.inspect import hopper

    if b_layout not in (None, *B_LAYOUTS):
        raise ValueError(f"--b-layout is kn ([K, N] rows) or nk ([N, K] rows), not {b_layout!r}")
    if op == "conv2d_bn_silu":
        return _resolve_conv(path, dtype, precision, accumulate, b_layout, batched, row_classes)
    if op == "scaled_matmul":
        if dtype not in (None, FP8_DTYPE):
            raise ValueError(f"scaled_matmul takes --dtype {FP8_DTYPE} only, not {dtype}")
        if path not in (None, "persistent"):
            raise ValueError("scaled_matmul has one kernel, the persistent TMA one: leave --path out")
        if precision is not None:
            raise ValueError("--precision applies to --dtype float32 only")
        if b_layout == "kn":
            raise ValueError("scaled_matmul reads B stored [N, K] (K-major) only, as Hopper's fp8 wgmma needs")
        return "persistent", FP8_DTYPE, accumulate or "fast", "nk"
    if op != "matmul":
        raise ValueError(f"kernel-inspect knows ops {', '.join(OPS)}, not {op!r}")
    if path == "registers":  # the tf32 kernel that takes B through registers (Gluon)
        if dtype not in (None, "float32") or precision not in (None, "tf32"):
            raise ValueError("--path registers is a tf32 kernel: --dtype float32 (the default for it), "
                             "--precision tf32")
        if b_layout == "nk":
            raise ValueError("--path registers exists for B stored [K, N]; with B stored [N, K] inspect "
                             "--path persistent --b-layout nk")
        return "registers", "float32", None, "kn"
    if path == "pingpong":  # fp16/bf16, two warp groups taking turns on whole tiles (Gluon)
        if dtype not in (None, "float16", "bfloat16") or precision is not None:
            raise ValueError("--path pingpong is a float16/bfloat16 kernel (no --precision)")
        return "pingpong", dtype or "float16", None, b_layout or "kn"
    dtype = dtype or "float16"
    if dtype not in MATMUL_DTYPES:
        raise ValueError(f"matmul takes --dtype {', '.join(MATMUL_DTYPES)}; {dtype} is for --op scaled_matmul")
    if accumulate is not None:
        raise ValueError("--accumulate applies to --op scaled_matmul only")
    path = path or "descriptor"
    if path == CONV_PATH:
        raise ValueError(f"--path {CONV_PATH} is conv2d_bn_silu's implicit GEMM: --op conv2d_bn_silu")
    if path not in ("pointer", "descriptor", *hopper.MATMUL_PATHS):
        raise ValueError(f"unknown path {path!r}")
    if b_layout == "nk" and path not in TMA_PATHS:
        raise ValueError(f"--b-layout nk needs a path that reads B through tensor descriptors "
                         f"({', '.join(TMA_PATHS)}); --path {path} is inspected with B stored [K, N]")
    return path, dtype, None, b_layout or "kn"


def _resolve_conv(path: str | None, dtype: str | None, precision: str | None, accumulate: str | None,
                  b_layout: str | None, batched: bool, row_classes: int) -> tuple[str, str, None, str]:
    """conv2d_bn_silu: the implicit GEMM (the direct kernel comes with --groups, `_conv_groups_path`),
    float16/bfloat16/float32, a precision for float32 only.
    Its B is the weight, inspected channels-last: [C_out, KH*KW*C_in] rows, K-major ("nk"), not a choice."""
    if path not in (None, CONV_PATH):
        raise ValueError(f"conv2d_bn_silu's kernel is the implicit GEMM (--path {CONV_PATH}), or with --groups the "
                         f"direct kernel: leave --path out, not --path {path}")
    dtype = dtype or "float16"
    if dtype not in CONV_DTYPES:
        raise ValueError(f"conv2d_bn_silu takes --dtype {', '.join(CONV_DTYPES)}, not {dtype}")
    if precision is not None and dtype != "float32":
        raise ValueError("--precision applies to --dtype float32 only")
    if accumulate is not None:
        raise ValueError("--accumulate applies to --op scaled_matmul only")
    if b_layout is not None:
        raise ValueError("--b-layout applies to the matmuls only: conv2d_bn_silu's B is its weight, inspected "
                         "channels-last ([C_out, KH*KW*C_in] rows, K-major)")
    if batched:
        raise ValueError("--batch applies to --op matmul only: conv2d_bn_silu's batch is the images' (rows of "
                         "its implicit GEMM), one launch")
    if row_classes != 1:
        raise ValueError("--row-classes applies to --op matmul only (descriptor or persistent path), not "
                         "conv2d_bn_silu")
    return CONV_PATH, dtype, None, "nk"


_UNKNOWN_CONFIG = re.compile(r"^config must be one of (?P<known>.*); got (?P<got>.*)$", re.DOTALL)


@contextlib.contextmanager
def _config_named(config: str | None, path: str):
    """The library's contract error for an unknown config ("config must be one of ...", `contracts.require_choice`)
    restated as kernel-inspect's: naming --config and the kernel, as the Hopper kernels' `choose_config` does. Any
    other contract error passes as it is (a ValueError too: exit 2)."""
    from tilelab import contracts

    try:
        yield
    except contracts.ContractError as exc:
        found = _UNKNOWN_CONFIG.match(str(exc))
        if config is None or not found:
            raise
        known = ", ".join(label.strip().strip("'") for label in found["known"].split(","))
        raise ValueError(f"unknown config {config!r} (--config) for the {path} kernel; known: {known}") from exc


def kernel_source(op: str, path: str, dtype: str, precision: str | None, config: str | None,
                  accumulate: str | None = None, b_layout: str = "kn", batched: bool = False, row_classes: int = 1,
                  bias: bool = False, activation: str | None = None, groups: int = 1, *,
                  channels: int = CONV_CHANNELS, out_channels: int | None = None):
    """(jit function, signature, constexprs, attrs, config) from the library, for ASTSource."""
    import torch

    from tilelab.inspect import hopper

    torch_dtype = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
                   FP8_DTYPE: getattr(torch, FP8_DTYPE, None)}[dtype]
    if op == "scaled_matmul":
        return hopper.kernel_source("fp8", torch_dtype, None, config, accumulate)
    if op == "conv2d_bn_silu":
        from tilelab.ops import conv as conv_op

        with _config_named(config, path):
            return conv_op.inspection_source(torch_dtype, precision, config, kernel_size=CONV_KERNEL_SIZE,
                                             groups=groups, channels=channels, out_channels=out_channels)
    b_k_major = b_layout == "nk"
    if path in hopper.MATMUL_PATHS:
        return hopper.kernel_source(hopper.MATMUL_PATHS[path], torch_dtype, precision, config, None, b_k_major,
                                    batched, row_classes, bias, activation)
    from tilelab.ops import matmul as matmul_op

    with _config_named(config, path):
        kernel, signature, constexprs, chosen = matmul_op.inspection_source(path, torch_dtype, precision, config,
                                                                            b_k_major=b_k_major,
                                                                            row_classes=row_classes, bias=bias,
                                                                            activation=activation)
    attrs = matmul_op.inspection_attrs(kernel, signature) if hasattr(matmul_op, "inspection_attrs") else None
    return kernel, signature, constexprs, attrs, chosen


def inspect_kernel(op: str = "matmul", path: str | None = None, dtype: str | None = None,
                   precision: str | None = None, config: str | None = None, target: str = "sm_90",
                   accumulate: str | None = None, b_layout: str | None = None, batched: bool = False,
                   row_classes: int = 1, *, bias: bool = False, activation: str | None = None,
                   groups: int = 1, channels: int = CONV_CHANNELS, out_channels: int | None = None) -> Inspection:
    """Compile for `target`; path and dtype default per op (matmul: descriptor, float16; scaled_matmul: fp8;
    conv2d_bn_silu: implicit-gemm, float16).

    b_layout: B as stored, "kn" ([K, N] rows; matmul's default) or "nk" ([N, K] rows, K-major).
    batched: as a batch of INSPECTED_BATCH products with an A and a B per entry (3-D descriptors); the
    persistent and pingpong paths, the kernels a batch takes by default.
    bias, activation: matmul with `tilelab.linear`'s fused epilogue (the pointer, descriptor, persistent,
    split-K and pingpong kernels, `apply_epilogue`).
    groups: conv2d_bn_silu as a grouped convolution of its channels: with under 16 input channels per group that
    cannot share a tile (depthwise, an odd group count) the direct kernel, as a launch would take it.
    channels: conv2d_bn_silu's channels in and out (default 64); counts that are multiples of 8 but not of 16
    (24, 40) show the kernel's vector hints (`tilelab.ops.conv.vector_hints`, `output_hint`).
    out_channels: conv2d_bn_silu's channels out (default: `channels`), a positive multiple of the groups; depthwise
    with twice, 4 or 8 times the channels out is the direct kernel's channel multiplier (`direct_multiplier`).
    """
    import triton

    requested_path = path
    path, dtype, accumulate, b_layout = resolve(op, path, dtype, precision, accumulate, b_layout, batched,
                                                row_classes)
    if row_classes != 1 and (op != "matmul" or path not in CLASS_PATHS or dtype == "float32"):
        raise ValueError(f"--row-classes inspects matmul's {' or '.join(CLASS_PATHS)} path in float16 or bfloat16 "
                         f"(A's rows read in classes), not --op {op} --path {path} --dtype {dtype}")
    if batched and (op != "matmul" or path not in BATCH_PATHS):
        raise ValueError(f"--batch inspects matmul's {' or '.join(BATCH_PATHS)} path (3-D descriptors), not "
                         f"--op {op} --path {path}")
    if dtype != "float32" and precision is not None:
        raise ValueError("--precision applies to --dtype float32 only")
    out_channels = _check_channels(op, channels, out_channels)
    if groups != 1:
        path = _conv_groups_path(op, groups, requested_path, channels, out_channels)
    if (bias or activation) and (op != "matmul" or path not in EPILOGUE_PATHS):
        raise ValueError(f"--bias and --activation are tilelab.linear's fused epilogue, in matmul's "
                         f"{', '.join(EPILOGUE_PATHS)} kernels; not --op {op} --path {path}")
    gpu_target = targets.resolve(target)
    if dtype == FP8_DTYPE and gpu_target.arch < FP8_MIN_ARCH:
        raise ValueError(f"--op scaled_matmul is {FP8_DTYPE}, which needs fp8 tensor cores (sm_89 or newer): inspect "
                         f"it with --target sm_90 (or sm_89), not sm_{gpu_target.arch}")
    if path == "registers":
        compiled, chosen = _compile_registers(gpu_target, config)
    elif path == "pingpong":
        compiled, chosen = _compile_pingpong(gpu_target, config, dtype, b_layout, batched, bias, activation)
    else:
        kernel, signature, constexprs, attrs, chosen = kernel_source(op, path, dtype, precision, config,
                                                                     accumulate, b_layout, batched, row_classes,
                                                                     bias, activation, groups, channels=channels,
                                                                     out_channels=out_channels)
        source = triton.compiler.ASTSource(fn=kernel, signature=signature, constexprs=constexprs, attrs=attrs)
        from tilelab.ops.conv import register_cap  # a conv2d_bn_silu config's cap, launched so; {} for others

        options = {"num_warps": chosen.num_warps, "num_stages": chosen.num_stages, **register_cap(chosen)}
        compiled = triton.compile(source, target=gpu_target, options=options)
    stages = {name: compiled.asm[name] for name in STAGE_SUFFIXES if name in compiled.asm}
    metadata = {
        "name": compiled.metadata.name,
        "num_warps": compiled.metadata.num_warps,
        "num_stages": compiled.metadata.num_stages,
        "shared_bytes": compiled.metadata.shared,  # dynamic shared memory Triton allocates per program
        "triton_version": triton.__version__,
        "target": {"backend": gpu_target.backend, "arch": gpu_target.arch, "warp_size": gpu_target.warp_size},
    }
    result = Inspection(
        kernel=compiled.metadata.name, op=op, path=path, dtype=dtype,
        precision=precision or ("tf32" if op in ("matmul", "conv2d_bn_silu") else None),
        config=chosen.as_dict(), target=targets.label(gpu_target), stages=stages, metadata=metadata, census={},
        accumulate=accumulate, b_layout=b_layout, batched=batched, row_classes=row_classes,
        epilogue="-".join(part for part in ("bias" if bias else "", activation or "") if part) or None,
        groups=groups, channels=channels, out_channels=out_channels,
    )
    result.census = take_census(stages, compiled, target == "native")
    return result


def _check_channels(op: str, channels: int, out_channels: int | None = None) -> int:
    """--channels and --out-channels: positive counts of conv2d_bn_silu's channels; the other ops have no channels
    to count. Returns the channels out (`channels` unless `out_channels` is given)."""
    if channels != CONV_CHANNELS and op != "conv2d_bn_silu":
        raise ValueError(f"--channels applies to --op conv2d_bn_silu only, not --op {op}")
    if out_channels is not None and op != "conv2d_bn_silu":
        raise ValueError(f"--out-channels applies to --op conv2d_bn_silu only, not --op {op}")
    if isinstance(channels, bool) or not isinstance(channels, int) or channels < 1:
        raise ValueError(f"--channels must be a positive integer (conv2d_bn_silu's channels in and out); "
                         f"got {channels!r}")
    if out_channels is None:
        return channels
    if isinstance(out_channels, bool) or not isinstance(out_channels, int) or out_channels < 1:
        raise ValueError(f"--out-channels must be a positive integer (conv2d_bn_silu's channels out); "
                         f"got {out_channels!r}")
    return out_channels


def _conv_groups_path(op: str, groups: int, requested_path: str | None, channels: int = CONV_CHANNELS,
                      out_channels: int | None = None) -> str:
    """The kernel a grouped conv2d_bn_silu of the inspected channels takes (`tilelab.ops.conv.kernel_path`)."""
    from tilelab.ops import conv as conv_op

    if op != "conv2d_bn_silu":
        raise ValueError(f"--groups applies to --op conv2d_bn_silu only, not --op {op}")
    if groups < 1 or channels % groups:
        raise ValueError(f"--groups must divide the {channels} channels conv2d_bn_silu is inspected with "
                         f"(--channels); got {groups}")
    out_channels = channels if out_channels is None else out_channels
    if out_channels % groups:
        raise ValueError(f"--out-channels must be a multiple of the {groups} groups (conv2d_bn_silu's channels out, "
                         f"as many per group); got {out_channels}")
    geometry = conv_op.ConvGeometry(32, channels, 56, 56, out_channels, CONV_KERNEL_SIZE, CONV_KERNEL_SIZE, (1, 1),
                                    (1, 1), (1, 1), groups)
    path = CONV_DIRECT_PATH if conv_op.uses_direct_kernel(geometry) else CONV_PATH
    if requested_path not in (None, path):
        raise ValueError(f"--groups {groups} takes conv2d_bn_silu's {path} kernel: leave --path out")
    return path


def _require_hopper(path: str, gpu_target) -> None:
    """The Gluon kernels are written for Hopper's wgmma: sm_90 only."""
    if gpu_target.arch != 90:
        raise ValueError(f"--path {path} is written for Hopper's wgmma: inspect it with --target sm_90, "
                         f"not sm_{gpu_target.arch}")


def _compile_registers(gpu_target, config: str | None):
    """The registers path's Gluon kernel (`matmul_registers.compile_for`): the default tiles, or those of
    `matmul_registers.CONFIGS` tagged `config` (e.g. 128x64x32-w4-s6)."""
    from tilelab.ops import matmul_registers

    if config is None:
        chosen = matmul_registers.DEFAULT_CONFIG
    elif config in (tags := [c.tag() for c in matmul_registers.CONFIGS]):
        chosen = matmul_registers.config_tagged(config)
    else:
        raise ValueError(f"unknown config {config!r} (--config) for the registers kernel; known: {', '.join(tags)}")
    _require_hopper("registers", gpu_target)
    return matmul_registers.compile_for(gpu_target.arch, chosen), chosen


def _compile_pingpong(gpu_target, config: str | None, dtype: str, b_layout: str, batched: bool = False,
                      bias: bool = False, activation: str | None = None):
    """The pingpong path's Gluon kernel (`matmul_pingpong.compile_for`), in its one configuration, with
    `tilelab.linear`'s epilogue where bias or activation is given."""
    import torch

    from tilelab.ops import matmul_pingpong

    if config is not None:
        raise ValueError("--path pingpong has one configuration (matmul_pingpong.DEFAULT_CONFIG): leave --config out")
    _require_hopper("pingpong", gpu_target)
    compiled = matmul_pingpong.compile_for(gpu_target.arch, getattr(torch, dtype), b_layout == "nk",
                                           batch=INSPECTED_BATCH if batched else 1, bias=bias, activation=activation)
    return compiled, matmul_pingpong.DEFAULT_CONFIG


def take_census(stages: dict, compiled, on_this_gpu: bool) -> dict:
    ptx = stages.get("ptx", "")
    found = {"ptx": census.count_ptx(ptx), "global_load_bits": census.global_load_widths(ptx),
             "cp_async_bytes": census.cp_async_sizes(ptx)}
    found["tensor_cores"] = census.uses_tensor_cores(found["ptx"])
    resources = {"registers": None, "spill_stores_bytes": None, "spill_loads_bytes": None,
                 "shared_bytes": compiled.metadata.shared, "source": None}
    arch = re.search(r"^\.target\s+(sm_\w+)", ptx, re.MULTILINE)
    verbose = tools.ptxas_verbose(ptx, arch.group(1)) if arch else None
    if verbose:
        resources.update(census.parse_ptxas_verbose(verbose))
        resources["source"] = "ptxas -v"
    if on_this_gpu:
        try:  # the driver's own numbers, available once the binary is loaded on a GPU
            compiled._init_handles()
            resources.update(registers=compiled.n_regs, spill_stores_bytes=compiled.n_spills,
                             source="driver (loaded on this GPU)")
        except Exception:
            pass
    found["resources"] = resources
    found["occupancy"] = census.programs_per_sm(compiled.metadata.target.arch, resources["registers"],
                                               compiled.metadata.num_warps, resources["shared_bytes"] or 0)
    cubin = stages.get("cubin")
    if cubin:
        disassembly = tools.sass(cubin)
        if disassembly is not None:
            stages["sass"] = disassembly
            found["sass"] = census.count_sass(disassembly)
        usage = tools.res_usage(cubin)
        if usage:
            found["res_usage"] = census.parse_res_usage(usage)
    return found


def save(result: Inspection, directory: Path) -> list[Path]:
    """Every stage as its own file, plus census.json; returns the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    suffixes = {**STAGE_SUFFIXES, "sass": ".sass"}
    for stage, content in result.stages.items():
        path = directory / f"{result.kernel}{suffixes[stage]}"
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
        written.append(path)
    summary = directory / "census.json"
    summary.write_text(json.dumps(as_json(result), indent=1) + "\n")
    written.append(summary)
    return written


def as_json(result: Inspection) -> dict:
    return {
        "kernel": result.kernel, "op": result.op, "path": result.path, "dtype": result.dtype,
        "precision": result.precision, "accumulate": result.accumulate, "b_layout": result.b_layout,
        "batched": result.batched, "row_classes": result.row_classes, "epilogue": result.epilogue,
        "groups": result.groups, "channels": result.channels, "out_channels": result.out_channels,
        "config": result.config,
        "target": result.target,
        "metadata": result.metadata, "census": result.census, "stages": sorted(result.stages),
    }
