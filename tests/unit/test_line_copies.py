"""Which products copy an operand onto 128-byte lines (`tilelab.ops.matmul._with_rows_on_lines`), planned on a
pretend Hopper with CPU tensors (copy=False: the copies are allocated, not made). The copies themselves run on the
interpreter (tests/interpreter/test_line_copies_interpreter.py), the whole product on the GPU
(tests/gpu/test_line_copies_gpu.py)."""

import pytest
import torch

from tilelab.ops import matmul as matmul_op
from tilelab.ops import matmul_hopper, matmul_plan
from tilelab.ops.matmul_plan import operand_layout


@pytest.fixture
def fake_hopper(monkeypatch):
    monkeypatch.setattr(matmul_op.env, "interpreting", lambda: False)
    monkeypatch.setattr(matmul_op.env, "is_hopper_or_newer", lambda device: True)
    monkeypatch.setattr(matmul_hopper, "device_sms", lambda device: 132)
    # split-K's own rule, asked as for a CUDA device (it takes nothing on any other)
    split_k_rule = matmul_plan._split_k_pays_off
    monkeypatch.setattr(matmul_plan, "_split_k_pays_off", lambda device, batch, m, n, k: split_k_rule(
        torch.device("cuda", 0), batch, m, n, k))


def planned(a, b, path=None, config=None):
    """(the operands copied, the path planned on what the product reads)."""
    p = matmul_op._with_rows_on_lines(matmul_op._as_gemm(a, b), path, config, copy=False)
    return [name for name, _ in p.line_copies], matmul_plan.plan_matmul(p.a3, p.b3, path, "tf32", config).path, p


@pytest.mark.parametrize("m,n,k,copied,path", [
    (1001, 1001, 1001, ["a", "b"], "descriptor"),  # odd rows: one element a load on the pointer path
    (1024, 1024, 1001, ["a"], "descriptor"),  # only A's rows (K's) are odd
    (1500, 1500, 1500, ["a", "b"], "descriptor"),  # 8-byte aligned rows
    (4096, 50257, 1024, ["b"], "persistent"),  # a vocabulary's worth of columns
    (1024, 1024, 1024, [], "descriptor"),  # TMA reads these already
    (1000, 1000, 1000, [], "descriptor"),  # 16-byte aligned, off sectors: read in classes, not copied
    (604, 604, 604, [], "pointer"),  # below HOST_DESCRIPTOR_MIN_WORK: the copies would cost more than they save
    (8, 1024, 1001, [], "pointer"),
    (128, 4100, 4100, [], "splitk"),  # on lines it would split K, reading through pointers: nothing to gain
])
def test_only_rows_tma_cannot_read_are_copied_and_only_where_a_tma_path_follows(fake_hopper, m, n, k, copied, path):
    a, b = torch.empty(m, k, dtype=torch.float16), torch.empty(k, n, dtype=torch.float16)
    names, planned_path, p = planned(a, b)
    assert (names, planned_path) == (copied, path)
    assert operand_layout(p.a3).tma_ok == ("a" in copied or operand_layout(a[None]).tma_ok)
    assert operand_layout(p.b3).tma_ok == ("b" in copied or operand_layout(b[None]).tma_ok)


def test_a_column_major_operand_is_copied_column_major(fake_hopper):
    b = torch.empty(1001, 1001, dtype=torch.float16).mT  # B stored [N, K], as nn.Linear's weight
    names, path, p = planned(torch.empty(1001, 1001, dtype=torch.float16), b)
    assert names == ["a", "b"] and p.b3.stride(1) == 1 and operand_layout(p.b3).tma_ok


def test_a_batch_and_a_b_shared_by_it(fake_hopper):
    a = torch.empty(4, 1001, 1001, dtype=torch.float16)
    names, _, p = planned(a, torch.empty(4, 1001, 1001, dtype=torch.float16))
    assert names == ["a", "b"] and p.a3.shape == (4, 1001, 1001)
    # A shared B folds the batch into A's rows (one GEMM); the copy of B is still one matrix.
    names, _, p = planned(a, torch.empty(1001, 1001, dtype=torch.float16))
    assert names == ["a", "b"] and p.b3.shape[0] == 1


@pytest.mark.parametrize("case", ["float32", "bfloat16 forced path", "explicit config", "no unit stride",
                                  "interpreter", "not Hopper"])
