"""kernel-bench --op conv2d_bn_silu-grouped without a GPU: the op beside conv2d_bn_silu, its shapes, FLOPs and bytes
counted per group, its float64 reference, and --check-only on the interpreter (torch's three ops, the folded
baseline, tilelab on the direct kernel and on the implicit GEMM per group)."""

import pytest
import torch

from tests.instruments.helpers import check_only, run_tool
from tilelab.bench import op_conv, registry, sweep

no_gpu = pytest.mark.skipif(torch.cuda.is_available(), reason="exercises the machine-without-GPU behaviour")
F = torch.nn.functional


def test_the_grouped_op_sits_beside_the_dense_one():
    ops = registry.all_ops()
    dense, grouped = ops["conv2d_bn_silu"], ops["conv2d_bn_silu-grouped"]
    assert grouped.dims == (*dense.dims, "groups") and grouped.dtypes == dense.dtypes
    # The dense op's shapes are those its recorded results were measured on.
    assert dense.default_shapes == (
        (32, 64, 56, 56, 64, 3, 1), (32, 128, 28, 28, 128, 3, 1), (32, 256, 14, 14, 256, 3, 1),
        (32, 512, 7, 7, 512, 3, 1), (32, 256, 56, 56, 64, 1, 1), (32, 64, 56, 56, 256, 1, 1),
        (8, 3, 640, 640, 32, 3, 2), (8, 128, 80, 80, 256, 3, 2), (8, 256, 40, 40, 256, 3, 1),
        (7, 33, 31, 29, 65, 3, 1))
    shapes = grouped.default_shapes
    assert (32, 144, 56, 56, 144, 3, 1, 144) in shapes and (32, 1152, 7, 7, 1152, 5, 1, 1152) in shapes
    assert (32, 64, 56, 56, 128, 3, 1, 64) in shapes  # a channel multiplier of 2
    assert (32, 128, 56, 56, 128, 3, 1, 32) in shapes and (32, 256, 28, 28, 256, 3, 1, 8) in shapes
    for shape in shapes + grouped.check_shapes:
        c_in, c_out, groups = shape[1], shape[4], shape[7]
        assert c_in % groups == 0 and c_out % groups == 0, shape


def test_flops_and_bytes_count_one_group_per_output_channel():
    op = registry.get_op("conv2d_bn_silu-grouped")
    depthwise = (32, 96, 112, 112, 96, 3, 2, 96)  # stride 2: 56x56 outputs
    assert op.flops(depthwise) == 2 * 32 * 56 * 56 * 96 * 1 * 9
    assert op.bytes_moved(depthwise, torch.float16) == 2 * (32 * 96 * 112 * 112 + 96 * 9 + 32 * 96 * 56 * 56)
    resnext = (32, 128, 56, 56, 128, 3, 1, 32)
    assert op.flops(resnext) == 2 * 32 * 56 * 56 * 128 * 4 * 9
    # groups = 1 counts what the dense op counts.
    dense = (7, 33, 31, 29, 65, 3, 1)
    assert op.flops((*dense, 1)) == registry.get_op("conv2d_bn_silu").flops(dense)
    assert op.bytes_moved((*dense, 1), torch.float32) == registry.get_op("conv2d_bn_silu").bytes_moved(
        dense, torch.float32)


@pytest.mark.parametrize("shape", [(8, 3, 640, 640, 32, 3, 2), (7, 36, 31, 29, 36, 3, 1, 36), (2, 40, 5, 6, 24, 1, 1)])
def test_geometry_is_the_library_s_for_what_kernel_bench_runs(shape):
    """op_conv.geometry: the ConvGeometry of the convolution kernel-bench times, whose output size is output_size's."""
    g = op_conv.geometry(shape)
    assert (g.batch, g.c_in, g.h, g.w, g.c_out, g.kh, g.kw) == (*shape[:6], shape[5])
    assert (g.stride, g.padding, g.dilation, g.groups) == ((shape[6],) * 2, (shape[5] // 2,) * 2, (1, 1),
                                                           shape[7] if len(shape) > 7 else 1)
    assert (g.oh, g.ow) == op_conv.output_size(shape)


def test_inputs_and_reference():
    op = registry.get_op("conv2d_bn_silu-grouped")
    shape = (2, 4, 7, 6, 8, 3, 2, 4)
    inputs = op.make_inputs(shape, torch.float32, torch.device("cpu"), torch.Generator().manual_seed(0))
    x, weight, bias, mean, var, gamma, beta, stride, groups = inputs
    assert (stride, groups) == (2, 4) and weight.shape == (8, 1, 3, 3)
    assert x.is_contiguous(memory_format=torch.channels_last) and (x != 0).all() and (var > 0).all()
    reference = op.reference(*inputs)
    z = F.conv2d(x.double(), weight.double(), bias.double(), stride=2, padding=1, groups=4)
    expected = F.silu(F.batch_norm(z, mean.double(), var.double(), gamma.double(), beta.double(), training=False,
                                   eps=op_conv.EPS))
    assert reference.dtype == torch.float64 and torch.equal(reference, expected)
    # The dense op's inputs carry no groups, and its functions take groups=1.
    dense = registry.get_op("conv2d_bn_silu").make_inputs(shape[:7], torch.float32, torch.device("cpu"),
                                                          torch.Generator().manual_seed(0))
    assert len(dense) == 8 and dense[1].shape == (8, 4, 3, 3)
    with pytest.raises(ValueError, match="groups = 3 must divide C_in = 4 and C_out = 8"):
        op.make_inputs((2, 4, 7, 6, 8, 3, 2, 3), torch.float32, torch.device("cpu"), torch.Generator())


@no_gpu
def test_check_only_on_the_interpreter(tmp_path):
    document = check_only("conv2d_bn_silu-grouped", tmp_path, "float16", "float32")
    cases = document["cases"]
    assert {tuple(case["shape"]) for case in cases} == set(op_conv.GROUPED_CHECK_SHAPES)
    paths = set()
    for case in cases:
        assert case["op"] == "conv2d_bn_silu-grouped" and case["dims"]["groups"] == case["shape"][-1]
        by_name = {v["name"]: v for v in case["variants"]}
        assert {"torch", "torch-folded", "tilelab", "tilelab-seed"} <= set(by_name)
        assert all(v["status"] == "ok" for v in by_name.values()), by_name
        plan = by_name["tilelab"]["plan"]
        c_in, groups = case["shape"][1], case["shape"][-1]
        assert plan["groups"] == groups
        assert plan["path"] == ("direct" if c_in // groups < 16 else "implicit_gemm"), case["shape"]
        paths.add(plan["path"])
    assert paths == {"direct", "implicit_gemm"}


def test_a_shape_whose_groups_do_not_divide_is_refused_before_any_work(tmp_path):
    done = run_tool("tilelab.bench", "--op", "conv2d_bn_silu-grouped", "--dtype", "float32", "--check-only",
                    "--no-progress", "--shape", "2", "6", "5", "5", "6", "3", "1", "4", "--output",
                    str(tmp_path / "out.json"), interpret=True)
    assert done.returncode == 2
    assert "--shape 2 6 5 5 6 3 1 4 for conv2d_bn_silu-grouped: groups = 4 must divide C_in = 6 and C_out = 6" in (
        done.stderr)
    assert not (tmp_path / "out.json").exists()


def test_a_dense_shape_is_no_grouped_shape():
    with pytest.raises(ValueError, match="takes shapes of 8 numbers"):
        sweep.plan_cases([registry.get_op("conv2d_bn_silu-grouped")], ["float16"], [(2, 6, 5, 5, 6, 3, 1)], seed=0)
