"""Checks for exercise 11 (lesson 8): row softmax where masked lanes must count for nothing."""

from __future__ import annotations

import torch

from learning.checking import reference as ref
from learning.checking import triton_support as ts
from learning.checking.tensor_guards import GuardedOutput, fmt_value, padded_input
from learning.checking.trial import CheckFailure, Part


def zero_padded_softmax(x: torch.Tensor) -> torch.Tensor:
    """What comes out when masked lanes load 0 instead of -inf (exercise 18's checks use it too)."""
    cols = x.shape[1]
    padding = ref.next_power_of_two(cols) - cols
    top = torch.clamp(x.max(dim=1, keepdim=True).values, min=0.0) if padding else x.max(dim=1, keepdim=True).values
    exps = torch.exp(x - top)
    return exps / (exps.sum(dim=1, keepdim=True) + padding * torch.exp(-top))


def _diagnose(got, want, x, row):
    if torch.isnan(got[row]).any():
        if float(x[row].max()) > 100:
            return ("this row's values are near 1000 and exp(1000) overflows to inf: subtract the row max "
                    "before tl.exp")
        return "a NaN came from a lane outside the row: mask the load (other=-inf)"
    if ts.first_difference(got, zero_padded_softmax(x), 1e-4, 1e-6) is None:
        return ("masked lanes must load -inf (other=-float('inf')) so exp() turns them into 0; "
                "with other=0 they add to the sum")
    if row > 0 and ts.first_difference(got[:1], want[:1], 1e-4, 1e-6) is None:
        return "row 0 is right but this row is not: pass each tensor's own row stride (x.stride(0), out.stride(0))"
    return ""


def check_launch_softmax(module, trial) -> None:
    gen = ts.generator(trial)
    shapes = [(1, 1), (4, 127), (3, 255), (2, 65), (trial.rng.randint(1, 6), trial.rng.randint(1, 300))]
    for rows, cols in shapes:
        with trial.case(f"a {rows}x{cols} input, row 0 shifted by +1000, the last by -20, padded rows"):
            values = ts.randn(trial, rows, cols, gen=gen, scale=3.0)
            values[0] += 1000.0  # overflows unless the max is subtracted
            if rows > 1:
                values[-1] -= 20.0  # all negative: a masked lane that loads 0 would win the max
            x = padded_input(values, pad=ref.next_power_of_two(cols) + 3)  # a stride unlike out's
            out = GuardedOutput((rows, cols), torch.float32, ts.device(), pad=ref.next_power_of_two(cols))
            ts.call_kernel(module.launch_softmax, x, out.view)
            strays = out.stray_stores()
            if strays:
                (row, col), value = strays[0]
                # Where would the value belong if out's rows were stepped by x's row stride?
                r, c = divmod(row * out.view.stride(0) + col, x.stride(0))
                if 0 < r < rows and c < cols:
                    raise CheckFailure(f"stray store of {fmt_value(value)} at out[{row},{col}] (outside the "
                                       f"{rows}x{cols} output), which is where out[{r},{c}] lands if out's rows "
                                       f"are x.stride(0) = {x.stride(0)} apart; they are out.stride(0) = "
                                       f"{out.view.stride(0)} apart: pass out's own row stride for the store")
                raise CheckFailure(f"stray store of {fmt_value(value)} at out[{row},{col}] (outside the "
                                   f"{rows}x{cols} output): program {row}, lane {col} — is the store masked "
                                   "with columns < n_cols?")
            missing = out.unwritten(limit=1)
            if missing:
                row, col = missing[0]
                raise CheckFailure(f"out[{row},{col}] never written: does every row get a program and every "
                                   "valid lane a store?")
            got = out.written()
            want = torch.softmax(x.detach().cpu().float(), dim=1)
            diff = ts.first_difference(got, want, rtol=1e-4, atol=1e-6)
            if diff:
                index, got_value, want_value = diff
                ts.fail_at("out", index, got_value, want_value,
                           _diagnose(got, want, x.detach().cpu().float(), index[0]))


PARTS = [Part("launch_softmax", check_launch_softmax, needs=("softmax_kernel", "launch_softmax"))]
