"""Descriptors built on the host (kernel parameters) against descriptors built in every program (run on the H200).

    PYTHONPATH=src:. python scripts/h200_host_descriptor_probe.py [--rounds 5]
    TRITON_INTERPRET=1 PYTHONPATH=src:. python scripts/h200_host_descriptor_probe.py --check   # CPU, correctness

Same kernels, same configurations, same operands; only HOST_DESCRIPTORS differs. Variants take turns
(`--rounds`), each timed with tuning.measure_ms (events, cold L2), next to torch.mm. (A variant that does not
compile is now dropped after its first call; call N's log shows it failing in every round.)
"""

import argparse

import torch
import triton

from scripts.turns import first_calls, medians_in_turns
from tilelab import env, tuning
from tilelab.kernels.matmul import matmul_descriptor_kernel
from tilelab.kernels.matmul_persistent import matmul_persistent_kernel
from tilelab.ops import descriptors, matmul_hopper, matmul_plan
from tilelab.ops import matmul as matmul_op
from tilelab.ops.matmul_hopper import HopperConfig
from tilelab.tuning import Config

WARP_SPECIALIZED = HopperConfig(128, 256, 64, 8, num_warps=4, num_stages=3, epilogue_subtile=False,
                                warp_specialize=True)
SHAPES = [(1000, 1000, 1000), (1024, 1024, 1024), (2048, 2048, 2048), (128, 4096, 4096), (4096, 4096, 4096),
          (8192, 8192, 8192), (4096, 11008, 4096), (8192, 8192, 1024)]


def operands(m, n, k, dtype, device):
    a = torch.randn(m, k, device=device).to(dtype)
    b = torch.randn(k, n, device=device).to(dtype)
    return a, b


def kernel_operands(a, b, config: Config, host: bool, c_block_n: int):
    """A padded output C and the kernels' first three arguments: descriptors built by `host_descriptors`
    (host=True), or the tensors themselves for each program to describe."""
    m, n = a.shape[0], b.shape[1]
    width = matmul_op.padded_row_stride(n, a.element_size())
    c = torch.empty((m, width), dtype=a.dtype, device=a.device)[:, :n]
    if not host:
        descriptors.ensure_descriptor_scratch()
        return c, (a, b, c)
    layouts = matmul_plan.operand_layout(a[None]), matmul_plan.operand_layout(b[None])
    return c, descriptors.host_descriptors(a, b, c, *layouts, config.block_m, config.block_n, config.block_k,
                                         c_block_n)


def descriptor_launch(a, b, config: Config, host: bool):
    """A launch of matmul_descriptor_kernel on row-major 2-D a, b; returns (launch, output)."""
    (m, k), n = a.shape, b.shape[1]
    c, operands = kernel_operands(a, b, config, host, config.block_n)
    grid = (triton.cdiv(m, config.block_m) * triton.cdiv(n, config.block_n), 1, 1)
    args = (*operands, m, n, k, 0, a.stride(0), 0, b.stride(0), 0, c.stride(0),
            config.block_m, config.block_n, config.block_k, config.group_m, "tf32", True, False, host)

    def launch():
        matmul_descriptor_kernel[grid](*args, num_warps=config.num_warps, num_stages=config.num_stages)
    return launch, c


def persistent_launch(a, b, config: HopperConfig, host: bool, sms: int):
    """The same for matmul_persistent_kernel, one program per SM (at most)."""
    (m, k), n = a.shape, b.shape[1]
    c, operands = kernel_operands(a, b, config, host, config.store_block_n)
    grid = (min(triton.cdiv(m, config.block_m) * triton.cdiv(n, config.block_n), sms), 1, 1)
    args = (*operands, m, n, k, 0, a.stride(0), 0, b.stride(0), 0, c.stride(0),
            config.block_m, config.block_n, config.block_k, config.group_m, "tf32", True, False, config.num_stages,
            config.epilogue_subtile, config.warp_specialize, config.flatten, host)

    def launch():
        matmul_persistent_kernel[grid](*args, num_warps=config.num_warps, num_stages=config.num_stages)
    return launch, c


def tuned_config(a, b, path):
    """The configuration the library uses for this problem on `path`."""
    described = matmul_op.describe_plan(a, b, path=path)
    cfg = described["config"]
    if cfg is None:
        return None
    return HopperConfig(**cfg) if path == "persistent" else Config.from_dict(cfg)


def check() -> None:
    """Under the interpreter: both variants of both kernels agree with a float64 product."""
    for m, n, k in [(7, 72, 40), (64, 96, 48), (130, 72, 64)]:
        a, b = operands(m, n, k, torch.float16, "cpu")
        ref = a.double() @ b.double()
        for host in (False, True):
            for name, (launch, c) in {
                "descriptor": descriptor_launch(a, b, Config(32, 64, 32, 8, 4, 1), host),
                "persistent": persistent_launch(a, b, HopperConfig(32, 64, 32, 8, num_warps=4, num_stages=1),
                                                host, 4),
            }.items():
                c.fill_(float("nan"))
                launch()
                err = ((c.double() - ref).norm() / ref.norm()).item()
                print(f"{m}x{n}x{k} {name:10s} host={host!s:5s} rel err {err:.1e}")
                assert err < 2e-3, err


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dtype", default="float16")
    args = parser.parse_args()
    if args.check:
        check()
        return
    dtype = getattr(torch, args.dtype)
    sms = matmul_hopper.device_sms(torch.device("cuda"))
    for m, n, k in SHAPES:
        a, b = operands(m, n, k, dtype, "cuda")
        ref = torch.mm(a.double(), b.double()) if m * n * k <= 2**33 else None
        variants = {"torch": lambda a=a, b=b: torch.mm(a, b),
                    "library default": lambda a=a, b=b: matmul_op.matmul(a, b)}
        outputs = {}
        probes = [("descriptor", descriptor_launch, tuned_config(a, b, "descriptor") or tuning.GPU_CANDIDATES[5]),
                  ("persistent", persistent_launch, tuned_config(a, b, "persistent"))]
        if m * n * k >= 2**34:  # and the warp-specialized tile, whose producer warp issues the TMA loads
            probes.append(("persistent", persistent_launch, WARP_SPECIALIZED))
        for path, make, config in probes:
            for host in (False, True):
                extra = (sms,) if path == "persistent" else ()
                launch, c = make(a, b, config, host, *extra)
                name = f"{path}-{'host' if host else 'device'} {config.label()}"
                variants[name] = launch
                outputs[name] = c
        first_calls(variants)
        medians = medians_in_turns(variants, args.rounds)
        flops = 2 * m * n * k
        torch_ms = medians.pop("torch")
        print(f"{m}x{n}x{k} {dtype}: torch {torch_ms * 1e3:8.1f} us {flops / torch_ms / 1e9:6.1f} TFLOP/s", flush=True)
        for name, ms in medians.items():
            err = ""
            if ref is not None and name in outputs:
                err = f" err {((outputs[name].double() - ref).norm() / ref.norm()).item():.1e}"
            print(f"  {name:58s} {ms * 1e3:8.1f} us {flops / ms / 1e9:6.1f} TFLOP/s ({torch_ms / ms:.3f}x){err}",
                  flush=True)
    print("interpreting" if env.interpreting() else "done")


if __name__ == "__main__":
    main()
