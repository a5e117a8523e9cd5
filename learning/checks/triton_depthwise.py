"""Checks for exercise 21 (workshop I10): a depthwise convolution whose pixels are found by multiplication.

Part `division_magic` tries the learner's (magic, shift) on the quotient edges of the whole range 0 <= n < 2**31:
the n just below and at each multiple of the divisor near 0 and near 2**31, where the rounding in the magic number
matters most, and random ones. The answer is exact integers, so the check is too.

Part `launch_depthwise` stands a spy in for `depthwise_kernel` (the launcher looks the kernel up in its module when
it runs) to see the grid, the block sizes, KH and KW and the magic numbers before the kernel runs. x and the weight
sit in NaN: two rows and columns of it around every image, a NaN image before the first and after the last, and
NaN channels past the last. y is a channels-last view in the middle of a buffer of GUARD (with gaps between its
rows, so only out's own strides find it), poisoned with marked NaNs. The answer is torch's conv2d(groups=C) in
float64.

Part `divides_by_multiplication` makes sure the kernel divides with the magic numbers it is given, not with // or %
by OW and OH: the spy hands the kernel a magic number one too small, which makes (pixel * magic) >> shift one less
at the pixels that start an output row (or an image). y must then change there, exactly as rows = pixel // OW,
image = rows // OH, oh = rows - image * OH, ow = pixel - rows * OW say it does.

What no run on the interpreter can show is the loop's shape: the filter's rows in a `range` loop with a row's taps
in `tl.static_range`, against all KH * KW taps in one loop, gives the same numbers. Counting the instructions of
the compiled loop (learning/workshops/I10_depthwise.md, part 6) shows the difference.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from learning.checking import reference as ref
from learning.checking import triton_support as ts
from learning.checking.compare import check_value, fmt
from learning.checking.tensor_guards import GUARD, POISON_BITS, fmt_value
from learning.checking.trial import CheckFailure, Part

LIMIT = 2**31  # every n the kernel divides is below this: pixel numbers in int32
MARGIN = 2  # rows and columns of NaN (of x) or GUARD (of y) around every image: the widest padding checked
RTOL, ATOL = 1e-4, 1e-4  # float32 sums of at most 25 products of N(0, 1) values, against float64


# -- part 1: division by multiplication -----------------------------------------------------------------------


# 7 first: a power of two (1, 2, 64, ...) forgives a magic rounded down, and 3 a shift one short.
DIVISORS = [7, 56, 1, 2, 3, 5, 10, 14, 28, 64, 100, 112, 1000, 3136, 12544, 65535, 65536, 65537, 1_000_003,
            2**30 - 1, 2**30, 2**30 + 1, 2**31 - 1]


def _edges(divisor: int, rng) -> list[int]:
    """The n where n // divisor steps up (q * d - 1 and q * d), near 0, near 2**31 and at random quotients."""
    top = (LIMIT - 1) // divisor  # the largest quotient of an n below 2**31
    quotients = {1, 2, 3, top - 2, top - 1, top, top + 1} | {rng.randint(1, top) for _ in range(12)}
    points = {0, 1, LIMIT - 1} | {rng.randrange(LIMIT) for _ in range(12)}
    for q in quotients:
        points |= {q * divisor - 1, q * divisor, q * divisor + divisor - 1}
    return sorted(n for n in points if 0 <= n < LIMIT)


