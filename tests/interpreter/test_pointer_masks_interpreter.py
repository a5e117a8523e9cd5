"""The pointer kernel's edge masks, found untested by mutation testing (thirty-second session).

A lane past an edge must neither read nor write memory that is not the operand's. Dropping one of the
kernel's mask terms can leave every result right (a row of A past M only feeds a row of C that is not
stored), so the results alone cannot tell: here the operands sit inside larger buffers whose other elements
are NaN (a NaN read into the sum, even times a masked 0, makes the result NaN), and on the interpreter every
enabled lane of every load and store is recorded and held to the operands' own elements.
"""

import numpy as np
import pytest
import torch

import tilelab
from tests.helpers import assert_matches_reference, randn
from tilelab import tuning

pytestmark = pytest.mark.usefixtures("poisoned_outputs")

# (M, N, K) ragged against the interpreter's 32x64x32 tile and the 16x32x16 one below, 1 included.
SHAPES = [(1, 1, 1), (7, 65, 33), (33, 7, 65), (65, 127, 17)]
TILES = [tuning.INTERPRETER, tilelab.Config(16, 32, 16, group_m=2, num_warps=4, num_stages=1)]


def _inside_nan(values: torch.Tensor, pad: int) -> torch.Tensor:
    """A view of `values` in the middle of a buffer `pad` elements larger on every side, the rest NaN."""
    rows, cols = values.shape
    buffer = torch.full((rows + 2 * pad, cols + 2 * pad), float("nan"), dtype=values.dtype, device=values.device)
    view = buffer[pad:pad + rows, pad:pad + cols]
    view.copy_(values)
    return view


def _precision(dtype):
    return "ieee" if dtype == torch.float32 else None


def _addresses(x: torch.Tensor) -> np.ndarray:
    """The byte address of every element of a strided tensor, sorted."""
    index = torch.zeros((), dtype=torch.int64)
    for size, stride in zip(x.shape, x.stride(), strict=True):
        index = index[..., None] + torch.arange(size, dtype=torch.int64) * stride
    return np.sort(x.data_ptr() + index.reshape(-1).numpy() * x.element_size()).astype(np.uint64)


def _byte_range(x: torch.Tensor) -> tuple[int, int]:
    storage = x._base if x._base is not None else x
    return storage.data_ptr(), storage.data_ptr() + storage.numel() * storage.element_size()


@pytest.fixture
def recorded_lanes(device, monkeypatch, poisoned_outputs):
    """Every enabled lane of the interpreter's loads and stores, as byte addresses: {"load": [...], "store": [...]}.

    A lane outside the buffers a test names in "readable" (loads) or outside the output's buffer (stores) is
    recorded, then switched off, so that a stray lane fails the test's assertion instead of corrupting the
    heap."""
    if device != "cpu":
        pytest.skip("records the interpreter's loads and stores")
    from triton.runtime import interpreter

    lanes = {"load": [], "store": [], "readable": []}
    real_load = interpreter.InterpreterBuilder.create_masked_load
    real_store = interpreter.InterpreterBuilder.create_masked_store

    def within(ptrs, mask, ranges):
        addresses = ptrs.data.astype(np.uint64)
        enabled = np.broadcast_to(mask.data, addresses.shape)
        inside = np.zeros(addresses.shape, dtype=bool)
        for lo, hi in ranges:
            inside |= (addresses >= lo) & (addresses < hi)
        return addresses[enabled], interpreter.TensorHandle(enabled & inside, mask.dtype)

    def load(self, ptrs, mask, other, *args, **kwargs):
        enabled, safe = within(ptrs, mask, lanes["readable"])
        lanes["load"].append(enabled)
        return real_load(self, ptrs, safe, other, *args, **kwargs)

    def store(self, ptrs, value, mask, *args, **kwargs):
        enabled, safe = within(ptrs, mask, [_byte_range(poisoned_outputs[-1])])
        lanes["store"].append(enabled)
        return real_store(self, ptrs, value, safe, *args, **kwargs)

    monkeypatch.setattr(interpreter.InterpreterBuilder, "create_masked_load", load)
    monkeypatch.setattr(interpreter.InterpreterBuilder, "create_masked_store", store)
    return lanes


