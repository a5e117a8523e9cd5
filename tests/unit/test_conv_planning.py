"""conv2d_bn_silu's plan without a GPU: candidates, tuning keys, 64-bit offsets, and its sm_90/sm_80 machine code."""

import collections
import json

import pytest
import torch

from tests.helpers import run_without_interpreter
from tilelab.ops import conv as conv_op


def geometry(batch=32, c_in=64, h=56, w=56, c_out=64, k=3, stride=1):
    return conv_op.ConvGeometry(batch, c_in, h, w, c_out, k, k, (stride, stride), (k // 2, k // 2), (1, 1))


def test_the_implicit_gemm_sizes():
    g = geometry(batch=2, c_in=3, h=9, w=11, c_out=33, k=3, stride=2)
    assert (g.oh, g.ow) == (5, 6)
    assert g.gemm() == (2 * 5 * 6, 33, 9 * 3)


def test_candidates_fit_the_problem():
    # 16 input channels: no K step longer than 16, and every tile at most twice 24 channels wide.
    found = conv_op.candidates(geometry(c_in=16, c_out=24), element_size=2)
    assert found and all(c.block_k == 16 for c in found)
    assert all(c.block_n <= 64 for c in found)
    assert len(set(found)) == len(found)
    # float32 halves the K step (the same bytes per stage).
    wide = conv_op.candidates(geometry(c_in=256, c_out=256), element_size=4)
    assert max(c.block_k for c in wide) == 32


def test_tuning_keys_tell_layouts_filters_and_strides_apart():
    x = torch.empty(8, 64, 28, 28, dtype=torch.float16)
    w = torch.empty(64, 64, 3, 3, dtype=torch.float16)
    g = geometry(batch=8, h=28, w=28)
    key = conv_op.tuning_key(x, w, g, "tf32", True)
    assert "x-nchw" in key and "w-nchw" in key and "|3x3|" in key and "s1x1" in key
    channels_last = conv_op.tuning_key(x.to(memory_format=torch.channels_last), w, g, "tf32", True)
    assert channels_last != key
    assert conv_op.tuning_key(x, w, geometry(batch=8, h=28, w=28, stride=2), "tf32", True) != key
    assert conv_op.tuning_key(x, w, g, "tf32", False).split("|")[1] == "conv2d_bn"


class _Strided:
    """Only a shape and strides, which is all the offset check reads: no 4 GiB tensor needed."""

    def __init__(self, shape, strides):
        self.shape, self._strides = shape, strides

    def stride(self):
        return self._strides


def test_64_bit_offsets_only_past_int32():
    w = _Strided((16, 16, 1, 1), (16, 1, 16, 16))
    huge = _Strided((1, 16, 16384, 8192), (16 * 16384 * 8192, 1, 8192 * 16, 16))  # 2**31 elements, channels-last
    assert conv_op._needs_64bit_offsets(huge, w, huge, conv_op.SEED)
    small = _Strided((1, 16, 1024, 1024), (16 * 1024 * 1024, 1, 1024 * 16, 16))
    assert not conv_op._needs_64bit_offsets(small, w, small, conv_op.SEED)


_WORKER = r"""
import json, re, collections, triton, torch
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from tilelab.ops.conv import inspection_source

found = {}
for dtype in ("float16", "bfloat16", "float32"):
    for arch in (90, 80):
        kernel, signature, constexprs, attrs, config = inspection_source(getattr(torch, dtype))
        compiled = triton.compile(ASTSource(kernel, signature, constexprs, attrs), target=GPUTarget("cuda", arch, 32),
                                  options={"num_warps": config.num_warps, "num_stages": config.num_stages})
        ops = re.findall(r"\b(wgmma\.mma_async|mma\.sync|cp\.async\.cg\.shared\.global|ld\.local|st\.local)\b",
                         compiled.asm["ptx"])
        found[f"{dtype} {arch}"] = collections.Counter(ops)
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def instructions() -> dict:
    return {k: collections.Counter(v) for k, v in json.loads(run_without_interpreter(_WORKER)).items()}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_hopper_runs_the_implicit_gemm_on_wgmma_fed_by_async_copies(instructions, dtype):
    found = instructions[f"{dtype} 90"]
    assert found["wgmma.mma_async"] > 0 and found["cp.async.cg.shared.global"] > 0
    assert found["mma.sync"] == 0 and found["ld.local"] == 0 and found["st.local"] == 0


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
def test_ampere_runs_it_on_mma_sync(instructions, dtype):
    found = instructions[f"{dtype} 80"]
    assert found["mma.sync"] > 0 and found["wgmma.mma_async"] == 0
