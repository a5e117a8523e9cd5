"""tilelab.matmul on Triton's interpreter (or the GPU, when there is one): values against float64."""

import pytest
import torch
import triton
import triton.language as tl

import tilelab
from learning.solutions.grouping import grouped_tile as course_order
from tests.helpers import assert_matches_reference, at_address, interpreter_plan_only, randn
from tilelab.kernels.matmul import grouped_tile
from tilelab.ops import matmul as matmul_op

pytestmark = pytest.mark.usefixtures("poisoned_outputs")

RAGGED = [(1, 1, 1), (5, 7, 5), (7, 1, 7), (127, 255, 65), (64, 64, 64), (65, 127, 33), (1, 255, 7), (130, 3, 17)]
DTYPES = [torch.float16, torch.float32]


@pytest.mark.parametrize("path", ["pointer", "descriptor", "persistent", "splitk"])
@pytest.mark.parametrize("m,n,k", RAGGED)
@pytest.mark.parametrize("dtype", DTYPES)
def test_both_paths_on_ragged_shapes(path, m, n, k, dtype, device, rng):
    a = randn((m, k), dtype, device, rng)
    b = randn((k, n), dtype, device, rng)
    es = a.element_size()
    a_fits = m == 1 or k == 1 or (k * es) % 16 == 0
    b_fits = k == 1 or n == 1 or (n * es) % 16 == 0
    if path in ("descriptor", "persistent") and not (a_fits and b_fits):
        # A row stride that is not a multiple of 16 bytes cannot be described to TMA.
        with pytest.raises(tilelab.AlignmentError, match=f"path='{path}'"):
            tilelab.matmul(a, b, path=path)
        return
    out = tilelab.matmul(a, b, path=path)
    assert_matches_reference(out, a, b, label=f"{path} {m}x{n}x{k} {dtype}")


@pytest.mark.parametrize("config", ["fixed", tilelab.Config(16, 32, 16, group_m=2, num_warps=4, num_stages=1)])
def test_named_and_explicit_configs(config, device, rng):
    a = randn((37, 45), torch.float16, device, rng)
    b = randn((45, 70), torch.float16, device, rng)
    assert_matches_reference(tilelab.matmul(a, b, config=config), a, b, label=str(config))


@pytest.mark.parametrize("group_m", [1, 2, 3, 8])
def test_group_order_visits_every_tile_once(group_m, device, rng):
    # Tile grid 5x4 with a group size that does not divide it: the last group is short.
    a = randn((5 * 16, 24), torch.float32, device, rng)
    b = randn((24, 4 * 16), torch.float32, device, rng)
    cfg = tilelab.Config(16, 16, 16, group_m=group_m, num_stages=1)
    assert_matches_reference(tilelab.matmul(a, b, config=cfg, path="pointer"), a, b, label=f"GROUP_M={group_m}")


@triton.jit
def _record_tile_order(out_ptr, M, N, BLOCK: tl.constexpr, GROUP_M: tl.constexpr):
    tile = tl.program_id(0)
    pid_m, pid_n = grouped_tile(tile, M, N, BLOCK, BLOCK, GROUP_M)
    tl.store(out_ptr + 2 * tile, pid_m)
    tl.store(out_ptr + 2 * tile + 1, pid_n)


def test_grouped_tile_walks_down_a_group_then_right(device):
    """The order itself, which C's values cannot show (a row-major order gives the same C, only less L2 reuse):
    the course's grouped_tile (learning/solutions/grouping.py) on 5x3 tiles in groups of 2 rows, the last short."""
    out = torch.full((15, 2), -1, dtype=torch.int32, device=device)
    _record_tile_order[(15,)](out, 5 * 16, 3 * 16, BLOCK=16, GROUP_M=2)
    got = [tuple(pair) for pair in out.cpu().tolist()]
    assert got[:7] == [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2), (2, 0)]
    assert got == [course_order(tile, 5, 3, 2) for tile in range(15)]


