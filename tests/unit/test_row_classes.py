"""A's rows read in classes (`tilelab.ops.matmul.row_classes`): which problems, which descriptors, which PTX.

Rows of 16 * odd bytes start 16 bytes into a 32-byte sector on every other row. R classes of rows (r, r + R,
...) each start at one offset within 16R bytes, so a program that owns one class reads A on that boundary.
The values are checked on the interpreter (tests/interpreter) and the GPU (tests/gpu); here, the rule, the
launch's arguments and the compiled kernel.
"""

import json
import re

import pytest
import torch

from tests.helpers import at_address, run_without_interpreter
from tilelab import contracts
from tilelab.ops import matmul as matmul_op
from tilelab.tuning import Config


def classes_of(m, k, dtype=torch.float16, offset=0, n=None) -> int:
    """`row_classes` for A [m, k] at `offset` bytes past a line, and a contiguous B [k, n] (n = k by default)."""
    a3 = at_address(torch.empty(m, k, dtype=dtype), offset)[None]
    b3 = torch.empty(1, k, k if n is None else n, dtype=dtype)
    return matmul_op.row_classes(a3, matmul_op.operand_layout(a3), b3, matmul_op.operand_layout(b3))


@pytest.mark.parametrize("m,k,offset,expected", [
    (1000, 1000, 0, 8),  # 2000-byte rows: 8 of them span 125 lines
    (3000, 3000, 0, 8),
    (1024, 40, 0, 8),
    (1004, 1000, 0, 4),  # M divisible by 4, not 8: classes start on 64 bytes
    (1002, 1000, 0, 2),  # by 2 only: on sectors
    (1001, 1000, 0, 1),  # odd M
    (1000, 1000, 64, 4),  # A's base 64 bytes into a line: the boundaries that base is on
    (1000, 1000, 32, 2),
    (1000, 1000, 16, 1),  # base off its sector: no class would start on one
    (1000, 1008, 0, 1),  # rows on sectors already
    (1000, 1024, 0, 1),  # on lines
    (512, 40, 0, 4),  # 8 classes of 64 rows would take 8 tiles of 128 rows where 4 do; 4 classes take 4
    (2600, 2600, 0, 1),  # 325 rows a class: 24 tiles of 128 against 21, and no fewer classes divide evenly
    (640, 1000, 0, 1),
    (511, 40, 0, 1),  # fewer than ROW_CLASS_MIN_M rows
    (256, 40, 0, 1),
])
def test_which_problems_read_rows_in_classes(m, k, offset, expected):
    assert classes_of(m, k, offset=offset) == expected


def test_only_where_b_is_off_sectors_too():
    assert classes_of(1000, 1000, n=1000) == 8  # B's 2000-byte rows: off sectors
    assert classes_of(1000, 1000, n=2000) == 1  # 4000 bytes: on sectors (2000x2000x1000 measured slower)
    assert classes_of(1000, 1000, n=2048) == 1


def test_bfloat16_too_but_not_float32_or_a_stored_k_by_m():
    assert classes_of(1000, 1000, torch.bfloat16) == 8
    assert classes_of(1000, 1004, torch.float32) == 1  # 4016-byte rows are off sectors, but unmeasured
    a3 = at_address(torch.empty(1000, 1000, dtype=torch.float16), 0).t()[None]  # A stored [K, M]: its rows are K's
    b3 = torch.empty(1, 1000, 1000, dtype=torch.float16)
    assert matmul_op.row_classes(a3, matmul_op.operand_layout(a3), b3, matmul_op.operand_layout(b3)) == 1


def test_a_batch_keeps_its_3d_descriptors():
    a3 = torch.empty(2, 1000, 1000, dtype=torch.float16)
    assert matmul_op.row_classes(a3, matmul_op.operand_layout(a3), a3, matmul_op.operand_layout(a3)) == 1


@pytest.mark.parametrize("path,expected", [("descriptor", 8), ("pointer", 1), ("persistent", 1)])
def test_only_the_descriptor_path_reads_in_classes(path, expected):
    a3 = at_address(torch.empty(1000, 1000, dtype=torch.float16), 0)[None]
    b3 = torch.empty(1, 1000, 1000, dtype=torch.float16)
    plan = matmul_op.plan_matmul(a3, b3, path, "tf32", None)
    assert plan.row_classes == expected and plan.as_dict()["row_classes"] == expected
    key = matmul_op._tuning_key(plan, a3, torch.empty(1, 0, 0, dtype=torch.float16), 1000, 1000, 1000)
    assert key.endswith("|rowclasses8") == (expected == 8)


