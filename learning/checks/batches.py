"""Checks for exercise 16 (workshop I7): a batch's one list of tiles, the grids that share it out, and a batched
Triton matmul in one launch."""

from __future__ import annotations

import torch

from learning.checking import reference as ref
from learning.checking import triton_support as ts
from learning.checking.compare import check_value
from learning.checking.tensor_guards import GuardedOutput, fmt_value, padded_input
from learning.checking.trial import CheckFailure, Part

SMS = ref.H200_SMS
SM_CHOICES = [8, 16, 46, 78, 108, 114, 132, 170]
# (batch, tiles per matrix) from the batches in docs/PERFORMANCE-HISTORY.md (fourteenth session): 8x4096x4096x1024
# in the persistent kernel's 128x256 tiles (512) and in 128x128 ones (1024); 256x128^3, 128x128^3, 2x1024^3 and
# 4x512^3 in 128x128 tiles; 32x1024x1024x128 in 128x256 tiles.
MEASURED = [(8, 512), (8, 1024), (256, 1), (128, 1), (2, 64), (4, 16), (32, 32), (4, 512), (2, 512), (1, 512)]


def _pair(got):
    return tuple(got) if isinstance(got, list) else got


def check_matrix_and_tile(module, trial) -> None:
    cases = [(0, 6), (5, 6), (6, 6), (7, 6), (1000, 512), (511, 512), (512, 512), (0, 1), (9, 1), (17, 18)]
    for _ in range(5):
        per = trial.rng.randint(1, 600)
        cases.append((trial.rng.randint(0, 40 * per), per))
    for tile, per in cases:
        call = f"matrix_and_tile({tile}, {per})"
        with trial.case(call):
            matrix, within = ref.matrix_and_tile(tile, per)
            check_value(_pair(module.matrix_and_tile(tile, per)), (matrix, within), call, known_mistakes=[
                ((within, matrix), "the matrix is the quotient and the tile within it the remainder: "
                                   "(tile // tiles_per_matrix, tile % tiles_per_matrix)"),
                ((matrix, tile), "the tile within its matrix does not count the matrices before it: "
                                 "tile % tiles_per_matrix"),
                ((matrix + 1, within), "matrices count from 0: the first tiles_per_matrix tiles are matrix 0's"),
                ((-(-tile // per), within), "round the matrix down: tile // tiles_per_matrix whole matrices come "
                                            "before this tile"),
            ])


def check_programs_per_matrix_grid(module, trial) -> None:
    cases = [(1, 132), (8, 132), (4, 132), (12, 132), (5, 132), (32, 132), (256, 132), (3, 8), (7, 170)]
    cases += [(trial.rng.randint(1, 300), trial.rng.choice(SM_CHOICES)) for _ in range(5)]
    for batch, sms in cases:
        call = f"programs_per_matrix_grid({batch}, {sms})"
        with trial.case(call):
            share = ref.cdiv(sms, batch)
            check_value(module.programs_per_matrix_grid(batch, sms), ref.programs_per_matrix_grid(batch, sms), call,
                        known_mistakes=[
                            (batch * (sms // batch), "the old grid rounded each matrix's share up: ceil(sms / batch) "
                                                     "programs, batch times"),
                            (share, f"that is one matrix's programs; each of the {batch} matrices got its own"),
                            (sms, "each matrix got its own ceil(sms / batch) programs: when batch does not divide "
                                  "sms, batch of them make more than sms"),
                        ])


def check_per_matrix_grid_time(module, trial) -> None:
    cases = [(b, t, SMS) for b, t in MEASURED] + [(5, 512, SMS), (8, 4, SMS), (3, 100, SMS), (200, 3, SMS),
                                                 (8, 17, SMS), (1, 1, SMS)]
    for _ in range(6):
        cases.append((trial.rng.randint(1, 300), trial.rng.randint(1, 3000), trial.rng.choice(SM_CHOICES)))
    for batch, per, sms in cases:
        call = f"per_matrix_grid_time({batch}, {per}, {sms})"
        with trial.case(call):
            programs = min(ref.cdiv(sms, batch), per)
            rounds = ref.cdiv(batch * programs, sms)
            uncapped = ref.cdiv(sms, batch)
            check_value(module.per_matrix_grid_time(batch, per, sms), ref.per_matrix_grid_time(batch, per, sms),
                        call, known_mistakes=[
                            (ref.cdiv(per, programs), f"{batch} x {programs} = {batch * programs} programs on {sms} "
                                                      f"SMs run in {rounds} rounds: programs past the SM count "
                                                      "wait for a free SM. Multiply by ceil(batch * programs / sms)"),
                            (rounds * (per // programs), "the busiest program takes the rounded-up share of its "
                                                         "matrix's tiles: ceil(tiles_per_matrix / programs)"),
                            (ref.cdiv(batch * uncapped, sms) * ref.cdiv(per, uncapped),
                             "a matrix with fewer tiles than ceil(sms / batch) gets one program per tile: "
                             "min(ceil(sms / batch), tiles_per_matrix) programs"),
                            (ref.busiest_share(batch, per, sms), "that is one list's time (busiest_share); the old "
                                                                 "grid shares each matrix's tiles over its own "
                                                                 "programs"),
                        ])


def check_busiest_share(module, trial) -> None:
    cases = [(b, t, SMS) for b, t in MEASURED] + [(1, 1, SMS), (3, 44, SMS), (5, 512, SMS), (1, 133, SMS)]
    for _ in range(6):
        cases.append((trial.rng.randint(1, 300), trial.rng.randint(1, 3000), trial.rng.choice(SM_CHOICES)))
    for batch, per, sms in cases:
        call = f"busiest_share({batch}, {per}, {sms})"
        with trial.case(call):
            tiles = batch * per
            check_value(module.busiest_share(batch, per, sms), ref.busiest_share(batch, per, sms), call,
                        known_mistakes=[
                            (tiles // sms, "the busiest program takes the rounded-up share: a part-full last "
                                           "round still costs a whole tile"),
                            (tiles / sms, "a program runs whole tiles: round its share up"),
                            (ref.cdiv(per, sms), f"share all {batch} matrices' tiles, not one matrix's: "
                                                 "batch * tiles_per_matrix of them"),
                            (ref.cdiv(per, ref.cdiv(sms, batch)), "that is the old grid's share, each matrix over "
                                                                  "its own programs: one list shares all "
                                                                  "batch * tiles_per_matrix tiles over the SMs"),
                            (batch * ref.cdiv(per, sms), "one list: divide all batch * tiles_per_matrix tiles "
                                                         "among the programs, then round up once"),
                        ])


PAD = 16  # NaN rows and columns after each input matrix


def _cases(trial):
    """(label, batch, m, n, k, how A and B are laid out, (BLOCK_M, BLOCK_N, BLOCK_K))."""
    yield "batch 3, ragged 37x45 @ 45x29", 3, 37, 29, 45, "plain", (16, 16, 16)
    yield "batch 1, 20x33 @ 33x17", 1, 20, 17, 33, "plain", (16, 16, 16)
    yield "batch 4, 19x24 @ 24x21, B shared by the batch (expanded: b.stride(0) == 0)", 4, 19, 21, 24, "shared_b", \
        (16, 16, 16)
    yield "batch 2, 33x17 @ 17x40, A transposed in memory", 2, 33, 40, 17, "transposed_a", (32, 16, 16)
    batch = trial.rng.randint(1, 4)
    m, n, k = (trial.rng.randint(1, 40) for _ in range(3))
    layout, words = trial.rng.choice([("plain", ""), ("shared_b", ", B shared by the batch"),
                                      ("transposed_a", ", A transposed in memory")])
    yield f"random batch {batch}, {m}x{k} @ {k}x{n}{words}", batch, m, n, k, layout, (16, 32, 16)


def _spare(room: int, rows: int, cols: int) -> int:
    """Spare matrices after a [rows + PAD, cols + PAD] buffer's batch, so that it holds `room` elements."""
    return ref.cdiv(room, (rows + PAD) * (cols + PAD))


def _inputs(trial, gen, batch, m, n, k, layout, room):
    a = ts.randn(trial, batch, m, k, gen=gen, dtype=torch.float16)
    if layout == "transposed_a":
        # Each A[i] a transposed view of a K x M matrix: strides (batch stride, 1, M + pad).
        a = padded_input(a.transpose(1, 2).contiguous(), PAD, _spare(room, k, m)).transpose(1, 2)
    else:
        a = padded_input(a, PAD, _spare(room, m, k))
    if layout == "shared_b":
        # One B for the whole batch, as an expanded view: its batch stride is 0.
        b = padded_input(ts.randn(trial, 1, k, n, gen=gen, dtype=torch.float16), PAD, _spare(room, k, n))
        b = b.expand(batch, k, n)
    else:
        b = padded_input(ts.randn(trial, batch, k, n, gen=gen, dtype=torch.float16), PAD, _spare(room, k, n))
    return a, b


def _same(got, result, tolerance) -> bool:
    return bool(torch.isclose(got, result.float(), rtol=1e-3, atol=tolerance, equal_nan=True).all())


def _moved_by(x, batch_stride):
    """What a kernel reads for x if it moves x's pointer by `batch_stride` per matrix (None if past its buffer)."""
    try:
        return x.as_strided(x.shape, (batch_stride, x.stride(1), x.stride(2))).float()
    except RuntimeError:
        return None


def _informative(result) -> bool:
    """Whether a simulated mistake says more than "NaN past matrix 0": many wrong strides read only NaN there."""
    return result.shape[0] == 1 or not bool(torch.isnan(result[1:]).all())


def _known_mistakes(a, b, block_k):
    """(what the mistake computes, the question), computed on the same buffers the kernel read."""
    a32, b32 = a.float(), b.float()
    inner = a.shape[2]
    last = (ref.cdiv(inner, block_k) - 1) * block_k
    shared_b = b.stride(0) == 0
    mistakes = []
    if a.stride(0) != b.stride(0):
        b_by_a = _moved_by(b, a.stride(0))
        if b_by_a is not None and _informative(a32 @ b_by_a):
            mistakes.append((a32 @ b_by_a, "B's pointer moves by A's batch stride: each operand has its own, and "
                                           "B's is stride_bb = b.stride(0)"))
        a_by_b = _moved_by(a, b.stride(0))
        if not shared_b and a_by_b is not None and _informative(a_by_b @ b32):
            mistakes.append((a_by_b @ b32, "A's pointer moves by B's batch stride: each operand has its own, and "
                                           "A's is stride_ab = a.stride(0)"))
    if a.shape[0] > 1:
        note = " (moving it by B's batch stride does not: here it is 0, the batch shares one B)" if shared_b else ""
        mistakes.append((a32[:1] @ b32, f"every matrix used A[0]: A's pointer must move by matrix * stride_ab "
                                        f"(a.stride(0)){note}"))
        if not shared_b:
            mistakes.append((a32 @ b32[:1], "every matrix used B[0]: B's pointer must move by matrix * stride_bb "
                                            "(b.stride(0))"))
            mistakes.append((a32[:1] @ b32[:1], "every matrix holds matrix 0's product: move A's and B's pointers "
                                                "by matrix * their batch strides"))
    mistakes.append((a32[:, :, last:] @ b32[:, last:, :], "is the accumulator reset inside the K loop?"))
    return mistakes


def _stray_message(position, value, batch, m, n, bm, bn) -> str:
    matrix, row, col = position
    where = f"stray store of {fmt_value(value)} at C[{matrix},{row},{col}]"
    if matrix >= batch:
        return (f"{where}, in matrix {matrix} of a batch of {batch}: there is no such matrix. Is the matrix "
                "pid // tiles_per_matrix (the tile within it pid % tiles_per_matrix), and does C's pointer move by "
                "matrix * stride_cb?")
    tiles_m, tiles_n = ref.cdiv(m, bm), ref.cdiv(n, bn)
    if 0 <= row < tiles_m * bm and 0 <= col < tiles_n * bn:
        pid = matrix * tiles_m * tiles_n + (row // bm) * tiles_n + col // bn
        return (f"{where}, outside matrix {matrix}'s {m}x{n}: program {pid}, lane ({row % bm}, {col % bn}) of its "
                f"{bm}x{bn} tile — is the store masked on both the M and the N edge?")
    return (f"{where}, outside matrix {matrix}'s {m}x{n} and outside its tiles: does C's pointer move by "
            "matrix * stride_cb (c.stride(0)), and its rows by stride_cm?")


def check_launch_bmm(module, trial) -> None:
    gen = ts.generator(trial)
    for label, batch, m, n, k, layout, (bm, bn, bk) in _cases(trial):
        with trial.case(f"{label}, BLOCK_M={bm}, BLOCK_N={bn}, BLOCK_K={bk}"):
            tiles_per_matrix = ref.cdiv(m, bm) * ref.cdiv(n, bn)
            guard = max(bm, bn)
            c_matrix = (m + 2 * guard) * (n + guard)  # one matrix of C's buffer, with its guard band
            # Room in every buffer for a matrix index as large as the count of programs, times the largest batch
            # stride here: a kernel that mixes up strides or matrices reads NaN or writes guard, not memory
            # outside the buffers.
            room = (batch * tiles_per_matrix + 2) * max((m + PAD) * (k + PAD), (k + PAD) * (n + PAD), c_matrix)
            a, b = _inputs(trial, gen, batch, m, n, k, layout, room)
            c = GuardedOutput((batch, m, n), torch.float32, ts.device(), pad=guard, spare=ref.cdiv(room, c_matrix))
            ts.call_kernel(module.launch_bmm, a, b, c.view, bm, bn, bk)
            strays = c.stray_stores()
            if strays:
                position, value = strays[0]
                raise CheckFailure(_stray_message(position, value, batch, m, n, bm, bn))
            a_cpu, b_cpu = a.detach().cpu(), b.detach().cpu()
            want = a_cpu.float() @ b_cpu.float()
            got = c.written()
            tolerance = 1e-3 * max(1.0, k ** 0.5)
            unwritten = c.unwritten_mask()
            if bool(unwritten.any()):
                matrix, row, col = (int(i) for i in unwritten.nonzero()[0])
                where = f"C[{matrix},{row},{col}] never written"
                if batch > 1 and bool(unwritten[1:].all()) and not bool(unwritten[0].any()):
                    if _same(got[0], want[0], tolerance):
                        raise CheckFailure(
                            f"{where}, and only matrix 0 was: the grid needs batch * tiles_per_matrix = {batch} * "
                            f"{tiles_per_matrix} = {batch * tiles_per_matrix} programs, and program pid works on "
                            "matrix pid // tiles_per_matrix, on tile pid % tiles_per_matrix within it: is the "
                            "tile taken from pid itself instead?")
                    raise CheckFailure(
                        f"{where}, and only matrix 0 was, with something other than A[0] @ B[0]: every program "
                        "stored into matrix 0. Did the program compute its matrix from its id, and move C's "
                        "pointer by matrix * stride_cb?")
                tiles_n = ref.cdiv(n, bn)
                within = (row // bm) * tiles_n + col // bn
                raise CheckFailure(
                    f"{where}: the grid needs batch * tiles_per_matrix = {batch} * {tiles_per_matrix} = "
                    f"{batch * tiles_per_matrix} programs, and program {matrix * tiles_per_matrix + within} "
                    f"(matrix {matrix}, tile {within}) must store its tile, at tile row within // tiles_n = "
                    f"{within // tiles_n}, tile column within % tiles_n = {within % tiles_n}")
            diff = ts.first_difference(got, want, rtol=1e-3, atol=tolerance)
            if not diff:
                continue
            index, got_value, want_value = diff
            why = ""
            for result, question in _known_mistakes(a_cpu, b_cpu, bk):
                if _same(got, result, tolerance):
                    why = question
                    break
            if not why and torch.isnan(torch.tensor(got_value)):
                if index[0] > 0 and ts.first_difference(got[0], want[0], rtol=1e-3, atol=tolerance) is None:
                    why = (f"matrix 0 is right, but matrix {index[0]} read memory outside its A and B, where this "
                           "memory holds NaN: does each pointer move by matrix * its own operand's batch stride "
                           "(stride_ab = a.stride(0), stride_bb = b.stride(0))?")
                    if b_cpu.stride(0) == 0:
                        why += " Here the batch shares one B: b.stride(0) is 0, and every matrix reads the same B"
                else:
                    why = ("a load read past the M, N or K edge of A or B, where this memory holds NaN: mask "
                           "every edge, with other=0.0 so the padding adds nothing to the dot product")
            ts.fail_at("C", index, got_value, want_value, why)


PARTS = [
    Part("matrix_and_tile", check_matrix_and_tile),
    Part("programs_per_matrix_grid", check_programs_per_matrix_grid),
    Part("per_matrix_grid_time", check_per_matrix_grid_time),
    Part("busiest_share", check_busiest_share),
    Part("launch_bmm", check_launch_bmm, needs=("bmm_kernel", "launch_bmm")),
]
