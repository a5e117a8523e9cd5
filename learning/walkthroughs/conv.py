"""explain conv: a convolution as one matrix product (implicit GEMM), its index mapping, and the folded batch norm."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

from .script import Script

ROOT = Path(__file__).resolve().parents[2]

# The tiny example: 1 image, 2 input channels, 4x4 pixels, a 3x3 filter to 3 output channels, padding 1, stride 1.
TINY = dict(batch=1, c_in=2, h=4, w=4, c_out=3, kh=3, kw=3)
# ResNet-50's first 3x3 layer at batch 32 (kernel-bench's 32x64x56x56x64x3x1 case).
RESNET = dict(batch=32, c_in=64, h=56, w=56, c_out=64, kh=3, kw=3)
FP16_BYTES = 2

# One output channel's batch norm, and one accumulator value to push through the epilogue.
BN = dict(gamma=2.0, var=3.0, eps=1e-5, beta=0.5, mean=1.0, bias=0.25)
ACC = 1.0

# Split-K's example: ResNet-50's last 3x3 layer at batch 32 (kernel-bench's 32x512x7x7x512x3x1 case).
SPLIT_LAYER = dict(batch=32, c_in=512, h=7, w=7, c_out=512, kh=3, kw=3)
H200_SMS = 132
# kernel-bench --op conv2d_bn_silu on the H200 with fresh tuning at the layers that split, with the last slice's
# sum in halves (twenty-fifth session), per dtype; and the run before split-K.
SPLIT_RUNS = {dtype: f"results/h200-conv2d_bn_silu-{dtype}-split-halves-tuned.json"
              for dtype in ("float16", "bfloat16", "float32")}
BEFORE_RUNS = {dtype: f"results/h200-conv2d_bn_silu-{dtype}-session23.json" for dtype in ("float16", "float32")}
SPLIT_PROBE = "results/h200-conv-split-probe.log"  # the emulation: S times the batch over C_in / S channels
REGISTERS_PROBE = "results/h200-conv-split-registers-probe.log"  # the real split-K tiles, some with maxnreg 168
# RegNetX-1.6GF's grouped layer at 28x28: channels and groups (24 channels per group), and the probe that timed it.
REGNET = (168, 7)
HINTS_PROBE = "results/h200-conv-vector-hints-probe-2.log"
# kernel-bench --op conv2d_bn_silu on the H200, fp16, all ten layers from the shipped table (twenty-eighth session,
# flat K steps shipped), the run before flat K steps (twenty-fifth session), and the run after flat K steps divided
# by multiplication (its tap steps' machine code was not kept: `output_windows`).
FLAT_RUN = "results/h200-conv2d_bn_silu-float16-session28.json"
TAP_STEPS_RUN = "results/h200-conv2d_bn_silu-float16-session25.json"
FLAT_FINAL_RUN = "results/h200-conv2d_bn_silu-float16-session28-final.json"
# The layers flat K steps were made for, as kernel-bench names them: the 3-channel stem and 33 ragged channels.
FEW_CHANNEL_LAYERS = ((8, 3, 640, 640, 32, 3, 2), (7, 33, 31, 29, 65, 3, 1))
# fp32 before and after tap tiles could divide by multiplication too (twenty-eighth and twenty-ninth sessions'
# runs from the shipped table), at the 1x1 expansion and the stride-2 layer, where it gained the most.
MUL_RUNS = {"before": "results/h200-conv2d_bn_silu-float32-session28.json",
            "after": "results/h200-conv2d_bn_silu-float32-session29-final.json"}
MUL_LAYERS = ((32, 64, 56, 56, 256, 1, 1), (8, 128, 80, 80, 256, 3, 2))
# The dense run of record, fp16, from the shipped table (twenty-ninth session).
DENSE_RUN = "results/h200-conv2d_bn_silu-float16-session29-split-mul.json"
# The direct kernel, kernel-bench's shapes (batch, C_in, H, W, C_out, kernel, stride, groups): MobileNetV2's
# depthwise layer of 144 channels, and a depthwise layer with a channel multiplier of 2 (C_out = 2 * C_in).
DEPTHWISE_LAYER = (32, 144, 56, 56, 144, 3, 1, 144)
MULTIPLIER_LAYER = (32, 64, 56, 56, 128, 3, 1, 64)
# Nsight Compute on the direct kernel before the filter rows: the 144-channel layer, a 16x64 tile on 2 warps.
DIRECT_NCU = "results/h200-ncu-direct-16-64-2-1.log"
# The direct-kernel probe at main (the tap loop) and with filter rows and division by multiplication.
ROWS_PROBES = {"before": "results/h200-conv-direct-rows-probe-t0.log",
               "after": "results/h200-conv-direct-rows-probe-t2.log"}
# kernel-bench --op conv2d_bn_silu-grouped on the H200, fp16: before the channel multiplier, and the run of record.
GROUPED_RUNS = {"before": "results/h200-conv2d_bn_silu-grouped-float16-direct-hints.json",
                "after": "results/h200-conv2d_bn_silu-grouped-float16-session26.json"}
# Counted in the direct kernel's sm_90 SASS (16x64 tile, 2 warps), not computed here: machine instructions per
# multiply-add in its loop, with the tap loop and with the filter rows (commit 17eb288).
SASS_PER_FMA = {"taps": 6.81, "rows": 4.79}
# The tile Nsight Compute profiled, as the probes label it.
PROFILED_TILE = "16x64x16-g1-w2-s1"
# Nsight Compute after the filter rows: the 144-channel layer on 256x16 tiles of 4 warps, that probe's best.
DIRECT_NCU_ROWS = "results/h200-ncu-direct-rows-256-16-4.log"
# Then a filter stored taps first (fewer instructions), and ptxas's register caps (more programs per SM).
TAPS_FIRST_PROBE = "results/h200-conv-direct-weights-probe.log"
CAPS_PROBE = "results/h200-conv-direct-registers-probe-replays.log"
# Counted in the sm_90 SASS of the 128x16 tile on 2 warps at 144 channels, not computed here: instructions per
# multiply-add in the loop with torch's filter layout and with the filter stored taps first.
TAPS_FIRST_PER_FMA = {"torch": 4.83, "taps first": 3.73}
# A pixel to push through the kernel's division by multiplication.
TRACED_PIXEL = 123_456


def geometry(sizes: dict, stride: int = 1, pad: int = 1, dil: int = 1):
    """The library's own description of a call: tilelab.ops.conv.ConvGeometry (.oh, .ow, .gemm())."""
    from tilelab.ops.conv import ConvGeometry

    return ConvGeometry(**sizes, stride=(stride, stride), padding=(pad, pad), dilation=(dil, dil))