def _why_wrong(divisor: int, magic: int, shift: int) -> str:
    want_magic, want_shift = ref.division_magic(divisor)
    ceil_log2 = want_shift - 31
    if shift == want_shift and magic == (1 << shift) // divisor and (1 << shift) % divisor == 0:
        return (f"2**{shift} / {divisor} is exact ({divisor} is a power of two), so rounding it up (ceil) or down "
                "changes nothing here. The rule is floor(2**shift / divisor) + 1 for every divisor, powers of two "
                "included: one formula, no special case, and ceil() is not it")
    if shift == want_shift and magic == (1 << shift) // divisor:
        return (f"magic is 2**{shift} / {divisor} rounded down, a little under the exact 2**{shift} / {divisor}: "
                "then (n * magic) >> shift falls just short at every multiple of the divisor. Round up: "
                "floor(2**shift / divisor) + 1")
    if shift < want_shift:
        floor_log2 = ""
        if shift == 31 + divisor.bit_length() - 1:
            floor_log2 = (f"It uses floor(log2({divisor})) = {ceil_log2 - 1}; the rule takes ceil(log2({divisor})) "
                          f"= {ceil_log2}, which is (d - 1).bit_length(). ")
        return (f"shift is {shift}, but it must be 31 + ceil(log2({divisor})) = {want_shift}. {floor_log2}magic is "
                f"2**shift / {divisor} plus up to 1; times an n near 2**31 that error must stay below 2**shift / "
                f"{divisor}, the room the n just below a multiple of {divisor} leaves before the quotient steps up, "
                f"and only 2**shift >= 2**31 * {divisor} makes sure of it")
    return (f"the rule: shift = 31 + ceil(log2(d)) = {want_shift}, magic = floor(2**shift / d) + 1 = {want_magic}, "
            "all in Python's exact integers")