def test_launch_describes_a_and_c_by_class(monkeypatch):
    """A [1000, 1000] in 8 classes: A and C as [8, 125, cols] with 8 rows' stride; B as stored; a grid of
    8 classes x 2 tiles of 64 rows x 8 tiles of 128 columns, and ROW_CLASSES=8 last."""
    a3 = at_address(torch.empty(1000, 1000, dtype=torch.float16), 0)[None]
    b3 = torch.empty(1, 1000, 1000, dtype=torch.float16)
    plan = matmul_op.plan_matmul(a3, b3, "descriptor", "tf32", None)
    c3 = matmul_op._allocate_output(plan, matmul_op._as_gemm(a3[0], b3[0]), torch.float16)
    config = Config(64, 128, 128, 8, num_warps=4, num_stages=4)
    a_desc, b_desc, c_desc, *rest = matmul_op._kernel_args(plan, config, a3, b3, c3, 1000, 1000, 1000)
    assert (a_desc.shape, a_desc.strides, a_desc.block_shape) == ([8, 125, 1000], [1000, 8000, 1], [1, 64, 128])
    assert (b_desc.shape, b_desc.strides, b_desc.block_shape) == ([1000, 1000], [1000, 1], [128, 128])
    assert (c_desc.shape, c_desc.strides, c_desc.block_shape) == ([8, 125, 1000], [1024, 8192, 1], [1, 64, 128])
    assert rest[-1] == 8 and rest[-2] is True  # ROW_CLASSES, HOST_DESCRIPTORS

    launched = []

    class Kernel:
        def __getitem__(self, grid):
            return lambda *args, **kwargs: launched.append(grid)

    monkeypatch.setattr(matmul_op, "matmul_descriptor_kernel", Kernel())
    matmul_op._launch(plan, config, a3, b3, c3, 1000, 1000, 1000)
    assert launched == [(8 * 2 * 8, 1, 1)]


def test_inspection_refuses_row_classes_it_cannot_plan():
    with pytest.raises(contracts.ContractError, match="row_classes"):
        matmul_op.inspection_source("descriptor", row_classes=3)
    with pytest.raises(contracts.ContractError, match="descriptor path"):
        matmul_op.inspection_source("pointer", row_classes=8)


_WORKER = r"""
import json, re, sys, torch, triton
from triton.backends.compiler import GPUTarget
from tilelab.ops.matmul import inspection_attrs, inspection_source
from tilelab.tuning import Config
facts = {}
for classes in json.load(sys.stdin):
    config = Config(128, 64, 128, 8, num_warps=4, num_stages=4)
    kernel, signature, constexprs, _ = inspection_source("descriptor", torch.float16, config=config,
                                                         row_classes=classes)
    source = triton.compiler.ASTSource(kernel, signature, constexprs, inspection_attrs(kernel, signature))
    ptx = triton.compile(source, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4, "num_stages": 4}).asm["ptx"]
    facts[classes] = {"copies": sorted(set(re.findall(r"cp\.async\.bulk\.tensor\.\dd\.[\w.:]+", ptx))),
                      "wgmma": "wgmma.mma_async" in ptx, "replace": "tensormap.replace" in ptx}
json.dump(facts, sys.stdout)
"""


def test_the_compiled_kernel_loads_a_and_stores_c_in_3d_and_builds_no_descriptor():
    """sm_90 PTX: A's boxes come from the 3-D class descriptor and B's from its 2-D one (both into shared
    memory), C goes out through a 3-D one, all host-built (no tensormap.replace); wgmma does the products.
    Without classes the same kernel builds its descriptors in the kernel, in 2-D."""
    facts = json.loads(run_without_interpreter(_WORKER, json.dumps([1, 8])))
    load, store = "shared::cluster.global", "global.shared::cta"
    assert facts["8"]["wgmma"] and not facts["8"]["replace"]
    kinds = {(re.search(r"\.(\dd)\.", c).group(1), store in c) for c in facts["8"]["copies"]}
    assert kinds == {("3d", False), ("2d", False), ("3d", True)}
    assert all(load in c or store in c for c in facts["8"]["copies"])
    assert facts["1"]["wgmma"] and facts["1"]["replace"]
    assert {re.search(r"\dd", c).group() for c in facts["1"]["copies"]} == {"2d"}
