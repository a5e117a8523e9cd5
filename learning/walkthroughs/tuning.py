"""explain tuning: measuring the alternatives, and measuring them fairly."""

from __future__ import annotations

import json
import math
import re
import statistics
from pathlib import Path

from .script import Script

DRIFT_MS = 0.1  # each timing comes out this much slower than the one before: a GPU heating up
TRUE_MS = {"A": 1.05, "B": 1.00, "C": 1.02}  # B is the fastest


def winner(order: list[str], calls_each: int) -> tuple[str, dict[str, float]]:
    """Time each name in `order` (calls_each calls per visit) on the drifting clock; the lowest median of medians."""
    clock, turns = 0, {name: [] for name in TRUE_MS}
    for name in order:
        samples = [TRUE_MS[name] + DRIFT_MS * (clock + i) for i in range(calls_each)]
        clock += calls_each
        turns[name].append(statistics.median(samples))
    medians = {name: round(statistics.median(t), 3) for name, t in turns.items()}
    return min(medians, key=medians.get), medians


def shipped_entry(key_suffix: str) -> tuple[str, dict]:
    """The H200 table's entry whose key ends with `key_suffix`."""
    table = Path(__file__).resolve().parents[2] / "src" / "tilelab" / "tuned" / "h200.json"
    entries = json.loads(table.read_text())["entries"]
    key = next(k for k in entries if k.endswith(key_suffix))
    return key, entries[key]


COMPILE_PROBE = "results/h200-compile-ahead-probe.log"  # first-sight tuning, one compile thread against eight


def first_call_seconds(case: str) -> tuple[float, float, int]:
    """The probe's row for `case`: seconds with one thread, with eight, and the kernels compiled ahead."""
    text = (Path(__file__).resolve().parents[2] / COMPILE_PROBE).read_text()
    row = next(line for line in text.splitlines() if line.startswith(case + " "))
    (one, _), (eight, ahead) = re.findall(r"([\d.]+) s \(\s*(\d+) ahead\)", row)
    return float(one), float(eight), int(ahead)


