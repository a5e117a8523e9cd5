"""Shared test set-up.

Without a CUDA GPU every kernel runs on Triton's interpreter, which must be
switched on before triton is first imported. Tests marked `gpu` are skipped
without CUDA, unless TILELAB_REQUIRE_GPU=1 makes a missing GPU a failure.
"""

import os

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

import pytest  # noqa: E402

REQUIRE_GPU = os.environ.get("TILELAB_REQUIRE_GPU") == "1"


def pytest_sessionstart(session):
    if REQUIRE_GPU and not torch.cuda.is_available():
        raise pytest.UsageError("TILELAB_REQUIRE_GPU=1 but torch sees no CUDA GPU")


def pytest_collection_modifyitems(config, items):
    if torch.cuda.is_available():
        # Timing comparisons cannot share the GPU with other test workers: their ratios would measure the crowd.
        if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
            alone = pytest.mark.skip(reason="compares timings: run it without pytest-xdist (make gpu-test)")
            for item in items:
                if "gpu_alone" in item.keywords:
                    item.add_marker(alone)
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU (TILELAB_REQUIRE_GPU=1 makes this an error)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


@pytest.fixture
def rng() -> torch.Generator:
    """Fresh random inputs every run; the seed is printed so a failure can be replayed."""
    seed = int.from_bytes(os.urandom(4), "little")
    print(f"random seed {seed}")
    return torch.Generator().manual_seed(seed)


@pytest.fixture(autouse=True)
def fresh_replays(monkeypatch):
    """Each test starts with no recorded launches: one test's replays never stand in for another's launches
    (which may be spied on or patched)."""
    from tilelab.ops import matmul as matmul_op
    from tilelab.ops import scaled_matmul as scaled_op

    monkeypatch.setattr(matmul_op, "_REPLAYS", {})
    monkeypatch.setattr(scaled_op, "_REPLAYS", {})


@pytest.fixture
def hopper_only():
    """Skip on a GPU that is not a Hopper: the Gluon kernels (registers, pingpong) are written for its wgmma.
    Without a GPU the `gpu` mark decides (skipped, or a failure under TILELAB_REQUIRE_GPU=1)."""
    from tilelab import env

    if torch.cuda.is_available() and env.capability(torch.cuda.current_device())[0] != 9:
        pytest.skip("the Gluon kernels use Hopper's wgmma")


@pytest.fixture
def poisoned_outputs(monkeypatch):
    """Fill every matmul output buffer (padding included) with NaN before the kernel runs.

    An element the kernel forgets to write stays NaN and fails the
    comparison; a write into the row padding shows up as a non-NaN there.
    Returns the list of allocated buffers so a test can inspect the padding.
    """
    from tilelab.ops import matmul as matmul_op

    real = matmul_op._allocate_output
    buffers = []

    def poisoned(*args, **kwargs):
        out = real(*args, **kwargs)
        storage = out._base if out._base is not None else out
        storage.fill_(float("nan"))
        buffers.append(out)
        return out

    monkeypatch.setattr(matmul_op, "_allocate_output", poisoned)
    # Replayed launches allocate their own output: keep every call on the poisoned path.
    monkeypatch.setattr(matmul_op, "_REPLAYS", _ForgetfulDict())
    return buffers


class _ForgetfulDict(dict):
    def __setitem__(self, key, value):
        pass
