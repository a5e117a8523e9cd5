"""Helpers shared by the test modules."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from tilelab.reference import matmul_reference, relative_error, tolerance


def randn(shape, dtype: torch.dtype, device, gen: torch.Generator) -> torch.Tensor:
    """Standard normal values drawn on the CPU (reproducible from the seed), then moved."""
    return torch.randn(shape, generator=gen, dtype=torch.float32).to(device=device, dtype=dtype)


def to_tf32(x: torch.Tensor, *, truncate: bool = False) -> torch.Tensor:
    """x as float32 with 10 explicit mantissa bits (tf32's): rounded to nearest, or truncated, as wgmma reads
    float32 operands."""
    bits = x.float().contiguous().view(torch.int32)
    if not truncate:
        bits = bits + 0x1000
    return (bits & ~0x1FFF).view(torch.float32)


def at_address(x: torch.Tensor, offset: int) -> torch.Tensor:
    """A contiguous copy of `x` whose data starts `offset` bytes past a 128-byte boundary (an L2 line)."""
    es = x.element_size()
    buffer = torch.empty(x.numel() + 256 // es, dtype=x.dtype, device=x.device)
    start = ((offset - buffer.data_ptr()) % 128) // es
    return buffer[start:start + x.numel()].view(x.shape).copy_(x)


def assert_matches_reference(out, a, b, *, precision=None, out_dtype=None, label="", on_device=False):
    """`out` against A @ B in float64: on the CPU (`matmul_reference`), or where A and B are (`on_device`: a GPU
    takes a second from problems of a few thousand a side that the CPU takes seconds over)."""
    ref = torch.matmul(a.double(), b.double()) if on_device else matmul_reference(a, b)
    assert tuple(out.shape) == tuple(ref.shape), f"{label}: shape {tuple(out.shape)}, expected {tuple(ref.shape)}"
    assert out.dtype == (out_dtype or a.dtype), f"{label}: dtype {out.dtype}"
    err = relative_error(out, ref)
    allowed = tolerance(a.dtype, precision, out_dtype or a.dtype)
    assert err <= allowed, f"{label}: relative error {err:.3e} > {allowed:.1e}"
    return err



def assert_graph_replays(run, inputs, gen: torch.Generator, *, label="graph replay", **reference):
    """Capture `run(*inputs)` in a CUDA graph (one eager call first, so tuning and compiling happen outside
    capture); twice, refill every input with fresh random values in place, replay, and compare with float64."""
    run(*inputs)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = run(*inputs)
    for _ in range(2):
        for x in inputs:
            x.copy_(randn(tuple(x.shape), x.dtype, x.device, gen))
        graph.replay()
        torch.cuda.synchronize()
        assert_matches_reference(out, *inputs, label=label, **reference)


def assert_gradients_match(run, a, b, gen: torch.Generator, *, max_error: float | None = None):
    """`out = run(a, b)` (a and b requiring grad), backward with a random upstream gradient, and dA = G @ B^T,
    dB = A^T @ G (batched too) compared with float64 within `max_error` (default: the input dtype's tolerance)."""
    out = run(a, b)
    grad = randn(tuple(out.shape), out.dtype, out.device, gen)
    out.backward(grad)
    a64, b64, g64 = (x.detach().double() for x in (a, b, grad))
    allowed = tolerance(a.dtype) if max_error is None else max_error
    for got, want, name in ((a.grad, g64 @ b64.transpose(-1, -2), "dA"), (b.grad, a64.transpose(-1, -2) @ g64, "dB")):
        err = relative_error(got, want)
        assert err < allowed, f"{name}: relative error {err:.2e} >= {allowed:.1e}"


ROOT = Path(__file__).resolve().parents[1]


def run_without_interpreter(code: str, stdin: str | None = None) -> str:
    """Run `code` in a child Python without TRITON_INTERPRET (which conftest sets when there is no GPU), so
    that compiling for a GPU target sees real JIT functions; returns its stdout, failing on a non-zero exit."""
    environment = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    environment["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), environment.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True, text=True,
                          env=environment, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def interpreter_plan_only(why: str):
    """Skip with a GPU: the test counts or names what the interpreter's plan does (one configuration, nothing
    timed), where a GPU's tuner times its candidates first. `why` names the GPU test that covers the same
    path there."""
    return pytest.mark.skipif(torch.cuda.is_available(), reason=f"checks the interpreter's plan; on a GPU: {why}")
