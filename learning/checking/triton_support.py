"""Shared pieces of the Triton checks: where tensors live and how differences are reported.

Imported only by the Triton checks (it needs torch). By the time it runs, the worker
has decided between a GPU and Triton's interpreter (TRITON_INTERPRET=1).
"""

from __future__ import annotations

import os

import torch

from .tensor_guards import fmt_value
from .trial import CheckFailure


def device() -> str:
    return "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"


def generator(trial) -> torch.Generator:
    return torch.Generator().manual_seed(trial.seed)


def randn(trial, *shape, gen: torch.Generator, scale: float = 1.0, dtype=torch.float32) -> torch.Tensor:
    return (torch.randn(*shape, generator=gen) * scale).to(dtype).to(device())


def first_difference(got: torch.Tensor, want: torch.Tensor, rtol: float, atol: float):
    """(index, got value, wanted value) of the first element outside tolerance, or None."""
    got, want = got.detach().cpu().float(), want.detach().cpu().float()
    bad = ~torch.isclose(got, want, rtol=rtol, atol=atol)
    if not bool(bad.any()):
        return None
    index = tuple(bad.nonzero()[0].tolist())
    return index, float(got[index]), float(want[index])


def name_index(name: str, index: tuple[int, ...]) -> str:
    return f"{name}[{','.join(str(i) for i in index)}]"


def fail_at(name: str, index, got: float, want: float, why: str = "") -> None:
    message = f"{name_index(name, index)} is {fmt_value(got)}, expected {fmt_value(want)}"
    raise CheckFailure(f"{message}: {why}" if why else message)


def call_kernel(launch, *args, **kwargs):
    """Launch the learner's kernel and wait for it, so a GPU fault surfaces here."""
    result = launch(*args, **kwargs)
    if device() == "cuda":
        torch.cuda.synchronize()
    return result
