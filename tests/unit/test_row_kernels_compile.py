"""The row kernels' ALIGN hint turns 2-byte loads and stores into 16-byte ones (sm_90 PTX, compiled without a
GPU), one row per program or several.

Rows of 5000 float16 values are 16-byte aligned, but Triton's launcher only tells the compiler about multiples of
16 elements (`tilelab.ops.rows.plan_rows` computes ALIGN). Compiled in a child process without TRITON_INTERPRET.
"""

import collections
import json

import pytest

from tests.helpers import run_without_interpreter

_WORKER = r"""
import collections, json, re, triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from tilelab.kernels.rows import rmsnorm_kernel, softmax_kernel

def signature(kernel):
    pointers = [a for a in kernel.arg_names if a.endswith("_ptr")]
    constexprs = [a for a in kernel.arg_names if a.isupper() or a == "stride_x_col"]
    types = {a: "*fp16" if a in pointers else "constexpr" if a in constexprs else "fp32" if a == "eps" else "i32"
             for a in kernel.arg_names}
    return types, {(kernel.arg_names.index(a),): [["tt.divisibility", 16]] for a in pointers}

counts = {}
for kernel, extra in ((softmax_kernel, {"stride_x_col": 1}),
                      (rmsnorm_kernel, {"HAS_RESIDUAL": True, "HAS_WEIGHT": True})):
    types, attrs = signature(kernel)
    for block, rows in ((8192, 1), (128, 32)):
        for align in (1, 8):
            constexprs = {"BLOCK": block, "ROWS": rows, "ONE_BLOCK": True, "ALIGN": align, **extra}
            compiled = triton.compile(ASTSource(kernel, types, constexprs, attrs), target=GPUTarget("cuda", 90, 32),
                                      options={"num_warps": 8})
            found = re.findall(r"\b((?:ld|st)\.global(?:\.v4)?\.b(?:16|32))\b", compiled.asm["ptx"])
            counts[f"{kernel.fn.__name__} {block}x{rows} {align}"] = collections.Counter(found)
print(json.dumps(counts))
"""


@pytest.fixture(scope="module")
def instruction_counts() -> dict:
    return {k: collections.Counter(v) for k, v in json.loads(run_without_interpreter(_WORKER)).items()}


TILES = ["softmax_kernel 8192x1", "softmax_kernel 128x32", "rmsnorm_kernel 8192x1", "rmsnorm_kernel 128x32"]


@pytest.mark.parametrize("tile", TILES)
def test_without_the_hint_every_element_is_its_own_access(instruction_counts, tile):
    plain = instruction_counts[f"{tile} 1"]
    assert plain["ld.global.b16"] > 0 and plain["st.global.b16"] > 0
    assert plain["ld.global.v4.b32"] == plain["st.global.v4.b32"] == 0


@pytest.mark.parametrize("tile", TILES)
def test_align_8_makes_every_access_a_16_byte_vector(instruction_counts, tile):
    hinted = instruction_counts[f"{tile} 8"]
    assert hinted["ld.global.v4.b32"] > 0 and hinted["st.global.v4.b32"] > 0
    assert hinted["ld.global.b16"] == hinted["st.global.b16"] == 0