def block_k(g) -> int:
    """The K step of the library's first fp16 candidate tile for this layer (tilelab.ops.conv.candidates)."""
    from tilelab.ops.conv import candidates

    return candidates(g, FP16_BYTES)[0].block_k


def pixel(m: int, g) -> tuple[int, int, int]:
    """Row m of A -> (image, oh, ow), as the kernel computes it."""
    return m // (g.oh * g.ow), (m // g.ow) % g.oh, m % g.ow


def tap_and_channel(k: int, g) -> tuple[int, int, int]:
    """Column k of A -> (r, s, c) in the kernel's order: taps (r, s) outermost, input channels innermost."""
    tap, c = divmod(k, g.c_in)
    r, s = divmod(tap, g.kw)
    return r, s, c


def unfold_column(r: int, s: int, c: int, g) -> int:
    """Where torch.nn.functional.unfold puts tap (r, s) of channel c: channel outermost, (c, r, s)."""
    return (c * g.kh + r) * g.kw + s


def k_step(k: int, g, bk: int) -> tuple[int, int]:
    """(K step, lane) of column k in the kernel's loop: runs of bk channels that never cross a tap."""
    tap, c = divmod(k, g.c_in)
    return tap * math.ceil(g.c_in / bk) + c // bk, c % bk


def source(m: int, k: int, g) -> tuple[tuple[int, int, int, int], bool]:
    """The x[n, c, ih, iw] that A[m, k] reads, and whether it is inside the image (outside: masked, 0)."""
    n, oh, ow = pixel(m, g)
    r, s, c = tap_and_channel(k, g)
    ih = oh * g.stride[0] - g.padding[0] + r * g.dilation[0]
    iw = ow * g.stride[1] - g.padding[1] + s * g.dilation[1]
    return (n, c, ih, iw), 0 <= ih < g.h and 0 <= iw < g.w


def im2col_check(g, seed: int = 0) -> dict:
    """Float64 on the CPU: the explicit im2col (unfold) product, and A gathered through source(), against conv2d."""
    import torch
    import torch.nn.functional as F

    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(g.batch, g.c_in, g.h, g.w, generator=generator, dtype=torch.float64)
    w = torch.randn(g.c_out, g.c_in, g.kh, g.kw, generator=generator, dtype=torch.float64)
    conv = F.conv2d(x, w, stride=g.stride, padding=g.padding, dilation=g.dilation)
    reference = conv.permute(0, 2, 3, 1).reshape(-1, g.c_out)  # C[m, n]: pixel m, output channel n

    cols = F.unfold(x, (g.kh, g.kw), dilation=g.dilation, padding=g.padding, stride=g.stride)  # [batch, K, OH*OW]
    im2col = cols.transpose(1, 2).reshape(-1, cols.shape[1])  # [M, K], K in (c, r, s) order
    explicit = im2col @ w.reshape(g.c_out, -1).T

    m_size, _, k_size = g.gemm()
    a = torch.zeros(m_size, k_size, dtype=torch.float64)
    padding = 0
    for m in range(m_size):
        for k in range(k_size):
            (n, c, ih, iw), inside = source(m, k, g)
            if inside:
                a[m, k] = x[n, c, ih, iw]
            padding += not inside
    b = w.permute(2, 3, 1, 0).reshape(k_size, g.c_out)  # B[k, n] = w[n, c, r, s], k in the kernel's (r, s, c)
    order = [unfold_column(*tap_and_channel(k, g), g) for k in range(k_size)]
    return {"explicit": (explicit - reference).abs().max().item(),
            "implicit": (a @ b - reference).abs().max().item(),
            "same_columns": torch.equal(a, im2col[:, order]), "padding": padding}


def fold(gamma: float, var: float, eps: float, beta: float, mean: float, bias: float) -> tuple[float, float]:
    """batch_norm(acc + bias) = acc * scale + shift, per output channel."""
    scale = gamma / math.sqrt(var + eps)
    return scale, beta + (bias - mean) * scale


def silu(z: float) -> float:
    return z / (1.0 + math.exp(-z))


def torch_epilogue(acc: float, gamma, var, eps, beta, mean, bias) -> float:
    """torch's three ops on one value: bias add, batch_norm(training=False), silu."""
    import torch
    import torch.nn.functional as F

    one = lambda v: torch.tensor([v], dtype=torch.float64)  # noqa: E731
    y = F.batch_norm(torch.tensor([[acc + bias]], dtype=torch.float64), one(mean), one(var), one(gamma), one(beta),
                     training=False, eps=eps)
    return F.silu(y).item()


def bench_cases(path: str) -> dict[tuple, dict]:
    """A kernel-bench JSON's cases by shape, each {"us": {variant: median us}, "speedup": tilelab's against torch,
    "config": tilelab's tuned config as a dict}."""
    found = {}
    for case in json.loads((ROOT / path).read_text())["cases"]:
        by = {v["name"]: v for v in case["variants"]}
        found[tuple(case["shape"])] = {"us": {name: v["timing"]["median_ms"] * 1e3 for name, v in by.items()},
                                       "speedup": by["tilelab"]["speedup_vs_torch"],
                                       "config": by["tilelab"]["plan"]["config"]}
    return found


def name(shape) -> str:
    """A kernel-bench case's shape as the reports write it: 32x512x7x7x512x3x1."""
    return "x".join(map(str, shape))


def probe_section(path: str, heading: str) -> str:
    """A probe log's section: what follows "== <heading>" up to the next "==" line. The heading is a whole line
    ("== 32x144x56x56x144x3x1x144") or its start before a space ("== 32x144x56x56x144x3x1x144 (28.9 MB ...)")."""
    text = (ROOT / path).read_text()
    return re.split(rf"== {re.escape(heading)}(?=[ \n])", text, maxsplit=1)[1].split("\n==", 1)[0]


