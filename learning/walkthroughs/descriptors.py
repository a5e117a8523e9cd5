"""explain descriptors: where a TMA descriptor comes from, and why the place matters."""

from __future__ import annotations

from .script import Script

DESCRIPTOR_BYTES = 128  # one CUtensorMap


def library_descriptors(m: int, n: int, k: int, block: tuple[int, int, int], batch: int = 0):
    """What tilelab.ops.descriptors.host_descriptors builds for fp16 A [m, k] row-major and B [k, n] stored [n, k]
    (with `batch`: a batch of that many such GEMMs, each with its own A and B)."""
    import torch

    from tilelab.ops.descriptors import host_descriptors
    from tilelab.ops.matmul_plan import operand_layout

    lead = (batch,) if batch else ()
    a = torch.empty((*lead, m, k), dtype=torch.float16)
    b = torch.empty((*lead, n, k), dtype=torch.float16).transpose(-1, -2)  # the transpose of a contiguous [n, k]
    c = torch.empty((*lead, m, n), dtype=torch.float16)
    bm, bn, bk = block
    as3 = (lambda x: x) if batch else (lambda x: x[None])
    return host_descriptors(a, b, c, operand_layout(as3(a)), operand_layout(as3(b)), bm, bn, bk, bn)


def build() -> Script:
    s = Script("descriptors: who writes the 128 bytes TMA reads, and how often")
    s.say("A TMA copy does not take a pointer. It takes a descriptor: a 128-byte record of where a matrix")
    s.say("lives (base address), its shape, its row strides in bytes, the box (tile) to copy and the dtype.")
    s.say("Somebody has to write that record before the first copy. There are two places to do it.\n")

    s.say("1. In the kernel: tl.make_tensor_descriptor (operand_descriptors in src/tilelab/kernels/matmul.py).")
    s.say("   Every program writes its own descriptors to global scratch memory and fences them.")
    s.say("2. On the host: tilelab.ops.descriptors.host_descriptors builds Triton TensorDescriptors; the launcher")
    s.say("   encodes each one once and passes it as a kernel parameter (HOST_DESCRIPTORS=True).\n")

    tiles = (2048 // 128) * (2048 // 256)
    s.ask("2048^3 fp16 on the descriptor path, 128x256 tiles: how many programs?", tiles)
    s.ask("descriptors written per launch when each program builds A's, B's and C's", f"{3 * tiles}"
          f" ({3 * tiles * DESCRIPTOR_BYTES // 1024} KiB, before any program copies a tile)")
    s.ask("... when the host builds them", "3, encoded on the CPU while the GPU is busy elsewhere")
    s.say("On the H200 (results/h200-host-descriptor-probe-float16.log) the same kernel and tiles took")
    s.say("31.0 us with descriptors built in every program and 28.4 us with host-built ones: torch took 28.4.\n")

    a, b, c = library_descriptors(1000, 1000, 1000, (64, 128, 64))
    s.say("What the library builds for 1000x1000x1000 fp16, A row-major, B stored transposed, 64x128x64 tiles:")
    s.ask("A: shape, strides (elements), block", f"{list(a.shape)}, {list(a.strides)}, {list(a.block_shape)}")
    s.ask("B is stored [N, K]: so its descriptor describes", f"{list(b.shape)}, {list(b.strides)}, "
          f"{list(b.block_shape)}: [N, K] as stored; the kernel reads the tile and uses .T")
    s.ask("C: shape, strides, block", f"{list(c.shape)}, {list(c.strides)}, {list(c.block_shape)}")
    s.ask("why must 1000 * 2 bytes be a multiple of 16 here?", "TMA needs 16-byte aligned row strides: 2000 is")
    s.say("")

    s.say("Can the host always build them? A batch: yes. Warp specialization: no.")
    batched, *_ = library_descriptors(1000, 1000, 1000, (64, 128, 64), batch=8)
    s.ask("a batch of 8 GEMMs, one launch: how many A descriptors?", f"one, in 3-D: {list(batched.shape)}, "
          f"{list(batched.strides)}, {list(batched.block_shape)}")
    s.say("   (stored_descriptor); the kernel reads block [1, 64, 64] of the batch's matrix `batch` and drops the 1")
    s.say("   (load_block).")
    s.ask("Triton 3.6's warp specialization splits C's store between two consumer groups: what must change?",
          "C's block shape: it rewrites a descriptor it built itself, but cannot rewrite a host-built one")
    s.say("   (tilelab.ops.matmul_hopper.persistent_host_descriptors says no for warp-specialized configs).\n")

    s.say("The host pays instead: encoding a tensor map costs CPU time on every call. A replayed call")
    s.say("(tilelab.ops.bound_launch.TensorMapCache) keeps one map per address: the map encodes where and how a")
    s.say("matrix lies, never what it holds.")
    s.ask("a weight matrix used every step: encoded how often?", "once")
    s.ask("new values copied into the same tensor: is the cached map stale?", "no: same address, same layout")
    s.say("Measured on the H200's host (results/h200-overhead-*.log, two calls on two hosts): a replayed")
    s.say("descriptor-path call took 2.4x torch.mm's CPU time with descriptors rebuilt and expanded by Triton")
    s.say("(45.9 against 19.4 us), and 1.05x through TensorMapCache (13.3 against 12.7 us).")
    s.say("\nSee it without a GPU: tests/unit/test_hopper_compile.py compiles the persistent kernel both ways;")
    s.say("only the in-kernel version contains tensormap.replace instructions. Write a matmul on host-built")
    s.say("descriptors yourself in workshop I11 (python -m learning.check triton_descriptors).")
    return s
