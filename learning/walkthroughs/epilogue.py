"""explain epilogue: a bias and an activation fused into the matmul's store (tilelab.linear), traced."""

from __future__ import annotations

import json
import math
from pathlib import Path

from .script import Script

CALIBRATION = Path(__file__).resolve().parents[2] / "results" / "h200-calibration.json"
FP16_BYTES = 2
SHAPE = (8192, 8192, 1024)  # kernel-bench --op linear's short-K case: M, N, K
# The probe's times in us at 8192x8192x1024, fp16: erff's from results/h200-linear-epilogue-probe-libdevice.log,
# the polynomial's from -polynomial.log, with the SFU's instructions from -sfu.log, the persistent kernel's
# from -libdevice.log and -sfu.log (scripts/h200_linear_epilogue_probe.py, four device calls).
PROBE = {"F.linear": 196.3, "F.gelu(F.linear)": 298.0, "pingpong matmul": 210.6, "pingpong relu": 211.2,
         "pingpong bias + gelu, erff": 398.7, "pingpong bias + gelu, polynomial": 298.6,
         "pingpong bias + gelu, SFU": 250.0, "F.gelu(F.linear), SFU call": 302.3,
         "persistent matmul, erff call": 227.4, "persistent gelu, erff": 298.0,
         "persistent matmul, SFU call": 231.8, "persistent gelu, SFU": 289.0}
# sm_90 SASS instructions per value of `gelu` in the pingpong kernel's epilogue (cuobjdump of the compiled
# kernel, the session that made the change): with `1.0 / t` and `exp`, and with `reciprocal` and `exp2`.
GELU_INSTRUCTIONS = {"1.0 / t and exp": 30, "reciprocal and exp2": 16}
# Abramowitz and Stegun 7.1.26, the coefficients of `gelu` in src/tilelab/kernels/matmul.py.
P = 0.3275911
A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def copy_bandwidth_gbps() -> float:
    """The H200's measured copy bandwidth (kernel-bench calibrate), the roofline for memory-bound work."""
    return json.loads(CALIBRATION.read_text())["memory_gbps"]


def erf_polynomial(x: float) -> float:
    """erf as the kernels' `gelu` computes it: 1 - erf(z) = t * (a1 + t * (a2 + ...)) * exp(-z^2), z = |x|."""
    z = abs(x)
    t = 1.0 / (1.0 + P * z)
    q = t * (A[0] + t * (A[1] + t * (A[2] + t * (A[3] + t * A[4]))))
    tail = q * math.exp(-z * z)
    return 1.0 - tail if x >= 0 else tail - 1.0


def gelu(x: float, erf=math.erf) -> float:
    """x * Phi(x), the exact GELU (torch.nn.functional.gelu's default), with any erf."""
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def roundings(count: int = 20000, seed: int = 0) -> dict:
    """fp16 values of gelu(acc + bias) for random float32 accumulators: rounded once (fused: the epilogue runs
    on float32 and the store rounds) or rounded twice (torch: F.linear stores C in fp16, F.gelu reads it)."""
    import torch

    generator = torch.Generator().manual_seed(seed)
    z = torch.randn(count, generator=generator, dtype=torch.float32) * 3
    exact = torch.nn.functional.gelu(z.double())
    once = torch.nn.functional.gelu(z).half()
    twice = torch.nn.functional.gelu(z.half().float()).half()
    worse = ((twice.double() - exact).abs() > (once.double() - exact).abs()).sum().item()
    return {"differ": (once != twice).sum().item(), "twice_worse": worse, "count": count}