def probe_us(path: str, section: str, pattern: str) -> float:
    """The first time that `pattern` (a regular expression with one group) finds in a probe log's section
    ("== <section>" up to the next "==")."""
    return float(re.search(pattern, probe_section(path, section)).group(1))


def bench_geometry(shape: tuple):
    """A kernel-bench grouped shape as the library's ConvGeometry (tilelab.bench.op_conv.geometry: padded
    kernel // 2, as kernel-bench pads)."""
    from tilelab.bench.op_conv import geometry

    return geometry(shape)


def ncu_metric(path: str, metric: str) -> float:
    """A metric from an Nsight Compute log, whatever its unit ("    DRAM Throughput     %     19.14",
    "    Registers Per Thread     register/thread     151")."""
    text = (ROOT / path).read_text()
    return float(re.search(rf"(?m)^ +{re.escape(metric)} +\S+ +([\d.]+)$", text).group(1))


def probe_tiles(path: str, layer: str) -> dict[str, float]:
    """A direct-kernel probe's times in the section of `layer` ("== 32x144x56x56x144x3x1x144 (...)"): {label: us},
    torch's under "torch". Labels may hold spaces ("taps-first 16x64x16-g1-w2-s1", "... maxnreg 128")."""
    body = probe_section(path, layer)
    return {label: float(us) for label, us in re.findall(r"(?m)^ +(\S.*?) +([\d.]+) us", body)}


def programs_per_sm(registers: int, warps: int) -> int:
    """How many programs of `warps` warps one H200 SM holds at once with `registers` per thread and no shared
    memory: tilelab.inspect.census.programs_per_sm, which kernel-inspect reports for any kernel."""
    from tilelab.inspect.census import programs_per_sm as held

    return held(90, registers, warps)["programs"]


def by_multiplication(n: int, divisor: int) -> int:
    """n // divisor as the direct kernel's divide_by_constant computes it: one multiply and a shift."""
    from tilelab.ops.conv import division_magic

    magic, shift = division_magic(divisor)
    return (n * magic) >> shift


def pixel_by_multiplication(m: int, oh_size: int, ow_size: int) -> tuple[int, int, int]:
    """Output pixel m -> (image, oh, ow) as the direct kernel finds them: two divisions by multiplication."""
    rows = by_multiplication(m, ow_size)  # m // OW
    image = by_multiplication(rows, oh_size)  # rows // OH
    return image, rows - image * oh_size, m - rows * ow_size


def flat_section(s: Script, g, k: int, bk: int) -> None:
    """Flat K steps: K as one range, a step free to cross taps (`ConvConfig.flat_k`), and what they measured."""
    from tilelab.ops.conv import flat_k_fits

    s.say("With few channels most lanes load padding. Flat K steps (ConvConfig.flat_k) run K as one range instead:")
    s.say("lane k finds its own tap and channel (tap = k // C_in as above), so one step may cross taps and filter")
    s.say("rows; the padding test is then made per element, not per pixel (flat_k_blocks in kernels/conv.py).")
    steps = math.ceil(k / bk)
    s.ask(f"flat K steps of {bk} for K={k}, and lanes masked in all", f"{steps}, {steps * bk - k}")
    s.ask("the tuner times flat tiles here (tilelab.ops.conv.flat_k_fits: a tap's channels fill under 80% of a "
          "step)", flat_k_fits(g))
    runs = [bench_cases(path) for path in (TAP_STEPS_RUN, FLAT_RUN, FLAT_FINAL_RUN)]
    s.say(f"On the H200, fp16, tilelab's time per call with tap steps ({TAP_STEPS_RUN}), with the flat ones the")
    s.say(f"tuner chose ({FLAT_RUN}), and with their divisions by C_in, OW and OH done by multiplication")
    s.say(f"(divide_by_constant: about twenty instructions fewer per value a thread holds; {FLAT_FINAL_RUN}):")
    for shape in FEW_CHANNEL_LAYERS:
        tap, flat, final = (run[shape]["us"]["tilelab"] for run in runs)
        s.say(f"  {name(shape)}: {tap:.1f} -> {flat:.1f} -> {final:.1f} us ({tap / final:.2f}x in all)")
    s.say("Tap steps divide each pixel by OW and OH once per program, before the K loop. By multiplication")
    s.say("(ConvConfig.windows_by_multiplication, labels ending -mul) their code is shorter, but with the same tiles")
    s.say("it measured 4-23% faster on five layers and 10-25% slower on two, so the tuner times every tap tile both")
    s.say("ways (tilelab.ops.conv.candidates) and each layer keeps its faster. fp32 on the H200, from the shipped")
    before, after = (bench_cases(MUL_RUNS[when]) for when in ("before", "after"))
    s.say(f"table before and after ({MUL_RUNS['before']}, {MUL_RUNS['after']}):")
    for shape in MUL_LAYERS:
        chosen = after[shape]["config"]
        s.say(f"  {name(shape)}: {before[shape]['us']['tilelab']:.1f} -> {after[shape]['us']['tilelab']:.1f} us, "
              f"windows_by_multiplication={chosen.get('windows_by_multiplication', False)}")
    s.say("")


