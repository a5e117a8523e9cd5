"""Launches recorded once and replayed without Triton's binder.

The public ops record their first launch for an operand signature (the compiled kernel, its grid and the
arguments that do not change) and later calls replay it: only the data pointers are new. These helpers
bind such a launch to Triton's C launcher, and cache the tensor maps of host-built descriptors by address.
"""

import functools
import types

import torch
import triton
from triton.tools.tensor_descriptor import TensorDescriptor


@functools.cache
def stream_getter():
    """Triton's current-stream function (torch's raw stream getter), looked up once."""
    return triton.runtime.driver.active.get_current_stream


def bind_launch(compiled, grid: tuple[int, int, int], tail_args: tuple):
    """A function (stream, *pointers) that relaunches `compiled` with new pointers and the same other arguments.

    This is `CompiledKernel.run` without Triton's binder; a kernel that needs no global or profiling scratch
    skips Triton 3.6's Python launcher wrapper too (it only allocates those) and calls the C launcher.
    """
    run = compiled.run
    head = (compiled.packed_metadata, None, None, None)  # launch metadata, enter and exit hooks: none
    direct = getattr(run, "launch", None)
    if direct is not None and not run.global_scratch_size and not run.profile_scratch_size:
        fixed = (run.launch_cooperative_grid, run.launch_pdl, None, None)  # ..., global and profile scratch

        def launch(stream, *pointers):
            direct(*grid, stream, compiled.function, *fixed, *head, *pointers, *tail_args)
    else:
        def launch(stream, *pointers):
            run(*grid, stream, compiled.function, *head, *pointers, *tail_args)
    return launch


def bind_launch_on_stream(compiled, grid: tuple[int, int, int], tail_args: tuple, device: torch.device):
    """`bind_launch` that looks up the device's current stream itself: a function (*pointers), for ops whose
    whole replay is that one launch (`tilelab.ops.conv`, `tilelab.ops.rows`)."""
    launch = bind_launch(compiled, grid, tail_args)
    current_stream, index = stream_getter(), device.index

    def replay(*pointers):
        launch(current_stream(index), *pointers)
    return replay


class TensorMapCache:
    """The expanded kernel arguments of host-built descriptors, by base address, for one recorded launch.

    Triton's launcher turns each TensorDescriptor argument into (tensor map, *shape, *strides), encoding
    the tensor map on the host at every launch. A tensor map holds where and how a tensor lies (address,
    shape, strides, box, swizzle), not what it holds; a recorded launch fixes everything but the address,
    so one map per address serves every later call at that address (weights, and the caching allocator's
    reused blocks). `recipes`: per descriptor, (shape, strides, Triton's tensordesc metadata).
    """

    MAX_ADDRESSES = 16  # per descriptor; then start over

    def __init__(self, encode, recipes):
        from triton.backends.nvidia.driver import TMA_DTYPE_DEVICE_TO_HOST  # Triton's own dtype mapping

        self._encode = encode  # Triton's fill_tma_descriptor
        self._recipes = [(meta["swizzle"], meta["elem_size"], TMA_DTYPE_DEVICE_TO_HOST[meta["elem_type"]],
                          list(meta["block_size"]), list(shape), list(strides), (*shape, *strides))
                         for shape, strides, meta in recipes]
        self._maps: list[dict] = [{} for _ in recipes]

    def arguments(self, *addresses: int) -> list:
        expanded = []
        for address, recipe, maps in zip(addresses, self._recipes, self._maps, strict=True):
            tensor_map = maps.get(address)
            if tensor_map is None:
                if len(maps) >= self.MAX_ADDRESSES:
                    maps.clear()
                swizzle, size, dtype, box, shape, strides, _ = recipe
                tensor_map = maps[address] = self._encode(address, swizzle, size, dtype, box, shape, strides, 0)
            expanded.append(tensor_map)
            expanded.extend(recipe[-1])
        return expanded


def _c_launcher_under(wrapped):
    """Triton 3.6 wraps the C launcher of a kernel with descriptor parameters in a Python function that
    expands them; the C function it closes over, or None."""
    for cell in getattr(wrapped, "__closure__", None) or ():
        if isinstance(cell.cell_contents, types.BuiltinFunctionType):
            return cell.cell_contents
    return None


class _Address:
    """What a TensorDescriptor needs of its base tensor: an address and a dtype."""

    __slots__ = ("address", "dtype")

    def __init__(self, address: int, dtype: torch.dtype):
        self.address, self.dtype = address, dtype

    def data_ptr(self) -> int:
        return self.address


def bind_descriptor_launch(compiled, grid: tuple[int, int, int], tail_args: tuple, descriptors: tuple):
    """`bind_launch` for a kernel whose first parameters are host-built descriptors (of A, B and C; split-K's: A, B).

    The returned function takes (stream, a_address, b_address, c_address, *pointers): one address per
    descriptor, then the pointer parameters that follow them (fp8's scales), then `tail_args` are fixed.
    `descriptors`: the recorded launch's; replays keep their shapes, strides, blocks and dtypes. Tensor maps
    come from a `TensorMapCache` and go straight to the C launcher; where that cannot be reached, descriptors
    are rebuilt and Triton expands them.
    """
    specs = tuple((d.shape, d.strides, d.block_shape, d.base.dtype) for d in descriptors)
    run = compiled.run
    count = len(specs)
    metas = getattr(compiled.metadata, "tensordesc_meta", None)
    direct = _c_launcher_under(getattr(run, "launch", None))
    if direct is None or not metas or run.global_scratch_size or run.profile_scratch_size:
        slow = bind_launch(compiled, grid, tail_args)

        def launch(stream, *addresses):
            slow(stream, *(TensorDescriptor(_Address(address, dtype), shape, strides, block)
                           for address, (shape, strides, block, dtype) in zip(addresses[:count], specs, strict=True)),
                 *addresses[count:])
        return launch
    maps = TensorMapCache(triton.runtime.driver.active.utils.fill_tma_descriptor,
                          [(spec[0], spec[1], meta) for spec, meta in zip(specs, metas, strict=True)])
    # As in bind_launch: cooperative grid, PDL, global and profile scratch; packed metadata, launch metadata
    # and the enter and exit hooks.
    head = (run.launch_cooperative_grid, run.launch_pdl, None, None, compiled.packed_metadata, None, None, None)

    def launch(stream, *addresses):
        direct(*grid, stream, compiled.function, *head, *maps.arguments(*addresses[:count]), *addresses[count:],
               *tail_args)
    return launch


def no_launch_hooks() -> bool:
    """Profilers register launch hooks; a replay would skip them, so only replay when there are none."""
    runtime = triton.knobs.runtime
    enter, leave = runtime.launch_enter_hook, runtime.launch_exit_hook
    return not (getattr(enter, "calls", enter) or getattr(leave, "calls", leave))
