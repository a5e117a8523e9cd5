"""The registers kernel (Gluon, tf32 with B through registers) compiles for sm_90 without a GPU.

What the H200 will run is pinned here: tf32 wgmma whose left operand is registers, TMA loads and stores,
warp specialization (setmaxnreg), the shared memory that 4 stages need, and ptxas keeping the wgmmas
pipelined (no C7515 "serialized" warning: the reason `mma_partition` does two K steps per iteration).

As in test_hopper_compile: compiling needs real JIT functions, which TRITON_INTERPRET=1 (set by conftest
without a GPU) replaces, so the compiles run in one child process without it.
"""

import json
import re

import pytest

from tests.helpers import run_without_interpreter
from tilelab.ops import matmul_registers

MAX_SHARED = 232448  # bytes of shared memory one program may use on the H100/H200

_WORKER = r"""
import json, sys, torch
from tilelab.inspect.tools import ptxas_verbose
from tilelab.ops import matmul_registers
facts = {}
variants = {"float32": {}, "bfloat16": {"out_dtype": torch.bfloat16},
            "truncated": {"config": matmul_registers.RegistersConfig(round_b=False)}}
variants.update({config.tag(): {"config": config} for config in matmul_registers.CONFIGS[1:]})
for name, options in variants.items():
    compiled = matmul_registers.compile_for(**options)
    ptx = compiled.asm["ptx"]
    facts[name] = {"ptx": ptx, "shared": compiled.metadata.shared, "ptxas": ptxas_verbose(ptx, "sm_90a") or ""}
json.dump(facts, sys.stdout)
"""


@pytest.fixture(scope="module")
def compiled() -> dict:
    return json.loads(run_without_interpreter(_WORKER))


def test_left_operand_comes_from_registers(compiled):
    ptx = compiled["float32"]["ptx"]
    mmas = re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n256k8\.f32\.tf32\.tf32\s+\{[^}]*\},\s*(\S+)", ptx)
    assert mmas, "no m64n256k8 tf32 wgmma in the PTX"
    # The operand after the accumulator: a register list for A from registers, a 64-bit descriptor otherwise.
    assert all(operand.startswith("{") for operand in mmas), mmas[:3]


def test_loads_and_stores_go_through_tma(compiled):
    ptx = compiled["float32"]["ptx"]
    assert re.search(r"cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global", ptx), "no TMA load"
    assert re.search(r"cp\.async\.bulk\.tensor\.2d\.global\.shared::cta", ptx), "no TMA store"


def test_warp_specialized_with_a_lean_loader(compiled):
    ptx = compiled["float32"]["ptx"]
    assert re.search(r"setmaxnreg\.dec\.sync\.aligned\.u32\s+24;", ptx), "the loader warp keeps its registers"
    assert re.search(r"setmaxnreg\.inc\.sync\.aligned\.u32\s+2[0-9][0-9]", ptx), "MMA warps get no more registers"


def test_four_stages_fit_beside_a_quarter_tile_staging_buffer(compiled):
    stages = 4 * (256 * 32 + 32 * 128) * 4  # A and B tiles, float32
    staging = (256 // 4) * 128 * 4
    assert stages + staging <= compiled["float32"]["shared"] <= MAX_SHARED
    assert compiled["bfloat16"]["shared"] < compiled["float32"]["shared"]  # a half-size staging buffer


SMALLER_TILES = [config.tag() for config in matmul_registers.CONFIGS[1:]]  # the worker compiles each


@pytest.mark.parametrize("variant", ["float32", "bfloat16", "truncated", *SMALLER_TILES])
def test_ptxas_keeps_the_wgmmas_pipelined_without_spills(compiled, variant):
    info = compiled[variant]["ptxas"]
    assert "Compiling entry function" in info, info
    assert "C7515" not in info and "serialized" not in info, info
    assert re.search(r"\b0 bytes spill stores, 0 bytes spill loads", info), info


def test_b_is_rounded_on_its_way_to_wgmma(compiled):
    """One cvt.rna per B value a thread holds: 128x32 of B^T per K step over 256 MMA threads is 16, for the
    two steps of the loop and the odd one after it. `round_b=False` leaves B to wgmma, which truncates."""
    assert compiled["float32"]["ptx"].count("cvt.rna.tf32.f32") == 3 * (128 * 32 // 256)
    assert compiled["truncated"]["ptx"].count("cvt.rna.tf32.f32") == 0


@pytest.mark.parametrize("tag", SMALLER_TILES)
def test_smaller_tiles_compile_as_the_default_does(compiled, tag):
    """`choose_config`'s other tiles: wgmma N = block_m with A from registers, warp-specialized, and their
    stages in the shared memory a program may have."""
    config = matmul_registers.config_tagged(tag)
    ptx = compiled[tag]["ptx"]
    shape = rf"wgmma\.mma_async\.sync\.aligned\.m64n{config.block_m}k8\.f32\.tf32\.tf32\s+\{{[^}}]*\}},\s*(\S+)"
    mmas = re.findall(shape, ptx)
    assert mmas and all(operand.startswith("{") for operand in mmas), tag
    assert re.search(r"setmaxnreg\.dec\.sync\.aligned\.u32\s+24;", ptx), tag
    stages = config.num_stages * (config.block_m + config.block_n) * config.block_k * 4
    assert stages + config.block_m // 4 * config.block_n * 4 <= compiled[tag]["shared"] <= MAX_SHARED
    # One cvt.rna per B value a thread holds per K step (block_n x 32 of B^T over the MMA threads), three steps.
    assert ptx.count("cvt.rna.tf32.f32") == 3 * (config.block_n * config.block_k // (32 * config.num_warps))