def build() -> Script:
    from tilelab.ops.conv import SEED

    g = geometry(TINY)
    s = Script("conv: a convolution as one matrix product (implicit GEMM), traced")
    s.say("y[n, o, oh, ow] = sum over c, r, s of  w[o, c, r, s] * x[n, c, ih, iw]")
    s.say("    with ih = oh*stride - pad + r*dil, iw = ow*stride - pad + s*dil (x is 0 outside the image)")
    s.say("x: 1 image, 2 channels, 4x4 pixels; w: 3 filters of 2 x 3x3; padding 1, stride 1 (ConvGeometry).")
    s.ask("output size OH x OW: (H + 2*pad - dil*(KH - 1) - 1) // stride + 1", f"{g.oh} x {g.ow}")
    m, n, k = g.gemm()
    s.ask("the GEMM's M: one row per output pixel, batch*OH*OW", m)
    s.ask("... N: one column per output channel", n)
    s.ask("... K: one term per tap and input channel, KH*KW*C_in", k)
    s.say(f"Row m of A holds the {k} input values under pixel m's filter window; column n of B is filter n.")
    s.say("Copying the windows out (im2col) makes A real: every input value lands in up to KH*KW rows.")
    big = geometry(RESNET)
    bm, bn, bk = big.gemm()
    a_bytes, x_bytes = bm * bk * FP16_BYTES, big.batch * big.c_in * big.h * big.w * FP16_BYTES
    s.ask("ResNet-50's 32x64x56x56 input, 3x3 to 64 channels, pad 1: M, N, K", f"{bm}, {bn}, {bk}")
    s.ask("bytes of its explicit fp16 im2col A (M*K*2)", f"{a_bytes:,} ({a_bytes / 2**20:.2f} MiB)")
    s.ask("... and of x itself", f"{x_bytes:,} ({x_bytes / 2**20:.2f} MiB): A is {a_bytes / x_bytes:g}x larger")
    s.say("Implicit: that matrix is never written. Each K step loads its block of A straight from x, by address.\n")

    s.say("Which input value is A[m, k]? The kernel's own index arithmetic, in Python:")
    s.ask("row m = 5: image, oh, ow = m // (OH*OW), m // OW % OH, m % OW", pixel(5, g))
    s.say("The kernel walks K taps outermost, channels innermost: tap = k // C_in, (r, s) = divmod(tap, KW),")
    s.say("c = k % C_in. Channels come in runs of BLOCK_K that never cross a tap: one input pixel per row and step.")
    r, s_, c = tap_and_channel(7, g)
    s.ask("column k = 7: r, s, c", (r, s_, c))
    tiny_bk = block_k(g)
    steps = k_step(k - 1, g, tiny_bk)[0] + 1
    live = min(g.c_in, tiny_bk)
    s.ask(f"K steps with BLOCK_K={tiny_bk} (the library's K step for C_in={g.c_in})", steps)
    s.ask("lanes of each step that hold a channel", f"{live} of {tiny_bk}: {tiny_bk - live} masked, loading 0")
    big_bk = block_k(big)
    s.ask(f"the ResNet layer, C_in={big.c_in}, BLOCK_K={big_bk}: K steps, masked lanes",
          f"{k_step(bk - 1, big, big_bk)[0] + 1}, {big_bk - min(big.c_in, big_bk)}")
    flat_section(s, g, k, tiny_bk)
    (xn, xc, ih, iw), inside = source(5, 7, g)
    s.ask("A[5, 7] reads x[n, c, ih, iw], ih = oh*stride - pad + r*dil, iw likewise",
          f"x[{xn}, {xc}, {ih}, {iw}]" + ("" if inside else ": padding"))
    (xn, xc, ih, iw), inside = source(0, 0, g)
    s.ask("A[0, 0]: pixel (0, 0, 0), tap (0, 0), channel 0",
          f"x[{xn}, {xc}, {ih}, {iw}]: " + ("inside" if inside else "in the padding, masked: reads 0"))
    check = im2col_check(g)
    s.ask(f"entries of the {m} x {k} A that fall in the padding", check["padding"])
    s.say("\nChecked with torch, float64 on the CPU: torch.nn.functional.unfold builds the explicit im2col A, but")
    s.say("orders K as (c, r, s), channel outermost; the kernel's order is (r, s, c). Same columns, permuted:")
    s.ask("unfold's column for the kernel's k = 7: c*KH*KW + r*KW + s", unfold_column(r, s_, c, g))
    s.ask("A gathered through the index arithmetic equals unfold's columns in that order", check["same_columns"])
    s.say(f"checked: max |im2col @ W - conv2d| = {check['explicit']:.1e}, "
          f"max |A @ B - conv2d| (kernel order) = {check['implicit']:.1e}\n")

    s.say("The epilogue: on the float32 accumulator, before the one store of y.")
    s.say("batch_norm(acc + bias) = gamma * (acc + bias - mean) / sqrt(var + eps) + beta = acc * scale + shift")
    s.say("One output channel: " + ", ".join(f"{name}={value:g}" for name, value in BN.items()))
    scale, shift = fold(**BN)
    z = ACC * scale + shift
    s.ask("scale = gamma / sqrt(var + eps)", f"{scale:.6f}")
    s.ask("shift = beta + (bias - mean) * scale", f"{shift:.6f}")
    s.ask(f"acc = {ACC}: z = acc * scale + shift", f"{z:.6f}")
    s.ask("SiLU: z * sigmoid(z)", f"{silu(z):.6f}")
    s.say(f"checked: torch's bias add, batch_norm(training=False) and silu differ by "
          f"{abs(torch_epilogue(ACC, **BN) - silu(z)):.1e}")
    s.say("Training-mode batch norm cannot fold this way: its mean and variance are those of the very output being")
    s.say("computed, unknown until every pixel of it exists; inference uses running statistics, known beforehand.\n")

    s.say("The code: conv2d_bn_silu_kernel in src/tilelab/kernels/conv.py, one program per BLOCK_M x BLOCK_N tile")
    s.say("(pixels x output channels), launched by tilelab.conv2d_bn_silu; measure: kernel-bench --op conv2d_bn_silu.")
    run, before = bench_cases(DENSE_RUN), bench_cases(BEFORE_RUNS["float16"])
    # cuDNN's time on one layer jumps between processes (its choice of algorithm): a layer where torch took over
    # twice its time in the run before is torch's bad run, not our gain, and is left out by name.
    odd = [shape for shape, case in run.items() if case["us"]["torch"] > 2 * before[shape]["us"]["torch"]]
    rest = {shape: case["speedup"] for shape, case in run.items() if shape not in odd}
    slow, fast = min(rest, key=rest.get), max(rest, key=rest.get)
    s.say(f"On the H200, fp16 ({DENSE_RUN}), against torch's three ops:")
    s.say(f"{rest[slow]:.2f}x ({name(slow)}) to {rest[fast]:.2f}x ({name(fast)}) on {len(rest)} CNN layers, geometric "
          f"mean {math.prod(rest.values()) ** (1 / len(rest)):.2f}x.")
    for shape in odd:
        s.say(f"Left out: {name(shape)}'s {run[shape]['speedup']:.2f}x, torch's bad run: torch took "
              f"{run[shape]['us']['torch']:.0f} us there, {before[shape]['us']['torch']:.0f} in the run before")
        s.say(f"({BEFORE_RUNS['float16']}).")
    s.ask("float32 x and w, no precision given: what does tl.dot use?", "tf32, on tensor cores ('ieee' opts out)")
    s.say(f"The seed chapter's trap: its fused convolution (config='seed' keeps its {SEED.block_m}x{SEED.block_n}x"
          f"{SEED.block_k} tile) asked tl.dot")
    s.say("for IEEE float32 products, which tensor cores do not compute, and so ran without tensor cores; tilelab's")
    s.say("default is tf32.")
    groups_section(s)
    split_k_section(s)
    return s


