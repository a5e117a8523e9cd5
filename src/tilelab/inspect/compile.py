"""Compile a tilelab kernel for a target, exactly as a launch would specialize it, and keep every stage."""

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
    precision: str
    config: dict
    target: str
    stages: dict  # stage name -> text (bytes for the cubin)
    metadata: dict
    census: dict


def kernel_source(op: str, path: str, dtype: str, precision: str | None, config: str | None):
    """(jit function, signature, constexprs, attrs, config) from the library, for ASTSource."""
    import torch

    if op != "matmul":
        raise ValueError(f"kernel-inspect knows op 'matmul' only so far, not {op!r}")
    from tilelab.ops import matmul as matmul_op

    torch_dtype = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32}[dtype]
    kernel, signature, constexprs, chosen = matmul_op.inspection_source(path, torch_dtype, precision, config)
    attrs = matmul_op.inspection_attrs(kernel, signature) if hasattr(matmul_op, "inspection_attrs") else None
    return kernel, signature, constexprs, attrs, chosen


def inspect_kernel(op: str = "matmul", path: str = "descriptor", dtype: str = "float16",
                   precision: str | None = None, config: str | None = None, target: str = "sm_90") -> Inspection:
    import triton

    if dtype != "float32" and precision is not None:
        raise ValueError("--precision applies to --dtype float32 only")
    kernel, signature, constexprs, attrs, chosen = kernel_source(op, path, dtype, precision, config)
    gpu_target = targets.resolve(target)
    source = triton.compiler.ASTSource(fn=kernel, signature=signature, constexprs=constexprs, attrs=attrs)
    compiled = triton.compile(source, target=gpu_target,
                              options={"num_warps": chosen.num_warps, "num_stages": chosen.num_stages})
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
        kernel=compiled.metadata.name, op=op, path=path, dtype=dtype, precision=precision or "tf32",
        config=chosen.as_dict(), target=targets.label(gpu_target), stages=stages, metadata=metadata, census={},
    )
    result.census = take_census(stages, compiled, target == "native")
    return result


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
        "precision": result.precision, "config": result.config, "target": result.target,
        "metadata": result.metadata, "census": result.census, "stages": sorted(result.stages),
    }
