"""Compilation targets by name. Triton needs no GPU to compile for one: only the target's description.

kernel-inspect compiles only for the architectures whose tensor-core instructions its census counts
(`census.uses_tensor_cores`): the sm_80 family's warp-level `mma.sync` (Ampere, Ada) and Hopper's `wgmma`.
Anything else would compile, but its census would mislead: Blackwell's sm_100 runs `tcgen05.mma`, which the
census does not know ("tensor cores NO"), and below sm_80 Triton makes FMAs of every dot.
"""

TARGETS = {
    "sm_80": 80,  # Ampere (A100): mma.sync, cp.async, ldmatrix
    "sm_86": 86,  # Ampere (RTX 30xx, A40): as sm_80, a smaller SM
    "sm_87": 87,  # Ampere (Jetson Orin): as sm_80
    "sm_89": 89,  # Ada (RTX 40xx, L4, L40): as sm_80, plus fp8 (float8_e4m3fn) mma.sync
    "sm_90": 90,  # Hopper (H100/H200): wgmma, TMA (cp.async.bulk.tensor); Triton emits sm_90a
}
ALIASES = {"sm_90a": "sm_90"}  # what Triton emits for sm_90 (wgmma and TMA need the "a")
WARP_SIZE = 32  # every NVIDIA GPU


def supported() -> str:
    """The target names kernel-inspect accepts, for messages and --help."""
    return ", ".join(TARGETS) + " (sm_90a is sm_90) or native"


def resolve(name: str):
    """A triton GPUTarget for one of TARGETS (or an alias), or 'native' (the GPU here; needs one, of one of
    TARGETS' architectures); ValueError otherwise."""
    from triton.backends.compiler import GPUTarget

    if name == "native":
        import torch

        if not torch.cuda.is_available():
            raise ValueError(f"--target native needs a CUDA GPU; name one instead ({', '.join(TARGETS)})")
        major, minor = torch.cuda.get_device_capability()
        arch = major * 10 + minor
        if arch not in TARGETS.values():
            raise ValueError(f"--target native: this GPU is sm_{arch}, which kernel-inspect does not inspect: its "
                             f"census counts the tensor-core instructions of {', '.join(TARGETS)} (mma.sync, wgmma) "
                             f"only; name one of those instead")
        return GPUTarget("cuda", arch, WARP_SIZE)
    name = ALIASES.get(name, name)
    if name in TARGETS:
        return GPUTarget("cuda", TARGETS[name], WARP_SIZE)
    raise ValueError(f"unknown target {name!r} (--target): kernel-inspect compiles for {supported()}, the "
                     f"architectures whose tensor-core instructions (mma.sync, wgmma) its census counts; "
                     f"not, e.g., sm_100's tcgen05")


def label(target) -> str:
    return f"sm_{target.arch}"
