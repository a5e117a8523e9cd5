"""The wide-tile kernel (`matmul_wide_kernel`) compiled for sm_90 without a GPU: two wgmma dots per K step that
share A's block, B and C through TMA, no spills, and the shared memory pruning predicts.

Compiled in a child process without TRITON_INTERPRET (which conftest sets when there is no GPU).
"""

import json

import pytest

from tests.helpers import run_without_interpreter
from tilelab import tuning

_WORKER = r"""
import json, re, sys, torch, triton
from triton.backends.compiler import GPUTarget
from tilelab.inspect import census, tools
from tilelab.ops.matmul import inspection_attrs, inspection_source
from tilelab.tuning import WIDE_CANDIDATES
found = {}
for config in WIDE_CANDIDATES:
    for dtype in ("float16", "bfloat16"):
        for b_k_major in (False, True):
            kernel, signature, constexprs, _ = inspection_source("descriptor", getattr(torch, dtype), config=config,
                                                                 b_k_major=b_k_major)
            source = triton.compiler.ASTSource(kernel, signature, constexprs, inspection_attrs(kernel, signature))
            compiled = triton.compile(source, target=GPUTarget("cuda", 90, 64),
                                      options={"num_warps": config.num_warps, "num_stages": config.num_stages})
            ptx = compiled.asm["ptx"]
            verbose = tools.ptxas_verbose(ptx, "sm_90a")
            found[f"{config.label()} {dtype} {b_k_major}"] = {
                "kernel": kernel.__name__, "ptx": census.count_ptx(ptx), "shared": compiled.metadata.shared,
                "n": sorted(set(int(n) for n in re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k16", ptx))),
                "resources": census.parse_ptxas_verbose(verbose) if verbose else None}
json.dump(found, sys.stdout)
"""


@pytest.fixture(scope="module")
def compiled() -> dict:
    return json.loads(run_without_interpreter(_WORKER))


def test_every_wide_candidate_compiles_to_two_wgmma_widths_and_tma(compiled):
    assert len(compiled) == 4 * len(tuning.WIDE_CANDIDATES)
    for name, found in compiled.items():
        assert found["kernel"] == "matmul_wide_kernel", name
        assert found["ptx"]["wgmma"] > 0 and found["ptx"]["cp.async.bulk.tensor"] > 0, name
        assert found["n"] == [64, 128], (name, found["n"])  # the 2/3 and the 1/3 of a 192-wide tile


def test_no_spills_and_the_shared_memory_pruning_predicts(compiled):
    for config in tuning.WIDE_CANDIDATES:
        for name, found in compiled.items():
            if not name.startswith(config.label()):
                continue
            if found["resources"] is not None:  # ptxas ships with Triton's wheel
                assert found["resources"]["spill_stores_bytes"] == 0, name
            predicted = config.shared_memory_bytes(2, out_element_size=2)
            assert found["shared"] - 1024 <= predicted <= tuning.SHARED_MEMORY_BUDGET, (name, found["shared"])
