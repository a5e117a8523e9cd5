"""Guard zones and poison for torch tensors handed to a learner's Triton kernel.

Only the Triton checks import this module, so torch is needed only there.

An output is a view into the middle of a larger buffer. The view starts as a marked NaN (so
an element nobody wrote is visible) and everything around it holds GUARD. After the
kernel runs, any guard cell that changed is a stray store; its position tells which
program and lane wrote it. Inputs sit in NaN-filled buffers, so an unmasked load
that reads past an edge drags a NaN into the result.

A batch ([batch, rows, cols]) gets the same band around every matrix, and `spare` whole
matrices of guard (or of NaN, for an input) after the last one: a program that picks a
matrix past the batch, or moves a pointer by another operand's batch stride, lands there.
"""

from __future__ import annotations

import math

import torch

GUARD = -4321.0  # exact in float16 and float32, and unlikely as a real result
# A NaN with its own bit pattern: a cell still holding exactly these bits was never
# written, while a NaN with other bits was computed (for example from a stray load).
POISON_BITS = 0x7FC0DEAD


class GuardedOutput:
    def __init__(self, shape: tuple[int, ...], dtype, device, pad: int, spare: int = 1):
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
        elif len(shape) == 3:
            batch, rows, cols = shape
            self.storage = torch.full((batch + max(1, spare), pad + rows + pad, cols + pad), GUARD, dtype=dtype,
                                      device=device)
            self.view = self.storage[:batch, pad:pad + rows, :cols]
        else:
            raise ValueError("guarded outputs are 1-D, 2-D or 3-D")
        if dtype != torch.float32:
            raise ValueError("guarded outputs are float32, so the poison bit pattern fits")
        self.view.view(torch.int32).fill_(POISON_BITS)

    def stray_stores(self, limit: int = 5) -> list[tuple[tuple[int, ...], float]]:
        """Positions outside the view that no longer hold GUARD, relative to the view's origin."""
        changed = self.storage.detach().cpu() != GUARD
        if len(self.shape) == 1:
            changed[self.pad:self.pad + self.shape[0]] = False
        elif len(self.shape) == 2:
            rows, cols = self.shape
            changed[self.pad:self.pad + rows, :cols] = False
        else:
            batch, rows, cols = self.shape
            changed[:batch, self.pad:self.pad + rows, :cols] = False
        positions = changed.nonzero().tolist()[:limit]
        cpu = self.storage.detach().cpu()
        found = []
        for pos in positions:
            value = float(cpu[tuple(pos)])
            if len(self.shape) == 1:
                found.append(((pos[0] - self.pad,), value))
            elif len(self.shape) == 2:
                found.append(((pos[0] - self.pad, pos[1]), value))
            else:  # (matrix, row, column); rows of the band above a matrix are negative
                found.append(((pos[0], pos[1] - self.pad, pos[2]), value))
        return found

    def unwritten_mask(self) -> torch.Tensor:
        return self.view.detach().cpu().view(torch.int32) == POISON_BITS

    def unwritten(self, limit: int = 5) -> list[tuple[int, ...]]:
        return [tuple(p) for p in self.unwritten_mask().nonzero().tolist()[:limit]]

    def written(self) -> torch.Tensor:
        """The view's values on the CPU, with never-written cells still NaN."""
        return self.view.detach().cpu().clone()


def padded_input(values: torch.Tensor, pad: int, spare: int = 1) -> torch.Tensor:
    """Copy values into a NaN-filled buffer with `pad` spare elements (or rows and columns) after it; a batch
    ([batch, rows, cols]) with `pad` rows and columns after each matrix and `spare` NaN matrices after the last."""
    if values.dim() == 1:
        storage = torch.full((values.shape[0] + pad,), math.nan, dtype=values.dtype, device=values.device)
        view = storage[:values.shape[0]]
    elif values.dim() == 2:
        rows, cols = values.shape
        storage = torch.full((rows + pad, cols + pad), math.nan, dtype=values.dtype, device=values.device)
        view = storage[:rows, :cols]
    else:
        batch, rows, cols = values.shape
        storage = torch.full((batch + max(1, spare), rows + pad, cols + pad), math.nan, dtype=values.dtype,
                             device=values.device)
        view = storage[:batch, :rows, :cols]
    view.copy_(values)
    return view


def fmt_value(value: float) -> str:
    return str(int(value)) if math.isfinite(value) and float(value).is_integer() else f"{value:.4g}"
