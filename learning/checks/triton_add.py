"""Checks for exercise 9 (lesson 8): a vector-add Triton kernel and its launcher."""

from __future__ import annotations

import torch

from learning.checking import reference as ref
from learning.checking import triton_support as ts
from learning.checking.guarded_list import describe_offset, spans
from learning.checking.tensor_guards import GuardedOutput, fmt_value, padded_input
from learning.checking.trial import CheckFailure, Part

RAGGED = [1, 7, 127, 255, 65]


def check_launch_add(module, trial) -> None:
    gen = ts.generator(trial)
    for n in trial.sizes(RAGGED, extra=1, high=2000):
        block = trial.rng.choice([16, 32, 64])
        with trial.case(f"n={n}, BLOCK={block}"):
            x = padded_input(ts.randn(trial, n, gen=gen), pad=block)
            y = padded_input(ts.randn(trial, n, gen=gen), pad=block)
            out = GuardedOutput((n,), torch.float32, ts.device(), pad=2 * block)
            ts.call_kernel(module.launch_add, x, y, out.view, block)
            strays = out.stray_stores()
            if strays:
                (offset,), value = strays[0]
                raise CheckFailure(f"stray store of {fmt_value(value)} at out {describe_offset(offset, n, block)}: "
                                   "is the store masked with offsets < n?")
            missing = [i for (i,) in out.unwritten(limit=n)]
            if missing:
                raise CheckFailure(
                    f"out[{spans(missing)}] never written: n={n} with BLOCK={block} needs "
                    f"triton.cdiv({n}, {block}) = {ref.cdiv(n, block)} program(s); program "
                    f"{missing[0] // block} wrote nothing — is the grid rounded down, or the store missing?")
            diff = ts.first_difference(out.written(), x + y, rtol=1e-6, atol=1e-6)
            if diff:
                index, got, want = diff
                why = ""
                if torch.isnan(torch.tensor(got)):
                    why = "a NaN came from a load outside x or y: are the loads masked?"
                ts.fail_at("out", index, got, want, why)


PARTS = [Part("launch_add", check_launch_add, needs=("add_kernel", "launch_add"))]
