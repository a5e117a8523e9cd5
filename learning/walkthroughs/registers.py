"""explain registers: tf32 with a row-major B on Hopper, without copying B (the library's Gluon kernel)."""

from __future__ import annotations

from .script import Script

FLOAT32_BYTES = 4
TF32_WGMMA_K = 8  # a tf32 wgmma consumes 8 values of K (256 bits of each row)
SM_SHARED_BYTES = 232448  # the most shared memory one program may have on the H100/H200 (227 KiB)
SM_REGISTERS = 65536  # 32-bit registers per SM
H200_SMS = 132


def build() -> Script:
    from tilelab.ops.gluon_launch import persistent_programs
    from tilelab.ops.matmul_registers import (
        DEFAULT_CONFIG,
        FULL_FILL,
        REGISTERS_MIN_FILL,
        choose_config,
        pays_off,
    )
    from tilelab.tuning import tile_count

    c = DEFAULT_CONFIG
    s = Script("registers: tf32 with B stored [K, N], and no copy of B")
    s.say("Hopper's tf32 wgmma reads an operand from shared memory only K-major (K contiguous). A is")
    s.say("stored [M, K]: K-major. B = torch.randn(K, N) is [K, N]: N-major. One more fact: wgmma's LEFT")
    s.say("operand may come from registers instead, where the order the threads loaded it in does not matter.")
    s.ask("which product has B as its left operand?", "C^T = B^T A^T (then store C^T's tile transposed)")
    s.ask("and A^T, the right operand: K-major in shared memory?", "yes: A's [M, K] tile, viewed transposed")
    s.say("So each program loads B's [BLOCK_K, BLOCK_N] tile with TMA, then into registers, and hands it to")
    s.say("wgmma. src/tilelab/kernels/matmul_tf32_registers.py, planned by src/tilelab/ops/matmul_registers.py.\n")

    s.say(f"Its tiles (matmul_registers.DEFAULT_CONFIG): BLOCK_M {c.block_m}, BLOCK_N {c.block_n}, "
          f"BLOCK_K {c.block_k}, {c.num_warps} MMA warps (2 warp groups) and one loader warp.")
    stage = (c.block_m * c.block_k + c.block_k * c.block_n) * FLOAT32_BYTES
    s.ask("bytes of one pipeline stage (A's and B's float32 tiles)", f"{stage} ({stage // 1024} KiB)")
    staging = (c.block_m // 4) * c.block_n * FLOAT32_BYTES
    total = c.num_stages * stage + staging
    s.ask(f"{c.num_stages} stages plus C's staging buffer for a quarter tile",
          f"{total} bytes, under the {SM_SHARED_BYTES} a program may have")
    whole = c.num_stages * stage + c.block_m * c.block_n * FLOAT32_BYTES
    s.ask("... with a staging buffer for the whole tile instead", f"{whole}: too much, so the store goes a quarter"
          " at a time")
    threads = c.num_warps * 32
    s.ask("accumulator registers per MMA thread (C^T's tile in float32)", c.block_m * c.block_n // threads)
    s.ask("B^T registers per MMA thread per K step", c.block_n * c.block_k // threads)
    s.ask("wgmma instructions per warp group per K step", c.block_k // TF32_WGMMA_K)
    budget = c.num_warps * 32 * 240 + 4 * 32 * 24
    s.ask("registers: 8 MMA warps at 240 each (setmaxnreg) and the loader's warp group at 24",
          f"{budget} of the SM's {SM_REGISTERS}")
    s.say("")

    s.say("The schedule is what @triton.jit could not say (it measured 0.88x torch that way): the loader warp")
    s.say("only waits for a free stage and issues TMA; the MMA warps wait for a full one, load B^T's registers")
    s.say("while the previous step's wgmma still runs, then retire that wgmma and free its stage.")
    s.ask("why does mma_partition do two K steps per loop iteration?",
          "step k+1's load would otherwise overwrite the registers step k's wgmma still reads")
    s.ask("... and what does ptxas do if it sees that hazard?", "serializes every wgmma (warning C7515)")
    s.ask("B's values pass through registers on their way to wgmma. What can the kernel do to them there?",
          "round them to tf32's 10-bit mantissa (cvt.rna.tf32.f32, round_to_tf32); wgmma would drop the low bits")
    s.say(f"RegistersConfig.round_b = {c.round_b}. Truncation always shrinks a value toward zero, so its errors")
    s.say("pile up over K; rounding's cancel. At 4096^3: relative error 7.8e-4 truncated, 4.7e-4 rounded, for")
    s.say("0.5-1% more time (results/h200-tf32-rounding-probe.log). Torch measured 2.9e-4; A, which wgmma reads")
    s.say("from shared memory, is still truncated here.")
    s.say("")

    s.say("Which tiles? Large ones read A and B fewer times per flop, but a problem must make enough of them")
    s.say("to keep every SM busy. matmul_registers.choose_config takes the largest of CONFIGS (256x128, 256x64,")
    s.say(f"128x128, 128x64, 64x64) whose count reaches FULL_FILL = {FULL_FILL} of the SMs; if none does, the")
    s.say("smallest. (Tiles taller or wider than C, rounded up to a power of two, are left out: mostly padding.)")
    s.say(f"And the path is the default only if those tiles fill REGISTERS_MIN_FILL = {REGISTERS_MIN_FILL} of the"
          " SMs.")
    for m, n, k in ((4096, 4096, 4096), (512, 4096, 4096), (1000, 1000, 1000), (512, 512, 512), (300, 260, 1000)):
        chosen = choose_config(m, n, H200_SMS)
        count = tile_count(m, n, chosen)
        verdict = "yes" if pays_off(m, n, k, H200_SMS) else "no: too few tiles even so"
        s.ask(f"{m}x{n}x{k}: tiles chosen, their count, and registers by default on {H200_SMS} SMs?",
              f"{chosen.block_m}x{chosen.block_n}, {count}, {verdict}")
    s.ask(f"programs at 4096^3 (gluon_launch.persistent_programs, {H200_SMS} SMs)",
          persistent_programs(4096, 4096, c, H200_SMS))
    s.say("On the H200: 1.00-1.02x torch at 4096^3, 0.98-0.99x at 8192^3, where copying B first gave 0.90-0.92x")
    s.say("(results/h200-matmul-float32-tf32-registers.json, -repeat.json); with B rounded, 1.01x and 0.99x")
    s.say("(results/h200-matmul-float32-tf32-rounded.json). The smaller tiles: 1000^3 went from 0.90x (the copy")
    s.say("of B) to 1.12x, 512x4096x4096 from 0.67x to 1.06x (results/h200-tf32-tiles-probe.log, -2.log).")
    s.say("See it compiled, without a GPU:")
    s.say("kernel-inspect --path registers --target sm_90   (the wgmma.a_registers row: A from registers)")
    s.say("kernel-inspect --path registers --config 128x64x32-w4-s6   (another of CONFIGS, by its tag)")
    return s
