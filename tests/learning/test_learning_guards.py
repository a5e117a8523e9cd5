"""The guard and comparison helpers behave as the messages claim."""

import math

import pytest

from learning.checking.compare import check_matrix, fmt
from learning.checking.guarded_list import GuardedList, GuardedMatrix, describe_offset, spans
from learning.checking.status import Status, most_urgent
from learning.checking.trial import CheckFailure


def test_guarded_list_records_stray_stores_instead_of_wrapping():
    out = GuardedList.poisoned(4, "out")
    out[3] = 1.0
    out[4] = 2.0  # one past the end
    out[-1] = 3.0  # a plain list would silently write out[3]
    assert out[3] == 1.0
    assert out.stray_stores == [4, -1]
    assert math.isnan(out[7]) and out.stray_loads == [7]
    assert out.unwritten() == [0, 1, 2]


def test_guarded_matrix_catches_rows_and_columns_outside():
    c = GuardedMatrix(2, 3, "C")
    c[0][3] = 1.0
    c[2][0] = 1.0
    assert c.stray_stores() == [(0, 3), (2, 0)]


def test_describe_offset_names_program_and_lane():
    assert describe_offset(9, 7, 4) == "offset 9 (3 past the end; program 2, lane 1 with block 4)"
    assert describe_offset(-1, 7) == "offset -1 (1 before the start)"


def test_spans_and_fmt():
    assert spans([4, 5, 6, 9]) == "4..6, 9"
    assert fmt(33.0) == "33" and fmt(0.5) == "0.5"


def test_check_matrix_names_the_mistake():
    with pytest.raises(CheckFailure, match=r"C\[0,0\] is 33, expected 58: is the accumulator"):
        check_matrix([[33.0]], [[58.0]], known_mistakes=[([[33.0]], "is the accumulator reset inside the K loop?")])


def test_most_urgent_status_wins():
    assert most_urgent([Status.PASS, Status.TODO, Status.FAIL]) == Status.FAIL
    assert most_urgent([Status.PASS, Status.UNAVAILABLE]) == Status.UNAVAILABLE
    assert most_urgent([]) == Status.PASS


def test_tensor_guards_find_a_stray_store():
    torch = pytest.importorskip("torch")
    from learning.checking.tensor_guards import GuardedOutput

    out = GuardedOutput((3, 4), torch.float32, "cpu", pad=2)
    out.view[:, :] = 1.0
    out.storage[2 + 1, 4] = 5.0  # row 1, column 4: just right of the view
    assert out.stray_stores() == [((1, 4), 5.0)]
    assert out.unwritten() == []


def test_tensor_guards_find_a_stray_store_in_a_batch():
    torch = pytest.importorskip("torch")
    from learning.checking.tensor_guards import GuardedOutput, padded_input

    out = GuardedOutput((2, 3, 4), torch.float32, "cpu", pad=2, spare=2)
    assert out.storage.shape == (4, 7, 6) and out.view.stride() == (42, 6, 1)
    out.view[:, :, :] = 1.0
    out.storage[1, 2 + 3, 0] = 5.0  # matrix 1, row 3: just below the matrix
    out.storage[3, 2, 1] = 6.0  # a spare matrix: past the batch
    assert out.stray_stores() == [((1, 3, 0), 5.0), ((3, 0, 1), 6.0)]
    assert out.unwritten() == []
    out.view[1, 2, 3].view(torch.int32).fill_(0x7FC0DEAD)
    assert out.unwritten() == [(1, 2, 3)]
    a = padded_input(torch.ones(2, 3, 4), pad=1, spare=3)
    assert a.shape == (2, 3, 4) and a.stride() == (20, 5, 1)
    assert a.untyped_storage().nbytes() == 5 * 4 * 5 * 4 and torch.isnan(a.as_strided((1,), (1,), 80)).all()


