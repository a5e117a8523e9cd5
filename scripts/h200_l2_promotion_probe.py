"""Does the tensor maps' L2 promotion matter? (run on the H200)

    PYTHONPATH=src:. python scripts/h200_l2_promotion_probe.py [--rounds 8] [--dtype fp16]

Triton 3.6 encodes every host-built tensor map with CU_TENSOR_MAP_L2_PROMOTION_L2_128B; CUTLASS and most
hand-written Hopper GEMMs ask for 256B. The promotion is how much L2 fetches from DRAM around a TMA miss. Rows
that start 16 bytes into a 32-byte sector (1000³'s 2000-byte rows) touch one more sector per box row, so a
wider fetch might hide part of that. This probe records tilelab's default launch once per promotion (none,
64B, 128B, 256B), each with its own tensor maps, and times the replays in turns against torch, cold L2.
"""

import argparse
import ctypes

import torch
import triton

import tilelab
from scripts.turns import report_in_turns
from tilelab.ops import matmul as matmul_op

PROMOTIONS = {"none": 0, "64B": 1, "128B": 2, "256B": 3}  # CUtensorMapL2promotion
SHAPES = [(1000, 1000, 1000), (1024, 1024, 1024), (1008, 1008, 1008), (2048, 2048, 2048), (3000, 3000, 3000),
          (4096, 4096, 4096), (512, 512, 512), (127, 255, 65), (16, 4096, 4096), (128, 4096, 4096),
          (8192, 8192, 1024)]
BATCHES = [(16, 1000, 1000, 1000), (16, 1024, 1024, 1024)]

_cuda = ctypes.CDLL("libcuda.so.1")
_encode = _cuda.cuTensorMapEncodeTiled
_encode.restype = ctypes.c_int
_encode.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint64),
                    ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint32),
                    ctypes.POINTER(ctypes.c_uint32), ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int]
_MAP_OFFSET = 128  # PyCUtensorMapObject: PyObject_HEAD, then the map aligned to 128 bytes (Triton's driver.c)


def encoder_with(promotion: int):
    """Triton's fill_tma_descriptor, whose map is then encoded again with `promotion` (all else the same)."""
    triton_fill = triton.runtime.driver.active.utils.fill_tma_descriptor

    def fill(address, swizzle, elem_size, elem_type, block, shape, strides, padding):
        made = triton_fill(address, swizzle, elem_size, elem_type, block, shape, strides, padding)
        rank = len(block)
        dims = (ctypes.c_uint64 * rank)(*reversed([int(s) for s in shape]))
        byte_strides = (ctypes.c_uint64 * rank)(*reversed([int(s) * elem_size for s in strides[:-1]]), 0)
        box = (ctypes.c_uint32 * rank)(*reversed([int(b) for b in block]))
        ones = (ctypes.c_uint32 * rank)(*([1] * rank))
        status = _encode(id(made) + _MAP_OFFSET, elem_type, rank, address, dims, byte_strides, box, ones, 0,
                         swizzle, promotion, 1 if padding == 1 else 0)
        if status != 0:
            raise RuntimeError(f"cuTensorMapEncodeTiled returned {status}")
        return made
    return fill


def check_encoder() -> None:
    """Re-encoding with 128B must give Triton's bytes, and 256B other bytes: the probe changes what it says."""
    x = torch.empty(1000, 1000, device="cuda", dtype=torch.float16)
    recipe = (x.data_ptr(), 3, 2, 6, [64, 64], [1000, 1000], [1000, 1], 0)  # 128-byte swizzle, fp16
    triton_fill = triton.runtime.driver.active.utils.fill_tma_descriptor
    made = {name: encoder_with(value)(*recipe) for name, value in (("128B", 2), ("256B", 3))}
    own = ctypes.string_at(id(triton_fill(*recipe)) + _MAP_OFFSET, 128)
    same = ctypes.string_at(id(made["128B"]) + _MAP_OFFSET, 128) == own
    other = ctypes.string_at(id(made["256B"]) + _MAP_OFFSET, 128) != own
    print(f"encoder check: 128B equals Triton's map {same}; 256B differs {other}", flush=True)
    if not (same and other):
        raise SystemExit("the re-encoded maps are not what this probe assumes")


def recorded(a, b, promotion: int | None):
    """tilelab's replay of a @ b, bound while the encoder used `promotion` (None: Triton's own)."""
    utils = triton.runtime.driver.active.utils
    triton_fill = utils.fill_tma_descriptor
    matmul_op._REPLAYS.clear()
    try:
        if promotion is not None:
            utils.fill_tma_descriptor = encoder_with(promotion)
        tilelab.matmul(a, b)  # plans and records
        tilelab.matmul(a, b)  # the replay encodes its maps
        (replay,) = matmul_op._REPLAYS.values()
    finally:
        utils.fill_tma_descriptor = triton_fill
        matmul_op._REPLAYS.clear()
    return lambda: replay(a, b)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--dtype", default="fp16", choices=["fp16", "bf16"])
    parser.add_argument("--shapes", default="all", help="'all', 'single' or 'batch'")
    args = parser.parse_args()
    dtype = torch.float16 if args.dtype == "fp16" else torch.bfloat16
    torch.manual_seed(0)
    check_encoder()
    cases = ([(1, *s) for s in SHAPES] if args.shapes in ("all", "single") else []) + \
            (BATCHES if args.shapes in ("all", "batch") else [])
    for batch, m, n, k in cases:
        lead = (batch,) if batch > 1 else ()
        a = torch.randn(*lead, m, k, device="cuda").to(dtype)
        b = torch.randn(*lead, k, n, device="cuda").to(dtype)
        reference = a.double() @ b.double()
        variants = {"torch": lambda a=a, b=b: torch.matmul(a, b)}
        for name, promotion in PROMOTIONS.items():
            try:
                variants[f"tilelab L2 {name}"] = recorded(a, b, promotion)
            except Exception as error:  # a path without host-built descriptors has nothing to re-encode
                print(f"  {name}: {type(error).__name__}: {str(error)[:160]}", flush=True)
        path = matmul_op.describe_plan(a, b)["path"]
        title = f"{args.dtype} {'x'.join(map(str, (batch, m, n, k) if batch > 1 else (m, n, k)))} {path}"
        report_in_turns(title, variants, args.rounds, reference=reference)


if __name__ == "__main__":
    main()
