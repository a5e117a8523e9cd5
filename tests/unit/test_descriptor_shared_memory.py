"""The descriptor kernel's shared memory, compiled for sm_90 without a GPU, against what pruning predicts.

`Config.shared_memory_bytes` decides which tiles the tuner may try. Triton 3.6 stages a 2-byte C tile in the
pipeline's buffers (free once the K loop is done), so 128x256x64 with 4 stages fits in fp16; a float32 C
tile needs room of its own. Compiled in a child process without TRITON_INTERPRET (which conftest sets when
there is no GPU).
"""

import json

import pytest
import torch

from tests.helpers import run_without_interpreter
from tilelab import tuning
from tilelab.tuning import Config

CASES = {  # name: (dtype, config)
    "fp16 128x256x64 s4": ("float16", Config(128, 256, 64, 8, num_warps=8, num_stages=4)),
    "fp16 64x128x128 s4": ("float16", Config(64, 128, 128, 8, num_warps=4, num_stages=4)),
    "fp32 128x256x32 s3": ("float32", Config(128, 256, 32, 8, num_warps=8, num_stages=3)),
}

_WORKER = r"""
import json, sys, torch, triton
from triton.backends.compiler import GPUTarget
from tilelab.ops.matmul import inspection_attrs, inspection_source
from tilelab.tuning import Config
shared = {}
for name, (dtype, config) in json.load(sys.stdin).items():
    config = Config(**config)
    kernel, signature, constexprs, _ = inspection_source("descriptor", getattr(torch, dtype), config=config)
    source = triton.compiler.ASTSource(kernel, signature, constexprs, inspection_attrs(kernel, signature))
    compiled = triton.compile(source, target=GPUTarget("cuda", 90, 32),
                              options={"num_warps": config.num_warps, "num_stages": config.num_stages})
    shared[name] = compiled.metadata.shared
json.dump(shared, sys.stdout)
"""


@pytest.fixture(scope="module")
def compiled_shared() -> dict[str, int]:
    jobs = {name: (dtype, config.as_dict()) for name, (dtype, config) in CASES.items()}
    return json.loads(run_without_interpreter(_WORKER, json.dumps(jobs)))


@pytest.mark.parametrize("name", list(CASES))
def test_prediction_covers_the_compiled_kernel(compiled_shared, name):
    dtype, config = CASES[name]
    size = getattr(torch, dtype).itemsize
    predicted = config.shared_memory_bytes(size, out_element_size=size)
    # Never short by more than the mbarriers; never over by more than the C tile (partly shared in float32).
    assert compiled_shared[name] - 1024 <= predicted <= compiled_shared[name] + config.block_m * config.block_n * size


def test_a_two_byte_c_tile_lives_in_the_pipeline(compiled_shared):
    config = CASES["fp16 128x256x64 s4"][1]
    pipeline = config.shared_memory_bytes(2)  # no C tile counted
    assert pipeline <= compiled_shared["fp16 128x256x64 s4"] <= pipeline + 1024 <= tuning.SHARED_MEMORY_BUDGET
    assert config in tuning.prune([config], 4096, 4096, 2, out_element_size=2)


def test_a_float32_c_tile_needs_its_own_room(compiled_shared):
    config = CASES["fp32 128x256x32 s3"][1]
    assert compiled_shared["fp32 128x256x32 s3"] > tuning.SHARED_MEMORY_BUDGET
    assert tuning.prune([config, tuning.FIXED], 4096, 4096, 4, out_element_size=4) == [tuning.FIXED]