def test_the_split_k_check_runs_the_interpreter_s_programs_in_its_own_order():
    """Exercise 19's check renumbers the programs Triton's interpreter starts, so a tile's slices can arrive in any
    order, and it looks at the counters between programs. Without a GPU it must be able to, on this Triton."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    if torch.cuda.is_available():
        pytest.skip("with a GPU the kernels do not run on the interpreter")
    from triton.runtime import interpreter

    from learning.checks import triton_split_k as checks
    from learning.solutions import triton_split_k as solution

    assert checks.can_order_programs()
    orders = checks.arrival_orders(3, 4)
    assert orders[0] == [3, 2, 1, 0] and [order[-1] for order in orders] == [0, 1, 2]
    schedule = checks.interleaved(orders)
    a, b = torch.randn(40, 50), torch.randn(50, 16)  # 3 tiles of 16 rows; K=50 is 4 steps, one per slice
    counters = torch.zeros(3, dtype=torch.int32)
    seen = []
    with checks.programs_in_order(schedule, lambda program: seen.append((program, int(counters[program[0]])))) as done:
        c = solution.launch_split_k(a, b, split_k=4, counters=counters, block_m=16, block_n=16, block_k=16)
        done()
    assert [program for program, _ in seen] == schedule
    assert [count for _, count in seen] == [1] * 3 + [2] * 3 + [3] * 3 + [0] * 3  # the last to arrive resets
    torch.testing.assert_close(c, a @ b, rtol=1e-4, atol=1e-4)
    assert "set_grid_idx" not in vars(interpreter.interpreter_builder)  # the interpreter's own method again


def test_the_persistent_check_sees_which_tiles_each_program_wrote():
    """Exercise 20's check looks at C between the interpreter's programs of a 1-D grid: the watch takes what each
    program wrote, sets C back to its marked NaNs, and puts every value back after the last program. Without a GPU
    it must be able to, on this Triton."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("triton")
    if torch.cuda.is_available():
        pytest.skip("with a GPU the kernels do not run on the interpreter")
    from triton.runtime import interpreter

    from learning.checking import triton_support as ts
    from learning.checking.tensor_guards import GuardedOutput
    from learning.checks import triton_persistent as checks
    from learning.solutions import triton_persistent as solution

    assert ts.can_order_programs()
    p = checks.Problem(65, 127, 40, 5, (32, 32, 16), 2)  # 3 x 4 = 12 tiles on 5 programs
    assert (p.tiles, p.programs) == (12, 5) and p.own(1) == [1, 6, 11] and p.own(4) == [4, 9]
    assert [p.coords(t) for t in range(4)] == [(0, 0), (1, 0), (0, 1), (1, 1)]  # down the group of 2 rows first
    a, b = torch.randn(65, 40).half(), torch.randn(40, 127).half()
    out = GuardedOutput((65, 127), torch.float32, "cpu", pad=32)
    launch = checks.Launch((p.programs,), {})
    watch = checks.Watch(p, out, launch)
    with ts.programs_in_order(None, watch.after) as done:
        c = solution.launch_persistent(a, b, sms=5, out=out.view, block_m=32, block_n=32, block_k=16, group_m=2)
        done()
    assert out.unwritten(limit=1)  # between programs C is set back to its marked NaNs ...
    watch.put_back()
    assert out.unwritten() == [] and out.stray_stores() == []  # ... and after the last one, every value is back
    assert launch.problem is None
    assert launch.wrote == {pid: p.own(pid) for pid in range(5)}
    torch.testing.assert_close(c, a.double().matmul(b.double()).float(), rtol=1e-3, atol=1e-2)
    assert "set_grid_idx" not in vars(interpreter.interpreter_builder)  # the interpreter's own method again


def test_exercise_23_leaves_tma_s_row_padding_alone():
    """The H200's TMA stores whole 16-byte units (results/h200-padding-probe.log; a 1x1 float32 C got C[0,1]
    written in call XXXXXXXXX): the rest of each row's last 16 bytes is not a stray store, anything further is."""
    from learning.checks.triton_descriptors import _tma_scratch

    assert [_tma_scratch((0, col), 1, 1) for col in range(6)] == [False, True, True, True, False, False]
    assert not _tma_scratch((1, 1), 1, 1) and not _tma_scratch((-1, 1), 1, 1)  # rows past C are guard
    assert not any(_tma_scratch((3, col), 7, 8) for col in range(8, 12))  # rows already end on 16 bytes
    assert [_tma_scratch((6, col), 7, 29) for col in range(28, 34)] == [False, True, True, True, False, False]
