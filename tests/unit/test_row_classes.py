"""A's rows read in classes (`tilelab.ops.matmul_plan.row_classes`): which problems, which descriptors, which PTX.

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
from tilelab.ops import matmul_hopper, matmul_plan
from tilelab.tuning import Config


def classes_of(m, k, dtype=torch.float16, offset=0, n=None, batch=1, b_stored_nk=False) -> int:
    """`row_classes` for A [batch, m, k] at `offset` bytes past a line, and a contiguous B [batch, k, n] (n = k by
    default), or B stored [batch, n, k]."""
    n = k if n is None else n
    a3 = at_address(torch.empty(batch, m, k, dtype=dtype), offset)
    b3 = torch.empty(batch, n, k, dtype=dtype).transpose(1, 2) if b_stored_nk else torch.empty(batch, k, n, dtype=dtype)
    return matmul_plan.row_classes(a3, matmul_plan.operand_layout(a3), b3, matmul_plan.operand_layout(b3))


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
    assert matmul_plan.row_classes(a3, matmul_plan.operand_layout(a3), b3, matmul_plan.operand_layout(b3)) == 1


def test_a_batch_only_with_b_stored_k_by_n():
    """A batch with B stored [N, K] measured slower in classes (16x1000^3, call XXXXX); one GEMM faster (call
    YYYYY)."""
    assert classes_of(1000, 1000, b_stored_nk=True) == 8
    assert classes_of(1000, 1000, batch=16, b_stored_nk=True) == 1
    assert classes_of(1000, 1000, batch=16) == 8


def test_batches_too_where_every_matrix_starts_on_the_boundary():
    assert classes_of(1000, 1000, batch=16) == 8  # 2,000,000 bytes a matrix: a multiple of 128
    assert classes_of(1000, 1000, batch=2, offset=64) == 4
    # Matrices 1,000,016 elements apart: every second one starts 32 bytes past a 64-byte boundary.
    a3 = at_address(torch.empty(2, 1000 * 1000 + 16, dtype=torch.float16), 0)[:, :1000 * 1000].view(2, 1000, 1000)
    b3 = torch.empty(2, 1000, 1000, dtype=torch.float16)
    assert matmul_plan.row_classes(a3, matmul_plan.operand_layout(a3), b3, matmul_plan.operand_layout(b3)) == 2
    shared = at_address(torch.empty(1000, 1000, dtype=torch.float16), 0).expand(4, 1000, 1000)  # batch stride 0
    b4 = torch.empty(4, 1000, 1000, dtype=torch.float16)
    assert matmul_plan.row_classes(shared, matmul_plan.operand_layout(shared), b4, matmul_plan.operand_layout(b4)) == 8


@pytest.mark.parametrize("path,config,expected", [
    ("descriptor", None, 8), ("pointer", None, 1), ("splitk", None, 1), ("persistent", None, 8),
    ("persistent", matmul_hopper.HopperConfig(128, 256, 64, 8, num_warps=4, num_stages=3, warp_specialize=True), 1),
])
@pytest.mark.parametrize("batch", [1, 16])
def test_which_paths_read_in_classes(path, config, expected, batch):
    """The descriptor and persistent kernels; not a warp-specialized configuration, whose descriptors are built in
    the kernel (`persistent_host_descriptors`)."""
    a3 = at_address(torch.empty(batch, 1000, 1000, dtype=torch.float16), 0)
    b3 = torch.empty(batch, 1000, 1000, dtype=torch.float16)
    plan = matmul_plan.plan_matmul(a3, b3, path, "tf32", config)
    assert plan.row_classes == expected and plan.as_dict()["row_classes"] == expected
    key = matmul_op._tuning_key(plan, a3, b3, torch.empty(batch, 0, 0, dtype=torch.float16), 1000, 1000, 1000)
    assert key.endswith("|rowclasses8") == (expected == 8)
    assert ("|batch16" in key) == (batch == 16)


def test_persistent_candidates_in_classes_take_host_descriptors():
    a3 = at_address(torch.empty(16, 1000, 1000, dtype=torch.float16), 0)
    plan = matmul_plan.plan_matmul(a3, torch.empty(16, 1000, 1000, dtype=torch.float16), "persistent", "tf32", None)
    candidates = matmul_op.persistent_candidates(plan, 1000, 1000, 2)
    assert candidates and not any(c.warp_specialize for c in candidates)
    plain = matmul_plan.plan_matmul(a3, torch.empty(16, 1000, 1024, dtype=torch.float16), "persistent", "tf32", None)
    assert any(c.warp_specialize for c in matmul_op.persistent_candidates(plain, 1000, 1024, 2))


def test_launch_describes_a_and_c_by_class(monkeypatch):
    """A [1000, 1000] in 8 classes: A and C as [8, 125, cols] with 8 rows' stride; B as stored; a grid of
    8 classes x 2 tiles of 64 rows x 8 tiles of 128 columns, and ROW_CLASSES=8 last."""
    a3 = at_address(torch.empty(1000, 1000, dtype=torch.float16), 0)[None]
    b3 = torch.empty(1, 1000, 1000, dtype=torch.float16)
    plan = matmul_plan.plan_matmul(a3, b3, "descriptor", "tf32", None)
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


@pytest.mark.parametrize("path", ["descriptor", "persistent"])
def test_a_batch_is_described_by_class_in_4d(path, monkeypatch):
    """16 matrices [1000, 1000] in 8 classes: A and C as [16, 8, 125, cols], B as the batch it is (3-D); the
    persistent grid spreads 16 x 8 classes x 1 tile of 128 rows x 4 of 256 columns over the SMs."""
    from tilelab.ops import matmul_hopper

    a3 = at_address(torch.empty(16, 1000, 1000, dtype=torch.float16), 0)
    b3 = torch.empty(16, 1000, 1000, dtype=torch.float16)
    plan = matmul_plan.plan_matmul(a3, b3, path, "tf32", None)
    c3 = torch.empty(16, 1000, 1000, dtype=torch.float16)
    launched = []

    class Kernel:
        def __getitem__(self, grid):
            return lambda *args, **kwargs: launched.append((grid, args))

    if path == "descriptor":
        monkeypatch.setattr(matmul_op, "matmul_descriptor_kernel", Kernel())
        config = Config(128, 256, 64, 8, num_warps=8, num_stages=3)
        matmul_op._launch(plan, config, a3, b3, c3, 1000, 1000, 1000)
        c_block, grid = [1, 1, 128, 256], (8 * 1 * 4, 16, 1)
    else:
        monkeypatch.setattr(matmul_hopper, "matmul_persistent_kernel", Kernel())
        config = matmul_hopper.PERSISTENT_CANDIDATES[0]  # 128x256x64, the epilogue stored in halves
        matmul_hopper.launch_persistent(a3, b3, c3, 1000, 1000, 1000, plan.a_layout, plan.b_layout, "tf32", config,
                                        132, row_classes=8)
        c_block, grid = [1, 1, 128, 128], (128, 1)  # 512 tiles: 4 each for 128 programs
    ((got_grid, (a_desc, b_desc, c_desc, *rest)),) = launched
    assert got_grid == grid
    assert (a_desc.shape, a_desc.strides, a_desc.block_shape) == (
        [16, 8, 125, 1000], [10 ** 6, 1000, 8000, 1], [1, 1, 128, 64])
    assert (b_desc.shape, b_desc.strides, b_desc.block_shape) == ([16, 1000, 1000], [10 ** 6, 1000, 1], [1, 64, 256])
    assert (c_desc.shape, c_desc.strides, c_desc.block_shape) == ([16, 8, 125, 1000], [10 ** 6, 1000, 8000, 1],
                                                                  c_block)
    assert rest[-1] == 8  # ROW_CLASSES


def test_warp_specialized_configs_cannot_read_in_classes():
    a3 = at_address(torch.empty(2, 1000, 1000, dtype=torch.float16), 0)
    config = matmul_hopper.HopperConfig(128, 256, 64, 8, num_warps=4, num_stages=3, warp_specialize=True)
    layout = matmul_plan.operand_layout(a3)
    with pytest.raises(contracts.ContractError, match="warp-specialized"):
        matmul_hopper.launch_persistent(a3, a3, torch.empty_like(a3), 1000, 1000, 1000, layout, layout, "tf32",
                                        config, 132, row_classes=8)
    with pytest.raises(contracts.ContractError, match="row_classes"):
        matmul_hopper.inspection_source("persistent", config=config, row_classes=8)
    with pytest.raises(contracts.ContractError, match="row_classes"):
        matmul_hopper.inspection_source("persistent", a_k_major=False, row_classes=8)


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
from tilelab.ops import matmul_hopper
for batched in (False, True):
    ptx = matmul_hopper.compile_for("persistent", batched=batched, row_classes=8).asm["ptx"]
    facts[f"persistent batched={batched}"] = {
        "copies": sorted(set(re.findall(r"cp\.async\.bulk\.tensor\.\dd\.[\w.:]+", ptx))),
        "wgmma": "wgmma.mma_async" in ptx, "replace": "tensormap.replace" in ptx}
json.dump(facts, sys.stdout)
"""


def test_the_compiled_kernels_load_a_and_store_c_by_class_and_build_no_descriptor():
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
    # The persistent kernel in classes (its default tile): A and C one dimension up from B, 4-D for a batch.
    for batched, (ac, b) in ((False, ("3d", "2d")), (True, ("4d", "3d"))):
        got = facts[f"persistent batched={batched}"]
        assert got["wgmma"] and not got["replace"]
        kinds = {(re.search(r"\.(\dd)\.", c).group(1), store in c) for c in got["copies"]}
        assert kinds == {(ac, False), (b, False), (ac, True)}, (batched, kinds)
