"""Hints for each exercise, gentlest first. `python -m learning.check NAME --hint` prints them."""

HINTS = {
    "offsets": [
        "cdiv rounds up: how many blocks of 4 cover 9 items? Three: two full ones and a partial one.",
        "(n + block - 1) // block rounds up without floats. Check it on n=8, block=4: it must give 2.",
        "Program pid owns pid*block, pid*block + 1, ..., pid*block + block - 1.",
        "In add_vectors, launch cdiv(len(out), block) programs and only touch the lanes whose mask is True.",
    ],
    "alignment": [
        "A load of w bytes is aligned at every row start only if w divides row_bytes: try 16, 8, 4, 2, 1.",
        "Sectors are numbered byte // sector. The piece covers bytes start .. start + length - 1.",
        "Row r starts at r * row_bytes; inside a unit only (r * row_bytes) % unit matters, and after `unit`"
        " rows the offsets repeat.",
        "worst_box_row_sectors: sectors_touched(offset, box_bytes, sector) for each offset in"
        " row_offsets(row_bytes, sector), then the largest.",
        "aligned_row_stride: a 1000-wide fp16 row is 2000 bytes; the next multiple of 128 bytes is 2048, which"
        " is 1024 elements.",
        "class_shift: row 1 of 2000-byte rows starts at byte 2000 = 15 x 128 + 80: 80 bytes past a line, so a"
        " class of 8 rows reads 80 bytes (40 fp16 elements) early. Row 9 starts 8 x 2000 = 125 x 128 bytes later.",
    ],
    "occupancy": [
        "registers_allocated: 151 registers are set aside as 152, the next multiple of 8: -(-151 // 8) * 8.",
        "programs_per_sm, registers: a program of 4 warps has 128 threads, each with 152 registers: 19456 of"
        " the SM's 65536, so 65536 // 19456 = 3 programs.",
        "programs_per_sm, the other limits: 64 // num_warps programs by warps, 32 by programs, and"
        " 233472 // (shared_bytes + 1024) by shared memory. The answer is the smallest of the four.",
        "register_cap_for: four programs of 4 warps are 4 * 4 * 32 = 512 threads; 65536 // 512 = 128 registers"
        " each, already a multiple of 8. Round down to a multiple of 8, and never above 248.",
    ],
    "filling": [
        "tile_count: ceil(1000 / 128) = 8 tiles along M and ceil(1000 / 64) = 16 along N: 8 x 16 = 128 tiles."
        " Round each side up with -(-m // block_m), then multiply.",
        "waves: 172 tiles on 132 SMs take two rounds, the second with only 40 tiles in it. Round up; 0 tiles"
        " need 0 waves.",
        "busy_fraction: two waves of 132 SMs offer 264 slots; 172 of them hold a tile: 172 / 264.",
        "choose_tiles, the padding rule: 100 rows round up to 128, 64 rows stay 64, and 20 rows round up to 64"
        " (the floor). Keep a tile only if block_m <= that for m and block_n <= that for n.",
        "choose_tiles, the fill: walk the fitting tiles in the given order (largest first) and return the first"
        " whose tile_count >= full_fill * sms. None does? The last fitting tile. None fits? The last candidate.",
    ],
    "implicit_gemm": [
        "output_size: a 3-tap filter with dilation 2 spans 5 inputs; with padding 2 a side of 12 offers 16, and"
        " (16 - 5) // 1 + 1 = 12 placements.",
        "gemm_sizes: the 32x64x56x56 input with a 3x3 filter, padding 1, gives 56x56 output pixels per image:"
        " M = 32 * 56 * 56 = 100352, N = C_out = 64, K = 3 * 3 * 64 = 576.",
        "a_entry: n, rest = divmod(m, OH * OW); oh, ow = divmod(rest, OW); tap, c = divmod(k, C_in);"
        " r, s = divmod(tap, KW). Then ih = oh * stride - padding + r * dilation.",
        "a_entry in the padding: ih or iw below 0, or at least H or W: return None (the kernel's mask reads 0).",
        "fold_batch_norm: gamma * (acc + bias - mean) / sqrt(var + eps) + beta = acc * scale + shift with"
        " scale = gamma / sqrt(var + eps) and shift = beta + (bias - mean) * scale.",
    ],
    "turns": [
        "ring_position: tile 2 of a program with 16 K steps per tile starts at 2 * 16 = 32; its step 5 is at 37.",
        "stage_and_parity: position 16 of a 6-stage ring is stage 16 % 6 = 4 in round 16 // 6 = 2, parity 0.",
        "wait_returns: the current phase is number `completed`. A wait for its parity blocks; for the other"
        " parity it returns at once (a fresh barrier, completed = 0, lets a wait for 1 through).",
        "wait_is_right: the wait tells parities apart, not rounds. It is right only when completed is wanted"
        " (it blocks until the wanted round) or wanted + 1 (the wanted round is the latest).",
        "waves_in_tiles: tiles = ceil(m / block_m) * ceil(n / block_n); the busiest program runs ceil(tiles /"
        " sms) of them, each block_m * block_n / 128^2 tiles of 128x128.",
        "pingpong_pays_off: k <= max_k, or waves_in_tiles with 128x128 tiles strictly less than with 128x256.",
    ],
    "batches": [
        "matrix_and_tile: with 6 tiles per matrix, tiles 0-5 are matrix 0's and tiles 6-11 matrix 1's: tile 7 is"
        " (7 // 6, 7 % 6) = (1, 1).",
        "programs_per_matrix_grid: 8 matrices on 132 SMs: ceil(132 / 8) = 17 programs each, 8 x 17 = 136 in all.",
        "per_matrix_grid_time: 512 tiles over a matrix's 17 programs: the busiest takes ceil(512 / 17) = 31. The"
        " 136 programs start in ceil(136 / 132) = 2 rounds, so 2 x 31 = 62. Cap the programs at the tiles first.",
        "busiest_share: one list of 8 x 512 = 4096 tiles over min(132, 4096) programs: ceil(4096 / 132) = 32.",
        "bmm_kernel: tiles_per_matrix = tl.cdiv(M, BLOCK_M) * tiles_n, with tiles_n = tl.cdiv(N, BLOCK_N); matrix ="
        " pid // tiles_per_matrix; within = pid % tiles_per_matrix is tile (within // tiles_n, within % tiles_n).",
        "Move each pointer to its matrix: a_ptr += matrix * stride_ab, and likewise B with stride_bb and C with"
        " stride_cb. A shared B has stride_bb = 0: every matrix then reads the same B.",
        "launch_bmm: grid = (batch * triton.cdiv(M, block_m) * triton.cdiv(N, block_n),), with batch = c.shape[0];"
        " pass a.stride(0), a.stride(1), a.stride(2), then B's three and C's three.",
    ],
    "strides": [
        "Row-major: the last dimension moves by 1; each earlier one moves by the product of all later sizes.",
        "The storage position of index (i, j) is offset + i*strides[0] + j*strides[1].",
        "A transpose swaps the last two sizes AND the last two strides; the storage is untouched.",
        "materialize walks every (row, col) of the view's shape and reads storage at element_offset.",
    ],
    "reduction": [
        "Pad the values with the neutral element until the length is a power of two.",
        "The neutral element leaves any value unchanged: 0 for +, -inf for max, '' for joining text.",
        "Each level combines neighbours: level[0] with level[1], level[2] with level[3], ...",
        "Stop when a level holds one value. Return all levels, the padded input first.",
    ],
    "softmax": [
        "softmax(x) equals softmax(x - c) for any constant c; pick c so exp never overflows.",
        "With c = max(row), the largest exponent is exp(0) = 1 and nothing overflows.",
        "exp(-inf) is 0, so a masked (-inf) entry gets probability 0 for free.",
    ],
    "rmsnorm": [
        "rms = sqrt(mean of the squares + eps); y = x / rms * weight.",
        "eps goes inside the square root, and the mean divides by the length.",
        "residual_rmsnorm adds first: h = x + residual. Normalise h, and hand h back as the new residual.",
    ],
    "matmul": [
        "C[row][col] sums A[row][inner] * B[inner][col] over inner. A's column count must equal B's row count.",
        "Allocate C as [[0.0] * N for _ in range(M)]: one new list per row.",
        "tile_ranges(7, 3) is [(0, 3), (3, 6), (6, 7)]: the stop is excluded and the last tile is clipped.",
        "matmul_tiled: for each (row tile, column tile) make a zeroed accumulator BEFORE the K loop, add each "
        "K tile's products into it, and write it to C after the loop.",
        "C arrives full of NaN: assign to it, never add to it.",
    ],
    "grouping": [
        "With GROUP_M=1 the order is row-major: (pid // num_pid_n, pid % num_pid_n).",
        "A group is GROUP_M tile rows wide; it holds GROUP_M * num_pid_n programs.",
        "Inside a group, consecutive programs walk down the group's rows: pid_m = first_m + (local % rows).",
        "The last group may have fewer rows: rows = min(GROUP_M, num_pid_m - first_m).",
    ],
    "measurement": [
        "speedup = old time / new time. A matmul does 2*M*N*K FLOPs (a multiply and an add each).",
        "Minimum traffic reads A and B once and writes C once: (M*K + K*N + M*N) * element_bytes.",
        "TFLOP/s = FLOPs / seconds / 1e12; GB/s = bytes / seconds / 1e9.",
        "Amdahl: 1 / ((1 - f) + f / s). Roofline: min(peak TFLOP/s, intensity * GB/s / 1000).",
    ],
    "triton_add": [
        "offsets = pid * BLOCK + tl.arange(0, BLOCK); mask = offsets < n.",
        "Load x and y with the mask, store x + y with the same mask.",
        "The grid is (triton.cdiv(n, block),): a tuple, rounded up.",
    ],
    "triton_row_sum": [
        "One program per row: row = tl.program_id(0), grid = (rows,).",
        "Rows are x.stride(0) elements apart, which may be more than n_cols. Pass the stride in.",
        "BLOCK must be a power of two at least n_cols: triton.next_power_of_2(n_cols). Mask with other=0.0.",
    ],
    "triton_softmax": [
        "The same layout as row_sum: one program per row, a power-of-two BLOCK, masked lanes.",
        "Masked lanes load other=-float('inf'): exp(-inf) = 0 keeps them out of the sum.",
        "Subtract tl.max(row, axis=0) before tl.exp, then divide by tl.sum.",
        "x and out have different row strides here: pass both.",
    ],
    "triton_softmax_rows": [
        "rows_per_program: rows of 128 are BLOCK = 128, and 4096 // 128 = 32 of them fill a tile; 3 rows of 128"
        " still get ROWS = 4 (the next power of two of 3), not 32; a row of 8192 gets ROWS = 1, not 0.",
        "The kernel: rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS) and cols = tl.arange(0, BLOCK). Then"
        " rows[:, None] * stride_x_row + cols[None, :] is a [ROWS, BLOCK] block of offsets: [ROWS, 1] plus [1, BLOCK].",
        "Load from tl.minimum(rows, n_rows - 1): a spare row of the last program re-reads the last row. The load"
        " mask is the column mask alone, in_row = (cols < n_cols)[None, :], with other=-float('inf').",
        "A row of the tile runs along axis=1: tl.max(x, axis=1) is one value per row, [ROWS]; subtract it as"
        " tl.max(x, axis=1)[:, None], and divide by tl.sum(exps, axis=1)[:, None] likewise.",
        "Store with mask owned & in_row, owned = (rows < n_rows)[:, None]: without it the last program's spare rows"
        " write past the end of out.",
        "launch_softmax_rows: rows, block = rows_per_program(n_rows, n_cols, tile_elements); grid ="
        " (triton.cdiv(n_rows, rows),); pass x.stride(0) and out.stride(0), and BLOCK=block, ROWS=rows.",
    ],
    "triton_matmul": [
        "Grid: (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N)). Program (pid_m, pid_n) owns one C tile.",
        "Row offsets rm = pid_m*BLOCK_M + tl.arange(0, BLOCK_M); likewise rn for columns and rk for K.",
        "A tile pointers: a_ptr + rm[:, None]*stride_am + k_offsets[None, :]*stride_ak. B likewise.",
        "Mask M, N and K edges on the loads with other=0.0; create acc = tl.zeros(..., tl.float32) before the loop.",
        "acc = tl.dot(a_tile, b_tile, acc) inside the loop; store acc once, masked on M and N.",
    ],
    "triton_split_k": [
        "k_slices: K=100 in steps of 16 is 7 steps; 4 slices get ceil(7 / 4) = 2 steps, 32 of K, each. Slice s starts"
        " at s * 32; clamp start and stop to k, so slice 3 is (96, 100), and with K=40 it is (40, 40): empty.",
        "The kernel's first half is your triton_matmul with a shorter loop: tile = tl.program_id(0) gives rows and"
        " cols (row-major: tile // cdiv(N, BLOCK_N), tile % cdiv(N, BLOCK_N)), k_slice = tl.program_id(1) gives"
        " the range(k_start, k_stop, BLOCK_K) of K steps. Loads stay masked with ks < K.",
        "Every program, even one whose slice is empty, stores acc into plane k_slice of the workspace, at"
        " ws_ptr + k_slice * M * N + rows[:, None] * N + cols[None, :], masked like C. Then it counts itself.",
        "arrived = tl.atomic_add(counters_ptr + tile, 1, sem=\"acq_rel\") returns the count from before the +1:"
        " 0 for the first to arrive, SPLIT_K - 1 for the last. Which slice that is changes from run to run.",
        "Only the program that sees SPLIT_K - 1 sums: total = tl.zeros(...) then, for s in tl.static_range(SPLIT_K),"
        " total += the masked load of plane s. Its own plane too: loading it keeps the order 0, 1, ..., SPLIT_K - 1.",
        "After storing C, the same program puts the counter back: tl.atomic_xchg(counters_ptr + tile, 0).",
        "launch_split_k: tiles = cdiv(M, block_m) * cdiv(N, block_n); workspace = torch.empty((split_k, M, N),"
        " dtype=torch.float32); counters = torch.zeros(tiles, dtype=torch.int32) unless given; grid"
        " (tiles, split_k), SPLIT_K=split_k; return C.",
    ],
    "triton_persistent": [
        "persistent_grid: tiles = cdiv(m, block_m) * cdiv(n, block_n), a partial tile counted whole; the grid is"
        " min(tiles, sms): 512 tiles on 132 SMs make 132 programs, 64 tiles make 64.",
        "tiles_of_program: list(range(pid, tiles, programs)). 12 tiles on 5 programs are two whole waves and 2 tiles"
        " more, so programs 0 and 1 get three tiles ([0, 5, 10], [1, 6, 11]) and the others two.",
        "The kernel: pid = tl.program_id(0), programs = tl.num_programs(0), tiles = tl.cdiv(M, BLOCK_M) *"
        " tl.cdiv(N, BLOCK_N), then `for tile in range(pid, tiles, programs):` around everything that belongs to a"
        " tile.",
        "GROUP_M order, grouping.py's grouped_tile in Triton: per_group = GROUP_M * tiles_n, first_m = (tile //"
        " per_group) * GROUP_M, rows_here = tl.minimum(tiles_m - first_m, GROUP_M), pid_m = first_m + (tile %"
        " per_group) % rows_here, pid_n = (tile % per_group) // rows_here.",
        "Inside the tile loop, exercise 12's body: rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M), likewise cols;"
        " acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32) made there, for this tile only; the K loop of masked"
        " loads and tl.dot; one store masked with rows < M and cols < N.",
        "launch_persistent: programs = persistent_grid(M, N, block_m, block_n, sms), then"
        " persistent_matmul_kernel[(programs,)](a, b, out, M, N, K, the six strides, BLOCK_M=block_m,"
        " BLOCK_N=block_n, BLOCK_K=block_k, GROUP_M=group_m); make out with torch.empty when it is None; return it.",
    ],
    "triton_descriptors": [
        "descriptor_fits: four tests, all of them: t.dim() == 2, t.stride(1) == 1, t.data_ptr() % 16 == 0 and"
        " (t.stride(0) * t.element_size()) % 16 == 0. fp16 rows of 45 values are 90 bytes: no; of 48, 96: yes.",
        "The kernel: off_m = tl.program_id(0) * BLOCK_M and off_n = tl.program_id(1) * BLOCK_N, in elements. acc ="
        " tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32) before the loop; for k in range(0, K, BLOCK_K):"
        " acc = tl.dot(a_desc.load([off_m, k]), b_desc.load([k, off_n]), acc).",
        "No masks anywhere: past the descriptor's shape a load returns zeros, which add nothing to the dot"
        " product. One c_desc.store([off_m, off_n], acc) at the end; TMA drops what falls past C's shape.",
        "launch_descriptor_matmul: for each of (\"a\", a), (\"b\", b), (\"c\", c), raise"
        " ValueError(f\"{name} ...\") when descriptor_fits says no, before building anything.",
        "Then TensorDescriptor(a, list(a.shape), list(a.stride()), [block_m, block_k]), b's with [block_k, block_n],"
        " c's with [block_m, block_n]; grid (triton.cdiv(M, block_m), triton.cdiv(N, block_n)); pass the three"
        " descriptors, M, N, K and the block sizes as BLOCK_M=..., and return c.",
        "On a GPU, \"an illegal instruction was encountered\" from this kernel is usually a TMA copy that starts"
        " part-way into 16 bytes of a row: descriptor coordinates are elements, [pid_m * BLOCK_M, k].",
    ],
    "triton_depthwise": [
        "division_magic: ceil(log2(d)) in integers is (d - 1).bit_length() (0 for d = 1, 6 for d = 56); shift = 31"
        " + that, magic = (1 << shift) // d + 1. Check it in Python: (123456 * magic) >> shift == 123456 // 56.",
        "In the kernel, multiply in 64 bits: ((pixels.to(tl.int64) * OW_MAGIC) >> OW_SHIFT).to(tl.int32) is"
        " pixels // OW, call it rows (image and oh as one number); rows // OH the same way gives image; then"
        " oh = rows - image * OH and ow = pixels - rows * OW.",
        "The window of pixel (image, oh, ow) starts at row oh - PAD, column ow - PAD of x. Form the per-pixel"
        " address x_ptr + image * stride_xn + (oh - PAD) * stride_xh + (ow - PAD) * stride_xw once, before the loops.",
        "for r in range(KH): the row's ih = oh - PAD + r and its bounds test (0 <= ih < H, and pixel_ok) once; then"
        " for s in tl.static_range(KW): add the column test (0 <= iw < W) and load [BLOCK_M, BLOCK_C] with"
        " mask=inside[:, None] & channel_ok[None, :], other=0.0, and the weight's [BLOCK_C] for (r, s).",
        "acc is made once, before the loops, as tl.zeros((BLOCK_M, BLOCK_C), dtype=tl.float32); acc += a * b[None, :]."
        " Store at image * stride_yn + oh * stride_yh + ow * stride_yw + channels * stride_yc, masked by both.",
        "launch_depthwise: OH = H + 2 * padding - KH + 1 (and OW likewise); out channels-last"
        " (memory_format=torch.channels_last) when None; grid (cdiv(N * OH * OW, block_m), cdiv(C, block_c)).",
    ],
}
