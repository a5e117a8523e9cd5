"""Compilation targets by name. Triton needs no GPU to compile for one: only the target's description."""

TARGETS = {
    "sm_80": 80,  # Ampere (A100): mma.sync, cp.async, ldmatrix
    "sm_90": 90,  # Hopper (H100/H200): wgmma, TMA (cp.async.bulk.tensor); Triton emits sm_90a
}
WARP_SIZE = 32  # every NVIDIA GPU


def resolve(name: str):
    """A triton GPUTarget for 'sm_80', 'sm_90', any 'sm_NN', or 'native' (the GPU here; needs one)."""
    from triton.backends.compiler import GPUTarget

    if name == "native":
        import torch

        if not torch.cuda.is_available():
            raise ValueError("--target native needs a CUDA GPU; name one instead (sm_80, sm_90)")
        major, minor = torch.cuda.get_device_capability()
        return GPUTarget("cuda", major * 10 + minor, WARP_SIZE)
    if name in TARGETS:
        return GPUTarget("cuda", TARGETS[name], WARP_SIZE)
    if name.startswith("sm_") and name[3:].rstrip("a").isdigit():
        return GPUTarget("cuda", int(name[3:].rstrip("a")), WARP_SIZE)
    raise ValueError(f"unknown target {name!r}: use sm_80, sm_90, sm_NN or native")


def label(target) -> str:
    return f"sm_{target.arch}"
