"""What an op is to the benchmark: a small declarative entry.

An entry says which shapes to sweep, how to make fresh random inputs, how to
compute the float64 reference, how many FLOPs and bytes one call costs, and
which variants to run. Variants are plain callables on the inputs, so a new
op is one module with one `OpSpec` (or a tuple of related ones), listed in `OP_MODULES`.

Op modules import `tilelab` inside their callables, never at import time:
the CLI must be free to set TRITON_INTERPRET=1 before Triton is imported.
"""

import dataclasses
import importlib
from collections.abc import Callable

import torch

# Modules that each define `OP: OpSpec`, or `OPS: tuple[OpSpec, ...]` for ops sharing their code. Add a line per
# new module.
OP_MODULES: tuple[str, ...] = ("tilelab.bench.op_matmul", "tilelab.bench.op_scaled_matmul", "tilelab.bench.op_bmm",
                               "tilelab.bench.op_conv", "tilelab.bench.op_rows", "tilelab.bench.op_linear")

DTYPES: dict[str, torch.dtype] = {
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "float32": torch.float32,
}
if hasattr(torch, "float8_e4m3fn"):
    DTYPES["float8_e4m3fn"] = torch.float8_e4m3fn


class Unsupported(Exception):
    """Raised by a variant that cannot run here at all (this GPU, or Triton's interpreter, lacks what it needs).

    Reported as `unsupported`, like the library's contract refusals: a fact about the machine, not a bug.
    """


@dataclasses.dataclass(frozen=True)
class VariantOptions:
    """What the command line says about how variants should run."""

    dtype: torch.dtype
    precision: str | None = None  # float32 only: "tf32" | "tf32x3" | "ieee"; None = library default
    compile: bool = False  # add a torch.compile baseline
    compile_mode: str = "max-autotune-no-cudagraphs"
    on_gpu: bool = True


@dataclasses.dataclass(frozen=True)
class Variant:
    """One way of computing the op. `run(*inputs)` returns the output tensor."""

    name: str
    run: Callable[..., torch.Tensor]
    # Called after `run` on the same inputs: the path/config actually chosen (autotuning included).
    plan: Callable[..., dict | None] = lambda *inputs: None
    # Speedups are reported against the variant marked as baseline (torch).
    baseline: bool = False
    # Variants that are not default run only when named with --variants (GPU time is scarce).
    default: bool = True
    description: str = ""


@dataclasses.dataclass(frozen=True)
class OpSpec:
    name: str
    dims: tuple[str, ...]  # names of the shape's numbers, in command-line order, e.g. ("M", "N", "K")
    default_shapes: tuple[tuple[int, ...], ...]  # swept on a GPU
    check_shapes: tuple[tuple[int, ...], ...]  # small enough for Triton's interpreter
    dtypes: tuple[str, ...]
    make_inputs: Callable[[tuple[int, ...], torch.dtype, torch.device, torch.Generator], tuple]
    reference: Callable[..., torch.Tensor]  # float64 result from the inputs
    flops: Callable[[tuple[int, ...]], int]
    bytes_moved: Callable[[tuple[int, ...], torch.dtype], int]  # minimum traffic: read inputs once, write once
    variants: Callable[[VariantOptions], list[Variant]]
    tolerance: Callable[[torch.dtype, str | None], float]
    metric: str = "tflops"  # "tflops" for compute-bound ops, "gbps" for memory-bound ones
    available: Callable[[], bool] = lambda: True  # False while the library lacks the op
    compile_baseline: bool = True  # whether --compile adds a torch-compile variant
    # What is wrong with a shape of the right length and positive numbers (None if nothing): checked before any
    # work, so a bad --shape is a usage error, not a case that fails mid-sweep.
    validate: Callable[[tuple[int, ...]], str | None] = lambda shape: None
    description: str = ""

    def shape_dict(self, shape: tuple[int, ...]) -> dict[str, int]:
        return dict(zip(self.dims, shape, strict=True))


def all_ops() -> dict[str, OpSpec]:
    """Every registered op, by name, in registration order."""
    ops = {}
    for module_name in OP_MODULES:
        module = importlib.import_module(module_name)
        for op in module.OPS if hasattr(module, "OPS") else (module.OP,):
            ops[op.name] = op
    return ops


def get_op(name: str) -> OpSpec:
    ops = all_ops()
    if name not in ops:
        raise KeyError(f"unknown op {name!r}; known: {', '.join(ops)}")
    return ops[name]


def select_variants(variants: list[Variant], wanted: list[str] | None) -> list[Variant]:
    """The default variants, or those named (plus the baseline, which speedups need); 'all' means all."""
    if not wanted:
        return [v for v in variants if v.default]
    if "all" in wanted:  # all of them: other names add nothing
        return list(variants)
    by_name = {v.name: v for v in variants}
    unknown = [w for w in wanted if w not in by_name]
    if unknown:
        raise KeyError(f"unknown variant(s) {', '.join(unknown)}; known: all, {', '.join(by_name)}")
    chosen = [v for v in variants if v.name in wanted or v.baseline]
    return chosen
