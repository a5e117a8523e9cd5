"""Every Hopper kernel variant compiles for sm_90 without a GPU, and the PTX uses wgmma and TMA.

Compiling needs no GPU: Triton lowers to PTX for a named target. These tests
pin what the H200 will run: the tensor-core instruction (wgmma, fp8 e4m3
included), TMA bulk tensor copies, warp specialization where the config asks
for it, and the shared-memory size the candidate pruning predicts.

Compiling needs real JIT functions, which TRITON_INTERPRET=1 (set by
conftest without a GPU) replaces by interpreted ones, so every compile runs
in one child process without it, started once for the module.
"""

import dataclasses
import json
import re

import pytest
import torch

from tests.helpers import run_without_interpreter
from tilelab.ops import matmul_hopper as hopper
from tilelab.ops.matmul_hopper import HopperConfig

_WORKER = r"""
import json, re, sys, torch
from tilelab.ops.matmul_hopper import HopperConfig, compile_for
facts = {}
for key, job in json.load(sys.stdin).items():
    kwargs = dict(job)
    kwargs["config"] = HopperConfig.from_dict(kwargs["config"])
    for name in ("dtype", "out_dtype"):
        if kwargs.get(name):
            kwargs[name] = getattr(torch, kwargs[name])
    try:
        compiled = compile_for(**kwargs)
    except Exception as e:
        facts[key] = {"error": f"{type(e).__name__}: {e}"[-2000:]}
        continue
    facts[key] = {"ptx": compiled.asm["ptx"], "shared": compiled.metadata.shared}
json.dump(facts, sys.stdout)
"""

_JOBS: dict[str, dict] = {}


def _job(kernel_name: str, config: HopperConfig, dtype=torch.float16, **kwargs) -> str:
    """Register a compile for the module's child process; returns its key."""
    job = {"kernel_name": kernel_name, "config": config.as_dict(), "dtype": str(dtype).removeprefix("torch."),
           **{k: (str(v).removeprefix("torch.") if isinstance(v, torch.dtype) else v) for k, v in kwargs.items()}}
    key = json.dumps(job, sort_keys=True)
    _JOBS[key] = job
    return key


@pytest.fixture(scope="module")
def compiled() -> dict:
    return json.loads(run_without_interpreter(_WORKER, json.dumps(_JOBS)))


class _Compiled:
    def __init__(self, facts: dict, key: str):
        if "error" in facts[key]:
            raise AssertionError(f"compile failed for {key}: {facts[key]['error']}")
        self.ptx = facts[key]["ptx"]
        self.shared = facts[key]["shared"]


def _assert_hopper_ptx(ptx: str, label: str) -> None:
    assert "wgmma.mma_async" in ptx, f"{label}: no wgmma in the PTX"
    assert "cp.async.bulk.tensor" in ptx, f"{label}: no TMA (cp.async.bulk.tensor) in the PTX"