@pytest.mark.parametrize("precision", ["ieee", "tf32x3", "tf32"])
def test_describe_plan_keeps_the_precision_asked_for(precision, device, rng):
    """The interpreter's dot ignores input precision, so only the plan shows it was passed on."""
    a = randn((64, 48), torch.float32, device, rng)
    assert matmul_op.describe_plan(a, a.T.contiguous(), precision=precision)["input_precision"] == precision


@pytest.mark.parametrize("path", ["pointer", "descriptor", "persistent", "splitk"])
def test_transposed_operands(path, device, rng):
    # Column-major A and B: stored transposed, viewed back. Both paths read them without a copy.
    a = randn((96, 64), torch.float16, device, rng).t()  # 64 x 96, unit stride along rows
    b = randn((48, 96), torch.float16, device, rng).t()  # 96 x 48
    out = tilelab.matmul(a, b, path=path)
    assert_matches_reference(out, a, b, label=f"{path} transposed")


@pytest.mark.parametrize("m,n,k,batch,dtype,align", [
    (24, 40, 56, 1, torch.float16, 8),  # every size and row a multiple of 8 elements, not 16
    (33, 60, 20, 1, torch.float16, 4),
    (9, 6, 10, 3, torch.float16, 2),  # batched: the batch strides must be multiples too
    (17, 12, 36, 2, torch.float32, 4),  # 16 bytes is 4 float32 elements
])
def test_pointer_path_with_proven_alignment(m, n, k, batch, dtype, align, device, rng):
    # The kernel rewrites N, K and the strides as (x // ALIGN) * ALIGN: an ALIGN that does not divide them
    # would drop the last columns or rows, and the comparison would catch it.
    a = randn((batch, m, k), dtype, device, rng)
    b = randn((batch, k, n), dtype, device, rng)
    assert matmul_op.describe_plan(a, b, path="pointer")["align"] == align
    assert_matches_reference(tilelab.matmul(a, b, path="pointer"), a, b, label=f"align {align}")


@pytest.mark.parametrize("path", [None, "pointer", "descriptor", "persistent", "splitk"])
@pytest.mark.parametrize("m,n,k", RAGGED)
def test_aligned_inputs_take_every_path(path, m, n, k, device, rng):
    """`tilelab.to_aligned` rows start on lines (16 bytes when shorter), so TMA can read any width: the shapes the
    test above must refuse on the descriptor paths run there too, read as they are."""
    a = tilelab.to_aligned(randn((m, k), torch.float16, device, rng))
    b = tilelab.to_aligned(randn((k, n), torch.float16, device, rng))
    plan = matmul_op.describe_plan(a, b, path=path)
    assert plan["a_row_major"] and plan["b_row_major"]  # no copy into another layout
    assert_matches_reference(tilelab.matmul(a, b, path=path), a, b, label=f"aligned {path} {m}x{n}x{k}")


def test_sliced_and_strided_views(device, rng):
    base_a = randn((40, 90), torch.float32, device, rng)
    base_b = randn((70, 60), torch.float32, device, rng)
    a = base_a[3:33:2, 5:66:3]  # no unit stride at all: pointer path only
    b = base_b[:21, 7:47]
    plan = matmul_op.describe_plan(a, b)
    assert plan["path"] == "pointer"
    assert_matches_reference(tilelab.matmul(a, b), a, b, label="strided views")