def groups_section(s: Script) -> None:
    """Grouped convolutions: which kernel, and how small groups share a tile (the library's own rule)."""
    from tilelab.ops.conv import DOT_MIN_K, PACKED_K, ConvGeometry, groups_per_tile, kernel_path

    def layer(c, groups):  # batch 32, 56x56, 3x3, pad 1: c channels in and out
        return ConvGeometry(32, c, 56, 56, c, 3, 3, (1, 1), (1, 1), (1, 1), groups)

    s.say("\nGroups (torch's groups=G): output channel c sees only the C_in/G input channels of its own group,")
    s.say("c // (C_out/G). Each group is its own implicit GEMM, with K = KH*KW*C_in/G.")
    resnext = layer(128, 32)
    s.ask("ResNeXt's 128 channels in 32 groups: input channels per group, and one group's K",
          f"{resnext.c_in_per_group}, {9 * resnext.c_in_per_group}")
    s.ask(f"tl.dot needs K >= 16 per step: of a {DOT_MIN_K}-wide step, how many lanes hold a channel",
          f"{resnext.c_in_per_group} of {DOT_MIN_K}")
    s.say("One group per program made programs of a few short steps that could not hide their loads: 3-10x")
    s.say("torch's time on the H200 (results/h200-grouped-conv-probe.log). Instead several groups share a tile:")
    bundle = groups_per_tile(resnext)
    s.ask(f"groups_per_tile: groups in a bundle of at most PACKED_K={PACKED_K} input channels", bundle)
    s.ask("the bundle's weight block, [input channels, output channels]: nonzero fraction",
          f"1/{bundle}: block-diagonal, channel c feeds only its own group's outputs")
    s.say("The zeros cost tensor-core work, which such a layer has plenty of; the bundle's loads are one tile.")
    s.ask("depthwise (G = C_in = 64): which kernel", f"{kernel_path(layer(64, 64))}: float32 FMAs, no tl.dot")
    s.say("Read: groups_per_tile and uses_direct_kernel in src/tilelab/ops/conv.py, BLOCK_DIAGONAL in")
    s.say("conv2d_bn_silu_kernel; measure: kernel-bench --op conv2d_bn_silu-grouped (docs/PERFORMANCE.md).")
    hints_section(s)
    direct_section(s)


def hints_section(s: Script) -> None:
    """What the compiler knows of an integer argument, and what telling it more bought (the library's rule)."""
    import torch

    from tilelab.ops.conv import ConvGeometry, output_hint, vector_hints

    channels, groups = REGNET
    g = ConvGeometry(32, channels, 28, 28, channels, 3, 3, (1, 1), (1, 1), (1, 1), groups)
    x = torch.empty(32, channels, 28, 28, device="meta").to(memory_format=torch.channels_last)
    w = torch.empty(channels, g.c_in_per_group, 3, 3, device="meta").to(memory_format=torch.channels_last)
    s.say(f"\nVector hints: RegNetX-1.6GF's {channels} channels in {groups} groups.")
    s.ask("input channels per group, and their bytes in fp16", f"{g.c_in_per_group}, {2 * g.c_in_per_group}")
    s.ask("is each group's run of channels 16-byte aligned (x channels-last, fp16)?",
          f"yes: group * {2 * g.c_in_per_group} bytes from an aligned row")
    s.ask(f"what Triton's specialization knows of C_IN = {g.c_in_per_group}",
          f"nothing: it marks integers that are multiples of 16 ({g.c_in_per_group} % 16 = {g.c_in_per_group % 16})")
    s.say("Without it the masks (c < C_IN) and the group's offset (group * C_IN) could be anything to the compiler,")
    s.say("so x loaded one element at a time, outside the cp.async pipeline.")
    s.ask("vector_hints(x, w, geometry): (X_ALIGN, W_ALIGN)", vector_hints(x, w, g))
    s.say("The kernel rounds C_IN and the pixel strides down to that multiple (known_multiple): the same values,")
    s.say("and now the compiler knows; x arrives in 16-byte copies.")
    y = x  # the output keeps x's layout, and here its channel count
    s.ask("output_hint(y, geometry): Y_ALIGN, the same for C_OUT and y's strides", output_hint(y, g))
    s.say("Unhinted, each group's 24 output channels were stored one element at a time, and the compiler gave the")
    s.say("whole tile's index arithmetic that store's layout: far more registers, even spills (kernel-inspect shows")
    s.say("them).")
    layer = f"32x{channels}x28x28x{channels}x3x1x{groups}"
    section = (f"{layer} ({g.c_in_per_group} input channels per group, bundle 1, hints {vector_hints(x, w, g)}, "
               f"output {output_hint(y, g)})")
    times = [probe_us(HINTS_PROBE, section, rf"(?m)^ +{variant} +([\d.]+) us")
             for variant in ("unhinted", "x and w hinted", "hinted")]
    s.ask("on the H200, fp16, best tile: unhinted, x and w hinted, all hinted",
          ", ".join(f"{us} us" for us in times) + f" ({HINTS_PROBE})")
    s.say("See it: kernel-inspect --op conv2d_bn_silu --channels 24 --target sm_90, against --channels 33.")


