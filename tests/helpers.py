"""Helpers shared by the test modules."""

import torch

from tilelab.reference import matmul_reference, relative_error, tolerance


def randn(shape, dtype: torch.dtype, device, gen: torch.Generator) -> torch.Tensor:
    """Standard normal values drawn on the CPU (reproducible from the seed), then moved."""
    return torch.randn(shape, generator=gen, dtype=torch.float32).to(device=device, dtype=dtype)


def assert_matches_reference(out, a, b, *, precision=None, out_dtype=None, label=""):
    ref = matmul_reference(a, b)
    assert tuple(out.shape) == tuple(ref.shape), f"{label}: shape {tuple(out.shape)}, expected {tuple(ref.shape)}"
    assert out.dtype == (out_dtype or a.dtype), f"{label}: dtype {out.dtype}"
    err = relative_error(out, ref)
    allowed = tolerance(a.dtype, precision, out_dtype or a.dtype)
    assert err <= allowed, f"{label}: relative error {err:.3e} > {allowed:.1e}"
    return err
