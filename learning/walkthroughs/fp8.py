"""explain fp8: the float8_e4m3fn format, per-tensor scales, and the accumulator of Hopper's fp8 tensor cores."""

from __future__ import annotations

import bisect
import itertools
import json
import math
import random
import re
import struct
from pathlib import Path

from .script import Script

ROOT = Path(__file__).resolve().parents[2]
KERNEL, OP = "src/tilelab/kernels/matmul_fp8.py", "src/tilelab/ops/scaled_matmul.py"
BENCH = "results/h200-scaled-matmul-fp8-even-grid.json"  # kernel-bench --op scaled_matmul on the H200, call SS
PROBE = "results/h200-session5-probe.log"  # torch's fast and promoted paths timed in one run
FUZZ = "results/h200-course-and-fuzz-session23.log"  # the fuzz tests on the H200
MEASURED = "results/h200-fp8-accumulation-probe.log"  # scripts/h200_fp8_accumulation_probe.py on the H200
# Every file the walkthrough cites, with the names it cites in each (a test checks they are defined there).
CITED = {KERNEL: ("scaled_matmul_kernel",), OP: ("scaled_matmul", "_check"),
         "tests/interpreter/test_hopper_paths_interpreter.py": (),
         "tests/interpreter/test_fuzz_interpreter.py": ("FP8_ACCUMULATOR_STEP",),
         "scripts/h200_fp8_accumulation_probe.py": (), BENCH: (), PROBE: (), FUZZ: (), MEASURED: ()}
FRACTION_BITS = 13  # the model's running sum keeps 1 + 13 bits: "about 14" (the docstring of KERNEL)
BLOCK_K = 128  # products per promotion: every fp8 candidate's BLOCK_K (max_num_imprecise_acc=BLOCK_K)


def probe_errors(text: str) -> dict[int, dict[str, float]]:
    """The probe log's first column (relative Frobenius error) per K and variant: {K: {"tilelab fast": ...}}."""
    found: dict[int, dict[str, float]] = {}
    for block in re.split(r"^== K=", text, flags=re.M)[1:]:
        k = int(block.split(" ", 1)[0])
        rows = re.findall(r"^  (\S.*?)\s{2,}([\d.]+e[-+]\d+)", block, flags=re.M)
        found[k] = {name: float(value) for name, value in rows}
    return found


def decode(bits: int) -> float:
    """One float8_e4m3fn bit pattern: sign, 4 exponent bits (bias 7), 3 mantissa bits; S.1111.111 is NaN."""
    sign = -1.0 if bits & 0x80 else 1.0
    exponent, mantissa = bits >> 3 & 0xF, bits & 0x7
    if exponent == 0xF and mantissa == 0x7:
        return math.nan
    if exponent == 0:  # subnormal: no implicit 1
        return sign * mantissa / 8 * 2.0**-6
    return sign * (1 + mantissa / 8) * 2.0 ** (exponent - 7)


POSITIVE = [(decode(bits), bits) for bits in range(0x7F)]  # 0x00 .. 0x7E: +0 up to 448, in increasing order
MAGNITUDES = [value for value, _ in POSITIVE]


def to_e4m3(x: float) -> float:
    """x rounded to the nearest float8_e4m3fn, ties to an even mantissa, saturating at +-448 (torch 2.13's rule;
    older torch gives NaN past 464)."""
    i = bisect.bisect_left(MAGNITUDES, abs(x))
    if i == len(MAGNITUDES):
        return math.copysign(MAGNITUDES[-1], x)
    (low, low_bits), (high, _) = POSITIVE[max(i - 1, 0)], POSITIVE[i]
    below, above = abs(x) - low, high - abs(x)
    return math.copysign(low if below < above or (below == above and low_bits % 2 == 0) else high, x)


def spacing(x: float) -> float:
    """The gap between the representable value at or below x and the next one up."""
    i = bisect.bisect_right(MAGNITUDES, x) - 1
    return MAGNITUDES[i + 1] - MAGNITUDES[i]


def _normal_cdf(x: float) -> float:
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