def direct_section(s: Script) -> None:
    """The direct kernel for depthwise layers: bound by instructions, not bytes, and what cut the instructions."""
    g = bench_geometry(DEPTHWISE_LAYER)
    direct_is_issue_bound(s, g)
    direct_fewer_instructions(s, g)
    direct_channel_multiplier(s)
    direct_measured(s)
    direct_register_caps(s)
    s.say("Read: conv2d_bn_silu_direct_kernel and divide_by_constant in src/tilelab/kernels/conv.py; division_magic,")
    s.say("direct_multiplier, direct_hint, register_cap and DIRECT_CANDIDATES in src/tilelab/ops/conv.py;")
    s.say("measure: kernel-bench --op conv2d_bn_silu-grouped (docs/PERFORMANCE.md).")


def direct_is_issue_bound(s: Script, g) -> None:
    """Little arithmetic per byte, yet Nsight Compute found the SMs busy and memory idle."""
    outputs = g.batch * g.c_out * g.oh * g.ow
    per_output = g.kh * g.kw * g.c_in_per_group
    moved = (g.batch * g.c_in * g.h * g.w + outputs) * FP16_BYTES  # x read once, y written once
    s.say(f"\nThe direct kernel: MobileNetV2's depthwise layer, {name(DEPTHWISE_LAYER)} (batch 32, {g.c_in} channels,")
    s.say(f"{g.h}x{g.w}, 3x3, one channel per group), fp16. Each output value is one channel's filter window.")
    s.ask("multiply-adds per output value: KH*KW*C_in/G", per_output)
    s.ask("bytes that must move, x read once and y written once", f"{moved / 1e6:.1f} MB")
    s.ask("multiply-adds per byte moved", f"{per_output * outputs / moved:g}: little arithmetic per byte")
    s.say(f"Each input value lies in up to {g.kh * g.kw} windows, read again from cache. So one expects memory to set "
          "the time.")
    sm, dram = ncu_metric(DIRECT_NCU, "Compute (SM) Throughput"), ncu_metric(DIRECT_NCU, "DRAM Throughput")
    s.say("Nsight Compute on the kernel before the changes below, a 16x64 tile on 2 warps")
    s.say(f"({DIRECT_NCU}):")
    s.ask("Compute (SM) Throughput and DRAM Throughput, % of peak", f"{sm}% and {dram}%")
    s.say("The SMs were busy issuing instructions; memory was mostly idle. The kernel's sm_90 SASS had about")
    s.say(f"{SASS_PER_FMA['taps']:.1f} machine instructions per multiply-add in its loop: index arithmetic, bounds "
          "tests, masks.")
    s.say("The fix is fewer instructions, not fewer bytes.")


