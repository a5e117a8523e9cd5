"""Backwards by recomputation: the forward again with torch's own ops, differentiated by autograd.

The fused kernels (a convolution block, a linear layer with its activation, RMSNorm) keep nothing for a backward
of their own. Recomputing the same function with torch gives the same gradients, for the price of one more
forward.
"""

from collections.abc import Callable, Sequence

import torch


def gradients_by_recompute(forward: Callable[..., torch.Tensor], inputs: Sequence[torch.Tensor | None],
                           needs: Sequence[bool], grad_output: torch.Tensor) -> list[torch.Tensor | None]:
    """d(forward(*inputs)) / d(input) against `grad_output`, for each input whose `needs` is set (None for the
    rest, and for inputs that are None). Each gradient comes back in its input's dtype."""
    leaves = [None if t is None else t.detach().requires_grad_(need) for t, need in zip(inputs, needs, strict=True)]
    wanted = [t for t in leaves if t is not None and t.requires_grad]
    if not wanted:
        return [None] * len(leaves)
    with torch.enable_grad():
        output = forward(*leaves)
        grads = iter(torch.autograd.grad(output, wanted, grad_output.to(output.dtype)))
    return [next(grads) if t is not None and t.requires_grad else None for t in leaves]
