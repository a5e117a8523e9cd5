"""kernel-bench --op linear / linear-relu / linear-silu without a GPU: the three ops, their float64 references,
and --check-only on the interpreter (torch's two ops, tilelab.linear fused, and tilelab's matmul + torch's
activation)."""

import pytest
import torch

from tests.instruments.helpers import check_only
from tilelab.bench import op_linear, registry

no_gpu = pytest.mark.skipif(torch.cuda.is_available(), reason="exercises the machine-without-GPU behaviour")
F = torch.nn.functional


def test_one_op_per_activation_with_its_own_reference():
    ops = registry.all_ops()
    assert {"linear", "linear-relu", "linear-silu"} <= set(ops)
    x, weight, bias = op_linear.make_inputs((7, 9, 5), torch.float32, torch.device("cpu"),
                                            torch.Generator().manual_seed(0))
    assert weight.shape == (9, 5) and bias.shape == (9,) and (x != 0).all()
    pre = F.linear(x.double(), weight.double(), bias.double())
    for name, activation in (("linear", F.gelu), ("linear-relu", F.relu), ("linear-silu", F.silu)):
        op = ops[name]
        assert op.dims == ("M", "N", "K") and op.default_shapes == op_linear.DEFAULT_SHAPES
        reference = op.reference(x, weight, bias)
        assert reference.dtype == torch.float64 and torch.equal(reference, activation(pre)), name
    assert not torch.equal(ops["linear-relu"].reference(x, weight, bias), ops["linear-silu"].reference(x, weight, bias))


@no_gpu
@pytest.mark.parametrize("op", ["linear-relu", "linear-silu"])
def test_check_only_on_the_interpreter(op, tmp_path):
    for case in check_only(op, tmp_path, "float16", "float32")["cases"]:
        assert case["op"] == op
        by_name = {v["name"]: v for v in case["variants"]}
        assert {"torch", "tilelab", "tilelab-unfused"} <= set(by_name)
        assert all(v["status"] == "ok" for v in by_name.values()), by_name
        assert by_name["torch"]["plan"]["function"] == f"F.{op.split('-')[1]}(F.linear(...))"
