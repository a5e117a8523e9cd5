"""`tilelab.linear`'s epilogue in the ping-pong kernel (Gluon; sm_90 PTX, no GPU needed).

The kernel takes it through trailing parameters with defaults, `bias_ptr=None, ACTIVATION=""`, applied to each
half of a tile as it is stored (`apply_epilogue` and `store_tile` in kernels/matmul_pingpong.py). Compiled three
ways: without the two parameters (Triton's binder fills the defaults), with them at their defaults (what a matmul
launch's replay passes), and with a bias and an activation. The first two must give the same PTX once source
locations are stripped; the third must keep the kernel's wgmmas, TMA copies and register split, and spill
nothing.
"""

import json
import re

import pytest

from tests.helpers import run_without_interpreter
from tests.unit.test_linear_compile import strip_locations

_WORKER = r"""
import json, sys, torch
from tilelab.inspect.tools import ptxas_verbose
from tilelab.ops import matmul_pingpong
facts = {}
for name, kwargs in [("omitted", {}), ("defaults", {"activation": ""}), ("bias", {"bias": True}),
                     ("bias-gelu", {"bias": True, "activation": "gelu"}), ("silu", {"activation": "silu"}),
                     ("bias-relu-bf16", {"bias": True, "activation": "relu", "dtype": torch.bfloat16})]:
    compiled = matmul_pingpong.compile_for(b_k_major=True, **kwargs)
    ptx = compiled.asm["ptx"]
    facts[name] = {"ptx": ptx, "shared": compiled.metadata.shared, "ptxas": ptxas_verbose(ptx, "sm_90a") or ""}
json.dump(facts, sys.stdout)
"""

EPILOGUES = ["bias", "bias-gelu", "silu", "bias-relu-bf16"]


@pytest.fixture(scope="module")
def facts() -> dict:
    return json.loads(run_without_interpreter(_WORKER))


def count(ptx: str, pattern: str) -> int:
    return len(re.findall(pattern, ptx))


def test_defaults_compile_as_the_plain_kernel(facts):
    assert strip_locations(facts["defaults"]["ptx"]) == strip_locations(facts["omitted"]["ptx"])


@pytest.mark.parametrize("name", EPILOGUES)
def test_the_epilogue_keeps_the_kernel_and_spills_nothing(facts, name):
    plain, fused = facts["omitted"], facts[name]
    assert strip_locations(fused["ptx"]) != strip_locations(plain["ptx"])
    for pattern in (r"wgmma\.mma_async", r"cp\.async\.bulk\.tensor", r"setmaxnreg"):
        assert count(fused["ptx"], pattern) == count(plain["ptx"], pattern), pattern
    assert plain["shared"] <= fused["shared"] <= plain["shared"] + 64  # a bias takes a few bytes of scratch
    if fused["ptxas"]:  # ptxas -v, where the toolchain has one
        assert " 0 bytes spill stores" in fused["ptxas"] and " 0 bytes spill loads" in fused["ptxas"]


@pytest.mark.parametrize("name, loads", [("bias", True), ("bias-gelu", True), ("silu", False)])
def test_only_a_bias_reads_global_memory(facts, name, loads):
    assert (count(facts[name]["ptx"], r"ld\.global") > 0) == loads
    assert count(facts["omitted"]["ptx"], r"ld\.global") == 0


def test_gelu_is_the_exact_erf_form(facts):
    assert "erf" not in facts["omitted"]["ptx"]
    # erf by Abramowitz and Stegun's polynomial (`gelu`): five multiply-adds per element, inlined.
    fma = r"\bfma\.rn(?:\.ftz)?\.f32"
    assert count(facts["bias-gelu"]["ptx"], fma) > count(facts["bias"]["ptx"], fma) + 1000