def _fp32(config: HopperConfig) -> HopperConfig:
    # float32 inputs: twice the bytes per element, so half the K step (as ops.matmul does).
    return dataclasses.replace(config, block_k=config.block_k // 2)


def _without_name(ptx: str) -> str:
    return re.sub(r"matmul_persistent_kernel\w*", "", ptx)


P = hopper.PERSISTENT_CANDIDATES
SIZE = {torch.float16: 2, torch.bfloat16: 2, torch.float32: 4}

PERSISTENT_JOBS = [(c, torch.float16, _job("persistent", c)) for c in P]
PERSISTENT_JOBS += [(cfg, dt, _job("persistent", cfg, dt))
                    for dt in (torch.bfloat16, torch.float32) for c in (P[0], P[3], P[4])
                    for cfg in [_fp32(c) if dt == torch.float32 else c]
                    if hopper.warp_specialize_compiles(cfg, SIZE[dt])]
PERSISTENT_JOBS += [(dataclasses.replace(P[0], flatten=True), torch.float16,
                     _job("persistent", dataclasses.replace(P[0], flatten=True)))]
LAYOUT_JOBS = [(a, b, _job("persistent", c, a_k_major=a, b_k_major=b))
               for c in (P[0], P[3]) for a, b in ((True, True), (False, False), (False, True))]
PRECISION_JOBS = {prec: _job("persistent", _fp32(P[4]), torch.float32, precision=prec) for prec in ("tf32x3", "ieee")}
WS_BASE = HopperConfig(128, 128, 64, num_warps=8, num_stages=3, epilogue_subtile=False)
# Both with in-kernel descriptors: the library gives a warp-specialized config no host-built ones.
WS8_PLAIN = _job("persistent", WS_BASE, host_descriptors=False)
WS8_FLAGGED = _job("persistent", dataclasses.replace(WS_BASE, warp_specialize=True), host_descriptors=False)
DESCRIPTOR_SOURCE_JOBS = {host: _job("persistent", P[0], host_descriptors=host) for host in (False, True)}
# A batch with an A and a B per entry: 3-D host-built descriptors, in both flattened and plain loops, B both ways.
BATCHED_JOBS = [(c, b_k_major, _job("persistent", c, batched=True, b_k_major=b_k_major))
                for c in (P[0], dataclasses.replace(P[0], flatten=True)) for b_k_major in (False, True)]
WS_SUBTILED = HopperConfig(128, 128, 64, num_warps=4, num_stages=3, epilogue_subtile=True, warp_specialize=True)
WS_SUBTILED_JOB = _job("persistent", WS_SUBTILED)
WS_FP32 = _fp32(HopperConfig(128, 128, 64, num_warps=4, num_stages=3, epilogue_subtile=False, warp_specialize=True))
WS_FP32_JOB = _job("persistent", WS_FP32, torch.float32)
# Five splits per tile (1, 2, 3, 4, 8): index 5 is an unsplit one, 17 a split in 3.
SPLIT_SAMPLE = [hopper.SPLIT_K_CANDIDATES[i] for i in (1, 5, 8, 14, 17, 24, 36, 41)]
# The H200's winners at 128x4096x4096 and 16x4096x4096 (tuned/h200.json): deep pipelines.
H200_SPLIT_WINNERS = ("64x64x128-g8-w4-s7", "16x64x64-g8-w4-s8-sk2")
SPLIT_SAMPLE += [c for c in hopper.SPLIT_K_CANDIDATES if c.label() in H200_SPLIT_WINNERS]
SPLIT_JOBS = [(c, dt, _job("splitk", c, dt)) for c in SPLIT_SAMPLE for dt in (torch.float16, torch.bfloat16)]
SPLIT_DESCRIPTOR_JOBS = [(c, b_k_major, _job("splitk_descriptor", c, b_k_major=b_k_major))
                         for c in SPLIT_SAMPLE[2:] for b_k_major in (False, True)]
FP8_JOBS = [(cfg, od, fast, _job("fp8", cfg, torch.float8_e4m3fn, out_dtype=od, fast_accum=fast))
            for od in (torch.bfloat16, torch.float16, torch.float32) for fast in (True, False)
            for cfg in [hopper.prune(hopper.FP8_CANDIDATES, 8192, 8192, 1, SIZE[od])[0]]]
FP8_JOBS += [(c, torch.bfloat16, True, _job("fp8", c, torch.float8_e4m3fn)) for c in hopper.FP8_CANDIDATES[1:]]


def _id(item) -> str:
    return "-".join(x.label() if isinstance(x, HopperConfig) else str(x).removeprefix("torch.")
                    for x in item if not (isinstance(x, str) and x.startswith("{")))


@pytest.mark.parametrize("config,dtype,key", PERSISTENT_JOBS, ids=[_id(j) for j in PERSISTENT_JOBS])
def test_persistent_compiles_to_wgmma_and_tma(compiled, config, dtype, key):
    got = _Compiled(compiled, key)
    _assert_hopper_ptx(got.ptx, config.label())
    assert got.shared <= hopper.SHARED_MEMORY_BUDGET
    # The pruning estimate is what Triton allocates (plus a few barriers).
    assert 0 <= got.shared - config.shared_memory_bytes(SIZE[dtype], SIZE[dtype]) <= 1024
    if config.warp_specialize:
        # A warp-specialized kernel hands registers between producer and consumer warp groups.
        assert "setmaxnreg" in got.ptx, f"{config.label()}: warp_specialize=True but no warp specialization"


@pytest.mark.parametrize("a_k_major,b_k_major,key", LAYOUT_JOBS, ids=[_id(j) for j in LAYOUT_JOBS])
def test_persistent_transposed_layouts_compile(compiled, a_k_major, b_k_major, key):
    _assert_hopper_ptx(_Compiled(compiled, key).ptx, f"A_K_MAJOR={a_k_major} B_K_MAJOR={b_k_major}")


@pytest.mark.parametrize("precision", sorted(PRECISION_JOBS))
def test_persistent_float32_precisions_compile(compiled, precision):
    ptx = _Compiled(compiled, PRECISION_JOBS[precision]).ptx
    assert "cp.async.bulk.tensor" in ptx
    if precision == "tf32x3":
        assert "wgmma.mma_async" in ptx and ".tf32" in ptx
    else:
        assert "wgmma.mma_async" not in ptx  # ieee float32 has no tensor-core instruction: FMA


def test_host_built_descriptors_leave_the_kernel_no_descriptor_to_write(compiled):
    # In-kernel descriptors are written to global scratch by every program (tensormap.replace, then a
    # fence) before the first TMA load; host-built ones arrive as kernel parameters, ready.
    in_kernel, host = (_Compiled(compiled, DESCRIPTOR_SOURCE_JOBS[h]).ptx for h in (False, True))
    assert "tensormap.replace" in in_kernel
    assert "tensormap.replace" not in host
    _assert_hopper_ptx(host, "host-built descriptors")
    assert hopper.persistent_host_descriptors(P[0])  # one GEMM or a batch (3-D descriptors)
    assert not hopper.persistent_host_descriptors(P[3])  # warp-specialized: Triton rewrites C's block
    fp8_key = FP8_JOBS[0][-1]
    assert "tensormap.replace" not in _Compiled(compiled, fp8_key).ptx  # fp8 always gets host-built ones


def test_warp_specialize_with_8_warps_is_ignored_by_triton_3_6(compiled):
    # Documented in warp_specialize_compiles: the flag changes nothing with num_warps=8.
    assert not hopper.warp_specialize_compiles(dataclasses.replace(WS_BASE, warp_specialize=True))
    plain, flagged = _Compiled(compiled, WS8_PLAIN).ptx, _Compiled(compiled, WS8_FLAGGED).ptx
    assert "setmaxnreg" not in flagged
    assert _without_name(plain) == _without_name(flagged)


def test_warp_specialize_with_subtiled_128_row_epilogue_fails_in_triton_3_6(compiled):
    # Also documented: the two consumer warp groups split BLOCK_M=128, and that split cannot
    # handle the subtiled epilogue. If a Triton upgrade fixes it, this test says so.
    assert not hopper.warp_specialize_compiles(WS_SUBTILED)
    assert "error" in compiled[WS_SUBTILED_JOB], "Triton now compiles this: relax warp_specialize_compiles"


def test_warp_specialize_with_float32_inputs_fails_in_triton_3_6(compiled):
    assert hopper.warp_specialize_compiles(WS_FP32, 2) and not hopper.warp_specialize_compiles(WS_FP32, 4)
    assert "error" in compiled[WS_FP32_JOB], "Triton now compiles this: relax warp_specialize_compiles"


def test_prune_keeps_only_compilable_fitting_configs():
    every = [dataclasses.replace(c, warp_specialize=ws, epilogue_subtile=sub)
             for c in P for ws in (False, True) for sub in (False, True)]
    kept = hopper.prune(every, 4096, 4096, 2, 2)
    assert kept and all(hopper.warp_specialize_compiles(c) for c in kept)
    assert not any(c.warp_specialize for c in hopper.prune(every, 4096, 4096, 4, 4))
    assert all(c.shared_memory_bytes(2, 2) <= hopper.SHARED_MEMORY_BUDGET for c in kept)
    # A 16-row problem gets no 128-row tiles.
    assert all(c.block_m <= 32 for c in hopper.prune(hopper.SPLIT_K_CANDIDATES, 16, 4096, 2, 2))


@pytest.mark.parametrize("config,dtype,key", SPLIT_JOBS, ids=[_id(j) for j in SPLIT_JOBS])
def test_split_k_compiles_to_tensor_cores(compiled, config, dtype, key):
    ptx = _Compiled(compiled, key).ptx
    # Pointer loads (no TMA) on purpose: masks on every edge; the products still use the tensor cores.
    assert "wgmma.mma_async" in ptx or "mma.sync" in ptx, config.label()
    _assert_split_k_hand_over(ptx, config)


def _assert_split_k_hand_over(ptx: str, config) -> None:
    """Split: a release/acquire count per tile (and the reset); no split: no atomics at all."""
    counts = re.findall(r"atom\.global\.gpu\.acq_rel\.add", ptx)
    if config.split_k > 1:
        assert counts and "atom.global.gpu.relaxed.exch" in ptx, f"{config.label()}: no tile hand-over"
    else:
        assert "atom." not in ptx, f"{config.label()}: split_k=1 should store C directly"


@pytest.mark.parametrize("config,out_dtype,fast_accum,key", FP8_JOBS, ids=[_id(j) for j in FP8_JOBS])
def test_fp8_compiles_to_e4m3_wgmma_and_tma(compiled, config, out_dtype, fast_accum, key):
    got = _Compiled(compiled, key)
    _assert_hopper_ptx(got.ptx, f"fp8 {config.label()} -> {out_dtype}")
    assert re.search(r"wgmma\.mma_async\S*\.f32\.e4m3\.e4m3", got.ptx), "fp8 wgmma (e4m3 x e4m3 -> f32) missing"
    assert got.shared <= hopper.SHARED_MEMORY_BUDGET
    adds = len(re.findall(r"\badd\.f32\b", got.ptx))
    if fast_accum:
        assert adds == 0  # one reduced-precision accumulator, never promoted
    else:
        # Promotion: every accumulator element gets a float32 add after each BLOCK_K chain.
        assert adds >= config.block_m * config.block_n // (32 * config.num_warps)


@pytest.mark.parametrize("config,b_k_major,key", SPLIT_DESCRIPTOR_JOBS, ids=[_id(j) for j in SPLIT_DESCRIPTOR_JOBS])
def test_split_k_descriptor_variant_uses_tma(compiled, config, b_k_major, key):
    ptx = _Compiled(compiled, key).ptx
    assert "cp.async.bulk.tensor" in ptx, config.label()
    assert "wgmma.mma_async" in ptx or "mma.sync" in ptx, config.label()
    assert "tensormap.replace" not in ptx, "split-K through TMA takes A's and B's descriptors from the host"
    _assert_split_k_hand_over(ptx, config)


@pytest.mark.parametrize("config,b_k_major,key", BATCHED_JOBS, ids=[_id(j) for j in BATCHED_JOBS])
def test_batched_persistent_reads_and_writes_through_3d_descriptors(compiled, config, b_k_major, key):
    # One descriptor per operand for the whole batch: 3-D TMA copies in and out, wgmma fed from shared memory
    # as for one GEMM (dropping the block's leading 1 costs no copy), and nothing built in the kernel.
    got = _Compiled(compiled, key)
    single = _Compiled(compiled, DESCRIPTOR_SOURCE_JOBS[True])
    _assert_hopper_ptx(got.ptx, config.label())
    assert "cp.async.bulk.tensor.3d.shared::cluster.global" in got.ptx
    assert "cp.async.bulk.tensor.3d.global.shared::cta" in got.ptx  # C's store
    assert "cp.async.bulk.tensor.2d" not in got.ptx
    assert "tensormap.replace" not in got.ptx
    assert "ld.local" not in got.ptx and "st.local" not in got.ptx
    assert sorted(set(re.findall(r"wgmma\.mma_async\.\S+", got.ptx))) == sorted(
        set(re.findall(r"wgmma\.mma_async\.\S+", single.ptx)))
    assert got.shared == single.shared or config.flatten