def direct_fewer_instructions(s: Script, g) -> None:
    """The filter's rows in a loop, and each pixel's image, row and column by multiplication, traced."""
    from tilelab.ops.conv import division_magic

    s.say("Part one: the filter's rows in a loop, each row's taps unrolled (tl.static_range). A row's bounds test")
    s.say("(0 <= ih < H) and its offset in x are computed once for its KW taps, and the row's loads go out together.")
    s.ask("bounds comparisons per pixel in the source: 4 per tap before; 2 per row and 2 per tap now",
          f"{4 * g.kh * g.kw} before, {2 * g.kh + 2 * g.kh * g.kw} now")
    s.say(f"In the SASS (16x64 tile, 2 warps): {SASS_PER_FMA['taps']:.1f} -> {SASS_PER_FMA['rows']:.1f} instructions "
          "per multiply-add in the loop.")
    s.say("Part two: each output pixel's image, row and column (pixel // (OH*OW), pixel // OW % OH, pixel % OW)")
    s.say("were three 32-bit divisions by values known only at run time, about twenty instructions each.")
    s.say("division_magic(d), on the host, finds (magic, shift) with n // d == (n * magic) >> shift for every")
    s.say("0 <= n < 2**31 (Granlund and Montgomery); the kernel's divide_by_constant does one multiply and a shift.")
    magic, shift = division_magic(g.ow)
    s.ask(f"division_magic({g.ow}), OW of this layer: (magic, shift)", (magic, shift))
    s.ask(f"magic / 2**shift, against 1/{g.ow}",
          f"{magic / 2**shift:.12f} against {1 / g.ow:.12f}: 1/{g.ow}, rounded up")
    n = TRACED_PIXEL
    quotient = by_multiplication(n, g.ow)
    s.ask(f"({n} * magic) >> shift", f"{quotient}; {n} // {g.ow} = {n // g.ow}: "
          + ("they agree" if quotient == n // g.ow else "they DIFFER"))
    s.say("The kernel: rows = pixel // OW, image = rows // OH, both by multiplication; then oh = rows - image*OH and")
    s.say("ow = pixel - rows*OW, a multiply and a subtraction each.")
    traced, divided = pixel_by_multiplication(n, g.oh, g.ow), pixel(n, g)
    s.ask(f"pixel {n} at OH = OW = {g.ow}: image, oh, ow", traced)
    s.say(f"checked: with // and % (pixel() above) it is {divided}: " + ("the same" if traced == divided else "NOT"))


def direct_channel_multiplier(s: Script) -> None:
    """Depthwise with C_out = 2 * C_in: neighbouring output channels share an input, loaded once and repeated."""
    from tilelab.ops.conv import direct_multiplier

    m = bench_geometry(MULTIPLIER_LAYER)
    multiplier = direct_multiplier(m)
    s.say(f"\nA channel multiplier: {name(MULTIPLIER_LAYER)}, depthwise with C_out = {m.c_out} = "
          f"{m.c_out_per_group} * C_in.")
    s.ask("output channels 0 to 7 read input channels (c // (C_out/G))",
          [c // m.c_out_per_group for c in range(8)])
    s.say("Adjacent output channels read the same input. The general code gathered each output channel's input,")
    s.say("one element per load.")
    s.ask("direct_multiplier(geometry)", multiplier)
    s.say("With MULTIPLIER > 1 the kernel loads the tile's BLOCK_C / MULTIPLIER input channels as one contiguous")
    s.say("run and repeats each MULTIPLIER times (tl.broadcast_to, then tl.reshape).")
    s.ask("a 64-channel-wide tile: input channels one load covers", 64 // multiplier)


def direct_measured(s: Script) -> None:
    """Before and after on the H200, read from the probe logs and the kernel-bench runs of record."""
    s.say("\nMeasured on the H200, fp16, before -> after.")
    tiles = {when: probe_tiles(path, name(DEPTHWISE_LAYER)) for when, path in ROWS_PROBES.items()}
    best = {when: min(us for label, us in times.items() if label != "torch") for when, times in tiles.items()}
    s.say(f"Filter rows and division by multiplication, the direct probe's {name(DEPTHWISE_LAYER)}:")
    s.say(f"  best tile tried {best['before']} -> {best['after']} us; the profiled 16x64 on 2 warps "
          f"{tiles['before'][PROFILED_TILE]} -> {tiles['after'][PROFILED_TILE]} (torch {tiles['after']['torch']})")
    s.say(f"  ({ROWS_PROBES['before']}, then {ROWS_PROBES['after']})")
    before, after = (bench_cases(path)[MULTIPLIER_LAYER] for path in GROUPED_RUNS.values())
    s.say(f"The channel multiplier, kernel-bench's {name(MULTIPLIER_LAYER)}:")
    s.say(f"  {before['us']['tilelab']:.1f} -> {after['us']['tilelab']:.1f} us (torch {after['us']['torch']:.1f}: "
          f"cuDNN is slow on this layer, so the {after['speedup']:.0f}x ratio says more about torch than about us)")
    s.say(f"  ({GROUPED_RUNS['before']},")
    s.say(f"  then {GROUPED_RUNS['after']})")


def direct_register_caps(s: Script) -> None:
    """After the instructions, the latency: fewer instructions stopped paying, one more program per SM paid."""
    layer = name(DEPTHWISE_LAYER)
    registers = int(ncu_metric(DIRECT_NCU_ROWS, "Registers Per Thread"))
    idle = ncu_metric(DIRECT_NCU_ROWS, "No Eligible")
    s.say("\nPart three: after parts one and two, what bounds it? Nsight Compute on the 144-channel layer again, now")
    s.say(f"on 256x16 tiles of 4 warps, then the fastest ({DIRECT_NCU_ROWS}):")
    s.ask("registers per thread", registers)
    s.ask("programs of 4 warps one SM's 65536 registers hold (allocated 8 at a time)", programs_per_sm(registers, 4))
    s.say("(kernel-inspect prints this as 'programs per SM' for any kernel it compiles.)")
    s.ask("% of cycles in which no warp was ready to issue", f"{idle}%: warps waiting on their loads")
    order = probe_tiles(TAPS_FIRST_PROBE, layer)
    best = {way: min(us for label, us in order.items() if re.fullmatch(rf"{way} \d+x\d+\S*", label))
            for way in ("torch-order", "taps-first")}  # not "taps-first copy", the copy's own time
    s.say("Fewer instructions no longer help. Stored taps first (channels adjacent, as in x), a tap's weights load as")
    s.say(f"one run, and the loop compiles to {TAPS_FIRST_PER_FMA['taps first']} instructions per multiply-add instead "
          f"of {TAPS_FIRST_PER_FMA['torch']}")
    s.say(f"(128x16 tiles, sm_90). Best tile: {best['torch-order']} us on torch's filter, {best['taps-first']} on the "
          "filter taps first")
    s.say(f"({TAPS_FIRST_PROBE}).")
    s.say("More warps do: ptxas's maxnreg caps the registers (spilling what no longer fits), so one more program")
    s.say("fits. A config carries it (ConvConfig.maxnreg; register_cap turns it into the launch option), and the")
    s.say("tuner tries each direct tile with and without a cap.")
    s.ask("programs of 4 warps per SM at a cap of 128", programs_per_sm(128, 4))
    caps = probe_tiles(CAPS_PROBE, layer)
    uncapped = min(us for label, us in caps.items() if label.endswith("maxnreg -"))
    capped = min(us for label, us in caps.items() if "maxnreg" in label and not label.endswith("maxnreg -"))
    s.say(f"Best tile uncapped {uncapped} us, capped {capped} us (torch {caps['torch']}; {CAPS_PROBE}).")


def split_k_section(s: Script) -> None:
    """Split-K: too few tiles of a long K; the library's rule for when the tuner tries it, and what it bought."""
    from tilelab import tuning
    from tilelab.ops.conv import (
        SPLIT_K_FACTORS,
        SPLIT_K_MAX_WAVES,
        SPLIT_K_MIN_STEPS,
        SPLIT_K_TILES,
        ConvConfig,
        _workspace_shape,
        candidates,
        split_k_of,
        windows_by_multiplication_of,
    )

    g = geometry(SPLIT_LAYER)
    m, n, k = g.gemm()
    s.say("\nSplit-K: the last layers have few output pixels and a long K.")
    s.ask("ResNet-50's last 3x3 layer, 32x512x7x7 to 512 channels, pad 1: M, N, K", f"{m}, {n}, {k}")
    split = [c for c in candidates(g, FP16_BYTES, H200_SMS)
             if split_k_of(c) > 1 and not windows_by_multiplication_of(c)]  # each has a -mul twin besides
    tile = split[0]
    steps = k_step(k - 1, g, tile.block_k)[0] + 1
    tiles = tuning.tile_count(m, n, tile)
    s.ask(f"K steps of a {tile.block_m}x{tile.block_n}x{tile.block_k} fp16 tile: KH*KW*cdiv(C_in, BLOCK_K)", steps)
    s.ask(f"its tiles (tuning.tile_count) on the H200's {H200_SMS} SMs",
          f"{tiles}: {max(H200_SMS - tiles, 0)} SMs idle; each tile walks its {steps} steps alone")
    s.say("ConvConfig.split_k = S cuts each tile's K steps into S slices, one program each (neighbours on the grid):")
    s.say("S times the programs, each 1/S as long. candidates() adds each of SPLIT_K_TILES in SPLIT_K_FACTORS = "
          f"{SPLIT_K_FACTORS}")
    s.say(f"slices, where each slice keeps at least SPLIT_K_MIN_STEPS = {SPLIT_K_MIN_STEPS} K steps (a shorter one is "
          "mostly pipeline fill")
    s.say(f"and hand-in) and tiles x S stays within SPLIT_K_MAX_WAVES = {SPLIT_K_MAX_WAVES} waves of the SMs (beyond "
          "that the SMs are busy")
    s.say("anyway, and the partials only cost).")
    s.ask(f"split candidates candidates() adds here, fp16 ({len(SPLIT_K_TILES)} tiles x {len(SPLIT_K_FACTORS)})",
          len(split))
    labels = [c.label() for c in split]
    half = (len(labels) + 1) // 2
    s.say("  " + ", ".join(labels[:half]))
    s.say("  " + ", ".join(labels[half:]))
    s.say("(and each once more as its -mul twin, its pixels divided by multiplication, as every tap tile has)")
    early = geometry(RESNET)
    early_steps = k_step(early.gemm()[2] - 1, early, block_k(early))[0] + 1
    early_split = [c for c in candidates(early, FP16_BYTES, H200_SMS) if split_k_of(c) > 1]
    s.ask(f"the 32x64x56x56 layer above: K steps, split candidates (2 slices need {2 * SPLIT_K_MIN_STEPS})",
          f"{early_steps}, {len(early_split) or 'none'}")
    wide = geometry(dict(batch=32, c_in=256, h=14, w=14, c_out=256, kh=3, kw=3))
    fp32_tile = next(c for c in candidates(wide, 4, H200_SMS) if split_k_of(c) > 1)
    wide_tiles = tuning.tile_count(*wide.gemm()[:2], fp32_tile)
    kept = [c.split_k for c in candidates(wide, 4, H200_SMS) if split_k_of(c) > 1
            and not windows_by_multiplication_of(c) and tuning.Config.label(c) == tuning.Config.label(fp32_tile)]
    s.ask(f"fp32 32x256x14x14x256, {fp32_tile.block_m}x{fp32_tile.block_n}x{fp32_tile.block_k} tile: tiles; 4 slices' "
          f"programs against {SPLIT_K_MAX_WAVES} x {H200_SMS}",
          f"{wide_tiles}; {4 * wide_tiles} > {SPLIT_K_MAX_WAVES * H200_SMS}: S tried " + ", ".join(map(str, kept)))

    config = tile  # the first split candidate
    shape = _workspace_shape(g, config)
    elements = math.prod(shape)
    s.say("Each slice walks its own run of K steps, then hand_in_slice (src/tilelab/kernels/matmul_splitk.py, shared")
    s.say("with matmul's split-K) stores its float32 partial tile in the workspace and adds 1 to the tile's counter.")
    s.ask(f"the workspace for {config.label()}, [bundles, tiles, S, BLOCK_M*BLOCK_N] (_workspace_shape)",
          f"{list(shape)}: {elements:,} floats, {elements * 4 / 2**20:.2f} MiB")
    s.say("The slice that counts S - 1 earlier arrivals is the last: sum_of_slices adds the S planes in slice order,")
    s.say("0 first, whichever slice that is; conv2d_bn_silu_kernel runs the batch norm and SiLU on that sum, never on")
    s.say("a partial, stores y and sets the counter back to 0 for the next launch. It does so in two halves of")
    s.say("BLOCK_N / 2 columns: half as many values live at once (fp32 64x256x32 in 2 slices: 189 -> 128 registers).")
    s.say("A tile's S slices are neighbours along the grid's first axis, so the tiles' last slices spread over the")
    s.say("launch instead of all running in its last wave.")
    s.ask("(0.1 + 0.2) + 0.3 against 0.1 + (0.2 + 0.3), in doubles",
          f"{(0.1 + 0.2) + 0.3!r} against {0.1 + (0.2 + 0.3)!r}")
    s.say("Float addition is not associative: summed in arrival order, y's bits would change from run to run. In slice")
    s.say("order they are the same every run.")

    s.say("\nMeasured on the H200 (kernel-bench with fresh tuning); the layers whose tuned config split K:")
    for dtype, path in SPLIT_RUNS.items():
        before = bench_cases(BEFORE_RUNS[dtype]) if dtype in BEFORE_RUNS else {}
        for shape, case in bench_cases(path).items():
            chosen = ConvConfig(**case["config"])
            if chosen.split_k == 1:
                continue
            was = before.get(shape)
            then = f"{was['us']['tilelab']:.1f} us ({was['speedup']:.2f}x torch) before, " if was else ""
            s.say(f"  {dtype:>8} {name(shape):>20}: {then}{case['us']['tilelab']:.1f} us "
                  f"({case['speedup']:.2f}x, torch {case['us']['torch']:.1f}) with {chosen.label()}")
    s.say(f"(after: {SPLIT_RUNS['float16'].replace('float16', '<dtype>')}; before: "
          f"{BEFORE_RUNS['float16'].replace('float16', '<dtype>')})")
    layer = f"{g.batch}x{g.c_in}x{g.h}x{g.w}x{g.c_out} 3x3 float16"
    emulated = probe_us(SPLIT_PROBE, layer, r"S=4: best four \(us\): \S+ w\d s\d ([\d.]+)")
    unsplit = tuning.Config.label(tile)  # without its -skS
    real = {sk: probe_us(REGISTERS_PROBE, layer, rf"{unsplit}-sk{sk} +([\d.]+) us") for sk in SPLIT_K_FACTORS}
    s.say(f"The emulation (S times the batch over C_in/S channels, {SPLIT_PROBE}) promised more:")
    s.say(f"fp16 {emulated} us at S=4, with no partials to write and sum. The real {unsplit} took")
    s.say(", ".join(f"{real[sk]} us at S={sk}" for sk in SPLIT_K_FACTORS) +
          f" ({REGISTERS_PROBE}); capping its registers")
    s.say("(maxnreg 168) did not help consistently.")
    s.say("Read: ConvConfig, candidates and _workspace_shape in src/tilelab/ops/conv.py; hand_in_slice and")
    s.say("sum_of_slices in src/tilelab/kernels/matmul_splitk.py; the SPLIT_K branch of conv2d_bn_silu_kernel.")
