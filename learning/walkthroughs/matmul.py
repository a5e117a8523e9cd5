"""explain matmul: the 2x3 @ 3x2 example, BK=2 accumulation, and tile ownership for lesson 6's exit check."""

from __future__ import annotations

from learning.checking import reference as ref

from .script import Script

A = [[1, 2, 3], [4, 5, 6]]
B = [[7, 8], [9, 10], [11, 12]]

# Lesson 6's exit check.
EXIT_M, EXIT_N, EXIT_K = 5, 7, 5
EXIT_BM, EXIT_BN, EXIT_BK = 2, 3, 2


def _products(row: int, col: int, ks) -> str:
    return " + ".join(f"{A[row][k]}*{B[k][col]}" for k in ks)


def ownership_grid(m, n, bm, bn) -> list[str]:
    """Text picture: each cell of the padded tile footprint shows its program, '.' if masked."""
    tiles_n = ref.cdiv(n, bn)
    rows, cols = ref.cdiv(m, bm) * bm, tiles_n * bn
    lines = ["        col " + " ".join(f"{c:>2}" for c in range(cols))]
    for r in range(rows):
        cells = []
        for c in range(cols):
            program = (r // bm) * tiles_n + c // bn  # GROUP_M=1: row-major order
            cells.append(f"{program:>2}" if r < m and c < n else " .")
        lines.append(f"    row {r:>2}  " + " ".join(cells))
    return lines


def build() -> Script:
    s = Script("matmul: C = A @ B, traced")
    s.say("A is M x K, B is K x N, C is M x N. M picks an output row, N an output column, K is summed away.")
    s.say("A = [[1, 2, 3], [4, 5, 6]]        (M=2, K=3)")
    s.say("B = [[7, 8], [9, 10], [11, 12]]   (K=3, N=2)")
    s.ask("shape of C", f"{len(A)} x {len(B[0])}")
    s.say("\nEach entry is one row of A against one column of B:")
    c = ref.matmul(A, B)
    for row in range(2):
        for col in range(2):
            s.ask(f"C[{row},{col}] = {_products(row, col, range(3))}", c[row][col])

    s.say("\nNow with tiles: K is walked in steps of BK=2, as a Triton program would.")
    ranges = ref.tile_ranges(3, 2)
    s.ask("tile_ranges(3, 2), the K steps (half-open: stop excluded)", ranges)
    s.say("One accumulator for C[0,0], created BEFORE the K loop:  acc = 0")
    acc = 0
    for step, (k0, k1) in enumerate(ranges):
        part = sum(A[0][k] * B[k][0] for k in range(k0, k1))
        acc += part
        s.ask(f"K step {step}, k in [{k0}, {k1}): {_products(0, 0, range(k0, k1))}", part)
        s.ask(f"acc after K step {step}", acc)
    last = ref.matmul_last_k_tile(A, B, 2)[0][0]
    s.say(f"If acc were reset inside the K loop, only the last step would survive: C[0,0] = {last}, not {acc}.")

    s.say(f"\nTile ownership, lesson 6's exit check: C is {EXIT_M}x{EXIT_N}, BM={EXIT_BM}, BN={EXIT_BN}, "
          f"K={EXIT_K}, BK={EXIT_BK}.")
    row_tiles, col_tiles = ref.tile_ranges(EXIT_M, EXIT_BM), ref.tile_ranges(EXIT_N, EXIT_BN)
    s.ask(f"tile_ranges({EXIT_M}, {EXIT_BM}), the row tiles", row_tiles)
    s.ask(f"tile_ranges({EXIT_N}, {EXIT_BN}), the column tiles", col_tiles)
    programs = len(row_tiles) * len(col_tiles)
    s.ask("programs (one per output tile)", f"{len(row_tiles)} x {len(col_tiles)} = {programs}")
    s.ask(f"K steps per program: cdiv({EXIT_K}, {EXIT_BK})", ref.cdiv(EXIT_K, EXIT_BK))
    for dim, size, block in (("M", EXIT_M, EXIT_BM), ("N", EXIT_N, EXIT_BN), ("K", EXIT_K, EXIT_BK)):
        verdict = f"yes: {size} % {block} = {size % block}" if size % block else "no"
        s.ask(f"does {dim}={size} need a mask with block {block}?", verdict)
    s.say("\nWho owns each cell (program numbers in row-major order, GROUP_M=1; '.' = masked lane):")
    for line in ownership_grid(EXIT_M, EXIT_N, EXIT_BM, EXIT_BN):
        s.say(line)
    k_start, k_stop = ref.tile_ranges(EXIT_K, EXIT_BK)[-1]
    s.say(f"The last K step spans k = {k_start} and {k_start + 1}, but only k < {k_stop} exists: lane "
          f"k = {k_start + 1} is masked, loads 0, and 0 adds nothing to a dot product.")
    s.say("\nNext: python -m learning.check matmul   Picture: python -m learning.explain matmul --plot tiles.png")
    return s
