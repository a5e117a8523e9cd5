"""The ping-pong kernel (Gluon, fp16/bf16) compiles for sm_90 without a GPU, into what the H200 should run.

Pinned here: 128x128 tiles as m64n128k16 wgmmas reading both operands from shared memory (B row-major or
K-major), TMA loads and stores, two MMA warp groups and a lean loader warp (setmaxnreg), six stages beside two
half-tile staging buffers within a program's shared memory, and no spills. A batch (3-D descriptors) compiles
to the same wgmmas and the same shared memory, with 3-D TMA copies.

As in test_registers_compile: compiling needs real JIT functions, which TRITON_INTERPRET=1 (set by conftest
without a GPU) replaces, so the compiles run in one child process without it.
"""

import json
import re

import pytest
import torch

from tests.helpers import run_without_interpreter
from tilelab.ops import matmul_pingpong

MAX_SHARED = 232448  # bytes of shared memory one program may use on the H100/H200

_WORKER = r"""
import json, sys, torch
from tilelab.inspect.tools import ptxas_verbose
from tilelab.ops import matmul_pingpong
facts = {}
for name, dtype, b_k_major, out, batch in [
        ("float16", torch.float16, False, None, 1), ("bfloat16", torch.bfloat16, False, None, 1),
        ("float16-b-k-major", torch.float16, True, None, 1), ("float32-output", torch.float16, False, torch.float32, 1),
        ("float16-batch", torch.float16, False, None, 8), ("bfloat16-batch-b-k-major", torch.bfloat16, True, None, 8)]:
    compiled = matmul_pingpong.compile_for(dtype=dtype, b_k_major=b_k_major, out_dtype=out, batch=batch)
    ptx = compiled.asm["ptx"]
    facts[name] = {"ptx": ptx, "shared": compiled.metadata.shared, "ptxas": ptxas_verbose(ptx, "sm_90a") or ""}
json.dump(facts, sys.stdout)
"""

VARIANTS = ["float16", "bfloat16", "float16-b-k-major", "float32-output", "float16-batch", "bfloat16-batch-b-k-major"]


@pytest.fixture(scope="module")
def compiled() -> dict:
    return json.loads(run_without_interpreter(_WORKER))


@pytest.mark.parametrize("variant", VARIANTS)
def test_128_wide_wgmmas_read_both_operands_from_shared_memory(compiled, variant):
    kind = "bf16" if variant.startswith("bfloat16") else "f16"  # the inputs' type; C's does not enter the wgmma
    mmas = re.findall(rf"wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.{kind}\.{kind}\s+\{{[^}}]*\}},\s*(\S+)",
                      compiled[variant]["ptx"])
    # Two groups, each a 128-row tile (two m64 wgmmas) over a 64-deep K step (four k16): 16 in the PTX.
    assert len(mmas) == 16, len(mmas)
    assert all(operand.startswith("%rd") for operand in mmas)  # a 64-bit shared-memory descriptor, not registers


@pytest.mark.parametrize("variant", VARIANTS)
def test_loads_and_stores_go_through_tma(compiled, variant):
    """2-D copies for one GEMM; a batch's copies name the matrix, a third coordinate (only 3-D ones: two
    coordinates on a 3-D descriptor would compile, as 2-D copies of the wrong matrix)."""
    ptx = compiled[variant]["ptx"]
    rank, other = ("3d", "2d") if "batch" in variant else ("2d", "3d")
    assert re.search(rf"cp\.async\.bulk\.tensor\.{rank}\.shared::cluster\.global", ptx), "no TMA load"
    assert re.search(rf"cp\.async\.bulk\.tensor\.{rank}\.global\.shared::cta", ptx), "no TMA store"
    assert f"cp.async.bulk.tensor.{other}" not in ptx


def test_two_mma_groups_and_a_lean_loader(compiled):
    ptx = compiled["float16"]["ptx"]
    assert re.search(r"setmaxnreg\.dec\.sync\.aligned\.u32\s+24;", ptx), "the loader warp keeps its registers"
    config = matmul_pingpong.DEFAULT_CONFIG
    assert re.search(rf"setmaxnreg\.inc\.sync\.aligned\.u32\s+{config.mma_regs};", ptx), "the second group"


@pytest.mark.parametrize("variant", VARIANTS)
def test_stages_fit_beside_two_half_tile_staging_buffers(compiled, variant):
    """Six stages with a 2-byte C; five with float32's staging buffers, twice the size (a sixth would not fit)."""
    out_size = 4 if variant == "float32-output" else 2
    config = matmul_pingpong.config_for(torch.float32 if out_size == 4 else torch.float16)
    assert config.num_stages == (5 if out_size == 4 else 6)
    stage = (config.block_m + config.block_n) * config.block_k * 2
    staging = 2 * config.block_m * (config.block_n // 2) * out_size
    assert config.num_stages * stage + staging <= compiled[variant]["shared"] <= MAX_SHARED
    assert (config.num_stages + 1) * stage + staging > MAX_SHARED


@pytest.mark.parametrize("variant", VARIANTS)
def test_ptxas_compiles_it_without_spills(compiled, variant):
    info = compiled[variant]["ptxas"]
    assert "Compiling entry function" in info, info
    assert re.search(r"\b0 bytes spill stores, 0 bytes spill loads", info), info
