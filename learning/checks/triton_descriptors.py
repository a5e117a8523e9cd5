"""Checks for exercise 23 (workshop I11): lesson 8's matmul through tensor descriptors.

`descriptor_fits` is checked against TMA's rules on tensors built to break one rule each. The launch part stands a
spy in for `matmul_descriptor_kernel` (the launcher looks the kernel up in its module when it runs): before the
kernel runs, it checks the grid and each descriptor's base, shape, strides and block shape. The operands sit in
NaN-filled buffers whose rows are padded onto 16 bytes, so a descriptor that claims more than the tensor's own
shape reads NaN; C is a guarded view, so a store past C's shape shows, except in the rest of each row's last 16
bytes, which the H200's TMA writes too (`_tma_scratch`). Then C is compared with the product.
The last part hands the launcher operands TMA cannot read, and wants a ValueError naming each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import torch

from learning.checking import reference as ref
from learning.checking import triton_support as ts
from learning.checking.tensor_guards import GuardedOutput, fmt_value, padded_input
from learning.checking.trial import CheckFailure, Part

TMA_ALIGN = 16


def _describe(t: torch.Tensor) -> str:
    offset = t.data_ptr() % TMA_ALIGN
    start = f", starting {offset} bytes past a 16-byte boundary" if offset else ""
    return f"{t.dtype} {tuple(t.shape)} with strides {tuple(t.stride())}{start}"


def _fits_cases(trial, device):
    """(label, tensor, whether TMA can read it as it is, the rule it shows)."""
    def full(rows, cols, dtype=torch.float16):
        return torch.zeros(rows, cols, dtype=dtype, device=device)

    yield "fp16 37x48: 96-byte rows", full(37, 48), True, ""
    yield "fp16 37x45: 90-byte rows", full(37, 45), False, "a row stride of 90 bytes is not a multiple of 16"
    yield "fp32 10x4: 16-byte rows", full(10, 4, torch.float32), True, ""
    yield "fp32 10x3: 12-byte rows", full(10, 3, torch.float32), False, "a row stride of 12 bytes"
    yield "fp16 16x64, columns 8 on", full(16, 64)[:, 8:], True, "a view 16 bytes in still starts on a boundary"
    yield "fp16 16x64, columns 1 on", full(16, 64)[:, 1:], False, "the start must be a multiple of 16 bytes too"
    yield "fp16 48x40, transposed", full(48, 40).t(), False, "a row must have unit stride (stride(1) == 1)"
    yield "fp16 40x64, every other row", full(40, 64)[::2], True, "256-byte steps between rows are fine"
    yield "fp32 7x5 in rows of 8", full(7, 8, torch.float32)[:, :5], True, "padded rows: the stride counts"
    rows, cols = trial.rng.randint(1, 40), trial.rng.randint(1, 70)
    yield f"fp16 {rows}x{cols}", full(rows, cols), (cols * 2) % TMA_ALIGN == 0, "rows of 2 * cols bytes"


def _tma_can_read(t: torch.Tensor, stride_in_elements: bool = False) -> bool:
    """TMA's rules for a 2-D operand read as it is (the rule `descriptor_fits` is checked against); with
    `stride_in_elements`, the row stride counted in elements instead of bytes, a mistake worth naming."""
    row_stride = t.stride(0) if stride_in_elements else t.stride(0) * t.element_size()
    return t.dim() == 2 and t.stride(1) == 1 and t.data_ptr() % TMA_ALIGN == 0 and row_stride % TMA_ALIGN == 0


def check_descriptor_fits(module, trial) -> None:
    for label, tensor, fits, rule in _fits_cases(trial, ts.device()):
        with trial.case(label):
            got = module.descriptor_fits(tensor)
            if not isinstance(got, bool):
                raise CheckFailure(f"descriptor_fits returned {got!r}; return True or False")
            if got != fits:
                answer = "can" if fits else "cannot"
                if got == _tma_can_read(tensor, stride_in_elements=True):
                    rule = (f"{rule + '; ' if rule else ''}the 16 is bytes, and stride(0) counts elements: "
                            "stride(0) * element_size()")
                raise CheckFailure(f"descriptor_fits({_describe(tensor)}) returned {got}, but TMA {answer} read it "
                                   f"as it is{': ' + rule if rule else ''}")


def _aligned_input(values: torch.Tensor) -> torch.Tensor:
    """`values` in a NaN-filled buffer whose rows are padded to a multiple of 16 bytes, with at least 16 bytes of
    NaN after each row and NaN rows below: a load past the tensor's shape brings NaN."""
    per_unit = TMA_ALIGN // values.element_size()
    pad = per_unit + (-(values.shape[1] + per_unit)) % per_unit
    return padded_input(values, pad=pad)


