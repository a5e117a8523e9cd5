"""Checks for exercise 10 (lesson 8): one program per row, summing with masked lanes."""

from __future__ import annotations

import torch

from learning.checking import reference as ref
from learning.checking import triton_support as ts
from learning.checking.guarded_list import spans
from learning.checking.tensor_guards import GuardedOutput, fmt_value, padded_input
from learning.checking.trial import CheckFailure, Part


def check_launch_row_sum(module, trial) -> None:
    gen = ts.generator(trial)
    shapes = [(1, 1), (7, 127), (3, 255), (5, 65), (trial.rng.randint(1, 8), trial.rng.randint(1, 300))]
    for rows, cols in shapes:
        with trial.case(f"a {rows}x{cols} input (rows padded: row stride {cols + ref.next_power_of_two(cols)})"):
            pad = ref.next_power_of_two(cols)
            x = padded_input(ts.randn(trial, rows, cols, gen=gen), pad=pad)
            out = GuardedOutput((rows,), torch.float32, ts.device(), pad=16)
            ts.call_kernel(module.launch_row_sum, x, out.view)
            strays = out.stray_stores()
            if strays:
                (offset,), value = strays[0]
                raise CheckFailure(f"stray store of {fmt_value(value)} at out offset {offset} (the output has "
                                   f"{rows} entries), written by program {offset}: launch exactly one "
                                   "program per row, grid = (rows,)")
            missing = [i for (i,) in out.unwritten(limit=rows)]
            if missing:
                raise CheckFailure(f"out[{spans(missing)}] never written: does every row get a program and "
                                   "does each program store its sum?")
            got = out.written()
            want = x.detach().cpu().float().sum(dim=1)
            diff = ts.first_difference(got, want, rtol=1e-5, atol=1e-4)
            if diff:
                (row,), got_value, want_value = diff
                why = ""
                if row > 0 and ts.first_difference(got[:1], want[:1], 1e-5, 1e-4) is None:
                    why = (f"row 0 is right but row {row} is not: the rows are {x.stride(0)} elements apart "
                           f"here, not {cols} — pass x.stride(0) and step by it")
                elif got_value == float("-inf"):
                    why = ("masked lanes loaded -inf, the neutral element of a max: a sum's is 0, so load them "
                           "with other=0.0")
                elif torch.isnan(torch.tensor(got_value)):
                    why = ("a lane read past the end of the row, where this memory holds NaN: mask the load "
                           "with columns < n_cols and other=0.0 so masked lanes add nothing")
                ts.fail_at("out", (row,), got_value, want_value, why)


PARTS = [Part("launch_row_sum", check_launch_row_sum, needs=("row_sum_kernel", "launch_row_sum"))]
