"""Checks for exercise 12 (lesson 8): a tiled, masked Triton matmul with an fp32 accumulator."""

from __future__ import annotations

import torch

from learning.checking import reference as ref
from learning.checking import triton_support as ts
from learning.checking.tensor_guards import GuardedOutput, fmt_value, padded_input
from learning.checking.trial import CheckFailure, Part


def _inputs(trial, gen, m, n, k, transposed_a: bool):
    a = ts.randn(trial, m, k, gen=gen, dtype=torch.float16)
    b = ts.randn(trial, k, n, gen=gen, dtype=torch.float16)
    if transposed_a:
        # A as a transposed view of a K x M buffer: its strides are (1, M + pad), not (K, 1).
        return padded_input(a.t().contiguous(), pad=32).t(), padded_input(b, pad=32)
    return padded_input(a, pad=32), padded_input(b, pad=32)


def _cases(trial):
    yield "square 32x32 @ 32x32", (32, 32, 32, False), (16, 16, 16)
    yield "toy 2x3 @ 3x2 (C should be 58, 64, 139, 154)", None, (16, 16, 16)
    yield "1x1 @ 1x1", (1, 1, 1, False), (16, 16, 16)
    yield "ragged 37x45 @ 45x29", (37, 29, 45, False), (16, 16, 16)
    yield "ragged 65x33 @ 33x127, A transposed in memory", (65, 127, 33, True), (32, 32, 16)
    m, n, k = (trial.rng.randint(1, 70) for _ in range(3))
    yield f"random {m}x{k} @ {k}x{n}", (m, n, k, trial.rng.random() < 0.5), (16, 32, 16)


def _known_mistakes(a, b, block_k):
    a32, b32 = a.float(), b.float()
    inner = a.shape[1]
    last = (ref.cdiv(inner, block_k) - 1) * block_k
    mistakes = [(a32[:, last:] @ b32[last:, :], "is the accumulator reset inside the K loop?")]
    if a.shape[0] == a.shape[1] == b.shape[1]:
        mistakes.append((a32 @ b32.t(), "C equals A @ B.T: B's strides are swapped — stride_bk is "
                                        "b.stride(0), stride_bn is b.stride(1)"))
        mistakes.append((a32.t() @ b32, "C equals A.T @ B: A's strides are swapped — stride_am is "
                                        "a.stride(0), stride_ak is a.stride(1)"))
    return mistakes


def check_launch_matmul(module, trial) -> None:
    gen = ts.generator(trial)
    for label, shape, (bm, bn, bk) in _cases(trial):
        with trial.case(f"{label}, BLOCK_M={bm}, BLOCK_N={bn}, BLOCK_K={bk}"):
            if shape is None:
                a = padded_input(torch.tensor([[1.0, 2, 3], [4, 5, 6]], dtype=torch.float16, device=ts.device()), 32)
                b = padded_input(torch.tensor([[7.0, 8], [9, 10], [11, 12]], dtype=torch.float16,
                                              device=ts.device()), 32)
            else:
                m, n, k, transposed_a = shape
                a, b = _inputs(trial, gen, m, n, k, transposed_a)
            m, k, n = a.shape[0], a.shape[1], b.shape[1]
            c = GuardedOutput((m, n), torch.float32, ts.device(), pad=max(bm, bn))
            ts.call_kernel(module.launch_matmul, a, b, c.view, bm, bn, bk)
            strays = c.stray_stores()
            if strays:
                (row, col), value = strays[0]
                raise CheckFailure(
                    f"stray store of {fmt_value(value)} at C[{row},{col}], outside the {m}x{n} output: program "
                    f"(pid_m={row // bm}, pid_n={col // bn}), lane ({row % bm}, {col % bn}) of its "
                    f"{bm}x{bn} tile — is the store masked on both the M and the N edge?")
            missing = c.unwritten(limit=1)
            if missing:
                row, col = missing[0]
                raise CheckFailure(
                    f"C[{row},{col}] never written: the grid needs (cdiv(M, BLOCK_M), cdiv(N, BLOCK_N)) = "
                    f"({ref.cdiv(m, bm)}, {ref.cdiv(n, bn)}) programs, and program "
                    f"({row // bm}, {col // bn}) must store its tile")
            got = c.written()
            a_cpu, b_cpu = a.detach().cpu(), b.detach().cpu()
            want = a_cpu.float() @ b_cpu.float()
            tolerance = 1e-3 * max(1.0, k ** 0.5)
            diff = ts.first_difference(got, want, rtol=1e-3, atol=tolerance)
            if not diff:
                continue
            index, got_value, want_value = diff
            why = ""
            if torch.isnan(torch.tensor(got_value)):
                why = ("a load read past the K edge of A or B, where this memory holds NaN: mask K too, "
                       "with other=0.0 so the padding adds nothing to the dot product")
            for result, question in _known_mistakes(a_cpu, b_cpu, bk):
                if not why and ts.first_difference(got, result, rtol=1e-3, atol=tolerance) is None:
                    why = question
            ts.fail_at("C", index, got_value, want_value, why)


PARTS = [Part("launch_matmul", check_launch_matmul, needs=("matmul_kernel", "launch_matmul"))]
