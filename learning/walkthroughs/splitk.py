"""explain splitk: why a 16-row matmul leaves most of a GPU idle, and how split-K hands out the work."""

from __future__ import annotations

import math

from .script import Script

M, N, K = 16, 4096, 4096
SMS = 132  # the H200's streaming multiprocessors
TILE_M, TILE_N, BLOCK_K = 16, 64, 128


def slices(k: int, block_k: int, split_k: int) -> list[tuple[int, int]]:
    """[start, stop) of each slice: whole BLOCK_K steps, ceil(steps / split_k) per slice (last ones shorter)."""
    from tilelab.ops.matmul_hopper import split_k_slices  # the library's own rule, cited by the lesson

    return split_k_slices(k, block_k, split_k)


def build() -> Script:
    s = Script("splitk: more programs for a skinny matmul, and who adds the pieces up")
    s.say(f"C = A @ B with M={M}, N={N}, K={K}: a batch of {M} tokens through a {K}x{N} layer.")
    tiles = math.ceil(M / TILE_M) * math.ceil(N / TILE_N)
    s.ask(f"output tiles of {TILE_M}x{TILE_N}", tiles)
    s.ask(f"fraction of the {SMS} SMs with a program", f"{tiles}/{SMS} = {tiles / SMS:.0%}")
    s.ask(f"K steps each program walks alone (BLOCK_K={BLOCK_K})", K // BLOCK_K)
    s.say("Every program streams a 4096-deep column panel of B: half the SMs idle, the others busy for long.\n")

    split = 4
    s.say(f"Split K in {split}: program (tile, slice) multiplies only its slice of K.")
    s.ask("programs now", f"{tiles} x {split} = {tiles * split}")
    s.ask(f"slice ranges of K={K} (split_k_slices({K}, {BLOCK_K}, {split}))", slices(K, BLOCK_K, split))
    s.ask(f"slices of K=1000 in {split} (the last one is short)", slices(1000, BLOCK_K, split))
    s.say("Each slice holds a partial tile in float32. Someone has to add the four partials.\n")

    s.say("tilelab (kernels/matmul_splitk.py, finish_split_tile): each slice writes its partial to a workspace")
    s.say("plane, then atomically adds 1 to its tile's counter (release: its partial is visible first).")
    s.ask("the counter value a slice sees tells it how many arrived before it; who sums?",
          f"the one that sees {split - 1}: it arrived last, all partials are there")
    s.ask("in which order does it add the planes?", "slice 0, 1, 2, 3 - always, whoever is last")
    s.say("So the result is the same bits every run (no float atomics), it costs one launch, and the last")
    s.say("slice resets the counter to 0 so the next launch can reuse it without clearing memory.")
    s.say("Float atomics into one shared tile were measured too: slower at 2 slices, and the 4- and 8-slice")
    s.say("splits they sped up still lost to 2 slices (docs/PERFORMANCE-HISTORY.md, sixth session).\n")

    from tilelab.ops.matmul_hopper import SPLIT_K_MAX_WAVES, split_k_candidates

    s.ask("how many programs may a split make before the tuner stops trying it?",
          f"{SPLIT_K_MAX_WAVES} waves: {SPLIT_K_MAX_WAVES * SMS} on {SMS} SMs (matmul_hopper.split_k_candidates)")
    most = max(c.split_k for c in split_k_candidates(M, N, K, 1, 2, SMS) if (c.block_m, c.block_n) == (16, 64))
    s.ask(f"so the most slices of {TILE_M}x{TILE_N} tiles it times here", most)
    s.say("\nOn the H200, fp16 16x4096x4096 in one kernel-bench run (results/h200-matmul-float16-pingpong-final.json):")
    s.say("one program per 64x64 tile, unsplit (path='persistent': 64 programs), 27.2 us, 0.68x torch; split-K,")
    s.say("16x64x64 tiles in 2 slices (the default), 16.9 us, 1.09x. Try it: tilelab.matmul(a, b, path='splitk').\n")

    s.say("How much faster could it get? The multiply is nothing here; reading B is everything.")
    b_bytes = K * N * 2
    s.ask("bytes of fp16 B every program together must read", f"{K} x {N} x 2 = {b_bytes / 2**20:.0f} MiB")
    s.ask("time for that at the H200's measured copy rate, 4.09 TB/s (results/h200-calibration.json)",
          f"{b_bytes / 4.09e12 * 1e6:.1f} us, plus the launch")
    s.say("Measure the floor instead of trusting the arithmetic: time a kernel that only reads the same bytes,")
    s.say("the way kernel-bench times the matmul (scripts/h200_stream_floor_probe.py, the H200, fp16,")
    s.say("results/h200-stream-floor-probe.log). After kernel-bench's L2 flush, which leaves the L2 full of")
    s.say("written lines that must go back to memory before B's can come in:")
    s.say("  an empty kernel 3.6 us; the best plain read of B 15.1 us (2048 programs; 26.6 us with 128 programs")
    s.say("  of 4 warps); split-K 17.3 us; torch 18.7 us. With B already in the L2: read 8.1 us, split-K 11.6.")
    split_k_us, read_us = 17.3, 15.1
    s.ask("so how far is split-K from anything that reads B once, cold?",
          f"{split_k_us / read_us - 1:.0%} ({split_k_us - read_us:.1f} us)")
    s.say("Forty more tile shapes (wider tiles, 8 warps, 4 and 8 slices, TMA) all took 17.3 us or more")
    s.say("(results/h200-skinny-sweep-probe.log). So the gap is not the tile; the likely rest is what split-K")
    s.say("adds after the stream (partials written, counted, read back). A measured floor tells you when to stop")
    s.say("tuning.\n")

    s.say("Splitting is for filling idle SMs. Now M=128, the same N and K: two ways to about one program per SM.")
    halves = math.ceil(128 / 64) * math.ceil(N / 128) * 2
    narrow = math.ceil(128 / 64) * math.ceil(N / 64)
    s.ask("programs of 64x128 tiles in 2 slices", halves)
    s.ask("programs of 64x64 tiles, unsplit", narrow)
    s.ask("what does each way pay for its programs?",
          "the split: partials written, read back and summed; the narrow tiles: A re-read twice as often (A is 1 MB)")
    s.say("Measured in turns (results/h200-skinny-stages-probe.log, fp16): 64x64x128 tiles in 6 stages, unsplit,")
    s.say("19.0 us; 64x128x64 tiles in 8 stages and 2 slices, 20.0 us; torch 18.2 us. The H200's table")
    s.say("(src/tilelab/tuned/h200.json) keeps 64x64x128 in 7 stages, unsplit, for this bucket: the split-K path")
    s.say("with one slice, which stores C directly.\n")

    from tilelab.ops.matmul_hopper import SPLIT_K_TMA_MIN_M

    s.say("How a slice reads its tiles depends on C's rows (matmul_hopper.split_k_reads_through_tma).")
    s.ask(f"fewer than {SPLIT_K_TMA_MIN_M} rows", "pointer loads (cp.async), as tuned: 16x4096x4096 16.8 us against "
          "17.2 through TMA")
    s.ask(f"{SPLIT_K_TMA_MIN_M} rows or more (a weight gradient: 1024x1024 outputs, K = 4096 tokens)",
          "TMA, descriptors built on the host: 18.1 us against 20.5 through pointers")
    s.say("Both kinds were tuned at each shape (results/h200-split-k-tma-tuning.log, -pointers-tuning.log).\n")

    s.say("Through TMA the best tile also depends on where B's rows start. Its rows are K's: every program reads")
    s.say("the rows of its slice, and fp16 rows of 1000 (2000 bytes) start 16 bytes into a 32-byte sector every")
    s.say("other row, which TMA reads slower. So such problems tune apart from their power-of-two bucket")
    s.say("(ops.matmul._split_k_tiles_by_b_sectors, key '...|b-off-sectors').")
    s.ask("1000x1000x4000: how many times is B read in 64x128 tiles (the 1024x1024x4096 winner), and in 128x128?",
          "16 and 8: once per tile row of C (1000 / 64 rounds to 16 rows of tiles, 1000 / 128 to 8)")
    s.say("Measured in one kernel-bench run (results/h200-matmul-float16-long-k-off-sectors.json): 128x128x128")
    s.say("in 2 slices 27.0 us, torch 19.6; the 64x128x128 tile had taken 30.6")
    s.say("(results/h200-long-k-off-sector-probe.log).")
    return s
