"""What the two Gluon paths of `tilelab.matmul` (registers, pingpong) share: whether one can run here, their
tensor descriptors, and compiling a kernel without a GPU.

Gluon kernels take descriptors built on the host (`describe`), with the shared-memory layout the kernel
allocates its buffers in; Triton's interpreter cannot run them, and only Hopper has their wgmma.
"""

import torch
import triton

from tilelab import env


def is_hopper(device: torch.device) -> bool:
    """wgmma exists on compute capability 9.x only (Blackwell has other tensor-core instructions)."""
    if device.type != "cuda":
        return False
    return env.capability(device.index if device.index is not None else torch.cuda.current_device())[0] == 9


def unavailable_reason(device: torch.device) -> str | None:
    """Why no Gluon kernel can run on `device` here (None if one can)."""
    if env.interpreting():
        return "it is written in Gluon, which Triton's interpreter does not run"
    if not env.has_gluon():
        return "it is written in Gluon (triton.experimental.gluon), which this Triton cannot import"
    if not is_hopper(device):
        return "it needs a Hopper GPU (compute capability 9.x), whose wgmma it uses"
    return None


def shared_layout(block: list[int], dtype: torch.dtype):
    """The NVMMA shared-memory layout (the widest swizzle the block allows) that TMA fills and wgmma reads."""
    from triton.experimental.gluon import language as gl

    return gl.NVMMASharedLayout.get_default_for(block, {torch.float32: gl.float32, torch.float16: gl.float16,
                                                        torch.bfloat16: gl.bfloat16}[dtype])


def describe(x: torch.Tensor, block: list[int]):
    """A Gluon tensor descriptor of `x` (unit stride along its rows) in `block` tiles: of the 2-D `x`, or of a
    [batch, rows, cols] `x` in 3-D with [1, *block] blocks (one descriptor for the whole batch; a batch of one
    matrix, or of one matrix broadcast, is described in 2-D).

    The row stride is the one `tilelab.ops.matmul_plan.operand_layout` checked: a single row's stride means
    nothing (torch may give it any value), so TMA gets the row's own length padded to 16 bytes instead."""
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

    from tilelab.ops.matmul_plan import operand_layout

    layout = operand_layout(x if x.dim() == 3 else x.unsqueeze(0))
    if not layout.row_major:  # the callers pass a transposed view's storage instead (matmul_pingpong.descriptors)
        raise ValueError(f"describe takes a view with a unit stride along its rows; got strides {x.stride()}")
    if x.dim() == 3 and layout.batch_stride == 0:
        x = x[0]
    if x.dim() == 2:
        return TensorDescriptor(x, list(x.shape), [layout.row_stride, 1], block, shared_layout(block, x.dtype))
    return TensorDescriptor(x, list(x.shape), [layout.batch_stride, layout.row_stride, 1], [1, *block],
                            shared_layout([1, *block], x.dtype))


def stored_row_major(x: torch.Tensor) -> bool:
    """Whether TMA reads `x` ([rows, cols] or [batch, rows, cols]) as stored (unit stride along its last
    dimension) rather than transposed, as `operand_layout` decides it (a dimension of extent 1 has no stride of
    its own)."""
    from tilelab.ops.matmul_plan import operand_layout

    return operand_layout(x if x.dim() == 3 else x.unsqueeze(0)).row_major


def persistent_programs(m: int, n: int, config, sms: int, matrices: int = 1) -> int:
    """The grid of both Gluon kernels, persistent: config's tiles of C [m, n] (of each of `matrices`) shared
    evenly over at most one program per SM (`balanced_programs`)."""
    from tilelab.ops.matmul_hopper import balanced_programs
    from tilelab.tuning import tile_count

    return balanced_programs(matrices * tile_count(m, n, config), sms)


def compile_without_gpu(kernel, descriptors: dict, scalars: dict, constexprs: dict, num_warps: int,
                        target_arch: int = 90):
    """Compile a Gluon kernel for `sm_<target_arch>` as a launch with these descriptors would; returns Triton's
    CompiledKernel. `scalars`: name -> Triton type ("i32"); `constexprs`: name -> value (num_warps included)."""
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource
    from triton.runtime.jit import mangle_type

    signature = {name: mangle_type(d) for name, d in descriptors.items()}
    signature.update(scalars)
    signature.update({name: "constexpr" for name in constexprs})
    source = GluonASTSource(kernel, signature, constexprs)
    return triton.compile(source, target=GPUTarget("cuda", target_arch, 32), options={"num_warps": num_warps})
