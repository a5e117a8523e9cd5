"""explain pingpong: two warp groups taking turns on whole tiles (fp16/bf16 on Hopper, the library's Gluon kernel)."""

from __future__ import annotations

from .script import Script

SMS = 132  # the H200's streaming multiprocessors
THREADS_PER_GROUP = 128  # a warp group: 4 warps of 32


def build() -> Script:
    from tilelab.ops import matmul_hopper, matmul_pingpong

    persistent = matmul_hopper.PERSISTENT_CANDIDATES[0]
    mine = matmul_pingpong.DEFAULT_CONFIG
    s = Script("pingpong: one warp group stores while the other multiplies")
    s.say(f"The persistent kernel (kernels/matmul_persistent.py) gives each program {persistent.block_m}x"
          f"{persistent.block_n} tiles; its two warp groups share")
    s.say("each tile, 64 rows each. When a tile's K loop ends, both convert and store it, and the tensor cores")
    s.say("wait. How much that wait costs depends on how long the K loop was.\n")
    for k in (1024, 11008):
        s.ask(f"K steps per tile at K={k} (BLOCK_K={persistent.block_k})", -(-k // persistent.block_k))
    s.say("One epilogue per 16 steps is a large share of the time; one per 172 is not.\n")

    s.say("So give each warp group its own tiles: group 0 the program's tiles 0, 2, 4, ..., group 1 tiles")
    s.say("1, 3, 5, ... While one converts and stores, the other's wgmmas keep the tensor cores busy.")
    s.ask(f"float32 accumulator registers per thread for one group owning {persistent.block_m}x{persistent.block_n}",
          f"{persistent.block_m * persistent.block_n // THREADS_PER_GROUP}: more than the 255 a thread may have")
    s.ask(f"... and for one group owning {mine.block_m}x{mine.block_n}",
          mine.block_m * mine.block_n // THREADS_PER_GROUP)
    per_mac = {tile: (tile[0] + tile[1]) / (tile[0] * tile[1])
               for tile in ((persistent.block_m, persistent.block_n), (mine.block_m, mine.block_n))}
    small, large = per_mac[(mine.block_m, mine.block_n)], per_mac[(persistent.block_m, persistent.block_n)]
    s.ask("elements of A and B read per multiply-add, the smaller tile against the larger",
          f"{small / large:.2f}x: the price of the smaller tiles")
    s.say("Which wins is a measurement: the smaller tiles where K is short, the larger ones where it is long.\n")

    s.say(f"One loader warp fills a ring of {mine.num_stages} stages in tile order. A program's tile j uses ring")
    s.say("positions j * k_steps, j * k_steps + 1, ...; each stage has a 'ready' mbarrier the groups wait on.")
    k_steps = -(-1024 // mine.block_k)
    first = k_steps  # group 1's first tile is the program's tile 1
    s.ask("K=1024: ring position of group 1's first K step", first)
    s.ask("its stage and the phase parity it waits for (position % stages, position // stages % 2)",
          f"stage {first % mine.num_stages}, parity {first // mine.num_stages % 2}")
    s.ask("if group 1 waits there at once, while group 0 is still on its first steps, which data does it get?",
          f"round 0's (position {first % mine.num_stages}): that stage first completes a phase of parity 0,")
    s.say("  and a wait only tells a phase's parity, not which round it was. The kernel's first version did")
    s.say("  this, and the H200 answered 'unspecified launch failure'. The fix: the groups start their K loops")
    s.say("  in turn (kernels/matmul_pingpong.py, `turns`), so every wait is within one round of the ring.\n")

    s.say("The default takes this kernel where the persistent one would run, if K is short or its tiles end")
    s.say("the last wave sooner (matmul_pingpong.pays_off; waves_in_tiles counts a program's share in 128x128")
    s.say("tiles).")
    s.ask("PINGPONG_MAX_K", matmul_pingpong.PINGPONG_MAX_K)
    question = "{}x{}x{}: busiest program's share, pingpong against persistent, and the choice"
    for m, n, k in ((8192, 8192, 1024), (4096, 11008, 4096), (4096, 4096, 4096)):
        ours = matmul_pingpong.waves_in_tiles(m, n, mine, SMS)
        theirs = matmul_pingpong.waves_in_tiles(m, n, persistent, SMS)
        choice = "pingpong" if matmul_pingpong.pays_off(m, n, k, SMS) else "persistent"
        s.ask(question.format(m, n, k), f"{ours} against {theirs}: {choice}")
    s.say("\nOn the H200 (docs/PERFORMANCE-HISTORY.md, twelfth session): 8192x8192x1024 fp16 1.05-1.07x torch (0.99x")
    s.say("before), 4096x11008x4096 1.05-1.10x (1.02-1.03x); 4096^3 stays on the persistent kernel (1.00x against")
    s.say("0.99x).\n")

    s.say("A batch is one list of tiles, matrix after matrix, shared out over the same grid; its operands are")
    s.say("described once in 3-D and each copy names its matrix (kernels/gluon_loader.py, copy_in). Two warp")
    s.say("groups need two tiles per program, so for a batch pays_off asks for a share of at least 2.")
    for batch, m, n, k in ((256, 128, 128, 128), (2, 1024, 1024, 1024)):
        share = matmul_pingpong.waves_in_tiles(m, n, mine, SMS, batch)
        choice = "pingpong" if matmul_pingpong.pays_off(m, n, k, SMS, batch) else "not pingpong"
        s.ask(f"{batch}x{m}x{n}x{k}: the busiest program's share of 128x128 tiles, and the choice",
              f"{share}: {choice}")
    s.say("Measured (fourteenth session): 256x128^3 0.94-0.96x torch against 0.91x on one program per tile;")
    s.say("2x1024^3 0.95x against 1.01x. See what the compiler made: kernel-inspect --path pingpong --target sm_90.")
    return s