def build() -> Script:
    m, n, k = SHAPE
    s = Script("epilogue: a bias and an activation fused into the matmul's store (tilelab.linear), traced")
    s.say("y = gelu(x @ W.T + b): nn.Linear and its activation. torch runs two kernels: F.linear (cuBLAS, which")
    s.say("adds the bias in its own epilogue) writes C to memory in fp16; F.gelu reads C back and writes y.")
    c_bytes = m * n * FP16_BYTES
    s.ask(f"M x N x K = {m} x {n} x {k}, fp16: bytes of C", f"{c_bytes:,} ({c_bytes / 2**20:.0f} MiB)")
    s.ask("bytes F.gelu moves (read C, write y)", f"{2 * c_bytes:,}")
    gbps = copy_bandwidth_gbps()
    floor = 2 * c_bytes / (gbps * 1e3)
    s.ask(f"at the H200's copy bandwidth ({gbps:,.0f} GB/s, results/h200-calibration.json): us", f"{floor:.1f}")
    measured = PROBE["F.gelu(F.linear)"] - PROBE["F.linear"]
    s.say(f"measured: F.gelu(F.linear) {PROBE['F.gelu(F.linear)']} us, F.linear alone {PROBE['F.linear']}: "
          f"the GELU kernel takes {measured:.0f} us")
    s.say("Fused, the bias add and the activation run on the float32 accumulator tile still in registers, and")
    s.say("C is written once, already activated: apply_epilogue in src/tilelab/kernels/matmul.py.\n")

    s.say("Fewer roundings too. torch rounds twice: C to fp16, then gelu(C) to fp16. Fused rounds once.")
    r = roundings()
    s.ask(f"of {r['count']:,} random accumulators, fp16 results that differ between the two", r["differ"])
    s.ask("... of those, where rounding twice is further from float64", r["twice_worse"])
    s.say("")

    s.say("Split-K (several programs share one tile's K range, `finish_split_tile`): where does relu go?")
    partials = (2.0, -3.0)
    s.ask(f"two slices' partial sums {partials}: relu(a) + relu(b)", sum(max(p, 0.0) for p in partials))
    s.ask("... relu(a + b), the activation of the tile's real value", max(sum(partials), 0.0))
    s.say("So the epilogue runs on the float32 sum, in the one program that writes C, never on a partial.\n")

    s.say("GELU needs erf. libdevice's erff, in the pingpong kernel's epilogue, measured (fp16, 8192x8192x1024):")
    s.ask("plain matmul, then relu (us)", f"{PROBE['pingpong matmul']}, {PROBE['pingpong relu']}: relu is free")
    s.ask("bias + gelu with erff (us)", PROBE["pingpong bias + gelu, erff"])
    s.say("relu is free because one warp group's epilogue runs while the other multiplies; erff's arithmetic")
    s.say("was too long to hide. The kernels' `gelu` takes erf from Abramowitz and Stegun's formula 7.1.26:")
    s.say("  1 - erf(z) = t*(a1 + t*(a2 + t*(a3 + t*(a4 + t*a5)))) * exp(-z^2),  t = 1/(1 + p*z),  z = |x|")
    s.say("  one exponential, one reciprocal, five multiply-adds; for x < 0, erf(x) = -erf(|x|).")
    grid = [i / 100 for i in range(-500, 501)]
    worst = max(abs(erf_polynomial(x) - math.erf(x)) for x in grid)
    s.ask("max |polynomial erf - math.erf| over [-5, 5]", f"{worst:.1e} (the book's bound: 1.5e-7)")
    x = -1.5
    s.ask(f"gelu({x}) with math.erf, and with the polynomial", f"{gelu(x):.7f}, {gelu(x, erf_polynomial):.7f}")
    s.ask("bias + gelu with the polynomial (us)", f"{PROBE['pingpong bias + gelu, polynomial']}, "
          f"level with torch's {PROBE['F.gelu(F.linear)']}")
    s.say("Still far from free. The compiled code says why: `1.0 / t` and `exp` each come with range fix-ups")
    s.say("(denormals, huge divisors), extra instructions issued by the warp group that stores while the other")
    s.say("multiplies. `reciprocal` and `exp2` in kernels/matmul.py ask the special-function unit for one")
    s.say("approximate instruction each (rcp.approx.ftz, ex2.approx.ftz: within 1-2 ulp, tiny results to 0).")
    before, after = GELU_INSTRUCTIONS.values()
    s.ask("sm_90 instructions per value of gelu, before and after", f"{before}, {after}")
    sfu = PROBE["pingpong bias + gelu, SFU"]
    torch_us = PROBE["F.gelu(F.linear), SFU call"]
    s.ask("bias + gelu with them (us)", f"{sfu}: {torch_us / sfu:.2f}x as fast as torch's {torch_us} in that run")
    erff = PROBE["persistent gelu, erff"] - PROBE["persistent matmul, erff call"]
    ours = PROBE["persistent gelu, SFU"] - PROBE["persistent matmul, SFU call"]
    s.ask("persistent kernel, gelu's cost over its matmul: erff, then the SFU polynomial (us)",
          f"{erff:.1f}, {ours:.1f}")
    s.say("That kernel had kept erff, which beat the first polynomial there; now every kernel takes `gelu`.")
    s.say("Measure each kernel, and read what it compiles to: kernel-inspect --path pingpong --b-layout nk")
    s.say("--bias --activation gelu saves the kernel's SASS (the .sass file) to count them in.\n")

    s.say("The code: tilelab.linear (src/tilelab/ops/linear.py) keeps the matmul's plan; apply_epilogue in the")
    s.say("pointer, descriptor, persistent and split-K kernels, its Gluon twin in kernels/matmul_pingpong.py.")
    s.say("Measure: kernel-bench --op linear (results/h200-linear-sfu-summary.md: 1.18x fp16, 1.20x bf16 against")
    s.say("F.gelu(F.linear)); see the register cost: kernel-inspect --path descriptor --bias --activation gelu.")
    return s