def build() -> Script:
    from tilelab import tuning

    s = Script("tuning: measure the alternatives, fairly")
    s.say("No tile is best everywhere, so tilelab measures. tilelab.tuning.choose times a short list of")
    s.say("candidate configs once per kind of problem and remembers the winner (on disk, and for the H200")
    s.say("in the table the package ships, src/tilelab/tuned/h200.json).\n")

    s.say("What counts as 'the same kind of problem': tilelab.tuning.shape_bucket rounds each dim up to a")
    s.say("power of two.")
    s.ask("shape_bucket(1000, 1000, 1000)", tuning.shape_bucket(1000, 1000, 1000))
    s.ask("shape_bucket(127, 255, 65)", tuning.shape_bucket(127, 255, 65))
    s.say("So 1000^3 uses whatever won at 1024^3. (Until the sixth session's re-tune that was a tile 4% slower")
    s.say("at 1000^3 than the best one measured there.)")
    s.say("Since the eighteenth session the keys hold half octaves (fine=True: 1, 2, 3, 4, 6, 8, 12, ...).")
    s.ask("shape_bucket(768, 768, 16384) and shape_bucket(1024, 1024, 16384), each with fine=True",
          f"{tuning.shape_bucket(768, 768, 16384, fine=True)} and {tuning.shape_bucket(1024, 1024, 16384, fine=True)}")
    s.say("One shared power-of-two bucket gave split-K at 1024x1024x16384 the 3 slices tuned at 768 rows: 83.7 us,")
    s.say("against 57.7 in one slice (torch 54.1; results/h200-long-k-wave-split-probe.log). The other paths take")
    s.say("the power of two's winner where nobody tuned the half octave (ops.matmul._fallback_key), until")
    s.say("tilelab.pretune times it: 768^3 8.5 us on its own winner, 9.3 on 1024^3's")
    s.say("(results/h200-bucket-probe.log).")
    _, entry = shipped_entry("|descriptor|float16|float16|tf32|ab|1536x1536x1536")
    config = entry["config"]
    s.ask("the H200's shipped fp16 winner at 1536^3, a half octave (block_m x block_n)",
          f"{config['block_m']}x{config['block_n']}: 1.5 powers of two wide, two blocks side by side "
          "(tuning.WIDE_CANDIDATES, kernels.matmul.matmul_wide_kernel)")
    s.say("96 such tiles fill 132 SMs better than 72 of 128x256 or 144 of 128x128: 0.85x torch, from 0.72x")
    s.say("(results/h200-matmul-float16-wide-tiles.json; workshop I5, part 9).\n")

    kept = tuning.prune(tuning.GPU_CANDIDATES, m=16, n=4096, element_size=2)
    s.say("Before timing, tilelab.tuning.prune drops candidates that cannot fit shared memory or would be")
    s.say("mostly padding.")
    s.ask(f"a 16x4096x1024 fp16 problem: how many of the {len(tuning.GPU_CANDIDATES)} candidates are timed?",
          f"{len(kept)}: no tile taller than 32 rows")
    s.say("")

    import torch

    from tilelab.ops.matmul_hopper import MIN_SM_FILL, filling_first
    from tilelab.ops.scaled_matmul import candidates

    sms = 132
    s.say("A problem nobody tuned runs the first candidate: for fp8 a 128x256 tile, the H200's best on large")
    s.say("problems. tilelab.ops.matmul_hopper.filling_first moves ahead the first tile that gives at least")
    s.say(f"{MIN_SM_FILL:.0%} of the SMs a program (or, failing that, the one with the most tiles).")
    for m, n in ((8192, 8192), (1024, 1024), (128, 256)):
        c = filling_first(candidates(m, n, torch.bfloat16, True), m, n, 1, sms)[0]
        tiles = math.ceil(m / c.block_m) * math.ceil(n / c.block_n)
        s.ask(f"fp8 {m}x{n} on {sms} SMs: the untuned tile", f"{c.block_m}x{c.block_n}, {tiles} tiles")
    s.say("At 128x256x64 one 128x256 tile ran on one SM: 5.2 us per call in a CUDA graph, against 2.7 us")
    s.say("for 64x64 tiles on 8 SMs (results/h200-tiny-tiles-probe.log).\n")

    s.say("A new problem's tuning costs more in compiling than in timing: each candidate is a kernel of its own,")
    s.say("seconds of compiler work. tilelab.tuning.compile_ahead compiles them all before the first is timed, on")
    s.say("several threads (Triton's compiler lets go of Python's lock): each candidate's launch runs once with")
    s.say("Triton's jit_cache_hook answering True, which compiles and runs nothing and only names the kernel.")
    s.ask("threads it would use on this machine (tilelab.tuning.compile_threads, TILELAB_COMPILE_THREADS)",
          tuning.compile_threads())
    one, eight, ahead = first_call_seconds("conv 7x33x31x29x65x3x1 fp32")
    s.ask("on the H200, the ragged fp32 convolution's first call (it tunes): one thread, then eight",
          f"{one:.1f} s, then {eight:.1f} s ({ahead} kernels compiled ahead; the same winner)")
    s.say(f"({COMPILE_PROBE})\n")

    a, b, c = (f"{TRUE_MS[name]:.2f}" for name in "ABC")
    s.say(f"Now the trap. Three candidates take {a}, {b} and {c} ms (B is best),")
    s.say(f"but the GPU slows down as it heats: each timing is {DRIFT_MS} ms slower than the one before.")
    names = list(TRUE_MS)
    one_after_another = [name for name in names for _ in range(tuning.TUNING_ROUNDS)]
    best, medians = winner(one_after_another, 1)
    s.ask("timed one after the other (A A A A B B B B C C C C): the winner", f"{best}, by {medians}")
    order = tuning.turn_order(names)
    best, medians = winner(order, 1)
    s.ask(f"taking turns, forward then back ({' '.join(order)}): the winner", f"{best}, by {medians}")
    s.say("tilelab.tuning.turn_order is that order (TUNING_ROUNDS rounds). With an even number of rounds,")
    s.say("every candidate's turns sit at the same average position, so a steady drift cancels out.\n")

    s.say("It happened on the H200. The shipped table was first tuned one candidate after the other; at")
    s.say("8192^3 fp16 the first candidate measured 1.454 ms and its fused-loop twin, timed later, 1.628 ms.")
    s.say("Re-tuned in turns (results/h200-retune-large-turns.log), the best four came within 2.4%, and the")
    s.say("fused loops won. kernel-bench --rounds takes turns the same way, for the same reason.\n")

    key, entry = shipped_entry("|pointer|float16|float16|tf32|ab|128x256x128")
    config = tuning.Config.from_dict(entry["config"])
    best_ms = min(entry["timings_ms"].values())
    s.say("A remembered winner is only as good as the measurement that chose it. The 127x255x65 fp16 entry:")
    s.ask(key, f"{config.label()}, {best_ms * 1000:.2f} us")
    s.say("Until the fifth session it held 64x32x64, measured at 9.95 us when it was picked; in turns it took")
    s.say("6.85 us against 5.98 for 16x64x128, which the same bucket in bf16 already had. Re-tuned, fp16 went")
    s.say("from 0.89x to 1.02x torch. When two closely related entries disagree, re-measure. And a winner is")
    s.say("only the best of the candidates it was given: in the fourteenth session a new one, 16x32x128 in 2")
    s.say("stages (64 programs that finish K in one step), took the entry from 16x64x128 (5.6 us in the re-tune,")
    s.say("results/h200-retune-tiny-session14.log), and the shape from 1.01-1.04x to 1.10-1.14x torch.")
    return s
