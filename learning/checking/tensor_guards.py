"""Guard zones and poison for torch tensors handed to a learner's Triton kernel.

Only the Triton checks import this module, so torch is needed only there.

An output is a view into the middle of a larger buffer. The view starts as a marked NaN (so
an element nobody wrote is visible) and everything around it holds GUARD. After the
kernel runs, any guard cell that changed is a stray store; its position tells which
program and lane wrote it. Inputs sit in NaN-filled buffers, so an unmasked load
that reads past an edge drags a NaN into the result.
"""

from __future__ import annotations

import math

import torch

GUARD = -4321.0  # exact in float16 and float32, and unlikely as a real result
# A NaN with its own bit pattern: a cell still holding exactly these bits was never
# written, while a NaN with other bits was computed (for example from a stray load).
POISON_BITS = 0x7FC0DEAD


class GuardedOutput:
    def __init__(self, shape: tuple[int, ...], dtype, device, pad: int):
        self.shape = tuple(shape)
        self.pad = pad
        if len(shape) == 1:
            (n,) = shape
            self.storage = torch.full((pad + n + pad,), GUARD, dtype=dtype, device=device)
            self.view = self.storage[pad:pad + n]
        elif len(shape) == 2:
            rows, cols = shape
            self.storage = torch.full((pad + rows + pad, cols + pad), GUARD, dtype=dtype, device=device)
            self.view = self.storage[pad:pad + rows, :cols]
        else:
            raise ValueError("guarded outputs are 1-D or 2-D")
        if dtype != torch.float32:
            raise ValueError("guarded outputs are float32, so the poison bit pattern fits")
        self.view.view(torch.int32).fill_(POISON_BITS)

    def stray_stores(self, limit: int = 5) -> list[tuple[tuple[int, ...], float]]:
        """Positions outside the view that no longer hold GUARD, relative to the view's origin."""
        changed = self.storage.detach().cpu() != GUARD
        if len(self.shape) == 1:
            changed[self.pad:self.pad + self.shape[0]] = False
        else:
            rows, cols = self.shape
            changed[self.pad:self.pad + rows, :cols] = False
        positions = changed.nonzero().tolist()[:limit]
        cpu = self.storage.detach().cpu()
        found = []
        for pos in positions:
            value = float(cpu[tuple(pos)])
            if len(self.shape) == 1:
                found.append(((pos[0] - self.pad,), value))
            else:
                found.append(((pos[0] - self.pad, pos[1]), value))
        return found

    def unwritten_mask(self) -> torch.Tensor:
        return self.view.detach().cpu().view(torch.int32) == POISON_BITS

    def unwritten(self, limit: int = 5) -> list[tuple[int, ...]]:
        return [tuple(p) for p in self.unwritten_mask().nonzero().tolist()[:limit]]

    def written(self) -> torch.Tensor:
        """The view's values on the CPU, with never-written cells still NaN."""
        return self.view.detach().cpu().clone()


def padded_input(values: torch.Tensor, pad: int) -> torch.Tensor:
    """Copy values into a NaN-filled buffer with `pad` spare elements (or rows and columns) after it."""
    if values.dim() == 1:
        storage = torch.full((values.shape[0] + pad,), math.nan, dtype=values.dtype, device=values.device)
        view = storage[:values.shape[0]]
    else:
        rows, cols = values.shape
        storage = torch.full((rows + pad, cols + pad), math.nan, dtype=values.dtype, device=values.device)
        view = storage[:rows, :cols]
    view.copy_(values)
    return view


def fmt_value(value: float) -> str:
    return str(int(value)) if math.isfinite(value) and float(value).is_integer() else f"{value:.4g}"
