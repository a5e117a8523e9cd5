"""The pointer kernels' ALIGN hint turns 2-byte loads into 16-byte ones (sm_90 PTX, compiled without a GPU).

Rows of 1000 fp16 elements are 16-byte aligned, but Triton's launcher only
tells the compiler about multiples of 16 elements. Compiled here with every
integer argument of unknown divisibility, as for a 1000x1000x1000 problem: the
pointer path's kernel and the split-K kernel (with a ragged K, as 1000 is).
Compiling needs the real JIT function, so it runs in a child process without
TRITON_INTERPRET (which conftest sets when there is no GPU).
"""

import collections
import json

import pytest

from tests.helpers import run_without_interpreter

_WORKER = r"""
import json, re, collections, triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from tilelab.ops import matmul_hopper
from tilelab.ops.matmul import inspection_source

def sources(align):
    kernel, signature, constexprs, config = inspection_source("pointer")
    yield "pointer", kernel, signature, {**constexprs, "ALIGN": align}, config
    config = matmul_hopper.HopperConfig(128, 128, 64, 8, num_warps=8, num_stages=3, epilogue_subtile=False,
                                        split_k=2)
    kernel, signature, constexprs, _, _ = matmul_hopper.inspection_source("splitk", config=config)
    yield "splitk", kernel, signature, {**constexprs, "ALIGN": align, "EVEN_K": False}, config

counts = {}
for align in (1, 8):
    for name, kernel, signature, constexprs, config in sources(align):
        pointers = {(kernel.arg_names.index(arg),): [["tt.divisibility", 16]] for arg in ("a_ptr", "b_ptr", "c_ptr")}
        compiled = triton.compile(ASTSource(kernel, signature, constexprs, pointers),
                                  target=GPUTarget("cuda", 90, 32),
                                  options={"num_warps": config.num_warps, "num_stages": config.num_stages})
        ops = re.findall(r"\b(cp\.async\.cg\.shared\.global|ld\.global\.b16|st\.global\.b16|st\.global\.v4\.b32)",
                         compiled.asm["ptx"])
        counts[f"{name} {align}"] = collections.Counter(ops)
print(json.dumps(counts))
"""


@pytest.fixture(scope="module")
def instruction_counts() -> dict:
    return {k: collections.Counter(v) for k, v in json.loads(run_without_interpreter(_WORKER)).items()}


@pytest.mark.parametrize("kernel", ["pointer", "splitk"])
def test_without_the_hint_every_element_is_its_own_load(instruction_counts, kernel):
    plain = instruction_counts[f"{kernel} 1"]
    assert plain["ld.global.b16"] > 0 and plain["st.global.b16"] > 0
    assert plain["cp.async.cg.shared.global"] == 0


@pytest.mark.parametrize("kernel", ["pointer", "splitk"])
def test_align_8_gives_16_byte_async_copies_and_vector_stores(instruction_counts, kernel):
    hinted = instruction_counts[f"{kernel} 8"]
    assert hinted["cp.async.cg.shared.global"] > 0 and hinted["st.global.v4.b32"] > 0
    assert hinted["ld.global.b16"] == 0 and hinted["st.global.b16"] == 0