def test_what_is_never_copied(fake_hopper, monkeypatch, case):
    dtype = torch.float32 if case == "float32" else torch.bfloat16
    a, b = torch.empty(1001, 1001, dtype=dtype), torch.empty(1001, 1001, dtype=dtype)
    path, config = ("pointer" if case == "bfloat16 forced path" else None), None
    if case == "explicit config":
        config = "fixed"
    if case == "no unit stride":  # A cannot be copied by rows; B could, but A would still keep TMA out
        a = torch.empty(1001, 2002, dtype=dtype)[:, ::2]
        b = torch.empty(2002, 1001, dtype=dtype)[::2]
    if case == "interpreter":
        monkeypatch.setattr(matmul_op.env, "interpreting", lambda: True)
    if case == "not Hopper":
        monkeypatch.setattr(matmul_op.env, "is_hopper_or_newer", lambda device: False)
    names, _, _ = planned(a, b, path, config)
    assert names == []


def test_describe_plan_names_the_copies(fake_hopper, monkeypatch):
    monkeypatch.setattr(matmul_op, "_check", lambda *args: None)  # CPU tensors on a pretend Hopper
    a, b = torch.empty(1024, 1001, dtype=torch.float16), torch.empty(1001, 1024, dtype=torch.float16)
    described = matmul_op.describe_plan(a, b)
    assert described["line_copies"] == ["a"] and described["path"] == "descriptor"
    assert matmul_op.describe_plan(a[:8], b)["line_copies"] == []  # too small to pay


def test_linear_plans_on_the_copies_too(fake_hopper, monkeypatch):
    from tilelab.ops import linear as linear_op

    monkeypatch.setattr(linear_op, "_check", lambda *args: None)  # CPU tensors on a pretend Hopper
    x, weight, bias = (torch.empty(1024, 1001, dtype=torch.float16), torch.empty(1003, 1001, dtype=torch.float16),
                       torch.empty(1003, dtype=torch.float16))
    described = linear_op.describe_linear(x, weight, bias, activation="gelu")
    assert described["line_copies"] == ["a", "b"] and described["path"] in linear_op.EPILOGUE_PATHS
    assert described["path"] != "pointer"
    assert linear_op.describe_linear(x, weight, bias, activation="gelu", path="pointer")["line_copies"] == []


def test_a_replay_copies_each_operand_it_recorded_into_a_fresh_buffer_on_a_line():
    from tilelab.alignment import LINE_BYTES
    from tilelab.ops import line_copies

    calls = []
    a, b = torch.empty(7, 1001, dtype=torch.float16), torch.empty(1001, 9, dtype=torch.float16)
    bound = (("a", lambda *args: calls.append(("a", *args)), (1, 7, 1024)),
             ("b", lambda *args: calls.append(("b", *args)), (1, 9, 1024)))
    read_a, read_b = line_copies.copy_again(bound, "stream", a, b)
    assert [call[:3] for call in calls] == [("a", "stream", a.data_ptr()), ("b", "stream", b.data_ptr())]
    assert (calls[0][3], calls[1][3]) == (read_a.data_ptr(), read_b.data_ptr())  # the copies' destinations
    assert read_a.shape == (1, 7, 1024) and read_b.shape == (1, 9, 1024)
    assert read_a.data_ptr() % LINE_BYTES == 0 and read_b.data_ptr() % LINE_BYTES == 0
    assert line_copies.copy_again((), "stream", a, b) == (a, b)  # nothing recorded: the caller's own operands
    only_b = line_copies.copy_again(bound[1:], "stream", a, b)
    assert only_b[0] is a and only_b[1].shape == (1, 9, 1024)


def test_a_replay_binds_each_copy_launch_without_its_two_pointers(monkeypatch):
    from tilelab.ops import line_copies

    bound = []
    monkeypatch.setattr(line_copies, "bind_launch", lambda compiled, grid, tail: bound.append((compiled, grid, tail))
                        or "launch")
    made = line_copies.LineCopy(1234, ("kernel", (2, 1, 1), ("src", "dst", 7, 126, 0, 1001, 0, 1024, 4, 128, 8)),
                                (1, 7, 1024))
    assert line_copies.bound_copies((("b", made),)) == (("b", "launch", (1, 7, 1024)),)
    assert bound == [("kernel", (2, 1, 1), (7, 126, 0, 1001, 0, 1024, 4, 128, 8))]


def test_without_memory_for_the_copies_the_product_keeps_its_operands(fake_hopper, monkeypatch):
    from tilelab.ops import line_copies

    def out_of_memory(x3):
        raise torch.OutOfMemoryError("CUDA out of memory")

    monkeypatch.setattr(matmul_op, "allocate_on_lines", out_of_memory)
    a = torch.empty(1001, 1001, dtype=torch.float16)
    names, path, p = planned(a, a)
    assert (names, path) == ([], "pointer") and p.a3.data_ptr() == a.data_ptr()
    assert line_copies.allocate_on_lines is not out_of_memory  # the module's own is untouched