@pytest.mark.parametrize("m,n,k", SHAPES[1:])
@pytest.mark.parametrize("config", TILES, ids=lambda c: c.label())
def test_every_lane_reads_its_operands_and_writes_each_element_of_c_once(m, n, k, config, device, rng,
                                                                        recorded_lanes):
    a = _inside_nan(randn((m, k), torch.float32, device, rng), pad=3)
    b = _inside_nan(randn((k, n), torch.float32, device, rng), pad=3)
    recorded_lanes["readable"] += [_byte_range(a), _byte_range(b)]
    out = tilelab.matmul(a, b, path="pointer", config=config, precision="ieee")
    reads = np.concatenate(recorded_lanes["load"])
    allowed = np.concatenate([_addresses(a), _addresses(b)])
    stray = reads[~np.isin(reads, allowed)]
    assert stray.size == 0, f"{stray.size} load lanes outside A's and B's elements"
    for name, x in (("A", a), ("B", b)):  # every element is read (no K step or edge lost)
        assert np.isin(_addresses(x), reads).all(), f"an element of {name} is never read"

    writes = np.sort(np.concatenate(recorded_lanes["store"]))
    stray = writes[~np.isin(writes, _addresses(out))]
    assert stray.size == 0, f"{stray.size} store lanes outside C's elements"
    assert np.array_equal(writes, _addresses(out)), "the stores are not each element of C exactly once"
    assert_matches_reference(out, a, b, precision="ieee", label=f"{m}x{n}x{k}")


@pytest.mark.parametrize("m,n,k", SHAPES)
@pytest.mark.parametrize("dtype", [torch.float16, torch.float32])
@pytest.mark.parametrize("config", TILES, ids=lambda c: c.label())
@pytest.mark.parametrize("b_transposed", [False, True])
def test_the_nan_around_the_operands_is_never_read(m, n, k, dtype, config, b_transposed, device, rng):
    a = _inside_nan(randn((m, k), dtype, device, rng), pad=5)
    if b_transposed:  # B stored [N, K], as a weight is: its K edge is along its rows
        b = _inside_nan(randn((n, k), dtype, device, rng), pad=5).t()
    else:
        b = _inside_nan(randn((k, n), dtype, device, rng), pad=5)
    out = tilelab.matmul(a, b, path="pointer", config=config, precision=_precision(dtype))
    assert_matches_reference(out, a, b, precision=_precision(dtype), label=f"{m}x{n}x{k} {dtype}")


def _strided(shape, strides, dtype, device, rng) -> torch.Tensor:
    """Fresh random values in a view of `shape` and `strides` over a buffer whose other elements are NaN."""
    size = 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True))
    view = torch.full((size,), float("nan"), dtype=dtype, device=device).as_strided(shape, strides)
    return view.copy_(randn(shape, dtype, device, rng))


# fp16 operands whose sizes and strides are all multiples of 8 elements (one 16-byte vector) but for the one
# named, a multiple of 4 only: ALIGN must be 4, or the kernel's `known_multiple` rounds that one down.
ONE_SIZE_OFF_THE_VECTOR = {
    "N": (((5, 8), (8, 1)), ((8, 20), (24, 1))),
    "K": (((5, 12), (16, 1)), ((12, 8), (8, 1))),
    "A's row stride": (((5, 8), (12, 1)), ((8, 8), (8, 1))),
    "B's row stride": (((5, 8), (8, 1)), ((8, 8), (12, 1))),
    "A's batch stride": (((3, 5, 8), (44, 8, 1)), ((3, 8, 8), (64, 8, 1))),
    "B's batch stride": (((3, 5, 8), (40, 8, 1)), ((3, 8, 8), (68, 8, 1))),
}


@pytest.mark.parametrize("which", list(ONE_SIZE_OFF_THE_VECTOR))
def test_align_divides_every_size_and_stride(which, device, rng):
    (a_shape, a_strides), (b_shape, b_strides) = ONE_SIZE_OFF_THE_VECTOR[which]
    a = _strided(a_shape, a_strides, torch.float16, device, rng)
    b = _strided(b_shape, b_strides, torch.float16, device, rng)
    from tilelab.ops import matmul as matmul_op

    assert matmul_op.describe_plan(a, b, path="pointer")["align"] == 4, which
    out = tilelab.matmul(a, b, path="pointer")
    assert_matches_reference(out, a, b, label=f"{which} a multiple of 4 elements only")
