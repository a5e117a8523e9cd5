"""The copy onto lines moves whole 16-byte vectors where its rows allow (sm_90 PTX, compiled without a GPU).

`copy_rows_kernel` reads each row as runs of GROUP elements whose mask depends on the run alone, its strides
passed through `known_multiple`. Compiled with every integer argument of unknown divisibility, as for rows of
3000 (GROUP 8), 1500 (GROUP 4) and 1001 (GROUP 1) fp16 elements. Compiling needs the real JIT function, so it
runs in a child process without TRITON_INTERPRET (which conftest sets when there is no GPU).
"""

import collections
import json

import pytest

from tests.helpers import run_without_interpreter

_WORKER = r"""
import json, re, collections, triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from tilelab.kernels.row_copy import copy_rows_kernel
from tilelab.ops import line_copies

signature = {name: "i32" for name in copy_rows_kernel.arg_names}
signature.update(src_ptr="*fp16", dst_ptr="*fp16", BLOCK_R="constexpr", BLOCK_RUNS="constexpr", GROUP="constexpr")
pointers = {(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]}
counts = {}
for group in (8, 4, 1):
    constexprs = {"BLOCK_R": line_copies.COPY_BLOCK_ROWS, "BLOCK_RUNS": line_copies.COPY_BLOCK_ELEMENTS // group,
                  "GROUP": group}
    compiled = triton.compile(ASTSource(copy_rows_kernel, signature, constexprs, pointers),
                              target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
    counts[group] = collections.Counter(re.findall(r"\b((?:ld|st)\.global(?:\.v\d)?\.b\d+)", compiled.asm["ptx"]))
print(json.dumps(counts))
"""


@pytest.fixture(scope="module")
def instruction_counts() -> dict:
    return {int(k): collections.Counter(v) for k, v in json.loads(run_without_interpreter(_WORKER)).items()}


@pytest.mark.parametrize("group,load,store", [(8, "ld.global.v4.b32", "st.global.v4.b32"),
                                              (4, "ld.global.v2.b32", "st.global.v2.b32"),
                                              (1, "ld.global.b16", "st.global.b16")])
def test_each_run_is_one_vector(instruction_counts, group, load, store):
    counts = instruction_counts[group]
    assert set(counts) == {load, store}, counts  # no narrower access anywhere
    assert counts[load] == counts[store] > 0