@pytest.mark.parametrize("batch", [1, 3])
def test_describe_plan_counts_the_persistent_programs(batch, device, rng):
    from tilelab.ops import matmul_hopper

    a = randn((batch, 200, 64), torch.float16, device, rng)
    b = randn((64, 136), torch.float16, device, rng)
    plan = matmul_op.describe_plan(a, b, path="persistent")
    config, config_type = plan["config"], matmul_hopper.HopperConfig
    # a B shared by the batch folds the batch into rows: one GEMM of batch * 200 rows
    tiles = -(-(batch * 200) // config["block_m"]) * -(-136 // config["block_n"])
    sms = matmul_hopper.device_sms(a.device)
    assert plan["programs"] == matmul_hopper.persistent_grid(tiles, 1, sms, config_type(**config))[0] <= sms
    assert "programs" not in matmul_op.describe_plan(a, b, path="pointer")


def test_misaligned_data_pointer_cannot_force_descriptor(device, rng):
    base = randn((64 * 64 + 1,), torch.float16, device, rng)
    a = base[1:].view(64, 64)  # 2-byte offset from an aligned allocation
    b = randn((64, 64), torch.float16, device, rng)
    with pytest.raises(tilelab.AlignmentError, match="16-byte"):
        tilelab.matmul(a, b, path="descriptor")
    assert matmul_op.describe_plan(a, b)["path"] == "pointer"
    assert_matches_reference(tilelab.matmul(a, b), a, b, label="misaligned auto")


@pytest.mark.parametrize(
    "a_shape,b_shape",
    [
        ((3, 1, 5, 7), (4, 7, 6)),
        ((2, 16, 32), (32, 24)),  # shared B folds into one GEMM
        ((16, 32), (3, 32, 8)),  # shared A
        ((2, 3, 8, 16), (2, 3, 16, 8)),
        ((1, 9, 8), (5, 8, 3)),
    ],
)
@pytest.mark.parametrize("path", [None, "pointer", "splitk"])
def test_batched_broadcasting(a_shape, b_shape, path, device, rng):
    a = randn(a_shape, torch.float32, device, rng)
    b = randn(b_shape, torch.float32, device, rng)
    assert_matches_reference(tilelab.matmul(a, b, path=path), a, b, label=f"{a_shape} @ {b_shape}")


@pytest.mark.parametrize("path", ["descriptor", "persistent"])
@pytest.mark.parametrize("a_shape,b_shape,a_batch_dim,ranks", [
    ((40, 32), (32, 48), 0, (2, 2, 2)),  # one GEMM: 2-D descriptors, built on the host, passed as parameters
    ((2, 16, 32), (32, 24), 0, (2, 2, 2)),  # a shared B folds the batch into one GEMM
    ((3, 40, 32), (3, 32, 48), 0, (3, 3, 3)),  # a batch: described once, in 3-D
    ((40, 32), (2, 32, 16), 0, (2, 3, 3)),  # a shared A (batch stride 0) is the one matrix it is
    ((40, 3, 32), (32, 48), 1, (3, 2, 3)),  # A's batch not outermost: no fold, B shared
])
def test_descriptors_are_host_built_and_3d_for_a_batch(path, a_shape, b_shape, a_batch_dim, ranks, device, rng,
                                                       monkeypatch):
    from tilelab.ops import matmul_hopper

    built, real = [], matmul_op.host_descriptors

    def spy(*args, **kwargs):
        made = real(*args, **kwargs)
        built.append(tuple(len(d.block_shape) for d in made))
        return made

    monkeypatch.setattr(matmul_hopper, "host_descriptors", spy)
    monkeypatch.setattr(matmul_op, "host_descriptors", spy)
    a = randn(a_shape, torch.float32, device, rng).movedim(a_batch_dim, 0)
    b = randn(b_shape, torch.float32, device, rng)
    out = tilelab.matmul(a, b, path=path)
    assert_matches_reference(out, a, b, label=f"{path} {tuple(a.shape)} @ {b_shape}")
    assert built and set(built) == {ranks}, built
    assert matmul_op.describe_plan(a, b, path=path)["host_descriptors"] is True


@pytest.mark.parametrize("a_shape,b_shape", [((7,), (7,)), ((7,), (7, 5)), ((3, 5, 7), (7,)), ((7,), (2, 7, 4))])
def test_vectors_follow_torch_matmul(a_shape, b_shape, device, rng):
    a = randn(a_shape, torch.float32, device, rng)
    b = randn(b_shape, torch.float32, device, rng)
    out = tilelab.matmul(a, b)
    assert out.shape == torch.matmul(a, b).shape
    assert_matches_reference(out, a, b, label=f"{a_shape} @ {b_shape}")


@pytest.mark.parametrize("a_shape,b_shape,expected", [
    ((0, 5), (5, 3), (0, 3)), ((4, 5), (5, 0), (4, 0)), ((0, 4, 5), (5, 3), (0, 4, 3)),
])
def test_empty_outputs(a_shape, b_shape, expected, device, rng):
    out = tilelab.matmul(randn(a_shape, torch.float16, device, rng), randn(b_shape, torch.float16, device, rng))
    assert tuple(out.shape) == expected and out.dtype == torch.float16


def test_empty_reduction_gives_zeros(device, rng):
    out = tilelab.matmul(randn((4, 0), torch.float32, device, rng), randn((0, 3), torch.float32, device, rng))
    assert out.shape == (4, 3) and bool((out == 0).all())


@pytest.mark.parametrize("out_dtype", [torch.float32, torch.float16])
def test_out_dtype(out_dtype, device, rng):
    a = randn((33, 40), torch.float16, device, rng)
    b = randn((40, 24), torch.float16, device, rng)
    out = tilelab.matmul(a, b, out_dtype=out_dtype)
    assert_matches_reference(out, a, b, out_dtype=out_dtype, label=str(out_dtype))


@pytest.mark.parametrize("precision", ["tf32", "tf32x3", "ieee"])
def test_float32_precisions(precision, device, rng):
    a = randn((70, 50), torch.float32, device, rng)
    b = randn((50, 90), torch.float32, device, rng)
    out = tilelab.matmul(a, b, precision=precision)
    assert_matches_reference(out, a, b, precision=precision, label=precision)


def test_descriptor_pads_awkward_output_rows(poisoned_outputs, device, rng):
    # N=36 fp16 is 72 bytes a row: the output's rows are padded to 80 bytes. The padding is scratch (TMA on
    # the H200 writes whole 16-byte units: results/h200-padding-probe.log); the visible view must be exact.
    a = randn((48, 64), torch.float16, device, rng)
    b = randn((64, 36), torch.float16, device, rng).t().contiguous().t()  # column-major: aligned for TMA
    out = tilelab.matmul(a, b, path="descriptor")
    assert out.stride(0) == 40
    assert_matches_reference(out, a, b, label="padded rows")
    assert out._base is poisoned_outputs[-1]._base and out._base.shape[-1] == 40


@interpreter_plan_only("tests/gpu/test_matmul_gpu.py::test_pretune_persistent_then_reuse")
def test_pretune_reports_each_shape_dtype_and_path(device, monkeypatch, tmp_path):
    from tilelab import tuning

    monkeypatch.setattr(tuning, "_cache", tuning.TuningCache(tmp_path / "tuning.json"))
    records = matmul_op.pretune([(64, 64, 32), (5, 7, 3)], (torch.float16,), device=device)
    by_case = {(tuple(r["shape"]), r["path"]) for r in records}
    # 5x7x3 fp16 rows are not 16-byte aligned: the persistent path is skipped, not an error.
    assert by_case == {((64, 64, 32), "descriptor"), ((64, 64, 32), "persistent"), ((5, 7, 3), "pointer")}
    assert all(r["config"] for r in records if r["path"] == "persistent")


# -- split-K through the public op ---------------------------------------------------------------


@pytest.mark.parametrize("split_k", [1, 2, 3, 8])
def test_split_k_configs_and_counters_left_at_zero(split_k, device, rng):
    from tilelab.ops import matmul_hopper

    a = randn((20, 200), torch.float16, device, rng)
    b = randn((200, 70), torch.float16, device, rng)
    config = matmul_hopper.HopperConfig(16, 32, 32, group_m=2, num_warps=4, num_stages=1, split_k=split_k)
    for _ in range(2):  # the second launch reuses the counters the first one left
        assert_matches_reference(tilelab.matmul(a, b, path="splitk", config=config), a, b, label=f"split {split_k}")
    assert all(int(c.abs().sum()) == 0 for c in matmul_hopper._SPLIT_K_COUNTERS.values())


@pytest.mark.parametrize("m,rows_aligned,through_tma", [
    (260, True, True),  # 256 rows or more, both operands TMA-usable: descriptors
    (100, True, False),  # fewer rows: pointers
    (260, False, False),  # B's 200-byte rows: no descriptor, pointers whatever the rows
])
def test_split_k_reads_through_tma_from_256_rows(m, rows_aligned, through_tma, device, rng, monkeypatch):
    from tilelab.ops import matmul_hopper

    a = randn((m, 96), torch.float16, device, rng)
    b = randn((96, 72 if rows_aligned else 100), torch.float16, device, rng)
    used = []
    real = matmul_hopper._launch_split_k

    def spy(*args, **kwargs):
        used.append("a_layout" in kwargs)  # the layouts: the descriptor kernel
        return real(*args, **kwargs)

    monkeypatch.setattr(matmul_hopper, "_launch_split_k", spy)
    config = matmul_hopper.HopperConfig(64, 32, 32, group_m=2, num_warps=4, num_stages=1, split_k=3)
    out = tilelab.matmul(a, b, path="splitk", config=config)
    assert used == [through_tma]
    assert matmul_op.describe_plan(a, b, path="splitk", config=config)["host_descriptors"] is through_tma
    assert_matches_reference(out, a, b, label=f"split-K {m} rows, through TMA: {through_tma}")


@pytest.mark.parametrize("m,k,offset,classes", [
    (1024, 40, 0, 8),  # 80-byte rows, 16 bytes past a sector every other row; A's base on a line
    (1000, 24, 0, 8),
    (1004, 104, 0, 4),  # M divisible by 4, not 8
    (1002, 8, 0, 2),  # by 2 only
    (1000, 200, 64, 4),  # A's base 64 bytes into a line
    (1001, 40, 0, 1),  # odd M: rows as they are
])
@pytest.mark.parametrize("n", [1, 24, 136])
def test_rows_off_sectors_are_read_in_classes(m, k, offset, classes, n, device, rng):
    """Each class's K loop starts up to 56 elements before 0, where A's columns and B's rows read as zeros;
    C's rows are stored by class. Ragged N (B's rows off sectors at every N here, as the rule wants; a B of one
    column counts as stored [N, K]), and K shorter than one K step. (bf16: tests/gpu.)"""
    a = at_address(randn((m, k), torch.float16, device, rng), offset)
    b = randn((k, n), torch.float16, device, rng)
    config = tilelab.Config(64, 32, 32, group_m=2, num_warps=4, num_stages=2)
    assert matmul_op.describe_plan(a, b, path="descriptor", config=config)["row_classes"] == classes
    out = tilelab.matmul(a, b, path="descriptor", config=config)
    assert_matches_reference(out, a, b, label=f"{m}x{n}x{k} in {classes} classes")


def test_row_classes_follow_a_view_s_row_stride(device, rng):
    """A [1000, 136] view of [1000, 200] rows: the classes and their shifts come from the 400-byte row stride,
    not from K."""
    a = at_address(randn((1000, 200), torch.float16, device, rng), 0)[:, :136]
    b = randn((136, 24), torch.float16, device, rng)
    config = tilelab.Config(64, 32, 32, group_m=2, num_warps=4, num_stages=2)
    assert matmul_op.describe_plan(a, b, path="descriptor", config=config)["row_classes"] == 8
    assert_matches_reference(tilelab.matmul(a, b, path="descriptor", config=config), a, b, label="strided A")


@pytest.mark.parametrize("path", ["descriptor", "persistent"])
@pytest.mark.parametrize("batch,m,k,n,classes", [
    (3, 1000, 24, 24, 8),  # every matrix 48,000 bytes: on a line, as A's base is
    (2, 1002, 40, 136, 2),
    (1, 1000, 24, 40, 8),  # one GEMM through the persistent kernel too; N ragged
])
def test_batches_read_in_classes(path, batch, m, k, n, classes, device, rng):
    """A [batch, M, K] and C by class in 4-D descriptors (3-D for one GEMM), B as the batch it is: the
    persistent kernel's list of tiles runs matrix after matrix, class after class, each class reading K from
    its own shift. Against float64."""
    from tilelab.ops import matmul_hopper

    a = at_address(randn((batch, m, k), torch.float16, device, rng), 0)
    b = randn((batch, k, n), torch.float16, device, rng)
    config = (tilelab.Config(64, 32, 32, group_m=2, num_warps=4, num_stages=2) if path == "descriptor" else
              matmul_hopper.HopperConfig(64, 32, 32, group_m=2, num_warps=4, num_stages=2, flatten=True))
    assert matmul_op.describe_plan(a, b, path=path, config=config)["row_classes"] == classes
    out = tilelab.matmul(a, b, path=path, config=config)
    assert_matches_reference(out, a, b, label=f"{batch}x{m}x{n}x{k} {path} in {classes} classes")


def test_split_k_is_refused_for_huge_outputs(device):
    a = torch.ones((1 << 16, 1), device=device).expand(1 << 16, 4)
    b = torch.ones((1, 1 << 15), device=device).expand(4, 1 << 15)
    with pytest.raises(tilelab.ShapeError, match="path='splitk' is for small M\\*N"):
        tilelab.matmul(a, b, path="splitk")


@interpreter_plan_only("tests/gpu/test_matmul_gpu.py::test_skinny_problems_take_split_k_and_every_split_config_is_right")
def test_split_k_plan_on_the_interpreter_really_splits(device, rng):
    a = randn((16, 300), torch.float32, device, rng)
    b = randn((300, 40), torch.float32, device, rng)
    assert matmul_op.describe_plan(a, b, path="splitk")["config"]["split_k"] == 2


@pytest.mark.parametrize("shape", [(1, 1, 1), (2, 7, 65), (1, 130, 3), (3, 64, 128), (1, 127, 255)])
def test_transposed_copy_is_exact(shape, device, rng):
    x = randn(shape, torch.float32, device, rng)
    y = matmul_op.transposed_copy(x)
    assert y.is_contiguous() and torch.equal(y, x.transpose(1, 2))
    strided = randn((shape[0], shape[2], 2 * shape[1]), torch.float32, device, rng)[:, :, ::2].transpose(1, 2)
    assert torch.equal(matmul_op.transposed_copy(strided), strided.transpose(1, 2))


WIDE = [tilelab.Config(32, 48, 16, group_m=2, num_stages=1), tilelab.Config(16, 96, 32, group_m=8, num_stages=1)]


@pytest.mark.parametrize("config", WIDE, ids=lambda c: c.label())
@pytest.mark.parametrize("m,n,k", [(1, 8, 8), (7, 48, 16), (65, 200, 72), (130, 96, 24), (33, 264, 40)])
@pytest.mark.parametrize("dtype", DTYPES)
def test_wide_tiles_on_ragged_shapes(config, m, n, k, dtype, device, rng, poisoned_outputs):
    """Tiles 1.5 powers of two wide (`matmul_wide_kernel`): two accumulators, of 2/3 and 1/3 of the width, whose
    columns past N are dropped by the descriptors; the row padding stays untouched (NaN)."""
    a = randn((m, k), dtype, device, rng)
    b = randn((k, n), dtype, device, rng)
    out = tilelab.matmul(a, b, config=config)
    assert matmul_op.describe_plan(a, b, config=config)["path"] == "descriptor"
    assert_matches_reference(out, a, b, label=f"{config.label()} {m}x{n}x{k} {dtype}")
    storage = poisoned_outputs[-1]._base
    if storage is not None:
        assert storage[..., n:].isnan().all(), "a wide tile wrote into the row padding"


@pytest.mark.parametrize("layout", ["a-transposed", "b-k-major", "batch", "shared-b", "shared-a"])
def test_wide_tiles_on_every_operand_layout(layout, device, rng):
    config = WIDE[0]
    shapes = {"batch": ((3, 40, 32), (3, 32, 104)), "shared-b": ((2, 40, 32), (32, 104)),
              "shared-a": ((40, 32), (3, 32, 104))}
    a_shape, b_shape = shapes.get(layout, ((40, 32), (32, 104)))
    a = randn(a_shape, torch.float16, device, rng)
    b = randn(b_shape, torch.float16, device, rng)
    if layout == "a-transposed":
        a = a.t().contiguous().t()
    elif layout == "b-k-major":
        b = b.t().contiguous().t()
    assert_matches_reference(tilelab.matmul(a, b, config=config, path="descriptor"), a, b, label=layout)


def test_wide_tiles_are_descriptor_candidates_only_where_a_s_rows_are_read_as_stored(device):
    from tilelab import tuning

    wide = [c for c in matmul_op._candidates(2, 4096, 4096, 2, wide=True) if tuning.is_wide(c)]
    assert wide and set(wide) <= set(tuning.WIDE_CANDIDATES)
    assert not any(tuning.is_wide(c) for c in matmul_op._candidates(2, 4096, 4096, 2))
    # A float32 C tile of 128x192 does not fit in shared memory beside the pipeline: pruned.
    assert not any(tuning.is_wide(c) for c in matmul_op._candidates(4, 4096, 4096, 4, wide=True))


@pytest.mark.parametrize("config,path,match", [
    (tilelab.Config(100, 64, 32), None, "config.block_m must be a power of two"),
    (tilelab.Config(64, 64, 8), "descriptor", "config.block_k must be a power of two, at least 16"),
    (tilelab.Config(64, 192, 64), "pointer", r"config.block_n .* on the descriptor path, 3 times one"),
    (tilelab.Config(64, 24, 64), None, "config.block_n must be a power of two"),
    (tilelab.Config(512, 64, 32), "pointer", "config.block_m must be at most 256"),  # 64-bit offsets assume it
    (tilelab.Config(64, 64, 512), None, "config.block_k must be at most 256"),
    (tilelab.Config(64, 384, 64), "descriptor", "config.block_n must be at most 256"),  # wide, but too wide
])
def test_tiles_that_no_kernel_can_take_are_refused(config, path, match, device, rng):
    a = randn((64, 64), torch.float16, device, rng)
    with pytest.raises(tilelab.ContractError, match=match):
        tilelab.matmul(a, a, config=config, path=path)


@pytest.mark.parametrize("path", [None, "descriptor"])
def test_wide_tiles_need_operands_tma_can_read(path, device, rng):
    a = randn((40, 33), torch.float16, device, rng)  # 66-byte rows: not 16-byte aligned
    b = randn((33, 96), torch.float16, device, rng)
    with pytest.raises(tilelab.AlignmentError, match="wide tile .* descriptor path"):
        tilelab.matmul(a, b, config=WIDE[0], path=path)


def test_an_explicit_config_too_large_for_the_gpu_is_a_contract_error(device, rng, monkeypatch):
    """Triton refuses a launch that needs more shared memory than the GPU has (OutOfResources); for a caller's
    own config that is bad input, named as such. (Simulated: the interpreter has no such limit.)"""
    from triton.runtime.errors import OutOfResources

    def too_large(*args, **kwargs):
        raise OutOfResources(262144, 232448, "shared memory")

    monkeypatch.setattr(matmul_op, "_launch", too_large)
    a = randn((64, 64), torch.float16, device, rng)
    with pytest.raises(tilelab.ContractError, match=r"config 128x192x64-g8-w4-s5 does not fit this GPU: it needs "
                                                    r"262144 of shared memory, the limit is 232448"):
        tilelab.matmul(a, a, config=tilelab.Config(128, 192, 64, num_stages=5))
    with pytest.raises(OutOfResources):  # the library's own choice: a bug to see, not the caller's to fix
        tilelab.matmul(a, a, path="descriptor")