# randn rounded to e4m3, as a table: each value's chance is the normal's mass between its rounding midpoints.
_EDGES = [0.0] + [(a + b) / 2 for a, b in zip(MAGNITUDES, MAGNITUDES[1:], strict=False)] + [math.inf]
_MASS = [_normal_cdf(high) - _normal_cdf(low) for low, high in zip(_EDGES, _EDGES[1:], strict=False)]
RANDN_VALUES = [-v for v in reversed(MAGNITUDES)] + MAGNITUDES
RANDN_CUMULATIVE = list(itertools.accumulate(_MASS[::-1] + _MASS))


def round_fraction(x: float, bits: int = FRACTION_BITS, rounding=round) -> float:
    """x kept to 1 + `bits` significant bits: rounded to nearest, ties to even (math.trunc: toward zero)."""
    mantissa, exponent = math.frexp(x)
    return math.ldexp(rounding(mantissa * 2 ** (bits + 1)), exponent - bits - 1)


def to_float32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def accumulate(products: list[float], bits: int = FRACTION_BITS, block_k: int = BLOCK_K, rounding=round) -> dict:
    """Running sums of the same products. "fast": one sum rounded to `bits` fraction bits after every add (a
    model of wgmma's fp8 accumulator, not its documented behaviour); "promoted": that sum restarted every
    `block_k` products and added into float32; "float32": a float32 running sum; "exact": math.fsum."""
    fast = promoted = single = 0.0
    for start in range(0, len(products), block_k):
        part = 0.0
        for p in products[start:start + block_k]:
            fast = round_fraction(fast + p, bits, rounding)
            part = round_fraction(part + p, bits, rounding)
            single = to_float32(single + p)
        promoted = to_float32(promoted + part)
    return {"fast": fast, "promoted": promoted, "float32": single, "exact": math.fsum(products)}


def relative_errors(k: int, dots: int, seed: int = 0, **model) -> dict:
    """||sum - exact|| / ||exact|| of each running sum over `dots` dot products of K pairs of randn in e4m3."""
    rng = random.Random(seed)
    draw = lambda: rng.choices(RANDN_VALUES, cum_weights=RANDN_CUMULATIVE, k=k)
    sums = [accumulate([a * b for a, b in zip(draw(), draw(), strict=True)], **model) for _ in range(dots)]
    norm = math.sqrt(sum(s["exact"] ** 2 for s in sums))
    return {kind: math.sqrt(sum((s[kind] - s["exact"]) ** 2 for s in sums)) / norm
            for kind in ("fast", "promoted", "float32")}


def quote(path: str, pattern: str) -> str:
    """The first line of a repository file that matches `pattern`, stripped: cited code, read now."""
    return next(line.strip() for line in (ROOT / path).read_text().splitlines() if re.search(pattern, line))


