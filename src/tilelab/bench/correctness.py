"""Is a variant right? Its output against the float64 reference, before any timing.

Statuses:
  ok           relative error within the op's tolerance
  wrong        relative error above it (or NaN/inf): reported, never timed
  unsupported  the library refused these inputs by contract (e.g. the descriptor path on
               rows that are not 16-byte aligned), or the variant cannot run on this machine
               (registry.Unsupported, e.g. fp8 on a GPU without fp8 tensor cores): reported, not an error
  failed       anything else raised: reported, never timed
"""

import dataclasses
import math
import traceback

import torch

OK, WRONG, UNSUPPORTED, FAILED = "ok", "wrong", "unsupported", "failed"
STATUSES = (OK, WRONG, UNSUPPORTED, FAILED)


@dataclasses.dataclass
class CheckResult:
    status: str
    error: float | None  # relative error vs the float64 reference
    tolerance: float
    message: str | None = None


def relative_error(out: torch.Tensor, ref: torch.Tensor) -> float:
    """||out - ref|| / ||ref|| in float64, computed where the tensors live; inf for NaN/inf outputs.

    Same definition as tilelab.reference.relative_error, without copying
    gigabyte-sized float64 tensors to the host.
    """
    if tuple(out.shape) != tuple(ref.shape):
        raise ValueError(f"shapes differ: out {tuple(out.shape)} vs reference {tuple(ref.shape)}")
    out64 = out.detach().to(device=ref.device, dtype=torch.float64)
    if not bool(torch.isfinite(out64).all()):
        return float("inf")
    denom = float(ref.norm())
    diff = float((out64 - ref).norm())
    return diff / denom if denom > 0 else diff


def is_contract_refusal(exc: BaseException) -> bool:
    from tilelab.bench.registry import Unsupported

    if isinstance(exc, Unsupported):
        return True
    try:
        from tilelab.contracts import ContractError
    except ImportError:  # the library is broken; then nothing is a polite refusal
        return False
    return isinstance(exc, ContractError)


def check(run, inputs: tuple, ref: torch.Tensor, tolerance: float) -> CheckResult:
    """Run once on `inputs` and compare with `ref`."""
    try:
        out = run(*inputs)
        if ref.is_cuda:
            torch.cuda.synchronize()
        error = relative_error(out, ref)
    except Exception as exc:  # a variant's failure is a result to report, not a crash of the sweep
        if is_contract_refusal(exc):
            return CheckResult(UNSUPPORTED, None, tolerance, f"{type(exc).__name__}: {exc}")
        last = traceback.format_exception_only(type(exc), exc)[-1].strip()
        return CheckResult(FAILED, None, tolerance, last)
    if math.isinf(error):
        # JSON has no inf: the error stays null and the message says why.
        return CheckResult(WRONG, None, tolerance, "output contains NaN or inf")
    if error <= tolerance:
        return CheckResult(OK, error, tolerance)
    return CheckResult(WRONG, error, tolerance, f"relative error {error:.3g} > tolerance {tolerance:.3g}")