def _check_one_magic(module, divisor: int, edges: list[int]) -> None:
    call = f"division_magic({divisor})"
    got = module.division_magic(divisor)
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        raise CheckFailure(f"{call} returned {fmt(got)}: return the pair (magic, shift)")
    magic, shift = got
    for name, value in (("magic", magic), ("shift", shift)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise CheckFailure(f"{call} returned {name} = {fmt(value)}, a {type(value).__name__}: return integers. "
                               "A float holds 53 bits, and 2**shift / d needs up to 32 exact ones: "
                               "(1 << shift) // divisor + 1")
    if not 0 < magic < 2**32:
        raise CheckFailure(f"{call} returned magic = {magic}, which is not below 2**32: the kernel multiplies a "
                           "32-bit n by it in 64 bits. With shift = 31 + ceil(log2(d)), magic is below 2**32 "
                           f"({_why_wrong(divisor, magic, shift)})")
    for n in edges:
        quotient = (n * magic) >> shift
        if quotient != n // divisor:
            raise CheckFailure(f"{call} returned ({magic}, {shift}): at n = {n}, (n * magic) >> shift is {quotient}, "
                               f"but n // {divisor} is {n // divisor}. {_why_wrong(divisor, magic, shift)}")
    want = ref.division_magic(divisor)
    check_value((magic, shift), want, call, known_mistakes=[
        ((magic, shift), f"({magic}, {shift}) gives the right quotient at every n tried here, but not the pair the "
                         f"exercise (and the library) computes. {_why_wrong(divisor, magic, shift)}")])


def check_division_magic(module, trial) -> None:
    divisors = DIVISORS + [trial.rng.randint(2, 5000) for _ in range(6)] + [
        trial.rng.randint(2, LIMIT - 1) for _ in range(6)]
    for divisor in divisors:
        edges = _edges(divisor, trial.rng)
        with trial.case(f"division_magic({divisor}), tried on {len(edges)} n's, most of them next to a step of "
                        "the quotient"):
            _check_one_magic(module, divisor, edges)
    for divisor in (0, -1, -56):
        with trial.case(f"division_magic({divisor})"):
            try:
                got = module.division_magic(divisor)
            except ValueError:
                continue
            except NotImplementedError:
                raise
            except Exception as error:  # noqa: BLE001 - any other exception is the answer being checked
                raise CheckFailure(f"division_magic({divisor}) raised {type(error).__name__}: check the divisor "
                                   "first, and raise ValueError for one below 1") from None
            raise CheckFailure(f"division_magic({divisor}) returned {fmt(got)}: no n // {divisor} to stand in for; "
                               "raise ValueError for a divisor below 1")


# -- the images: x and the weight in NaN, y in GUARD --------------------------------------------------------------


@dataclass
class Problem:
    n: int
    c: int
    h: int
    w: int
    kh: int
    kw: int
    padding: int
    blocks: tuple[int, int] = (16, 16)
    note: str = ""
    give_out: bool = True

    @property
    def oh(self) -> int:
        return self.h + 2 * self.padding - self.kh + 1

    @property
    def ow(self) -> int:
        return self.w + 2 * self.padding - self.kw + 1

    @property
    def pixels(self) -> int:
        return self.n * self.oh * self.ow

    @property
    def grid(self) -> tuple[int, int]:
        return ref.cdiv(self.pixels, self.blocks[0]), ref.cdiv(self.c, self.blocks[1])

    @property
    def spare(self) -> int:
        """Images after the last one: room for every pixel of the last tile past N * OH * OW."""
        return ref.cdiv(self.blocks[0], self.oh * self.ow) + 1

    def label(self) -> str:
        return (f"x {self.n}x{self.c}x{self.h}x{self.w}, a {self.kh}x{self.kw} filter, padding {self.padding}: "
                f"y {self.n}x{self.c}x{self.oh}x{self.ow}, BLOCK_M={self.blocks[0]}, BLOCK_C={self.blocks[1]}"
                f"{self.note}")


def _images_in(values: torch.Tensor, fill: float, spare: int, channel_pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    """An [N, C, H, W] channels-last view (channels adjacent) in a buffer of `fill`: MARGIN rows and columns around
    each image, one image before, `spare` after, `channel_pad` channels past the last. Returns (storage, view)."""
    n, c, h, w = values.shape
    storage = torch.full((1 + n + spare, h + 2 * MARGIN, w + 2 * MARGIN, c + channel_pad), fill,
                         dtype=torch.float32, device=values.device)
    view = storage[1:1 + n, MARGIN:MARGIN + h, MARGIN:MARGIN + w, :c].permute(0, 3, 1, 2)
    view.copy_(values)
    return storage, view


def _weight_in_nan(values: torch.Tensor, channel_pad: int) -> torch.Tensor:
    """[C, 1, KH, KW] in a NaN buffer with `channel_pad` channels after the last and a gap after each filter row."""
    c, _, kh, kw = values.shape
    storage = torch.full((c + channel_pad, 1, kh, kw + 1), float("nan"), dtype=torch.float32, device=values.device)
    view = storage[:c, :, :, :kw]
    view.copy_(values)
    return view


class GuardedImages:
    """y [N, C, OH, OW], channels-last, in a GUARD buffer laid out as `_images_in`'s, poisoned with marked NaNs."""

    def __init__(self, p: Problem):
        self.p = p
        values = torch.zeros((p.n, p.c, p.oh, p.ow), dtype=torch.float32, device=ts.device())
        self.storage, self.view = _images_in(values, GUARD, p.spare, p.blocks[1])
        self.view.view(torch.int32).fill_(POISON_BITS)  # a marked NaN until the kernel writes it

    def strays(self) -> list[tuple[tuple[int, int, int, int], float]]:
        """((n, c, oh, ow), value) of changed guard cells, in y's coordinates (some outside y)."""
        p = self.p
        cpu = self.storage.detach().cpu()
        changed = cpu != GUARD
        changed[1:1 + p.n, MARGIN:MARGIN + p.oh, MARGIN:MARGIN + p.ow, :p.c] = False
        return [((image - 1, channel, row - MARGIN, col - MARGIN), float(cpu[image, row, col, channel]))
                for image, row, col, channel in changed.nonzero().tolist()]

    def unwritten(self) -> torch.Tensor:
        return self.view.detach().cpu().view(torch.int32) == POISON_BITS

    def written(self) -> torch.Tensor:
        return self.view.detach().cpu().clone()


def _inputs(gen, p: Problem):
    x = torch.randn(p.n, p.c, p.h, p.w, generator=gen).to(ts.device())
    weight = torch.randn(p.c, 1, p.kh, p.kw, generator=gen).to(ts.device())
    x_storage, x_view = _images_in(x, float("nan"), p.spare, p.blocks[1])
    return x_storage, x_view, _weight_in_nan(weight, p.blocks[1])


def reference(x: torch.Tensor, weight: torch.Tensor, padding: int) -> torch.Tensor:
    x64, w64 = x.detach().cpu().double(), weight.detach().cpu().double()
    return F.conv2d(x64, w64, padding=padding, groups=x64.shape[1])


# -- the spy: how the launcher launched ---------------------------------------------------------------------------


@dataclass
class Launch:
    grid: tuple[int, ...]
    args: dict


class DepthwiseSpy(ts.OneLaunchSpy):
    """Stands in for the learner's depthwise_kernel: checks the launch before the kernel runs and, for the last
    part, hands the kernel magic numbers one too small (`nudge`: "OW" or "OH")."""

    record_type = Launch

    def __init__(self, kernel, p: Problem, x, weight, out, nudge: str | None = None):
        super().__init__(kernel)
        self.p, self.x, self.weight, self.out, self.nudge = p, x, weight, out, nudge

    def twice(self, count: int) -> str:
        return (f"launch_depthwise launched depthwise_kernel {count} times: one launch on the grid "
                "(cdiv(N * OH * OW, BLOCK_M), cdiv(C, BLOCK_C)) covers every pixel and every channel")

    def _before(self, launch: Launch) -> None:
        p = self.p
        grid = launch.grid + (1,) * (3 - len(launch.grid))
        if grid != (*p.grid, 1):
            raise CheckFailure(self._grid_message(launch.grid))
        blocks = tuple(ts.constant(launch.args.get(name)) for name in ("BLOCK_M", "BLOCK_C"))
        if blocks != p.blocks:
            raise CheckFailure(f"launched with BLOCK_M={blocks[0]}, BLOCK_C={blocks[1]}: pass on the "
                               f"block_m={p.blocks[0]}, block_c={p.blocks[1]} given to launch_depthwise")
        filt = tuple(ts.constant(launch.args.get(name)) for name in ("KH", "KW"))
        if filt != (p.kh, p.kw):
            raise CheckFailure(f"launched with KH={filt[0]}, KW={filt[1]} for a {p.kh}x{p.kw} filter: KH is "
                               "weight.shape[2] (rows), KW is weight.shape[3] (columns)")
        for name, tensor, what in (("x_ptr", self.x, "x"), ("w_ptr", self.weight, "weight"),
                                   ("y_ptr", self.out, "out")):
            got = launch.args.get(name)
            if tensor is not None and (not isinstance(got, torch.Tensor) or got.data_ptr() != tensor.data_ptr()):
                raise CheckFailure(f"the kernel's {name} is not {what} itself: pass {what} as it is, with its own "
                                   f"strides (a copy such as .contiguous() would read, or write, somewhere else)")
        self._check_magic(launch.args)

    def _grid_message(self, grid) -> str:
        p = self.p
        want = f"(cdiv(N * OH * OW, BLOCK_M), cdiv(C, BLOCK_C)) = ({p.grid[0]}, {p.grid[1]})"
        if tuple(grid[:2]) == p.grid[::-1]:
            return f"launched a grid of {grid}: pixel tiles come first, then channel tiles: {want}"
        if grid[:1] == (ref.cdiv(p.n * p.h * p.w, p.blocks[0]),) and (p.h, p.w) != (p.oh, p.ow):
            return (f"launched a grid of {grid}: count the output's pixels, N * OH * OW = {p.pixels} with OH = H + "
                    f"2 * padding - KH + 1 = {p.oh} and OW = {p.ow}, not the input's: {want}")
        return f"launched a grid of {grid}: the grid is {want}"

    def _check_magic(self, args: dict) -> None:
        p = self.p
        for side, size, other in (("OW", p.ow, p.oh), ("OH", p.oh, p.ow)):
            got = (ts.constant(args.get(f"{side}_MAGIC")), ts.constant(args.get(f"{side}_SHIFT")))
            if got == ref.division_magic(size):
                continue
            message = (f"launched with {side}_MAGIC, {side}_SHIFT = {got}: they are division_magic({side}) = "
                       f"division_magic({size}) = {ref.division_magic(size)}")
            if size != other and got == ref.division_magic(other):
                message += f", and these are division_magic({other}): OW and OH are swapped"
            elif side == "OH" and got == ref.division_magic(p.oh * p.ow):
                message += (": rows = pixel // OW counts output rows across images, and image = rows // OH, so "
                            "the second division is by OH, not by OH * OW")
            raise CheckFailure(message)

    def _arguments(self, launch: Launch, args: list, kwargs: dict):
        if self.nudge is None:
            return args, kwargs
        name = f"{self.nudge}_MAGIC"
        nudged = ts.constant(launch.args[name]) - 1
        position = self.kernel.arg_names.index(name)
        if position < len(args):
            args[position] = nudged
        else:
            kwargs[name] = nudged
        return args, kwargs


# -- part 2: the launch -------------------------------------------------------------------------------------------


def _stray_message(p: Problem, strays, missing: torch.Tensor) -> str:
    """Strays all in the last channel tile's spare lanes, or all past the last pixel, with y itself whole: a
    missing mask. Anything else: the stores went to the wrong places."""
    (n, c, oh, ow), value = strays[0]
    where = f"stray store of {fmt_value(value)} at y[{n},{c},{oh},{ow}]"
    padded_channels = ref.cdiv(p.c, p.blocks[1]) * p.blocks[1]
    if not bool(missing.any()):
        def pixel_of(position) -> int:
            return (position[0] * p.oh + position[2]) * p.ow + position[3]

        def in_image(position) -> bool:
            return 0 <= position[2] < p.oh and 0 <= position[3] < p.ow

        if all(0 <= pos[0] < p.n and in_image(pos) and p.c <= pos[1] < padded_channels for pos, _ in strays):
            pixel = pixel_of((n, c, oh, ow))
            return (f"{where}, channel {c} of a {p.c}-channel output: program ({pixel // p.blocks[0]}, "
                    f"{c // p.blocks[1]}), channel lane {c % p.blocks[1]} of its last channel tile. Is the store "
                    "masked with channels < C?")
        if all(pos[0] >= p.n and in_image(pos) and pixel_of(pos) < p.grid[0] * p.blocks[0] for pos, _ in strays):
            pixel = pixel_of((n, c, oh, ow))
            return (f"{where}, an image past the last ({p.n - 1}): pixel {pixel}, lane {pixel % p.blocks[0]} of "
                    f"program ({pixel // p.blocks[0]}, {c // p.blocks[1]}), past N * OH * OW = {p.pixels}. Is the "
                    "store masked with pixels < N * OH * OW?")
    unwritten = ""
    if bool(missing.any()):
        first = ",".join(str(int(i)) for i in missing.nonzero()[0])
        unwritten = f", and y[{first}] was never written"
    return (f"{where}, outside the {p.n}x{p.c}x{p.oh}x{p.ow} output{unwritten}: the stores went to the wrong places. "
            "Does the store use out's own strides (stride_yn, stride_yc, stride_yh, stride_yw)? This out has gaps "
            "between its pixels, rows and images. Are each pixel's image, oh and ow right? (pixels * OW_MAGIC is "
            "computed in 64 bits, pixels.to(tl.int64): in 32 bits it wraps)")


def _unwritten_message(p: Problem, missing: torch.Tensor) -> str:
    n, c, oh, ow = (int(i) for i in missing.nonzero()[0])
    pixel = (n * p.oh + oh) * p.ow + ow
    where = f"y[{n},{c},{oh},{ow}] never written (pixel {pixel}, program ({pixel // p.blocks[0]}, {c // p.blocks[1]}))"
    if bool(missing[:, :, :, 0].all()) and not bool(missing[:, :, :, 1:].any()) and p.ow > 1:
        return (f"{where}, nor any pixel in column 0: is ow = pixel - rows * OW, with rows = (pixel * OW_MAGIC) >> "
                "OW_SHIFT, the pixel's column?")
    return (f"{where}: every program stores its BLOCK_M x BLOCK_C tile, masked with pixels < N * OH * OW and "
            "channels < C, at y_ptr + image * stride_yn + channels * stride_yc + oh * stride_yh + ow * stride_yw")


def _matches(got: torch.Tensor, result: torch.Tensor) -> bool:
    return ts.first_difference(got, result, RTOL, ATOL) is None


def _diagnose(p: Problem, got: torch.Tensor, x, weight, index) -> str:
    n = index[0]
    x64, w64 = x.detach().cpu().double(), weight.detach().cpu().double()
    last_tap = torch.zeros_like(w64)
    last_tap[:, :, -1, -1] = w64[:, :, -1, -1]
    if math.isnan(float(got[index])):
        return ("a NaN came in from around x or the weight, which hold NaN here: mask each tap's load with "
                "0 <= ih < H and 0 <= iw < W (the padding reads 0: other=0.0) and with pixels < N * OH * OW and "
                "channels < C; mask the weight's load with channels < C")
    mistakes = [
        (reference(x64, w64.flip(2, 3), p.padding),
         "the filter came out flipped: tap (r, s) of a window multiplies weight[c, 0, r, s] itself, as torch's "
         "conv2d (a cross-correlation) does"),
        (reference(F.pad(x64, (0, 2 * p.padding, 0, 2 * p.padding)), w64, 0),
         "each window starts at (oh, ow): it starts PAD rows above and PAD columns left of it, top = oh - PAD, "
         "left = ow - PAD, so that output pixel (0, 0) is centred on x's pixel (0, 0)"),
        (reference(x64, torch.cat([torch.zeros_like(w64[:, :, :-1]), w64[:, :, -1:]], dim=2), p.padding),
         "y holds the filter's last row only: is the accumulator made inside the loop over rows? Make it once, "
         "before the loop, with tl.zeros((BLOCK_M, BLOCK_C), dtype=tl.float32)"),
        (reference(x64, last_tap, p.padding),
         "y holds the last tap only: add each tap's products into the accumulator (acc += a * b[None, :])"),
    ]
    if p.kh == p.kw and p.kh > 1:
        mistakes.append((reference(x64, w64.transpose(2, 3), p.padding),
                         "the filter came out transposed: weight[c, 0, r, s] is at w_ptr + c * stride_wc + "
                         "r * stride_wh + s * stride_ww (are stride_wh and stride_ww, or x's stride_xh and "
                         "stride_xw, swapped?)"))
    for result, why in mistakes:
        if _matches(got, result):
            return why
    want = reference(x64, w64, p.padding)
    if n > 0 and _matches(got[:n], want[:n]):
        return (f"images 0 to {n - 1} are right but image {n} is not: a pixel's image is rows // OH (by OH_MAGIC), "
                "and x and y move by image * stride_xn and image * stride_yn")
    return ""


def _check_result(p: Problem, result, out, x, weight) -> torch.Tensor:
    shape = (p.n, p.c, p.oh, p.ow)
    if out is not None:
        if not (isinstance(result, torch.Tensor) and result.data_ptr() == out.view.data_ptr()
                and tuple(result.shape) == shape):
            raise CheckFailure(f"launch_depthwise(x, weight, padding, out=out) returned {type(result).__name__}, "
                               "not out: return y, the tensor the kernel wrote")
        missing = out.unwritten()
        strays = out.strays()
        if strays:
            raise CheckFailure(_stray_message(p, strays, missing))
        if bool(missing.any()):
            raise CheckFailure(_unwritten_message(p, missing))
        return out.written()
    if not (isinstance(result, torch.Tensor) and tuple(result.shape) == shape and result.dtype == torch.float32):
        what = f" of shape {tuple(result.shape)}, {result.dtype}" if isinstance(result, torch.Tensor) else ""
        raise CheckFailure(f"launch_depthwise(x, weight, {p.padding}) returned {type(result).__name__}{what}: with no "
                           f"out, make a float32 y of shape (N, C, OH, OW) = {shape}, launch, and return it")
    if not result.is_contiguous(memory_format=torch.channels_last):
        raise CheckFailure(f"y's strides are {tuple(result.stride())}: make y channels-last, each pixel's channels "
                           "adjacent, with torch.empty(..., memory_format=torch.channels_last)")
    return result.detach().cpu()


def _unchanged(tensor: torch.Tensor, before: torch.Tensor) -> bool:
    return torch.allclose(tensor.detach().cpu(), before, rtol=0, atol=0, equal_nan=True)


def _run(module, gen, p: Problem) -> None:
    x_storage, x, weight = _inputs(gen, p)
    before = (x_storage.detach().cpu().clone(), weight.detach().cpu().clone())
    out = GuardedImages(p) if p.give_out else None
    spy = DepthwiseSpy(module.depthwise_kernel, p, x, weight, out.view if out is not None else None)
    with ts.standing_in(module, "depthwise_kernel", spy):
        if out is not None:
            result = ts.call_kernel(module.launch_depthwise, x, weight, p.padding, out=out.view,
                                    block_m=p.blocks[0], block_c=p.blocks[1])
        else:
            result = ts.call_kernel(module.launch_depthwise, x, weight, p.padding,
                                    block_m=p.blocks[0], block_c=p.blocks[1])
    ts.the_launch(spy, "launch_depthwise", "depthwise_kernel")
    got = _check_result(p, result, out, x, weight)
    if not _unchanged(x_storage, before[0]):
        raise CheckFailure("x changed: the kernel only reads x (and the weight); it stores into y alone")
    if not _unchanged(weight, before[1]):
        raise CheckFailure("the weight changed: the kernel only reads it")
    diff = ts.first_difference(got, reference(x, weight, p.padding), RTOL, ATOL)
    if diff:
        index, got_value, want_value = diff
        ts.fail_at("y", index, got_value, want_value, _diagnose(p, got, x, weight, index))


def _random_problem(rng) -> Problem:
    k = rng.choice([1, 3, 5])
    padding = rng.choice([0, k // 2])
    low = max(1, k - 2 * padding)  # OH and OW at least 1
    return Problem(rng.randint(1, 3), rng.randint(1, 40), rng.randint(low, 9), rng.randint(low, 9), k, k, padding,
                   (rng.choice([16, 32]), rng.choice([8, 16])), " (random)")


def check_launch_depthwise(module, trial) -> None:
    problems = [
        Problem(1, 7, 5, 7, 3, 3, 1, note=": 7 channels, one part-filled channel tile"),
        Problem(3, 20, 5, 7, 3, 3, 0, note=": padding 0, three images"),
        Problem(3, 33, 5, 7, 5, 5, 2, note=": 33 channels, the last channel tile holds 1"),
        Problem(3, 20, 1, 1, 3, 3, 1, note=": 1x1 images, every tap but the centre in the padding"),
        Problem(1, 33, 6, 5, 1, 1, 0, note=": a 1x1 filter"),
        Problem(3, 7, 5, 7, 5, 5, 0, note=": padding 0, so the filter is as tall as the image"),
        Problem(1, 20, 7, 6, 3, 5, 1, note=": a filter 3 rows tall and 5 wide"),
        Problem(3, 40, 6, 6, 3, 3, 1, (32, 8), note=": other tiles"),
        Problem(3, 20, 5, 7, 3, 3, 1, note=", no out given: launch_depthwise makes y", give_out=False),
        _random_problem(trial.rng),
    ]
    gen = ts.generator(trial)
    for p in problems:
        with trial.case(p.label()):
            _run(module, gen, p)


# -- part 3: the kernel divides with the magic numbers -------------------------------------------------------------


def _nudged(x64, w64, p: Problem, nudge: str) -> torch.Tensor:
    """y as the kernel computes it when OW_MAGIC (or OH_MAGIC) is one too small: rows = (pixel * magic) >> shift,
    image = (rows * magic) >> shift, oh = rows - image * OH, ow = pixel - rows * OW, every tap masked to x's
    image, and the store at image * stride_yn + oh * stride_yh + ow * stride_yw of a contiguous channels-last y."""
    ow_magic, ow_shift = ref.division_magic(p.ow)
    oh_magic, oh_shift = ref.division_magic(p.oh)
    ow_magic -= nudge == "OW"
    oh_magic -= nudge == "OH"
    y = torch.full((p.pixels, p.c), float("nan"), dtype=torch.float64)
    for pixel in range(p.pixels):
        rows = (pixel * ow_magic) >> ow_shift
        image = (rows * oh_magic) >> oh_shift
        oh, ow = rows - image * p.oh, pixel - rows * p.ow
        total = torch.zeros(p.c, dtype=torch.float64)
        for r in range(p.kh):
            for s in range(p.kw):
                ih, iw = oh - p.padding + r, ow - p.padding + s
                if 0 <= ih < p.h and 0 <= iw < p.w:
                    total += x64[image, :, ih, iw] * w64[:, 0, r, s]
        y[(image * p.oh + oh) * p.ow + ow] = total
    return y.view(p.n, p.oh, p.ow, p.c).permute(0, 3, 1, 2)


def _launch_into_contiguous(module, p: Problem, gen, nudge: str | None):
    """One call of launch_depthwise, y a contiguous channels-last tensor with spare NaN images after it."""
    _, x, weight = _inputs(gen, p)
    storage = torch.full((p.n + p.spare, p.oh, p.ow, p.c), float("nan"), dtype=torch.float32, device=ts.device())
    out = storage[:p.n].permute(0, 3, 1, 2)
    spy = DepthwiseSpy(module.depthwise_kernel, p, x, weight, out, nudge=nudge)
    with ts.standing_in(module, "depthwise_kernel", spy):
        ts.call_kernel(module.launch_depthwise, x, weight, p.padding, out=out, block_m=p.blocks[0],
                       block_c=p.blocks[1])
    ts.the_launch(spy, "launch_depthwise", "depthwise_kernel")
    return out.detach().cpu(), x.detach().cpu().double(), weight.detach().cpu().double()


def check_divides_by_multiplication(module, trial) -> None:
    p = Problem(2, 20, 5, 7, 3, 3, 1)  # OW = 7 and OH = 5: no power of two, where magic - 1 would still divide
    gen = ts.generator(trial)
    with trial.case(f"{p.label()}, y contiguous, the right magic numbers (the next cases change them)"):
        got, x64, w64 = _launch_into_contiguous(module, p, gen, None)
        diff = ts.first_difference(got, reference(x64, w64, p.padding), RTOL, ATOL)
        if diff:
            ts.fail_at("y", *diff, "y is wrong even with the right magic numbers: make part launch_depthwise pass "
                                   "first")
    for nudge, size, starts, how in (
            ("OW", p.ow, "starts an output row", "rows = (pixels * OW_MAGIC) >> OW_SHIFT, ow = pixels - rows * OW"),
            ("OH", p.oh, "starts an image", "image = (rows * OH_MAGIC) >> OH_SHIFT, oh = rows - image * OH")):
        label = (f"{p.label()}, with {nudge}_MAGIC one too small: (n * magic) >> shift comes out one less at each "
                 f"multiple of {nudge} = {size} but 0, so y must change at every pixel that {starts}")
        with trial.case(label):
            got, x64, w64 = _launch_into_contiguous(module, p, gen, nudge)
            want = _nudged(x64, w64, p, nudge)
            if _matches(got, want):
                continue
            if _matches(got, reference(x64, w64, p.padding)):
                raise CheckFailure(
                    f"y did not change: the kernel never used {nudge}_MAGIC. It still divides by {nudge} itself (// "
                    f"or %), a division by a value known only at run time, about twenty instructions each. Find "
                    f"{how}: a 64-bit multiply and a shift")
            index, got_value, want_value = ts.first_difference(got, want, RTOL, ATOL)
            rest = "oh = rows - image * OH" if nudge == "OH" else "ow = pixels - rows * OW"
            ts.fail_at("y", index, got_value, want_value,
                       f"y changed, but not as {how} make it change: is there still a // or % by {nudge}? {rest} "
                       "is one multiply and one subtraction")


PARTS = [
    Part("division_magic", check_division_magic),
    Part("launch_depthwise", check_launch_depthwise, needs=("division_magic", "depthwise_kernel", "launch_depthwise")),
    Part("divides_by_multiplication", check_divides_by_multiplication,
         needs=("division_magic", "depthwise_kernel", "launch_depthwise"),
         todo="divides_by_multiplication: given a magic number one too small, y must change where a row or an "
              "image starts: the kernel finds oh and ow with OW_MAGIC and OH_MAGIC, not // or % (after "
              "launch_depthwise passes)"),
]