def _guarded_c(m: int, n: int, blocks: tuple[int, int, int]) -> GuardedOutput:
    """A float32 C whose row stride and start are multiples of 16 bytes, guard cells around it."""
    edge = max(blocks)
    return GuardedOutput((m, n), torch.float32, ts.device(), pad=edge + (-(n + edge)) % (TMA_ALIGN // 4))


@dataclass
class Launch:
    grid: tuple[int, ...]
    args: dict


def _tma_scratch(place: tuple[int, int], m: int, n: int) -> bool:
    """Whether C[row, col] lies in the rest of a row's last 16 bytes, past C's N columns. The H200's TMA stores
    whole 16-byte units and writes there (results/h200-padding-probe.log); Triton's interpreter does not."""
    row, col = place
    return 0 <= row < m and n <= col < ref.cdiv(n * 4, TMA_ALIGN) * TMA_ALIGN // 4


class DescriptorSpy(ts.OneLaunchSpy):
    """Stands in for matmul_descriptor_kernel: checks the grid and the three descriptors, then runs it."""

    record_type = Launch

    def __init__(self, kernel, operands: dict, blocks: tuple[int, int, int]):
        super().__init__(kernel)
        self.operands = operands
        self.blocks = blocks

    def twice(self, count: int) -> str:
        return (f"launch_descriptor_matmul launched matmul_descriptor_kernel {count} times: one launch of one "
                "program per tile of C does it all")

    def _before(self, launch: Launch) -> None:
        grid, args = launch.grid, launch.args
        bm, bn, bk = self.blocks
        a, b, c = (self.operands[name] for name in "abc")
        m, n = a.shape[0], b.shape[1]
        want_grid = (ref.cdiv(m, bm), ref.cdiv(n, bn))
        if tuple(grid) + (1,) * (3 - len(grid)) != want_grid + (1,):
            raise CheckFailure(f"launched a grid of {tuple(grid)}: one program per tile of C is (cdiv(M, BLOCK_M), "
                               f"cdiv(N, BLOCK_N)) = {want_grid}")
        given = tuple(ts.constant(args.get(name)) for name in ("BLOCK_M", "BLOCK_N", "BLOCK_K"))
        if given != (bm, bn, bk):
            raise CheckFailure(f"launched with BLOCK_M, BLOCK_N, BLOCK_K = {given}: pass on the block_m={bm}, "
                               f"block_n={bn}, block_k={bk} given to launch_descriptor_matmul")
        for name, tensor, block in (("a", a, [bm, bk]), ("b", b, [bk, bn]), ("c", c, [bm, bn])):
            self._check_descriptor(f"{name}_desc", args.get(f"{name}_desc"), name, tensor, block)

    @staticmethod
    def _check_descriptor(param: str, desc, name: str, tensor: torch.Tensor, block: list[int]) -> None:
        rows, cols = tensor.shape
        if not all(hasattr(desc, field) for field in ("base", "shape", "strides", "block_shape")):
            raise CheckFailure(f"the kernel's {param} is a {type(desc).__name__}, not a TensorDescriptor: describe "
                               f"{name} with TensorDescriptor({name}, shape, strides, block_shape)")
        if not isinstance(desc.base, torch.Tensor) or desc.base.data_ptr() != tensor.data_ptr():
            raise CheckFailure(f"{param} does not start where {name} does: its base is the tensor {name} itself")
        shape = [int(s) for s in desc.shape]
        if shape != [rows, cols]:
            whole = [ref.cdiv(rows, block[0]) * block[0], ref.cdiv(cols, block[1]) * block[1]]
            rounded = " (rounded up to whole tiles)" if shape == whole else ""
            raise CheckFailure(f"{param} has shape {shape}{rounded}, but {name} is {rows}x{cols}: give the "
                               f"descriptor {name}'s own shape. Past it a load returns zeros and a store writes "
                               "nothing; inside a larger claimed shape they read and write whatever lies past the "
                               "tensor")
        strides = [int(s) for s in desc.strides]
        if strides != list(tensor.stride()):
            raise CheckFailure(f"{param} has strides {strides}, but {name}'s are {list(tensor.stride())}: pass "
                               f"list({name}.stride()), in elements (its rows may be padded)")
        if [int(s) for s in desc.block_shape] != block:
            what = {"a": "BLOCK_M x BLOCK_K", "b": "BLOCK_K x BLOCK_N", "c": "BLOCK_M x BLOCK_N"}[name]
            raise CheckFailure(f"{param} has block_shape {list(desc.block_shape)}; a tile of {name.upper()} is "
                               f"{what} = {block}")


def _cases(trial):
    yield "square 32x32 @ 32x32", (32, 32, 32), (16, 16, 16)
    yield "1x1 @ 1x1", (1, 1, 1), (16, 16, 16)
    yield "ragged 37x45 @ 45x29", (37, 29, 45), (16, 16, 16)
    yield "ragged 65x33 @ 33x127", (65, 127, 33), (32, 32, 16)
    yield "K shorter than a step: 70x7 @ 7x40", (70, 40, 7), (64, 16, 32)
    m, n, k = (trial.rng.randint(1, 90) for _ in range(3))
    yield f"random {m}x{k} @ {k}x{n}", (m, n, k), (16, 32, 16)


def _diagnosis(got: torch.Tensor, a: torch.Tensor, b: torch.Tensor, blocks, tolerance: float) -> str:
    bm, bn, bk = blocks
    if bool(torch.isnan(got).any()):
        return ("a NaN reached C: something read past A's or B's shape, where these buffers hold NaN. A "
                "descriptor's load past its shape returns zeros only if the shape is the tensor's own")
    a32, b32 = a.float(), b.float()
    last = (ref.cdiv(a.shape[1], bk) - 1) * bk
    if ts.first_difference(got, a32[:, last:] @ b32[last:, :], rtol=1e-3, atol=tolerance) is None:
        return "C holds the last K step's product only: is the accumulator made inside the K loop?"
    want = a32 @ b32
    first = (slice(0, bm), slice(0, bn))
    if ts.first_difference(got[first], want[first], rtol=1e-3, atol=tolerance) is None:
        return ("tile (0, 0) is right and others are not: a descriptor is addressed in elements, so program "
                "(pid_m, pid_n) loads A at [pid_m * BLOCK_M, k] and B at [k, pid_n * BLOCK_N], k stepping by "
                "BLOCK_K")
    return ""


def check_launch_descriptor_matmul(module, trial) -> None:
    gen = ts.generator(trial)
    for label, (m, n, k), blocks in _cases(trial):
        with trial.case(f"{label}, BLOCK_M={blocks[0]}, BLOCK_N={blocks[1]}, BLOCK_K={blocks[2]}"):
            a = _aligned_input(ts.randn(trial, m, k, gen=gen, dtype=torch.float16))
            b = _aligned_input(ts.randn(trial, k, n, gen=gen, dtype=torch.float16))
            c = _guarded_c(m, n, blocks)
            spy = DescriptorSpy(None, {"a": a, "b": b, "c": c.view}, blocks)
            try:
                with ts.standing_in(module, "matmul_descriptor_kernel", spy):
                    result = ts.call_kernel(module.launch_descriptor_matmul, a, b, c.view, *blocks)
            except Exception as error:  # Triton's interpreter refuses a tile that starts off 16 bytes
                if "offset start must be 16-byte aligned" not in str(error):
                    raise
                raise CheckFailure(f"a descriptor load or store started part-way into 16 bytes of a row ({error}): "
                                   "a descriptor is addressed in elements, so program (pid_m, pid_n) loads A at "
                                   "[pid_m * BLOCK_M, k] and B at [k, pid_n * BLOCK_N], k stepping by BLOCK_K, "
                                   "and stores at [pid_m * BLOCK_M, pid_n * BLOCK_N]") from None
            ts.the_launch(spy, "launch_descriptor_matmul", "matmul_descriptor_kernel")
            if not (isinstance(result, torch.Tensor) and result.data_ptr() == c.view.data_ptr()):
                raise CheckFailure(f"launch_descriptor_matmul returned {type(result).__name__}, not c: return c")
            strays = [(place, value) for place, value in c.stray_stores(limit=1000) if not _tma_scratch(place, m, n)]
            if strays:
                (row, col), value = strays[0]
                raise CheckFailure(f"stray store of {fmt_value(value)} at C[{row},{col}], outside the {m}x{n} "
                                   "output: c_desc's shape must be C's own, so that TMA drops the rest of an edge "
                                   "tile")
            missing = c.unwritten(limit=1)
            if missing:
                row, col = missing[0]
                raise CheckFailure(f"C[{row},{col}] never written: program ({row // blocks[0]}, "
                                   f"{col // blocks[1]}) stores its tile with c_desc.store([pid_m * BLOCK_M, "
                                   "pid_n * BLOCK_N], acc)")
            got = c.written()
            a_cpu, b_cpu = a.detach().cpu(), b.detach().cpu()
            tolerance = 1e-3 * max(1.0, k ** 0.5)
            diff = ts.first_difference(got, a_cpu.float() @ b_cpu.float(), rtol=1e-3, atol=tolerance)
            if diff:
                index, got_value, want_value = diff
                ts.fail_at("C", index, got_value, want_value, _diagnosis(got, a_cpu, b_cpu, blocks, tolerance))


def _unfit_cases(trial, device):
    """(label, the operand TMA cannot read, a, b, c): each case breaks one rule, for that operand only."""
    gen = ts.generator(trial)

    def values(rows, cols):
        return ts.randn(trial, rows, cols, gen=gen, dtype=torch.float16)

    def out(rows, cols, row_stride=None):
        return torch.zeros(rows, row_stride or cols, dtype=torch.float32, device=device)[:, :cols]

    yield "A 37x45 (90-byte rows)", "a", values(37, 45), _aligned_input(values(45, 32)), out(37, 32)
    yield "B 48x29 (58-byte rows)", "b", _aligned_input(values(32, 48)), values(48, 29), out(32, 29, row_stride=32)
    yield ("C 32x29 float32 (116-byte rows)", "c", _aligned_input(values(32, 48)), _aligned_input(values(48, 29)),
           out(32, 29))
    yield ("A transposed (a view of a 48x32 tensor)", "a", values(48, 32).t(), _aligned_input(values(48, 64)),
           out(32, 64))


def check_unfit_operands(module, trial) -> None:
    for label, name, a, b, c in _unfit_cases(trial, ts.device()):
        with trial.case(label):
            operand = {"a": a, "b": b, "c": c}[name]
            spy = DescriptorSpy(None, {"a": a, "b": b, "c": c}, (16, 16, 16))
            try:
                with ts.standing_in(module, "matmul_descriptor_kernel", spy):
                    ts.call_kernel(module.launch_descriptor_matmul, a, b, c, 16, 16, 16)
            except ValueError as error:
                refused = [other for other, t in {"a": a, "b": b, "c": c}.items()
                           if other != name and _tma_can_read(t) and not module.descriptor_fits(t)]
                if refused and name not in re.split(r"[\s(),:]+", str(error)):
                    raise CheckFailure(f"the ValueError for {label} came from {refused[0]}, which TMA can read: "
                                       f"descriptor_fits refuses it ({_describe({'a': a, 'b': b, 'c': c}[refused[0]])}"
                                       "), so fix descriptor_fits first") from None
                if name not in re.split(r"[\s(),:]+", str(error)):
                    raise CheckFailure(f"the ValueError for {label} does not name the operand: say {name!r} in it "
                                       f"(it said: {str(error)[:200]!r})") from None
            except AssertionError as error:
                raise CheckFailure(f"{name} is {_describe(operand)}, which TMA cannot read, and TensorDescriptor's "
                                   f"own assert stopped it ({error}). Check first, with descriptor_fits, and raise "
                                   f"a ValueError that names {name}") from None
            else:
                raise CheckFailure(f"launch_descriptor_matmul accepted {name} = {_describe(operand)}: raise a "
                                   "ValueError that names it when descriptor_fits says no")
            if spy.launches:
                raise CheckFailure("matmul_descriptor_kernel was launched before the ValueError: check every "
                                   "operand first")


PARTS = [
    Part("descriptor_fits", check_descriptor_fits),
    Part("launch_descriptor_matmul", check_launch_descriptor_matmul,
         needs=("matmul_descriptor_kernel", "launch_descriptor_matmul", "descriptor_fits")),
    Part("unfit_operands", check_unfit_operands, needs=("launch_descriptor_matmul", "descriptor_fits"),
         todo="unfit_operands: launch_descriptor_matmul raises a ValueError naming an operand TMA cannot read"),
]
