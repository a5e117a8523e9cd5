"""The command lines a learner types: python -m learning.check / learning.explain."""

import json

import pytest

from learning.checking.status import EXIT_CODES, Status
from learning.walkthroughs import TOPICS

from .helpers import REPO_ROOT, WRONG_ANSWERS, run_module


def test_help_documents_statuses_and_exit_codes():
    result = run_module("learning.check", "--help")
    assert result.returncode == 0
    for status in Status:
        assert status.value in result.stdout
        assert f"{EXIT_CODES[status]}  {status.value}" in result.stdout


def test_list_numbers_every_exercise():
    result = run_module("learning.check", "--list")
    assert result.returncode == 0
    for number, name in [(1, "offsets"), (6, "matmul"), (12, "triton_matmul"), (19, "triton_split_k"),
                         (20, "triton_persistent"), (21, "triton_depthwise"), (22, "occupancy"),
                         (23, "triton_descriptors")]:
        assert f"{number:>2}  {name}" in result.stdout


def test_unknown_exercise_is_a_usage_error():
    result = run_module("learning.check", "no_such_exercise")
    assert result.returncode == 2
    assert "--list" in result.stderr


def test_hint_prints_numbered_hints():
    result = run_module("learning.check", "matmul", "--hint")
    assert result.returncode == 0
    assert "1. " in result.stdout and "tile_ranges(7, 3)" in result.stdout


def test_failure_names_the_case_the_seed_and_exits_1():
    result = run_module("learning.check", "matmul", "--file", str(WRONG_ANSWERS / "matmul_acc_reset.py"),
                        "--seed", "99")
    assert result.returncode == EXIT_CODES[Status.FAIL]
    assert "C[0,0] is 33, expected 58: is the accumulator reset inside the K loop?" in result.stdout
    assert "--seed 99" in result.stdout


def test_a_triton_exercise_is_todo_until_written_and_its_solution_passes(tmp_path):
    """Exercise 18 from the command line: the starter file reports TODO (exit 4), the reference PASS (exit 0),
    each with both parts named."""
    starter = run_module("learning.check", "triton_softmax_rows",
                         env={"TILELAB_PROGRESS_FILE": str(tmp_path / "progress.json")})
    assert starter.returncode == EXIT_CODES[Status.TODO], starter.stdout + starter.stderr
    assert "[18] triton_softmax_rows (lesson 8)" in starter.stdout and "TODO" in starter.stdout
    assert "rows_per_program" in starter.stdout and "launch_softmax_rows" in starter.stdout
    solution = run_module("learning.check", "triton_softmax_rows", "--solution")
    assert solution.returncode == 0, solution.stdout + solution.stderr
    assert "PASS  rows_per_program" in solution.stdout and "PASS  launch_softmax_rows" in solution.stdout


def test_verbose_prints_seed_and_cases():
    result = run_module("learning.check", "matmul", "--solution", "--verbose", "--seed", "5")
    assert result.returncode == 0
    assert "seed 5" in result.stdout
    assert "case: toy 2x3 @ 3x2" in result.stdout


def test_progress_is_remembered_between_runs(tmp_path):
    progress_file = tmp_path / "progress.json"
    env = {"TILELAB_PROGRESS_FILE": str(progress_file)}
    first = run_module("learning.check", "offsets", env=env)
    assert first.returncode == EXIT_CODES[Status.TODO]
    data = json.loads(progress_file.read_text())
    assert data["offsets"]["status"] == "TODO" and data["offsets"]["attempts"] == 1
    table = run_module("learning.check", "--progress", env=env)
    assert table.returncode == 0
    assert "offsets" in table.stdout and "TODO" in table.stdout
    assert "Next: python -m learning.check offsets" in table.stdout
    listing = run_module("learning.check", "--list", env=env)
    assert "TODO" in listing.stdout


def test_solution_runs_do_not_touch_progress(tmp_path):
    progress_file = tmp_path / "progress.json"
    result = run_module("learning.check", "strides", "--solution", env={"TILELAB_PROGRESS_FILE": str(progress_file)})
    assert result.returncode == 0
    assert "reference solutions" in result.stdout
    assert not progress_file.exists()


class TestFreshMachine:
    """python -S hides site-packages: only the standard library, like a fresh machine."""

    def test_list_works(self):
        result = run_module("learning.check", "--list", fresh_python=True)
        assert result.returncode == 0, result.stderr
        assert "UNAVAILABLE" in result.stdout

    def test_all_solutions_pass_or_are_unavailable(self, tmp_path):
        result = run_module("learning.check", "all", "--solution", fresh_python=True)
        assert result.returncode == EXIT_CODES[Status.UNAVAILABLE], result.stdout + result.stderr
        assert "13 PASS, 10 UNAVAILABLE" in result.stdout
        assert "triton_matmul (lesson 8) ........... UNAVAILABLE" in result.stdout

    def test_a_cpu_exercise_can_be_checked(self, tmp_path):
        result = run_module("learning.check", "matmul", "--file", str(WRONG_ANSWERS / "matmul_zeros.py"),
                            fresh_python=True)
        assert result.returncode == EXIT_CODES[Status.FAIL]

    def test_explain_text_works(self):
        result = run_module("learning.explain", "matmul", fresh_python=True)
        assert result.returncode == 0, result.stderr

    def test_plot_says_matplotlib_is_missing(self, tmp_path):
        result = run_module("learning.explain", "matmul", "--plot", str(tmp_path / "x.png"), fresh_python=True)
        assert result.returncode == 5
        assert "needs matplotlib" in result.stderr
        assert not (tmp_path / "x.png").exists()


def test_no_machine_paths_in_tracked_course_files():
    for path in list((REPO_ROOT / "learning").rglob("*.py")) + list((REPO_ROOT / "learning").rglob("*.md")):
        text = path.read_text()
        machine_paths = ("/" + "work/", "/" + "tmp/")  # spelled apart so a repo-wide path scan skips this file
        assert not any(p in text for p in machine_paths), path


@pytest.mark.parametrize("topic", TOPICS)
def test_every_explain_topic_prints(topic):
    result = run_module("learning.explain", topic)
    assert result.returncode == 0, result.stderr
    assert "?  ->" in result.stdout