def build() -> Script:
    s = Script("fp8: float8_e4m3fn, per-tensor scales, and what Hopper's fp8 accumulator keeps")
    s.say("float8_e4m3fn: 1 sign bit, 4 exponent bits (bias 7), 3 mantissa bits. Decode all 256 patterns:")
    nans = [f"0x{bits:02X}" for bits in range(256) if math.isnan(decode(bits))]
    s.ask("patterns that are NaN; infinities", f"{len(nans)} ({', '.join(nans)}: S.1111.111); none")
    s.ask("largest finite (0x7E = 0.1111.110)", f"{MAGNITUDES[-1]:g} = 1.75 * 2**8")
    s.ask("smallest normal, smallest subnormal", f"{decode(0x08)} = 2**-6, {decode(0x01)} = 2**-9")
    s.ask("spacing of the values near 1, 100, 400", ", ".join(f"{spacing(x):g}" for x in (1, 100, 400)))
    s.say("3 mantissa bits: 8 steps per power of two, each 1/8 of the power. Round to nearest:\n")
    samples = (0.1, 3.3, 300.0, 500.0)
    for x in samples:
        s.ask(f"{x:g} becomes", f"{to_e4m3(x):g} ({abs(to_e4m3(x) - x) / x:.1%} off)")
    s.say("500 is past 448. torch 2.13's .to(torch.float8_e4m3fn) saturates: finite overflow and inf become 448,")
    s.say("NaN stays NaN (fp8e4m3fn_from_fp32_value, torch/headeronly/util/Float8_e4m3fn.h). Older torch gives NaN")
    s.say("there (2.11, on the H200 image, turned 494 into NaN), as ml_dtypes does: never send a value past 448.")
    try:
        import torch

        got = torch.tensor(samples).to(torch.float8_e4m3fn).float().tolist()
        s.ask(f"torch {torch.__version__}, the same four", ", ".join(f"{v:g}" for v in got))
    except ImportError:
        s.say("(No torch here; tests/learning/test_learning_explain.py compares with it.)")
    s.ask("and 0.001", f"{to_e4m3(0.001):g}: a subnormal, {abs(to_e4m3(0.001) - 0.001) / 0.001:.0%} off")
    s.say("So callers scale before they convert: scaled_matmul takes fp8 that is already scaled.\n")

    s.say("A per-tensor scale: scale = amax / 448, x8 = fp8(x / scale), and x is about x8 * scale.")
    small, outlier = (0.5, -0.25, 0.1, 0.03, -0.004, 0.001), 1000.0
    s.say(f"Six values {small}, then the same six and one {outlier:g}:")
    for label, tensor in (("alone", small), (f"with {outlier:g}", (*small, outlier))):
        scale = max(map(abs, tensor)) / 448
        errors = ", ".join(f"{abs(to_e4m3(x / scale) * scale - x) / abs(x):.1%}" for x in small)
        s.ask(f"{label}: scale; the six values' relative errors", f"{scale:.4g}; {errors}")
    s.ask(f"0.03 / ({outlier:g} / 448) lands at", f"{0.03 * 448 / outlier:.4f}: under 2**-6, a subnormal")
    s.say("Over the normals (2**-6 to 448, a ratio of 28672) every value keeps 3 mantissa bits whatever the")
    s.say("scale. The outlier costs the others only when it pushes them under 2**-6: fewer bits, then zero.\n")

    s.say("A ~ scale_a * A8 and B ~ scale_b * B8, so A @ B ~ scale_a * scale_b * (A8 @ B8).")
    n = 8192
    s.ask(f"multiplies for the scales at {n}^3, two per product", f"{2 * n**3:.2e}")
    s.ask("... once per element of C", f"{n**2:.2e} ({2 * n}x fewer)")
    s.say("And the tensor core takes fp8 only: a scale could enter a product only by re-rounding an operand.")
    s.say(f"scaled_matmul_kernel ({KERNEL}), once per program, then once per tile before the store:")
    for pattern in (r"scale = tl\.load", r"acc = acc \* scale"):
        s.say("  " + quote(KERNEL, pattern))

    s.say("\nThe kernel's docstring: Hopper's fp8 wgmma reads both operands K-major from shared memory.")
    k, width = 4096, 1024
    s.ask(f"B [K, N] = [{k}, {width}], stored row-major: strides", (width, 1))
    s.ask("B stored [N, K] (nn.Linear's weight: [out, in]), seen as bt.t(): strides", (1, k))
    message = quote(OP, "b must be K-major").split('"')[1].split(" (")[0]
    s.ask("scaled_matmul with the row-major B", f"tilelab.AlignmentError: \"{message} ...\"; no copy")
    fix = re.search(r"Pass [^\"]+", quote(OP, r"Pass b\.t\(\)")).group(0)
    s.say(f"Its advice: \"{fix}\" (_check in {OP}; not when K is 1 or nothing is computed;")
    s.say("'b_row_major' in tests/interpreter/test_hopper_paths_interpreter.py). The caller transposes once.\n")

    s.say(f"Accumulation. {KERNEL}: the fp8 wgmma's running sum keeps \"about 14\" mantissa bits, not 23.")
    s.say(f"A model, ours (NVIDIA documents none): round the running sum to {FRACTION_BITS} fraction bits after")
    s.say("every add, to nearest; the hardware may truncate instead. Two e4m3 values' product is exact.")
    s.ask("relative step of such a sum, and of float32", f"2**-{FRACTION_BITS} = {2.0**-FRACTION_BITS:.1e}, "
          f"2**-23 = {2.0**-23:.1e}")
    for k in (256, 4096, 65536):
        dots = max(4, 32768 // k)
        e = relative_errors(k, dots)
        s.ask(f"K={k:>5}, {dots:>3} dots: error of fast | promoted (every {BLOCK_K}) | float32",
              f"{e['fast']:.1e} | {e['promoted']:.1e} | {e['float32']:.1e}")
    s.say("Fast grows with K (faster than sqrt(K) here): the sum grows, so does its step, and every add rounds to")
    s.say("that step.")
    s.say(f"Promoted restarts every {BLOCK_K} products and stays at the error of {BLOCK_K} (randomness aside).\n")

    s.say(f"Measured on the H200 ({FUZZ}): a float32-output product that failed the fuzz test's 1e-5:")
    failure = quote(FUZZ, r"AssertionError: 1x1x16")
    s.say("  " + failure)
    error = float(failure.rsplit(": ", 1)[1])
    s.ask("that error in float32's half steps (2**-24), and in the model's (2**-14)",
          f"{error / 2**-24:.0f}, {error / 2**-14:.2f}")
    s.say("K=16 is inside one BLOCK_K: promotion cannot help, the sum is not float32 even there. The test now")
    s.say("holds each element to its sum of |products| times FP8_ACCUMULATOR_STEP (test_fuzz_interpreter.py).\n")

    s.say(f"kernel-bench on the H200 ({BENCH}), against torch._scaled_mm's fast accumulation:")
    cases = json.loads((ROOT / BENCH).read_text())["cases"]
    for case in cases:
        by = {v["name"]: v for v in case["variants"]}
        s.say(f"  {'x'.join(map(str, case['shape'])):>15}: fast {by['tilelab']['speedup_vs_torch']:.2f}x, "
              f"promoted {by['tilelab-promoted']['speedup_vs_torch']:.2f}x; error (bf16 out): torch "
              f"{by['torch']['error']:.1e}, fast {by['tilelab']['error']:.1e}, promoted "
              f"{by['tilelab-promoted']['error']:.1e}")
    rng = random.Random(0)
    randn = [rng.gauss(0, 1) for _ in range(20000)]
    bf16 = math.sqrt(sum((round_fraction(x, 7) - x) ** 2 for x in randn) / sum(x * x for x in randn))
    s.ask("bf16's own rounding (1 + 7 bits) of 20000 randn values: relative error", f"{bf16:.1e}")
    s.say("So promoted's error is the output's rounding; fast adds its accumulator's, which grows with K.")
    times = [float(t) for t in re.findall(r"accumulation, bf16 out: torch +([\d.]+) us", (ROOT / PROBE).read_text())]
    s.ask(f"torch promoted against torch fast at 8192^3 ({PROBE})",
          f"{times[1]:.0f} against {times[0]:.0f} us: {times[1] / times[0] - 1:.1%} slower")
    top = {v["name"]: v["tflops"] for v in cases[0]["variants"]}
    s.ask("ours, promoted against fast, at 8192^3 (the bench run)", f"{top['tilelab-promoted'] / top['tilelab']:.2f}x")
    s.say("Promotion costs our kernel far more than torch's (the kernel's docstring: registers, adds per step).\n")

    s.say(f"The model against the H200 ({MEASURED}): 256x256 products, float32 out, relative error.")
    measured = probe_errors((ROOT / MEASURED).read_text())
    for k in (256, 4096, 65536):
        row = measured[k]
        s.ask(f"K={k:5d}: H200 fast | promoted; model rounded fast | promoted; truncated fast",
              f"{row['tilelab fast']:.1e} | {row['tilelab promoted']:.1e}; {row['model fast, rounded']:.1e} | "
              f"{row['model promoted, rounded']:.1e}; {row['model fast, truncated']:.1e}")
    s.say("The H200 lands within about 2x of the rounding model and far from the truncating one, whose sum drifts")
    s.say("one way. Promoted stays at about 1.3e-4 however long K is: each 128-product run adds its own small,")
    s.say("random error. (A model, fitted to nothing: the hardware's exact rule is not documented.)")
    s.ask("torch._scaled_mm fast at K=65536 (same log)", f"{measured[65536]['torch._scaled_mm fast']:.1e}: "
          "cuBLAS's fast path grows more slowly than ours")
    s.say("")
    s.say(f"Read next: scaled_matmul and _check ({OP}), scaled_matmul_kernel ({KERNEL});")
    s.say("kernel-inspect --op scaled_matmul --target sm_90 [--accumulate promoted] (count the e4m3 wgmma);")
    s.say("kernel-bench --op scaled_matmul; scripts/h200_fp8_accumulation_probe.py, the probe above.")
    return s
